"""Depthwise convolution ops (``tfops.op.nn``): DepthwiseConv2dNative and its two gradient ops.

A depthwise convolution convolves each input channel with its own filters, ``channel_multiplier``
of them: the grouped convolution of :mod:`tfops.spec.nn_conv` with one group per input channel.
It differentiates, as in TensorFlow, through DepthwiseConv2dNativeBackpropInput and
DepthwiseConv2dNativeBackpropFilter, each differentiable in turn.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tfops.opdef import InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, registerGradient
from tfops.spec.nn_conv import (
    backpropFilterShape,
    backpropInputShape,
    convAttrs,
    convOptions,
    convOutput,
    convWindowOf,
    dims4,
)
from tfops.spec.nn_window import toFormat
from tfops.spec.rules import FLOATS
from tfops.types import TFloating, TInt32

if TYPE_CHECKING:
    from tfops.ops import Ops

_DIFFERENCES = (
    "Differences from TensorFlow: float16 is accumulated in float32 and rounded once; NCHW and\n"
    "dilations are computed on every backend, as TensorFlow's XLA kernels compute them\n"
    "(TensorFlow's CPU kernels take NHWC only, refuse dilations in DepthwiseConv2dNative and\n"
    "ignore them in its gradient ops, whose results are then those of an undilated\n"
    "convolution); strides or dilations in the batch or depth dimension are rejected when the\n"
    "op is created."
)


def _example(*lines: str, result: str) -> str:
    """A doctest: the statements ``lines`` (the last one's value is ``y``), then ``y``'s value
    (``result``; its whitespace, line breaks included, is free)."""
    body = "".join(f">>> {line}\n" for line in lines[:-1])
    return (
        ">>> g = Graph(); tf = Ops.create(g)\n"
        f"{body}>>> y = {lines[-1]}\n"
        ">>> Session(g).runner().fetch(y).run()[0].tolist()\n"
        f"{result}"
    )


_FILTER_DOC = ("the filter, ``[filter_height, filter_width, in_channels, channel_multiplier]``")


# -- DepthwiseConv2dNative ---------------------------------------------------------------------
def _depthwiseShape(ctx: InferContext) -> Sequence[Shape]:
    window = convWindowOf(ctx, ctx.attrs)
    fmt = str(ctx.attrs["data_format"])
    x = dims4(ctx, 0, "input", fmt)
    f = dims4(ctx, 1, "filter", None)
    return [Shape.of(*toFormat(convOutput(ctx, window, x, f, depthwise=True), fmt))]


registerOp(
    OpDef(
        type="DepthwiseConv2dNative",
        group="nn",
        summary="Computes a 2-D depthwise convolution given 4-D `input` and `filter` tensors.",
        description=(
            "With the default NHWC layout, ``input`` is ``[batch, in_height, in_width,\n"
            "in_channels]`` and ``filter`` is ``[filter_height, filter_width, in_channels,\n"
            "channel_multiplier]``: each input channel is convolved with its own\n"
            "``channel_multiplier`` filters, and the output has ``in_channels *\n"
            "channel_multiplier`` channels, those of input channel ``k`` at ``k *\n"
            "channel_multiplier + q``:\n"
            "``output[b, i, j, k * channel_multiplier + q] = sum_{di, dj} input[b, strides[1] *\n"
            "i + dilations[1] * di, strides[2] * j + dilations[2] * dj, k] * filter[di, dj, k,\n"
            "q]``, the input padded as ``padding`` says (as Conv2D).\n\n" + _DIFFERENCES
        ),
        inputs=(
            InputDef("input", "a 4-D tensor in the layout of ``data_format``", typeAttr="T"),
            InputDef("filter", _FILTER_DOC, typeAttr="T"),
        ),
        outputs=(OutputDef("output", "a 4-D tensor in the layout of ``data_format``",
                           typeAttr="T"),),
        attrs=convAttrs(FLOATS, cudnn=False),
        infer=_depthwiseShape,
        example=_example(
            "x = tf.constant(np.arange(8.0).reshape(1, 2, 2, 2))",
            "f = tf.constant(np.array([1.0, 10.0, 2.0, 20.0]).reshape(1, 1, 2, 2))",
            "tf.nn.depthwiseConv2dNative(x, f, [1, 1, 1, 1], \"VALID\")",
            result="[[[[0.0, 0.0, 2.0, 20.0], [2.0, 20.0, 6.0, 60.0]],\n"
            " [[4.0, 40.0, 10.0, 100.0], [6.0, 60.0, 14.0, 140.0]]]]"),
    )
)


@registerGradient("DepthwiseConv2dNative")
def _depthwiseGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    strides, padding, options = list(op.attr("strides")), str(op.attr("padding")), convOptions(op)
    x, f = op.x(0), op.x(1)
    dx = tf.nn.depthwiseConv2dNativeBackpropInput(tf.shape(x), f, g, strides, padding,
                                                  **options) if op.needs(0) else None
    df = tf.nn.depthwiseConv2dNativeBackpropFilter(x, tf.shape(f), g, strides, padding,
                                                   **options) if op.needs(1) else None
    return [dx, df]


# -- the gradient ops --------------------------------------------------------------------------
registerOp(
    OpDef(
        type="DepthwiseConv2dNativeBackpropInput",
        group="nn",
        summary="Computes the gradients of depthwise convolution with respect to the input.",
        description=(
            "The gradient of DepthwiseConv2dNative for its ``input``: ``out_backprop`` spread\n"
            "back over the input positions each output read, weighted by the filter. The\n"
            "attributes are those of the forward convolution; ``input_sizes`` is the input's\n"
            "shape, 4 values in the order of ``data_format``.\n\n" + _DIFFERENCES
        ),
        inputs=(
            InputDef("input_sizes", "the shape of the convolution's input, 4 int32",
                     dtype=TInt32),
            InputDef("filter", _FILTER_DOC, typeAttr="T"),
            InputDef("out_backprop", "the gradient of the convolution's output, 4-D in the "
                     "layout of ``data_format``", typeAttr="T"),
        ),
        outputs=(OutputDef("output", "the gradient with respect to the convolution's input, of "
                           "shape ``input_sizes``", typeAttr="T"),),
        attrs=convAttrs(FLOATS, cudnn=False),
        infer=lambda ctx: backpropInputShape(ctx, depthwise=True),
        example=_example(
            "f = tf.constant(np.array([1.0, 10.0]).reshape(1, 1, 1, 2))",
            "dy = tf.constant(np.ones((1, 2, 2, 2)))",
            "sizes = tf.constant([1, 2, 2, 1])",
            "tf.nn.depthwiseConv2dNativeBackpropInput(sizes, f, dy, [1, 1, 1, 1], \"VALID\")",
            result="[[[[11.0], [11.0]], [[11.0], [11.0]]]]"),
    )
)


@registerGradient("DepthwiseConv2dNativeBackpropInput")
def _depthwiseBackpropInputGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    strides, padding, options = list(op.attr("strides")), str(op.attr("padding")), convOptions(op)
    f, dy = op.x(1), op.x(2)
    df = tf.nn.depthwiseConv2dNativeBackpropFilter(g, tf.shape(f), dy, strides, padding,
                                                   **options) if op.needs(1) else None
    ddy = tf.nn.depthwiseConv2dNative(g, f, strides, padding, **options) if op.needs(2) \
        else None
    return [None, df, ddy]


registerOp(
    OpDef(
        type="DepthwiseConv2dNativeBackpropFilter",
        group="nn",
        summary="Computes the gradients of depthwise convolution with respect to the filter.",
        description=(
            "The gradient of DepthwiseConv2dNative for its ``filter``: each filter element's\n"
            "gradient is the sum, over the batch and the output positions, of\n"
            "``out_backprop`` times the input element that filter element met there. The\n"
            "attributes are those of the forward convolution; ``filter_sizes`` is the\n"
            "filter's shape.\n\n" + _DIFFERENCES
        ),
        inputs=(
            InputDef("input", "the convolution's input, 4-D in the layout of ``data_format``",
                     typeAttr="T"),
            InputDef("filter_sizes", "the shape of the filter, ``[filter_height, filter_width, "
                     "in_channels, channel_multiplier]``, 4 int32", dtype=TInt32),
            InputDef("out_backprop", "the gradient of the convolution's output, 4-D in the "
                     "layout of ``data_format``", typeAttr="T"),
        ),
        outputs=(OutputDef("output", "the gradient with respect to the filter, of shape "
                           "``filter_sizes``", typeAttr="T"),),
        attrs=convAttrs(FLOATS, cudnn=False),
        infer=lambda ctx: backpropFilterShape(ctx, depthwise=True),
        example=_example(
            "x = tf.constant(np.arange(4.0).reshape(1, 2, 2, 1))",
            "dy = tf.constant(np.ones((1, 2, 2, 2)))",
            "sizes = tf.constant([1, 1, 1, 2])",
            "tf.nn.depthwiseConv2dNativeBackpropFilter(x, sizes, dy, [1, 1, 1, 1], \"VALID\")",
            result="[[[[6.0, 6.0]]]]"),
    )
)


@registerGradient("DepthwiseConv2dNativeBackpropFilter")
def _depthwiseBackpropFilterGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    strides, padding, options = list(op.attr("strides")), str(op.attr("padding")), convOptions(op)
    x, dy = op.x(0), op.x(2)
    dx = tf.nn.depthwiseConv2dNativeBackpropInput(tf.shape(x), g, dy, strides, padding,
                                                  **options) if op.needs(0) else None
    ddy = tf.nn.depthwiseConv2dNative(x, g, strides, padding, **options) if op.needs(2) else None
    return [dx, None, ddy]
