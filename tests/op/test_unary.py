"""Specification of the unary elementwise ops, one row per op in the style of JAX's
``lax_test.LAX_OPS``: the facade call, the numpy reference, the data types taken (the others of
``ALL`` are rejected), the input domain, the special values, and how the gradient is checked.
Each test is one behaviour over the rows; the ops' names, scopes, foreign operands, closed graphs
and docs are in ``tests/test_every_op.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
import scipy.special  # type: ignore[import-untyped]
from opchecks import (
    ALL,
    FLOATS,
    INTEGERS,
    NUMBERS,
    SIGNED_INTEGERS,
    assertGradient,
    assertRejected,
    placeholder,
)

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.core import Gradients
from tfops.op.math import (
    Abs,
    Acos,
    Acosh,
    Asin,
    Asinh,
    Atan,
    Atanh,
    Cos,
    Cosh,
    Erf,
    Erfc,
    Exp,
    Expm1,
    IsFinite,
    IsInf,
    IsNan,
    Lgamma,
    Log,
    Log1p,
    LogicalNot,
    Neg,
    Reciprocal,
    Rsqrt,
    Sigmoid,
    Sign,
    Sin,
    Sinh,
    Softplus,
    Sqrt,
    Square,
    Tan,
    Tanh,
)
from tfops.op.nn import Elu, Relu, Relu6
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Array = np.ndarray[Any, Any]
Run = Callable[..., Any]
inf, nan = np.inf, np.nan
SIGNED = FLOATS + SIGNED_INTEGERS

TOLERANCE: Mapping[type[TType], float] = {TFloat16: 1e-3, TFloat32: 1e-6, TFloat64: 1e-15}
"""Relative tolerance of a floating point kernel against numpy in float64 (no absolute one)."""

SPECIAL_TOLERANCE: Mapping[type[TType], float] = {TFloat16: 1e-3, TFloat32: 1e-6, TFloat64: 1e-12}
"""Of the special functions (math:), as ``opchecks.RTOL``: XLA's float64 lgamma is accurate to
about 2e-15 absolutely, so relatively less where it crosses zero."""

SIGNED_VALUES = [-7, -1, 0, 1, 6, 100]
UNSIGNED_VALUES = [0, 1, 6, 7, 100, 255]
"""The inputs of the kernels of the integer types (their results wrap around as numpy's)."""


# -- input domains: n float64 inputs where the op is smooth -----------------------------------
def interval(lo: float, hi: float) -> Callable[[int], Array]:
    """Evenly spaced over [lo, hi]."""
    return lambda n: np.linspace(lo, hi, n)


def bothSigns(lo: float, hi: float) -> Callable[[int], Array]:
    """Magnitudes evenly spaced over [lo, hi], of alternating sign (away from 0)."""
    return lambda n: np.linspace(lo, hi, n) * (-1.0) ** np.arange(n)


def cycle(*values: object) -> Callable[[int], Array]:
    """``values`` over and over (points away from the kinks, or not numbers at all)."""
    return lambda n: np.resize(np.array(values), n)


# -- references ------------------------------------------------------------------------------
def same(x: Array) -> Array:
    return x


def logistic(x: Array) -> Array:
    """1 / (1 + e^-x) without overflow and with its relative accuracy for either sign."""
    e = np.exp(-np.abs(x))
    result: Array = np.where(x >= 0, 1 / (1 + e), e / (1 + e))
    return result


def softplus(x: Array) -> Array:
    """ln(1 + e^x) without overflow."""
    result: Array = np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))
    return result


def elu(x: Array) -> Array:
    result: Array = np.where(x < 0, np.expm1(np.minimum(x, 0)), x)
    return result


def tiny(dtype: type[TType]) -> Array:
    """Below half the machine epsilon of ``dtype``: 1 + x rounds to 1."""
    return np.array([1e-4, -1e-4], dtype.DTYPE) * np.finfo(dtype.DTYPE).eps


def extremes(dtype: type[TType]) -> list[float]:
    """The largest, the most negative, the smallest normal and the smallest subnormal value."""
    info = np.finfo(dtype.DTYPE)
    return [info.max, info.min, info.tiny, info.smallest_subnormal]


NAN_BITS = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001], np.uint64)
"""A quiet NaN, a negative one and a signalling one."""


@dataclass(frozen=True)
class At:
    """At the points ``x`` (or ``x(dtype)``), in each of ``dtypes``, the result is ``y`` (or
    ``y(x in float64)``): exactly, signed zeros included, or within ``rtol`` (by data type when a
    mapping)."""

    x: Sequence[Any] | Array | Callable[[type[TType]], Any]
    y: Sequence[Any] | Callable[[Array], Any]
    dtypes: tuple[type[TType], ...] = (TFloat64,)
    rtol: float | Mapping[type[TType], float] = 0.0

    def inputs(self, dtype: type[TType]) -> Array:
        return np.asarray(self.x(dtype) if callable(self.x) else self.x, dtype.DTYPE)

    def expected(self, x: Array) -> Array:
        return np.asarray(self.y(x.astype(np.float64)) if callable(self.y) else self.y)

    def tolerance(self, dtype: type[TType]) -> float:
        return self.rtol[dtype] if isinstance(self.rtol, Mapping) else self.rtol

    def __str__(self) -> str:
        return getattr(self.x, "__name__", None) or str(np.asarray(self.x).tolist())


@dataclass(frozen=True)
class Unary:
    """One op: ``call`` is the facade method (``"math.exp"``), ``reference`` computes it on
    float64 (on the integer or bool input itself for those types), ``domain`` gives the inputs of
    the kernel and of the finite differences, ``special`` the values where it must be exact or
    accurate, ``derivative`` and ``second`` its first and second derivatives at points, ``order``
    the highest derivative of sum(op(x)^2) checked against finite differences in float64 on the
    domain (0: not differentiable), ``names`` its input and output, ``out`` its output type
    (else that of the input) and ``rtol`` its tolerance by data type."""

    op: type[Any]
    call: str
    reference: Callable[[Array], Any]
    dtypes: tuple[type[TType], ...]
    domain: Callable[[int], Array]
    special: tuple[At, ...] = ()
    derivative: tuple[At, ...] = ()
    second: tuple[At, ...] = ()
    order: int = 2
    names: tuple[str, str] = ("x", "y")
    out: type[TType] | None = None
    rtol: Mapping[type[TType], float] = field(default_factory=lambda: TOLERANCE)

    @property
    def name(self) -> str:
        return str(self.op.OP_NAME)

    def __call__(self, tf: Ops, x: Any) -> Any:
        return functools.reduce(getattr, self.call.split("."), tf)(x)

    def output(self, dtype: type[TType]) -> type[TType]:
        return self.out or dtype

    def values(self, dtype: type[TType], shape: tuple[int, ...]) -> Array:
        n = int(np.prod(shape))
        if dtype in INTEGERS:
            values = np.resize(SIGNED_VALUES if dtype in SIGNED_INTEGERS else UNSIGNED_VALUES, n)
        else:
            values = self.domain(n)
        return values.reshape(shape).astype(dtype.DTYPE)

    def expected(self, x: Array) -> Array:
        return np.asarray(self.reference(x.astype(np.float64) if x.dtype.kind == "f" else x))


ROWS = [
    Unary(Exp, "math.exp", np.exp, FLOATS, interval(-2.5, 3.0),
          special=(At([-inf, inf, nan, 0.0, -0.0], [0.0, inf, nan, 1.0, 1.0]),
                   At([11.0, 11.1], [np.exp(11.0), inf], (TFloat16,), rtol=1e-3),
                   At([88.0, 89.0], [np.exp(88.0), inf], (TFloat32,), rtol=1e-6),
                   At([709.0, 710.0], [np.exp(709.0), inf], (TFloat64,), rtol=1e-15)),
          derivative=(At([-1.0, 0.0, 2.0], np.exp, rtol=1e-15),),
          second=(At([0.5], np.exp, rtol=1e-15),)),
    Unary(Log, "math.log", np.log, FLOATS, interval(0.25, 10.0),
          special=(At([1.0, 0.0, -0.0, -1.0, inf, nan, -inf],
                      [0.0, -inf, -inf, nan, inf, nan, nan]),),
          derivative=(At([0.5, 2.0, 4.0], [2.0, 0.5, 0.25], (TFloat32,)),),
          second=(At([2.0], [-0.25], rtol=1e-15),)),
    Unary(Neg, "math.neg", np.negative, SIGNED, interval(-1.0, 2.0),
          special=(At([0.0, inf, -inf, nan], [-0.0, -inf, inf, nan]),
                   At([2.5], [-2.5], (TFloat32,)),
                   # the most negative integer has no positive counterpart: it wraps around
                   At([-2**31, -2**31 + 1], [-2**31, 2**31 - 1], (TInt32,))),
          derivative=(At([1.0, -3.0], [-1.0, -1.0], (TFloat32,)),)),
    Unary(Square, "math.square", np.square, NUMBERS, interval(-2.0, 3.0),
          special=(At([0.5, -1.5, -inf, nan], [0.25, 2.25, inf, nan]),
                   At([20], [144], (TUint8,)),
                   At([46341], [46341 * 46341 - 2**32], (TInt32,))),
          derivative=(At([1.5, -2.0, 0.0], [3.0, -4.0, 0.0], FLOATS),),
          second=(At([-1.0, 5.0], [2.0, 2.0]),)),
    Unary(Reciprocal, "math.reciprocal", np.reciprocal, FLOATS, bothSigns(0.5, 3.0),
          special=(At([0.0, -0.0, inf, -inf, nan], [inf, -inf, 0.0, -0.0, nan]),),
          derivative=(At([2.0, -0.5], [-0.25, -4.0], (TFloat32,)),),
          second=(At([2.0], [0.25], rtol=1e-15),)),
    Unary(Abs, "math.abs", np.abs, SIGNED, bothSigns(0.5, 2.0),
          special=(At([-0.25, 1e-300, -1e300], [0.25, 1e-300, 1e300]),
                   At([-inf, inf, nan, -0.0], [inf, inf, nan, 0.0]),
                   # the most negative integer has no positive counterpart: it wraps around
                   At([2**31 - 1, -(2**31 - 1), -2**31], [2**31 - 1, 2**31 - 1, -2**31],
                      (TInt32,)),
                   At([2**63 - 1, -(2**63 - 1), -2**63], [2**63 - 1, 2**63 - 1, -2**63],
                      (TInt64,))),
          derivative=(At([-3.0, -1e-20, 0.0, 1e-20, 7.0], [-1.0, -1.0, 0.0, 1.0, 1.0]),),
          second=(At([-1.0, 0.5, 2.0], [0.0, 0.0, 0.0]),)),
    Unary(Sign, "math.sign", np.sign, SIGNED, bothSigns(0.5, 2.0),
          special=(At([-inf, -0.001, -0.0, 0.001, inf], [-1.0, -1.0, 0.0, 1.0, 1.0], FLOATS),
                   At([nan, -nan], [nan, nan]),  # as TensorFlow 2 (TensorFlow 1 gave 0)
                   At([-2**31, 2**31 - 1], [-1, 1], (TInt32,)),
                   At([-2**63, 2**63 - 1], [-1, 1], (TInt64,))),
          derivative=(At([2.0, -2.0, 0.0], [0.0, 0.0, 0.0]),)),
    Unary(Sqrt, "math.sqrt", np.sqrt, FLOATS, interval(0.5, 3.0),
          special=(At([0.0, 1.0, 4.0, 0.25, 144.0], [0.0, 1.0, 2.0, 0.5, 12.0], FLOATS),
                   At([-1.0, -1e-300, -inf], [nan, nan, nan]),
                   At([inf, nan, -0.0], [inf, nan, -0.0])),
          derivative=(At([0.25, 1.0, 9.0], [1.0, 0.5, 1.0 / 6.0], rtol=1e-15),
                      At([0.0], [inf]))),
    Unary(Rsqrt, "math.rsqrt", lambda x: 1 / np.sqrt(x), FLOATS, interval(0.5, 3.0),
          special=(At([1.0, 4.0, 0.25, 64.0], [1.0, 0.5, 2.0, 0.125], FLOATS),
                   At([0.0, -0.0], [inf, -inf]),
                   At([inf, nan, -1.0, -inf], [0.0, nan, nan, nan])),
          derivative=(At([0.25, 1.0, 4.0], [-4.0, -0.5, -1.0 / 16.0], rtol=1e-15),)),
    Unary(Expm1, "math.expm1", np.expm1, FLOATS, interval(-2.0, 2.0),
          special=(At(tiny, same, FLOATS, rtol=TOLERANCE),  # exp(x) - 1 would give 0
                   At([-inf, inf, nan, 0.0, 1000.0], [-1.0, inf, nan, 0.0, inf])),
          derivative=(At([-1.0, 0.0, 2.0], np.exp, rtol=1e-15),)),
    Unary(Log1p, "math.log1p", np.log1p, FLOATS, interval(-0.5, 3.0),
          special=(At(tiny, same, FLOATS, rtol=TOLERANCE),  # log(1 + x) would give 0
                   At([-1.0, -1.5, -inf], [-inf, nan, nan]),
                   At([inf, nan, -0.0], [inf, nan, -0.0])),
          derivative=(At([-0.5, 0.0, 3.0], [2.0, 1.0, 0.25]), At([-1.0], [inf]))),
    Unary(Tanh, "math.tanh", np.tanh, FLOATS, interval(-2.0, 2.0),
          special=(At([-inf, -100.0, 100.0, inf], [-1.0, -1.0, 1.0, 1.0], FLOATS),
                   At([nan, 0.0, -0.0], [nan, 0.0, -0.0]),
                   At([-0.1, -0.7, -1.3, -4.0], lambda x: -np.tanh(-x))),  # odd, exactly
          derivative=(At([-1.0, 0.0, 0.5, 30.0], lambda x: 1 - np.tanh(x) ** 2, rtol=1e-15),)),
    Unary(Sigmoid, "math.sigmoid", logistic, FLOATS, interval(-3.0, 3.0),
          special=(At([0.0, -0.0], [0.5, 0.5], FLOATS),
                   At([-inf, -1e4, 1e4, inf], [0.0, 0.0, 1.0, 1.0], FLOATS),
                   At([-30.0, -50.0, -700.0], logistic, rtol=1e-14),
                   At([nan], [nan])),
          derivative=(At([0.0, 40.0], [0.25, 0.0]),
                      At([-2.0, 1.0], lambda x: logistic(x) * (1 - logistic(x)), rtol=1e-14))),
    Unary(Softplus, "math.softplus", softplus, FLOATS, interval(-3.0, 3.0),
          special=(At([0.0], [np.log(2.0)], rtol=1e-15),
                   At([1000.0, 30000.0, inf], same, FLOATS),  # without overflow
                   At([-1000.0, -30000.0, -inf], [0.0, 0.0, 0.0], FLOATS),
                   At([-20.0, -40.0, -700.0], softplus, rtol=1e-14),
                   At([nan], [nan])),
          derivative=(At([0.0, 1000.0], [0.5, 1.0]), At([-2.0, 1.0], logistic, rtol=1e-15)),
          names=("features", "activations")),
    Unary(IsFinite, "math.isFinite", np.isfinite, FLOATS, cycle(-inf, -1.0, -0.0, 0.0, inf, nan),
          special=(At(extremes, [True, True, True, True], FLOATS),),
          order=0, out=TBool),
    Unary(IsNan, "math.isNan", np.isnan, FLOATS, cycle(-inf, -1.0, -0.0, 0.0, inf, nan),
          special=(At(NAN_BITS.view(np.float64), [True, True, True]),),
          order=0, out=TBool),
    Unary(LogicalNot, "math.logicalNot", np.logical_not, (TBool,),
          cycle(True, False, False, True), order=0, out=TBool),
    Unary(Relu, "nn.relu", lambda x: np.maximum(x, 0), NUMBERS,
          cycle(-2.0, -1.2, -0.4, 0.4, 1.2, 2.0),
          special=(At([-inf, inf, -0.0], [0.0, inf, 0.0]),),
          derivative=(At([-1.0, 0.0, 2.0], [0.0, 0.0, 1.0]),),
          names=("features", "activations")),
    Unary(Relu6, "nn.relu6", lambda x: np.clip(x, 0, 6), NUMBERS,
          cycle(-1.0, 0.5, 2.5, 4.5, 5.5, 7.0),
          special=(At([-inf, inf, -0.0, 5.999], [0.0, 6.0, 0.0, 5.999]),),
          derivative=(At([-1.0, 0.0, 2.0, 6.0, 7.0], [0.0, 0.0, 1.0, 0.0, 0.0]),),
          names=("features", "activations")),
    Unary(Elu, "nn.elu", elu, FLOATS, cycle(-2.0, -1.2, -0.4, 0.4, 1.2, 2.0),
          special=(At([0.0, 1e-30, 2.5, 1e300], same),
                   At([-50.0, -1000.0, -inf], [-1.0, -1.0, -1.0], (TFloat32,)),
                   At([1000.0, 60000.0], same, (TFloat32,)),  # only x < 0 is exponentiated
                   At([-1e-10], [-1e-10 + 5e-21], rtol=1e-15)),
          derivative=(At([-1.0, 0.0, 2.0], [np.exp(-1.0), 1.0, 1.0], rtol=1e-15),),
          order=3, names=("features", "activations")),
    # math: trigonometric and hyperbolic functions and their inverses
    Unary(Sin, "math.sin", np.sin, FLOATS, interval(-3.0, 3.0),
          special=(At([0.0, -0.0, inf, -inf, nan], [0.0, -0.0, nan, nan, nan]),
                   At([np.pi / 2, -np.pi / 6, 100.0], np.sin, FLOATS, rtol=TOLERANCE)),
          derivative=(At([0.0, np.pi, -1.0], np.cos, rtol=1e-15),),
          second=(At([0.5, -2.0], lambda x: -np.sin(x), rtol=1e-15),)),
    Unary(Cos, "math.cos", np.cos, FLOATS, interval(-3.0, 3.0),
          special=(At([0.0, -0.0, inf, -inf, nan], [1.0, 1.0, nan, nan, nan]),
                   At([np.pi, -np.pi / 3, 100.0], np.cos, FLOATS, rtol=TOLERANCE)),
          derivative=(At([0.0, np.pi / 2, -1.0], lambda x: -np.sin(x), rtol=1e-15),),
          second=(At([0.5, -2.0], lambda x: -np.cos(x), rtol=1e-15),)),
    Unary(Tan, "math.tan", np.tan, FLOATS, interval(-1.2, 1.2),
          special=(At([0.0, -0.0, inf, -inf, nan], [0.0, -0.0, nan, nan, nan]),
                   At([np.pi / 4, -1.5, 1.57], np.tan, FLOATS, rtol=TOLERANCE)),
          # (not 1.0 first: there float16's three roundings give TensorFlow's 3.421875, 1.1e-3
          # from the exact 3.4255)
          derivative=(At([0.0, 0.5, -0.5], lambda x: 1 / np.cos(x) ** 2, rtol=1e-14),
                      At([1.0, 1.5, -1.57], lambda x: 1 / np.cos(x) ** 2, rtol=1e-14)),
          second=(At([0.5], lambda x: 2 * np.tan(x) / np.cos(x) ** 2, rtol=1e-14),)),
    Unary(Asin, "math.asin", np.arcsin, FLOATS, interval(-0.9, 0.9),
          special=(At([0.0, -0.0, 1.5, -1.5, inf, nan], [0.0, -0.0, nan, nan, nan, nan]),
                   At([1.0, -1.0, 0.5], np.arcsin, FLOATS, rtol=TOLERANCE)),
          derivative=(At([0.0, 0.5, -0.9], lambda x: 1 / np.sqrt(1 - x * x), rtol=1e-15),
                      At([1.0, -1.0], [inf, inf]))),
    Unary(Acos, "math.acos", np.arccos, FLOATS, interval(-0.9, 0.9),
          special=(At([1.0, 1.5, -1.5, inf, nan], [0.0, nan, nan, nan, nan]),
                   At([-1.0, 0.0, 0.5], np.arccos, FLOATS, rtol=TOLERANCE)),
          derivative=(At([0.0, 0.5, -0.9], lambda x: -1 / np.sqrt(1 - x * x), rtol=1e-15),
                      At([1.0, -1.0], [-inf, -inf]))),
    Unary(Atan, "math.atan", np.arctan, FLOATS, interval(-3.0, 3.0),
          special=(At([0.0, -0.0, nan], [0.0, -0.0, nan]),
                   At([inf, -inf, 1.0, 1e300], [np.pi / 2, -np.pi / 2, np.pi / 4, np.pi / 2],
                      rtol=1e-15)),
          derivative=(At([0.0, 1.0, -3.0], lambda x: 1 / (1 + x * x), rtol=1e-15),
                      At([1e200, inf], [0.0, 0.0]))),
    Unary(Sinh, "math.sinh", np.sinh, FLOATS, interval(-2.0, 2.0),
          special=(At([0.0, -0.0, inf, -inf, nan, 1000.0, -1000.0],
                      [0.0, -0.0, inf, -inf, nan, inf, -inf]),
                   At([1e-10, -3.0, 700.0], np.sinh, rtol=1e-15)),
          derivative=(At([0.0, 1.0, -2.0], np.cosh, rtol=1e-15),),
          second=(At([0.5, -1.0], np.sinh, rtol=1e-15),)),
    Unary(Cosh, "math.cosh", np.cosh, FLOATS, interval(-2.0, 2.0),
          special=(At([0.0, -0.0, inf, -inf, nan, 1000.0, -1000.0],
                      [1.0, 1.0, inf, inf, nan, inf, inf]),
                   At([1e-10, -3.0, 700.0], np.cosh, rtol=1e-15)),
          derivative=(At([0.0, 1.0, -2.0], np.sinh, rtol=1e-15),),
          second=(At([0.5, -1.0], np.cosh, rtol=1e-15),)),
    Unary(Asinh, "math.asinh", np.arcsinh, FLOATS, interval(-3.0, 3.0),
          special=(At([0.0, -0.0, inf, -inf, nan], [0.0, -0.0, inf, -inf, nan]),
                   At([1e-10, -1e10, 1e300, 0.5], np.arcsinh, rtol=1e-15)),
          derivative=(At([0.0, 1.0, -3.0], lambda x: 1 / np.sqrt(1 + x * x), rtol=1e-14),)),
    Unary(Acosh, "math.acosh", np.arccosh, FLOATS, interval(1.5, 4.0),
          special=(At([1.0, inf, 0.5, -1.0, -inf, nan], [0.0, inf, nan, nan, nan, nan]),
                   At([1.5, 1e10, 1e300], np.arccosh, rtol=1e-15)),
          derivative=(At([2.0, 5.0], lambda x: 1 / np.sqrt(x * x - 1), rtol=1e-14),
                      At([1.0], [inf]))),
    Unary(Atanh, "math.atanh", np.arctanh, FLOATS, interval(-0.8, 0.8),
          special=(At([0.0, -0.0, 1.0, -1.0, 1.5, -inf, nan],
                      [0.0, -0.0, inf, -inf, nan, nan, nan]),
                   At([1e-10, -0.5, 0.999], np.arctanh, rtol=1e-15)),
          derivative=(At([0.0, 0.5, -0.8], lambda x: 1 / (1 - x * x), rtol=1e-15),
                      At([1.0], [inf]))),
    # math: special functions (scipy's are the references; XLA's float64 approximations are
    # within a few units in the last place of them)
    Unary(IsInf, "math.isInf", np.isinf, FLOATS, cycle(-inf, -1.0, -0.0, 0.0, inf, nan),
          special=(At(extremes, [False, False, False, False], FLOATS),
                   At(NAN_BITS.view(np.float64), [False, False, False])),
          order=0, out=TBool),
    Unary(Erf, "math.erf", scipy.special.erf, FLOATS, interval(-2.5, 2.5),
          special=(At([0.0, -0.0, inf, -inf, nan, 6.0, -30.0],
                      [0.0, -0.0, 1.0, -1.0, nan, 1.0, -1.0], FLOATS),
                   At([1e-10, 0.5, -1.5], scipy.special.erf, rtol=1e-15)),
          derivative=(At([0.0, 1.0, -2.0], lambda x: 2 / np.sqrt(np.pi) * np.exp(-x * x),
                         rtol=1e-15),),
          rtol=SPECIAL_TOLERANCE),
    Unary(Erfc, "math.erfc", scipy.special.erfc, FLOATS, interval(-2.5, 2.5),
          special=(At([0.0, -0.0, inf, -inf, nan, 30.0], [1.0, 1.0, 0.0, 2.0, nan, 0.0], FLOATS),
                   At([5.0, 10.0, 26.0], scipy.special.erfc, rtol=1e-13)),  # no cancellation
          derivative=(At([0.0, 1.0, -2.0], lambda x: -2 / np.sqrt(np.pi) * np.exp(-x * x),
                         rtol=1e-15),),
          rtol=SPECIAL_TOLERANCE),
    Unary(Lgamma, "math.lgamma", scipy.special.gammaln, FLOATS, interval(0.3, 4.5),
          special=(At([1.0, 2.0, 0.0, -0.0, -1.0, -2.0, inf, -inf, nan],
                      [0.0, 0.0, inf, inf, inf, inf, inf, inf, nan], FLOATS),  # poles: inf
                   At([-0.5, -2.5, 0.5, 100.0, 1e-8, 1e300], scipy.special.gammaln,
                      rtol=1e-14)),
          derivative=(At([1.0, 2.5, -0.5], scipy.special.psi, rtol=1e-12),),
          rtol=SPECIAL_TOLERANCE),
]
OPS = {row.name: row for row in ROWS}
DIFFERENTIABLE = [row for row in ROWS if row.order > 0]


def cases(rows: Iterable[Unary], each: Callable[[Unary], Iterable[tuple[str, Any]]]) -> list[Any]:
    """``(row, value)`` parameters, one per value ``each(row)`` gives, with readable ids."""
    return [pytest.param(row, value, id=f"{row.name}-{name}") for row in rows
            for name, value in each(row)]


def byName(rows: Iterable[Unary]) -> list[Any]:
    return [pytest.param(row, id=row.name) for row in rows]


def assertValues(got: Array, expected: Array, dtype: type[TType], rtol: float) -> None:
    """``got`` has ``expected``'s shape and ``dtype``'s type, and equals ``expected`` within
    ``rtol`` (NaN where NaN), or exactly with signed zeros when ``rtol`` is 0."""
    assert got.dtype == dtype.DTYPE, f"dtype {got.dtype}, expected {dtype.DTYPE}"
    assert got.shape == expected.shape, f"shape {got.shape}, expected {expected.shape}"
    if rtol:
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=0, equal_nan=True)
        return
    np.testing.assert_array_equal(got, expected.astype(dtype.DTYPE))
    if dtype in FLOATS:
        numbers = ~np.isnan(expected)
        np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(expected[numbers]))


def tolerance(row: Unary, dtype: type[TType]) -> float:
    return row.rtol.get(row.output(dtype), 0.0)


# -- construction ------------------------------------------------------------------------------
@pytest.mark.parametrize("row", byName(ROWS))
def test_createWiresTheInputToTheOnlyOutput(tf: Ops, graph: Graph, row: Unary) -> None:
    x = tf.placeholder(row.dtypes[0])
    inputName, outputName = row.names
    y = row.op.create(tf.scope(), **{inputName: x})
    assert isinstance(y, row.op)
    assert [op.name() for op in graph.operations()] == ["Placeholder", row.name]
    assert y.op().numInputs() == 1 and y.op().input(0) == x.asOutput()
    assert y.op().numOutputs() == 1
    assert getattr(y, outputName)() == y.asOutput() == y.op().output(0)
    assert y.asOutput().name() == f"{row.name}:0"


PYTHON_VALUES = [  # a value, and the type TensorFlow converts it to
    (0.5, TFloat32), ([[0.5, 1.0]], TFloat32), (3, TInt32), ([1, 2], TInt32), (2**40, TInt64),
    (True, TBool), ([True, False], TBool), (np.float64(0.5), TFloat64),
    (np.array([0.5], np.float16), TFloat16), (np.int64(3), TInt64),
    (np.array([3], np.uint8), TUint8), (np.bool_(False), TBool),
]


@pytest.mark.parametrize(
    ("row", "value"), cases(ROWS, lambda row: ((repr(v[0]), v) for v in PYTHON_VALUES))
)
def test_pythonValuesConvertAsTensorFlowDoes(
    tf: Ops, graph: Graph, run: Run, row: Unary, value: tuple[Any, type[TType]]
) -> None:
    python, dtype = value
    if dtype not in row.dtypes:
        assertRejected(graph, lambda: row(tf, python), TypeError, row.name,
                       f"created at {__file__}:")
        return
    y = row(tf, python)
    assert y.op().input(0).dataType() is dtype
    assert y.asOutput().dataType() is row.output(dtype)
    assert y.asOutput().shape() == Shape.of(*np.shape(python))
    x = np.asarray(python, dtype.DTYPE)
    assertValues(run(y), row.expected(x), row.output(dtype), tolerance(row, dtype))


@pytest.mark.parametrize(
    ("row", "dtype"),
    cases(ROWS, lambda row: ((t.NAME, t) for t in ALL if t not in row.dtypes)),
)
def test_rejectsOtherDataTypes(tf: Ops, graph: Graph, row: Unary, dtype: type[TType]) -> None:
    x = tf.placeholder(dtype)
    why = "must be bool" if row.dtypes == (TBool,) else "is not allowed for 'T'"
    assertRejected(graph, lambda: row(tf, x), TypeError,
                   f"{row.name} '{row.name}' (created at {__file__}:", dtype.NAME, why)
    assert row(tf, tf.placeholder(row.dtypes[0])).op().name() == row.name  # the name is free


# -- kernel ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("row", "dtype"), cases(ROWS, lambda row: ((t.NAME, t) for t in row.dtypes))
)
def test_kernelMatchesNumpy(tf: Ops, run: Run, row: Unary, dtype: type[TType]) -> None:
    x = row.values(dtype, (2, 3))
    y = row(tf, x)
    assert y.asOutput().dataType() is row.output(dtype)
    if row.dtypes != (TBool,):
        assert y.op().attr("T") is dtype
    assertValues(run(y), row.expected(x), row.output(dtype), tolerance(row, dtype))


SHAPES = [  # a placeholder's static shape, and the shape of the value fed
    (Shape.scalar(), ()), (Shape.of(3), (3,)), (Shape.of(2, 3), (2, 3)), (Shape.of(0, 4), (0, 4)),
    (Shape.of(-1, 3), (5, 3)), (Shape.unknown(), (2, 2)),
]


@pytest.mark.parametrize(
    ("row", "shape"), cases(ROWS, lambda row: ((str(s[0]), s) for s in SHAPES))
)
def test_outputShapeIsTheInputShape(
    tf: Ops, run: Run, row: Unary, shape: tuple[Shape, tuple[int, ...]]
) -> None:
    static, fed = shape
    dtype = row.dtypes[-1]
    x = placeholder(tf, dtype, static)
    y = row(tf, x)
    assert y.asOutput().shape() == static
    value = row.values(dtype, fed)
    assertValues(run(y, feeds={x: value}), row.expected(value), row.output(dtype),
                 tolerance(row, dtype))


@pytest.mark.parametrize(
    ("row", "at"),
    cases(ROWS, lambda row: ((f"{at}-{t.NAME}", (at, t)) for at in row.special for t in at.dtypes)),
)
def test_specialValues(tf: Ops, run: Run, row: Unary, at: tuple[At, type[TType]]) -> None:
    points, dtype = at
    x = points.inputs(dtype)
    assertValues(run(row(tf, x)), points.expected(x), row.output(dtype), points.tolerance(dtype))


# -- gradient ----------------------------------------------------------------------------------
GRADIENT_SHAPES = [  # a placeholder's static shape, and the shape of the value at which to check
    (Shape.scalar(), ()), (Shape.of(4), (4,)), (Shape.of(2, 3), (2, 3)),
    (Shape.of(2, 1, 3), (2, 1, 3)), (Shape.of(-1, 3), (2, 3)), (Shape.unknown(), (2, 3)),
]


@pytest.mark.parametrize(
    ("row", "shape"), cases(DIFFERENTIABLE, lambda row: ((str(s[0]), s) for s in GRADIENT_SHAPES))
)
def test_gradientMatchesFiniteDifferences(
    tf: Ops, row: Unary, shape: tuple[Shape, tuple[int, ...]]
) -> None:
    static, at = shape
    assertGradient(tf, lambda x: row(tf, x), [row.domain(int(np.prod(at))).reshape(at)],
                   shapes=[static])


@pytest.mark.parametrize("shape", [(), (2, 3)], ids=str)
@pytest.mark.parametrize(
    ("row", "order"),
    cases(DIFFERENTIABLE, lambda row: ((f"order{k}", k) for k in range(2, row.order + 1))),
)
def test_higherOrderGradientsMatchFiniteDifferences(
    tf: Ops, row: Unary, order: int, shape: tuple[int, ...]
) -> None:
    """Of sum(op(x)^2), whose gradient 2 op(x) op'(x) depends on x even where op' does not (Neg,
    Relu): the next derivative goes through the gradient of the op's gradient rule."""

    def derivative(x: Any) -> Any:
        y = tf.sum(tf.math.square(row(tf, x)), list(range(len(shape))))
        for _ in range(order - 1):
            y = tf.gradients(y, [x]).dy(0)
            assert y is not None
        return y

    assertGradient(tf, derivative, [row.domain(int(np.prod(shape))).reshape(shape)])


@pytest.mark.parametrize("row", byName(DIFFERENTIABLE))
def test_gradientThroughABroadcastIsSummedBack(tf: Ops, row: Unary) -> None:
    zeros = tf.constant(np.zeros((1, 4)))
    assertGradient(tf, lambda x: row(tf, tf.math.add(x, zeros)), [row.domain(3).reshape(3, 1)])


@pytest.mark.parametrize(
    ("row", "at"),
    cases(ROWS, lambda row: ((f"{at}-{t.NAME}", (at, t)) for at in row.derivative
                             for t in at.dtypes)),
)
def test_derivativeTimesTheIncomingGradient(
    tf: Ops, run: Run, row: Unary, at: tuple[At, type[TType]]
) -> None:
    points, dtype = at
    value = points.inputs(dtype)
    x = placeholder(tf, dtype, value.shape)
    seed = tf.constant(np.full(value.shape, 2.0, dtype.DTYPE))
    dx = tf.gradients(row(tf, x), [x], Gradients.dx([seed])).dy(0)
    assert dx is not None
    assertValues(run(dx, feeds={x: value}), 2.0 * points.expected(value), dtype,
                 points.tolerance(dtype))


@pytest.mark.parametrize(
    ("row", "at"), cases(ROWS, lambda row: ((str(at), at) for at in row.second))
)
def test_secondDerivativeAtPoints(tf: Ops, run: Run, row: Unary, at: At) -> None:
    value = at.inputs(TFloat64)
    x = placeholder(tf, TFloat64, value.shape)
    dx = tf.gradients(row(tf, x), [x]).dy(0)
    assert dx is not None
    d2x = tf.gradients(dx, [x]).dy(0)
    assert d2x is not None
    assertValues(run(d2x, feeds={x: value}), at.expected(value), TFloat64,
                 at.tolerance(TFloat64))


@pytest.mark.parametrize(
    ("row", "dtype"), cases(DIFFERENTIABLE, lambda row: ((t.NAME, t) for t in (TFloat16, TFloat32)))
)
def test_gradientHasTheInputDataType(tf: Ops, run: Run, row: Unary, dtype: type[TType]) -> None:
    """And its values are those in float64 within the type's tolerance, at the first points of
    ``derivative``."""
    value = row.derivative[0].inputs(dtype)
    x, x64 = placeholder(tf, dtype, value.shape), placeholder(tf, TFloat64, value.shape)
    dx, dx64 = (tf.gradients(row(tf, v), [v]).dy(0) for v in (x, x64))
    assert dx is not None and dx64 is not None
    assert dx.dataType() is dtype
    got, expected = run(dx, dx64, feeds={x: value, x64: value.astype(np.float64)})
    assertValues(got, expected, dtype, TOLERANCE[dtype])


@pytest.mark.parametrize("row", byName(ROWS))
def test_gradientRuleIsRegistered(row: Unary) -> None:
    registered, rule = lookupGradient(row.name)
    assert registered
    assert (rule is None) == (row.order == 0)  # None: marked not differentiable


@pytest.mark.parametrize("row", byName(row for row in ROWS if row.order == 0))
def test_notDifferentiableOpsPassNoGradient(tf: Ops, run: Run, row: Unary) -> None:
    def mask(x: Any) -> Any:
        """1 where the op is true of log(x) (of isNan(log(x)) for LogicalNot), 0 elsewhere."""
        logs = tf.math.log(x)
        return tf.dtypes.cast(row(tf, tf.math.isNan(logs) if row.dtypes == (TBool,) else logs),
                              TFloat64)

    x = placeholder(tf, TFloat64, (2, 2))
    assert tf.gradients(mask(x), [x]).dy(0) is None
    zeros = tf.gradients(mask(x), [x], Gradients.unconnectedGradients("zero")).dy(0)
    dx = tf.gradients(tf.math.mul(x, mask(x)), [x]).dy(0)  # only through the other factor
    assert zeros is not None and dx is not None
    value = np.array([[0.5, -2.0], [3.0, 0.25]])
    got = run(zeros, dx, mask(x), feeds={x: value})
    assert got[0].tolist() == [[0.0, 0.0], [0.0, 0.0]]
    np.testing.assert_array_equal(got[1], got[2])
    assertGradient(tf, lambda x: tf.math.mul(x, mask(x)), [value])


# -- each op's own -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "gradOp", "ofTheOutput"),
    [("Relu", "ReluGrad", True), ("Relu6", "Relu6Grad", False), ("Elu", "EluGrad", True)],
)
def test_activationsDifferentiateThroughTheirGradientOps(
    tf: Ops, name: str, gradOp: str, ofTheOutput: bool
) -> None:
    """As TensorFlow: ReluGrad of the output (relu(x) > 0 exactly where x > 0), Relu6Grad of the
    features, EluGrad of the output."""
    x = placeholder(tf, TFloat64, (3,))
    y = OPS[name](tf, x)
    dx = tf.gradients(y, [x]).dy(0)
    assert dx is not None
    assert dx.op().type() == gradOp
    assert dx.op().input(1) == (y if ofTheOutput else x).asOutput()


def test_signGradientIsZeroWhateverTheIncomingGradient(tf: Ops, run: Run) -> None:
    x = tf.constant(np.array([2.0, -2.0, 0.0]))
    seed = tf.constant(np.array([3.0, inf, -1.0]))
    dx = tf.gradients(tf.math.sign(x), [x], Gradients.dx([seed])).dy(0)
    assert dx is not None
    assert run(dx).tolist() == [0.0, 0.0, 0.0]
    assert tf.gradients(dx, [x]).dy(0) is None  # the gradient of the gradient is not connected


def test_logicalNotNegatesAComparison(tf: Ops, run: Run) -> None:
    notEqual = tf.math.logicalNot(tf.math.equal(tf.constant([1, 2, 3]), 2))
    assert run(notEqual).tolist() == [True, False, True]
