"""Specification of the ``BroadcastGradientArgs`` op class: from two shapes (int32 or int64
vectors) that broadcast against each other, the dimensions each gradient is summed over (``r0``,
``r1``), as TensorFlow's BCast computes them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.output import Operand
from tfops.types import TFloat32, TInt32, TInt64, TType

Run = Callable[..., Any]
SITE = f"created at {__file__}:"
NAME = "BroadcastGradientArgs 'BroadcastGradientArgs'"
INDEX_TYPES = pytest.mark.parametrize("dtype", [TInt32, TInt64], ids=lambda t: t.NAME)


def vector(values: list[int], dtype: type[TType] = TInt32) -> np.ndarray[Any, Any]:
    return np.array(values, dtype.DTYPE).reshape(-1)


# -- construction --------------------------------------------------------------------------
@INDEX_TYPES
@pytest.mark.parametrize(
    "shape", [Shape.of(2), Shape.of(-1), Shape.unknown()], ids=["known", "partial", "unknown"]
)
def test_outputsAreVectorsOfUnknownLengthAndTheInputDataType(
    tf: Ops, dtype: type[TType], shape: Shape
) -> None:
    args = tf.broadcastGradientArgs(placeholder(tf, dtype, shape), vector([4, 1], dtype))
    assert not isinstance(args, Operand)  # two outputs
    assert args.op().attr("T") is dtype
    for r in (args.r0(), args.r1()):
        assert (r.dataType(), r.shape()) == (dtype, Shape.of(-1))


# -- kernel --------------------------------------------------------------------------------
@INDEX_TYPES
@pytest.mark.parametrize(
    ("s0", "s1", "r0", "r1"),
    [
        ([2, 3], [3], [], [0]),
        ([3], [2, 3], [0], []),
        ([2, 3], [2, 3], [], []),
        ([1, 3], [2, 1], [0], [1]),
        ([], [2, 3], [0, 1], []),
        ([2, 3], [], [], [0, 1]),
        ([4, 1, 3], [1, 5, 1], [1], [0, 2]),
        ([5], [1, 5], [0], [0]),
        ([2, 1, 3], [1, 3], [1], [0, 1]),
        ([0, 3], [1, 3], [], [0]),
        ([], [], [], []),
        # TensorFlow's BCast takes a fast path for identical shapes that leaves both lists
        # empty, even for dimensions of size 1
        ([1], [1], [], []),
        ([2, 1, 3], [2, 1, 3], [], []),
        ([1, 1], [1, 1], [], []),
    ],
    ids=str,
)
def test_runGivesTheDimensionsToSum(
    tf: Ops, run: Run, dtype: type[TType], s0: list[int], s1: list[int], r0: list[int],
    r1: list[int],
) -> None:
    args = tf.broadcastGradientArgs(vector(s0, dtype), vector(s1, dtype))
    got0, got1 = run(args.r0(), args.r1())
    assert (got0.dtype, got1.dtype) == (dtype.DTYPE, dtype.DTYPE)
    assert (got0.shape, got1.shape) == ((len(r0),), (len(r1),))
    assert (got0.tolist(), got1.tolist()) == (r0, r1)


def test_runWithShapesComputedAtRunTime(tf: Ops, run: Run) -> None:
    a, b = tf.placeholder(TFloat32), tf.placeholder(TFloat32)
    args = tf.broadcastGradientArgs(tf.shape(a), tf.shape(b))
    feeds = {a: np.zeros((4, 1, 3), np.float32), b: np.zeros((5, 1), np.float32)}
    got0, got1 = run(args.r0(), args.r1(), feeds=feeds)
    assert (got0.tolist(), got1.tolist()) == ([1], [0, 2])


def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("BroadcastGradientArgs") == (True, None)


# -- bad inputs ----------------------------------------------------------------------------
def test_incompatibleShapesRaiseInvalidArgumentErrorAtRunTime(tf: Ops, run: Run) -> None:
    args = tf.withName("args").broadcastGradientArgs(vector([2, 3]), vector([4]))
    with pytest.raises(InvalidArgumentError, match=f"'args'.*{SITE}") as info:
        run(args.r0())
    assert info.value.op == args.op()


@pytest.mark.parametrize(
    ("s0", "s1"),
    [(np.array([2, 3], np.float32), np.array([2, 3], np.float32)),
     (np.array([2, 3], np.uint8), np.array([2, 3], np.uint8)),
     (vector([2], TInt64), vector([2])), (np.array([2.0]), [2])],
    ids=["float32", "uint8", "mixed", "floatAndPython"],
)
def test_nonIndexOrMixedDataTypesRaiseTypeError(tf: Ops, graph: Graph, s0: Any, s1: Any) -> None:
    a = tf.constant(s0)
    assertRejected(graph, lambda: tf.broadcastGradientArgs(a, s1), TypeError, f"{NAME} ({SITE}")


@pytest.mark.parametrize("which", [0, 1])
def test_scalarShapeRaisesValueError(tf: Ops, graph: Graph, which: int) -> None:
    # TensorFlow's shape function: "Shape must be rank 1 but is rank 0".
    scalar, vec = tf.constant(2), tf.constant([2])
    s0, s1 = (scalar, vec) if which == 0 else (vec, scalar)
    assertRejected(graph, lambda: tf.broadcastGradientArgs(s0, s1), ValueError, NAME)
