"""Specification of the ``StopGradient`` op class."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.core import Gradients, Placeholder, StopGradient
from tfops.testing import assertGradientsClose
from tfops.types import (
    TBool,
    TFloat16,
    TFloat32,
    TFloat64,
    TInt32,
    TInt64,
    TType,
    TUint8,
)

Run = Callable[..., Any]
ALL_TYPES: list[type[TType]] = [TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8, TBool]
HERE = re.escape(__file__)


def sample(dtype: type[TType], shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    values: np.ndarray[Any, Any] = np.arange(int(np.prod(shape))).reshape(shape)
    if dtype is TBool:
        return (values % 2 == 1).astype(np.bool_)
    return values.astype(dtype.DTYPE)


# -- construction --------------------------------------------------------------------------
def test_opNameIsStopGradient() -> None:
    assert StopGradient.OP_NAME == "StopGradient"


def test_defaultNamesAreStopGradientThenStopGradient_1(tf: Ops) -> None:
    x = tf.constant(1.0)
    assert tf.stopGradient(x).op().name() == "StopGradient"
    assert tf.stopGradient(x).op().name() == "StopGradient_1"


def test_opTypeIsStopGradient(tf: Ops) -> None:
    assert tf.stopGradient(tf.constant(1.0)).op().type() == "StopGradient"


def test_withNameNamesTheOp(tf: Ops) -> None:
    assert tf.withName("frozen").stopGradient(tf.constant(1.0)).op().name() == "frozen"


def test_createOnAScope(tf: Ops) -> None:
    x = tf.constant([1.0])
    y = StopGradient.create(tf.scope(), x)
    assert isinstance(y, StopGradient)
    assert y.op().input(0) == x.asOutput()
    assert y.output() == y.asOutput() == y.op().output(0)


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
def test_outputHasTheInputDataType(tf: Ops, dtype: type[TType]) -> None:
    assert tf.stopGradient(tf.placeholder(dtype)).asOutput().dataType() is dtype


@pytest.mark.parametrize(
    "shape", [Shape.scalar(), Shape.of(2, 3), Shape.of(-1, 3), Shape.unknown()], ids=str
)
def test_outputHasTheInputShape(tf: Ops, shape: Shape) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(shape))
    assert tf.stopGradient(x).asOutput().shape() == shape


def test_docstringCarriesTheSeedDescription() -> None:
    doc = StopGradient.__doc__
    assert doc is not None
    assert doc.startswith("Stops gradient computation.")
    assert "When executed in a graph, this op outputs its input tensor as-is." in doc
    assert "def stable_softmax(x):" in doc
    assert "z = x - tf.stop_gradient(tf.reduce_max(x))" in doc
    assert "z = x - tf.reduce_max(x)" in doc
    assert "Adversarial training, where no backprop should happen" in doc


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(), (0,), (2, 3)], ids=str)
def test_forwardValueEqualsTheInput(
    tf: Ops, run: Run, dtype: type[TType], shape: tuple[int, ...]
) -> None:
    value = sample(dtype, shape)
    result = run(tf.stopGradient(tf.constant(value)))
    assert result.dtype == dtype.DTYPE
    assert result.shape == shape
    np.testing.assert_array_equal(result, value)


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("StopGradient") == (True, None)


def test_gradientThroughItIsNone(tf: Ops) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(3)))
    y = tf.sum(tf.stopGradient(x), 0)
    assert tf.gradients(y, [x]).dy() == [None]


def test_gradientThroughItIsZerosWhenAsked(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2, 3)))
    y = tf.sum(tf.stopGradient(x), [0, 1])
    d = tf.gradients(y, [x], Gradients.unconnectedGradients("zero")).dy(0)
    assert d is not None
    result = run(d, feeds={x: np.ones((2, 3))})
    assert result.dtype == np.float64
    assert result.tolist() == [[0.0] * 3] * 2


def test_gradientWrtTheStopGradientOutputItselfIsOnes(tf: Ops, run: Run) -> None:
    x = tf.constant(np.array([1.0, 2.0]))
    s = tf.stopGradient(x)
    d = tf.gradients(tf.sum(s, 0), [s]).dy(0)
    assert d is not None
    assert run(d).tolist() == [1.0, 1.0]


def test_maskedFactorIsTreatedAsAConstant(tf: Ops, run: Run) -> None:
    # d/dx [x * stop(x)] = stop(x) = x, not 2x
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(3)))
    y = tf.math.mul(x, tf.stopGradient(x))
    d = tf.gradients(y, [x]).dy(0)
    assert d is not None
    assert run(d, feeds={x: np.array([1.0, -2.0, 3.0])}).tolist() == [1.0, -2.0, 3.0]


def test_stableSoftmaxShiftGetsNoGradient(tf: Ops, run: Run) -> None:
    x = tf.constant(np.array([1.0, 3.0, 3.0]))
    z = tf.math.sub(x, tf.stopGradient(tf.max(x, 0)))
    d = tf.gradients(tf.sum(z, 0), [x]).dy(0)
    assert d is not None
    assert run(d).tolist() == [1.0, 1.0, 1.0]


def test_stableSoftmaxGradientMatchesFiniteDifferences(tf: Ops) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(4)))
    z = tf.math.sub(x, tf.stopGradient(tf.max(x, 0)))
    e = tf.math.exp(z)
    softmax = tf.math.div(e, tf.sum(e, 0))
    assertGradientsClose(softmax, [x], {x: np.array([1000.0, 1001.0, 1001.0, 998.5])})


def test_stableSoftmaxDoesNotOverflow(tf: Ops, run: Run) -> None:
    x = tf.constant([1000.0, 1001.0, 1002.0])
    z = tf.math.sub(x, tf.stopGradient(tf.max(x, 0)))
    e = tf.math.exp(z)
    p = run(tf.math.div(e, tf.sum(e, 0)))
    np.testing.assert_allclose(p, [0.09003057, 0.24472847, 0.66524096], rtol=1e-6)


# -- bad inputs ----------------------------------------------------------------------------
def test_operandFromAnotherGraphRaisesValueError(tf: Ops) -> None:
    with Graph() as other:
        foreign = Ops.create(other).constant(1.0)
        with pytest.raises(
            ValueError, match=rf"StopGradient 'StopGradient' \(created at {HERE}:\d+\)"
        ):
            tf.stopGradient(foreign)


def test_valueThatIsNotATensorRaisesTypeError(tf: Ops) -> None:
    with pytest.raises(TypeError, match="StopGradient"):
        tf.stopGradient("x")


def test_failedCreateLeavesTheGraphUnchanged(graph: Graph, tf: Ops) -> None:
    x = tf.constant(1.0)
    before = list(graph.operations())
    with Graph() as other:
        foreign = Ops.create(other).constant(1.0)
        with pytest.raises(ValueError):
            tf.stopGradient(foreign)
    assert list(graph.operations()) == before
    assert tf.stopGradient(x).op().name() == "StopGradient"
