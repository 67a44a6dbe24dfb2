"""MaxPool (op MaxPoolV2), AvgPool and their gradient ops MaxPoolGrad (MaxPoolGradV2),
MaxPoolGradGrad (MaxPoolGradGradV2) and AvgPoolGrad.

The numbers are TensorFlow's: the ``pool_*`` cases of ``tests/fixtures/tf/conv.npz`` (written by
``make_conv.py``) cover layouts, paddings, overlapping windows, ties, NaN and -inf; each case
runs on both backends. The gradients are checked against finite differences.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import assertGradient, assertMatches, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.nn import AvgPool, MaxPool
from tfops.types import TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

HERE = f"created at {__file__}:"
FIXTURES = np.load(Path(__file__).parents[1] / "fixtures" / "tf" / "conv.npz")
CASES = sorted({key.split("/")[0] for key in FIXTURES.files if key.startswith("pool_")})
K2 = [1, 2, 2, 1]


def case(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    attrs = json.loads(str(FIXTURES[f"{name}/attrs"]))
    keys = ("x", "y", "g", "gg", "dx", "ddy", "finite", "avg", "davg")
    return attrs, {k: FIXTURES[f"{name}/{k}"] for k in keys}


def ints(tf: Ops, values: Any) -> Any:
    return tf.constant(np.array(values, np.int32))


def maxPool(tf: Ops, x: Any, ksize: Any = K2, strides: Any = K2, padding: str = "VALID",
            **kw: Any) -> Any:
    return tf.nn.maxPool(x, ints(tf, ksize), ints(tf, strides), padding, **kw)


def sample(shape: Any, seed: int) -> Any:
    return np.random.default_rng(seed).normal(size=shape)


# -- construction --------------------------------------------------------------------------
def test_classesOptionsAndAttributes(tf: Ops) -> None:
    x = tf.constant(np.ones((1, 4, 4, 2), np.float32))
    y = maxPool(tf, x)
    assert (y.op().type(), y.op().name(), type(y).__name__, y.op().attr("data_format")) == (
        "MaxPoolV2", "MaxPool", "MaxPool", "NHWC")
    z = tf.nn.maxPool(x, ints(tf, K2), ints(tf, K2), "SAME", MaxPool.dataFormat("NHWC"))
    assert z.output().shape() == Shape.of(1, 2, 2, 2) and z.output().dataType() is TFloat32
    a = tf.nn.avgPool(x, [1, 3, 3, 1], [1, 1, 2, 1], "SAME", AvgPool.dataFormat("NHWC"))
    assert (a.op().type(), list(a.op().attr("ksize")), a.op().attr("padding")) == (
        "AvgPool", [1, 3, 3, 1], "SAME")
    assert a.output().shape() == Shape.of(1, 4, 2, 2)
    g = tf.nn.maxPoolGrad(x, y, y, ints(tf, K2), ints(tf, K2), "VALID")
    assert (g.op().type(), type(g).__name__) == ("MaxPoolGradV2", "MaxPoolGrad")
    gg = tf.nn.maxPoolGradGrad(x, y, x, ints(tf, K2), ints(tf, K2), "VALID")
    assert (gg.op().type(), type(gg).__name__) == ("MaxPoolGradGradV2", "MaxPoolGradGrad")
    assert g.output().shape() == Shape.of(1, 4, 4, 2) and gg.output().shape() == Shape.of(
        1, 2, 2, 2)


@pytest.mark.parametrize(
    ("x", "ksize", "strides", "padding", "fmt", "expected"),
    [
        ((2, 5, 7, 3), [1, 3, 3, 1], [1, 2, 2, 1], "SAME", "NHWC", (2, 3, 4, 3)),
        ((2, 5, 7, 3), [1, 3, 3, 1], [1, 2, 2, 1], "VALID", "NHWC", (2, 2, 3, 3)),
        ((2, 3, 5, 7), [1, 1, 3, 3], [1, 1, 2, 2], "VALID", "NCHW", (2, 3, 2, 3)),
        ((-1, 5, -1, 3), [1, 2, 2, 1], [1, 2, 2, 1], "VALID", "NHWC", (-1, 2, -1, 3)),
        (None, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", "NHWC", (-1, -1, -1, -1)),
        ((1, 2, 3, 1), [1, 4, 4, 1], [1, 1, 1, 1], "SAME", "NHWC", (1, 2, 3, 1)),
    ],
    ids=str,
)
def test_staticShape(tf: Ops, x: Any, ksize: Any, strides: Any, padding: str, fmt: str,
                     expected: Any) -> None:
    value = placeholder(tf, TFloat32, x)
    assert maxPool(tf, value, ksize, strides, padding, dataFormat=fmt).output().shape() == \
        Shape.of(*expected)
    assert tf.nn.avgPool(value, ksize, strides, padding, dataFormat=fmt).output().shape() == \
        Shape.of(*expected)


def test_fedWindowsGiveUnknownSpatialSizes(tf: Ops) -> None:
    k = tf.placeholder(TInt32)
    y = tf.nn.maxPool(placeholder(tf, TFloat32, (2, 5, 5, 3)), k, k, "VALID")
    assert y.output().shape() == Shape.of(2, -1, -1, 3)
    d = tf.nn.avgPoolGrad(tf.placeholder(TInt32), placeholder(tf, TFloat32, (2, 2, 2, 3)), K2,
                          K2, "VALID")
    assert d.output().shape() == Shape.of(-1, -1, -1, -1)
    d = tf.nn.avgPoolGrad(ints(tf, [2, 5, 4, 3]), placeholder(tf, TFloat32, (2, 2, 2, 3)), K2,
                          K2, "VALID")
    assert d.output().shape() == Shape.of(2, 5, 4, 3)


# -- kernels against TensorFlow --------------------------------------------------------------
@pytest.mark.parametrize("name", CASES)
def test_kernelsMatchTensorFlow(tf: Ops, run: Any, name: str) -> None:
    attrs, a = case(name)
    k, s, p, kw = attrs["ksize"], attrs["strides"], attrs["padding"], {
        "dataFormat": attrs["data_format"]}
    x = tf.constant(a["x"])
    y = maxPool(tf, x, k, s, p, **kw)
    dx = tf.nn.maxPoolGrad(x, y, tf.constant(a["g"]), ints(tf, k), ints(tf, s), p, **kw)
    ddy = tf.nn.maxPoolGradGrad(x, y, tf.constant(a["gg"]), ints(tf, k), ints(tf, s), p, **kw)
    avg = tf.nn.avgPool(tf.constant(a["finite"]), k, s, p, **kw)
    davg = tf.nn.avgPoolGrad(ints(tf, a["x"].shape), tf.constant(a["g"]), k, s, p, **kw)
    got = run(y, dx, ddy, avg, davg)
    for value, key in zip(got, ("y", "dx", "ddy", "avg", "davg"), strict=True):
        # the maxima are exact; the gradients and means are sums of a few float32 values
        np.testing.assert_allclose(value, a[key], rtol=1e-6, atol=1e-6, strict=True)


@pytest.mark.parametrize("name", ["pool_same_stride2", "pool_nchw"])
def test_kernelsOfFedShapesAndWindowsMatchTensorFlow(tf: Ops, run: Any, name: str) -> None:
    attrs, a = case(name)
    k, s, p, kw = attrs["ksize"], attrs["strides"], attrs["padding"], {
        "dataFormat": attrs["data_format"]}
    x, g, gg = (tf.placeholder(TFloat32) for _ in range(3))
    ks, ss = tf.placeholder(TInt32), tf.placeholder(TInt32)
    y = tf.nn.maxPool(x, ks, ss, p, **kw)
    dx = tf.nn.maxPoolGrad(x, y, g, ks, ss, p, **kw)
    ddy = tf.nn.maxPoolGradGrad(x, y, gg, ks, ss, p, **kw)
    davg = tf.nn.avgPoolGrad(tf.shape(x), g, k, s, p, **kw)
    got = run(y, dx, ddy, davg, feeds={x: a["x"], g: a["g"], gg: a["gg"],
                                       ks: np.array(k, np.int32), ss: np.array(s, np.int32)})
    for value, key in zip(got, ("y", "dx", "ddy", "davg"), strict=True):
        np.testing.assert_allclose(value, a[key], rtol=1e-6, atol=1e-6, strict=True)


@pytest.mark.parametrize("dtype", [TInt32, TInt64, TUint8, TFloat16, TFloat64],
                         ids=lambda t: t.NAME)
def test_maxPoolOfOtherTypes(tf: Ops, run: Any, dtype: type[TType]) -> None:
    x = np.array([[3, 1, 0, 2], [7, 2, 2, 2], [0, 0, 5, 5], [1, 0, 5, 4]]).reshape(1, 4, 4, 1)
    value = tf.constant(x.astype(dtype.DTYPE))
    y = maxPool(tf, value)
    g = tf.nn.maxPoolGrad(value, y, tf.constant(np.full((1, 2, 2, 1), 2, dtype.DTYPE)),
                          ints(tf, K2), ints(tf, K2), "VALID")
    pooled, grad = run(y, g)
    assertMatches(pooled, [[[[7], [2]], [[1], [5]]]], dtype)
    # ties go to the first maximum in row-major order
    assertMatches(grad[0, :, :, 0], [[0, 0, 0, 2], [2, 0, 0, 0], [0, 0, 2, 0], [2, 0, 0, 0]],
                  dtype)


def test_lowestValueAndNan(tf: Ops, run: Any) -> None:
    x = np.array([np.nan, -np.inf, np.nan, np.nan, 1.0, np.nan]).reshape(1, 1, 6, 1)
    y = maxPool(tf, tf.constant(x), [1, 1, 2, 1], [1, 1, 2, 1])
    assert run(y).ravel().tolist() == [np.finfo(np.float64).min, np.finfo(np.float64).min, 1.0]


def test_avgPoolOfHalfPrecisionSumsInSinglePrecision(tf: Ops, run: Any) -> None:
    # 2048 + 1 + 1 + 0 in float16 one at a time stays 2048 (mean 512); in float32, 2050
    x = tf.constant(np.array([2048.0, 1.0, 1.0, 0.0], np.float16).reshape(1, 2, 2, 1))
    assert run(tf.nn.avgPool(x, K2, K2, "VALID")).tolist() == [[[[512.5]]]]


def test_kernelsOfEmptyTensors(tf: Ops, run: Any) -> None:
    x = tf.constant(np.ones((0, 4, 4, 2), np.float32))
    y = maxPool(tf, x)
    got = run(y, tf.nn.avgPool(x, K2, K2, "VALID"),
              tf.nn.maxPoolGrad(x, y, y, ints(tf, K2), ints(tf, K2), "VALID"),
              tf.nn.avgPoolGrad(ints(tf, [0, 4, 4, 2]), y, K2, K2, "VALID"))
    for value, shape in zip(got, [(0, 2, 2, 2)] * 2 + [(0, 4, 4, 2)] * 2, strict=True):
        assert value.shape == shape and value.dtype == np.float32


# -- gradients -------------------------------------------------------------------------------
GRADIENT_CASES = [
    pytest.param((1, 5, 4, 2), [1, 3, 3, 1], [1, 2, 2, 1], "SAME", "NHWC", id="same"),
    pytest.param((2, 2, 5, 5), [1, 1, 2, 3], [1, 1, 1, 2], "VALID", "NCHW", id="nchw"),
]


@pytest.mark.parametrize(("x", "k", "s", "p", "fmt"), GRADIENT_CASES)
def test_gradientsMatchFiniteDifferences(tf: Ops, x: Any, k: Any, s: Any, p: str,
                                         fmt: str) -> None:
    value = sample(x, 0)  # distinct values: no ties within a finite difference step
    assertGradient(tf, lambda a: maxPool(tf, a, k, s, p, dataFormat=fmt), [value])
    assertGradient(tf, lambda a: tf.nn.avgPool(a, k, s, p, dataFormat=fmt), [value])
    y = maxPool(tf, tf.constant(value), k, s, p, dataFormat=fmt)
    pooled = y.output().shape().asArray()
    assertGradient(tf, lambda g: tf.nn.avgPoolGrad(ints(tf, x), g, k, s, p, dataFormat=fmt),
                   [sample(pooled, 1)])
    # MaxPoolGrad is linear in its gradient (MaxPoolGradGrad); constant in the pooled tensors
    xs = tf.constant(value)
    assertGradient(tf, lambda g: tf.nn.maxPoolGrad(xs, y, g, ints(tf, k), ints(tf, s), p,
                                                   dataFormat=fmt), [sample(pooled, 1)])
    assertGradient(tf, lambda a, g: tf.nn.maxPoolGrad(
        a, maxPool(tf, a, k, s, p, dataFormat=fmt), g, ints(tf, k), ints(tf, s), p,
        dataFormat=fmt), [value, sample(pooled, 1)])


def test_gradientOpsAreTensorFlows(tf: Ops) -> None:
    x = tf.constant(sample((1, 4, 4, 1), 0))
    y = maxPool(tf, x)
    dx = tf.gradients(y, [x]).dy(0)
    assert dx is not None and dx.op().type() == "MaxPoolGradV2"
    g = tf.constant(np.ones((1, 2, 2, 1)))
    grad = tf.nn.maxPoolGrad(x, y, g, ints(tf, K2), ints(tf, K2), "VALID")
    dg = tf.gradients(grad, [g]).dy(0)
    assert dg is not None and dg.op().type() == "MaxPoolGradGradV2"
    a = tf.gradients(tf.nn.avgPool(x, K2, K2, "VALID"), [x]).dy(0)
    assert a is not None and a.op().type() == "AvgPoolGrad"


def test_maxPoolGradGradHasNoGradient(graph: Graph, tf: Ops) -> None:
    x, g = tf.constant(sample((1, 4, 4, 1), 0)), tf.constant(sample((1, 4, 4, 1), 1))
    y = maxPool(tf, x)
    gg = tf.nn.maxPoolGradGrad(x, y, g, ints(tf, K2), ints(tf, K2), "VALID")
    assert tf.gradients(gg, [g]).dy(0) is None


# -- bad inputs ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("x", "k", "s", "p", "kw", "fragment"),
    [
        ((1, 4, 4), K2, K2, "VALID", {}, "must be 4-dimensional, got shape [1, 4, 4]"),
        ((1, 4, 4, 1), [1, 2, 2], K2, "VALID", {},
         ("ksize must be a vector of 4 values", "requires the ksize attribute to contain 4")),
        ((1, 4, 4, 2), [1, 1, 1, 2], K2, "VALID", {}, "pooling over the batch or depth"),
        ((1, 4, 4, 1), [1, 0, 2, 1], K2, "VALID", {}, "Sliding window ksize must be positive"),
        ((1, 4, 4, 1), K2, [1, 0, 1, 1], "VALID", {}, "Sliding window stride must be positive"),
        ((1, 4, 4, 1), K2, K2, "EXPLICIT", {}, "padding 'EXPLICIT' is not supported"),
        ((1, 4, 4, 1), [1, 5, 1, 1], K2, "VALID", {}, "the window's height 5"),
        ((1, 4, 4, 1), K2, K2, "VALID", {"dataFormat": "NCHW_VECT_C"},
         "data_format 'NCHW_VECT_C' is not supported"),
    ],
    ids=["rank", "ksizeLength", "depth", "zeroWindow", "zeroStride", "explicit", "window",
         "format"],
)
def test_badInputsAreRejected(graph: Graph, tf: Ops, x: Any, k: Any, s: Any, p: str, kw: Any,
                              fragment: str | tuple[str, str]) -> None:
    value, ks, ss = placeholder(tf, TFloat32, x), ints(tf, k), ints(tf, s)
    ofMax, ofAvg = fragment if isinstance(fragment, tuple) else (fragment, fragment)
    assertRejected(graph, lambda: tf.nn.maxPool(value, ks, ss, p, **kw), ValueError,
                   f"MaxPoolV2 'MaxPool' ({HERE}", ofMax)
    assertRejected(graph, lambda: tf.nn.avgPool(value, k, s, p, **kw), ValueError,
                   f"AvgPool 'AvgPool' ({HERE}", ofAvg)


def test_badGradientShapesAreRejected(graph: Graph, tf: Ops) -> None:
    x, k = placeholder(tf, TFloat32, (1, 4, 4, 1)), ints(tf, K2)
    wrong = placeholder(tf, TFloat32, (1, 3, 2, 1))
    right = placeholder(tf, TFloat32, (1, 2, 2, 1))
    assertRejected(graph, lambda: tf.nn.maxPoolGrad(x, wrong, right, k, k, "VALID"), ValueError,
                   "MaxPoolGradV2", "orig_output has shape [1, 3, 2, 1], but pooling the input "
                   "gives [1, 2, 2, 1]")
    assertRejected(graph, lambda: tf.nn.maxPoolGrad(x, right, wrong, k, k, "VALID"), ValueError,
                   "MaxPoolGradV2", "grad has shape [1, 3, 2, 1]")
    assertRejected(graph, lambda: tf.nn.maxPoolGradGrad(x, right, right, k, k, "VALID"),
                   ValueError, "MaxPoolGradGradV2", "grad has shape [1, 2, 2, 1], but pooling "
                   "the input gives [1, 4, 4, 1]")
    sizes = ints(tf, [1, 4, 4, 1])
    assertRejected(graph, lambda: tf.nn.avgPoolGrad(sizes, wrong, K2, K2, "VALID"), ValueError,
                   "AvgPoolGrad", "grad has shape [1, 3, 2, 1]")
    vector3 = ints(tf, [1, 2, 2])
    assertRejected(graph, lambda: tf.nn.maxPool(x, vector3, k, "VALID"), ValueError,
                   "MaxPoolV2", "ksize must be a vector of 4 values")
    half = placeholder(tf, TFloat16, (1, 2, 2, 1))
    assertRejected(graph, lambda: tf.nn.maxPoolGrad(x, half, half, k, k, "VALID"), TypeError,
                   "MaxPoolGradV2")


def test_badRunTimeValuesRaiseInvalidArgumentError(tf: Ops, run: Any) -> None:
    x, ks, ss = tf.placeholder(TFloat32), tf.placeholder(TInt32), tf.placeholder(TInt32)
    y = tf.nn.maxPool(x, ks, ss, "VALID")
    image = np.ones((1, 4, 4, 1), np.float32)
    for k, s, fragment in (([1, 2, 2, 2], K2, "pooling over the batch or depth"),
                           ([1, 2, 2], K2, "ksize must be a vector of 4 values"),
                           ([1, 7, 7, 1], [1, 1, 1, 1], "Computed output size would be negative")):
        with pytest.raises(InvalidArgumentError, match="MaxPoolV2") as info:
            run(y, feeds={x: image, ks: np.array(k, np.int32), ss: np.array(s, np.int32)})
        assert fragment in str(info.value)
    # as TensorFlow's kernel: a window overhanging by less than a stride gives no output
    overhang = run(y, feeds={x: image, ks: np.array([1, 7, 7, 1], np.int32),
                             ss: np.array([1, 7, 7, 1], np.int32)})
    assert overhang.shape == (1, 0, 0, 1)
    g = tf.placeholder(TFloat32)
    d = tf.nn.avgPoolGrad(tf.shape(x), g, K2, K2, "VALID")
    with pytest.raises(InvalidArgumentError, match="grad has shape"):
        run(d, feeds={x: image, g: np.ones((1, 3, 3, 1), np.float32)})


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, np.int32, np.uint8],
                         ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_maxPoolOfWindowsThatTileTheInputGivesTheGeneralPathsNumbers(
    dtype: Any, padding: str
) -> None:
    """Windows that tile the input (LeNet's 2x2 by 2) are read in place, not copied: the maxima
    (ties, -inf raised to the lowest value) and the gradient's first maximum are the same."""
    from tfops.backend.numpy.kernels import nn_pool
    from tfops.spec.nn_window import poolSizes

    rng = np.random.default_rng(7)
    for k, (oh, ow) in [(2, (2, 3)), (3, (1, 2)), (1, (2, 2))]:
        low = 0 if dtype == np.uint8 else -3
        x = rng.integers(low, 3, (2, oh * k, ow * k, 2)).astype(dtype)
        if np.dtype(dtype).kind == "f":
            x[x == -3] = -np.inf
        window, sizes = poolSizes("MaxPoolV2", [1, k, k, 1], [1, k, k, 1], padding, "NHWC",
                                  x.shape)
        assert nn_pool._tiles(x, window, sizes) is not None
        g = rng.standard_normal((2, sizes.outH, sizes.outW, 2)).astype(np.float32)
        fast = (nn_pool._maxPool(x, window, sizes), nn_pool._maxPoolGrad(x, g, window, sizes))
        general = _generalPath(nn_pool, x, g, window, sizes)
        for a, b in zip(fast, general, strict=True):
            np.testing.assert_array_equal(a, b, strict=True)


def _generalPath(module: Any, x: Any, g: Any, window: Any, sizes: Any) -> tuple[Any, Any]:
    tiles = module._tiles
    module._tiles = lambda *args: None
    try:
        return module._maxPool(x, window, sizes), module._maxPoolGrad(x, g, window, sizes)
    finally:
        module._tiles = tiles
