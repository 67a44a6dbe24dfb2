"""DepthwiseConv2dNative and its gradient ops, DepthwiseConv2dNativeBackpropInput and
DepthwiseConv2dNativeBackpropFilter.

The numbers are TensorFlow's: the ``dw_*`` cases of ``tests/fixtures/tf/conv.npz`` (written by
``make_conv.py``) cover layouts, strides, dilations and paddings, each run on both backends.
The gradients are checked against finite differences, the gradient ops' own included.
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
from tfops.types import TFloat16, TFloat32, TInt32

HERE = f"created at {__file__}:"
FIXTURES = np.load(Path(__file__).parents[1] / "fixtures" / "tf" / "conv.npz")
CASES = sorted({key.split("/")[0] for key in FIXTURES.files if key.startswith("dw_")})
ONES = [1, 1, 1, 1]


def case(name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    attrs = json.loads(str(FIXTURES[f"{name}/attrs"]))
    return attrs, {k: FIXTURES[f"{name}/{k}"] for k in ("x", "f", "dy", "y", "dx", "df")}


def options(attrs: dict[str, Any]) -> dict[str, Any]:
    return {"explicitPaddings": attrs["explicit_paddings"], "dataFormat": attrs["data_format"],
            "dilations": attrs["dilations"]}


def sizes(tf: Ops, dims: Any) -> Any:
    return tf.constant(np.array(dims, np.int32))


def sample(shape: Any, seed: int) -> Any:
    return np.random.default_rng(seed).normal(size=shape)


# -- construction --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("x", "f", "strides", "padding", "kw", "expected"),
    [
        ((2, 5, 6, 3), (3, 2, 3, 2), ONES, "VALID", {}, (2, 3, 5, 6)),
        ((2, 3, 7, 6), (3, 3, 3, 2), [1, 1, 2, 2], "SAME", {"dataFormat": "NCHW"}, (2, 6, 4, 3)),
        ((1, 7, 7, 2), (3, 3, 2, 1), ONES, "VALID", {"dilations": [1, 2, 3, 1]}, (1, 3, 1, 2)),
        ((2, 5, 5, -1), (3, 3, 3, 2), ONES, "VALID", {}, (2, 3, 3, 6)),
        ((2, 5, 5, 3), (3, 3, 3, -1), ONES, "VALID", {}, (2, 3, 3, -1)),
        ((2, 5, 5, -1), (3, 3, -1, 2), ONES, "VALID", {}, (2, 3, 3, -1)),
    ],
    ids=str,
)
def test_staticShape(tf: Ops, x: Any, f: Any, strides: Any, padding: str, kw: Any,
                     expected: Any) -> None:
    y = tf.nn.depthwiseConv2dNative(placeholder(tf, TFloat32, x), placeholder(tf, TFloat32, f),
                                    strides, padding, **kw)
    assert y.output().shape() == Shape.of(*expected)
    assert (y.op().type(), y.op().name()) == ("DepthwiseConv2dNative", "DepthwiseConv2dNative")


# -- kernels against TensorFlow --------------------------------------------------------------
@pytest.mark.parametrize("name", CASES)
def test_kernelsMatchTensorFlow(tf: Ops, run: Any, name: str) -> None:
    attrs, a = case(name)
    strides, padding, kw = attrs["strides"], attrs["padding"], options(attrs)
    x, f, dy = tf.constant(a["x"]), tf.constant(a["f"]), tf.constant(a["dy"])
    y = tf.nn.depthwiseConv2dNative(x, f, strides, padding, **kw)
    dx = tf.nn.depthwiseConv2dNativeBackpropInput(sizes(tf, a["x"].shape), f, dy, strides,
                                                  padding, **kw)
    df = tf.nn.depthwiseConv2dNativeBackpropFilter(x, sizes(tf, a["f"].shape), dy, strides,
                                                   padding, **kw)
    for op, key in ((y, "y"), (dx, "dx"), (df, "df")):
        assert op.output().shape() == Shape.of(*a[key].shape)
    for value, key in zip(run(y, dx, df), ("y", "dx", "df"), strict=True):
        np.testing.assert_allclose(value, a[key], rtol=1e-5, atol=1e-5, strict=True)


def test_kernelsOfFedShapesMatchTensorFlow(tf: Ops, run: Any) -> None:
    attrs, a = case("dw_nchw")
    strides, padding, kw = attrs["strides"], attrs["padding"], options(attrs)
    x, f, dy = (tf.placeholder(TFloat32) for _ in range(3))
    y = tf.nn.depthwiseConv2dNative(x, f, strides, padding, **kw)
    dx = tf.nn.depthwiseConv2dNativeBackpropInput(tf.shape(x), f, dy, strides, padding, **kw)
    df = tf.nn.depthwiseConv2dNativeBackpropFilter(x, tf.shape(f), dy, strides, padding, **kw)
    got = run(y, dx, df, feeds={x: a["x"], f: a["f"], dy: a["dy"]})
    for value, key in zip(got, ("y", "dx", "df"), strict=True):
        np.testing.assert_allclose(value, a[key], rtol=1e-5, atol=1e-5, strict=True)


def test_halfPrecision(tf: Ops, run: Any) -> None:
    x = np.array([2048.0, 1.0, 1.0], np.float16).reshape(1, 1, 3, 1)
    y = tf.nn.depthwiseConv2dNative(tf.constant(x), tf.constant(np.ones((1, 3, 1, 2), np.float16)),
                                    ONES, "VALID")
    assertMatches(run(y), [[[[2050.0, 2050.0]]]], TFloat16)  # summed in float32


# -- gradients -------------------------------------------------------------------------------
GRADIENT_CASES = [
    pytest.param((1, 5, 4, 2), (3, 2, 2, 2), [1, 2, 1, 1], "SAME", {}, id="sameStrided"),
    pytest.param((2, 2, 6, 5), (2, 3, 2, 1), ONES, "VALID",
                 {"dataFormat": "NCHW", "dilations": [1, 1, 2, 1]}, id="nchwDilated"),
    pytest.param((1, 4, 4, 2), (2, 2, 2, 3), ONES, "EXPLICIT",
                 {"explicitPaddings": [0, 0, 1, 0, 2, 1, 0, 0]}, id="explicit"),
]


@pytest.mark.parametrize(("x", "f", "strides", "padding", "kw"), GRADIENT_CASES)
def test_gradientsMatchFiniteDifferences(tf: Ops, x: Any, f: Any, strides: Any, padding: str,
                                         kw: Any) -> None:
    assertGradient(tf, lambda a, b: tf.nn.depthwiseConv2dNative(a, b, strides, padding, **kw),
                   [sample(x, 0), sample(f, 1)])
    y = tf.nn.depthwiseConv2dNative(tf.constant(np.zeros(x)), tf.constant(np.zeros(f)), strides,
                                    padding, **kw)
    dyShape = y.output().shape().asArray()
    assertGradient(tf, lambda b, d: tf.nn.depthwiseConv2dNativeBackpropInput(
        sizes(tf, x), b, d, strides, padding, **kw), [sample(f, 1), sample(dyShape, 2)])
    assertGradient(tf, lambda a, d: tf.nn.depthwiseConv2dNativeBackpropFilter(
        a, sizes(tf, f), d, strides, padding, **kw), [sample(x, 0), sample(dyShape, 2)])


def test_gradientsUseTensorFlowsGradientOps(tf: Ops) -> None:
    x, f = tf.constant(np.ones((1, 3, 3, 2))), tf.constant(np.ones((2, 2, 2, 1)))
    grads = tf.gradients(tf.nn.depthwiseConv2dNative(x, f, ONES, "VALID"), [x, f])
    dx, df = grads.dy(0), grads.dy(1)
    assert dx is not None and df is not None
    assert (dx.op().type(), df.op().type()) == ("DepthwiseConv2dNativeBackpropInput",
                                                "DepthwiseConv2dNativeBackpropFilter")


# -- bad inputs ------------------------------------------------------------------------------
def test_badInputsAreRejected(graph: Graph, tf: Ops) -> None:
    named = f"DepthwiseConv2dNative 'DepthwiseConv2dNative' ({HERE}"
    x, f = placeholder(tf, TFloat32, (1, 4, 4, 3)), placeholder(tf, TFloat32, (2, 2, 2, 1))
    assertRejected(graph, lambda: tf.nn.depthwiseConv2dNative(x, f, ONES, "VALID"), ValueError,
                   named, "the input depth 3 does not match the filter's input depth 2")
    g = placeholder(tf, TFloat32, (2, 2, 3, 1))
    assertRejected(graph, lambda: tf.nn.depthwiseConv2dNative(x, g, [1, 1, 1, 2], "VALID"),
                   ValueError, named, "strides in the batch and depth dimensions")
    assertRejected(graph, lambda: tf.nn.depthwiseConv2dNative(x, g, ONES, "FULL"), ValueError,
                   named, "padding 'FULL' is not supported")
    ints = tf.constant(np.ones((1, 4, 4, 3), np.int32))
    assertRejected(graph, lambda: tf.nn.depthwiseConv2dNative(ints, ints, ONES, "VALID"),
                   TypeError, named, "data type int32 is not allowed")
    spatial, dy = sizes(tf, [4, 4]), placeholder(tf, TFloat32, (1, 3, 3, 3))
    assertRejected(graph, lambda: tf.nn.depthwiseConv2dNativeBackpropInput(
        spatial, g, dy, ONES, "VALID"), ValueError, "DepthwiseConv2dNativeBackpropInput",
        "input_sizes must have 4 elements, got 2")
    wrong, filterSizes = placeholder(tf, TFloat32, (1, 3, 3, 2)), sizes(tf, [2, 2, 3, 1])
    assertRejected(graph, lambda: tf.nn.depthwiseConv2dNativeBackpropFilter(
        x, filterSizes, wrong, ONES, "VALID"), ValueError,
        "DepthwiseConv2dNativeBackpropFilter", "out_backprop has shape [1, 3, 3, 2]")


def test_badFedShapesRaiseInvalidArgumentError(tf: Ops, run: Any) -> None:
    x, f = tf.placeholder(TFloat32), tf.placeholder(TFloat32)
    y = tf.nn.depthwiseConv2dNative(x, f, ONES, "VALID")
    with pytest.raises(InvalidArgumentError, match="does not match the filter's input depth"):
        run(y, feeds={x: np.ones((1, 4, 4, 3), np.float32), f: np.ones((2, 2, 2, 1), np.float32)})
    given = tf.placeholder(TInt32)
    dx = tf.nn.depthwiseConv2dNativeBackpropInput(given, f, x, ONES, "VALID")
    with pytest.raises(InvalidArgumentError, match="input_sizes must be a vector of 4"):
        run(dx, feeds={given: np.array([4, 4], np.int32), f: np.ones((2, 2, 1, 1), np.float32),
                       x: np.ones((1, 3, 3, 1), np.float32)})
