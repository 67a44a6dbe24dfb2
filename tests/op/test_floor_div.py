"""Specification of ``tfops.op.math.FloorDiv``: z = x // y element-wise, rounded towards -inf.

Every number type; the inputs broadcast. Floating point results are ``floor(x / y)`` of the
rounded quotient, as TensorFlow's kernel (so ``1.0 // 0.1`` is 10.0, not Python's 9.0).
Integer division by zero raises ``InvalidArgumentError`` at run time. FloorDiv has no gradient.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import Gradients, Placeholder
from tfops.op.math import FloorDiv
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]

NUMBER_TYPES = [TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8]
FLOAT_TYPES = [TFloat16, TFloat32, TFloat64]
U = -1  # an unknown dimension


def placeholder(tf: Ops, dtype: type[TType], shape: Shape) -> Placeholder[Any]:
    return tf.placeholder(dtype, Placeholder.shape(shape))


def lineOfCaller() -> int:
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    return frame.f_back.f_lineno


# -- construction ---------------------------------------------------------------------------
def test_defaultNameIsTheOpTypeThenNumbered(tf: Ops) -> None:
    x = tf.constant(7)
    assert tf.math.floorDiv(x, x).op().name() == "FloorDiv"
    assert tf.math.floorDiv(x, x).op().name() == "FloorDiv_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    x = tf.constant(7)
    assert tf.withName("quotient").math.floorDiv(x, x).op().name() == "quotient"
    assert tf.withSubScope("s").math.floorDiv(x, x).op().name() == "s/FloorDiv"


def test_opNameConstantAndOperationType(tf: Ops) -> None:
    x, y = tf.constant([7]), tf.constant([2])
    z = FloorDiv.create(tf.scope(), x, y)
    assert FloorDiv.OP_NAME == "FloorDiv"
    assert z.op().type() == "FloorDiv"
    assert z.z() == z.asOutput() == z.op().output(0)
    assert z.op().inputs() == (x.asOutput(), y.asOutput())


@pytest.mark.parametrize("dtype", NUMBER_TYPES)
def test_outputDataTypeIsTheInputDataType(tf: Ops, dtype: type[TType]) -> None:
    z = tf.math.floorDiv(tf.placeholder(dtype), 3)
    assert z.asOutput().dataType() is dtype
    assert z.op().attr("T") is dtype


@pytest.mark.parametrize(
    ("xShape", "yShape", "zShape"),
    [((2, 3), (3,), (2, 3)), ((2, 1), (1, 3), (2, 3)), ((), (0,), (0,)), ((U, 3), (2, 1), (2, 3)),
     ((U,), (1,), (U,))],
    ids=str,
)
def test_outputShapeIsTheBroadcastShape(
    tf: Ops, xShape: tuple[int, ...], yShape: tuple[int, ...], zShape: tuple[int, ...]
) -> None:
    x = placeholder(tf, TInt32, Shape.of(*xShape))
    y = placeholder(tf, TInt32, Shape.of(*yShape))
    assert tf.math.floorDiv(x, y).asOutput().shape() == Shape.of(*zShape)


def test_outputShapeIsUnknownWhenARankIsUnknown(tf: Ops) -> None:
    x = tf.placeholder(TInt32)
    assert tf.math.floorDiv(x, np.ones((2, 3), np.int32)).asOutput().shape() == Shape.unknown()


# -- kernel ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [TInt32, TInt64])
def test_signedIntegerDivisionRoundsTowardsNegativeInfinity(
    tf: Ops, run: Run, dtype: type[TType]
) -> None:
    x = np.array([7, -7, 7, -7, 6, -6, 0, 1, -1], dtype.DTYPE)
    y = np.array([2, 2, -2, -2, 3, 4, -5, 3, 3], dtype.DTYPE)
    result = run(tf.math.floorDiv(x, y))
    assert result.dtype == dtype.DTYPE
    assert result.tolist() == [3, -4, -4, 3, 2, -2, 0, 0, -1]


def test_unsignedIntegerDivision(tf: Ops, run: Run) -> None:
    result = run(tf.math.floorDiv(np.array([255, 7, 0, 200], np.uint8),
                                  np.array([2, 7, 3, 201], np.uint8)))
    assert result.dtype == np.uint8
    assert result.tolist() == [127, 1, 0, 0]


@pytest.mark.parametrize("dtype", FLOAT_TYPES)
def test_floatDivisionIsTheFloorOfTheQuotient(tf: Ops, run: Run, dtype: type[TType]) -> None:
    x = np.array([[7.5, -7.5, 1.0], [-0.5, 6.0, 0.0]], dtype.DTYPE)
    y = np.array([2.0, 2.0, -4.0], dtype.DTYPE)
    result = run(tf.math.floorDiv(x, y))
    assert result.dtype == dtype.DTYPE
    np.testing.assert_array_equal(result, [[3.0, -4.0, -1.0], [-1.0, 3.0, 0.0]])


def test_floatDivisionFloorsTheRoundedQuotientAsTensorFlow(tf: Ops, run: Run) -> None:
    # 1.0 / 0.1 rounds to exactly 10.0; Python's 1.0 // 0.1 is 9.0
    assert run(tf.math.floorDiv(np.float64(1.0), np.float64(0.1))) == 10.0


def test_floatSpecialValues(tf: Ops, run: Run) -> None:
    x = np.array([1.0, -1.0, 0.0, np.inf, 1.0])
    result = run(tf.math.floorDiv(x, np.array([0.0, 0.0, 0.0, 2.0, np.nan])))
    assert result[0] == np.inf and result[1] == -np.inf and result[3] == np.inf
    assert np.isnan(result[2]) and np.isnan(result[4])


def test_kernelBroadcastsAScalarAndAColumn(tf: Ops, run: Run) -> None:
    x = np.array([[-7], [7], [-1]], np.int64)
    assert run(tf.math.floorDiv(x, np.int64(2))).tolist() == [[-4], [3], [-1]]
    assert run(tf.math.floorDiv(x, np.array([2, -3], np.int64))).tolist() == \
        [[-4, 2], [3, -3], [-1, 0]]


def test_kernelWithFedPartiallyKnownShapes(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TInt32, Shape.of(U, 2))
    xv = np.array([[9, -9], [4, -4]], np.int32)
    assert run(tf.math.floorDiv(x, np.array([4, 4], np.int32)), feeds={x: xv}).tolist() == \
        [[2, -3], [1, -1]]


def test_kernelOfEmptyTensors(tf: Ops, run: Run) -> None:
    result = run(tf.math.floorDiv(np.zeros((0, 3), np.float32), np.ones((1, 3), np.float32)))
    assert result.shape == (0, 3) and result.dtype == np.float32


def test_anEmptyIntegerResultComputesNoDivisionByZero(tf: Ops, run: Run) -> None:
    result = run(tf.math.floorDiv(np.zeros((0, 3), np.int32), np.array([1, 0, 2], np.int32)))
    assert result.shape == (0, 3) and result.dtype == np.int32


@pytest.mark.parametrize("dtype", [TInt32, TInt64, TUint8])
def test_integerDivisionByZeroRaisesAtRunTime(tf: Ops, run: Run, dtype: type[TType]) -> None:
    y = tf.placeholder(dtype)
    z, line = tf.math.floorDiv(np.array([4, 6], dtype.DTYPE), y), lineOfCaller()
    assert run(z, feeds={y: np.array([2, 4], dtype.DTYPE)}).tolist() == [2, 1]
    with pytest.raises(InvalidArgumentError) as info:
        run(z, feeds={y: np.array([2, 0], dtype.DTYPE)})
    assert info.value.op == z.op()
    message = str(info.value)
    assert "Integer division by zero" in message and "'FloorDiv'" in message
    assert f"created at {__file__}:{line}" in message


# -- gradient -------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("FloorDiv") == (True, None)


def test_passesNoGradient(tf: Ops) -> None:
    x = placeholder(tf, TFloat64, Shape.of(2, 3))
    y = placeholder(tf, TFloat64, Shape.of(3))
    assert list(tf.gradients(tf.math.floorDiv(x, y), [x, y])) == [None, None]


def test_unconnectedGradientsZeroGivesZeros(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, Shape.of(2))
    grads = tf.gradients(tf.math.floorDiv(x, 2.0), [x], Gradients.unconnectedGradients("zero"))
    dx = grads.dy(0)
    assert dx is not None
    np.testing.assert_array_equal(run(dx, feeds={x: np.array([3.0, 5.0])}), [0.0, 0.0])


def test_contributesNothingToAGradientThatFlowsElsewhere(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, Shape.of(2))
    dx = tf.gradients(tf.math.add(tf.math.floorDiv(x, 2.0), x), [x]).dy(0)
    assert dx is not None
    np.testing.assert_array_equal(run(dx, feeds={x: np.array([3.0, -5.0])}), [1.0, 1.0])


# -- bad inputs -----------------------------------------------------------------------------
def test_rejectsIncompatibleShapes(tf: Ops, graph: Graph) -> None:
    x = placeholder(tf, TInt32, Shape.of(2, 3))
    y = placeholder(tf, TInt32, Shape.of(2))
    before = list(graph.operations())
    with pytest.raises(ValueError) as info:
        tf.math.floorDiv(x, y)
    message = str(info.value)
    assert "FloorDiv 'FloorDiv'" in message and f"created at {__file__}:" in message
    assert list(graph.operations()) == before


def test_rejectsBool(tf: Ops, graph: Graph) -> None:
    x = tf.placeholder(TBool)
    before = list(graph.operations())
    with pytest.raises(TypeError, match="FloorDiv 'FloorDiv'"):
        tf.math.floorDiv(x, x)
    assert list(graph.operations()) == before


@pytest.mark.parametrize(
    ("xType", "yType"), [(TInt32, TInt64), (TFloat32, TInt32), (TUint8, TInt32)], ids=str
)
def test_rejectsMismatchedDataTypes(
    tf: Ops, graph: Graph, xType: type[TType], yType: type[TType]
) -> None:
    x, y = tf.placeholder(xType), tf.placeholder(yType)
    before = list(graph.operations())
    with pytest.raises(TypeError, match="FloorDiv 'FloorDiv'") as info:
        tf.math.floorDiv(x, y)
    assert xType.NAME in str(info.value) and yType.NAME in str(info.value)
    assert list(graph.operations()) == before


def test_rejectsAPythonFloatForAnIntegerOperand(tf: Ops, graph: Graph) -> None:
    x = tf.placeholder(TInt32)
    before = list(graph.operations())
    with pytest.raises(TypeError, match="FloorDiv"):
        tf.math.floorDiv(x, 2.5)
    assert list(graph.operations()) == before


def test_incompatibleShapesFedAtRunTimeRaiseInvalidArgument(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TInt32, Shape.of(U))
    z = tf.math.floorDiv(x, np.ones(3, np.int32))
    with pytest.raises(InvalidArgumentError) as info:
        run(z, feeds={x: np.ones(2, np.int32)})
    assert info.value.op == z.op()
    assert "'FloorDiv'" in str(info.value)
