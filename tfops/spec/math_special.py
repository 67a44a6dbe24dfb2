"""Special functions (``tfops.op.math``): IsInf, Erf, Erfc, Lgamma, Digamma, Polygamma, Zeta,
Xlogy, Xdivy."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfops.output import Operand, Output
from tfops.spec.grad import GradOp, Grads, notDifferentiable, registerGradient
from tfops.spec.indexing import example
from tfops.spec.math_trig import binaryOp, unaryOp
from tfops.spec.rules import FLOATS
from tfops.types import TBool, TFloat32, TFloat64, TFloating

if TYPE_CHECKING:
    from tfops.ops import Ops

TWO_OVER_ROOT_PI = 1.1283791670955126
"""2 / sqrt(pi), the factor of erf's derivative."""

unaryOp(
    "IsInf",
    "Returns which elements of x are Inf.",
    "True where an element is ``inf`` or ``-inf`` (not where it is NaN). Not differentiable.",
    FLOATS,
    example("tf.math.isInf(tf.constant([1.0, np.inf, -np.inf, np.nan]))",
            "[False, True, True, False]"),
    result=TBool,
)
notDifferentiable("IsInf")


# -- the error function --------------------------------------------------------------------
def _gaussian(tf: Ops, x: Output[TFloating]) -> Operand[TFloating]:
    """exp(-x^2)."""
    return tf.math.exp(tf.math.neg(tf.math.square(x)))


unaryOp(
    "Erf",
    "Computes the Gauss error function of ``x`` element-wise.",
    "erf(x) = 2 / sqrt(pi) * integral from 0 to x of exp(-t^2) dt, in [-1, 1]; odd, so the\n"
    "sign of zero is kept. Its derivative is 2 / sqrt(pi) * exp(-x^2). TensorFlow 2.21's\n"
    "float64 CPU kernel gives NaN where x^2 overflows (|x| >= 1.34e154, and at ``inf`` and\n"
    "``-inf``); tfops gives the limits -1 and 1 there.",
    FLOATS,
    example("tf.math.erf(tf.constant([0.0, 0.5, -2.0, np.inf]))", "[0.0, 0.520, -0.995, 1.0]"),
)


@registerGradient("Erf")
def _erfGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(tf.math.mul(g, TWO_OVER_ROOT_PI), _gaussian(tf, op.x()))]


unaryOp(
    "Erfc",
    "Computes the complementary error function of ``x`` element-wise.",
    "erfc(x) = 1 - erf(x), in [0, 2], computed without the cancellation of ``1 - erf(x)``:\n"
    "accurate also where it is tiny (large ``x``). Its derivative is\n"
    "-2 / sqrt(pi) * exp(-x^2).",
    FLOATS,
    example("tf.math.erfc(tf.constant([0.0, 0.5, 3.0, -np.inf]))", "[1.0, 0.480, 2.209e-05, 2.0]"),
)


@registerGradient("Erfc")
def _erfcGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(tf.math.mul(g, -TWO_OVER_ROOT_PI), _gaussian(tf, op.x()))]


# -- the gamma function and its derivatives ------------------------------------------------
unaryOp(
    "Lgamma",
    "Computes the log of the absolute value of ``Gamma(x)`` element-wise.",
    "For positive numbers this function is the logarithm of the gamma function, log(Gamma(x));\n"
    "for negative ones the logarithm of its absolute value. At its poles, 0 and the negative\n"
    "integers, and at ``inf`` and ``-inf`` it is ``inf``. Its derivative is digamma(x).",
    FLOATS,
    example("tf.math.lgamma(tf.constant([1.0, 0.5, 10.0, -0.5, 0.0]))",
            "[0.0, 0.572, 12.802, 1.266, inf]"),
)


@registerGradient("Lgamma")
def _lgammaGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.digamma(op.x()))]


unaryOp(
    "Digamma",
    "Computes Psi, the derivative of Lgamma, element-wise.",
    "digamma(x) = Gamma'(x) / Gamma(x), the derivative of lgamma(x) (the log of the absolute\n"
    "value of Gamma(x)). At the poles, 0 (of either sign) and the negative\n"
    "integers, the result is NaN, as TensorFlow's (not infinite); ``inf`` gives ``inf`` and\n"
    "``-inf`` NaN. Its derivative is polygamma(1, x); Polygamma takes float32 and float64\n"
    "only, so the gradient of a float16 Digamma cannot be built (a ``TypeError``), as in\n"
    "TensorFlow.",
    FLOATS,
    example("tf.math.digamma(tf.constant([1.0, 2.0, -0.5, 0.0]))",
            "[-0.577, 0.423, 0.036, nan]"),
)


@registerGradient("Digamma")
def _digammaGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.polygamma(1.0, op.x()))]


binaryOp(
    "Polygamma",
    "Computes the polygamma function psi^(n)(x).",
    "The n-th derivative of the digamma function: psi^(n)(x) = d^n/dx^n digamma(x), where n\n"
    "is ``a``. ``a`` must hold non-negative integers (as floating point numbers): other orders\n"
    "give NaN. polygamma(0, x) is digamma(x); for n >= 1 it is (-1)^(n+1) n! zeta(n+1, x),\n"
    "``inf`` at 0 and the negative integers. Differentiable in ``x`` only (its derivative is\n"
    "polygamma(a + 1, x)); no gradient flows to ``a``, as in TensorFlow.",
    (TFloat32, TFloat64),
    example("tf.math.polygamma(tf.constant([0.0, 1.0, 2.0]), tf.constant([1.0, 1.0, 2.0]))",
            "[-0.577, 1.645, -0.404]"),
    names=("a", "x"),
    docs=("the orders n, non-negative integers", "the arguments, of the same data type"),
)


@registerGradient("Polygamma")
def _polygammaGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    a, x = op.x(0), op.x(1)
    return [None, tf.math.mul(g, tf.math.polygamma(tf.math.add(a, 1.0), x))]


binaryOp(
    "Zeta",
    "Computes the Hurwitz zeta function zeta(x, q).",
    "zeta(x, q) = sum over n >= 0 of (q + n)^-x, defined for x > 1 (x = 1 gives ``inf``,\n"
    "x < 1 NaN); at q = 0 and the negative integers it is ``inf`` where x is an integer, NaN\n"
    "elsewhere, and between them it is computed for integral x only (NaN otherwise), as\n"
    "TensorFlow's. Differentiable in ``q`` only (its derivative is -x zeta(x + 1, q)); no\n"
    "gradient flows to ``x``, as in TensorFlow.",
    (TFloat32, TFloat64),
    example("tf.math.zeta(tf.constant([2.0, 2.0, 3.0]), tf.constant([1.0, 2.0, 1.0]))",
            "[1.645, 0.645, 1.202]"),
    names=("x", "q"),
    docs=("the exponents", "the shifts (the first term is q^-x), of the same data type"),
)


@registerGradient("Zeta")
def _zetaGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    x, q = op.x(0), op.x(1)
    dq = tf.math.mul(tf.math.neg(x), tf.math.zeta(tf.math.add(x, 1.0), q))
    return [None, tf.math.mul(g, dq)]


# -- x log y and x / y, 0 where x is 0 -----------------------------------------------------
def _isNotZero(tf: Ops, x: Output[TFloating]) -> Operand[TFloating]:
    """1 where ``x`` is not zero, else 0, in the type of ``x``."""
    return tf.dtypes.cast(tf.math.notEqual(x, 0.0), x.dataType())


binaryOp(
    "Xlogy",
    "Returns 0 if x == 0, and x * log(y) otherwise, elementwise.",
    "Where ``x`` is zero the result is that zero (of its sign) whatever ``y`` holds (0, a\n"
    "negative number, ``inf`` or NaN); elsewhere it is x * log(y), so a NaN ``x`` gives NaN. Its\n"
    "gradients are xlogy(x != 0, y) for ``x`` and xdivy(x, y) for ``y``, as TensorFlow's.",
    FLOATS,
    example("tf.math.xlogy(tf.constant([0.0, 0.0, 2.0]), tf.constant([0.0, np.nan, np.e]))",
            "[0.0, 0.0, 2.0]"),
)


@registerGradient("Xlogy")
def _xlogyGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    x, y = op.x(0), op.x(1)
    return [tf.math.mul(tf.math.xlogy(_isNotZero(tf, x), y), g),
            tf.math.mul(tf.math.xdivy(x, y), g)]


binaryOp(
    "Xdivy",
    "Returns 0 if x == 0, and x / y otherwise, elementwise.",
    "Where ``x`` is zero the result is that zero (of its sign) whatever ``y`` holds (0 or NaN\n"
    "included); elsewhere it is the IEEE 754 quotient. Its gradients are xdivy(x != 0, y)\n"
    "for ``x`` and xdivy(-x, y^2) for ``y``, as TensorFlow's.",
    FLOATS,
    example("tf.math.xdivy(tf.constant([0.0, 3.0, 1.0]), tf.constant([0.0, 2.0, 0.0]))",
            "[0.0, 1.5, inf]"),
)


@registerGradient("Xdivy")
def _xdivyGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    x, y = op.x(0), op.x(1)
    return [tf.math.mul(tf.math.xdivy(_isNotZero(tf, x), y), g),
            tf.math.mul(tf.math.xdivy(tf.math.neg(x), tf.math.square(y)), g)]
