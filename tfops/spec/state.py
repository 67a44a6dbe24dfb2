"""State and training ops: variables, assignment, NoOp, and the optimizers' update ops.

A variable's value lives in the :class:`~tfops.Session` (two sessions on one graph have separate
values). Kernels of these ops are stateful: they get the session's ``KernelContext``, whose
``refs`` name the variables their reference inputs point to. Values are replaced, never changed
in place, under the session's lock, so concurrent updates are not lost.
"""

from __future__ import annotations

from collections.abc import Sequence

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.shape import Shape
from tfops.spec.grad import notDifferentiable
from tfops.spec.rules import ANY, FLOATS, NUMBERS

registerOp(
    OpDef(
        type="VariableV2",
        group="core",
        className="Variable",
        facadeName="variable",
        defaultName="Variable",
        summary="Holds state in the form of a tensor that persists across steps.",
        description=(
            "Outputs the variable's current value in the running session. Each session has its\n"
            "own value; reading a variable before an initializer assigned it raises\n"
            "``FailedPreconditionError``. ``tf.variable(init)`` creates a variable together with\n"
            "the ``Assign`` that initializes it, run by ``session.initialize()`` or\n"
            "``tf.init()``."
        ),
        inputs=(),
        outputs=(OutputDef("ref", "the variable, read as its current value", typeAttr="dtype",
                           isRef=True),),
        attrs=(
            AttrDef("shape", "shape", "the shape of the variable", param="shape"),
            AttrDef("dtype", "type", "the data type of the variable", allowed=ANY,
                    param="dtype"),
        ),
        infer=lambda ctx: [ctx.attrs["shape"]],
        stateful=True,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> w = tf.variable(tf.constant([1.0, 2.0]))\n"
            ">>> s = Session(g); s.initialize()\n"
            ">>> s.runner().fetch(w).run()[0].tolist()\n"
            "[1.0, 2.0]"
        ),
    )
)
notDifferentiable("VariableV2")  # no inputs: a gradient ends at the variable's value


def _valueShape(ctx: InferContext) -> Sequence[Shape]:
    """With ``validate_shape`` (and always for AssignAdd/Sub) the value has the variable's shape;
    the result knows every dimension either of them knows."""
    ref, value = ctx.shapes[0], ctx.shapes[1]
    if not ctx.attrs.get("validate_shape", True):
        return [value]
    if not ref.isCompatibleWith(value):
        raise ctx.error(f"cannot assign a value of shape {value} to a variable of shape {ref}")
    if ref.isUnknown() or value.isUnknown():
        return [value if ref.isUnknown() else ref]
    merged = (a if a >= 0 else b for a, b in zip(ref.asArray() or (), value.asArray() or (),
                                                   strict=True))
    return [Shape.of(*merged)]


def _assignOp(opType: str, summary: str, description: str, allowed: tuple[type, ...],
              example: str, validate: bool) -> None:
    attrs = [AttrDef("T", "type", allowed=allowed)]
    if validate:
        attrs.append(AttrDef("validate_shape", "bool", "if true, the value must have the "
                             "variable's shape", default=True, option="validateShape"))
    attrs.append(AttrDef("use_locking", "bool", "kept for TensorFlow compatibility: updates "
                         "always hold the session's lock", default=validate,
                         option="useLocking"))
    registerOp(
        OpDef(
            type=opType,
            group="core",
            summary=summary,
            description=description,
            inputs=(
                InputDef("ref", "the variable to update", typeAttr="T", isRef=True),
                InputDef("value", "the value", typeAttr="T"),
            ),
            outputs=(OutputDef("outputRef", "the variable's new value", typeAttr="T"),),
            attrs=tuple(attrs),
            infer=_valueShape,
            stateful=True,
            example=example,
        )
    )
    notDifferentiable(opType)


_assignOp(
    "Assign",
    "Update 'ref' by assigning 'value' to it.",
    "Outputs the new value, for chaining. The value must have the variable's shape and data\n"
    "type (checked when the op is created, and when it runs).",
    ANY,
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> w = tf.variable(tf.constant([1.0, 2.0]))\n"
    ">>> a = tf.assign(w, [5.0, 6.0])\n"
    ">>> s = Session(g); s.initialize(); s.run(a)\n"
    ">>> s.runner().fetch(w).run()[0].tolist()\n"
    "[5.0, 6.0]",
    validate=True,
)
_assignOp(
    "AssignAdd",
    "Update 'ref' by adding 'value' to it.",
    "Outputs the new value. Concurrent updates from several threads are never lost.",
    NUMBERS,
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> n = tf.variable(tf.constant(0))\n"
    ">>> inc = tf.assignAdd(n, 1)\n"
    ">>> s = Session(g); s.initialize(); s.run(inc); s.run(inc)\n"
    ">>> int(s.runner().fetch(n).run()[0])\n"
    "2",
    validate=False,
)
_assignOp(
    "AssignSub",
    "Update 'ref' by subtracting 'value' from it.",
    "Outputs the new value. Concurrent updates from several threads are never lost.",
    NUMBERS,
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> n = tf.variable(tf.constant(10.0))\n"
    ">>> s = Session(g); s.initialize()\n"
    ">>> float(s.runner().fetch(tf.assignSub(n, 2.5)).run()[0])\n"
    "7.5",
    validate=False,
)

registerOp(
    OpDef(
        type="NoOp",
        group="core",
        summary="Does nothing. Only useful as a placeholder for control edges.",
        description="Running it runs its control inputs (``Scope.withControlDependencies``).",
        inputs=(),
        outputs=(),
        infer=lambda ctx: [],
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> n = tf.variable(tf.constant(0))\n"
            ">>> step = tf.withControlDependencies([tf.assignAdd(n, 1)]).noOp()\n"
            ">>> s = Session(g); s.initialize(); s.run(step)\n"
            ">>> int(s.runner().fetch(n).run()[0])\n"
            "1"
        ),
    )
)
notDifferentiable("NoOp")  # no inputs, no outputs


# -- training ------------------------------------------------------------------------------
def _trainingOp(
    opType: str,
    summary: str,
    description: str,
    refs: tuple[tuple[str, str], ...],
    values: tuple[tuple[str, str], ...],
    example: str,
    nesterov: bool = False,
) -> None:
    attrs = [AttrDef("T", "type", allowed=FLOATS),
             AttrDef("use_locking", "bool", "kept for TensorFlow compatibility: updates always "
                     "hold the session's lock", default=False, option="useLocking")]
    if nesterov:
        attrs.append(AttrDef("use_nesterov", "bool", "if true, use Nesterov momentum",
                             default=False, option="useNesterov"))

    def infer(ctx: InferContext) -> Sequence[Shape]:
        shape = ctx.shapes[0]
        for (name, _), s in zip(refs + values, ctx.shapes, strict=True):
            likeVariable = name in dict(refs) or name in ("grad", "delta")
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
            attrs=tuple(attrs),
            infer=infer,
            stateful=True,
            example=example,
        )
    )
    notDifferentiable(opType)


_trainingOp(
    "ApplyGradientDescent",
    "Update '*var' by subtracting 'alpha' * 'delta' from it.",
    "var -= alpha * delta.",
    (("var", "the variable to update"),),
    (("alpha", "scaling factor (the learning rate), a scalar"), ("delta", "the change")),
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> w = tf.variable(tf.constant([1.0, 2.0]))\n"
    ">>> step = tf.train.applyGradientDescent(w, 0.5, tf.constant([2.0, 2.0]))\n"
    ">>> s = Session(g); s.initialize()\n"
    ">>> s.runner().fetch(step).run()[0].tolist()\n"
    "[0.0, 1.0]",
)


_trainingOp(
    "ApplyMomentum",
    "Update '*var' according to the momentum scheme.",
    "accum = accum * momentum + grad; var -= lr * accum. With ``useNesterov``:\n"
    "var -= grad * lr + accum * momentum * lr.",
    (("var", "the variable to update"), ("accum", "the accumulated velocity (a variable)")),
    (("lr", "the learning rate, a scalar"), ("grad", "the gradient"),
     ("momentum", "the momentum, a scalar")),
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> w = tf.variable(tf.constant([1.0])); v = tf.variable(tf.constant([0.0]))\n"
    ">>> step = tf.train.applyMomentum(w, v, 0.1, tf.constant([1.0]), 0.9)\n"
    ">>> s = Session(g); s.initialize(); s.run(step)\n"
    ">>> [round(float(x), 6) for x in s.runner().fetch(step).run()[0]]\n"
    "[0.71]",
    nesterov=True,
)


_trainingOp(
    "ApplyAdam",
    "Update '*var' according to the Adam algorithm.",
    "lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t); m = m + (grad - m) * (1 - beta1);\n"
    "v = v + (grad^2 - v) * (1 - beta2); var -= lr_t * m / (sqrt(v) + epsilon).",
    (("var", "the variable to update"), ("m", "the first moment (a variable)"),
     ("v", "the second moment (a variable)")),
    (("beta1Power", "beta1 to the power t, a scalar"),
     ("beta2Power", "beta2 to the power t, a scalar"), ("lr", "the learning rate, a scalar"),
     ("beta1", "momentum factor, a scalar"), ("beta2", "momentum factor, a scalar"),
     ("epsilon", "ridge term, a scalar"), ("grad", "the gradient")),
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> w, m, v = (tf.variable(tf.constant([x])) for x in (1.0, 0.0, 0.0))\n"
    ">>> g2 = tf.constant([2.0])\n"
    ">>> step = tf.train.applyAdam(w, m, v, 0.9, 0.999, 0.1, 0.9, 0.999, 1e-8, g2)\n"
    ">>> s = Session(g); s.initialize()\n"
    ">>> [round(float(x), 4) for x in s.runner().fetch(step).run()[0]]\n"
    "[0.9]",
    nesterov=True,
)
