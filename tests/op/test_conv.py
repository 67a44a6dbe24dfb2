"""Conv2D and its gradient ops, Conv2DBackpropInput and Conv2DBackpropFilter.

The numbers are TensorFlow's: ``tests/fixtures/tf/conv.npz`` (written by ``make_conv.py``) holds
TensorFlow's results for layouts, strides, dilations, paddings and groups, and each case is run
on both backends. The gradients are checked against finite differences, the gradient ops'
own gradients included.
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
from tfops.op.nn import Conv2d
from tfops.types import TFloat16, TFloat32, TFloat64, TInt32

HERE = f"created at {__file__}:"
FIXTURES = np.load(Path(__file__).parents[1] / "fixtures" / "tf" / "conv.npz")
CASES = sorted({key.split("/")[0] for key in FIXTURES.files
                if key.endswith("/f") and not key.startswith("dw_")})
ONES = [1, 1, 1, 1]


def case(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A fixture case: its attributes and its arrays."""
    attrs = json.loads(str(FIXTURES[f"{name}/attrs"]))
    arrays = {k: FIXTURES[f"{name}/{k}"] for k in ("x", "f", "dy", "y", "dx", "df")}
    return attrs, arrays


def options(attrs: dict[str, Any]) -> dict[str, Any]:
    return {"explicitPaddings": attrs["explicit_paddings"], "dataFormat": attrs["data_format"],
            "dilations": attrs["dilations"]}


def conv(tf: Ops, x: Any, f: Any, strides: Any = ONES, padding: str = "VALID",
         **kw: Any) -> Any:
    return tf.nn.conv2d(x, f, strides, padding, **kw)


def sizes(tf: Ops, dims: Any) -> Any:
    return tf.constant(np.array(dims, np.int32))


def sample(shape: Any, seed: int) -> Any:
    return np.random.default_rng(seed).normal(size=shape)


# -- construction --------------------------------------------------------------------------
def test_optionsSetTheAttributesAndHaveTensorFlowsDefaults(tf: Ops) -> None:
    x, f = tf.constant(np.ones((1, 4, 4, 2))), tf.constant(np.ones((2, 2, 2, 3)))
    y = conv(tf, x, f)
    op = y.op()
    assert (op.type(), op.name()) == ("Conv2D", "Conv2d")  # TF Java's default name
    assert (op.attr("use_cudnn_on_gpu"), op.attr("data_format")) == (True, "NHWC")
    assert (list(op.attr("dilations")), list(op.attr("explicit_paddings"))) == (ONES, [])
    z = conv(tf, tf.constant(np.ones((1, 2, 6, 6))), f, [1, 1, 1, 2], "EXPLICIT",
             dataFormat="NCHW", dilations=[1, 1, 2, 1], useCudnnOnGpu=False,
             explicitPaddings=[0, 0, 0, 0, 1, 1, 0, 0])
    assert z.op().attr("data_format") == "NCHW" and z.op().attr("use_cudnn_on_gpu") is False
    assert z.output().shape() == Shape.of(1, 3, 6, 3)
    w = tf.nn.conv2d(x, f, ONES, "SAME", Conv2d.dataFormat("NHWC"), Conv2d.dilations([1, 2, 2, 1]))
    assert w.output().shape() == Shape.of(1, 4, 4, 3) and w.output().dataType() is TFloat64


@pytest.mark.parametrize(
    ("x", "f", "strides", "padding", "kw", "expected"),
    [
        ((2, 5, 6, 3), (3, 2, 3, 4), ONES, "VALID", {}, (2, 3, 5, 4)),
        ((2, 7, 6, 3), (3, 3, 3, 2), [1, 2, 2, 1], "SAME", {}, (2, 4, 3, 2)),
        ((2, 3, 7, 6), (3, 3, 3, 2), [1, 1, 2, 2], "SAME", {"dataFormat": "NCHW"}, (2, 2, 4, 3)),
        ((1, 7, 7, 2), (3, 3, 2, 2), ONES, "VALID", {"dilations": [1, 2, 3, 1]}, (1, 3, 1, 2)),
        ((1, 5, 5, 1), (3, 3, 1, 1), ONES, "EXPLICIT",
         {"explicitPaddings": [0, 0, 1, 2, 0, 1, 0, 0]}, (1, 6, 4, 1)),
        ((2, 5, 5, 4), (3, 3, 2, 6), ONES, "VALID", {}, (2, 3, 3, 6)),  # two groups
        ((-1, 5, -1, 3), (3, 3, 3, 2), ONES, "VALID", {}, (-1, 3, -1, 2)),
        ((2, 5, 5, -1), (3, 3, 3, 2), ONES, "VALID", {}, (2, 3, 3, 2)),
        ((2, 5, 5, 3), (-1, 3, 3, 2), ONES, "SAME", {}, (2, 5, 5, 2)),  # SAME: sizes without k
        ((2, 5, 5, 3), (-1, 3, 3, 2), ONES, "VALID", {}, (2, -1, 3, 2)),
        (None, (3, 3, 3, 2), ONES, "VALID", {}, (-1, -1, -1, 2)),
    ],
    ids=str,
)
def test_staticShape(tf: Ops, x: Any, f: Any, strides: Any, padding: str, kw: Any,
                     expected: Any) -> None:
    y = conv(tf, placeholder(tf, TFloat32, x), placeholder(tf, TFloat32, f), strides, padding,
             **kw)
    assert y.output().shape() == Shape.of(*expected)


def test_backpropShapesComeFromTheSizes(tf: Ops) -> None:
    f, dy = placeholder(tf, TFloat32, (3, 3, 2, 4)), placeholder(tf, TFloat32, (2, 4, 3, 4))
    dx = tf.nn.conv2dBackpropInput(sizes(tf, [2, 7, 6, 2]), f, dy, [1, 2, 2, 1], "SAME")
    assert dx.output().shape() == Shape.of(2, 7, 6, 2)
    spatial = tf.nn.conv2dBackpropInput(sizes(tf, [7, 6]), f, dy, [1, 2, 2, 1], "SAME")
    assert spatial.output().shape() == Shape.of(2, 7, 6, 2)  # batch of dy, depth of f
    x = placeholder(tf, TFloat32, (2, 7, 6, 2))
    assert tf.nn.conv2dBackpropInput(tf.shape(x), f, dy, [1, 2, 2, 1], "SAME").output() \
        .shape() == Shape.of(2, 7, 6, 2)
    fed = tf.placeholder(TInt32)
    assert tf.nn.conv2dBackpropInput(fed, f, dy, [1, 2, 2, 1], "SAME").output().shape() \
        == Shape.of(-1, -1, -1, -1)  # 4-D, whatever the sizes
    df = tf.nn.conv2dBackpropFilter(x, sizes(tf, [3, 3, 2, 4]), dy, [1, 2, 2, 1], "SAME")
    assert df.output().shape() == Shape.of(3, 3, 2, 4) and df.output().dataType() is TFloat32


# -- kernels against TensorFlow --------------------------------------------------------------
@pytest.mark.parametrize("name", CASES)
def test_kernelsMatchTensorFlow(tf: Ops, run: Any, name: str) -> None:
    attrs, a = case(name)
    strides, padding, kw = attrs["strides"], attrs["padding"], options(attrs)
    x, f, dy = tf.constant(a["x"]), tf.constant(a["f"]), tf.constant(a["dy"])
    y = conv(tf, x, f, strides, padding, **kw)
    dx = tf.nn.conv2dBackpropInput(sizes(tf, a["x"].shape), f, dy, strides, padding, **kw)
    df = tf.nn.conv2dBackpropFilter(x, sizes(tf, a["f"].shape), dy, strides, padding, **kw)
    for op, value in ((y, a["y"]), (dx, a["dx"]), (df, a["df"])):
        assert op.output().shape() == Shape.of(*value.shape)
    got = run(y, dx, df)
    for value, key in zip(got, ("y", "dx", "df"), strict=True):
        # float32 sums of a few dozen products, in another order than TensorFlow's
        np.testing.assert_allclose(value, a[key], rtol=1e-5, atol=1e-5, strict=True)


@pytest.mark.parametrize("name", ["same_stride2", "nchw_explicit", "grouped", "dilated_valid"])
def test_kernelsOfFedShapesMatchTensorFlow(tf: Ops, run: Any, name: str) -> None:
    attrs, a = case(name)
    strides, padding, kw = attrs["strides"], attrs["padding"], options(attrs)
    x, f, dy = (tf.placeholder(TFloat32) for _ in range(3))
    fs = tf.placeholder(TInt32)
    y = conv(tf, x, f, strides, padding, **kw)
    dx = tf.nn.conv2dBackpropInput(tf.shape(x), f, dy, strides, padding, **kw)
    df = tf.nn.conv2dBackpropFilter(x, fs, dy, strides, padding, **kw)
    got = run(y, dx, df, feeds={x: a["x"], f: a["f"], dy: a["dy"],
                                fs: np.array(a["f"].shape, np.int32)})
    for value, key in zip(got, ("y", "dx", "df"), strict=True):
        np.testing.assert_allclose(value, a[key], rtol=1e-5, atol=1e-5, strict=True)


def test_kernelsOfOtherTypes(tf: Ops, run: Any) -> None:
    rng = np.random.default_rng(5)
    x, f = rng.integers(-3, 4, size=(2, 5, 4, 3)), rng.integers(-3, 4, size=(2, 3, 3, 2))
    expected = np.stack([np.stack([np.tensordot(x[:, i:i + 2, j:j + 3, :], f, 3)
                                   for j in range(2)], 1) for i in range(4)], 1)
    y = conv(tf, tf.constant(x.astype(np.int32)), tf.constant(f.astype(np.int32)))
    np.testing.assert_array_equal(run(y), expected.astype(np.int32), strict=True)
    dy = rng.integers(-3, 4, size=(2, 4, 2, 2))
    dx = tf.nn.conv2dBackpropInput(sizes(tf, x.shape), tf.constant(f.astype(np.int32)),
                                   tf.constant(dy.astype(np.int32)), ONES, "VALID")
    reference = tf.nn.conv2dBackpropInput(sizes(tf, x.shape), tf.constant(f.astype(np.float64)),
                                          tf.constant(dy.astype(np.float64)), ONES, "VALID")
    got, want = run(dx, reference)
    np.testing.assert_array_equal(got, want.astype(np.int32), strict=True)
    for dtype in (TFloat16, TFloat64):
        value = run(conv(tf, tf.constant(x.astype(dtype.DTYPE)), tf.constant(f.astype(
            dtype.DTYPE))))
        assertMatches(value, expected, dtype)


def test_halfPrecisionAccumulatesInSinglePrecision(tf: Ops, run: Any) -> None:
    # 2048 + 1 + 1 in float16 one at a time stays 2048; accumulated in float32 it is 2050
    x = tf.constant(np.array([2048.0, 1.0, 1.0], np.float16).reshape(1, 1, 3, 1))
    f = tf.constant(np.ones((1, 3, 1, 1), np.float16))
    assert run(conv(tf, x, f)).tolist() == [[[[2050.0]]]]
    df = tf.nn.conv2dBackpropFilter(x, sizes(tf, [1, 1, 1, 1]), tf.constant(
        np.ones((1, 1, 3, 1), np.float16)), ONES, "VALID")
    assert run(df).tolist() == [[[[2050.0]]]]


@pytest.mark.parametrize(("x", "f", "y"), [((0, 4, 4, 2), (2, 2, 2, 3), (0, 4, 4, 3)),
                                           ((1, 0, 4, 2), (1, 2, 2, 3), (1, 0, 4, 3)),
                                           ((1, 4, 4, 0), (2, 2, 0, 3), None)], ids=str)
def test_kernelsOfEmptyTensors(graph: Graph, tf: Ops, run: Any, x: Any, f: Any,
                               y: Any) -> None:
    xv, fv = tf.constant(np.ones(x)), tf.constant(np.ones(f))
    if y is None:  # an empty filter is refused, as TensorFlow's shape function refuses it
        assertRejected(graph, lambda: conv(tf, xv, fv), ValueError,
                       "the filter must not be empty")
        return
    dy = tf.constant(np.ones(y))
    got = run(conv(tf, xv, fv, padding="SAME"),
              tf.nn.conv2dBackpropInput(sizes(tf, x), fv, dy, ONES, "SAME"),
              tf.nn.conv2dBackpropFilter(xv, sizes(tf, f), dy, ONES, "SAME"))
    for value, shape in zip(got, (y, x, f), strict=True):
        np.testing.assert_array_equal(value, np.zeros(shape), strict=True)


def test_anOverhangingWindowGivesAnEmptyOutputAtRunTime(tf: Ops, run: Any) -> None:
    # TensorFlow's kernel: (1 - 3 + 2) / 2 = 0 outputs, where its shape function refuses
    x = tf.placeholder(TFloat32)
    y = conv(tf, x, tf.constant(np.ones((3, 3, 1, 1), np.float32)), [1, 2, 2, 1])
    assert run(y, feeds={x: np.ones((1, 1, 1, 1), np.float32)}).shape == (1, 0, 0, 1)


# -- gradients -------------------------------------------------------------------------------
GRADIENT_CASES = [
    pytest.param((1, 5, 4, 2), (3, 2, 2, 3), [1, 2, 1, 1], "SAME", {}, id="sameStrided"),
    pytest.param((2, 2, 6, 5), (2, 3, 2, 2), [1, 1, 1, 2], "VALID",
                 {"dataFormat": "NCHW", "dilations": [1, 1, 2, 1]}, id="nchwDilated"),
    pytest.param((1, 4, 4, 2), (2, 2, 2, 2), ONES, "EXPLICIT",
                 {"explicitPaddings": [0, 0, 1, 0, 2, 1, 0, 0]}, id="explicit"),
    pytest.param((1, 4, 4, 4), (2, 2, 2, 4), [1, 2, 2, 1], "VALID", {}, id="grouped"),
]


@pytest.mark.parametrize(("x", "f", "strides", "padding", "kw"), GRADIENT_CASES)
def test_gradientsMatchFiniteDifferences(tf: Ops, x: Any, f: Any, strides: Any, padding: str,
                                         kw: Any) -> None:
    assertGradient(tf, lambda a, b: conv(tf, a, b, strides, padding, **kw),
                   [sample(x, 0), sample(f, 1)])


@pytest.mark.parametrize(("x", "f", "strides", "padding", "kw"), GRADIENT_CASES)
def test_gradientOpsGradientsMatchFiniteDifferences(tf: Ops, x: Any, f: Any, strides: Any,
                                                    padding: str, kw: Any) -> None:
    y = conv(tf, tf.constant(np.zeros(x)), tf.constant(np.zeros(f)), strides, padding, **kw)
    dyShape = y.output().shape().asArray()
    assertGradient(tf, lambda b, d: tf.nn.conv2dBackpropInput(
        sizes(tf, x), b, d, strides, padding, **kw), [sample(f, 1), sample(dyShape, 2)])
    assertGradient(tf, lambda a, d: tf.nn.conv2dBackpropFilter(
        a, sizes(tf, f), d, strides, padding, **kw), [sample(x, 0), sample(dyShape, 2)])


def test_secondOrderGradientMatchesFiniteDifferences(tf: Ops) -> None:
    def firstDerivative(x: Any, f: Any) -> Any:
        y = conv(tf, x, f, [1, 2, 1, 1], "SAME")
        return tf.gradients(tf.sum(tf.math.square(y), [0, 1, 2, 3]), [f]).dy(0)

    assertGradient(tf, firstDerivative, [sample((1, 4, 3, 2), 0), sample((2, 2, 2, 2), 1)])


def test_gradientsUseTensorFlowsGradientOps(tf: Ops) -> None:
    x, f = tf.constant(np.ones((1, 3, 3, 1))), tf.constant(np.ones((2, 2, 1, 1)))
    grads = tf.gradients(conv(tf, x, f, dataFormat="NHWC"), [x, f])
    dx, df = grads.dy(0), grads.dy(1)
    assert dx is not None and df is not None
    assert (dx.op().type(), df.op().type()) == ("Conv2DBackpropInput", "Conv2DBackpropFilter")
    assert dx.shape() == Shape.of(1, 3, 3, 1) and df.shape() == Shape.of(2, 2, 1, 1)


# -- bad inputs ------------------------------------------------------------------------------
CONV = f"Conv2D 'Conv2d' ({HERE}"


@pytest.mark.parametrize(
    ("x", "f", "strides", "padding", "kw", "error", "fragment"),
    [
        ((1, 4, 4), (2, 2, 1, 1), ONES, "VALID", {}, ValueError, "input must be 4-dimensional"),
        ((1, 4, 4, 1), (2, 2, 1), ONES, "VALID", {}, ValueError, "filter must be 4-dimensional"),
        ((1, 4, 4, 1), (2, 2, 1, 1), [1, 1, 1], "VALID", {}, ValueError,
         "requires the stride attribute to contain 4 values"),
        ((1, 4, 4, 1), (2, 2, 1, 1), [2, 1, 1, 1], "VALID", {}, ValueError,
         "strides in the batch and depth dimensions are not supported"),
        ((1, 4, 4, 1), (2, 2, 1, 1), [1, 0, 1, 1], "VALID", {}, ValueError,
         "Stride must be > 0"),
        ((1, 4, 4, 1), (2, 2, 1, 1), ONES, "VALID", {"dilations": [1, 1, 1, 2]}, ValueError,
         "dilations in the batch and depth dimensions are not supported"),
        ((1, 4, 4, 1), (2, 2, 1, 1), ONES, "FULL", {}, ValueError,
         "padding 'FULL' is not supported"),
        ((1, 4, 4, 1), (2, 2, 1, 1), ONES, "VALID", {"dataFormat": "NCHW_VECT_C"}, ValueError,
         "data_format 'NCHW_VECT_C' is not supported"),
        ((1, 4, 4, 1), (2, 2, 1, 1), ONES, "EXPLICIT", {"explicitPaddings": [0, 0, 1, 1]},
         ValueError, "explicit_paddings attribute must contain 8 values"),
        ((1, 4, 4, 1), (2, 2, 1, 1), ONES, "SAME", {"explicitPaddings": [0] * 8}, ValueError,
         "explicit_paddings attribute must be empty"),
        ((1, 4, 4, 1), (2, 2, 1, 1), ONES, "EXPLICIT",
         {"explicitPaddings": [1, 0, 0, 0, 0, 0, 0, 0]}, ValueError,
         "Nonzero explicit padding in the batch or depth dimensions"),
        ((1, 4, 4, 1), (2, 2, 1, 1), ONES, "EXPLICIT",
         {"explicitPaddings": [0, 0, -1, 0, 0, 0, 0, 0]}, ValueError, "must be nonnegative"),
        ((1, 4, 4, 3), (2, 2, 2, 1), ONES, "VALID", {}, ValueError,
         "Depth of input (3) is not a multiple of input depth of filter (2)"),
        ((1, 4, 4, 4), (2, 2, 2, 3), ONES, "VALID", {}, ValueError,
         "Depth of output (3) is not a multiple of the number of groups (2)"),
        ((1, 4, 4, 1), (2, 5, 1, 1), ONES, "VALID", {}, ValueError,
         "the input's width 4 is smaller than the window's width 5"),
        ((1, 4, 4, 1), (2, 3, 1, 1), ONES, "VALID", {"dilations": [1, 1, 2, 1]}, ValueError,
         "the window's width 5"),
    ],
    ids=["rank3", "filterRank3", "threeStrides", "batchStride", "zeroStride", "depthDilation",
         "padding", "format", "explicitLength", "explicitNotExplicit", "explicitBatch",
         "explicitNegative", "depth", "groups", "window", "dilatedWindow"],
)
def test_badInputsAreRejected(graph: Graph, tf: Ops, x: Any, f: Any, strides: Any,
                              padding: str, kw: Any, error: type[Exception],
                              fragment: str) -> None:
    a, b = placeholder(tf, TFloat32, x), placeholder(tf, TFloat32, f)
    assertRejected(graph, lambda: conv(tf, a, b, strides, padding, **kw), error, CONV, fragment)


def test_badTypesAreRejected(graph: Graph, tf: Ops) -> None:
    a, b = placeholder(tf, TFloat32, (1, 2, 2, 1)), placeholder(tf, TFloat64, (1, 1, 1, 1))
    assertRejected(graph, lambda: conv(tf, a, b), TypeError, CONV, "input 'filter'")
    x, given = tf.constant(np.ones((1, 2, 2, 1), np.int32)), sizes(tf, ONES)
    assertRejected(graph, lambda: tf.nn.conv2dBackpropFilter(x, given, x, ONES, "VALID"),
                   TypeError, "Conv2DBackpropFilter", "data type int32 is not allowed")


@pytest.mark.parametrize(
    ("which", "sizesValue", "dy", "fragment"),
    [
        ("input", [1, 4, 4], (1, 3, 3, 1), "input_sizes must have 2 or 4 elements, got 3"),
        ("input", [1, 4, 4, -1], (1, 3, 3, 1), "input_sizes must not be negative"),
        ("input", [1, 4, 4, 1], (1, 3, 2, 1), "out_backprop has shape [1, 3, 2, 1], but the "
         "convolution of an input of shape [1, 4, 4, 1] by a filter of shape [2, 2, 1, 1] gives "
         "[1, 3, 3, 1]"),
        ("input", [1, 4, 4, 2], (1, 3, 3, 1),
         "Depth of output (1) is not a multiple of the number of groups (2)"),
        ("filter", [2, 2, 1], (1, 3, 3, 1), "filter_sizes must have 4 elements, got 3"),
        ("filter", [2, 2, 1, 2], (1, 3, 3, 1), "but the convolution of an input of shape"),
        ("filter", [2, 2, 1, 1], (1, 3, 3), "out_backprop must be 4-dimensional"),
    ],
    ids=["inputSizesLength", "inputSizesNegative", "dyShape", "inputDepth", "filterSizesLength",
         "filterDyShape", "dyRank"],
)
def test_badBackpropInputsAreRejected(graph: Graph, tf: Ops, which: str, sizesValue: Any,
                                      dy: Any, fragment: str) -> None:
    d = placeholder(tf, TFloat32, dy)
    given = sizes(tf, sizesValue)
    if which == "input":
        f = placeholder(tf, TFloat32, (2, 2, 1, 1))
        assertRejected(graph, lambda: tf.nn.conv2dBackpropInput(given, f, d, ONES, "VALID"),
                       ValueError, f"Conv2DBackpropInput 'Conv2dBackpropInput' ({HERE}",
                       fragment)
    else:
        x = placeholder(tf, TFloat32, (1, 4, 4, 1))
        assertRejected(graph, lambda: tf.nn.conv2dBackpropFilter(x, given, d, ONES, "VALID"),
                       ValueError, f"Conv2DBackpropFilter 'Conv2dBackpropFilter' ({HERE}",
                       fragment)


@pytest.mark.parametrize(
    ("x", "f", "dy", "fragment"),
    [
        ((1, 4, 4), (2, 2, 1, 1), None, "input and filter must be 4-dimensional"),
        ((1, 4, 4, 3), (2, 2, 2, 1), None, "Depth of input (3) is not a multiple"),
        ((1, 1, 1, 1), (3, 3, 1, 1), None, "Computed output size would be negative: -1"),
        ((1, 4, 4, 1), (2, 2, 1, 1), (1, 3, 2, 1), "out_backprop has shape [1, 3, 2, 1], but "
         "the convolution gives [1, 3, 3, 1]"),
    ],
    ids=["rank", "depth", "window", "dyShape"],
)
def test_badFedShapesRaiseInvalidArgumentError(tf: Ops, run: Any, x: Any, f: Any, dy: Any,
                                               fragment: str) -> None:
    a, b, d = (tf.placeholder(TFloat32) for _ in range(3))
    if dy is None:
        y = conv(tf, a, b)
        feeds = {a: np.ones(x, np.float32), b: np.ones(f, np.float32)}
    else:
        y = tf.nn.conv2dBackpropFilter(a, sizes(tf, f), d, ONES, "VALID")
        feeds = {a: np.ones(x, np.float32), d: np.ones(dy, np.float32)}
    with pytest.raises(InvalidArgumentError, match=r"Conv2D") as info:
        run(y, feeds=feeds)
    assert fragment in str(info.value)


def test_badFedSizesRaiseInvalidArgumentError(tf: Ops, run: Any) -> None:
    given, d = tf.placeholder(TInt32), tf.placeholder(TFloat32)
    f = tf.constant(np.ones((2, 2, 1, 1), np.float32))
    dx = tf.nn.conv2dBackpropInput(given, f, d, ONES, "VALID")
    with pytest.raises(InvalidArgumentError, match=r"input_sizes must be a vector of 2 or 4"):
        run(dx, feeds={given: np.array([1, 4, 4], np.int32), d: np.ones((1, 3, 3, 1),
                                                                          np.float32)})
    df = tf.nn.conv2dBackpropFilter(d, given, d, ONES, "VALID")
    with pytest.raises(InvalidArgumentError, match=r"filter_sizes must be a vector of 4"):
        run(df, feeds={given: np.array([2, 2, -1, 1], np.int32), d: np.ones((1, 3, 3, 1),
                                                                             np.float32)})
