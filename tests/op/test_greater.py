"""Specification of ``tfops.op.math.Greater``: z = (x > y) element-wise, a TBool tensor.

Every number type (not bool); the inputs broadcast; every comparison with ``nan`` is false.
Greater passes no gradient.
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
from tfops.op.math import Greater
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]

NUMBER_TYPES = [TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8]
U = -1  # an unknown dimension


def placeholder(tf: Ops, dtype: type[TType], shape: Shape) -> Placeholder[Any]:
    return tf.placeholder(dtype, Placeholder.shape(shape))


# -- construction ---------------------------------------------------------------------------
def test_defaultNameIsTheOpTypeThenNumbered(tf: Ops) -> None:
    x = tf.constant(1)
    assert tf.math.greater(x, x).op().name() == "Greater"
    assert tf.math.greater(x, x).op().name() == "Greater_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    x = tf.constant(1)
    assert tf.withName("test").math.greater(x, x).op().name() == "test"
    assert tf.withSubScope("s").math.greater(x, x).op().name() == "s/Greater"


def test_opNameConstantAndOperationType(tf: Ops) -> None:
    x, y = tf.constant([1.0]), tf.constant([2.0])
    z = Greater.create(tf.scope(), x, y)
    assert Greater.OP_NAME == "Greater"
    assert z.op().type() == "Greater"
    assert z.z() == z.asOutput() == z.op().output(0)
    assert z.op().inputs() == (x.asOutput(), y.asOutput())


@pytest.mark.parametrize("dtype", NUMBER_TYPES)
def test_outputIsBoolAndTIsTheInputType(tf: Ops, dtype: type[TType]) -> None:
    z = tf.math.greater(tf.placeholder(dtype), 1)
    assert z.asOutput().dataType() is TBool
    assert z.op().attr("T") is dtype


@pytest.mark.parametrize(
    ("xShape", "yShape", "zShape"),
    [((2, 3), (3,), (2, 3)), ((2, 3), (), (2, 3)), ((2, 1), (1, 3), (2, 3)),
     ((0, 3), (1, 3), (0, 3)), ((U, 3), (4, 1), (4, 3)), ((1,), (U,), (U,))],
    ids=str,
)
def test_outputShapeIsTheBroadcastShape(
    tf: Ops, xShape: tuple[int, ...], yShape: tuple[int, ...], zShape: tuple[int, ...]
) -> None:
    x = placeholder(tf, TFloat32, Shape.of(*xShape))
    y = placeholder(tf, TFloat32, Shape.of(*yShape))
    assert tf.math.greater(x, y).asOutput().shape() == Shape.of(*zShape)
    assert tf.math.greater(y, x).asOutput().shape() == Shape.of(*zShape)


def test_outputShapeIsUnknownWhenARankIsUnknown(tf: Ops) -> None:
    assert tf.math.greater(tf.placeholder(TInt32), 0).asOutput().shape() == Shape.unknown()


# -- kernel ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", NUMBER_TYPES)
def test_kernelWithBroadcasting(tf: Ops, run: Run, dtype: type[TType]) -> None:
    x = np.array([[0, 5, 2], [3, 1, 4]], dtype.DTYPE)
    y = np.array([1, 4, 2], dtype.DTYPE)
    result = run(tf.math.greater(x, y))
    assert result.dtype == np.bool_
    assert result.tolist() == [[False, True, False], [True, False, True]]


def test_floatSpecialValues(tf: Ops, run: Run) -> None:
    x = np.array([np.nan, 1.0, np.nan, -np.inf, np.inf, -0.0])
    y = np.array([1.0, np.nan, np.nan, -np.inf, 1e308, 0.0])
    assert run(tf.math.greater(x, y)).tolist() == [False, False, False, False, True, False]


def test_unsignedAndSignedExtremes(tf: Ops, run: Run) -> None:
    small = run(tf.math.greater(np.array([0, 255], np.uint8), np.array([255, 0], np.uint8)))
    assert small.tolist() == [False, True]
    info = np.iinfo(np.int64)
    large = run(tf.math.greater(np.array([info.min, info.max], np.int64), np.int64(0)))
    assert large.tolist() == [False, True]


def test_pythonIntIsConvertedToTheFloatTypeOfTheOtherInput(tf: Ops, run: Run) -> None:
    x = tf.constant(np.array([1.5, 2.0, 2.5]))
    assert run(tf.math.greater(x, 2)).tolist() == [False, False, True]


def test_kernelWithFedPartiallyKnownShapes(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, Shape.of(U, 3))
    y = placeholder(tf, TFloat64, Shape.of(U, 1))
    xv = np.random.default_rng(1).uniform(-2.0, 2.0, (4, 3))
    yv = np.random.default_rng(2).uniform(-2.0, 2.0, (4, 1))
    np.testing.assert_array_equal(run(tf.math.greater(x, y), feeds={x: xv, y: yv}), xv > yv)


def test_kernelOfScalarsAndEmptyTensors(tf: Ops, run: Run) -> None:
    result = run(tf.math.greater(np.float32(1.0), np.float32(2.0)))
    assert result.shape == () and result.dtype == np.bool_ and bool(result) is False
    empty = run(tf.math.greater(np.zeros((0, 3), np.int64), np.ones(3, np.int64)))
    assert empty.shape == (0, 3) and empty.dtype == np.bool_


# -- gradient -------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("Greater") == (True, None)


def test_passesNoGradient(tf: Ops) -> None:
    x = placeholder(tf, TFloat64, Shape.of(3))
    y = tf.dtypes.cast(tf.math.greater(x, 0.5), TFloat64)
    assert tf.gradients(y, [x]).dy(0) is None


def test_contributesNothingToAGradientThatFlowsElsewhere(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, Shape.of(3))
    y = tf.math.mul(x, tf.dtypes.cast(tf.math.greater(x, 1.0), TFloat64))
    dx = tf.gradients(y, [x]).dy(0)
    assert dx is not None
    np.testing.assert_array_equal(run(dx, feeds={x: np.array([0.5, 1.0, 2.0])}), [0.0, 0.0, 1.0])


# -- bad inputs -----------------------------------------------------------------------------
def test_rejectsIncompatibleShapes(tf: Ops, graph: Graph) -> None:
    x = placeholder(tf, TInt32, Shape.of(2, 3))
    y = placeholder(tf, TInt32, Shape.of(2))
    before = list(graph.operations())
    with pytest.raises(ValueError) as info:
        tf.math.greater(x, y)
    message = str(info.value)
    assert "Greater 'Greater'" in message and f"created at {__file__}:" in message
    assert list(graph.operations()) == before


def test_rejectsBool(tf: Ops, graph: Graph) -> None:
    x = tf.placeholder(TBool)
    before = list(graph.operations())
    with pytest.raises(TypeError, match="Greater 'Greater'") as info:
        tf.math.greater(x, True)
    assert "bool" in str(info.value)
    assert list(graph.operations()) == before


@pytest.mark.parametrize(("xType", "yType"), [(TFloat32, TFloat64), (TInt32, TUint8)], ids=str)
def test_rejectsMismatchedDataTypes(
    tf: Ops, graph: Graph, xType: type[TType], yType: type[TType]
) -> None:
    x, y = tf.placeholder(xType), tf.placeholder(yType)
    before = list(graph.operations())
    with pytest.raises(TypeError, match="Greater 'Greater'") as info:
        tf.math.greater(x, y)
    assert xType.NAME in str(info.value) and yType.NAME in str(info.value)
    assert list(graph.operations()) == before


def test_rejectsAPythonFloatForAnIntegerOperand(tf: Ops, graph: Graph) -> None:
    x = tf.placeholder(TInt64)
    before = list(graph.operations())
    with pytest.raises(TypeError, match="Greater"):
        tf.math.greater(x, 0.5)
    assert list(graph.operations()) == before


def test_incompatibleShapesFedAtRunTimeRaiseInvalidArgument(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TInt32, Shape.of(U))
    z = tf.math.greater(x, np.ones(3, np.int32))
    with pytest.raises(InvalidArgumentError) as info:
        run(z, feeds={x: np.ones(2, np.int32)})
    assert info.value.op == z.op()
    assert "'Greater'" in str(info.value)
