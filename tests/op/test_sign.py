"""Specification of ``tfops.op.math.Sign``: -1, 0 or 1 element-wise, for signed numbers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.core import Gradients, Placeholder
from tfops.op.math import Sign
from tfops.testing import assertGradientsClose
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]

SIGNED_TYPES = [TFloat16, TFloat32, TFloat64, TInt32, TInt64]
FLOAT_TYPES = [TFloat16, TFloat32, TFloat64]
INTEGER_TYPES = [TInt32, TInt64]


def placeholder(tf: Ops, dtype: type[TType], shape: Shape) -> Placeholder[Any]:
    return tf.placeholder(dtype, Placeholder.shape(shape))


# -- construction ---------------------------------------------------------------------------
def test_defaultNameIsTheOpTypeThenNumbered(tf: Ops) -> None:
    x = tf.constant(-1.0)
    assert tf.math.sign(x).op().name() == "Sign"
    assert tf.math.sign(x).op().name() == "Sign_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    x = tf.constant(-1.0)
    assert tf.withName("direction").math.sign(x).op().name() == "direction"
    assert tf.withName("direction").math.sign(x).op().name() == "direction_1"


def test_subScopePrefixesTheName(tf: Ops) -> None:
    assert tf.withSubScope("fgsm").math.sign(tf.constant(-1.0)).op().name() == "fgsm/Sign"


def test_createAddsOneSignOperation(tf: Ops, graph: Graph) -> None:
    x = tf.constant([-1.0, 2.0])
    y = Sign.create(tf.scope(), x)
    assert isinstance(y, Sign)
    assert Sign.OP_NAME == "Sign"
    assert y.op().type() == "Sign"
    assert [op.name() for op in graph.operations()] == ["Const", "Sign"]
    assert y.op().numInputs() == 1
    assert y.op().input(0) == x.asOutput()


def test_yIsTheOnlyOutput(tf: Ops) -> None:
    y = tf.math.sign(tf.constant(-1.0))
    assert y.op().numOutputs() == 1
    assert y.y() == y.asOutput() == y.op().output(0)
    assert y.y().name() == "Sign:0"


@pytest.mark.parametrize("dtype", SIGNED_TYPES, ids=lambda t: t.NAME)
def test_outputDataTypeIsTheInputDataType(tf: Ops, dtype: type[TType]) -> None:
    y = tf.math.sign(tf.placeholder(dtype))
    assert y.asOutput().dataType() is dtype
    assert y.op().attr("T") is dtype


@pytest.mark.parametrize(
    "shape",
    [Shape.scalar(), Shape.of(3), Shape.of(2, 3), Shape.of(0, 4), Shape.of(-1, 3), Shape.unknown()],
    ids=str,
)
def test_outputShapeIsTheInputShape(tf: Ops, shape: Shape) -> None:
    assert tf.math.sign(placeholder(tf, TFloat32, shape)).asOutput().shape() == shape


def test_pythonValuesBecomeInt32OrFloat32(tf: Ops) -> None:
    assert tf.math.sign(-3).asOutput().dataType() is TInt32
    assert tf.math.sign([-1.5, 2.0]).asOutput().dataType() is TFloat32
    assert tf.math.sign(np.float64(-3)).asOutput().dataType() is TFloat64


# -- kernel ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", SIGNED_TYPES, ids=lambda t: t.NAME)
def test_kernelGivesTheSign(tf: Ops, run: Run, dtype: type[TType]) -> None:
    x = np.array([[-7, -1, 0], [1, 3, 100]], dtype.DTYPE)
    result = run(tf.math.sign(x))
    assert result.dtype == dtype.DTYPE
    assert result.tolist() == [[-1, -1, 0], [1, 1, 1]]


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda t: t.NAME)
def test_smallAndInfiniteFloats(tf: Ops, run: Run, dtype: type[TType]) -> None:
    x = np.array([-np.inf, -0.001, -0.0, 0.001, np.inf], dtype.DTYPE)
    assert run(tf.math.sign(x)).tolist() == [-1.0, -1.0, 0.0, 1.0, 1.0]


def test_nanGivesNaN(tf: Ops, run: Run) -> None:
    # TensorFlow 2 propagates NaN (TensorFlow 1 returned 0).
    assert np.isnan(run(tf.math.sign(np.array([np.nan, -np.nan])))).all()


@pytest.mark.parametrize("dtype", INTEGER_TYPES, ids=lambda t: t.NAME)
def test_integerExtremes(tf: Ops, run: Run, dtype: type[TType]) -> None:
    info = np.iinfo(dtype.DTYPE)
    assert run(tf.math.sign(np.array([info.min, info.max], dtype.DTYPE))).tolist() == [-1, 1]


def test_kernelOfAFedPartiallyKnownPlaceholder(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TInt64, Shape.of(-1, 2))
    value = np.array([[-9, 2], [0, -4]], np.int64)
    assert run(tf.math.sign(x), feeds={x: value}).tolist() == [[-1, 1], [0, -1]]


def test_kernelOfAScalar(tf: Ops, run: Run) -> None:
    result = run(tf.math.sign(np.float32(-2.5)))
    assert result.shape == ()
    assert result.dtype == np.float32
    assert result == -1.0


def test_kernelOfAnEmptyTensor(tf: Ops, run: Run) -> None:
    result = run(tf.math.sign(np.zeros((3, 0), np.float64)))
    assert result.shape == (3, 0)
    assert result.dtype == np.float64


# -- gradient -------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (2, 1, 3)], ids=str)
def test_gradientMatchesFiniteDifferences(tf: Ops, shape: tuple[int, ...]) -> None:
    x = placeholder(tf, TFloat64, Shape.of(*shape))
    n = int(np.prod(shape))
    value = (np.linspace(0.5, 2.0, num=n) * (-1.0) ** np.arange(n)).reshape(shape)
    assertGradientsClose(tf.math.sign(x), [x], {x: value})


@pytest.mark.parametrize("shape", [Shape.of(-1, 3), Shape.unknown()], ids=str)
def test_gradientIsZerosOfTheShapeOfX(tf: Ops, run: Run, shape: Shape) -> None:
    x = placeholder(tf, TFloat64, shape)
    dx = tf.gradients(tf.math.sign(x), [x]).dy(0)
    assert dx is not None
    result = run(dx, feeds={x: np.array([[-1.0, 0.0, 2.0], [3.0, -4.0, 5.0]])})
    assert result.dtype == np.float64
    assert result.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]


def test_gradientIsZeroWhateverTheIncomingGradient(tf: Ops, run: Run) -> None:
    x = tf.constant(np.array([2.0, -2.0, 0.0]))
    seed = tf.constant(np.array([3.0, np.inf, -1.0]))
    dx = tf.gradients(tf.math.sign(x), [x], Gradients.dx([seed])).dy(0)
    assert dx is not None
    assert run(dx).tolist() == [0.0, 0.0, 0.0]


def test_gradientThroughABroadcastProductIsTheSign(tf: Ops, run: Run) -> None:
    # x * sign(x) = |x|: only the first factor contributes to the derivative.
    x = placeholder(tf, TFloat64, Shape.of(3, 1))
    z = tf.math.mul(x, tf.constant(np.array([[1.0, 2.0]])))
    y = tf.math.mul(z, tf.math.sign(x))
    value = np.array([[-2.0], [0.5], [3.0]])
    assertGradientsClose(y, [x], {x: value})
    dx = tf.gradients(y, [x]).dy(0)
    assert dx is not None
    assert run(dx, feeds={x: value}).tolist() == [[-3.0], [3.0], [3.0]]


def test_gradientOfTheGradientIsNotConnected(tf: Ops) -> None:
    x = placeholder(tf, TFloat64, Shape.of(3))
    dx = tf.gradients(tf.math.sign(x), [x]).dy(0)
    assert dx is not None
    assert tf.gradients(dx, [x]).dy(0) is None


@pytest.mark.parametrize("dtype", [TFloat16, TFloat32], ids=lambda t: t.NAME)
def test_gradientHasTheInputDataType(tf: Ops, run: Run, dtype: type[TType]) -> None:
    x = placeholder(tf, dtype, Shape.of(2))
    dx = tf.gradients(tf.math.sign(x), [x]).dy(0)
    assert dx is not None
    assert dx.dataType() is dtype
    result = run(dx, feeds={x: np.array([-0.5, 4.0], dtype.DTYPE)})
    assert result.dtype == dtype.DTYPE
    assert result.tolist() == [0.0, 0.0]


def test_signHasARegisteredGradientRule() -> None:
    registered, rule = lookupGradient("Sign")
    assert registered and rule is not None


# -- bad inputs -----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [TUint8, TBool], ids=lambda t: t.NAME)
def test_rejectsUnsignedAndBoolTypes(tf: Ops, graph: Graph, dtype: type[TType]) -> None:
    x = tf.placeholder(dtype)
    before = list(graph.operations())
    with pytest.raises(TypeError) as info:
        tf.math.sign(x)
    message = str(info.value)
    assert "Sign 'Sign'" in message
    assert dtype.NAME in message
    assert f"created at {__file__}:" in message
    assert list(graph.operations()) == before


def test_rejectsAPythonBool(tf: Ops, graph: Graph) -> None:
    with pytest.raises(TypeError, match="Sign"):
        tf.math.sign([True, False])
    assert list(graph.operations()) == []


def test_rejectsAnOperandFromAnotherGraph(tf: Ops, graph: Graph) -> None:
    with Graph() as other:
        foreign = Ops.create(other).constant(-1.0)
        with pytest.raises(ValueError, match="Sign 'Sign'.*another graph"):
            tf.math.sign(foreign)
    assert list(graph.operations()) == []
