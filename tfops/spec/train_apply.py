"""The remaining update ops of TensorFlow's optimizers (``train``): Adagrad dual averaging,
Adadelta, AdaMax, FTRL (plain and with shrinkage), proximal gradient descent and Adagrad, and
the sign-based PowerSign and AddSign.

As the update ops of ``tfops.spec.state`` and ``tfops.spec.train_more``: the variables
(reference inputs) come first, then the other inputs in TensorFlow's order; each op updates its
variables in the running session with TensorFlow's formula (training_ops.cc) and outputs the new
value of ``var``. The gradient (``grad``, ``delta`` for proximal gradient descent) has the
variables' shape, the hyperparameters are scalars, ``global_step`` an int64 scalar.
"""

from __future__ import annotations

from collections.abc import Sequence

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.shape import Shape
from tfops.spec.grad import notDifferentiable
from tfops.spec.rules import FLOATS
from tfops.types import TFloat32, TFloat64, TInt64, TType

__all__ = ["GRADIENTS", "SINGLE_AND_DOUBLE", "STEPS"]

GRADIENTS = frozenset({"grad", "delta"})
"""The names of the inputs that have the variables' shape."""

STEPS = frozenset({"global_step"})
"""The names of the int64 scalar inputs."""

SINGLE_AND_DOUBLE: tuple[type[TType], ...] = (TFloat32, TFloat64)
"""The types of the ops TensorFlow has no float16 kernel of (AdagradDA, the proximal ones)."""

_LINEAR_BY_LR = AttrDef(
    "multiply_linear_by_lr",
    "bool",
    "if true, ``linear`` holds the learning rate times "
    "TensorFlow's usual accumulator (the update multiplies by ``lr`` instead of dividing)",
    default=False,
    option="multiplyLinearByLr",
)


def _applyOp(
    opType: str,
    summary: str,
    description: str,
    refs: tuple[tuple[str, str], ...],
    values: tuple[tuple[str, str], ...],
    example: str,
    extra: tuple[AttrDef, ...] = (),
    types: tuple[type[TType], ...] = FLOATS,
) -> None:
    """Registers an update op: ``refs`` (variables of one shape), then ``values`` in
    TensorFlow's order: scalars, the gradient (the variables' shape), an int64 step."""
    attrs = (
        AttrDef("T", "type", allowed=types),
        AttrDef(
            "use_locking",
            "bool",
            "kept for TensorFlow compatibility: updates always hold the session's lock",
            default=False,
            option="useLocking",
        ),
        *extra,
    )
    refNames = {name for name, _ in refs}

    def infer(ctx: InferContext) -> Sequence[Shape]:
        shape = ctx.shapes[0]
        for (name, _), s in zip(refs + values, ctx.shapes, strict=True):
            if name in refNames or name in GRADIENTS:
                if not s.isCompatibleWith(shape):
                    raise ctx.error(f"'{name}' has shape {s}, the variable has shape {shape}")
            elif s.numDimensions() > 0:
                raise ctx.error(f"'{name}' must be a scalar, got shape {s}")
        return [shape]

    def valueInput(name: str, doc: str) -> InputDef:
        if name in STEPS:
            return InputDef(name, doc, dtype=TInt64)
        return InputDef(name, doc, typeAttr="T")

    registerOp(
        OpDef(
            type=opType,
            group="train",
            summary=summary,
            description=description,
            inputs=tuple(InputDef(n, d, typeAttr="T", isRef=True) for n, d in refs)
            + tuple(valueInput(n, d) for n, d in values),
            outputs=(OutputDef("out", "the variable's new value", typeAttr="T"),),
            attrs=attrs,
            infer=infer,
            stateful=True,
            example=example,
        )
    )
    notDifferentiable(opType)


_VAR = ("var", "the variable to update")
_LR = ("lr", "scaling factor (the learning rate), a scalar")
_L1 = ("l1", "L1 regularization strength, a scalar")
_L2 = ("l2", "L2 regularization strength, a scalar")
_GRAD = ("grad", "the gradient")


def _example(variables: str, call: str, result: str) -> str:
    return (
        ">>> g = Graph(); tf = Ops.create(g)\n"
        f">>> {variables}\n"
        f">>> step = {call}\n"
        ">>> s = Session(g); s.initialize()\n"
        ">>> s.runner().fetch(step).run()[0].tolist()\n"
        f"{result}"
    )


_applyOp(
    "ApplyAdagradDA",
    "Update '*var' according to the proximal adagrad scheme.",
    "Adagrad dual averaging: gradient_accumulator += grad; gradient_squared_accumulator +=\n"
    "grad * grad; then, with g and gg the accumulators and t = global_step, var = -lr *\n"
    "sign(g) * max(|g| - l1 * t, 0) / (l2 * t * lr + sqrt(gg)) (with l1 = 0: var = -lr * g /\n"
    "(l2 * t * lr + sqrt(gg))). The step is read as a float32 number, as TensorFlow does.\n"
    "float32 and float64 only, as TensorFlow's kernels.",
    (
        _VAR,
        ("gradient_accumulator", "the sum of the gradients (a variable)"),
        ("gradient_squared_accumulator", "the sum of the squared gradients (a variable)"),
    ),
    (_GRAD, _LR, _L1, _L2, ("global_step", "the training step number, an int64 scalar")),
    _example(
        "w, a, aa = (tf.variable(tf.constant([x])) for x in (1.0, 0.0, 0.0))",
        "tf.train.applyAdagradDA(w, a, aa, tf.constant([2.0]), 1.0, 0.0, 0.0,\n"
        "...                             tf.constant(np.int64(1)))",
        "[-1.0]",
    ),
    types=SINGLE_AND_DOUBLE,
)

_applyOp(
    "ApplyAdadelta",
    "Update '*var' according to the adadelta scheme.",
    "accum = rho * accum + (1 - rho) * grad * grad; update = sqrt(accum_update + epsilon) /\n"
    "sqrt(accum + epsilon) * grad; var -= lr * update; accum_update = rho * accum_update +\n"
    "(1 - rho) * update * update.",
    (
        _VAR,
        ("accum", "the mean square of the gradients (a variable)"),
        ("accum_update", "the mean square of the updates (a variable)"),
    ),
    (_LR, ("rho", "decay factor, a scalar"), ("epsilon", "constant factor, a scalar"), _GRAD),
    _example(
        "w, a, au = (tf.variable(tf.constant([x])) for x in (1.0, 0.0, 2.0))",
        "tf.train.applyAdadelta(w, a, au, 0.5, 0.5, 0.0, tf.constant([2.0]))",
        "[0.0]",
    ),
)

_applyOp(
    "ApplyAdaMax",
    "Update '*var' according to the AdaMax algorithm.",
    "m = beta1 * m + (1 - beta1) * grad; v = max(beta2 * v, |grad|); var -= lr / (1 -\n"
    "beta1_power) * m / (v + epsilon). (Computed as TensorFlow does: m += (grad - m) * (1 -\n"
    "beta1).)",
    (
        _VAR,
        ("m", "the first moment (a variable)"),
        ("v", "the exponentially weighted infinity norm (a variable)"),
    ),
    (
        ("beta1_power", "beta1 to the power of the step number, a scalar"),
        _LR,
        ("beta1", "momentum factor, a scalar"),
        ("beta2", "decay factor, a scalar"),
        ("epsilon", "ridge term, a scalar"),
        _GRAD,
    ),
    _example(
        "w, m, v = (tf.variable(tf.constant([x])) for x in (1.0, 0.0, 0.0))",
        "tf.train.applyAdaMax(w, m, v, 0.5, 0.5, 0.5, 0.5, 0.0, tf.constant([2.0]))",
        "[0.5]",
    ),
)

_FTRL = (
    "new_accum = accum + grad * grad; linear += grad - (new_accum^(-lr_power) -\n"
    "accum^(-lr_power)) / lr * var; var = (l1 * sign(linear) - linear) / (new_accum^(-lr_power)\n"
    "/ lr + 2 * l2) where |linear| > l1, else 0; accum = new_accum. With lr_power = -0.5 the\n"
    "powers are square roots. With ``multiplyLinearByLr(True)`` linear holds lr times that\n"
    "accumulator: linear += grad * lr - (new_accum^(-lr_power) - accum^(-lr_power)) * var,\n"
    "and var = (l1 * lr * sign(linear) - linear) / (new_accum^(-lr_power) + 2 * l2 * lr)\n"
    "where |linear| > l1 * lr."
)
_FTRL_REFS = (
    _VAR,
    ("accum", "the sum of the squared gradients (a variable)"),
    ("linear", "the linear coefficient (a variable)"),
)
_LR_POWER = ("lr_power", "the learning rate's power (usually -0.5), a scalar")

_applyOp(
    "ApplyFtrl",
    "Update '*var' according to the Ftrl-proximal scheme.",
    _FTRL,
    _FTRL_REFS,
    (_GRAD, _LR, _L1, _L2, _LR_POWER),
    _example(
        "w, a, lin = (tf.variable(tf.constant([x])) for x in (0.0, 0.0, 0.0))",
        "tf.train.applyFtrl(w, a, lin, tf.constant([2.0]), 1.0, 0.5, 0.0, -0.5)",
        "[-0.75]",
    ),
    extra=(_LINEAR_BY_LR,),
)

_applyOp(
    "ApplyFtrlV2",
    "Update '*var' according to the Ftrl-proximal scheme, with L2 shrinkage.",
    "As ``ApplyFtrl``, with the gradient grad + 2 * l2_shrinkage * var in the update of\n"
    "linear (the accumulator still sums the squares of grad itself). " + _FTRL,
    _FTRL_REFS,
    (
        _GRAD,
        _LR,
        _L1,
        _L2,
        ("l2_shrinkage", "L2 shrinkage regularization strength, a scalar"),
        _LR_POWER,
    ),
    _example(
        "w, a, lin = (tf.variable(tf.constant([x])) for x in (1.0, 0.0, 0.0))",
        "tf.train.applyFtrlV2(w, a, lin, tf.constant([2.0]), 1.0, 0.25, 0.0, 0.25, -0.5)",
        "[-0.125]",
    ),
    extra=(_LINEAR_BY_LR,),
)

_applyOp(
    "ApplyProximalGradientDescent",
    "Update '*var' as FOBOS algorithm with fixed learning rate.",
    "prox_v = var - alpha * delta; var = sign(prox_v) * max(|prox_v| - alpha * l1, 0) / (1 +\n"
    "alpha * l2). float32 and float64 only, as TensorFlow's kernels.",
    (_VAR,),
    (
        ("alpha", "scaling factor (the learning rate), a scalar"),
        _L1,
        _L2,
        ("delta", "the change (the gradient)"),
    ),
    _example(
        "w = tf.variable(tf.constant([3.0]))",
        "tf.train.applyProximalGradientDescent(w, 0.5, 1.0, 1.0, tf.constant([2.0]))",
        "[1.0]",
    ),
    types=SINGLE_AND_DOUBLE,
)

_applyOp(
    "ApplyProximalAdagrad",
    "Update '*var' and '*accum' according to FOBOS with Adagrad learning rate.",
    "accum += grad * grad; rate = lr / sqrt(accum); prox_v = var - rate * grad; var =\n"
    "sign(prox_v) * max(|prox_v| - rate * l1, 0) / (1 + rate * l2). Raises\n"
    "``InvalidArgumentError`` when it runs if lr is not positive or l1 or l2 is negative.\n"
    "float32 and float64 only, as TensorFlow's kernels.",
    (_VAR, ("accum", "the sum of the squared gradients (a variable)")),
    (_LR, _L1, _L2, _GRAD),
    _example(
        "w, a = tf.variable(tf.constant([3.0])), tf.variable(tf.constant([0.0]))",
        "tf.train.applyProximalAdagrad(w, a, 1.0, 0.5, 0.0, tf.constant([2.0]))",
        "[1.75]",
    ),
    types=SINGLE_AND_DOUBLE,
)

_SIGN_REFS = (_VAR, ("m", "the moving average of the gradients (a variable)"))

_applyOp(
    "ApplyPowerSign",
    "Update '*var' according to the PowerSign update.",
    "m = beta * m + (1 - beta) * grad; var -= lr * exp(logbase * sign_decay * sign(grad) *\n"
    "sign(m)) * grad.",
    _SIGN_REFS,
    (
        _LR,
        ("logbase", "the log of the base, a scalar"),
        ("sign_decay", "the sign decay, a scalar"),
        ("beta", "the decay of m, a scalar"),
        _GRAD,
    ),
    _example(
        "w, m = tf.variable(tf.constant([1.0])), tf.variable(tf.constant([0.0]))",
        "tf.train.applyPowerSign(w, m, 0.5, 0.6931472, 1.0, 0.5, tf.constant([2.0]))",
        "[-1.0]",
    ),
)

_applyOp(
    "ApplyAddSign",
    "Update '*var' according to the AddSign update.",
    "m = beta * m + (1 - beta) * grad; var -= lr * (alpha + sign_decay * sign(grad) *\n"
    "sign(m)) * grad.",
    _SIGN_REFS,
    (
        _LR,
        ("alpha", "the constant term, a scalar"),
        ("sign_decay", "the sign decay, a scalar"),
        ("beta", "the decay of m, a scalar"),
        _GRAD,
    ),
    _example(
        "w, m = tf.variable(tf.constant([1.0])), tf.variable(tf.constant([0.0]))",
        "tf.train.applyAddSign(w, m, 0.5, 1.0, 0.5, 0.5, tf.constant([2.0]))",
        "[-0.5]",
    ),
)
