"""Specification of ``tfops.op.math.NotEqual``'s own behaviour: the option
``incompatibleShapeError(False)`` (TensorFlow Java's), with which inputs whose shapes do not
broadcast are unequal: the result is the scalar ``True`` instead of an error. What it shares
with the other comparisons is in ``test_comparisons.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.op.math import NotEqual
from tfops.types import TInt32

Run = Callable[..., Any]  # the conftest fixture: fetches in the test's session
U = -1  # an unknown dimension


def test_incompatibleShapeErrorIsTrueUnlessTheOptionSaysOtherwise(tf: Ops) -> None:
    x = tf.constant([1, 2])
    assert tf.math.notEqual(x, x).op().attr("incompatible_shape_error") is True
    lenient = tf.math.notEqual(x, x, NotEqual.incompatibleShapeError(False))
    assert lenient.op().attr("incompatible_shape_error") is False


@pytest.mark.parametrize(
    ("xShape", "yShape", "zShape"),
    [((2, 3), (3,), (2, 3)), ((2, 3), (), (2, 3)), ((2, 1), (1, 3), (2, 3)),
     ((0, 3), (1, 3), (0, 3)), ((1,), (U,), (U,)), ((U, 3), (1, 3), (U, 3))],
    ids=str,
)
def test_lenientOutputShapeIsTheBroadcastShapeWhenTheShapesBroadcast(
    tf: Ops, xShape: tuple[int, ...], yShape: tuple[int, ...], zShape: tuple[int, ...]
) -> None:
    x, y = placeholder(tf, TInt32, xShape), placeholder(tf, TInt32, yShape)
    lenient = tf.math.notEqual(y, x, NotEqual.incompatibleShapeError(False))
    assert lenient.asOutput().shape() == Shape.of(*zShape)


@pytest.mark.parametrize(("xShape", "yShape"), [((U, 3), (4, 1)), ((U,), (U,)), ((2,), (3,))],
                         ids=str)
def test_lenientOutputShapeIsUnknownWhenTheShapesMayNotBroadcast(
    tf: Ops, xShape: tuple[int, ...], yShape: tuple[int, ...]
) -> None:
    """As TensorFlow's shape function: an unknown dimension against one larger than 1 (or
    another unknown one) may not broadcast at run time, and then the result is a scalar."""
    x, y = placeholder(tf, TInt32, xShape), placeholder(tf, TInt32, yShape)
    lenient = tf.math.notEqual(x, y, NotEqual.incompatibleShapeError(False))
    assert lenient.asOutput().shape() == Shape.unknown()


def test_lenientIncompatibleShapesGiveTheScalarTrue(tf: Ops, run: Run) -> None:
    x, y = placeholder(tf, TInt32, (2, 3)), placeholder(tf, TInt32, (2,))
    z = tf.math.notEqual(x, y, NotEqual.incompatibleShapeError(False))
    assert z.asOutput().shape() == Shape.unknown()
    result = run(z, feeds={x: np.ones((2, 3), np.int32), y: np.ones(2, np.int32)})
    assert result.shape == () and result.dtype == np.bool_ and bool(result) is True


def test_lenientCompatibleShapesCompareElementWise(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TInt32, (U,))
    z = tf.math.notEqual(x, np.array([1, 2], np.int32), NotEqual.incompatibleShapeError(False))
    assert run(z, feeds={x: np.array([1, 3], np.int32)}).tolist() == [False, True]
    assert bool(run(z, feeds={x: np.array([1, 2, 3], np.int32)})) is True


def test_rejectsANonBoolOption(tf: Ops, graph: Graph) -> None:
    x = tf.constant([1, 2])
    assertRejected(
        graph,
        lambda: tf.math.notEqual(x, x, NotEqual.incompatibleShapeError("no")),  # type: ignore[arg-type]
        TypeError, "NotEqual",
    )
