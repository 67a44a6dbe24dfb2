"""Specification of ``tfops.op.math.NotEqual``: z = (x != y) element-wise, a TBool tensor.

Every data type (bool included); the inputs broadcast; ``nan`` differs from everything. With the
option ``incompatibleShapeError(False)`` (TensorFlow Java's), inputs whose shapes do not
broadcast are unequal: the result is the scalar ``True`` instead of an error. No gradient.
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
from tfops.op.math import NotEqual
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]

ALL_TYPES = [TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8, TBool]
NUMBER_TYPES = [TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8]
U = -1  # an unknown dimension


def placeholder(tf: Ops, dtype: type[TType], shape: Shape) -> Placeholder[Any]:
    return tf.placeholder(dtype, Placeholder.shape(shape))


# -- construction ---------------------------------------------------------------------------
def test_defaultNameIsTheOpTypeThenNumbered(tf: Ops) -> None:
    x = tf.constant(1)
    assert tf.math.notEqual(x, x).op().name() == "NotEqual"
    assert tf.math.notEqual(x, x).op().name() == "NotEqual_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    x = tf.constant(1)
    assert tf.withName("differs").math.notEqual(x, x).op().name() == "differs"
    assert tf.withSubScope("s").math.notEqual(x, x).op().name() == "s/NotEqual"


def test_opNameConstantAndOperationType(tf: Ops) -> None:
    x, y = tf.constant([1.0]), tf.constant([2.0])
    z = NotEqual.create(tf.scope(), x, y)
    assert NotEqual.OP_NAME == "NotEqual"
    assert z.op().type() == "NotEqual"
    assert z.z() == z.asOutput() == z.op().output(0)
    assert z.op().inputs() == (x.asOutput(), y.asOutput())


def test_incompatibleShapeErrorIsTrueUnlessTheOptionSaysOtherwise(tf: Ops) -> None:
    x = tf.constant([1, 2])
    assert tf.math.notEqual(x, x).op().attr("incompatible_shape_error") is True
    lenient = tf.math.notEqual(x, x, NotEqual.incompatibleShapeError(False))
    assert lenient.op().attr("incompatible_shape_error") is False


@pytest.mark.parametrize("dtype", ALL_TYPES)
def test_outputIsBoolForEveryInputType(tf: Ops, dtype: type[TType]) -> None:
    z = tf.math.notEqual(tf.placeholder(dtype), tf.placeholder(dtype))
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
    x = placeholder(tf, TInt32, Shape.of(*xShape))
    y = placeholder(tf, TInt32, Shape.of(*yShape))
    assert tf.math.notEqual(x, y).asOutput().shape() == Shape.of(*zShape)
    lenient = tf.math.notEqual(y, x, NotEqual.incompatibleShapeError(False))
    assert lenient.asOutput().shape() == Shape.of(*zShape)


def test_outputShapeIsUnknownWhenARankIsUnknown(tf: Ops) -> None:
    assert tf.math.notEqual(tf.placeholder(TBool), True).asOutput().shape() == Shape.unknown()


# -- kernel ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", NUMBER_TYPES)
def test_kernelWithBroadcasting(tf: Ops, run: Run, dtype: type[TType]) -> None:
    x = np.array([[0, 5, 2], [3, 1, 4]], dtype.DTYPE)
    y = np.array([1, 4, 2], dtype.DTYPE)
    result = run(tf.math.notEqual(x, y))
    assert result.dtype == np.bool_
    assert result.tolist() == [[True, True, False], [True, True, True]]


def test_kernelOfBools(tf: Ops, run: Run) -> None:
    result = run(tf.math.notEqual([True, False, True, False], [True, True, False, False]))
    assert result.tolist() == [False, True, True, False]


def test_nanDiffersFromEverythingAndSignedZerosAreEqual(tf: Ops, run: Run) -> None:
    x = np.array([np.nan, 1.0, np.nan, -0.0, np.inf])
    y = np.array([1.0, np.nan, np.nan, 0.0, np.inf])
    assert run(tf.math.notEqual(x, y)).tolist() == [True, True, True, False, False]


def test_pythonIntIsConvertedToTheFloatTypeOfTheOtherInput(tf: Ops, run: Run) -> None:
    x = tf.constant(np.array([1.5, 2.0], np.float16))
    assert run(tf.math.notEqual(x, 2)).tolist() == [True, False]


def test_kernelWithFedPartiallyKnownShapes(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TInt64, Shape.of(U, 2))
    xv = np.array([[1, 2], [2, 2], [3, 1]], np.int64)
    result = run(tf.math.notEqual(x, np.array([2, 1], np.int64)), feeds={x: xv})
    assert result.tolist() == [[True, True], [False, True], [True, False]]


def test_kernelOfScalarsAndEmptyTensors(tf: Ops, run: Run) -> None:
    result = run(tf.math.notEqual(np.uint8(3), np.uint8(3)))
    assert result.shape == () and result.dtype == np.bool_ and not result
    empty = run(tf.math.notEqual(np.zeros((0, 3), np.float32), np.ones(3, np.float32)))
    assert empty.shape == (0, 3) and empty.dtype == np.bool_


def test_lenientIncompatibleShapesGiveTheScalarTrue(tf: Ops, graph: Graph, run: Run) -> None:
    x = placeholder(tf, TInt32, Shape.of(2, 3))
    y = placeholder(tf, TInt32, Shape.of(2))
    z = tf.math.notEqual(x, y, NotEqual.incompatibleShapeError(False))
    assert z.asOutput().shape() == Shape.unknown()
    result = run(z, feeds={x: np.ones((2, 3), np.int32), y: np.ones(2, np.int32)})
    assert result.shape == () and result.dtype == np.bool_ and bool(result) is True


def test_lenientCompatibleShapesCompareElementWise(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TInt32, Shape.of(U))
    z = tf.math.notEqual(x, np.array([1, 2], np.int32), NotEqual.incompatibleShapeError(False))
    assert run(z, feeds={x: np.array([1, 3], np.int32)}).tolist() == [False, True]
    assert bool(run(z, feeds={x: np.array([1, 2, 3], np.int32)})) is True


# -- gradient -------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("NotEqual") == (True, None)


def test_passesNoGradient(tf: Ops) -> None:
    x = placeholder(tf, TFloat64, Shape.of(3))
    y = tf.dtypes.cast(tf.math.notEqual(x, 0.5), TFloat64)
    assert tf.gradients(y, [x]).dy(0) is None


def test_contributesNothingToAGradientThatFlowsElsewhere(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, Shape.of(3))
    y = tf.math.mul(x, tf.dtypes.cast(tf.math.notEqual(x, 1.0), TFloat64))
    dx = tf.gradients(y, [x]).dy(0)
    assert dx is not None
    np.testing.assert_array_equal(run(dx, feeds={x: np.array([0.5, 1.0, 2.0])}), [1.0, 0.0, 1.0])


# -- bad inputs -----------------------------------------------------------------------------
def test_rejectsIncompatibleShapes(tf: Ops, graph: Graph) -> None:
    x = placeholder(tf, TInt32, Shape.of(2, 3))
    y = placeholder(tf, TInt32, Shape.of(2))
    before = list(graph.operations())
    with pytest.raises(ValueError) as info:
        tf.math.notEqual(x, y)
    message = str(info.value)
    assert "NotEqual 'NotEqual'" in message and f"created at {__file__}:" in message
    assert list(graph.operations()) == before


@pytest.mark.parametrize(("xType", "yType"), [(TFloat32, TFloat64), (TBool, TInt32)], ids=str)
def test_rejectsMismatchedDataTypes(
    tf: Ops, graph: Graph, xType: type[TType], yType: type[TType]
) -> None:
    x, y = tf.placeholder(xType), tf.placeholder(yType)
    before = list(graph.operations())
    with pytest.raises(TypeError, match="NotEqual 'NotEqual'") as info:
        tf.math.notEqual(x, y)
    assert xType.NAME in str(info.value) and yType.NAME in str(info.value)
    assert list(graph.operations()) == before


def test_rejectsANonBoolOption(tf: Ops, graph: Graph) -> None:
    x = tf.constant([1, 2])
    before = list(graph.operations())
    with pytest.raises(TypeError, match="NotEqual"):
        tf.math.notEqual(x, x, NotEqual.incompatibleShapeError("no"))  # type: ignore[arg-type]
    assert list(graph.operations()) == before


def test_incompatibleShapesFedAtRunTimeRaiseInvalidArgument(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TInt32, Shape.of(U))
    z = tf.math.notEqual(x, np.ones(3, np.int32))
    with pytest.raises(InvalidArgumentError) as info:
        run(z, feeds={x: np.ones(2, np.int32)})
    assert info.value.op == z.op()
    assert "'NotEqual'" in str(info.value)
