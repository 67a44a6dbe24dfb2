"""Binary math ops with broadcasting (``tfops.op.math``): the division and remainder variants,
Pow, Maximum and Minimum, the order comparisons and the logical connectives."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Operand, Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, notDifferentiable, registerGradient
from tfops.spec.rules import ANY, FLOATS, NUMBERS, broadcastShape
from tfops.types import TBool, TFloating, TInt32, TInt64, TType

if TYPE_CHECKING:
    from tfops.ops import Ops

_BROADCASTING = "The inputs broadcast against each other as in numpy and TensorFlow."


def _example(call: str, result: str) -> str:
    return (
        ">>> g = Graph(); tf = Ops.create(g)\n"
        f">>> z = {call}\n"
        ">>> Session(g).runner().fetch(z).run()[0].tolist()\n"
        f"{result}"
    )


def _binary(
    opType: str,
    summary: str,
    description: str,
    allowed: tuple[type[TType], ...] | type[TType],
    example: str,
    out: type[TType] | None = None,
    attrs: tuple[AttrDef, ...] = (),
    infer: Callable[[InferContext], Sequence[Shape]] = broadcastShape,
) -> None:
    """Registers a broadcasting op ``z = f(x, y)``; ``allowed`` is a type family (a ``T``
    attribute) or one fixed data type, ``out`` a fixed output data type (else ``T``)."""
    fixed = allowed if isinstance(allowed, type) else None
    typeAttr = None if fixed else "T"
    typeAttrs = () if isinstance(allowed, type) else (AttrDef("T", "type", allowed=allowed),)
    registerOp(
        OpDef(
            type=opType,
            group="math",
            summary=summary,
            description=f"{description}\n\n{_BROADCASTING}",
            inputs=(
                InputDef("x", "the first operand", typeAttr=typeAttr, dtype=fixed),
                InputDef("y", "the second operand, of the same data type", typeAttr=typeAttr,
                         dtype=fixed),
            ),
            outputs=(
                OutputDef("z", "the result, of the broadcast shape",
                          typeAttr=None if out or fixed else "T", dtype=out or fixed),
            ),
            attrs=typeAttrs + attrs,
            infer=infer,
            example=example,
            elementwise=infer is broadcastShape,
        )
    )


def _split(
    tf: Ops, mask: Operand[TBool], g: Output[TFloating]
) -> tuple[Operand[TFloating], Operand[TFloating]]:
    """``g`` where the boolean ``mask`` holds (else 0), and ``g`` where it does not (else 0):
    TensorFlow's ``where(mask, g, 0)`` and ``where(mask, 0, g)``.

    ``DivNoNan`` by the mask as 0/1 gives exactly ``g`` or 0, even where ``g`` is ``inf`` or
    ``nan`` (a product would give ``nan``), and is differentiable in ``g``.
    """
    m = tf.dtypes.cast(mask, g.dataType())
    return tf.math.divNoNan(g, m), tf.math.divNoNan(g, tf.math.sub(1, m))


# -- division and remainder ----------------------------------------------------------------
_binary(
    "DivNoNan",
    "Returns x / y element-wise, or 0 wherever the divisor is zero.",
    "Where ``y`` is zero the result is 0, whatever ``x`` holds (even ``inf`` or ``nan``);\n"
    "elsewhere it is the IEEE 754 quotient.",
    FLOATS,
    _example("tf.math.divNoNan(tf.constant([3.0, 1.0]), tf.constant([2.0, 0.0]))",
             "[1.5, 0.0]"),
)


@registerGradient("DivNoNan")
def _divNoNanGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    x, y = op.x(0), op.x(1)
    negXOverY2 = tf.math.divNoNan(tf.math.divNoNan(tf.math.neg(x), y), y)
    return [tf.math.divNoNan(g, y), tf.math.mul(g, negXOverY2)]


_binary(
    "RealDiv",
    "Returns x / y element-wise for real (floating point) tensors.",
    "Division follows IEEE 754: a zero divisor gives ``inf``, ``-inf`` or ``nan``.",
    FLOATS,
    _example("tf.math.realDiv(tf.constant([7.0, -7.0]), 2.0)", "[3.5, -3.5]"),
)


@registerGradient("RealDiv")
def _realDivGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    x, y = op.x(0), op.x(1)
    negXOverY2 = tf.math.realDiv(tf.math.realDiv(tf.math.neg(x), y), y)
    return [tf.math.realDiv(g, y), tf.math.mul(g, negXOverY2)]


_binary(
    "FloorDiv",
    "Returns x // y element-wise, rounding the quotient towards negative infinity.",
    "Floating point results are ``floor(x / y)`` of the rounded quotient, as TensorFlow\n"
    "computes them (``1.0 // 0.1`` is 10, where Python says 9). Integer division by zero\n"
    "raises ``InvalidArgumentError``. FloorDiv has no gradient.",
    NUMBERS,
    _example("tf.math.floorDiv(tf.constant([7, -7]), tf.constant([2, 2]))", "[3, -4]"),
)
notDifferentiable("FloorDiv")


_binary(
    "FloorMod",
    "Returns the remainder of the flooring division x // y element-wise.",
    "The result has the sign of ``y`` (or is zero), as Python's ``%``, so that\n"
    "``floor(x / y) * y + floormod(x, y) == x``. A zero integer divisor raises\n"
    "``InvalidArgumentError``; a zero floating point divisor gives ``nan``.",
    NUMBERS,
    _example("tf.math.floorMod(tf.constant([7, -7, 7]), tf.constant([3, 3, -3]))",
             "[1, 2, -2]"),
)


@registerGradient("FloorMod")
def _floorModGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [g, tf.math.mul(g, tf.math.neg(tf.math.floorDiv(op.x(0), op.x(1))))]


# -- Pow -----------------------------------------------------------------------------------
_binary(
    "Pow",
    "Computes x raised to the power y element-wise.",
    "``pow(0, 0)`` is 1. A negative float to a non-integral power is ``nan``. Integer powers\n"
    "wrap around on overflow, and a negative integer exponent raises\n"
    "``InvalidArgumentError``.",
    (*FLOATS, TInt32, TInt64),
    _example("tf.math.pow(tf.constant([2, 3]), tf.constant([3, 2]))", "[8, 9]"),
)


@registerGradient("Pow")
def _powGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    x, y, z = op.x(0), op.x(1), op.y()
    gx = tf.math.mul(tf.math.mul(g, y), tf.math.pow(x, tf.math.sub(y, 1)))
    # log(x) is taken only where x > 0 (0 elsewhere, as TensorFlow): log(where(x > 0, x, 1)).
    positive = tf.dtypes.cast(tf.math.greater(x, 0), x.dataType())
    safeX = tf.math.add(tf.math.divNoNan(x, positive), tf.math.sub(1, positive))
    return [gx, tf.math.mul(tf.math.mul(g, z), tf.math.log(safeX))]


# -- Maximum and Minimum -------------------------------------------------------------------
_binary(
    "Maximum",
    "Returns the larger of x and y element-wise.",
    "A ``nan`` in either input gives ``nan``. The gradient goes to ``x`` where ``x >= y``\n"
    "(ties included), to ``y`` elsewhere.",
    NUMBERS,
    _example("tf.math.maximum(tf.constant([1, 5]), 3)", "[3, 5]"),
)
_binary(
    "Minimum",
    "Returns the smaller of x and y element-wise.",
    "A ``nan`` in either input gives ``nan``. The gradient goes to ``x`` where ``x <= y``\n"
    "(ties included), to ``y`` elsewhere.",
    NUMBERS,
    _example("tf.math.minimum(tf.constant([1, 5]), 3)", "[1, 3]"),
)


@registerGradient("Maximum")
@registerGradient("Minimum")
def _maximumMinimumGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """To ``x`` where it is the result (``x >= y`` for Maximum, ``x <= y`` for Minimum: ties go
    to ``x``), to ``y`` elsewhere, as TensorFlow's ``_MaximumMinimumGrad``."""
    x, y = op.x(0), op.x(1)
    chooser = tf.math.greaterEqual if op.operation().type() == "Maximum" else tf.math.lessEqual
    return _split(tf, chooser(x, y), g)


# -- comparisons ---------------------------------------------------------------------------
def _notEqualShape(ctx: InferContext) -> Sequence[Shape]:
    """Lenient (``incompatible_shape_error`` false), as TensorFlow's shape function: the
    broadcast shape when the inputs surely broadcast, else unknown (inputs that turn out not to
    broadcast give the scalar ``true``): an unknown dimension meets one larger than 1 or
    another unknown one, or two known ones differ."""
    if ctx.attrs["incompatible_shape_error"]:
        return broadcastShape(ctx)
    a, b = ctx.shapes[0].asArray(), ctx.shapes[1].asArray()
    if a is None or b is None:
        return [Shape.unknown()]
    n = max(len(a), len(b))
    a, b = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    dims = []
    for x, y in zip(a, b, strict=True):
        if x == 1 or y == 1:
            dims.append(y if x == 1 else x)
        elif x == y != -1:
            dims.append(x)
        else:  # an unknown dimension against one larger than 1 (or unknown), or two that differ
            return [Shape.unknown()]
    return [Shape.of(*dims)]


_binary(
    "NotEqual",
    "Returns the truth value of (x != y) element-wise.",
    "The result is a ``TBool`` tensor; ``nan`` differs from everything, itself included.\n"
    "With ``incompatibleShapeError(false)``, inputs whose shapes do not broadcast are simply\n"
    "unequal: the result is the scalar ``true`` (and its static shape is unknown).",
    ANY,
    _example("tf.math.notEqual(tf.constant([1, 2]), 2)", "[True, False]"),
    out=TBool,
    attrs=(
        AttrDef("incompatible_shape_error", "bool",
                "if false, inputs of incompatible shapes give ``true`` instead of an error",
                default=True, option="incompatibleShapeError"),
    ),
    infer=_notEqualShape,
)
for _type, _summary, _result in [
    ("Less", "x < y", "[True, False, False]"),
    ("LessEqual", "x <= y", "[True, True, False]"),
    ("Greater", "x > y", "[False, False, True]"),
    ("GreaterEqual", "x >= y", "[False, True, True]"),
]:
    _binary(
        _type,
        f"Returns the truth value of ({_summary}) element-wise.",
        "The result is a ``TBool`` tensor; every comparison with ``nan`` is false.",
        NUMBERS,
        _example(f"tf.math.{_type[0].lower()}{_type[1:]}(tf.constant([1, 2, 3]), 2)", _result),
        out=TBool,
    )
notDifferentiable("NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual")


# -- logical connectives -------------------------------------------------------------------
_binary(
    "LogicalAnd",
    "Returns the truth value of x AND y element-wise.",
    "Both inputs and the result are ``TBool`` tensors.",
    TBool,
    _example("tf.math.logicalAnd(tf.constant([True, True, False]), [True, False, False])",
             "[True, False, False]"),
)
_binary(
    "LogicalOr",
    "Returns the truth value of x OR y element-wise.",
    "Both inputs and the result are ``TBool`` tensors.",
    TBool,
    _example("tf.math.logicalOr(tf.constant([True, True, False]), [True, False, False])",
             "[True, True, False]"),
)
notDifferentiable("LogicalAnd", "LogicalOr")
