"""Neural network ops (``tfops.op.nn``): activations with TensorFlow's gradient ops, and BiasAdd.

Relu, Relu6 and Elu differentiate, as in TensorFlow, through their own gradient ops (ReluGrad,
Relu6Grad, EluGrad), which are differentiable in turn. The softmax family and the losses are in
:mod:`tfops.spec.nn_losses`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, registerGradient
from tfops.spec.rules import FLOATS, NUMBERS, sameShape
from tfops.types import TFloating, TType

if TYPE_CHECKING:
    from tfops.ops import Ops


def _example(call: str, result: str) -> str:
    return (
        ">>> g = Graph(); tf = Ops.create(g)\n"
        f">>> y = {call}\n"
        ">>> Session(g).runner().fetch(y).run()[0].tolist()\n"
        f"{result}"
    )


# -- activations ---------------------------------------------------------------------------
def _activation(
    opType: str,
    summary: str,
    description: str,
    allowed: tuple[type[TType], ...],
    example: str,
) -> None:
    registerOp(
        OpDef(
            type=opType,
            group="nn",
            summary=summary,
            description=description,
            inputs=(InputDef("features", "the input tensor", typeAttr="T"),),
            outputs=(OutputDef("activations", "the result, of the shape and type of "
                               "``features``", typeAttr="T"),),
            attrs=(AttrDef("T", "type", allowed=allowed),),
            infer=sameShape,
            example=example,
            elementwise=True,
        )
    )


_activation(
    "Relu",
    "Computes rectified linear: `max(features, 0)`.",
    "Negative values become 0; the gradient flows where ``features`` is positive (ReluGrad).",
    NUMBERS,
    _example("tf.nn.relu(tf.constant([-2.0, 0.0, 3.5]))", "[0.0, 0.0, 3.5]"),
)
_activation(
    "Relu6",
    "Computes rectified linear 6: `min(max(features, 0), 6)`.",
    "Values are clipped to [0, 6]; the gradient flows where ``features`` is strictly between\n"
    "0 and 6 (Relu6Grad).",
    NUMBERS,
    _example("tf.nn.relu6(tf.constant([-1.0, 2.5, 9.0]))", "[0.0, 2.5, 6.0]"),
)
_activation(
    "Elu",
    "Computes the exponential linear function.",
    "The ELU function is defined as ``exp(features) - 1`` where ``features < 0`` and as\n"
    "``features`` elsewhere (Clevert et al., 2015, https://arxiv.org/abs/1511.07289). Its\n"
    "gradient is EluGrad. tfops computes ``exp(features) - 1`` as ``expm1(features)``, exact\n"
    "to the last bit near 0 where TensorFlow's ``exp(features) - 1`` cancels (float32\n"
    "``-1e-10`` gives ``-1e-10`` here, 0 in TensorFlow): a deliberate difference.",
    FLOATS,
    _example("tf.nn.elu(tf.constant([-1.0, 0.0, 2.0]))", "[-0.632, 0.0, 2.0]"),
)


@registerGradient("Relu")
def _reluGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    # relu(x) > 0 exactly where x > 0, so the output serves as the features (as TensorFlow)
    return [tf.nn.reluGrad(g, op.y())]


@registerGradient("Relu6")
def _relu6Grad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.nn.relu6Grad(g, op.x())]


@registerGradient("Elu")
def _eluGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.nn.eluGrad(g, op.y())]


# -- the activations' gradient ops ---------------------------------------------------------
def _sameShapes(ctx: InferContext) -> Sequence[Shape]:
    """Both inputs have one shape: the output's, as precise as either input knows it."""
    a, b = ctx.shapes
    if not a.isCompatibleWith(b):
        raise ctx.error(f"inputs must have the same shape, got {a} and {b}")
    da, db = a.asArray(), b.asArray()
    if da is None or db is None:
        return [b if da is None else a]
    return [Shape.of(*(x if x >= 0 else y for x, y in zip(da, db, strict=True)))]


def _gradOp(
    opType: str,
    summary: str,
    description: str,
    second: tuple[str, str],
    allowed: tuple[type[TType], ...],
    example: str,
) -> None:
    registerOp(
        OpDef(
            type=opType,
            group="nn",
            summary=summary,
            description=description,
            inputs=(
                InputDef("gradients", "the backpropagated gradients", typeAttr="T"),
                InputDef(second[0], second[1], typeAttr="T"),
            ),
            outputs=(OutputDef("backprops", "the gradients with respect to the features",
                               typeAttr="T"),),
            attrs=(AttrDef("T", "type", allowed=allowed),),
            infer=_sameShapes,
            example=example,
        )
    )


_gradOp(
    "ReluGrad",
    "Computes rectified linear gradients for a Relu operation.",
    "``backprops = gradients`` where ``features > 0``, and 0 elsewhere. ``features`` may be\n"
    "the inputs or the outputs of the Relu.",
    ("features", "the features passed to the Relu, or its outputs"),
    NUMBERS,
    _example("tf.nn.reluGrad(tf.constant([5.0, 5.0, 5.0]), tf.constant([-1.0, 0.0, 2.0]))",
             "[0.0, 0.0, 5.0]"),
)
_gradOp(
    "Relu6Grad",
    "Computes rectified linear 6 gradients for a Relu6 operation.",
    "``backprops = gradients`` where ``0 < features < 6``, and 0 elsewhere.",
    ("features", "the features passed to the Relu6"),
    NUMBERS,
    _example("tf.nn.relu6Grad(tf.constant([5.0, 5.0, 5.0]), tf.constant([-1.0, 3.0, 6.0]))",
             "[0.0, 5.0, 0.0]"),
)
_gradOp(
    "EluGrad",
    "Computes gradients for the exponential linear (Elu) operation.",
    "``backprops = gradients * (outputs + 1)`` where ``outputs < 0``, and ``gradients``\n"
    "elsewhere (the derivative of ``exp(x) - 1`` is ``exp(x)``, that is ``outputs + 1``).",
    ("outputs", "the outputs of the Elu"),
    FLOATS,
    _example("tf.nn.eluGrad(tf.constant([2.0, 2.0]), tf.constant([-0.5, 1.0]))",
             "[1.0, 2.0]"),
)


@registerGradient("ReluGrad")
def _reluGradGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    features = op.x(1)
    return [tf.nn.reluGrad(g, features), tf.zerosLike(features)]


@registerGradient("Relu6Grad")
def _relu6GradGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    features = op.x(1)
    return [tf.nn.relu6Grad(g, features), tf.zerosLike(features)]


@registerGradient("EluGrad")
def _eluGradGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    gradients, outputs = op.x(0), op.x(1)
    # TensorFlow's where(outputs < 0, g * gradients, 0): ReluGrad of -outputs selects the same
    selected = tf.nn.reluGrad(tf.math.mul(g, gradients), tf.math.neg(outputs))
    return [tf.nn.eluGrad(g, outputs), selected]


# -- BiasAdd -------------------------------------------------------------------------------
_DATA_FORMAT = AttrDef(
    "data_format", "string",
    'the layout of the data: "NHWC" (channels last, the default) or "NCHW" (channels in\n'
    "dimension 1, after the batch)",
    default="NHWC", option="dataFormat",
)


def channelAxis(dataFormat: object, rank: int) -> int:
    """The dimension holding the channels: the last one in NHWC, dimension 1 in NCHW."""
    return 1 if dataFormat == "NCHW" else rank - 1


def channelName(dataFormat: object) -> str:
    """The channel dimension in words, for messages."""
    return "dimension 1 (the channels)" if dataFormat == "NCHW" else "the last dimension"


def _checkedRank(ctx: InferContext, name: str) -> Shape:
    """Input 0's shape, checked to have the rank the data format needs (as TensorFlow's shape
    function: 2 or more in NHWC, 3 or more in NCHW)."""
    fmt = ctx.attrs["data_format"]
    if fmt not in ("NHWC", "NCHW"):
        raise ctx.error(f"data_format {fmt!r} is not supported: it must be 'NHWC' or 'NCHW'")
    least = 3 if fmt == "NCHW" else 2
    shape = ctx.shapes[0]
    if 0 <= shape.numDimensions() < least:
        layout = " in the NCHW layout" if fmt == "NCHW" else ""
        raise ctx.error(f"{name} must have rank {least} or more{layout}, got shape {shape}")
    return shape


def _biasAddShape(ctx: InferContext) -> Sequence[Shape]:
    value = _checkedRank(ctx, "value")
    bias = ctx.shapes[1]
    if bias.numDimensions() not in (-1, 1):
        raise ctx.error(f"bias must be a vector, got shape {bias}")
    dims = value.asArray()
    if dims is None:
        return [value]
    axis = channelAxis(ctx.attrs["data_format"], len(dims))
    channels, size = dims[axis], bias.size(0) if bias.numDimensions() == 1 else -1
    if channels >= 0 and size >= 0 and channels != size:
        raise ctx.error(f"bias of length {size} does not match "
                        f"{channelName(ctx.attrs['data_format'])} of value {value}")
    known = list(dims)
    known[axis] = channels if channels >= 0 else size
    return [Shape.of(*known)]


registerOp(
    OpDef(
        type="BiasAdd",
        group="nn",
        summary="Adds `bias` to `value`.",
        description=(
            "A special case of Add where ``bias`` is a vector added along the channels of\n"
            "``value``: its last dimension in the NHWC layout (the default), dimension 1 in\n"
            "the NCHW layout (``dataFormat``). Unlike Add, the shapes must match exactly:\n"
            "``bias`` has the length of the channel dimension. ``value`` has rank 2 or more\n"
            "(3 or more in NCHW). Integer sums wrap around on overflow."
        ),
        inputs=(
            InputDef("value", "a tensor of rank 2 or more (3 or more in NCHW)", typeAttr="T"),
            InputDef("bias", "a vector as long as the channel dimension of ``value``",
                     typeAttr="T"),
        ),
        outputs=(OutputDef("output", "the sum, of the shape of ``value``", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=NUMBERS), _DATA_FORMAT),
        infer=_biasAddShape,
        example=_example("tf.nn.biasAdd(tf.constant([[1, 2], [3, 4]]), tf.constant([10, 20]))",
                         "[[11, 22], [13, 24]]"),
    )
)


@registerGradient("BiasAdd")
def _biasAddGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    fmt = str(op.attr("data_format"))
    return [g, tf.nn.biasAddGrad(g, dataFormat=fmt)]


def _biasAddGradShape(ctx: InferContext) -> Sequence[Shape]:
    dims = _checkedRank(ctx, "out_backprop").asArray()
    if dims is None:
        return [Shape.of(-1)]
    return [Shape.of(dims[channelAxis(ctx.attrs["data_format"], len(dims))])]


registerOp(
    OpDef(
        type="BiasAddGrad",
        group="nn",
        summary='The backward operation for "BiasAdd" on the "bias" tensor.',
        description=(
            "Sums ``out_backprop`` over every dimension but the channels (the last one in the\n"
            "NHWC layout, dimension 1 in NCHW): the gradient of BiasAdd with respect to its\n"
            "bias. As TensorFlow, float16 values are summed in float32 and rounded once."
        ),
        inputs=(InputDef("out_backprop", "the gradient of BiasAdd's output, of rank 2 or more "
                         "(3 or more in NCHW)", typeAttr="T"),),
        outputs=(OutputDef("output", "a vector as long as the channel dimension of "
                           "``out_backprop``", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=NUMBERS), _DATA_FORMAT),
        infer=_biasAddGradShape,
        example=_example("tf.nn.biasAddGrad(tf.constant([[1.0, 2.0], [3.0, 4.0]]))",
                         "[4.0, 6.0]"),
    )
)


@registerGradient("BiasAddGrad")
def _biasAddGradGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow tiles the bias gradient over the other dimensions: a broadcast, of ``g`` laid
    along the channel dimension."""
    x = op.input(0)
    if op.attr("data_format") == "NCHW":
        rank = x.shape().numDimensions()
        if rank >= 0:
            g = tf.reshape(g, tf.constant([-1] + [1] * (rank - 2))).asOutput()
        else:  # the rank is known at run time only: [C] then rank - 2 ones
            ones = tf.onesLike(tf.slice(tf.shape(x), tf.constant([2]), tf.constant([-1])))
            g = tf.reshape(g, tf.concat([tf.constant([-1]), ones], tf.constant(0))).asOutput()
    return [tf.broadcastTo(g, tf.shape(x))]
