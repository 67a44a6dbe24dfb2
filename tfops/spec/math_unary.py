"""Unary math ops (``tfops.op.math``): elementwise functions (Abs, Sign, Sqrt, Tanh, Sigmoid...),
the floating point tests IsFinite and IsNan, and LogicalNot."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfops.opdef import AttrDef, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.spec.grad import GradOp, Grads, notDifferentiable, registerGradient
from tfops.spec.indexing import example
from tfops.spec.rules import FLOATS, NUMBERS, sameShape
from tfops.types import TBool, TFloating, TType

if TYPE_CHECKING:
    from tfops.ops import Ops

# TensorFlow's Abs and Sign take signed numbers only.
SIGNED: tuple[type[TType], ...] = tuple(t for t in NUMBERS if t.DTYPE.kind != "u")


# -- elementwise ---------------------------------------------------------------------------
def _unary(
    opType: str,
    summary: str,
    description: str,
    allowed: tuple[type[TType], ...],
    example: str,
    *,
    names: tuple[str, str] = ("x", "y"),
    result: type[TType] | None = None,
) -> None:
    """Registers an elementwise op; ``result`` fixes the output type (else that of the input)."""
    inputName, outputName = names
    inputDoc = "the input tensor" + (", of type bool" if allowed == (TBool,) else "")
    if allowed == (TBool,):
        inputDef = InputDef(inputName, inputDoc, dtype=TBool)
        attrs: tuple[AttrDef, ...] = ()
    else:
        inputDef = InputDef(inputName, inputDoc, typeAttr="T")
        attrs = (AttrDef("T", "type", allowed=allowed),)
    outputDoc = (
        f"the result, of the shape and type of ``{inputName}``" if result is None
        else f"a bool tensor of the shape of ``{inputName}``"
    )
    registerOp(
        OpDef(
            type=opType,
            group="math",
            summary=summary,
            description=description,
            inputs=(inputDef,),
            outputs=(
                OutputDef(outputName, outputDoc, typeAttr=None if result else "T", dtype=result),
            ),
            attrs=attrs,
            infer=sameShape,
            example=example,
            elementwise=True,
        )
    )


_unary(
    "Abs",
    "Computes the absolute value of a tensor.",
    "Given a tensor ``x`` of signed numbers, returns the tensor of the absolute values of its\n"
    "elements: y = |x|. The absolute value of the most negative integer wraps around to itself.",
    SIGNED,
    example("tf.math.abs(tf.constant([-1.5, 0.0, 2.0]))", "[1.5, 0.0, 2.0]"),
)


@registerGradient("Abs")
def _absGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.sign(op.x()))]


_unary(
    "Sign",
    "Returns an element-wise indication of the sign of a number.",
    "y = sign(x) is -1 where x < 0, 0 where x == 0 and 1 where x > 0, in the type of ``x``;\n"
    "NaN stays NaN. Its gradient is zero everywhere.",
    SIGNED,
    example("tf.math.sign(tf.constant([-3, 0, 7]))", "[-1, 0, 1]"),
)


@registerGradient("Sign")
def _signGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.zerosLike(op.x())]


_unary(
    "Sqrt",
    "Computes square root of x element-wise.",
    "I.e., y = sqrt(x) = x^(1/2); negative inputs give NaN.",
    FLOATS,
    example("tf.math.sqrt(tf.constant([4.0, 2.0]))", "[2.0, 1.414]"),
)


@registerGradient("Sqrt")
def _sqrtGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.div(tf.math.mul(0.5, g), op.y())]


_unary(
    "Rsqrt",
    "Computes reciprocal of square root of x element-wise.",
    "I.e., y = 1 / sqrt(x); 0 gives ``inf`` and negative inputs give NaN.",
    FLOATS,
    example("tf.math.rsqrt(tf.constant([4.0, 0.25]))", "[0.5, 2.0]"),
)


@registerGradient("Rsqrt")
def _rsqrtGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(tf.math.mul(-0.5, tf.math.mul(g, op.y())), tf.math.square(op.y()))]


_unary(
    "Expm1",
    "Computes ``exp(x) - 1`` element-wise.",
    "I.e., y = e^x - 1, accurate also where x is close to 0 (where ``exp(x) - 1`` would lose\n"
    "the digits that matter).",
    FLOATS,
    example("tf.math.expm1(tf.constant([0.0, 1e-10, 1.0]))", "[0.0, 1e-10, 1.718]"),
)


@registerGradient("Expm1")
def _expm1Grad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.exp(op.x()))]


_unary(
    "Log1p",
    "Computes natural logarithm of (1 + x) element-wise.",
    "I.e., y = log(1 + x), accurate also where x is close to 0; -1 gives ``-inf`` and values\n"
    "below -1 give NaN.",
    FLOATS,
    example("tf.math.log1p(tf.constant([0.0, 1e-10, 1.0]))", "[0.0, 1e-10, 0.693]"),
)


@registerGradient("Log1p")
def _log1pGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.reciprocal(tf.math.add(1.0, op.x())))]


_unary(
    "Tanh",
    "Computes hyperbolic tangent of ``x`` element-wise.",
    "y = (e^x - e^-x) / (e^x + e^-x), in (-1, 1); it saturates to -1 and 1 for large inputs.",
    FLOATS,
    example("tf.math.tanh(tf.constant([0.0, 1.0, -100.0]))", "[0.0, 0.762, -1.0]"),
)


@registerGradient("Tanh")
def _tanhGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.sub(1.0, tf.math.square(op.y())))]


_unary(
    "Sigmoid",
    "Computes sigmoid of ``x`` element-wise.",
    "Specifically, y = 1 / (1 + e^-x), the logistic function, in (0, 1); large negative inputs\n"
    "give 0 without overflow errors.",
    FLOATS,
    example("tf.math.sigmoid(tf.constant([0.0, 2.0, -1000.0]))", "[0.5, 0.881, 0.0]"),
)


@registerGradient("Sigmoid")
def _sigmoidGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(tf.math.mul(g, op.y()), tf.math.sub(1.0, op.y()))]


_unary(
    "Softplus",
    "Computes softplus: ``log(exp(features) + 1)``.",
    "A smooth approximation of ReLU: about ``features`` for large inputs and about\n"
    "``exp(features)`` for large negative ones, computed without overflow. Its derivative is\n"
    "the sigmoid of ``features``.",
    FLOATS,
    example("tf.math.softplus(tf.constant([0.0, 1000.0, -1000.0]))", "[0.693, 1000.0, 0.0]"),
    names=("features", "activations"),
)


@registerGradient("Softplus")
def _softplusGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.sigmoid(op.x()))]


_unary(
    "IsFinite",
    "Returns which elements of x are finite.",
    "True where an element is neither infinite nor NaN. Not differentiable.",
    FLOATS,
    example("tf.math.isFinite(tf.constant([1.0, np.inf, np.nan]))", "[True, False, False]"),
    result=TBool,
)
_unary(
    "IsNan",
    "Returns which elements of x are NaN.",
    "True exactly where an element is NaN (not where it is infinite). Not differentiable.",
    FLOATS,
    example("tf.math.isNan(tf.constant([1.0, np.inf, np.nan]))", "[False, False, True]"),
    result=TBool,
)
_unary(
    "LogicalNot",
    "Returns the truth value of ``NOT x`` element-wise.",
    "``x`` must be a bool tensor; the result is its negation. Not differentiable.",
    (TBool,),
    example("tf.math.logicalNot(tf.constant([True, False]))", "[False, True]"),
    result=TBool,
)
notDifferentiable("IsFinite", "IsNan", "LogicalNot")
