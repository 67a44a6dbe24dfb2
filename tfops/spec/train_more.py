"""More of the optimizers' update ops (``train``): Adagrad and RMSProp, plain and centered.

Like the update ops of ``tfops.spec.state``, each takes its variables (reference inputs) first,
then scalar hyperparameters and the gradient, updates the variables in the running session with
TensorFlow's formula (training_ops.cc) and outputs the new value of ``var``.
"""

from __future__ import annotations

from collections.abc import Sequence

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.shape import Shape
from tfops.spec.grad import notDifferentiable
from tfops.spec.rules import FLOATS

__all__: list[str] = []


def _trainingOp(
    opType: str,
    summary: str,
    description: str,
    refs: tuple[tuple[str, str], ...],
    values: tuple[tuple[str, str], ...],
    example: str,
    extra: tuple[AttrDef, ...] = (),
) -> None:
    """Registers an update op: ``refs`` (variables of one shape), then ``values``, the scalars
    and the gradient ``grad`` (the variables' shape)."""
    attrs = (AttrDef("T", "type", allowed=FLOATS),
             AttrDef("use_locking", "bool", "kept for TensorFlow compatibility: updates always "
                     "hold the session's lock", default=False, option="useLocking"),
             *extra)
    refNames = {name for name, _ in refs}

    def infer(ctx: InferContext) -> Sequence[Shape]:
        shape = ctx.shapes[0]
        for (name, _), s in zip(refs + values, ctx.shapes, strict=True):
            likeVariable = name in refNames or name == "grad"
            if likeVariable and not s.isCompatibleWith(shape):
                raise ctx.error(f"'{name}' has shape {s}, the variable has shape {shape}")
            if not likeVariable and s.numDimensions() > 0:
                raise ctx.error(f"'{name}' must be a scalar, got shape {s}")
        return [shape]

    registerOp(
        OpDef(
            type=opType,
            group="train",
            summary=summary,
            description=description,
            inputs=tuple(InputDef(n, d, typeAttr="T", isRef=True) for n, d in refs)
            + tuple(InputDef(n, d, typeAttr="T") for n, d in values),
            outputs=(OutputDef("out", "the variable's new value", typeAttr="T"),),
            attrs=attrs,
            infer=infer,
            stateful=True,
            example=example,
        )
    )
    notDifferentiable(opType)


_trainingOp(
    "ApplyAdagrad",
    "Update '*var' according to the adagrad scheme.",
    "accum += grad * grad; var -= lr * grad * (1 / sqrt(accum)). With ``updateSlots(False)``\n"
    "the accumulator is left as it is.",
    (("var", "the variable to update"), ("accum", "the sum of squared gradients (a variable)")),
    (("lr", "scaling factor (the learning rate), a scalar"), ("grad", "the gradient")),
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> w = tf.variable(tf.constant([1.0])); a = tf.variable(tf.constant([0.0]))\n"
    ">>> step = tf.train.applyAdagrad(w, a, 0.5, tf.constant([2.0]))\n"
    ">>> s = Session(g); s.initialize()\n"
    ">>> s.runner().fetch(step).run()[0].tolist()\n"
    "[0.5]",
    extra=(AttrDef("update_slots", "bool", "if false, the accumulator is not updated",
                   default=True, option="updateSlots"),),
)

_trainingOp(
    "ApplyRMSProp",
    "Update '*var' according to the RMSProp algorithm.",
    "ms = rho * ms + (1 - rho) * grad * grad; mom = momentum * mom + lr * grad / sqrt(ms +\n"
    "epsilon); var -= mom. (Computed as TensorFlow does: ms += (grad * grad - ms) * (1 - rho).)",
    (("var", "the variable to update"), ("ms", "the mean square of the gradients (a variable)"),
     ("mom", "the momentum (a variable)")),
    (("lr", "scaling factor (the learning rate), a scalar"), ("rho", "decay rate, a scalar"),
     ("momentum", "momentum scale, a scalar"), ("epsilon", "ridge term, a scalar"),
     ("grad", "the gradient")),
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> w, ms, mom = (tf.variable(tf.constant([x])) for x in (1.0, 4.0, 0.0))\n"
    ">>> step = tf.train.applyRMSProp(w, ms, mom, 0.5, 0.75, 0.0, 0.0, tf.constant([2.0]))\n"
    ">>> s = Session(g); s.initialize()\n"
    ">>> s.runner().fetch(step).run()[0].tolist()\n"
    "[0.5]",
)

_trainingOp(
    "ApplyCenteredRMSProp",
    "Update '*var' according to the centered RMSProp algorithm.",
    "The centered version normalizes by an estimate of the variance of the gradients rather\n"
    "than their mean square: mg = rho * mg + (1 - rho) * grad; ms = rho * ms + (1 - rho) *\n"
    "grad * grad; mom = momentum * mom + lr * grad / sqrt(ms - mg * mg + epsilon); var -= mom.",
    (("var", "the variable to update"), ("mg", "the mean of the gradients (a variable)"),
     ("ms", "the mean square of the gradients (a variable)"),
     ("mom", "the momentum (a variable)")),
    (("lr", "scaling factor (the learning rate), a scalar"), ("rho", "decay rate, a scalar"),
     ("momentum", "momentum scale, a scalar"), ("epsilon", "ridge term, a scalar"),
     ("grad", "the gradient")),
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> w, mg, ms, mom = (tf.variable(tf.constant([x])) for x in (1.0, 0.0, 6.0, 0.0))\n"
    ">>> step = tf.train.applyCenteredRMSProp(w, mg, ms, mom, 0.5, 0.5, 0.0, 0.0,\n"
    "...                                      tf.constant([2.0]))\n"
    ">>> s = Session(g); s.initialize()\n"
    ">>> s.runner().fetch(step).run()[0].tolist()\n"
    "[0.5]",
)
