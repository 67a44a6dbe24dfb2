"""Conv2D's gradient ops (``tfops.op.nn``): Conv2DBackpropInput (the gradient for the
input, a transposed convolution) and Conv2DBackpropFilter (for the filter), each a real op that
is differentiable in turn, as in TensorFlow. Their attributes and shape rules are those of
:mod:`tfops.spec.nn_conv`, which Conv2D's gradient builds them from.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfops.opdef import InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.spec.grad import GradOp, Grads, registerGradient
from tfops.spec.nn_conv import (
    CONV_TYPES,
    backpropFilterShape,
    backpropInputShape,
    convAttrs,
    convExample,
    convOptions,
)
from tfops.spec.rules import FLOATS
from tfops.types import TFloating, TInt32

if TYPE_CHECKING:
    from tfops.ops import Ops


_DIFFERENCES = (
    "Differences from TensorFlow: dilations, groups and NCHW are computed on every\n"
    "backend (TensorFlow's CPU kernels refuse them here; its XLA and GPU kernels take\n"
    "them); float16 is accumulated in float32."
)
"""The last paragraph of both ops' descriptions."""

_OUT_BACKPROP = InputDef(
    "out_backprop",
    "the gradient of the convolution's output, 4-D in the layout of ``data_format``",
    typeAttr="T",
)


# -- Conv2DBackpropInput -----------------------------------------------------------------------
registerOp(
    OpDef(
        type="Conv2DBackpropInput",
        group="nn",
        className="Conv2dBackpropInput",
        defaultName="Conv2dBackpropInput",
        summary="Computes the gradients of convolution with respect to the input.",
        description=(
            "The gradient of Conv2D for its ``input``: ``out_backprop``, the gradient of the\n"
            "convolution's output, is spread back over the input positions each output read,\n"
            "weighted by the filter (a transposed convolution). The attributes are those of\n"
            "the forward convolution. ``input_sizes`` is the input's shape: 4 values in the\n"
            "order of ``data_format``, or the 2 spatial ones (the batch then comes from\n"
            "``out_backprop`` and the depth from the filter). Input positions no window read\n"
            "(rows and columns VALID leaves over) get 0.\n\n"
        )
        + _DIFFERENCES,
        inputs=(
            InputDef(
                "input_sizes",
                "the shape of the convolution's input, a vector of 4 (or 2) int32",
                dtype=TInt32,
            ),
            InputDef(
                "filter",
                "the convolution's filter, ``[filter_height, filter_width, "
                "in_channels, out_channels]``",
                typeAttr="T",
            ),
            _OUT_BACKPROP,
        ),
        outputs=(
            OutputDef(
                "output",
                "the gradient with respect to the convolution's input, of shape ``input_sizes``",
                typeAttr="T",
            ),
        ),
        attrs=convAttrs(CONV_TYPES, cudnn=True),
        infer=lambda ctx: backpropInputShape(ctx, depthwise=False),
        example=convExample(
            "f = tf.constant(np.ones((2, 2, 1, 1)))",
            "dy = tf.constant(np.ones((1, 2, 2, 1)))",
            'tf.nn.conv2dBackpropInput(tf.constant([1, 3, 3, 1]), f, dy, [1, 1, 1, 1], "VALID")',
            result="[[[[1.0], [2.0], [1.0]], [[2.0], [4.0], [2.0]], [[1.0], [2.0], [1.0]]]]",
        ),
    )
)


@registerGradient("Conv2DBackpropInput")
def _conv2dBackpropInputGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    strides, padding, options = list(op.attr("strides")), str(op.attr("padding")), convOptions(op)
    f, dy = op.x(1), op.x(2)
    df = (
        tf.nn.conv2dBackpropFilter(g, tf.shape(f), dy, strides, padding, **options)
        if op.needs(1)
        else None
    )
    ddy = tf.nn.conv2d(g, f, strides, padding, **options) if op.needs(2) else None
    return [None, df, ddy]


registerOp(
    OpDef(
        type="Conv2DBackpropFilter",
        group="nn",
        className="Conv2dBackpropFilter",
        defaultName="Conv2dBackpropFilter",
        summary="Computes the gradients of convolution with respect to the filter.",
        description=(
            "The gradient of Conv2D for its ``filter``: each filter element's gradient is the\n"
            "sum, over the batch and the output positions, of ``out_backprop`` times the input\n"
            "element that filter element met there. The attributes are those of the forward\n"
            "convolution; ``filter_sizes`` is the filter's shape.\n\n"
        )
        + _DIFFERENCES,
        inputs=(
            InputDef(
                "input",
                "the convolution's input, 4-D in the layout of ``data_format``",
                typeAttr="T",
            ),
            InputDef(
                "filter_sizes",
                "the shape of the filter, ``[filter_height, filter_width, "
                "in_channels, out_channels]``, 4 int32",
                dtype=TInt32,
            ),
            _OUT_BACKPROP,
        ),
        outputs=(
            OutputDef(
                "output",
                "the gradient with respect to the filter, of shape ``filter_sizes``",
                typeAttr="T",
            ),
        ),
        attrs=convAttrs(FLOATS, cudnn=True),
        infer=lambda ctx: backpropFilterShape(ctx, depthwise=False),
        example=convExample(
            "x = tf.constant(np.arange(9.0).reshape(1, 3, 3, 1))",
            "dy = tf.constant(np.ones((1, 2, 2, 1)))",
            'tf.nn.conv2dBackpropFilter(x, tf.constant([2, 2, 1, 1]), dy, [1, 1, 1, 1], "VALID")',
            result="[[[[8.0]], [[12.0]]], [[[20.0]], [[24.0]]]]",
        ),
    )
)


@registerGradient("Conv2DBackpropFilter")
def _conv2dBackpropFilterGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    strides, padding, options = list(op.attr("strides")), str(op.attr("padding")), convOptions(op)
    x, dy = op.x(0), op.x(2)
    dx = (
        tf.nn.conv2dBackpropInput(tf.shape(x), g, dy, strides, padding, **options)
        if op.needs(0)
        else None
    )
    ddy = tf.nn.conv2d(x, g, strides, padding, **options) if op.needs(2) else None
    return [dx, None, ddy]
