"""FusedBatchNormV3 and FusedBatchNormGradV3 (TF Java's FusedBatchNorm and FusedBatchNormGrad),
LRN and LRNGrad (LocalResponseNormalization and LocalResponseNormalizationGrad).

The numbers are TensorFlow's: ``tests/fixtures/tf/nn_norm.npz`` holds TensorFlow 2.21's outputs
and gradients (through its registered rules, to the second order) for each case, written by
``tests/fixtures/tf/make_nn_norm.py``. These ops take half and single precision only, so their
gradients are also checked against finite differences of float64 numpy references of the
forward ops (the references below), at single precision's tolerance.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.types import TFloat16, TFloat32, TFloat64, TType

HERE = f"created at {__file__}:"
FIXTURES = np.load(Path(__file__).parent.parent / "fixtures" / "tf" / "nn_norm.npz")
BN_OPTIONS = {"epsilon": "epsilon", "exponential_avg_factor": "exponentialAvgFactor",
              "data_format": "dataFormat", "is_training": "isTraining"}


def cases(prefix: str) -> list[str]:
    return sorted({k.split("/")[1] for k in FIXTURES.files if k.startswith(prefix + "/")})


def fixture(prefix: str, case: str) -> tuple[Callable[[str], Any], dict[str, Any]]:
    """The case's arrays (by name) and its attributes as tfops options."""
    attrs = json.loads(str(FIXTURES[f"{prefix}/{case}/attrs"]))
    return (lambda name: FIXTURES[f"{prefix}/{case}/{name}"]), attrs


def close(got: Any, expected: Any, rtol: float = 2e-6, atol: float = 2e-6) -> None:
    """Single precision agreement (half precision: the dtypes' own rounding)."""
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype, f"dtype {got.dtype}, expected {expected.dtype}"
    assert got.shape == expected.shape, f"shape {got.shape}, expected {expected.shape}"
    if got.dtype == np.float16:
        rtol, atol = 1e-3, 1e-3
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


def allAxes(a: Any) -> list[int]:
    return list(range(np.ndim(a)))


# -- float64 references --------------------------------------------------------------------
def layout(fmt: str, rank: int) -> tuple[int, tuple[int, ...]]:
    axis = 1 if fmt[1] == "C" else rank - 1
    return axis, tuple(a for a in range(rank) if a != axis)


def perChannel(v: Any, axis: int, rank: int) -> Any:
    shape = [1] * rank
    shape[axis] = -1
    return np.reshape(v, shape)


def batchNormReference(
    x: Any, scale: Any, offset: Any, mean: Any, variance: Any, epsilon: float, fmt: str,
    training: bool,
) -> Any:
    axis, axes = layout(fmt, x.ndim)
    if training:
        mean, variance = np.mean(x, axis=axes), np.var(x, axis=axes)
    rsqrt = 1 / np.sqrt(variance + np.float64(np.float32(epsilon)))
    return ((x - perChannel(mean, axis, x.ndim)) * perChannel(rsqrt * scale, axis, x.ndim)
            + perChannel(offset, axis, x.ndim))


def batchNormGradReference(
    dy: Any, x: Any, scale: Any, mean: Any, variance: Any, epsilon: float, fmt: str,
    training: bool,
) -> tuple[Any, Any, Any]:
    axis, axes = layout(fmt, x.ndim)
    rsqrt = 1 / np.sqrt(variance + np.float64(np.float32(epsilon)))
    centered = x - perChannel(mean, axis, x.ndim)
    dscale = np.sum(dy * centered, axis=axes) * rsqrt
    doffset = np.sum(dy, axis=axes)
    coef = perChannel(scale * rsqrt, axis, x.ndim)
    if not training:
        return dy * coef, dscale, doffset
    meanDyX = np.mean(dy * centered, axis=axes) * rsqrt**2
    dx = coef * (dy - perChannel(np.mean(dy, axis=axes), axis, x.ndim)
                 - centered * perChannel(meanDyX, axis, x.ndim))
    return dx, dscale, doffset


def numericalGradients(f: Callable[..., float], point: list[Any], delta: float = 1e-6) -> list[Any]:
    """Central differences of the float64 function ``f`` at ``point``, one array per input."""
    grads = []
    for i, p in enumerate(point):
        g = np.zeros(p.shape)
        for j in range(p.size):
            plus, minus = [q.copy() for q in point], [q.copy() for q in point]
            plus[i].reshape(-1)[j] += delta
            minus[i].reshape(-1)[j] -= delta
            g.reshape(-1)[j] = (f(*plus) - f(*minus)) / (2 * delta)
        grads.append(g)
    return grads


def assertNear(got: Any, expected: Any, tolerance: float = 2e-5) -> None:
    """Within ``tolerance`` of the largest magnitude (single precision gradients)."""
    scale = max(1.0, float(np.max(np.abs(expected))) if np.size(expected) else 1.0)
    np.testing.assert_allclose(np.asarray(got, np.float64), expected, rtol=0,
                               atol=tolerance * scale)


# -- FusedBatchNormV3: construction --------------------------------------------------------
def batchNormOf(tf: Ops, x: Any, c: int | None = 4, empty: bool = False, **options: Any) -> Any:
    vector = Shape.of(-1) if c is None else Shape.of(c)
    stats = Shape.of(0) if empty else vector
    return tf.nn.fusedBatchNorm(x, placeholder(tf, TFloat32, vector),
                                placeholder(tf, TFloat32, vector),
                                placeholder(tf, TFloat32, stats),
                                placeholder(tf, TFloat32, stats), **options)


@pytest.mark.parametrize(
    ("shape", "options", "y", "channels"),
    [
        (Shape.of(2, 3, 5, 4), {}, Shape.of(2, 3, 5, 4), 4),
        (Shape.of(2, 4, 5, 6), {"dataFormat": "NCHW"}, Shape.of(2, 4, 5, 6), 4),
        (Shape.of(2, 3, 5, 7, 4), {"dataFormat": "NDHWC"}, Shape.of(2, 3, 5, 7, 4), 4),
        (Shape.of(2, 4, 5, 7, 1), {"dataFormat": "NCDHW"}, Shape.of(2, 4, 5, 7, 1), 4),
        (Shape.of(-1, 3, 5, -1), {}, Shape.of(-1, 3, 5, 4), 4),  # channels from the vectors
        (Shape.unknown(), {}, Shape.unknown(), 4),
        (Shape.unknown(), {"dataFormat": "NCHW"}, Shape.unknown(), 4),
    ],
    ids=str,
)
def test_batchNormShapes(tf: Ops, shape: Shape, options: Any, y: Shape, channels: int) -> None:
    for dtype in (TFloat16, TFloat32):
        bn = batchNormOf(tf, placeholder(tf, dtype, shape), **options)
        assert bn.y().shape() == y
        assert bn.y().dataType() is dtype
        for out in (bn.batch_mean(), bn.batch_variance(), bn.reserve_space_1(),
                    bn.reserve_space_2()):
            assert out.shape() == Shape.of(channels)
            assert out.dataType() is TFloat32
        assert bn.reserve_space_3().shape() == Shape.of(0)


def test_batchNormOptionsAndDefaults(tf: Ops) -> None:
    x = placeholder(tf, TFloat32, (1, 1, 1, 4))
    op = batchNormOf(tf, x).op()
    assert op.type() == "FusedBatchNormV3"
    assert op.attr("epsilon") == pytest.approx(0.0001)
    assert op.attr("exponential_avg_factor") == 1.0
    assert op.attr("data_format") == "NHWC"
    assert op.attr("is_training") is True
    op = batchNormOf(tf, x, epsilon=0.5, exponentialAvgFactor=0.25, isTraining=False).op()
    assert (op.attr("epsilon"), op.attr("exponential_avg_factor"), op.attr("is_training")) == (
        0.5, 0.25, False)


def test_batchNormTrainingNeedsNoStatistics(tf: Ops, run: Any) -> None:
    """With exponential_avg_factor 1, mean and variance are not read: empty ones are fine."""
    x = np.arange(8, dtype=np.float32).reshape(2, 1, 1, 4)
    bn = tf.nn.fusedBatchNorm(tf.constant(x), tf.constant(np.ones(4, np.float32)),
                              tf.constant(np.zeros(4, np.float32)),
                              tf.constant(np.zeros(0, np.float32)),
                              tf.constant(np.zeros(0, np.float32)), epsilon=0.0)
    y, mean, variance = run(bn.y(), bn.batch_mean(), bn.batch_variance())
    close(y, np.array([-1.0] * 4 + [1.0] * 4, np.float32).reshape(2, 1, 1, 4))
    close(mean, np.array([2.0, 3.0, 4.0, 5.0], np.float32))
    close(variance, np.full(4, 8.0, np.float32))  # unbiased: 4 * 2 / (2 - 1)


# -- FusedBatchNormV3: TensorFlow's numbers ------------------------------------------------
@pytest.mark.parametrize("case", cases("bn"))
def test_batchNormIsTensorFlows(tf: Ops, run: Any, case: str) -> None:
    """y, the batch statistics, the reserve spaces, the gradients of sum(y * w) to x, scale and
    offset, and the gradients of sum(dx * v) to x and scale (second order)."""
    p, attrs = fixture("bn", case)
    xs = [tf.constant(p(n)) for n in ("x", "scale", "offset", "mean", "variance")]
    bn = tf.nn.fusedBatchNorm(*xs, **{BN_OPTIONS[k]: v for k, v in attrs.items()})
    loss = tf.sum(tf.math.mul(tf.dtypes.cast(bn.y(), TFloat32),
                              tf.constant(p("w").astype(np.float32))), allAxes(p("x")))
    grads = tf.gradients(loss, xs).dy()
    assert grads[3] is None and grads[4] is None  # as TensorFlow, even in inference
    dx, dscale, doffset = grads[:3]
    assert dx is not None and dscale is not None and doffset is not None
    second = tf.sum(tf.math.mul(tf.dtypes.cast(dx, TFloat32),
                                tf.constant(p("v").astype(np.float32))), allAxes(p("x")))
    ddx, ddscale = tf.gradients(second, xs[:2]).dy()
    assert ddx is not None and ddscale is not None
    values = run(bn.y(), bn.batch_mean(), bn.batch_variance(), bn.reserve_space_1(),
                 bn.reserve_space_2(), bn.reserve_space_3(), dx, dscale, doffset, ddx, ddscale)
    for name, got in zip(["y", "batch_mean", "batch_variance"], values[:3], strict=True):
        close(got, p(name))
    training = attrs.get("is_training", True)
    # inference: TensorFlow's oneDNN kernel returns mean and variance (its kernel without
    # oneDNN, which runs half precision and 5-D tensors, leaves them unset)
    close(values[3], p("reserve_space_1") if training else p("mean"))
    close(values[4], p("reserve_space_2") if training else p("variance"))
    close(values[5], np.zeros(0, np.float32))
    for name, got in zip(["dx", "dscale", "doffset", "ddx", "ddscale"], values[6:], strict=True):
        close(got, p(name), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("case", cases("bng"))
def test_batchNormGradIsTensorFlows(tf: Ops, run: Any, case: str) -> None:
    """The gradient op alone, and its gradient (TensorFlow's rule) of
    sum(x_backprop * a) + sum(scale_backprop * b) to y_backprop, x and scale."""
    p, attrs = fixture("bng", case)
    ins = [tf.constant(p(n)) for n in ("dy", "x", "scale", "mean", "variance")]
    d = tf.nn.fusedBatchNormGrad(*ins, tf.constant(np.zeros(0, np.float32)),
                                 **{BN_OPTIONS[k]: v for k, v in attrs.items()})
    dx32 = tf.dtypes.cast(d.x_backprop(), TFloat32)
    loss = tf.math.add(tf.sum(tf.math.mul(dx32, tf.constant(p("a").astype(np.float32))),
                              allAxes(p("a"))),
                       tf.sum(tf.math.mul(d.scale_backprop(), tf.constant(p("b"))), [0]))
    ddy, dx, dscale, dmean, dvariance = tf.gradients(loss, ins).dy()
    assert dmean is None and dvariance is None
    assert ddy is not None and dx is not None and dscale is not None
    values = run(d.x_backprop(), d.scale_backprop(), d.offset_backprop(), d.reserve_space_4(),
                 d.reserve_space_5(), ddy, dx, dscale)
    for name, got in zip(["x_backprop", "scale_backprop", "offset_backprop"], values[:3],
                         strict=True):
        close(got, p(name), rtol=1e-5, atol=1e-5)
    close(values[3], np.zeros(0, np.float32))
    close(values[4], np.zeros(0, np.float32))
    for name, got in zip(["ddy", "dx", "dscale"], values[5:], strict=True):
        close(got, p(name), rtol=1e-5, atol=1e-5)


def test_batchNormOfASingleValuePerChannel(tf: Ops, run: Any) -> None:
    """n = 1: the batch variance is 0, not n / (n - 1) of it (TensorFlow's)."""
    x = np.array([1.0, -2.0, 3.0], np.float32).reshape(1, 1, 1, 3)
    ones = tf.constant(np.ones(3, np.float32))
    bn = tf.nn.fusedBatchNorm(tf.constant(x), ones, ones, ones, ones)
    y, variance = run(bn.y(), bn.batch_variance())
    close(y, np.ones((1, 1, 1, 3), np.float32))
    close(variance, np.zeros(3, np.float32))


@pytest.mark.parametrize("training", [True, False])
def test_batchNormOfAnEmptyBatch(tf: Ops, run: Any, training: bool) -> None:
    """As TensorFlow: NaN batch statistics and zero reserve spaces; no gradient to speak of."""
    x = tf.constant(np.zeros((0, 2, 2, 3), np.float32))
    ones = tf.constant(np.ones(3, np.float32))
    bn = tf.nn.fusedBatchNorm(x, ones, ones, ones, ones, isTraining=training)
    d = tf.nn.fusedBatchNormGrad(x, x, ones, ones, ones, bn.reserve_space_3(),
                                 isTraining=training)
    y, mean, variance, r1, r2, dx, dscale, doffset = run(
        bn.y(), bn.batch_mean(), bn.batch_variance(), bn.reserve_space_1(),
        bn.reserve_space_2(), d.x_backprop(), d.scale_backprop(), d.offset_backprop())
    assert y.shape == dx.shape == (0, 2, 2, 3)
    assert np.isnan(mean).all() and np.isnan(variance).all() and mean.shape == (3,)
    close(r1, np.zeros(3, np.float32))
    close(r2, np.zeros(3, np.float32))
    close(dscale, np.zeros(3, np.float32))
    close(doffset, np.zeros(3, np.float32))


# -- FusedBatchNormV3: gradients against float64 finite differences ------------------------
@pytest.mark.parametrize(
    ("fmt", "training", "shape"),
    [("NHWC", True, (2, 2, 1, 3)), ("NHWC", False, (2, 1, 2, 3)),
     ("NCHW", True, (3, 2, 1, 2)), ("NCDHW", False, (2, 2, 1, 2, 1))],
    ids=str,
)
def test_batchNormGradientMatchesFiniteDifferences(
    tf: Ops, run: Any, fmt: str, training: bool, shape: tuple[int, ...]
) -> None:
    rng = np.random.default_rng(5)
    c = shape[1] if fmt[1] == "C" else shape[-1]
    x, w = rng.normal(size=shape), rng.normal(size=shape)
    scale, offset = rng.normal(size=c), rng.normal(size=c)
    mean, variance = rng.normal(size=c), rng.uniform(0.5, 2.0, size=c)
    epsilon = 0.01

    def loss(x: Any, scale: Any, offset: Any) -> float:
        y = batchNormReference(x, scale, offset, mean, variance, epsilon, fmt, training)
        return float(np.sum(y * w))

    expected = numericalGradients(loss, [x, scale, offset])
    xs = [tf.constant(a.astype(np.float32)) for a in (x, scale, offset, mean, variance)]
    bn = tf.nn.fusedBatchNorm(*xs, epsilon=epsilon, dataFormat=fmt, isTraining=training)
    y = tf.sum(tf.math.mul(bn.y(), tf.constant(w.astype(np.float32))), allAxes(x))
    grads = tf.gradients(y, xs[:3]).dy()
    for got, want in zip(run(*[g for g in grads if g is not None]), expected, strict=True):
        assertNear(got, want)


@pytest.mark.parametrize(
    ("fmt", "training", "shape"),
    [("NHWC", True, (2, 2, 1, 3)), ("NHWC", False, (2, 1, 2, 3)), ("NCHW", True, (3, 2, 1, 2))],
    ids=str,
)
def test_batchNormGradGradientMatchesFiniteDifferences(
    tf: Ops, run: Any, fmt: str, training: bool, shape: tuple[int, ...]
) -> None:
    """The second order: FusedBatchNormGradV3's gradient to y_backprop, x and scale."""
    rng = np.random.default_rng(6)
    c = shape[1] if fmt[1] == "C" else shape[-1]
    dy, x, a = rng.normal(size=shape), rng.normal(size=shape), rng.normal(size=shape)
    scale, b, e = rng.normal(size=c), rng.normal(size=c), rng.normal(size=c)
    mean, variance = rng.normal(size=c), rng.uniform(0.5, 2.0, size=c)
    if training:  # the reserve spaces of a training step are the batch's statistics
        axes = layout(fmt, len(shape))[1]
        mean, variance = np.mean(x, axis=axes), np.var(x, axis=axes)

    def loss(dy: Any, x: Any, scale: Any) -> float:
        # in training the mean and variance follow x, as TensorFlow's rule has them
        m, v = mean, variance
        if training:
            axes = layout(fmt, x.ndim)[1]
            m, v = np.mean(x, axis=axes), np.var(x, axis=axes)
        dx, dscale, doffset = batchNormGradReference(dy, x, scale, m, v, 0.01, fmt, training)
        return float(np.sum(dx * a) + np.sum(dscale * b) + np.sum(doffset * e))

    expected = numericalGradients(loss, [dy, x, scale])
    ins = [tf.constant(t.astype(np.float32)) for t in (dy, x, scale, mean, variance)]
    d = tf.nn.fusedBatchNormGrad(*ins, tf.constant(np.zeros(0, np.float32)), epsilon=0.01,
                                 dataFormat=fmt, isTraining=training)
    total = tf.math.addN([
        tf.sum(tf.math.mul(d.x_backprop(), tf.constant(a.astype(np.float32))), allAxes(a)),
        tf.sum(tf.math.mul(d.scale_backprop(), tf.constant(b.astype(np.float32))), [0]),
        tf.sum(tf.math.mul(d.offset_backprop(), tf.constant(e.astype(np.float32))), [0]),
    ])
    grads = tf.gradients(total, ins[:3]).dy()
    assert all(g is not None for g in grads)
    for got, want in zip(run(*[g for g in grads if g is not None]), expected, strict=True):
        assertNear(got, want)


def test_batchNormGradientGoesThroughTheGradOp(tf: Ops) -> None:
    x = placeholder(tf, TFloat32, (2, 1, 1, 3))
    bn = batchNormOf(tf, x, c=3, isTraining=False, epsilon=0.5, dataFormat="NHWC")
    dx = tf.gradients(bn.y(), [x]).dy(0)
    assert dx is not None
    op = dx.op()
    assert op.type() == "FusedBatchNormGradV3"
    assert (op.attr("epsilon"), op.attr("is_training")) == (0.5, False)
    assert op.input(3) == bn.op().input(3)  # inference: the population mean
    bn2 = batchNormOf(tf, x, c=3)
    op2 = tf.gradients(bn2.y(), [x]).dy(0)
    assert op2 is not None
    assert op2.op().input(3) == bn2.reserve_space_1()  # training: the batch mean


# -- bad inputs ----------------------------------------------------------------------------
def p32(shape: Any) -> Callable[[Ops], Any]:
    return lambda tf: placeholder(tf, TFloat32, shape)


def typed(dtype: type[TType], shape: Any) -> Callable[[Ops], Any]:
    return lambda tf: placeholder(tf, dtype, shape)


X4, V4 = p32((2, 3, 3, 4)), p32((4,))


@pytest.mark.parametrize(
    ("inputs", "options", "error", "fragment"),
    [
        ([p32((2, 3, 4)), V4, V4, V4, V4], {}, ValueError,
         "x must be 4-dimensional in the NHWC layout, got shape [2, 3, 4]"),
        ([X4, V4, V4, V4, V4], {"dataFormat": "NDHWC"}, ValueError,
         "x must be 5-dimensional in the NDHWC layout"),
        ([X4, V4, V4, V4, V4], {"dataFormat": "HWNC"}, ValueError,
         "data_format must be one of NHWC, NCHW, NDHWC, NCDHW, got 'HWNC'"),
        ([X4, p32((3,)), V4, V4, V4], {}, ValueError,
         "scale must have the same number of elements as the channels of x, got 3 and 4"),
        ([X4, V4, p32((2, 2)), V4, V4], {}, ValueError, "offset must be a vector"),
        ([X4, V4, V4, p32((0,)), V4], {"isTraining": False}, ValueError,
         "mean must have the same number of elements as the channels of x, got 0 and 4"),
        ([X4, V4, V4, V4, p32((3,))], {"exponentialAvgFactor": 0.5}, ValueError,
         "variance must have the same number of elements"),
        ([p32((2, 3, 3, 4)), p32((3,)), V4, V4, V4], {"dataFormat": "NCHW"}, ValueError,
         "offset must have the same number of elements as the channels of x, got 4 and 3"),
        ([typed(TFloat64, (2, 3, 3, 4)), V4, V4, V4, V4], {}, TypeError,
         "data type float64 is not allowed"),
        ([X4, typed(TFloat16, (4,)), V4, V4, V4], {}, TypeError,
         "input 'offset' has data type float32 (from 'Placeholder_2:0') but U is float16"),
        ([X4] + [typed(TFloat16, (4,))] * 4, {}, TypeError, "data type float16 is not allowed"),
    ],
)
def test_batchNormRejects(
    graph: Graph, tf: Ops, inputs: Any, options: Any, error: type[Exception], fragment: str
) -> None:
    operands = [make(tf) for make in inputs]
    assertRejected(graph, lambda: tf.nn.fusedBatchNorm(*operands, **options), error,
                   f"FusedBatchNormV3 'FusedBatchNormV3' ({HERE}", fragment)


@pytest.mark.parametrize(
    ("inputs", "error", "fragment"),
    [
        ([X4, p32((2, 3, 3, 5)), V4, V4, V4, p32((0,))], ValueError,
         "x and y_backprop must have the same shape"),
        ([X4, X4, V4, p32((5,)), V4, p32((0,))], ValueError,
         "reserve_space_1 must have the same number of elements as the channels of x, got 5 "
         "and 4"),
        ([p32((3, 4)), p32((3, 4)), V4, V4, V4, p32((0,))], ValueError,
         "y_backprop must be 4-dimensional"),
        ([X4, X4, typed(TFloat16, (4,)), V4, V4, p32((0,))], TypeError,
         "input 'scale' must be float32, got float16"),
    ],
)
def test_batchNormGradRejects(
    graph: Graph, tf: Ops, inputs: Any, error: type[Exception], fragment: str
) -> None:
    operands = [make(tf) for make in inputs]
    assertRejected(graph, lambda: tf.nn.fusedBatchNormGrad(*operands), error,
                   f"FusedBatchNormGradV3 'FusedBatchNormGradV3' ({HERE}", fragment)


def test_batchNormFedShapesAreCheckedAtRunTime(tf: Ops, run: Any) -> None:
    x, v = tf.placeholder(TFloat32), tf.placeholder(TFloat32)
    bn = tf.nn.fusedBatchNorm(x, v, v, v, v, isTraining=False)
    with pytest.raises(InvalidArgumentError) as info:
        run(bn.y(), feeds={x: np.ones((1, 2, 2, 3), np.float32), v: np.ones(2, np.float32)})
    assert info.value.op == bn.op()
    assert "scale must have the same number of elements as the channels of x" in str(info.value)
    with pytest.raises(InvalidArgumentError) as info:
        run(bn.y(), feeds={x: np.ones((2, 3, 1), np.float32), v: np.ones(1, np.float32)})
    assert "x must be 4-dimensional in the NHWC layout, got shape [2, 3, 1]" in str(info.value)
    assert f"of type FusedBatchNormV3, {HERE}" in str(info.value)


# -- LRN -----------------------------------------------------------------------------------
LRN_OPTIONS = {"depth_radius": "depthRadius", "bias": "bias", "alpha": "alpha", "beta": "beta"}


def lrnReference(x: Any, radius: int, bias: float, alpha: float, beta: float) -> Any:
    depth = x.shape[-1]
    sqrSum = np.zeros_like(x)
    for d in range(depth):
        sqrSum[..., d] = np.sum(np.square(x[..., max(0, d - radius):d + radius + 1]), axis=-1)
    f32 = [np.float64(np.float32(v)) for v in (bias, alpha, beta)]
    return x / (f32[0] + f32[1] * sqrSum) ** f32[2]


@pytest.mark.parametrize(
    ("shape", "expected"),
    [(Shape.of(2, 3, 4, 5), Shape.of(2, 3, 4, 5)), (Shape.of(-1, 3, -1, 5), Shape.of(-1, 3, -1, 5)),
     (Shape.unknown(), Shape.unknown())],
    ids=str,
)
def test_lrnShapes(tf: Ops, shape: Shape, expected: Shape) -> None:
    for dtype in (TFloat16, TFloat32):
        x = placeholder(tf, dtype, shape)
        y = tf.nn.localResponseNormalization(x)
        assert y.asOutput().shape() == expected
        assert y.asOutput().dataType() is dtype
        d = tf.nn.localResponseNormalizationGrad(y, x, y)
        assert d.asOutput().shape() == expected
        assert d.asOutput().dataType() is dtype


def test_lrnGradShapeIsWhatAnyInputKnows(tf: Ops) -> None:
    d = tf.nn.localResponseNormalizationGrad(placeholder(tf, TFloat32, (-1, 3, 4, -1)),
                                             placeholder(tf, TFloat32, (2, -1, 4, -1)),
                                             placeholder(tf, TFloat32, None))
    assert d.asOutput().shape() == Shape.of(2, 3, 4, -1)


def test_lrnOptionsAndDefaults(tf: Ops) -> None:
    x = placeholder(tf, TFloat32, (1, 1, 1, 3))
    op = tf.nn.localResponseNormalization(x).op()
    assert (op.attr("depth_radius"), op.attr("bias"), op.attr("alpha"), op.attr("beta")) == (
        5, 1.0, 1.0, 0.5)
    op = tf.nn.localResponseNormalization(x, depthRadius=2, bias=0.5, alpha=3.0,
                                          beta=0.75).op()
    assert (op.attr("depth_radius"), op.attr("bias"), op.attr("alpha"), op.attr("beta")) == (
        2, 0.5, 3.0, 0.75)


@pytest.mark.parametrize("case", cases("lrn"))
def test_lrnIsTensorFlows(tf: Ops, run: Any, case: str) -> None:
    """The output, and the gradient of sum(output * w) through LRNGrad. Half precision is
    computed in single precision and rounded once (TensorFlow's half kernel rounds along the
    way: they differ by about one half precision step)."""
    p, attrs = fixture("lrn", case)
    x = tf.constant(p("x"))
    y = tf.nn.localResponseNormalization(x, **{LRN_OPTIONS[k]: v for k, v in attrs.items()})
    loss = tf.sum(tf.math.mul(tf.dtypes.cast(y, TFloat32),
                              tf.constant(p("w").astype(np.float32))), [0, 1, 2, 3])
    dx = tf.gradients(loss, [x]).dy(0)
    assert dx is not None and dx.op().type() == "LRNGrad"
    got, gotDx = run(y, dx)
    close(got, p("y"))
    close(gotDx, p("dx"))


@pytest.mark.parametrize(
    ("radius", "bias", "alpha", "beta"),
    [(5, 1.0, 1.0, 0.5), (1, 2.0, 0.3, 0.75), (0, 0.5, 1.5, 1.0), (9, 1.0, 0.1, 0.3)],
    ids=str,
)
def test_lrnMatchesFloat64Reference(
    tf: Ops, run: Any, radius: int, bias: float, alpha: float, beta: float
) -> None:
    x = np.random.default_rng(7).normal(size=(2, 2, 3, 6))
    y = tf.nn.localResponseNormalization(tf.constant(x.astype(np.float32)), depthRadius=radius,
                                         bias=bias, alpha=alpha, beta=beta)
    assertNear(run(y), lrnReference(x, radius, bias, alpha, beta), 1e-6)


@pytest.mark.parametrize(
    ("radius", "bias", "alpha", "beta"),
    [(5, 1.0, 1.0, 0.5), (1, 2.0, 0.3, 0.75), (0, 0.5, 1.5, 1.0)],
    ids=str,
)
def test_lrnGradientMatchesFiniteDifferences(
    tf: Ops, run: Any, radius: int, bias: float, alpha: float, beta: float
) -> None:
    rng = np.random.default_rng(8)
    x, w = rng.normal(size=(1, 2, 2, 5)), rng.normal(size=(1, 2, 2, 5))
    (expected,) = numericalGradients(
        lambda x: float(np.sum(lrnReference(x, radius, bias, alpha, beta) * w)), [x])
    xt = tf.constant(x.astype(np.float32))
    y = tf.nn.localResponseNormalization(xt, depthRadius=radius, bias=bias, alpha=alpha,
                                         beta=beta)
    dx = tf.gradients(tf.sum(tf.math.mul(y, tf.constant(w.astype(np.float32))), [0, 1, 2, 3]),
                      [xt]).dy(0)
    assert dx is not None
    assertNear(run(dx), expected)


def test_lrnGradIsNotDifferentiable(tf: Ops) -> None:
    """TensorFlow registers no gradient for LRNGrad: nothing flows through it here."""
    x = placeholder(tf, TFloat32, (1, 1, 1, 3))
    y = tf.nn.localResponseNormalization(x)
    d = tf.nn.localResponseNormalizationGrad(tf.onesLike(y), x, y)
    assert tf.gradients(d, [x]).dy(0) is None


def test_lrnOfAnEmptyTensor(tf: Ops, run: Any) -> None:
    x = tf.constant(np.zeros((0, 2, 2, 3), np.float32))
    y = tf.nn.localResponseNormalization(x)
    got, d = run(y, tf.nn.localResponseNormalizationGrad(x, x, y))
    assert got.shape == d.shape == (0, 2, 2, 3)


@pytest.mark.parametrize(
    ("name", "inputs", "options", "error", "fragment"),
    [
        ("LRN", [p32((2, 3))], {}, ValueError, "input must be 4-dimensional, got shape [2, 3]"),
        ("LRN", [p32((1, 2, 2, 3))], {"depthRadius": -1}, ValueError,
         "depth_radius must be in [0, 2**31), got -1"),
        ("LRN", [typed(TFloat64, (1, 2, 2, 3))], {}, TypeError,
         "data type float64 is not allowed"),
        ("LRNGrad", [p32((1, 2, 2, 3)), p32((1, 2, 2, 3)), p32((2, 3))], {}, ValueError,
         "output_image must be 4-dimensional, got shape [2, 3]"),
        ("LRNGrad", [p32((1, 2, 2, 3)), p32((1, 2, 2, 3)), p32((1, 2, 2, 4))], {}, ValueError,
         "input_grads, input_image and output_image must have the same shape, got [1, 2, 2, 3], "
         "[1, 2, 2, 3], [1, 2, 2, 4]"),
        ("LRNGrad", [p32((1, 2, 2, 3)), p32((1, 2, 2, 3)), typed(TFloat16, (1, 2, 2, 3))], {},
         TypeError, "input 'output_image' has data type float16"),
    ],
)
def test_lrnRejects(
    graph: Graph, tf: Ops, name: str, inputs: Any, options: Any, error: type[Exception],
    fragment: str,
) -> None:
    operands = [make(tf) for make in inputs]
    method = (tf.nn.localResponseNormalization if name == "LRN" else
              tf.nn.localResponseNormalizationGrad)
    assertRejected(graph, lambda: method(*operands, **options), error,
                   f"{name} '{name}' ({HERE}", fragment)


def test_lrnFedShapesAreCheckedAtRunTime(tf: Ops, run: Any) -> None:
    x = tf.placeholder(TFloat32)
    y = tf.nn.localResponseNormalization(x)
    with pytest.raises(InvalidArgumentError) as info:
        run(y, feeds={x: np.ones((2, 3), np.float32)})
    assert info.value.op == y.op()
    assert "input must be 4-dimensional, got shape [2, 3]" in str(info.value)
    assert f"of type LRN, {HERE}" in str(info.value)
