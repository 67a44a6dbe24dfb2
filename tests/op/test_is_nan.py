"""Specification of ``tfops.op.math.IsNan``: which elements are NaN (not which are infinite)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.core import Gradients, Placeholder
from tfops.op.math import IsNan
from tfops.testing import assertGradientsClose
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]

FLOAT_TYPES = [TFloat16, TFloat32, TFloat64]


def placeholder(tf: Ops, dtype: type[TType], shape: Shape) -> Placeholder[Any]:
    return tf.placeholder(dtype, Placeholder.shape(shape))


# -- construction ---------------------------------------------------------------------------
def test_defaultNameIsTheOpTypeThenNumbered(tf: Ops) -> None:
    x = tf.constant(1.0)
    assert tf.math.isNan(x).op().name() == "IsNan"
    assert tf.math.isNan(x).op().name() == "IsNan_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    x = tf.constant(1.0)
    assert tf.withName("bad").math.isNan(x).op().name() == "bad"
    assert tf.withName("bad").math.isNan(x).op().name() == "bad_1"


def test_subScopePrefixesTheName(tf: Ops) -> None:
    assert tf.withSubScope("check").math.isNan(tf.constant(1.0)).op().name() == "check/IsNan"


def test_createAddsOneIsNanOperation(tf: Ops, graph: Graph) -> None:
    x = tf.constant([1.0, 2.0])
    y = IsNan.create(tf.scope(), x)
    assert isinstance(y, IsNan)
    assert IsNan.OP_NAME == "IsNan"
    assert y.op().type() == "IsNan"
    assert [op.name() for op in graph.operations()] == ["Const", "IsNan"]
    assert y.op().numInputs() == 1
    assert y.op().input(0) == x.asOutput()


def test_yIsTheOnlyOutput(tf: Ops) -> None:
    y = tf.math.isNan(tf.constant(1.0))
    assert y.op().numOutputs() == 1
    assert y.y() == y.asOutput() == y.op().output(0)
    assert y.y().name() == "IsNan:0"


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda t: t.NAME)
def test_outputIsBoolForEveryFloatingType(tf: Ops, dtype: type[TType]) -> None:
    y = tf.math.isNan(tf.placeholder(dtype))
    assert y.asOutput().dataType() is TBool
    assert y.op().attr("T") is dtype


@pytest.mark.parametrize(
    "shape",
    [Shape.scalar(), Shape.of(3), Shape.of(2, 3), Shape.of(0, 4), Shape.of(-1, 3), Shape.unknown()],
    ids=str,
)
def test_outputShapeIsTheInputShape(tf: Ops, shape: Shape) -> None:
    assert tf.math.isNan(placeholder(tf, TFloat32, shape)).asOutput().shape() == shape


def test_pythonFloatBecomesFloat32(tf: Ops) -> None:
    assert tf.math.isNan([1.0, 2.0]).op().attr("T") is TFloat32


# -- kernel ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda t: t.NAME)
def test_kernelFlagsNaNOnly(tf: Ops, run: Run, dtype: type[TType]) -> None:
    x = np.array([[-np.inf, -1.0, -0.0], [0.0, np.inf, np.nan]], dtype.DTYPE)
    result = run(tf.math.isNan(x))
    assert result.dtype == np.bool_
    assert result.tolist() == [[False, False, False], [False, False, True]]


def test_everyNaNIsFlagged(tf: Ops, run: Run) -> None:
    bits = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001], np.uint64)
    assert run(tf.math.isNan(bits.view(np.float64))).tolist() == [True, True, True]


def test_nanFromArithmeticIsFlagged(tf: Ops, run: Run) -> None:
    x = tf.constant(np.array([np.inf, 0.0, 1.0]))
    zeroOverZero = tf.math.div(x, tf.constant(np.array([np.inf, 0.0, 2.0])))
    assert run(tf.math.isNan(zeroOverZero)).tolist() == [True, True, False]


def test_kernelOfAFedPartiallyKnownPlaceholder(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, Shape.of(-1, 2))
    value = np.array([[1.0, np.nan], [np.inf, 2.0], [np.nan, -np.inf]])
    result = run(tf.math.isNan(x), feeds={x: value})
    assert result.tolist() == [[False, True], [False, False], [True, False]]


def test_kernelOfAScalar(tf: Ops, run: Run) -> None:
    result = run(tf.math.isNan(np.float32(np.nan)))
    assert result.shape == ()
    assert result.dtype == np.bool_
    assert result


def test_kernelOfAnEmptyTensor(tf: Ops, run: Run) -> None:
    result = run(tf.math.isNan(np.zeros((0, 3), np.float16)))
    assert result.shape == (0, 3)
    assert result.dtype == np.bool_


# -- gradient -------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("IsNan") == (True, None)


def test_noGradientFlowsThroughIsNan(tf: Ops) -> None:
    x = placeholder(tf, TFloat64, Shape.of(3))
    y = tf.dtypes.cast(tf.math.isNan(x), TFloat64)
    assert tf.gradients(y, [x]).dy(0) is None


def test_unconnectedGradientIsZeros(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, Shape.of(2))
    y = tf.dtypes.cast(tf.math.isNan(x), TFloat64)
    dx = tf.gradients(y, [x], Gradients.unconnectedGradients("zero")).dy(0)
    assert dx is not None
    assert run(dx, feeds={x: np.array([1.0, np.nan])}).tolist() == [0.0, 0.0]


def test_gradientFlowsOnlyThroughTheOtherPath(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, Shape.of(2, 2))
    y = tf.math.mul(x, tf.dtypes.cast(tf.math.isNan(tf.math.log(x)), TFloat64))
    assertGradientsClose(y, [x], {x: np.array([[0.5, -2.0], [-3.0, 0.25]])})
    dx = tf.gradients(y, [x]).dy(0)
    assert dx is not None
    assert run(dx, feeds={x: np.array([[1.0, -1.0], [-2.0, 0.0]])}).tolist() == [
        [0.0, 1.0], [1.0, 0.0]
    ]


# -- bad inputs -----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [TInt32, TInt64, TUint8, TBool], ids=lambda t: t.NAME)
def test_rejectsNonFloatingTypes(tf: Ops, graph: Graph, dtype: type[TType]) -> None:
    x = tf.placeholder(dtype)
    before = list(graph.operations())
    with pytest.raises(TypeError) as info:
        tf.math.isNan(x)
    message = str(info.value)
    assert "IsNan 'IsNan'" in message
    assert dtype.NAME in message
    assert f"created at {__file__}:" in message
    assert list(graph.operations()) == before


@pytest.mark.parametrize("value", [1, [1, 2], True], ids=repr)
def test_rejectsPythonIntegersAndBools(tf: Ops, graph: Graph, value: object) -> None:
    with pytest.raises(TypeError, match="IsNan"):
        tf.math.isNan(value)
    assert list(graph.operations()) == []


def test_rejectsAnOperandFromAnotherGraph(tf: Ops, graph: Graph) -> None:
    with Graph() as other:
        foreign = Ops.create(other).constant(1.0)
        with pytest.raises(ValueError, match="IsNan 'IsNan'.*another graph"):
            tf.math.isNan(foreign)
    assert list(graph.operations()) == []
