"""Specification of ``tfops.op.math.IsFinite``: which elements are neither infinite nor NaN."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.core import Gradients, Placeholder
from tfops.op.math import IsFinite
from tfops.testing import assertGradientsClose
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]

FLOAT_TYPES = [TFloat16, TFloat32, TFloat64]


def placeholder(tf: Ops, dtype: type[TType], shape: Shape) -> Placeholder[Any]:
    return tf.placeholder(dtype, Placeholder.shape(shape))


# -- construction ---------------------------------------------------------------------------
def test_defaultNameIsTheOpTypeThenNumbered(tf: Ops) -> None:
    x = tf.constant(1.0)
    assert tf.math.isFinite(x).op().name() == "IsFinite"
    assert tf.math.isFinite(x).op().name() == "IsFinite_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    x = tf.constant(1.0)
    assert tf.withName("ok").math.isFinite(x).op().name() == "ok"
    assert tf.withName("ok").math.isFinite(x).op().name() == "ok_1"


def test_subScopePrefixesTheName(tf: Ops) -> None:
    assert tf.withSubScope("check").math.isFinite(tf.constant(1.0)).op().name() == "check/IsFinite"


def test_createAddsOneIsFiniteOperation(tf: Ops, graph: Graph) -> None:
    x = tf.constant([1.0, 2.0])
    y = IsFinite.create(tf.scope(), x)
    assert isinstance(y, IsFinite)
    assert IsFinite.OP_NAME == "IsFinite"
    assert y.op().type() == "IsFinite"
    assert [op.name() for op in graph.operations()] == ["Const", "IsFinite"]
    assert y.op().numInputs() == 1
    assert y.op().input(0) == x.asOutput()


def test_yIsTheOnlyOutput(tf: Ops) -> None:
    y = tf.math.isFinite(tf.constant(1.0))
    assert y.op().numOutputs() == 1
    assert y.y() == y.asOutput() == y.op().output(0)
    assert y.y().name() == "IsFinite:0"


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda t: t.NAME)
def test_outputIsBoolForEveryFloatingType(tf: Ops, dtype: type[TType]) -> None:
    y = tf.math.isFinite(tf.placeholder(dtype))
    assert y.asOutput().dataType() is TBool
    assert y.op().attr("T") is dtype


@pytest.mark.parametrize(
    "shape",
    [Shape.scalar(), Shape.of(3), Shape.of(2, 3), Shape.of(0, 4), Shape.of(-1, 3), Shape.unknown()],
    ids=str,
)
def test_outputShapeIsTheInputShape(tf: Ops, shape: Shape) -> None:
    assert tf.math.isFinite(placeholder(tf, TFloat32, shape)).asOutput().shape() == shape


def test_pythonFloatBecomesFloat32(tf: Ops) -> None:
    assert tf.math.isFinite([1.0, 2.0]).op().attr("T") is TFloat32


# -- kernel ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda t: t.NAME)
def test_kernelFlagsFiniteElements(tf: Ops, run: Run, dtype: type[TType]) -> None:
    x = np.array([[-np.inf, -1.0, -0.0], [0.0, np.inf, np.nan]], dtype.DTYPE)
    result = run(tf.math.isFinite(x))
    assert result.dtype == np.bool_
    assert result.tolist() == [[False, True, True], [True, False, False]]


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda t: t.NAME)
def test_extremeFiniteValuesAreFinite(tf: Ops, run: Run, dtype: type[TType]) -> None:
    info = np.finfo(dtype.DTYPE)
    x = np.array([info.max, info.min, info.tiny, info.smallest_subnormal], dtype.DTYPE)
    assert run(tf.math.isFinite(x)).tolist() == [True, True, True, True]


def test_kernelOfAFedPartiallyKnownPlaceholder(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, Shape.of(-1, 2))
    value = np.array([[1.0, np.nan], [np.inf, 2.0], [0.0, -np.inf]])
    result = run(tf.math.isFinite(x), feeds={x: value})
    assert result.tolist() == [[True, False], [False, True], [True, False]]


def test_kernelOfAScalar(tf: Ops, run: Run) -> None:
    result = run(tf.math.isFinite(np.float32(np.inf)))
    assert result.shape == ()
    assert result.dtype == np.bool_
    assert not result


def test_kernelOfAnEmptyTensor(tf: Ops, run: Run) -> None:
    result = run(tf.math.isFinite(np.zeros((0, 3), np.float16)))
    assert result.shape == (0, 3)
    assert result.dtype == np.bool_


# -- gradient -------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("IsFinite") == (True, None)


def test_noGradientFlowsThroughIsFinite(tf: Ops) -> None:
    x = placeholder(tf, TFloat64, Shape.of(3))
    y = tf.dtypes.cast(tf.math.isFinite(x), TFloat64)
    assert tf.gradients(y, [x]).dy(0) is None


def test_unconnectedGradientIsZeros(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, Shape.of(2))
    y = tf.dtypes.cast(tf.math.isFinite(x), TFloat64)
    dx = tf.gradients(y, [x], Gradients.unconnectedGradients("zero")).dy(0)
    assert dx is not None
    assert run(dx, feeds={x: np.array([1.0, np.inf])}).tolist() == [0.0, 0.0]


def test_gradientFlowsOnlyThroughTheOtherPath(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, Shape.of(2, 2))
    y = tf.math.mul(x, tf.dtypes.cast(tf.math.isFinite(tf.math.log(x)), TFloat64))
    value = np.array([[0.5, 2.0], [3.0, 0.25]])
    assertGradientsClose(y, [x], {x: value})
    dx = tf.gradients(y, [x]).dy(0)
    assert dx is not None
    assert run(dx, feeds={x: np.array([[1.0, 0.0], [2.0, 0.0]])}).tolist() == [
        [1.0, 0.0], [1.0, 0.0]
    ]


# -- bad inputs -----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [TInt32, TInt64, TUint8, TBool], ids=lambda t: t.NAME)
def test_rejectsNonFloatingTypes(tf: Ops, graph: Graph, dtype: type[TType]) -> None:
    x = tf.placeholder(dtype)
    before = list(graph.operations())
    with pytest.raises(TypeError) as info:
        tf.math.isFinite(x)
    message = str(info.value)
    assert "IsFinite 'IsFinite'" in message
    assert dtype.NAME in message
    assert f"created at {__file__}:" in message
    assert list(graph.operations()) == before


@pytest.mark.parametrize("value", [1, [1, 2], True], ids=repr)
def test_rejectsPythonIntegersAndBools(tf: Ops, graph: Graph, value: object) -> None:
    with pytest.raises(TypeError, match="IsFinite"):
        tf.math.isFinite(value)
    assert list(graph.operations()) == []


def test_rejectsAnOperandFromAnotherGraph(tf: Ops, graph: Graph) -> None:
    with Graph() as other:
        foreign = Ops.create(other).constant(1.0)
        with pytest.raises(ValueError, match="IsFinite 'IsFinite'.*another graph"):
            tf.math.isFinite(foreign)
    assert list(graph.operations()) == []
