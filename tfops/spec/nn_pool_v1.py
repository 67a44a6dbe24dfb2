"""TensorFlow's first max pooling ops (``tfops.op.nn``): MaxPool, MaxPoolGrad and
MaxPoolGradGrad, whose window sizes and strides are attributes.

These are the ops TensorFlow 2 programs write: ``tf.nn.max_pool2d`` and Keras' ``MaxPooling2D``
make a ``MaxPool`` node, and its gradient a ``MaxPoolGrad``. TensorFlow Java skips them (its
``MaxPool`` class is the op MaxPoolV2, whose sizes are inputs; see :mod:`tfops.spec.nn_pool`),
so it has no class name for them; their classes are TensorFlow's op names with ``V1``:
``MaxPoolV1``, ``MaxPoolGradV1``, ``MaxPoolGradGradV1``. They compute what the V2 ops compute,
with the same kernels. As in TensorFlow, MaxPool differentiates through MaxPoolGrad, MaxPoolGrad
through MaxPoolGradGrad, and MaxPoolGradGrad through MaxPoolGrad.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, registerGradient
from tfops.spec.nn_conv import UNKNOWN, dims4
from tfops.spec.nn_pool import (
    FORMAT_ATTR,
    POOL_DIFFERENCES,
    SIZE_ATTRS,
    checkGradient,
    pooled,
    poolExample,
    sameDims,
)
from tfops.spec.nn_window import Window, WindowError, poolWindow, toFormat
from tfops.spec.rules import NUMBERS
from tfops.types import TFloating

if TYPE_CHECKING:
    from tfops.ops import Ops

__all__ = ["V1_PADDINGS"]

V1_PADDINGS: dict[str, tuple[str, ...]] = {
    "MaxPool": ("SAME", "VALID", "EXPLICIT"),
    "MaxPoolGrad": ("SAME", "VALID", "EXPLICIT"),
    "MaxPoolGradGrad": ("SAME", "VALID"),
}
"""The paddings each op takes (TensorFlow's definitions: MaxPoolGradGrad has no EXPLICIT)."""

_PADDING_EXPLICIT = AttrDef(
    "padding", "string", 'the padding algorithm: "SAME", "VALID" or "EXPLICIT"', param="padding"
)
_PADDING = AttrDef("padding", "string", 'the padding algorithm: "SAME" or "VALID"', param="padding")
_EXPLICIT = AttrDef(
    "explicit_paddings",
    "list(int)",
    'with "EXPLICIT" padding, the padding '
    "before and after each dimension, 8 values in the order of "
    "``data_format`` (0 for the batch and the depth; each smaller than the "
    "window); empty otherwise",
    default=(),
    option="explicitPaddings",
)
_T = AttrDef("T", "type", allowed=NUMBERS)

_NAMING = (
    "TensorFlow Java has no class for this op (it skips TensorFlow's first max pooling ops):\n"
    "the name is TensorFlow's op name with V1, as TF Java's name without it is taken by the\n"
    "V2 op, whose window sizes and strides are inputs."
)


def v1Window(ctx: InferContext) -> Window:
    """The window of a V1 op's attributes; a bad one raises naming the op."""
    try:
        return poolWindow(
            ctx.opType,
            ctx.attrs["ksize"],
            ctx.attrs["strides"],
            str(ctx.attrs["padding"]),
            str(ctx.attrs["data_format"]),
            ctx.attrs.get("explicit_paddings", ()),
            V1_PADDINGS[ctx.opType],
        )
    except WindowError as e:
        raise ctx.error(str(e)) from None


def _maxPoolShape(ctx: InferContext) -> Sequence[Shape]:
    fmt = str(ctx.attrs["data_format"])
    window = v1Window(ctx)
    return [Shape.of(*toFormat(pooled(ctx, window, dims4(ctx, 0, "input", fmt)), fmt))]


registerOp(
    OpDef(
        type="MaxPool",
        group="nn",
        className="MaxPoolV1",
        defaultName="MaxPool",
        summary="Performs max pooling on the input.",
        description=(
            "Each output element is the largest element of its window of ``input``: windows of\n"
            "``ksize`` moved by ``strides`` over the height and the width. VALID keeps the\n"
            "windows that fit; SAME makes ``ceil(in / stride)`` outputs per dimension, the\n"
            "windows at the border holding fewer elements; EXPLICIT pads by\n"
            "``explicit_paddings``. Padding is never the maximum. As TensorFlow's CPU kernel,\n"
            "the maximum skips NaN and is at least the type's lowest value.\n\n"
            "This is TensorFlow's op ``MaxPool`` (``tf.nn.max_pool2d``, Keras' MaxPooling2D),\n"
            "whose ``ksize`` and ``strides`` are attributes; TF Java's ``MaxPool``\n"
            "(``tf.nn.maxPool``) is the op MaxPoolV2, the same computation with them as inputs.\n"
            + _NAMING
            + "\n\n"
            + POOL_DIFFERENCES
        ),
        inputs=(InputDef("input", "a 4-D tensor in the layout of ``data_format``", typeAttr="T"),),
        outputs=(
            OutputDef(
                "output",
                "the max pooled output, 4-D in the layout of ``data_format``",
                typeAttr="T",
            ),
        ),
        attrs=(_T, *SIZE_ATTRS, _PADDING_EXPLICIT, _EXPLICIT, FORMAT_ATTR),
        infer=_maxPoolShape,
        example=poolExample(
            "x = tf.constant(np.arange(16.0).reshape(1, 4, 4, 1))",
            'tf.nn.maxPoolV1(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")',
            result="[[[[5.0], [7.0]], [[13.0], [15.0]]]]",
        ),
    )
)


def _options(op: GradOp, explicit: bool) -> dict[str, Any]:
    options: dict[str, Any] = {"dataFormat": str(op.attr("data_format"))}
    if explicit:
        options["explicitPaddings"] = list(op.attr("explicit_paddings"))
    return options


def _sizes(op: GradOp) -> tuple[list[int], list[int], str]:
    return list(op.attr("ksize")), list(op.attr("strides")), str(op.attr("padding"))


@registerGradient("MaxPool")
def _maxPoolGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.nn.maxPoolGradV1(op.x(0), op.y(), g, *_sizes(op), **_options(op, True))]


# -- MaxPoolGrad and MaxPoolGradGrad -----------------------------------------------------------
def _maxPoolGradShape(ctx: InferContext, second: bool) -> Sequence[Shape]:
    fmt = str(ctx.attrs["data_format"])
    x = dims4(ctx, 0, "orig_input", fmt)
    y = dims4(ctx, 1, "orig_output", fmt)
    g = dims4(ctx, 2, "grad", fmt)
    expected = pooled(ctx, v1Window(ctx), x)
    checkGradient(ctx, "orig_output", y, expected)
    y = sameDims(y, expected)
    if second:  # grad is a gradient of the input; the result, of the output
        checkGradient(ctx, "grad", g, x)
        return [Shape.of(*toFormat(sameDims(y, UNKNOWN), fmt))]
    checkGradient(ctx, "grad", g, y)
    return [Shape.of(*toFormat(x, fmt))]


def _maxPoolGradOp(opType: str, second: bool, description: str, example: str) -> None:
    registerOp(
        OpDef(
            type=opType,
            group="nn",
            className=opType + "V1",
            defaultName=opType,
            summary=(
                "Computes second-order gradients of the maxpooling function."
                if second
                else "Computes gradients of the maxpooling function."
            ),
            description=description + "\n\n" + _NAMING + "\n\n" + POOL_DIFFERENCES,
            inputs=(
                InputDef("orig_input", "the input of the max pooling", typeAttr="T"),
                InputDef("orig_output", "the output of the max pooling", typeAttr="T"),
                InputDef(
                    "grad",
                    "the gradient of the pooling's input, of its shape"
                    if second
                    else "the gradient of the pooling's output, of its shape",
                    typeAttr="T",
                ),
            ),
            outputs=(
                OutputDef(
                    "output",
                    "the gradient for the pooling's output (of its shape)"
                    if second
                    else "the gradient for the pooling's input (of its shape)",
                    typeAttr="T",
                ),
            ),
            attrs=(*SIZE_ATTRS, _PADDING, FORMAT_ATTR, _T)
            if second
            else (*SIZE_ATTRS, _PADDING_EXPLICIT, _EXPLICIT, FORMAT_ATTR, _T),
            infer=lambda ctx: _maxPoolGradShape(ctx, second),
            example=example,
        )
    )


_maxPoolGradOp(
    "MaxPoolGrad",
    False,
    "The gradient of TensorFlow's MaxPool (``MaxPoolV1``) for its input, what MaxPoolGradV2\n"
    "(TF Java's ``MaxPoolGrad``) computes: each window's ``grad`` goes to the position of its\n"
    "maximum in ``orig_input``, the first in row-major order among equal maxima; a position\n"
    "that is several windows' maximum gets the sum. ``orig_output`` gives only the shape.",
    poolExample(
        "x = tf.constant([[[[1.0], [3.0]], [[3.0], [2.0]]]])",
        "y, grad = tf.constant([[[[3.0]]]]), tf.constant([[[[5.0]]]])",
        'tf.nn.maxPoolGradV1(x, y, grad, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")',
        result="[[[[0.0], [5.0]], [[0.0], [0.0]]]]",
    ),
)
_maxPoolGradOp(
    "MaxPoolGradGrad",
    True,
    "The gradient of MaxPoolGrad (``MaxPoolGradV1``) for its ``grad`` input, what\n"
    "MaxPoolGradGradV2 (TF Java's ``MaxPoolGradGrad``) computes: each window of ``grad`` (a\n"
    "tensor of the pooling's input shape) gives the element at the first position where\n"
    "``orig_input`` equals ``orig_output``, 0 where none does (a NaN maximum). Unlike the V2\n"
    "op it has a gradient in TensorFlow: MaxPoolGrad, for its ``grad``.",
    poolExample(
        "x = tf.constant([[[[1.0], [3.0]], [[3.0], [2.0]]]])",
        "grad = tf.constant([[[[5.0], [6.0]], [[7.0], [8.0]]]])",
        "pooled = tf.constant([[[[3.0]]]])",
        'tf.nn.maxPoolGradGradV1(x, pooled, grad, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")',
        result="[[[[6.0]]]]",
    ),
)


@registerGradient("MaxPoolGrad")
def _maxPoolGradGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    x, y = op.x(0), op.x(1)
    return [
        tf.zerosLike(x),
        tf.zerosLike(y),
        tf.nn.maxPoolGradGradV1(x, y, g, *_sizes(op), **_options(op, False)),
    ]


@registerGradient("MaxPoolGradGrad")
def _maxPoolGradGradGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    x, y = op.x(0), op.x(1)
    return [
        tf.zerosLike(x),
        tf.zerosLike(y),
        tf.nn.maxPoolGradV1(x, y, g, *_sizes(op), **_options(op, False)),
    ]
