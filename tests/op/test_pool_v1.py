"""TensorFlow's first max pooling ops: MaxPoolV1 (op MaxPool), MaxPoolGradV1 (MaxPoolGrad) and
MaxPoolGradGradV1 (MaxPoolGradGrad), whose window sizes and strides are attributes.

Their numbers are TensorFlow's: the ``pool_*`` cases of ``tests/fixtures/tf/conv.npz`` (written
by ``make_conv.py``: layouts, paddings, overlapping windows, ties, NaN and -inf) run through the
V1 ops on both backends; EXPLICIT padding is checked against numpy (and against TensorFlow in
``tests/test_graphdef_tf2.py``). The gradients are checked against finite differences.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import assertGradient, assertRejected, placeholder

from tfops import Graph, Operation, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.nn import MaxPoolGradGradV1, MaxPoolGradV1, MaxPoolV1
from tfops.types import TFloat32, TInt32

HERE = f"created at {__file__}:"
FIXTURES = np.load(Path(__file__).parents[1] / "fixtures" / "tf" / "conv.npz")
CASES = sorted({key.split("/")[0] for key in FIXTURES.files if key.startswith("pool_")})
K2 = [1, 2, 2, 1]


def ints(op: Operation, name: str) -> list[int]:
    """The list(int) attribute ``name`` of ``op``."""
    value = op.attr(name)
    assert isinstance(value, (list, tuple))
    return [int(v) for v in value]


def sample(shape: Any, seed: int) -> Any:
    return np.random.default_rng(seed).normal(size=shape)


def explicitReference(x: Any, k: int, s: int, pads: tuple[int, int, int, int]) -> Any:
    """Max pooling of NHWC ``x`` by a ``k`` x ``k`` window moved by ``s``, the input padded by
    ``pads`` (top, bottom, left, right) with what is never the maximum."""
    top, bottom, left, right = pads
    padded = np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)), constant_values=-np.inf)
    oh, ow = (padded.shape[1] - k) // s + 1, (padded.shape[2] - k) // s + 1
    return np.stack(
        [
            np.stack(
                [
                    padded[:, i * s : i * s + k, j * s : j * s + k, :].max(axis=(1, 2))
                    for j in range(ow)
                ],
                axis=1,
            )
            for i in range(oh)
        ],
        axis=1,
    )


# -- construction --------------------------------------------------------------------------
def test_classesAreTensorFlowsFirstOpsWithSizesAsAttributes(tf: Ops) -> None:
    x = tf.constant(np.ones((1, 4, 4, 2), np.float32))
    y = tf.nn.maxPoolV1(x, K2, K2, "VALID")
    assert (y.op().type(), y.op().name(), type(y).__name__, MaxPoolV1.OP_NAME) == (
        "MaxPool",
        "MaxPool",
        "MaxPoolV1",
        "MaxPool",
    )
    assert (y.op().numInputs(), ints(y.op(), "ksize"), ints(y.op(), "strides")) == (
        1,
        K2,
        K2,
    )
    assert (y.op().attr("data_format"), ints(y.op(), "explicit_paddings")) == ("NHWC", [])
    assert y.output().shape() == Shape.of(1, 2, 2, 2) and y.output().dataType() is TFloat32
    g = tf.nn.maxPoolGradV1(x, y, y, K2, K2, "VALID", MaxPoolGradV1.dataFormat("NHWC"))
    gg = tf.nn.maxPoolGradGradV1(x, y, x, K2, K2, "VALID", MaxPoolGradGradV1.dataFormat("NHWC"))
    assert (g.op().type(), type(g).__name__, g.output().shape()) == (
        "MaxPoolGrad",
        "MaxPoolGradV1",
        Shape.of(1, 4, 4, 2),
    )
    assert (gg.op().type(), type(gg).__name__, gg.output().shape()) == (
        "MaxPoolGradGrad",
        "MaxPoolGradGradV1",
        Shape.of(1, 2, 2, 2),
    )
    assert gg.op().attr("padding") == "VALID"


@pytest.mark.parametrize(
    ("x", "ksize", "strides", "padding", "fmt", "expected"),
    [
        ((2, 5, 7, 3), [1, 3, 3, 1], [1, 2, 2, 1], "SAME", "NHWC", (2, 3, 4, 3)),
        ((2, 5, 7, 3), [1, 3, 3, 1], [1, 2, 2, 1], "VALID", "NHWC", (2, 2, 3, 3)),
        ((2, 3, 5, 7), [1, 1, 3, 3], [1, 1, 2, 2], "VALID", "NCHW", (2, 3, 2, 3)),
        ((-1, 5, -1, 3), [1, 2, 2, 1], [1, 2, 2, 1], "VALID", "NHWC", (-1, 2, -1, 3)),
        (None, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", "NHWC", (-1, -1, -1, -1)),
    ],
    ids=str,
)
def test_staticShapeIsTheV2Ops(
    tf: Ops, x: Any, ksize: Any, strides: Any, padding: str, fmt: str, expected: Any
) -> None:
    value = placeholder(tf, TFloat32, x)
    k, s = tf.constant(np.array(ksize, np.int32)), tf.constant(np.array(strides, np.int32))
    v1 = tf.nn.maxPoolV1(value, ksize, strides, padding, dataFormat=fmt)
    v2 = tf.nn.maxPool(value, k, s, padding, dataFormat=fmt)
    assert v1.output().shape() == v2.output().shape() == Shape.of(*expected)


def test_explicitPaddingSizesTheOutput(tf: Ops) -> None:
    x = placeholder(tf, TFloat32, (2, 6, 5, 3))
    y = tf.nn.maxPoolV1(
        x, [1, 3, 3, 1], [1, 2, 2, 1], "EXPLICIT", explicitPaddings=[0, 0, 1, 1, 2, 0, 0, 0]
    )
    assert y.output().shape() == Shape.of(2, 3, 3, 3)  # (6 + 2 - 3) // 2 + 1, (5 + 2 - 3) ...
    nchw = tf.nn.maxPoolV1(
        placeholder(tf, TFloat32, (2, 3, 6, 5)),
        [1, 1, 3, 3],
        [1, 1, 2, 2],
        "EXPLICIT",
        explicitPaddings=[0, 0, 0, 0, 1, 1, 2, 0],
        dataFormat="NCHW",
    )
    assert nchw.output().shape() == Shape.of(2, 3, 3, 3)


# -- kernels against TensorFlow --------------------------------------------------------------
@pytest.mark.parametrize("name", CASES)
def test_kernelsMatchTensorFlow(tf: Ops, run: Any, name: str) -> None:
    attrs = json.loads(str(FIXTURES[f"{name}/attrs"]))
    a = {k: FIXTURES[f"{name}/{k}"] for k in ("x", "g", "gg", "y", "dx", "ddy")}
    args = (attrs["ksize"], attrs["strides"], attrs["padding"])
    kw = {"dataFormat": attrs["data_format"]}
    x = tf.constant(a["x"])
    y = tf.nn.maxPoolV1(x, *args, **kw)
    dx = tf.nn.maxPoolGradV1(x, y, tf.constant(a["g"]), *args, **kw)
    ddy = tf.nn.maxPoolGradGradV1(x, y, tf.constant(a["gg"]), *args, **kw)
    for value, key in zip(run(y, dx, ddy), ("y", "dx", "ddy"), strict=True):
        # the maxima are exact; the gradients are sums of a few float32 values
        np.testing.assert_allclose(value, a[key], rtol=1e-6, atol=1e-6, strict=True)


def test_explicitPaddingIsNeverTheMaximum(tf: Ops, run: Any) -> None:
    x = -np.abs(sample((2, 5, 6, 3), 4)).astype(np.float32)  # all below the zero padding
    pads = (1, 2, 2, 0)
    y = tf.nn.maxPoolV1(
        tf.constant(x),
        [1, 3, 3, 1],
        [1, 2, 2, 1],
        "EXPLICIT",
        explicitPaddings=[0, 0, pads[0], pads[1], pads[2], pads[3], 0, 0],
    )
    got = run(y)
    np.testing.assert_array_equal(got, explicitReference(x, 3, 2, pads), strict=True)


def test_fedInputsOfAnyShape(tf: Ops, run: Any) -> None:
    x, g = tf.placeholder(TFloat32), tf.placeholder(TFloat32)
    y = tf.nn.maxPoolV1(x, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    dx = tf.nn.maxPoolGradV1(x, y, g, [1, 3, 3, 1], [1, 2, 2, 1], "SAME")
    image = np.arange(25.0, dtype=np.float32).reshape(1, 5, 5, 1)
    pooled, grad = run(y, dx, feeds={x: image, g: np.ones((1, 3, 3, 1), np.float32)})
    assert pooled[0, :, :, 0].tolist() == [[6.0, 8.0, 9.0], [16.0, 18.0, 19.0], [21.0, 23.0, 24.0]]
    assert grad.sum() == 9.0 and grad[0, 4, 4, 0] == 1.0


# -- gradients -------------------------------------------------------------------------------
GRADIENT_CASES = [
    pytest.param((1, 5, 4, 2), [1, 3, 3, 1], [1, 2, 2, 1], "SAME", "NHWC", (), id="same"),
    pytest.param((2, 2, 5, 5), [1, 1, 2, 3], [1, 1, 1, 2], "VALID", "NCHW", (), id="nchw"),
    pytest.param(
        (1, 5, 4, 2),
        [1, 3, 2, 1],
        [1, 2, 1, 1],
        "EXPLICIT",
        "NHWC",
        (0, 0, 1, 2, 1, 0, 0, 0),
        id="explicit",
    ),
]


@pytest.mark.parametrize(("x", "k", "s", "p", "fmt", "pads"), GRADIENT_CASES)
def test_gradientsMatchFiniteDifferences(
    tf: Ops, x: Any, k: Any, s: Any, p: str, fmt: str, pads: Any
) -> None:
    value = sample(x, 0)  # distinct values: no ties within a finite difference step
    kw: dict[str, Any] = {"dataFormat": fmt, "explicitPaddings": list(pads)}
    assertGradient(tf, lambda a: tf.nn.maxPoolV1(a, k, s, p, **kw), [value])
    if p == "EXPLICIT":  # MaxPoolGradGrad takes no EXPLICIT padding: see below
        return
    xs = tf.constant(value)
    y = tf.nn.maxPoolV1(xs, k, s, p, **kw)
    pooled = y.output().shape().asArray()
    # MaxPoolGrad is linear in its gradient, constant in the pooled tensors
    assertGradient(tf, lambda g: tf.nn.maxPoolGradV1(xs, y, g, k, s, p, **kw), [sample(pooled, 1)])
    assertGradient(
        tf,
        lambda a, g: tf.nn.maxPoolGradV1(a, tf.nn.maxPoolV1(a, k, s, p, **kw), g, k, s, p, **kw),
        [value, sample(pooled, 1)],
    )
    assertGradient(
        tf, lambda g: tf.nn.maxPoolGradGradV1(xs, y, g, k, s, p, dataFormat=fmt), [sample(x, 2)]
    )


def test_secondGradientOfExplicitPaddingIsRefusedAsTensorFlows(graph: Graph, tf: Ops) -> None:
    """TensorFlow's MaxPoolGradGrad takes SAME and VALID only, so MaxPoolGrad with EXPLICIT
    padding has no gradient there either (``tf.gradients`` raises ValueError)."""
    x = tf.constant(sample((1, 5, 4, 2), 0))
    kw: dict[str, Any] = {"explicitPaddings": [0, 0, 1, 1, 1, 1, 0, 0]}
    y = tf.nn.maxPoolV1(x, [1, 3, 3, 1], [1, 2, 2, 1], "EXPLICIT", **kw)
    g = tf.constant(np.ones((1, 3, 2, 2)))
    dx = tf.nn.maxPoolGradV1(x, y, g, [1, 3, 3, 1], [1, 2, 2, 1], "EXPLICIT", **kw)
    assertRejected(
        graph,
        lambda: tf.gradients(dx, [g]),
        ValueError,
        "MaxPoolGradGrad",
        "padding 'EXPLICIT' is not supported; it must be one of 'SAME', 'VALID'",
    )


def test_gradientOpsAreTensorFlows(tf: Ops) -> None:
    x = tf.constant(sample((1, 4, 4, 1), 0))
    y = tf.nn.maxPoolV1(x, K2, K2, "VALID")
    dx = tf.gradients(y, [x]).dy(0)
    assert dx is not None and dx.op().type() == "MaxPoolGrad"
    assert ints(dx.op(), "ksize") == K2
    g = tf.constant(np.ones((1, 2, 2, 1)))
    grad = tf.nn.maxPoolGradV1(x, y, g, K2, K2, "VALID")
    dg = tf.gradients(grad, [g]).dy(0)
    assert dg is not None and dg.op().type() == "MaxPoolGradGrad"
    h = tf.constant(np.ones((1, 4, 4, 1)))
    dh = tf.gradients(tf.nn.maxPoolGradGradV1(x, y, h, K2, K2, "VALID"), [h]).dy(0)
    assert dh is not None and dh.op().type() == "MaxPoolGrad"  # unlike MaxPoolGradGradV2


# -- bad inputs ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("x", "k", "s", "p", "kw", "fragment"),
    [
        ((1, 4, 4), K2, K2, "VALID", {}, "must be 4-dimensional, got shape [1, 4, 4]"),
        ((1, 4, 4, 1), [1, 2, 2], K2, "VALID", {}, "requires the ksize attribute to contain 4"),
        ((1, 4, 4, 2), [1, 1, 1, 2], K2, "VALID", {}, "pooling over the batch or depth"),
        ((1, 4, 4, 1), [1, 0, 2, 1], K2, "VALID", {}, "Sliding window ksize must be positive"),
        ((1, 4, 4, 1), K2, K2, "EXPLICIT", {}, "explicit_paddings attribute must contain 8"),
        ((1, 4, 4, 1), K2, K2, "SAME", {"explicitPaddings": [0] * 8}, "must be empty"),
        (
            (1, 4, 4, 1),
            K2,
            K2,
            "EXPLICIT",
            {"explicitPaddings": [0, 0, 2, 0, 0, 0, 0, 0]},
            "must be smaller than the window size 2 x 2",
        ),
        ((1, 4, 4, 1), [1, 5, 1, 1], K2, "VALID", {}, "the window's height 5"),
        ((1, 4, 4, 1), K2, K2, "FULL", {}, "padding 'FULL' is not supported"),
        (
            (1, 4, 4, 1),
            K2,
            K2,
            "VALID",
            {"dataFormat": "NCHW_VECT_C"},
            "data_format 'NCHW_VECT_C' is not supported",
        ),
    ],
    ids=[
        "rank",
        "ksizeLength",
        "depth",
        "zeroWindow",
        "explicitMissing",
        "explicitNotAsked",
        "explicitTooLarge",
        "window",
        "padding",
        "format",
    ],
)
def test_badInputsAreRejected(
    graph: Graph, tf: Ops, x: Any, k: Any, s: Any, p: str, kw: Any, fragment: str
) -> None:
    value = placeholder(tf, TFloat32, x)
    assertRejected(
        graph,
        lambda: tf.nn.maxPoolV1(value, k, s, p, **kw),
        ValueError,
        f"MaxPool 'MaxPool' ({HERE}",
        fragment,
    )


def test_badGradientInputsAreRejected(graph: Graph, tf: Ops) -> None:
    x = placeholder(tf, TFloat32, (1, 4, 4, 1))
    wrong = placeholder(tf, TFloat32, (1, 3, 2, 1))
    right = placeholder(tf, TFloat32, (1, 2, 2, 1))
    assertRejected(
        graph,
        lambda: tf.nn.maxPoolGradV1(x, wrong, right, K2, K2, "VALID"),
        ValueError,
        f"MaxPoolGrad 'MaxPoolGrad' ({HERE}",
        "orig_output has shape [1, 3, 2, 1], but pooling the input gives [1, 2, 2, 1]",
    )
    assertRejected(
        graph,
        lambda: tf.nn.maxPoolGradV1(x, right, wrong, K2, K2, "VALID"),
        ValueError,
        "MaxPoolGrad",
        "grad has shape [1, 3, 2, 1]",
    )
    assertRejected(
        graph,
        lambda: tf.nn.maxPoolGradGradV1(x, right, right, K2, K2, "VALID"),
        ValueError,
        "MaxPoolGradGrad",
        "grad has shape [1, 2, 2, 1], but pooling the input gives [1, 4, 4, 1]",
    )
    # TensorFlow's MaxPoolGradGrad takes SAME and VALID only
    assertRejected(
        graph,
        lambda: tf.nn.maxPoolGradGradV1(x, right, x, K2, K2, "EXPLICIT"),
        ValueError,
        "MaxPoolGradGrad",
        "padding 'EXPLICIT' is not supported",
    )
    integers = tf.placeholder(TInt32)
    assertRejected(
        graph,
        lambda: tf.nn.maxPoolGradV1(x, right, integers, K2, K2, "VALID"),
        TypeError,
        "MaxPoolGrad",
    )


def test_badRunTimeShapesRaiseInvalidArgumentError(tf: Ops, run: Any) -> None:
    x, g = tf.placeholder(TFloat32), tf.placeholder(TFloat32)
    y = tf.nn.maxPoolV1(x, [1, 7, 7, 1], [1, 1, 1, 1], "VALID")
    with pytest.raises(InvalidArgumentError, match="MaxPool") as info:
        run(y, feeds={x: np.ones((1, 4, 4, 1), np.float32)})
    assert "Computed output size would be negative" in str(info.value)
    with pytest.raises(InvalidArgumentError, match="MaxPool") as info:
        run(y, feeds={x: np.ones((4, 4, 1), np.float32)})
    assert "must be 4-dimensional" in str(info.value)
    d = tf.nn.maxPoolGradV1(x, tf.nn.maxPoolV1(x, K2, K2, "VALID"), g, K2, K2, "VALID")
    with pytest.raises(InvalidArgumentError, match="grad has shape"):
        run(d, feeds={x: np.ones((1, 4, 4, 1), np.float32), g: np.ones((1, 3, 3, 1), np.float32)})
