"""Pooling ops (``tfops.op.nn``): MaxPool, AvgPool and their gradient ops.

TF Java's ``MaxPool`` is the op MaxPoolV2, whose window sizes and strides are int32 inputs
(constant ones give a static output shape); it differentiates through MaxPoolGradV2 (TF Java's
``MaxPoolGrad``), which differentiates through MaxPoolGradGradV2 (``MaxPoolGradGrad``), which
has no gradient in TensorFlow. AvgPool differentiates through AvgPoolGrad, which differentiates
through AvgPool. The window geometry is :mod:`tfops.spec.nn_window`. TensorFlow's first max
pooling ops, whose window sizes are attributes (``tf.nn.max_pool2d`` writes them), are
:mod:`tfops.spec.nn_pool_v1`, built from the pieces this module exports.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, notDifferentiable, registerGradient
from tfops.spec.nn_conv import UNKNOWN, Dims, dims4, sizesOf
from tfops.spec.nn_window import Window, WindowError, poolWindow, toFormat
from tfops.spec.rules import FLOATS, NUMBERS
from tfops.types import TFloating, TInt32

if TYPE_CHECKING:
    from tfops.ops import Ops

__all__ = [
    "FORMAT_ATTR",
    "POOL_DIFFERENCES",
    "SIZE_ATTRS",
    "checkGradient",
    "poolExample",
    "poolWindowOf",
    "pooled",
    "sameDims",
]

_PADDING = AttrDef("padding", "string", 'the padding algorithm: "SAME" or "VALID"',
                   param="padding")
FORMAT_ATTR = AttrDef("data_format", "string", 'the layout of the input and output: "NHWC" '
                  '(batch, height, width, channels) or "NCHW"', default="NHWC",
                  option="dataFormat")
SIZE_ATTRS = (
    AttrDef("ksize", "list(int)", "the size of the window for each dimension of the input, in "
            "the order of ``data_format``; 1 for the batch and the depth", param="ksize"),
    AttrDef("strides", "list(int)", "the stride of the sliding window for each dimension of "
            "the input, in the order of ``data_format``; 1 for the batch and the depth",
            param="strides"),
)
_KSIZE_INPUT = InputDef("ksize", "the size of the window for each dimension of the input, 4 "
                        "int32 in the order of ``data_format``; 1 for the batch and the depth",
                        dtype=TInt32)
_STRIDES_INPUT = InputDef("strides", "the stride of the sliding window for each dimension of "
                          "the input, 4 int32 in the order of ``data_format``", dtype=TInt32)

POOL_DIFFERENCES = (
    "Differences from TensorFlow: NCHW runs on every backend (TensorFlow's CPU kernels take\n"
    "NHWC only); pooling over the depth dimension (a window or a stride other than 1 there) is\n"
    "refused when the op is created (TensorFlow's CPU MaxPool allows it with a 1 x 1 spatial\n"
    "window)."
)


def poolExample(*lines: str, result: str) -> str:
    """A doctest: the statements ``lines`` (the last one's value is ``y``), then ``y``'s value
    (``result``; its whitespace, line breaks included, is free)."""
    body = "".join(f">>> {line}\n" for line in lines[:-1])
    return (
        ">>> g = Graph(); tf = Ops.create(g)\n"
        f"{body}>>> y = {lines[-1]}\n"
        ">>> Session(g).runner().fetch(y).run()[0].tolist()\n"
        f"{result}"
    )


def poolWindowOf(ctx: InferContext, ksize: Sequence[int], strides: Sequence[int]) -> Window:
    """The window of a pooling op; a bad attribute raises naming the op."""
    try:
        return poolWindow(ctx.opType, ksize, strides, str(ctx.attrs["padding"]),
                          str(ctx.attrs["data_format"]))
    except WindowError as e:
        raise ctx.error(str(e)) from None


def _vector4(ctx: InferContext, i: int, name: str) -> list[int] | None:
    """The 4 values of the int32 input ``i`` when it is a constant (else None)."""
    shape = ctx.shapes[i]
    if shape.numDimensions() not in (-1, 1) or (shape.numDimensions() == 1 and
                                                 shape.size(0) not in (-1, 4)):
        raise ctx.error(f"{name} must be a vector of 4 values, got a tensor of shape {shape}")
    value = ctx.constants[i]
    return None if value is None else [int(v) for v in value.ravel().tolist()]


def pooled(ctx: InferContext, window: Window | None, x: Dims) -> Dims:
    """The (batch, height, width, channels) pooling ``x`` gives, as much as is known."""
    n, h, w, c = x
    if window is None:
        return n, -1, -1, c

    def spatial(size: int, axis: int) -> int:
        if size < 0:
            return -1
        try:
            return window.outputSize(size, axis)[0]
        except WindowError as e:
            raise ctx.error(str(e)) from None

    return n, spatial(h, 0), spatial(w, 1), c


def checkGradient(ctx: InferContext, name: str, got: Dims, expected: Dims) -> None:
    if any(a >= 0 and b >= 0 and a != b for a, b in zip(got, expected, strict=True)):
        fmt = str(ctx.attrs["data_format"])
        shown = [d if d >= 0 else None for d in toFormat(expected, fmt)]
        raise ctx.error(
            f"{name} has shape {[d if d >= 0 else None for d in toFormat(got, fmt)]}, but "
            f"pooling the input gives {shown} (None: not known yet)"
        )


def sameDims(a: Dims, b: Dims) -> Dims:
    n, h, w, c = (x if x >= 0 else y for x, y in zip(a, b, strict=True))
    return n, h, w, c


def _int32(op: GradOp, i: int) -> Output[TInt32]:
    """The int32 input ``i`` (``ksize``, ``strides``) of a forward op."""
    return cast("Output[TInt32]", op.input(i))


# -- MaxPoolV2 ---------------------------------------------------------------------------------
def _maxPoolShape(ctx: InferContext) -> Sequence[Shape]:
    fmt = str(ctx.attrs["data_format"])
    x = dims4(ctx, 0, "input", fmt)
    ksize, strides = _vector4(ctx, 1, "ksize"), _vector4(ctx, 2, "strides")
    window = poolWindowOf(ctx, ksize, strides) if ksize is not None and strides is not None \
        else None
    return [Shape.of(*toFormat(pooled(ctx, window, x), fmt))]


registerOp(
    OpDef(
        type="MaxPoolV2",
        group="nn",
        className="MaxPool",
        defaultName="MaxPool",
        summary="Performs max pooling on the input.",
        description=(
            "Each output element is the largest element of its window of ``input``: windows of\n"
            "``ksize`` moved by ``strides`` over the height and the width. VALID keeps the\n"
            "windows that fit; SAME makes ``ceil(in / stride)`` outputs per dimension, the\n"
            "windows at the border holding fewer elements (padding is never the maximum).\n"
            "``ksize`` and ``strides`` are tensors: constant ones give a static output shape.\n"
            "As TensorFlow's CPU kernel, the maximum skips NaN and is at least the type's\n"
            "lowest value: a window of NaN and -inf only gives the lowest finite value.\n\n"
            + POOL_DIFFERENCES
        ),
        inputs=(
            InputDef("input", "a 4-D tensor in the layout of ``data_format``", typeAttr="T"),
            _KSIZE_INPUT,
            _STRIDES_INPUT,
        ),
        outputs=(OutputDef("output", "the max pooled output, 4-D in the layout of "
                           "``data_format``", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=NUMBERS), _PADDING, FORMAT_ATTR),
        infer=_maxPoolShape,
        example=poolExample(
            "x = tf.constant(np.arange(16.0).reshape(1, 4, 4, 1))",
            "k = tf.constant([1, 2, 2, 1])",
            "tf.nn.maxPool(x, k, k, \"VALID\")",
            result="[[[[5.0], [7.0]], [[13.0], [15.0]]]]"),
    )
)


@registerGradient("MaxPoolV2")
def _maxPoolGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.nn.maxPoolGrad(op.x(0), op.y(), g, _int32(op, 1), _int32(op, 2),
                              str(op.attr("padding")), dataFormat=str(op.attr("data_format"))),
            None, None]


# -- MaxPoolGradV2 and MaxPoolGradGradV2 -------------------------------------------------------
def _maxPoolGradShape(ctx: InferContext, second: bool) -> Sequence[Shape]:
    fmt = str(ctx.attrs["data_format"])
    x = dims4(ctx, 0, "orig_input", fmt)
    y = dims4(ctx, 1, "orig_output", fmt)
    g = dims4(ctx, 2, "grad", fmt)
    ksize, strides = _vector4(ctx, 3, "ksize"), _vector4(ctx, 4, "strides")
    if ksize is not None and strides is not None:
        expected = pooled(ctx, poolWindowOf(ctx, ksize, strides), x)
        checkGradient(ctx, "orig_output", y, expected)
        y = sameDims(y, expected)
    if second:  # grad is a gradient of the input; the result, of the output
        checkGradient(ctx, "grad", g, x)
        return [Shape.of(*toFormat(sameDims(y, UNKNOWN), fmt))]
    checkGradient(ctx, "grad", g, y)
    return [Shape.of(*toFormat(x, fmt))]


def _maxPoolGradOp(opType: str, className: str, second: bool, summary: str,
                   description: str, example: str) -> None:
    registerOp(
        OpDef(
            type=opType,
            group="nn",
            className=className,
            defaultName=className,
            summary=summary,
            description=description,
            inputs=(
                InputDef("orig_input", "the input of the max pooling", typeAttr="T"),
                InputDef("orig_output", "the output of the max pooling", typeAttr="T"),
                InputDef("grad", "the gradient of the pooling's input, of its shape" if second
                         else "the gradient of the pooling's output, of its shape",
                         typeAttr="T"),
                _KSIZE_INPUT,
                _STRIDES_INPUT,
            ),
            outputs=(OutputDef("output", "the gradient for the pooling's output (of its shape)"
                               if second else "the gradient for the pooling's input (of its "
                               "shape)", typeAttr="T"),),
            attrs=(_PADDING, FORMAT_ATTR, AttrDef("T", "type", allowed=NUMBERS)),
            infer=lambda ctx: _maxPoolGradShape(ctx, second),
            example=example,
        )
    )


_maxPoolGradOp(
    "MaxPoolGradV2", "MaxPoolGrad", False,
    "Computes gradients of the maxpooling function.",
    "The gradient of MaxPool for its input: each window's ``grad`` goes to the position of its\n"
    "maximum in ``orig_input``, the first in row-major order among equal maxima; positions\n"
    "that are no window's maximum get 0, and a position that is several windows' maximum gets\n"
    "the sum. The maxima are found in ``orig_input`` again, as TensorFlow's CPU kernel finds\n"
    "them (``orig_output`` gives only the shape): a NaN is the maximum of a window only when\n"
    "it comes first in it.\n\n" + POOL_DIFFERENCES,
    poolExample(
        "x = tf.constant([[[[1.0], [3.0]], [[3.0], [2.0]]]])",
        "y, grad = tf.constant([[[[3.0]]]]), tf.constant([[[[5.0]]]])",
        "k = tf.constant([1, 2, 2, 1])",
        "tf.nn.maxPoolGrad(x, y, grad, k, k, \"VALID\")",
        result="[[[[0.0], [5.0]], [[0.0], [0.0]]]]"),
)
_maxPoolGradOp(
    "MaxPoolGradGradV2", "MaxPoolGradGrad", True,
    "Computes second-order gradients of the maxpooling function.",
    "The gradient of MaxPoolGrad for its ``grad`` input: each window of ``grad`` (a tensor of\n"
    "the pooling's input shape) gives the element at the first position where ``orig_input``\n"
    "equals ``orig_output`` (the window's maximum), 0 where none does (a NaN maximum). It has\n"
    "no gradient, as in TensorFlow.\n\n" + POOL_DIFFERENCES,
    poolExample(
        "x = tf.constant([[[[1.0], [3.0]], [[3.0], [2.0]]]])",
        "grad = tf.constant([[[[5.0], [6.0]], [[7.0], [8.0]]]])",
        "k = tf.constant([1, 2, 2, 1])",
        "tf.nn.maxPoolGradGrad(x, tf.constant([[[[3.0]]]]), grad, k, k, \"VALID\")",
        result="[[[[6.0]]]]"),
)


@registerGradient("MaxPoolGradV2")
def _maxPoolGradGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    x, y = op.x(0), op.x(1)
    return [tf.zerosLike(x), tf.zerosLike(y),
            tf.nn.maxPoolGradGrad(x, y, g, _int32(op, 3), _int32(op, 4), str(op.attr("padding")),
                                  dataFormat=str(op.attr("data_format"))), None, None]


notDifferentiable("MaxPoolGradGradV2")


# -- AvgPool and AvgPoolGrad -------------------------------------------------------------------
def _attrWindow(ctx: InferContext) -> Window:
    return poolWindowOf(ctx, ctx.attrs["ksize"], ctx.attrs["strides"])


def _avgPoolShape(ctx: InferContext) -> Sequence[Shape]:
    fmt = str(ctx.attrs["data_format"])
    window = _attrWindow(ctx)
    return [Shape.of(*toFormat(pooled(ctx, window, dims4(ctx, 0, "value", fmt)), fmt))]


registerOp(
    OpDef(
        type="AvgPool",
        group="nn",
        summary="Performs average pooling on the input.",
        description=(
            "Each output element is the mean of its window of ``value``: windows of ``ksize``\n"
            "moved by ``strides`` over the height and the width. With SAME padding the windows\n"
            "at the border average only the elements they hold (padding is not counted).\n"
            "float16 is summed in float32.\n\n" + POOL_DIFFERENCES
        ),
        inputs=(InputDef("value", "a 4-D tensor in the layout of ``data_format``",
                         typeAttr="T"),),
        outputs=(OutputDef("output", "the average pooled output, 4-D in the layout of "
                           "``data_format``", typeAttr="T"),),
        attrs=(*SIZE_ATTRS, _PADDING, FORMAT_ATTR, AttrDef("T", "type", allowed=FLOATS)),
        infer=_avgPoolShape,
        example=poolExample(
            "x = tf.constant(np.arange(16.0).reshape(1, 4, 4, 1))",
            "tf.nn.avgPool(x, [1, 2, 2, 1], [1, 2, 2, 1], \"VALID\")",
            result="[[[[2.5], [4.5]], [[10.5], [12.5]]]]"),
    )
)


def _poolOptions(op: GradOp) -> tuple[list[int], list[int], str, dict[str, Any]]:
    return (list(op.attr("ksize")), list(op.attr("strides")), str(op.attr("padding")),
            {"dataFormat": str(op.attr("data_format"))})


@registerGradient("AvgPool")
def _avgPoolGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    ksize, strides, padding, options = _poolOptions(op)
    return [tf.nn.avgPoolGrad(tf.shape(op.x(0)), g, ksize, strides, padding, **options)]


def _avgPoolGradShape(ctx: InferContext) -> Sequence[Shape]:
    fmt = str(ctx.attrs["data_format"])
    window = _attrWindow(ctx)
    sizes = sizesOf(ctx, 0, "orig_input_shape", (4,)).asArray()
    g = dims4(ctx, 1, "grad", fmt)
    x = UNKNOWN if sizes is None else (sizes[0], sizes[1], sizes[2], sizes[3])
    if sizes is not None:
        n, c, h, w = x if fmt == "NCHW" else (x[0], x[3], x[1], x[2])
        x = (n, h, w, c)
        checkGradient(ctx, "grad", g, pooled(ctx, window, x))
    return [Shape.of(*toFormat(x, fmt))]


registerOp(
    OpDef(
        type="AvgPoolGrad",
        group="nn",
        summary="Computes gradients of the average pooling function.",
        description=(
            "The gradient of AvgPool for its input: each window's ``grad``, divided by the\n"
            "number of elements the window averaged, is added to each of them.\n\n"
            + POOL_DIFFERENCES
        ),
        inputs=(
            InputDef("orig_input_shape", "the shape of the pooling's input, 4 int32",
                     dtype=TInt32),
            InputDef("grad", "the gradient of the pooling's output, 4-D in the layout of "
                     "``data_format``", typeAttr="T"),
        ),
        outputs=(OutputDef("output", "the gradient for the pooling's input, of shape "
                           "``orig_input_shape``", typeAttr="T"),),
        attrs=(*SIZE_ATTRS, _PADDING, FORMAT_ATTR, AttrDef("T", "type", allowed=FLOATS)),
        infer=_avgPoolGradShape,
        example=poolExample(
            "sizes, grad = tf.constant([1, 2, 2, 1]), tf.constant([[[[8.0]]]])",
            "tf.nn.avgPoolGrad(sizes, grad, [1, 2, 2, 1], [1, 2, 2, 1], \"VALID\")",
            result="[[[[2.0], [2.0]], [[2.0], [2.0]]]]"),
    )
)


@registerGradient("AvgPoolGrad")
def _avgPoolGradGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    ksize, strides, padding, options = _poolOptions(op)
    return [None, tf.nn.avgPool(g, ksize, strides, padding, **options)]

