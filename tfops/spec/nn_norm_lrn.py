"""Local response normalization ops (``tfops.op.nn``): LRN and LRNGrad (TF Java's
``LocalResponseNormalization`` and ``LocalResponseNormalizationGrad``). Each vector along the
channels (the last axis of a 4-D input) is divided by a power of the weighted sum of squares
of its neighbours within ``depth_radius``. Batch normalization is :mod:`tfops.spec.nn_norm`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, notDifferentiable, registerGradient
from tfops.types import TFloat16, TFloat32, TFloating

if TYPE_CHECKING:
    from tfops.ops import Ops

_LRN_ATTRS = (
    AttrDef(
        "depth_radius",
        "int",
        "the half-width of the window over the channels (>= 0)",
        default=5,
        option="depthRadius",
    ),
    AttrDef(
        "bias",
        "float",
        "an offset, usually positive to avoid dividing by 0",
        default=1.0,
        option="bias",
    ),
    AttrDef("alpha", "float", "a scale factor, usually positive", default=1.0, option="alpha"),
    AttrDef("beta", "float", "an exponent", default=0.5, option="beta"),
    AttrDef("T", "type", allowed=(TFloat16, TFloat32)),
)


def _lrnShape(ctx: InferContext) -> Sequence[Shape]:
    """Every input is 4-D, of one shape: the output's, as precise as any input knows it."""
    radius = int(ctx.attrs["depth_radius"])
    if not 0 <= radius < 1 << 31:
        raise ctx.error(f"depth_radius must be in [0, 2**31), got {radius}")
    names = ("input",) if len(ctx.shapes) == 1 else ("input_grads", "input_image", "output_image")
    merged: list[int] | None = None
    for shape, name in zip(ctx.shapes, names, strict=True):
        if shape.numDimensions() not in (-1, 4):
            raise ctx.error(f"{name} must be 4-dimensional, got shape {shape}")
        dims = shape.asArray()
        if dims is None:
            continue
        if merged is not None and any(
            a >= 0 and b >= 0 and a != b for a, b in zip(merged, dims, strict=True)
        ):
            raise ctx.error(
                "input_grads, input_image and output_image must have the same "
                f"shape, got {', '.join(str(s) for s in ctx.shapes)}"
            )
        merged = (
            list(dims)
            if merged is None
            else [a if a >= 0 else b for a, b in zip(merged, dims, strict=True)]
        )
    return [Shape.unknown() if merged is None else Shape.of(*merged)]


registerOp(
    OpDef(
        type="LRN",
        group="nn",
        className="LocalResponseNormalization",
        summary="Local Response Normalization.",
        description=(
            "The 4-D ``input`` is a 3-D array of vectors along its last dimension (the\n"
            "channels), each normalized independently: within a vector, each component is\n"
            "divided by the weighted, squared sum of the inputs within ``depth_radius``:\n"
            "``sqr_sum[a, b, c, d] = sum(input[a, b, c, d - depth_radius : d + depth_radius +\n"
            "1] ** 2)`` and ``output = input / (bias + alpha * sqr_sum) ** beta`` (Krizhevsky\n"
            "et al., ImageNet classification with deep convolutional neural networks, NIPS\n"
            "2012). Its gradient is LRNGrad. Unlike TensorFlow, which rejects a negative\n"
            "``depth_radius`` when the op runs, tfops rejects it when the op is created."
        ),
        inputs=(InputDef("input", "a 4-D tensor, channels last", typeAttr="T"),),
        outputs=(OutputDef("output", "the normalized ``input``, of its shape", typeAttr="T"),),
        attrs=_LRN_ATTRS,
        infer=_lrnShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> x = tf.constant(np.array([3.0, 4.0], np.float32).reshape(1, 1, 1, 2))\n"
            ">>> y = tf.nn.localResponseNormalization(x, depthRadius=1, bias=0.0)\n"
            ">>> Session(g).runner().fetch(y).run()[0].ravel().tolist()\n"
            "[0.6000000238418579, 0.800000011920929]"
        ),
    )
)


@registerGradient("LRN")
def _lrnGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [
        tf.nn.localResponseNormalizationGrad(
            g,
            op.x(),
            op.y(),
            depthRadius=int(op.attr("depth_radius")),
            bias=float(op.attr("bias")),
            alpha=float(op.attr("alpha")),
            beta=float(op.attr("beta")),
        )
    ]


registerOp(
    OpDef(
        type="LRNGrad",
        group="nn",
        className="LocalResponseNormalizationGrad",
        summary="Gradients for Local Response Normalization.",
        description=(
            "The gradient of LRN with respect to its input, given ``input_grads``, the gradient\n"
            "of its output: with ``norm = bias + alpha * sqr_sum`` as in LRN,\n"
            "``output[k] = input_grads[k] * norm[k] ** -beta - 2 * alpha * beta *\n"
            "input_image[k] * sum(input_grads[j] * output_image[j] / norm[j])`` over the\n"
            "channels ``j`` within ``depth_radius`` of ``k``. TensorFlow registers no gradient\n"
            "for this op (differentiating it raises there); tfops marks it not differentiable,\n"
            "so a second derivative through it is zero rather than an error."
        ),
        inputs=(
            InputDef("input_grads", "the gradient of LRN's output, 4-D", typeAttr="T"),
            InputDef("input_image", "LRN's input", typeAttr="T"),
            InputDef("output_image", "LRN's output", typeAttr="T"),
        ),
        outputs=(OutputDef("output", "the gradient of LRN's input", typeAttr="T"),),
        attrs=_LRN_ATTRS,
        infer=_lrnShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> x = tf.constant(np.array([3.0, 4.0], np.float32).reshape(1, 1, 1, 2))\n"
            ">>> attrs = dict(depthRadius=0, bias=0.0, beta=1.0)\n"
            ">>> y = tf.nn.localResponseNormalization(x, **attrs)\n"
            ">>> d = tf.nn.localResponseNormalizationGrad(tf.onesLike(x), x, y, **attrs)\n"
            ">>> [round(v, 4) for v in Session(g).runner().fetch(d).run()[0].ravel().tolist()]\n"
            "[-0.1111, -0.0625]"
        ),
    )
)
notDifferentiable("LRNGrad")
