"""Specification of ``tfops.op.math.LogicalOr``: z = x OR y element-wise on TBool tensors.

Both inputs and the result are ``TBool`` (the op has no type attribute); the inputs broadcast.
LogicalOr passes no gradient.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import Placeholder
from tfops.op.math import LogicalOr
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TType, TUint8

Run = Callable[..., Any]

U = -1  # an unknown dimension


def placeholder(tf: Ops, dtype: type[TType], shape: Shape) -> Placeholder[Any]:
    return tf.placeholder(dtype, Placeholder.shape(shape))


# -- construction ---------------------------------------------------------------------------
def test_defaultNameIsTheOpTypeThenNumbered(tf: Ops) -> None:
    x = tf.constant(True)
    assert tf.math.logicalOr(x, x).op().name() == "LogicalOr"
    assert tf.math.logicalOr(x, x).op().name() == "LogicalOr_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    x = tf.constant(True)
    assert tf.withName("either").math.logicalOr(x, x).op().name() == "either"
    assert tf.withSubScope("s").math.logicalOr(x, x).op().name() == "s/LogicalOr"


def test_opNameConstantAndOperationType(tf: Ops) -> None:
    x, y = tf.constant([True]), tf.constant([False])
    z = LogicalOr.create(tf.scope(), x, y)
    assert LogicalOr.OP_NAME == "LogicalOr"
    assert z.op().type() == "LogicalOr"
    assert z.z() == z.asOutput() == z.op().output(0)
    assert z.op().inputs() == (x.asOutput(), y.asOutput())


def test_outputIsBoolAndTheOpHasNoTypeAttribute(tf: Ops) -> None:
    z = tf.math.logicalOr(tf.placeholder(TBool), tf.placeholder(TBool))
    assert z.asOutput().dataType() is TBool
    assert "T" not in z.op().attrs()


@pytest.mark.parametrize(
    ("xShape", "yShape", "zShape"),
    [((2, 3), (3,), (2, 3)), ((2, 3), (), (2, 3)), ((2, 1), (1, 3), (2, 3)),
     ((0, 3), (1, 3), (0, 3)), ((U, 3), (4, 1), (4, 3)), ((U, 1), (1, U), (U, U))],
    ids=str,
)
def test_outputShapeIsTheBroadcastShape(
    tf: Ops, xShape: tuple[int, ...], yShape: tuple[int, ...], zShape: tuple[int, ...]
) -> None:
    x = placeholder(tf, TBool, Shape.of(*xShape))
    y = placeholder(tf, TBool, Shape.of(*yShape))
    assert tf.math.logicalOr(x, y).asOutput().shape() == Shape.of(*zShape)
    assert tf.math.logicalOr(y, x).asOutput().shape() == Shape.of(*zShape)


def test_outputShapeIsUnknownWhenARankIsUnknown(tf: Ops) -> None:
    assert tf.math.logicalOr(tf.placeholder(TBool), [True]).asOutput().shape() == Shape.unknown()


# -- kernel ---------------------------------------------------------------------------------
def test_truthTable(tf: Ops, run: Run) -> None:
    result = run(tf.math.logicalOr([False, False, True, True], [False, True, False, True]))
    assert result.dtype == np.bool_
    assert result.tolist() == [False, True, True, True]


def test_kernelWithBroadcasting(tf: Ops, run: Run) -> None:
    x = np.array([[True], [False]])
    y = np.array([True, False, True])
    assert run(tf.math.logicalOr(x, y)).tolist() == [[True, True, True], [True, False, True]]


def test_kernelWithFedPartiallyKnownShapes(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TBool, Shape.of(U))
    result = run(tf.math.logicalOr(x, False), feeds={x: np.array([True, False, True])})
    assert result.tolist() == [True, False, True]


def test_kernelOfScalarsAndEmptyTensors(tf: Ops, run: Run) -> None:
    result = run(tf.math.logicalOr(True, False))
    assert result.shape == () and result.dtype == np.bool_ and bool(result) is True
    empty = run(tf.math.logicalOr(np.zeros((0, 2), np.bool_), np.ones(2, np.bool_)))
    assert empty.shape == (0, 2) and empty.dtype == np.bool_


# -- gradient -------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("LogicalOr") == (True, None)


def test_contributesNothingToAGradientThatFlowsElsewhere(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, Shape.of(4))
    inside = tf.math.logicalOr(tf.math.greater(x, 0.0), tf.math.less(x, 1.0))
    y = tf.math.mul(x, tf.dtypes.cast(inside, TFloat64))
    dx = tf.gradients(y, [x]).dy(0)
    assert dx is not None
    result = run(dx, feeds={x: np.array([-1.0, 0.5, 2.0, 0.0])})
    np.testing.assert_array_equal(result, [1.0, 1.0, 1.0, 1.0])


# -- bad inputs -----------------------------------------------------------------------------
def test_rejectsIncompatibleShapes(tf: Ops, graph: Graph) -> None:
    x = placeholder(tf, TBool, Shape.of(2, 3))
    y = placeholder(tf, TBool, Shape.of(2))
    before = list(graph.operations())
    with pytest.raises(ValueError) as info:
        tf.math.logicalOr(x, y)
    message = str(info.value)
    assert "LogicalOr 'LogicalOr'" in message and f"created at {__file__}:" in message
    assert list(graph.operations()) == before


@pytest.mark.parametrize("dtype", [TFloat32, TInt32, TUint8])
@pytest.mark.parametrize("position", [0, 1])
def test_rejectsNonBoolOperands(tf: Ops, graph: Graph, dtype: type[TType], position: int) -> None:
    operands: list[Any] = [tf.placeholder(TBool), tf.placeholder(TBool)]
    operands[position] = tf.placeholder(dtype)
    before = list(graph.operations())
    with pytest.raises(TypeError, match="LogicalOr 'LogicalOr'") as info:
        tf.math.logicalOr(*operands)
    assert dtype.NAME in str(info.value)
    assert list(graph.operations()) == before


@pytest.mark.parametrize("value", [1, 0.5, np.array([1, 0], np.int32)], ids=str)
def test_rejectsNonBoolValues(tf: Ops, graph: Graph, value: object) -> None:
    x = tf.placeholder(TBool)
    before = list(graph.operations())
    with pytest.raises(TypeError, match="LogicalOr"):
        tf.math.logicalOr(x, value)  # type: ignore[arg-type]
    assert list(graph.operations()) == before


def test_incompatibleShapesFedAtRunTimeRaiseInvalidArgument(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TBool, Shape.of(U))
    z = tf.math.logicalOr(x, np.ones(3, np.bool_))
    with pytest.raises(InvalidArgumentError) as info:
        run(z, feeds={x: np.ones(2, np.bool_)})
    assert info.value.op == z.op()
    assert "'LogicalOr'" in str(info.value)
