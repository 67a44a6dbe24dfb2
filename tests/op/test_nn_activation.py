"""LeakyRelu, Selu and Softsign, and their gradient ops LeakyReluGrad, SeluGrad and SoftsignGrad.

``ACTIVATIONS`` rows: each activation with its numpy reference (TensorFlow's formula in the
features' data type) and points away from its kink; ``GRAD_OPS`` rows: each gradient op with its
reference and a valid second input. The values in ``test_specialValuesAreTensorFlows`` are what
TensorFlow 2.21 (CPU) returns for the same inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest
from opchecks import FLOATS, assertGradient, assertMatches, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.spec.grad import lookupGradient
from tfops.types import TFloat16, TFloat32, TFloat64, TInt32, TType

HERE = f"created at {__file__}:"
SCALE = 1.0507009873554804934193349852946
SCALE_ALPHA = 1.7580993408473768599402175208123


def c(value: float, x: Any) -> Any:
    return np.asarray(value, x.dtype)


def alpha32(alpha: float) -> float:
    """A TensorFlow float attribute: single precision."""
    return float(np.float32(alpha))


class Act(NamedTuple):
    name: str
    op: Callable[[Ops, Any], Any]
    reference: Callable[[Any], Any]
    gradOp: str
    ofTheOutput: bool  # whether the gradient op takes the activation's output


def leakyReference(alpha: float) -> Callable[[Any], Any]:
    return lambda x: np.where(x > 0, x, x * c(alpha32(alpha), x))


def seluReference(x: Any) -> Any:
    with np.errstate(over="ignore"):
        return np.where(x < 0, c(SCALE_ALPHA, x) * (np.exp(x) - c(1, x)), c(SCALE, x) * x)


ACTIVATIONS = [
    Act("LeakyRelu", lambda tf, x: tf.nn.leakyRelu(x), leakyReference(0.2), "LeakyReluGrad",
        False),
    Act("LeakyRelu(alpha=0.7)", lambda tf, x: tf.nn.leakyRelu(x, alpha=0.7),
        leakyReference(0.7), "LeakyReluGrad", False),
    Act("Selu", lambda tf, x: tf.nn.selu(x), seluReference, "SeluGrad", True),
    Act("Softsign", lambda tf, x: tf.nn.softsign(x), lambda x: x / (np.abs(x) + c(1, x)),
        "SoftsignGrad", False),
]
EACH_ACTIVATION = pytest.mark.parametrize("act", ACTIVATIONS, ids=lambda a: a.name)


class GradSpec(NamedTuple):
    name: str
    op: Callable[[Ops, Any, Any], Any]
    reference: Callable[[Any, Any], Any]
    second: Callable[[tuple[int, ...]], Any]  # a valid second input, away from the kinks


def spread(shape: tuple[int, ...], start: float, step: float, period: int) -> Any:
    return ((np.arange(int(np.prod(shape))) % period) * step + start).reshape(shape)


GRAD_OPS = [
    GradSpec("LeakyReluGrad", lambda tf, g, x: tf.nn.leakyReluGrad(g, x, alpha=0.3),
             lambda g, x: np.where(x > 0, g, g * c(alpha32(0.3), g)),
             lambda s: spread(s, -1.9, 0.7, 6)),
    GradSpec("SeluGrad", lambda tf, g, y: tf.nn.seluGrad(g, y),
             lambda g, y: np.where(y < 0, g * (y + c(SCALE_ALPHA, y)), g * c(SCALE, g)),
             lambda s: spread(s, -1.5, 0.55, 7)),  # possible Selu outputs, > -1.758
    GradSpec("SoftsignGrad", lambda tf, g, x: tf.nn.softsignGrad(g, x),
             lambda g, x: g / np.square(np.abs(x) + c(1, x)),
             lambda s: spread(s, -2.1, 0.8, 6)),
]
EACH_GRAD_OP = pytest.mark.parametrize("spec", GRAD_OPS, ids=lambda s: s.name)


# -- construction --------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [Shape.of(2, 3), Shape.of(-1, 4), Shape.unknown(),
                                   Shape.scalar()], ids=str)
@EACH_ACTIVATION
def test_activationKeepsTheShapeAndType(tf: Ops, act: Act, shape: Shape) -> None:
    for dtype in FLOATS:
        y = act.op(tf, placeholder(tf, dtype, shape)).asOutput()
        assert y.shape() == shape
        assert y.dataType() is dtype


def test_leakyReluAlphaIsAnOptionDefaulting02(tf: Ops) -> None:
    assert tf.nn.leakyRelu(tf.constant([1.0])).op().attr("alpha") == pytest.approx(0.2)
    assert tf.nn.leakyRelu(tf.constant([1.0]), alpha=-1.5).op().attr("alpha") == -1.5
    assert tf.nn.leakyReluGrad(tf.constant([1.0]), tf.constant([1.0]),
                               alpha=3.0).op().attr("alpha") == 3.0


@pytest.mark.parametrize(
    ("g", "f", "expected"),
    [
        (Shape.of(2, 3), Shape.of(2, 3), Shape.of(2, 3)),
        (Shape.of(-1, 3), Shape.of(2, -1), Shape.of(2, 3)),
        (Shape.unknown(), Shape.of(-1, 4), Shape.of(-1, 4)),
        (Shape.of(5), Shape.unknown(), Shape.of(5)),
        (Shape.scalar(), Shape.scalar(), Shape.scalar()),
    ],
    ids=str,
)
@EACH_GRAD_OP
def test_gradOpOutputIsTheSharedShape(
    tf: Ops, spec: GradSpec, g: Shape, f: Shape, expected: Shape
) -> None:
    b = spec.op(tf, placeholder(tf, TFloat32, g), placeholder(tf, TFloat32, f)).asOutput()
    assert b.shape() == expected
    assert b.dataType() is TFloat32


# -- kernels -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: t.NAME)
@EACH_ACTIVATION
def test_activationKernelMatchesNumpy(
    tf: Ops, run: Any, act: Act, dtype: type[TType]
) -> None:
    x = np.random.default_rng(3).normal(size=(3, 5)).astype(dtype.DTYPE) * 3
    assertMatches(run(act.op(tf, tf.constant(x))), act.reference(x), dtype)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: t.NAME)
@EACH_GRAD_OP
def test_gradOpKernelMatchesNumpy(tf: Ops, run: Any, spec: GradSpec, dtype: type[TType]) -> None:
    rng = np.random.default_rng(4)
    g = rng.normal(size=(4, 3)).astype(dtype.DTYPE)
    x = (rng.normal(size=(4, 3)) * 2).astype(dtype.DTYPE)
    if spec.name == "SeluGrad":  # Selu outputs
        x = seluReference(x)
    assertMatches(run(spec.op(tf, tf.constant(g), tf.constant(x))), spec.reference(g, x), dtype)


INF, NAN = np.inf, np.nan
SPECIAL = np.array([-3.0, -1e-8, 0.0, 2.0, NAN, -INF, INF], np.float32)


@pytest.mark.parametrize(
    ("build", "expected"),
    [
        (lambda tf, x: tf.nn.leakyRelu(x, alpha=2.0),  # not max(x, 2x)
         [-6.0, -2e-8, 0.0, 2.0, NAN, -INF, INF]),
        (lambda tf, x: tf.nn.leakyRelu(x, alpha=-0.5), [1.5, 5e-9, -0.0, 2.0, NAN, INF, INF]),
        (lambda tf, x: tf.nn.selu(x),  # exp(x) - 1, not expm1: -1e-8 gives 0
         [-1.6705687, 0.0, 0.0, 2.101402, NAN, -1.7580993, INF]),
        (lambda tf, x: tf.nn.softsign(x), [-0.75, -1e-8, 0.0, 0.6666667, NAN, NAN, NAN]),
        (lambda tf, x: tf.nn.leakyReluGrad(tf.onesLike(x), x, alpha=2.0),
         [2.0, 2.0, 2.0, 1.0, 2.0, 2.0, 1.0]),
        (lambda tf, x: tf.nn.seluGrad(tf.onesLike(x), x),
         [-1.2419007, 1.7580993, 1.050701, 1.050701, 1.050701, -INF, 1.050701]),
        (lambda tf, x: tf.nn.softsignGrad(tf.onesLike(x), x),
         [0.0625, 1.0, 1.0, 0.11111111, NAN, 0.0, 0.0]),
    ],
)
def test_specialValuesAreTensorFlows(tf: Ops, run: Any, build: Any, expected: Any) -> None:
    got = run(build(tf, tf.constant(SPECIAL)))
    np.testing.assert_allclose(got, np.array(expected, np.float32), rtol=1e-6, atol=0)
    signed = ~np.isnan(got)  # the sign of zeros too (-0.0 where TensorFlow gives it)
    np.testing.assert_array_equal(np.signbit(got[signed]), np.signbit(np.array(expected)[signed]))


def test_alphaIsSinglePrecisionAsInTensorFlow(tf: Ops, run: Any) -> None:
    x: Any = tf.constant(np.array([-1.0]))
    assert run(tf.nn.leakyRelu(x)).tolist() == [-0.20000000298023224]  # TensorFlow's float64
    assert run(tf.nn.leakyReluGrad(x, x)).tolist() == [-0.20000000298023224]


def test_seluOfFloat64IsTensorFlows(tf: Ops, run: Any) -> None:
    x: Any = tf.constant(np.array([-1.0, 1.0]))
    y = run(tf.nn.selu(x))
    assert y.tolist() == [-1.1113307378125628, 1.0507009873554805]


@pytest.mark.parametrize("dtype", [TFloat16, TFloat64], ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(0,), (2, 0)], ids=str)
def test_emptyTensors(tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...]) -> None:
    x = tf.constant(np.zeros(shape, dtype.DTYPE))
    for act in ACTIVATIONS:
        assertMatches(run(act.op(tf, x)), np.zeros(shape), dtype)
    for spec in GRAD_OPS:
        assertMatches(run(spec.op(tf, x, x)), np.zeros(shape), dtype)


# -- gradients -----------------------------------------------------------------------------
def awayFromKinks(shape: tuple[int, ...]) -> Any:
    return spread(shape, -2.3, 0.9, 6)  # never within 0.1 of 0


@pytest.mark.parametrize(("shape", "declared"),
                         [((), None), ((2, 3), None), ((2, 3), Shape.unknown())], ids=str)
@EACH_ACTIVATION
def test_activationGradientMatchesFiniteDifferences(
    tf: Ops, act: Act, shape: tuple[int, ...], declared: Shape | None
) -> None:
    assertGradient(tf, lambda x: act.op(tf, x), [awayFromKinks(shape)],
                   None if declared is None else [declared])


@pytest.mark.parametrize("act", [a for a in ACTIVATIONS if a.name != "Softsign"],
                         ids=lambda a: a.name)  # SoftsignGrad: no gradient, as in TensorFlow
def test_secondDerivativeMatchesFiniteDifferences(tf: Ops, act: Act) -> None:
    """Of sum(op(x)^2): its gradient 2 op(x) op'(x) goes through the gradient op's gradient."""

    def derivative(x: Any) -> Any:
        dx = tf.gradients(tf.sum(tf.math.square(act.op(tf, x)), [0, 1]), [x]).dy(0)
        assert dx is not None
        return dx

    assertGradient(tf, derivative, [awayFromKinks((2, 3))])


@EACH_ACTIVATION
def test_activationsDifferentiateThroughTheirGradientOps(tf: Ops, act: Act) -> None:
    x = placeholder(tf, TFloat32, (3,))
    y = act.op(tf, x)
    dx = tf.gradients(y, [x]).dy(0)
    assert dx is not None
    assert dx.op().type() == act.gradOp
    assert dx.op().input(1) == (y if act.ofTheOutput else x).asOutput()
    if act.gradOp == "LeakyReluGrad":
        assert dx.op().attr("alpha") == y.op().attr("alpha")


@EACH_GRAD_OP
def test_gradOpGradientMatchesFiniteDifferences(tf: Ops, spec: GradSpec) -> None:
    g = np.linspace(-2.0, 3.0, 6).reshape(2, 3)
    if spec.name == "SoftsignGrad":
        assert lookupGradient("SoftsignGrad") == (True, None)
        x = tf.constant(spec.second((2, 3)))
        d = tf.gradients(spec.op(tf, tf.constant(g), x), [x]).dy(0)
        assert d is None  # nothing flows through it
        return
    assertGradient(tf, lambda g, x: spec.op(tf, g, x), [g, spec.second((2, 3))])


@pytest.mark.parametrize(
    ("spec", "input", "expected"),
    [
        (GRAD_OPS[0], 0, [0.30000001192092896, 1.0]),  # LeakyReluGrad again, alpha kept
        (GRAD_OPS[0], 1, [0.0, 0.0]),
        (GRAD_OPS[1], 0, [SCALE_ALPHA - 0.5, SCALE]),
        (GRAD_OPS[1], 1, [2.0, 0.0]),  # the gradients where the outputs are negative
    ],
    ids=lambda v: getattr(v, "name", None),
)
def test_gradOpGradientOfEachInput(
    tf: Ops, run: Any, spec: GradSpec, input: int, expected: Any
) -> None:
    inputs = [tf.constant(np.array([2.0, 3.0])), tf.constant(np.array([-0.5, 0.5]))]
    d = tf.gradients(spec.op(tf, *inputs), [inputs[input]]).dy(0)
    assert d is not None
    np.testing.assert_allclose(run(d), expected, rtol=1e-15)
    if input == 0:
        assert d.op().type() == spec.name


# -- bad inputs ----------------------------------------------------------------------------
def p(dtype: type[TType], shape: tuple[int, ...] | None = None) -> Callable[[Ops], Any]:
    return lambda tf: placeholder(tf, dtype, shape)


@pytest.mark.parametrize(
    ("name", "inputs", "error", "fragment"),
    [
        ("LeakyRelu", [p(TInt32)], TypeError, "data type int32 is not allowed"),
        ("Selu", [p(TInt32)], TypeError, "data type int32 is not allowed"),
        ("Softsign", [lambda tf: tf.constant([True])], TypeError,
         "data type bool is not allowed"),
        ("LeakyReluGrad", [p(TFloat32), p(TFloat64)], TypeError,
         "input 'features' has data type float64"),
        ("SeluGrad", [p(TFloat32), p(TFloat16)], TypeError,
         "input 'outputs' has data type float16"),
        ("SoftsignGrad", [p(TFloat32, (2, 3)), p(TFloat32, (3, 2))], ValueError,
         "inputs must have the same shape, got [2, 3] and [3, 2]"),
        ("LeakyReluGrad", [p(TFloat32, (2,)), lambda tf: tf.constant([1.0])], ValueError,
         "inputs must have the same shape, got [2] and [1]"),
    ],
)
def test_badInputsAreRejected(
    graph: Graph, tf: Ops, name: str, inputs: Any, error: type[Exception], fragment: str
) -> None:
    operands = [make(tf) for make in inputs]
    method = getattr(tf.nn, name[0].lower() + name[1:])
    assertRejected(graph, lambda: method(*operands), error, f"{name} '{name}' ({HERE}",
                   fragment)


@EACH_GRAD_OP
def test_differentFedShapesRaiseInvalidArgumentError(tf: Ops, run: Any, spec: GradSpec) -> None:
    g, f = tf.placeholder(TFloat32), tf.placeholder(TFloat32)
    b = spec.op(tf, g, f)
    with pytest.raises(InvalidArgumentError) as info:
        run(b, feeds={g: np.ones(3, np.float32), f: np.ones(2, np.float32)})
    assert info.value.op == b.op()
    assert "inputs must have the same shape, got [3] and [2]" in str(info.value)
    assert f"of type {spec.name}, {HERE}" in str(info.value)
