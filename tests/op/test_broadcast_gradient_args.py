"""Specification of the ``BroadcastGradientArgs`` op class."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import BroadcastGradientArgs, Placeholder
from tfops.output import Operand
from tfops.types import TFloat32, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]
INDEX_TYPES: list[type[TType]] = [TInt32, TInt64]
HERE = re.escape(__file__)


def vector(values: list[int], dtype: type[TType] = TInt32) -> np.ndarray[Any, Any]:
    return np.array(values, dtype.DTYPE).reshape(-1)


# -- construction --------------------------------------------------------------------------
def test_opNameIsBroadcastGradientArgs() -> None:
    assert BroadcastGradientArgs.OP_NAME == "BroadcastGradientArgs"


def test_defaultNamesAreBroadcastGradientArgsThenBroadcastGradientArgs_1(tf: Ops) -> None:
    s = tf.constant([2, 3])
    assert tf.broadcastGradientArgs(s, s).op().name() == "BroadcastGradientArgs"
    assert tf.broadcastGradientArgs(s, s).op().name() == "BroadcastGradientArgs_1"


def test_opTypeIsBroadcastGradientArgs(tf: Ops) -> None:
    s = tf.constant([2, 3])
    assert tf.broadcastGradientArgs(s, s).op().type() == "BroadcastGradientArgs"


def test_withNameNamesTheOp(tf: Ops) -> None:
    s = tf.constant([2, 3])
    assert tf.withName("args").broadcastGradientArgs(s, s).op().name() == "args"


def test_hasTwoOutputsR0AndR1(tf: Ops) -> None:
    s0, s1 = tf.constant([2, 3]), tf.constant([3])
    args = BroadcastGradientArgs.create(tf.scope(), s0, s1)
    assert isinstance(args, BroadcastGradientArgs)
    assert args.op().numOutputs() == 2
    assert args.r0() == args.op().output(0)
    assert args.r1() == args.op().output(1)
    assert args.r0().name() == "BroadcastGradientArgs:0"
    assert args.r1().name() == "BroadcastGradientArgs:1"
    assert args.op().inputs() == (s0.asOutput(), s1.asOutput())


def test_isNotAnOperandSinceItHasTwoOutputs(tf: Ops) -> None:
    s = tf.constant([2, 3])
    args = tf.broadcastGradientArgs(s, s)
    assert not hasattr(args, "asOutput")
    assert not isinstance(args, Operand)


@pytest.mark.parametrize("dtype", INDEX_TYPES, ids=lambda t: t.NAME)
def test_outputsHaveTheInputDataType(tf: Ops, dtype: type[TType]) -> None:
    s = tf.constant(vector([2, 3], dtype))
    args = tf.broadcastGradientArgs(s, s)
    assert args.r0().dataType() is dtype
    assert args.r1().dataType() is dtype
    assert args.op().attr("T") is dtype


@pytest.mark.parametrize(
    "shape", [Shape.of(2), Shape.of(-1), Shape.unknown()], ids=["known", "partial", "unknown"]
)
def test_outputsAreVectorsOfUnknownLength(tf: Ops, shape: Shape) -> None:
    s0 = tf.placeholder(TInt32, Placeholder.shape(shape))
    args = tf.broadcastGradientArgs(s0, tf.constant([4, 1]))
    assert args.r0().shape() == Shape.of(-1)
    assert args.r1().shape() == Shape.of(-1)


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", INDEX_TYPES, ids=lambda t: t.NAME)
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
    ],
    ids=str,
)
def test_runGivesTheDimensionsToSum(
    tf: Ops, run: Run, dtype: type[TType], s0: list[int], s1: list[int], r0: list[int],
    r1: list[int],
) -> None:
    args = tf.broadcastGradientArgs(vector(s0, dtype), vector(s1, dtype))
    got0, got1 = run(args.r0(), args.r1())
    assert got0.dtype == dtype.DTYPE
    assert got1.dtype == dtype.DTYPE
    assert got0.shape == (len(r0),)
    assert got1.shape == (len(r1),)
    assert got0.tolist() == r0
    assert got1.tolist() == r1


@pytest.mark.parametrize("shape", [[1], [2, 1, 3], [1, 1]], ids=str)
def test_identicalShapesNeedNoReduction(tf: Ops, run: Run, shape: list[int]) -> None:
    # TensorFlow's BCast takes a fast path for identical shapes that leaves both lists empty,
    # even for dimensions of size 1.
    args = tf.broadcastGradientArgs(vector(shape), vector(shape))
    got0, got1 = run(args.r0(), args.r1())
    assert got0.tolist() == []
    assert got1.tolist() == []


def test_runWithShapesComputedAtRunTime(tf: Ops, run: Run) -> None:
    a = tf.placeholder(TFloat32)
    b = tf.placeholder(TFloat32)
    args = tf.broadcastGradientArgs(tf.shape(a), tf.shape(b))
    feeds = {a: np.zeros((4, 1, 3), np.float32), b: np.zeros((5, 1), np.float32)}
    got0, got1 = run(args.r0(), args.r1(), feeds=feeds)
    assert got0.tolist() == [1]
    assert got1.tolist() == [0, 2]


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("BroadcastGradientArgs") == (True, None)


# -- bad inputs ----------------------------------------------------------------------------
def test_incompatibleShapesRaiseInvalidArgumentErrorAtRunTime(tf: Ops, run: Run) -> None:
    args = tf.withName("args").broadcastGradientArgs(vector([2, 3]), vector([4]))
    with pytest.raises(InvalidArgumentError, match=rf"'args'.*created at {HERE}:\d+") as info:
        run(args.r0())
    assert info.value.op == args.op()


@pytest.mark.parametrize("dtype", [TFloat32, TUint8], ids=lambda t: t.NAME)
def test_nonIndexDataTypeRaisesTypeError(tf: Ops, dtype: type[TType]) -> None:
    s = tf.constant(np.array([2, 3], dtype.DTYPE))
    with pytest.raises(
        TypeError,
        match=rf"BroadcastGradientArgs 'BroadcastGradientArgs' \(created at {HERE}:\d+\)",
    ):
        tf.broadcastGradientArgs(s, s)


def test_mixedDataTypesRaiseTypeError(tf: Ops) -> None:
    with pytest.raises(TypeError, match="BroadcastGradientArgs 'BroadcastGradientArgs'"):
        tf.broadcastGradientArgs(tf.constant(vector([2], TInt64)), tf.constant(vector([2])))


@pytest.mark.parametrize("which", [0, 1])
def test_scalarShapeRaisesValueError(tf: Ops, which: int) -> None:
    # TensorFlow's shape function: "Shape must be rank 1 but is rank 0".
    scalar, vec = tf.constant(2), tf.constant([2])
    s0, s1 = (scalar, vec) if which == 0 else (vec, scalar)
    with pytest.raises(ValueError, match="BroadcastGradientArgs 'BroadcastGradientArgs'"):
        tf.broadcastGradientArgs(s0, s1)


def test_operandFromAnotherGraphRaisesValueError(tf: Ops) -> None:
    with Graph() as other:
        foreign = Ops.create(other).constant([1])
        with pytest.raises(
            ValueError,
            match=rf"BroadcastGradientArgs 'BroadcastGradientArgs' \(created at {HERE}:\d+\)",
        ):
            tf.broadcastGradientArgs(foreign, tf.constant([1]))


def test_failedCreateLeavesTheGraphUnchanged(graph: Graph, tf: Ops) -> None:
    s = tf.constant([2.0])
    before = list(graph.operations())
    with pytest.raises(TypeError):
        tf.broadcastGradientArgs(s, [2])
    assert list(graph.operations()) == before
    t = tf.constant([2])
    assert tf.broadcastGradientArgs(t, t).op().name() == "BroadcastGradientArgs"
