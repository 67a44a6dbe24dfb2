"""Specification of the ``InvertPermutation`` op class (``tfops.op.math``)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import Placeholder
from tfops.op.math import InvertPermutation
from tfops.types import TFloat32, TInt32, TInt64, TType

Run = Callable[..., Any]
HERE = re.escape(__file__)


# -- construction --------------------------------------------------------------------------
def test_opNameIsInvertPermutation() -> None:
    assert InvertPermutation.OP_NAME == "InvertPermutation"


def test_defaultNamesAreInvertPermutationThenInvertPermutation_1(tf: Ops) -> None:
    assert tf.math.invertPermutation([1, 0]).op().name() == "InvertPermutation"
    assert tf.math.invertPermutation([1, 0]).op().name() == "InvertPermutation_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    assert tf.withName("inverse").math.invertPermutation([0]).op().name() == "inverse"


def test_createOnAScope(tf: Ops) -> None:
    x = tf.constant([2, 0, 1])
    p = InvertPermutation.create(tf.scope(), x)
    assert isinstance(p, InvertPermutation)
    assert p.op().type() == "InvertPermutation"
    assert p.op().input(0) == x.asOutput()
    assert p.y() == p.asOutput() == p.op().output(0)


@pytest.mark.parametrize("dtype", [TInt32, TInt64], ids=lambda t: t.NAME)
def test_outputHasTheInputDataType(tf: Ops, dtype: type[TType]) -> None:
    assert tf.math.invertPermutation(tf.placeholder(dtype)).asOutput().dataType() is dtype


@pytest.mark.parametrize(
    ("shape", "expected"),
    [(Shape.of(5), Shape.of(5)), (Shape.of(0), Shape.of(0)), (Shape.of(-1), Shape.of(-1)),
     (Shape.unknown(), Shape.of(-1))],
    ids=str,
)
def test_staticShapeIsTheInputShape(tf: Ops, shape: Shape, expected: Shape) -> None:
    x = tf.placeholder(TInt32, Placeholder.shape(shape))
    assert tf.math.invertPermutation(x).asOutput().shape() == expected


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [TInt32, TInt64], ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    "p", [[3, 4, 0, 2, 1], [0, 1, 2], [2, 0, 1], [0], []], ids=str
)
def test_runMatchesArgsort(tf: Ops, run: Run, dtype: type[TType], p: list[int]) -> None:
    x = tf.placeholder(dtype)
    result = run(tf.math.invertPermutation(x), feeds={x: np.array(p, dtype.DTYPE)})
    assert result.dtype == dtype.DTYPE
    np.testing.assert_array_equal(result, np.argsort(np.array(p, np.int64)))


def test_inverseUndoesThePermutation(tf: Ops, run: Run) -> None:
    p = np.array([4, 1, 3, 0, 2], np.int32)
    inverse = run(tf.math.invertPermutation(p))
    assert p[inverse].tolist() == [0, 1, 2, 3, 4]
    assert inverse[p].tolist() == [0, 1, 2, 3, 4]


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("InvertPermutation") == (True, None)


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize("p", [[0, 0], [1, 2], [-1, 0]], ids=str)
def test_constantThatIsNotAPermutationRaisesValueError(tf: Ops, p: list[int]) -> None:
    with pytest.raises(ValueError, match=rf"InvertPermutation 'InvertPermutation' "
                       rf"\(created at {HERE}:\d+\): x {re.escape(str(p))} is not a permutation"):
        tf.math.invertPermutation(p)


def test_inputThatIsNotAVectorRaisesValueError(tf: Ops) -> None:
    with pytest.raises(ValueError, match="InvertPermutation 'InvertPermutation'.*vector"):
        tf.math.invertPermutation([[0, 1]])


@pytest.mark.parametrize("x", [[0.0, 1.0], np.array([0, 1], np.uint8)], ids=["float", "uint8"])
def test_nonIndexDataTypeRaisesTypeError(tf: Ops, x: object) -> None:
    with pytest.raises(TypeError, match="InvertPermutation"):
        tf.math.invertPermutation(x)  # type: ignore[arg-type]


def test_notAPermutationAtRunTimeRaisesInvalidArgumentError(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TInt32)
    p = tf.withName("p").math.invertPermutation(x)
    with pytest.raises(InvalidArgumentError, match=rf"'p'.*created at {HERE}:\d+") as info:
        run(p, feeds={x: np.array([0, 3, 1], np.int32)})
    assert info.value.op == p.op()


def test_failedCreateLeavesTheGraphUnchanged(graph: Graph, tf: Ops) -> None:
    floats = tf.constant([0.0], TFloat32)
    before = list(graph.operations())
    with pytest.raises(ValueError):
        tf.math.invertPermutation([1, 1])
    with pytest.raises(TypeError):
        tf.math.invertPermutation(floats)  # type: ignore[arg-type]
    assert list(graph.operations()) == before
    assert tf.math.invertPermutation([0]).op().name() == "InvertPermutation"
