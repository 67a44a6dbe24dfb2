"""Trigonometric and hyperbolic functions and their inverses (``tfops.op.math``): Sin, Cos, Tan,
Asin, Acos, Atan, Atan2, Sinh, Cosh, Asinh, Acosh, Atanh.

:func:`unaryOp` and :func:`example` are shared by the other elementwise families of this
helper (rounding, special functions)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfops.opdef import AttrDef, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.spec.grad import GradOp, Grads, registerGradient
from tfops.spec.indexing import example
from tfops.spec.rules import FLOATS, broadcastShape, sameShape
from tfops.types import TFloating, TType

if TYPE_CHECKING:
    from tfops.ops import Ops


def unaryOp(
    opType: str,
    summary: str,
    description: str,
    allowed: tuple[type[TType], ...],
    example: str,
    *,
    result: type[TType] | None = None,
) -> None:
    """Registers an elementwise op ``y = f(x)`` of group math; ``result`` fixes the output type
    (else that of ``x``)."""
    outputDoc = (
        "the result, of the shape and type of ``x``" if result is None
        else f"a {result.NAME} tensor of the shape of ``x``"
    )
    registerOp(
        OpDef(
            type=opType,
            group="math",
            summary=summary,
            description=description,
            inputs=(InputDef("x", "the input tensor", typeAttr="T"),),
            outputs=(OutputDef("y", outputDoc, typeAttr=None if result else "T", dtype=result),),
            attrs=(AttrDef("T", "type", allowed=allowed),),
            infer=sameShape,
            example=example,
            elementwise=True,
        )
    )


def binaryOp(
    opType: str,
    summary: str,
    description: str,
    allowed: tuple[type[TType], ...],
    example: str,
    *,
    names: tuple[str, str] = ("x", "y"),
    docs: tuple[str, str] = ("the first operand", "the second operand, of the same data type"),
    group: str = "math",
) -> None:
    """Registers a broadcasting op ``z = f(x, y)`` (inputs named ``names``, described by
    ``docs``) whose output has the inputs' data type."""
    first, second = names
    registerOp(
        OpDef(
            type=opType,
            group=group,
            summary=summary,
            description=f"{description}\n\n"
            "The inputs broadcast against each other as in numpy and TensorFlow.",
            inputs=(
                InputDef(first, docs[0], typeAttr="T"),
                InputDef(second, docs[1], typeAttr="T"),
            ),
            outputs=(OutputDef("z", "the result, of the broadcast shape", typeAttr="T"),),
            attrs=(AttrDef("T", "type", allowed=allowed),),
            infer=broadcastShape,
            example=example,
            elementwise=True,
        )
    )


# -- circular functions --------------------------------------------------------------------
unaryOp(
    "Sin",
    "Computes sine of x element-wise.",
    "y = sin(x), x in radians, in [-1, 1]; infinite inputs and NaN give NaN.",
    FLOATS,
    example("tf.math.sin(tf.constant([0.0, 1.5707964, -0.5]))", "[0.0, 1.0, -0.479]"),
)


@registerGradient("Sin")
def _sinGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.cos(op.x()))]


unaryOp(
    "Cos",
    "Computes cosine of x element-wise.",
    "y = cos(x), x in radians, in [-1, 1]; infinite inputs and NaN give NaN.",
    FLOATS,
    example("tf.math.cos(tf.constant([0.0, 3.1415927, 0.5]))", "[1.0, -1.0, 0.878]"),
)


@registerGradient("Cos")
def _cosGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.neg(tf.math.mul(g, tf.math.sin(op.x())))]


unaryOp(
    "Tan",
    "Computes tan of x element-wise.",
    "y = tan(x) = sin(x) / cos(x), x in radians; infinite inputs and NaN give NaN. Near the\n"
    "poles (odd multiples of pi/2) the result is large and its sign follows the rounding of\n"
    "``x``.",
    FLOATS,
    example("tf.math.tan(tf.constant([0.0, 0.7853982, -1.0]))", "[0.0, 1.0, -1.557]"),
)


@registerGradient("Tan")
def _tanGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    secant = tf.math.reciprocal(tf.math.cos(op.x()))
    return [tf.math.mul(tf.math.square(secant), g)]


# -- inverse circular functions ------------------------------------------------------------
unaryOp(
    "Asin",
    "Computes the trigonometric inverse sine of x element-wise.",
    "y = asin(x), the angle in [-pi/2, pi/2] whose sine is ``x``; outside [-1, 1] the result\n"
    "is NaN. Its derivative 1 / sqrt(1 - x^2) is ``inf`` at -1 and 1.",
    FLOATS,
    example("tf.math.asin(tf.constant([0.0, 1.0, -0.5]))", "[0.0, 1.571, -0.524]"),
)


def _oneMinusSquare(tf: Ops, x: Output[TFloating]) -> Output[TFloating]:
    return tf.math.sub(1.0, tf.math.square(x)).asOutput()


@registerGradient("Asin")
def _asinGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.reciprocal(tf.math.sqrt(_oneMinusSquare(tf, op.x()))))]


unaryOp(
    "Acos",
    "Computes acos of x element-wise.",
    "y = acos(x), the angle in [0, pi] whose cosine is ``x``; outside [-1, 1] the result is\n"
    "NaN. Its derivative -1 / sqrt(1 - x^2) is ``-inf`` at -1 and 1.",
    FLOATS,
    example("tf.math.acos(tf.constant([1.0, 0.0, -1.0]))", "[0.0, 1.571, 3.142]"),
)


@registerGradient("Acos")
def _acosGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    inverse = tf.math.reciprocal(tf.math.sqrt(_oneMinusSquare(tf, op.x())))
    return [tf.math.neg(tf.math.mul(g, inverse))]


unaryOp(
    "Atan",
    "Computes the trigonometric inverse tangent of x element-wise.",
    "y = atan(x), the angle in (-pi/2, pi/2) whose tangent is ``x``; -inf and inf give -pi/2\n"
    "and pi/2.",
    FLOATS,
    example("tf.math.atan(tf.constant([0.0, 1.0, -np.inf]))", "[0.0, 0.785, -1.571]"),
)


@registerGradient("Atan")
def _atanGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.reciprocal(tf.math.add(1.0, tf.math.square(op.x()))))]


binaryOp(
    "Atan2",
    "Computes arctangent of ``y/x`` element-wise, respecting signs of the arguments.",
    "The angle in [-pi, pi] of the point (x, y) from the positive x axis: atan(y / x) moved\n"
    "into the quadrant of the point, as C's ``atan2`` (atan2(0, -1) is pi, atan2(-0.0, -1)\n"
    "is -pi, atan2(0, 0) is 0). Note the order: ``y`` comes first.",
    FLOATS,
    example("tf.math.atan2(tf.constant([1.0, 1.0, -1.0]), tf.constant([1.0, -1.0, 0.0]))",
            "[0.785, 2.356, -1.571]"),
    names=("y", "x"),
    docs=("the ordinates of the points", "the abscissae of the points, of the same data type"),
)


@registerGradient("Atan2")
def _atan2Grad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    y, x = op.x(0), op.x(1)
    gOverR2 = tf.math.div(g, tf.math.add(tf.math.square(y), tf.math.square(x)))
    return [tf.math.mul(x, gOverR2), tf.math.mul(tf.math.neg(y), gOverR2)]


# -- hyperbolic functions and their inverses -----------------------------------------------
unaryOp(
    "Sinh",
    "Computes hyperbolic sine of x element-wise.",
    "y = (e^x - e^-x) / 2; it overflows to ``inf`` (``-inf``) for large (large negative)\n"
    "inputs.",
    FLOATS,
    example("tf.math.sinh(tf.constant([0.0, 1.0, -2.0]))", "[0.0, 1.175, -3.627]"),
)


@registerGradient("Sinh")
def _sinhGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.cosh(op.x()))]


unaryOp(
    "Cosh",
    "Computes hyperbolic cosine of x element-wise.",
    "y = (e^x + e^-x) / 2, at least 1; it overflows to ``inf`` for inputs large in magnitude.",
    FLOATS,
    example("tf.math.cosh(tf.constant([0.0, 1.0, -2.0]))", "[1.0, 1.543, 3.762]"),
)


@registerGradient("Cosh")
def _coshGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.sinh(op.x()))]


unaryOp(
    "Asinh",
    "Computes inverse hyperbolic sine of x element-wise.",
    "y = asinh(x) = log(x + sqrt(x^2 + 1)), defined for every ``x`` (``inf`` gives ``inf``).\n"
    "Its gradient is g / cosh(y), of the output, as TensorFlow's.",
    FLOATS,
    example("tf.math.asinh(tf.constant([0.0, 1.0, -10.0]))", "[0.0, 0.881, -2.998]"),
)


@registerGradient("Asinh")
def _asinhGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.div(g, tf.math.cosh(op.y()))]


unaryOp(
    "Acosh",
    "Computes inverse hyperbolic cosine of x element-wise.",
    "y = acosh(x) = log(x + sqrt(x^2 - 1)), at least 0; inputs below 1 give NaN. Its gradient\n"
    "is g / sinh(y), of the output, as TensorFlow's (``inf`` at 1).",
    FLOATS,
    example("tf.math.acosh(tf.constant([1.0, 2.0, 0.5]))", "[0.0, 1.317, nan]"),
)


@registerGradient("Acosh")
def _acoshGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.div(g, tf.math.sinh(op.y()))]


unaryOp(
    "Atanh",
    "Computes inverse hyperbolic tangent of x element-wise.",
    "y = atanh(x) = log((1 + x) / (1 - x)) / 2 for x in (-1, 1); -1 and 1 give ``-inf`` and\n"
    "``inf``, inputs outside [-1, 1] give NaN.",
    FLOATS,
    example("tf.math.atanh(tf.constant([0.0, 0.5, 1.0]))", "[0.0, 0.549, inf]"),
)


@registerGradient("Atanh")
def _atanhGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.reciprocal(_oneMinusSquare(tf, op.x())))]
