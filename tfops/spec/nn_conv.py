"""Convolution ops (``tfops.op.nn``): Conv2D, and what the convolution ops share (their
attributes, their windows and the shape rules of the forward and the gradient ops).

Conv2D differentiates, as in TensorFlow, through Conv2DBackpropInput (the gradient for the
input, a transposed convolution) and Conv2DBackpropFilter (for the filter), each a real op that
is differentiable in turn: they are :mod:`tfops.spec.nn_conv_backprop`. DepthwiseConv2dNative
and its gradient ops are in :mod:`tfops.spec.nn_conv_depthwise`; the window geometry all of
them share is :mod:`tfops.spec.nn_window`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, registerGradient
from tfops.spec.nn_window import (
    Window,
    WindowError,
    convChannels,
    convShapes,
    convWindow,
    fromFormat,
    toFormat,
)
from tfops.spec.rules import FLOATS, shapeValue
from tfops.types import TFloating, TInt32, TType

if TYPE_CHECKING:
    from tfops.ops import Ops

__all__ = [
    "CONV_TYPES",
    "backpropFilterShape",
    "backpropInputShape",
    "convAttrs",
    "convExample",
    "convOptions",
    "convOutput",
    "convWindowOf",
    "dims4",
    "sizesOf",
]

Dims = tuple[int, int, int, int]
"""(batch, height, width, channels), -1 where unknown."""

UNKNOWN: Dims = (-1, -1, -1, -1)


# -- what the convolution ops share ------------------------------------------------------------
def convAttrs(allowed: tuple[type[TType], ...], cudnn: bool) -> tuple[AttrDef, ...]:
    """A convolution's attributes, in TensorFlow's order (``use_cudnn_on_gpu`` where the op has
    it)."""
    attrs = [
        AttrDef("T", "type", allowed=allowed),
        AttrDef(
            "strides",
            "list(int)",
            "the stride of the sliding window for each dimension of "
            "the input, in the order of ``data_format``; 1 for the batch and the depth",
            param="strides",
        ),
    ]
    if cudnn:
        attrs.append(
            AttrDef(
                "use_cudnn_on_gpu",
                "bool",
                "accepted for TensorFlow's sake; tfops' backends choose their own algorithms",
                default=True,
                option="useCudnnOnGpu",
            )
        )
    attrs += [
        AttrDef(
            "padding",
            "string",
            'the padding algorithm: "SAME", "VALID" or "EXPLICIT"',
            param="padding",
        ),
        AttrDef(
            "explicit_paddings",
            "list(int)",
            'with "EXPLICIT" padding, the padding before '
            "and after each dimension, 8 values in the order of ``data_format`` (0 for the "
            "batch and the depth); empty otherwise",
            default=(),
            option="explicitPaddings",
        ),
        AttrDef(
            "data_format",
            "string",
            'the layout of the input and output: "NHWC" (batch, height, width, channels) or "NCHW"',
            default="NHWC",
            option="dataFormat",
        ),
        AttrDef(
            "dilations",
            "list(int)",
            "the dilation factor for each dimension of the input, "
            "in the order of ``data_format``; a factor k > 1 skips k - 1 cells between "
            "filter elements; 1 for the batch and the depth",
            default=(1, 1, 1, 1),
            option="dilations",
        ),
    ]
    return tuple(attrs)


def convWindowOf(ctx: InferContext | None, attrs: Any) -> Window:
    """The window of a convolution's attributes; a bad one raises naming the op (``ctx``) or
    as :class:`WindowError` (``ctx`` is None)."""
    try:
        return convWindow(
            ctx.opType if ctx else "Conv2D",
            attrs["strides"],
            attrs["padding"],
            attrs["data_format"],
            attrs["dilations"],
            attrs["explicit_paddings"],
        )
    except WindowError as e:
        if ctx is None:
            raise
        raise ctx.error(str(e)) from None


def dims4(ctx: InferContext, i: int, name: str, fmt: str | None) -> Dims:
    """Input ``i``'s static shape, which must be 4-D: as (batch, height, width, channels) when
    ``fmt`` is a data format, as it is otherwise (a filter); -1 where unknown."""
    shape = ctx.shapes[i]
    if shape.numDimensions() not in (-1, 4):
        raise ctx.error(f"{name} must be 4-dimensional, got shape {shape}")
    dims = shape.asArray()
    if dims is None:
        return UNKNOWN
    a, b, c, d = dims
    return fromFormat(dims, fmt) if fmt else (a, b, c, d)


def sizesOf(ctx: InferContext, i: int, name: str, lengths: Sequence[int]) -> Shape:
    """What a sizes input (``input_sizes``, ``filter_sizes``) holds at construction; it must
    be a vector of one of ``lengths`` non-negative values."""
    sizes = shapeValue(ctx, i)
    value = ctx.constants[i]
    if value is not None and (value < 0).any():
        raise ctx.error(f"{name} must not be negative, got {value.tolist()}")
    if sizes.numDimensions() not in (-1, *lengths):
        expected = " or ".join(str(n) for n in lengths)
        raise ctx.error(f"{name} must have {expected} elements, got {sizes.numDimensions()}")
    return sizes


def convOutput(ctx: InferContext, window: Window, x: Dims, f: Dims, depthwise: bool) -> Dims:
    """The (batch, height, width, channels) a convolution makes of input ``x`` and filter ``f``,
    as much as they are known; raises naming the op for shapes that do not go together."""
    n, h, w, c = x
    kh, kw, fc, fo = f
    if all(d >= 0 for d in (*x, *f)):
        try:
            shapes = convShapes(window, x, f, depthwise)
        except WindowError as e:
            raise ctx.error(str(e)) from None
        return n, shapes.sizes.outH, shapes.sizes.outW, shapes.outChannels
    if 0 in (kh, kw, fc, fo):
        raise ctx.error(
            f"the filter must not be empty (every dimension positive), got shape {list(f)}"
        )
    out = fo
    if c >= 0 and fc >= 0:
        try:
            _, out = convChannels(c, fc, fo, depthwise)
        except WindowError as e:
            raise ctx.error(str(e)) from None
    elif depthwise:  # the input's depth is the filter's
        depth = fc if fc >= 0 else c
        out = depth * fo if depth >= 0 and fo >= 0 else -1
    sized = window.withKernel((max(kh, 1), max(kw, 1)))

    def spatial(size: int, k: int, axis: int) -> int:
        if size < 0 or (k < 0 and window.padding != "SAME"):
            return -1
        try:
            return sized.outputSize(size, axis)[0]
        except WindowError as e:
            raise ctx.error(str(e)) from None

    return n, spatial(h, kh, 0), spatial(w, kw, 1), out


def convOptions(op: GradOp) -> dict[str, Any]:
    """The options a gradient op takes from its forward convolution (as TensorFlow's rules
    pass every attribute on)."""
    options: dict[str, Any] = {
        "explicitPaddings": list(op.attr("explicit_paddings")),
        "dataFormat": str(op.attr("data_format")),
        "dilations": list(op.attr("dilations")),
    }
    if op.operation().type().startswith("Conv2D"):
        options["useCudnnOnGpu"] = bool(op.attr("use_cudnn_on_gpu"))
    return options


def convExample(*lines: str, result: str) -> str:
    """A doctest: the statements ``lines`` (the last one's value is ``y``), then ``y``'s value
    (``result``; its whitespace, line breaks included, is free)."""
    body = "".join(f">>> {line}\n" for line in lines[:-1])
    return (
        ">>> g = Graph(); tf = Ops.create(g)\n"
        f"{body}>>> y = {lines[-1]}\n"
        ">>> Session(g).runner().fetch(y).run()[0].tolist()\n"
        f"{result}"
    )


CONV_TYPES = FLOATS + (TInt32,)


# -- Conv2D ------------------------------------------------------------------------------------
def _conv2dShape(ctx: InferContext) -> Sequence[Shape]:
    window = convWindowOf(ctx, ctx.attrs)
    fmt = str(ctx.attrs["data_format"])
    x = dims4(ctx, 0, "input", fmt)
    f = dims4(ctx, 1, "filter", None)
    return [Shape.of(*toFormat(convOutput(ctx, window, x, f, depthwise=False), fmt))]


registerOp(
    OpDef(
        type="Conv2D",
        group="nn",
        className="Conv2d",
        defaultName="Conv2d",
        summary="Computes a 2-D convolution given 4-D `input` and `filter` tensors.",
        description=(
            "With the default NHWC layout, ``input`` is ``[batch, in_height, in_width,\n"
            "in_channels]`` and ``filter`` is ``[filter_height, filter_width, in_channels,\n"
            "out_channels]``; each output pixel is the dot product of the filter with the image\n"
            "patch under it (a cross-correlation, the filter is not flipped):\n"
            "``output[b, i, j, k] = sum_{di, dj, q} input[b, strides[1] * i + dilations[1] * di,\n"
            "strides[2] * j + dilations[2] * dj, q] * filter[di, dj, q, k]``, the input padded\n"
            "as ``padding`` says. VALID keeps the windows that fit; SAME makes\n"
            "``ceil(in / stride)`` outputs per dimension, padding with zeros what they need (the\n"
            "odd row or column after); EXPLICIT pads by ``explicit_paddings``. When the input\n"
            "has a multiple of the filter's ``in_channels``, the channels form groups, each\n"
            "convolved with its share of the output channels (a grouped convolution).\n\n"
            "As in TensorFlow, the shape rule refuses a window larger than the padded input,\n"
            "while at run time (shapes not known before) a window that overhangs by less than\n"
            "a stride gives an empty output, as TensorFlow's kernels compute it.\n\n"
            "Differences from TensorFlow: float16 is accumulated in float32 and rounded once;\n"
            "``use_cudnn_on_gpu`` is accepted and ignored; strides or dilations in the batch or\n"
            "depth dimension are rejected when the op is created (TensorFlow's kernels reject\n"
            "them when run); NCHW runs on every backend (TensorFlow's CPU kernels take NHWC\n"
            "only)."
        ),
        inputs=(
            InputDef("input", "a 4-D tensor in the layout of ``data_format``", typeAttr="T"),
            InputDef(
                "filter",
                "a 4-D tensor ``[filter_height, filter_width, in_channels, out_channels]``",
                typeAttr="T",
            ),
        ),
        outputs=(
            OutputDef("output", "a 4-D tensor in the layout of ``data_format``", typeAttr="T"),
        ),
        attrs=convAttrs(CONV_TYPES, cudnn=True),
        infer=_conv2dShape,
        example=convExample(
            "x = tf.constant(np.arange(9.0).reshape(1, 3, 3, 1))",
            "f = tf.constant(np.ones((2, 2, 1, 1)))",
            'tf.nn.conv2d(x, f, [1, 1, 1, 1], "VALID")',
            result="[[[[8.0], [12.0]], [[20.0], [24.0]]]]",
        ),
    )
)


@registerGradient("Conv2D")
def _conv2dGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    strides, padding, options = list(op.attr("strides")), str(op.attr("padding")), convOptions(op)
    x, f = op.x(0), op.x(1)
    dx = (
        tf.nn.conv2dBackpropInput(tf.shape(x), f, g, strides, padding, **options)
        if op.needs(0)
        else None
    )
    df = (
        tf.nn.conv2dBackpropFilter(x, tf.shape(f), g, strides, padding, **options)
        if op.needs(1)
        else None
    )
    return [dx, df]


# -- the shape rules of the gradient ops (also DepthwiseConv2dNative's) ---------------------
def inputSizes(ctx: InferContext, fmt: str, dy: Dims, f: Dims, lengths: Sequence[int]) -> Dims:
    """The (batch, height, width, channels) ``input_sizes`` (input 0) gives: 4 values in the
    order of ``data_format``, or (where ``lengths`` allows) the 2 spatial ones, the batch then
    from ``out_backprop`` and the depth from the filter."""
    sizes = sizesOf(ctx, 0, "input_sizes", lengths)
    dims = sizes.asArray()
    if dims is None:
        return UNKNOWN
    if len(dims) == 4:
        return fromFormat(dims, fmt)
    return dy[0], dims[0], dims[1], f[2]


def checkBackprop(
    ctx: InferContext, window: Window, x: Dims, f: Dims, dy: Dims, depthwise: bool
) -> None:
    """``out_backprop`` (``dy``) has the shape the convolution of ``x`` by ``f`` makes, as
    far as they are known."""
    expected = convOutput(ctx, window, x, f, depthwise)
    if any(a >= 0 and b >= 0 and a != b for a, b in zip(expected, dy, strict=True)):
        fmt = str(ctx.attrs["data_format"])
        shown = [d if d >= 0 else None for d in toFormat(expected, fmt)]
        raise ctx.error(
            f"out_backprop has shape {list(toFormat(dy, fmt))}, but the convolution of an input "
            f"of shape {list(toFormat(x, fmt))} by a filter of shape {list(f)} gives {shown} "
            "(None: not known yet)"
        )


def backpropInputShape(ctx: InferContext, depthwise: bool) -> Sequence[Shape]:
    """The shape rule of Conv2DBackpropInput and DepthwiseConv2dNativeBackpropInput."""
    window = convWindowOf(ctx, ctx.attrs)
    fmt = str(ctx.attrs["data_format"])
    f = dims4(ctx, 1, "filter", None)
    dy = dims4(ctx, 2, "out_backprop", fmt)
    x = inputSizes(ctx, fmt, dy, f, (4,) if depthwise else (2, 4))
    checkBackprop(ctx, window, x, f, dy, depthwise)
    return [Shape.of(*toFormat(x, fmt))]


def filterSizes(ctx: InferContext) -> Dims:
    """The filter shape ``filter_sizes`` (input 1) gives, -1 where unknown."""
    dims = sizesOf(ctx, 1, "filter_sizes", (4,)).asArray()
    if dims is None:
        return UNKNOWN
    a, b, c, d = dims
    return a, b, c, d


def backpropFilterShape(ctx: InferContext, depthwise: bool) -> Sequence[Shape]:
    """The shape rule of Conv2DBackpropFilter and DepthwiseConv2dNativeBackpropFilter."""
    window = convWindowOf(ctx, ctx.attrs)
    fmt = str(ctx.attrs["data_format"])
    x = dims4(ctx, 0, "input", fmt)
    dy = dims4(ctx, 2, "out_backprop", fmt)
    f = filterSizes(ctx)
    checkBackprop(ctx, window, x, f, dy, depthwise)
    return [Shape.of(*f)]
