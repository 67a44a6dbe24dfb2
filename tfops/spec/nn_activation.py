"""More activations (``tfops.op.nn``): LeakyRelu, Selu and Softsign, with their gradient ops
LeakyReluGrad, SeluGrad and SoftsignGrad.

As in TensorFlow, each activation differentiates through its own gradient op, a real op of the
graph. The constants and the ``alpha`` attribute are TensorFlow's: ``alpha`` is a single
precision attribute, converted to the data type of the features (so a float64 LeakyRelu with
``alpha=0.2`` multiplies by ``0.2`` rounded to single precision, as TensorFlow does).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, notDifferentiable, registerGradient
from tfops.spec.rules import FLOATS, sameShape
from tfops.types import TFloating

if TYPE_CHECKING:
    from tfops.ops import Ops

SELU_SCALE = 1.0507009873554804934193349852946
"""Selu's ``scale`` (Klambauer et al., 2017), TensorFlow's constant."""
SELU_SCALE_ALPHA = 1.7580993408473768599402175208123
"""Selu's ``scale * alpha``, TensorFlow's constant."""

_T = AttrDef("T", "type", allowed=FLOATS)
_ALPHA = AttrDef("alpha", "float", "the slope of the negative part", default=0.2,
                 option="alpha")


def _example(call: str, result: str) -> str:
    return (
        ">>> g = Graph(); tf = Ops.create(g)\n"
        f">>> y = {call}\n"
        ">>> Session(g).runner().fetch(y).run()[0].tolist()\n"
        f"{result}"
    )


def _activation(
    opType: str, summary: str, description: str, example: str, *attrs: AttrDef
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
            attrs=(*attrs, _T),
            infer=sameShape,
            example=example,
            elementwise=True,
        )
    )


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
    example: str,
    *attrs: AttrDef,
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
            attrs=(*attrs, _T),
            infer=_sameShapes,
            example=example,
        )
    )


# -- LeakyRelu -----------------------------------------------------------------------------
_activation(
    "LeakyRelu",
    "Computes rectified linear: `max(features, features * alpha)`.",
    "``activations = features`` where ``features > 0`` and ``alpha * features`` elsewhere\n"
    "(so for ``alpha > 1`` the result is not the maximum of the summary, as in TensorFlow).\n"
    "Its gradient is LeakyReluGrad.",
    _example("tf.nn.leakyRelu(tf.constant([-2.0, 0.0, 3.0]), alpha=0.5)", "[-1.0, 0.0, 3.0]"),
    _ALPHA,
)


@registerGradient("LeakyRelu")
def _leakyReluGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.nn.leakyReluGrad(g, op.x(), alpha=float(op.attr("alpha")))]


_gradOp(
    "LeakyReluGrad",
    "Computes rectified linear gradients for a LeakyRelu operation.",
    "``backprops = gradients`` where ``features > 0`` and ``alpha * gradients`` elsewhere.\n"
    "TensorFlow Java places this op in its ``data`` group (``tf.data.leakyReluGrad``); tfops\n"
    "has no such group and keeps it beside LeakyRelu.",
    ("features", "the features passed to the LeakyRelu"),
    _example("tf.nn.leakyReluGrad(tf.constant([4.0, 4.0]), tf.constant([-1.0, 2.0]))",
             "[0.800000011920929, 4.0]"),
    _ALPHA,
)


@registerGradient("LeakyReluGrad")
def _leakyReluGradGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    features = op.x(1)
    return [tf.nn.leakyReluGrad(g, features, alpha=float(op.attr("alpha"))),
            tf.zerosLike(features)]


# -- Selu ----------------------------------------------------------------------------------
_activation(
    "Selu",
    "Computes scaled exponential linear: `scale * alpha * (exp(features) - 1)` if < 0.",
    "``scale * features`` where ``features >= 0``. With ``scale = 1.0507009873554805`` and\n"
    "``scale * alpha = 1.7580993408473769`` (Klambauer et al., 2017,\n"
    "https://arxiv.org/abs/1706.02515). As TensorFlow, the negative\n"
    "part is computed as ``exp(features) - 1`` (not ``expm1``), so tiny negative features\n"
    "give 0 in single precision. Use it with the ``lecun_normal`` initializer and\n"
    "AlphaDropout. Its gradient is SeluGrad.",
    _example("tf.nn.selu(tf.constant([0.0, 1.0]))", "[0.0, 1.0507010221481323]"),
)


@registerGradient("Selu")
def _seluGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.nn.seluGrad(g, op.y())]


_gradOp(
    "SeluGrad",
    "Computes gradients for the scaled exponential linear (Selu) operation.",
    "``backprops = gradients * (outputs + scale * alpha)`` where ``outputs < 0``, and\n"
    "``gradients * scale`` elsewhere (the derivative of ``scale * alpha * (exp(x) - 1)`` is\n"
    "``outputs + scale * alpha``).",
    ("outputs", "the outputs of the Selu"),
    _example("tf.nn.seluGrad(tf.constant([1.0, 1.0]), tf.constant([0.0, 2.0]))",
             "[1.0507010221481323, 1.0507010221481323]"),
)


@registerGradient("SeluGrad")
def _seluGradGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    gradients, outputs = op.x(0), op.x(1)
    # TensorFlow's where(outputs < 0, g * gradients, 0): ReluGrad of -outputs selects the same
    selected = tf.nn.reluGrad(tf.math.mul(g, gradients), tf.math.neg(outputs))
    return [tf.nn.seluGrad(g, outputs), selected]


# -- Softsign ------------------------------------------------------------------------------
_activation(
    "Softsign",
    "Computes softsign: `features / (abs(features) + 1)`.",
    "Smooth and bounded in (-1, 1); infinite features give NaN (``inf / inf``), as in\n"
    "TensorFlow. Its gradient is SoftsignGrad.",
    _example("tf.nn.softsign(tf.constant([1.0, -3.0]))", "[0.5, -0.75]"),
)


@registerGradient("Softsign")
def _softsignGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.nn.softsignGrad(g, op.x())]


_gradOp(
    "SoftsignGrad",
    "Computes softsign gradients for a softsign operation.",
    "``backprops = gradients / (abs(features) + 1) ** 2``. TensorFlow registers no gradient\n"
    "for this op (differentiating it raises there); tfops marks it not differentiable, so a\n"
    "second derivative through it is zero rather than an error.",
    ("features", "the features passed to the Softsign"),
    _example("tf.nn.softsignGrad(tf.constant([9.0, 9.0]), tf.constant([0.0, -2.0]))",
             "[9.0, 1.0]"),
)
notDifferentiable("SoftsignGrad")
