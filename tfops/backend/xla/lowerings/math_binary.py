"""XLA lowerings of the binary math ops with broadcasting (``tfops.spec.math_binary``): the
division and remainder variants, Pow, Maximum and Minimum, the comparisons and the logical
connectives."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.lowerings.math import (
    binary,
    broadcast,
    divide,
    integerDivide,
    isFloat,
    size,
)
from tfops.backend.xla.registry import LoweringSite, registerLowering

NEGATIVE_POWER = "Integers to negative integer powers are not allowed"


# -- division and remainder ----------------------------------------------------------------
@registerLowering("DivNoNan")
def _divNoNan(site: LoweringSite, x: Any, y: Any) -> Any:
    q = divide(x, y)
    return jnp.where(jnp.equal(y, 0), jnp.zeros((), q.dtype), q)


registerLowering("RealDiv", binary(divide))


def _floorDivide(x: Any, y: Any) -> Any:
    """Integer division rounding towards -inf (``y`` has no zero)."""
    if np.dtype(x.dtype).kind == "u":
        return jax.lax.div(x, y)
    q = jax.lax.div(x, y)  # truncated; INT_MIN / -1 is INT_MIN, as numpy's
    r = jax.lax.rem(x, y)
    return jnp.where((r != 0) & ((r < 0) != (y < 0)), q - jnp.ones((), q.dtype), q)


def _floorModInteger(x: Any, y: Any) -> Any:
    """The remainder of the division rounding towards -inf: the sign of ``y``."""
    r = jax.lax.rem(x, y)  # truncated; INT_MIN % -1 is 0
    if np.dtype(x.dtype).kind == "u":
        return r
    return jnp.where((r != 0) & ((r < 0) != (y < 0)), r + y, r)


@registerLowering("FloorDiv")
def _floorDiv(site: LoweringSite, x: Any, y: Any) -> Any:
    if isFloat(x):
        # the floor of the rounded quotient (jnp.floor_divide would give Python's 1.0 // 0.1 = 9)
        return jnp.floor(divide(x, y))
    return integerDivide(site, x, y, _floorDivide)


@registerLowering("FloorMod")
def _floorMod(site: LoweringSite, x: Any, y: Any) -> Any:
    if isFloat(x):
        # TensorFlow's: the truncated remainder, moved by y when its sign differs from y's.
        # Unlike numpy's remainder, a zero result keeps the sign fmod gives it.
        x, y = broadcast(x, y)
        r = jax.lax.rem(x, y)
        return jnp.where((r != 0) & ((y < 0) != (r < 0)), r + y, r)
    return integerDivide(site, x, y, _floorModInteger)


# -- Pow, Maximum and Minimum --------------------------------------------------------------
def _integerPower(x: Any, y: Any) -> Any:
    """``x ** y`` of integers, ``y`` non-negative: by squaring over every bit of ``y``, wrapping
    around as numpy's (the result modulo 2^bits does not depend on the order of the products;
    jnp.power looks at the 6 lowest bits only)."""
    one = jnp.ones((), y.dtype)
    result = jnp.ones_like(x)
    for _ in range(8 * np.dtype(y.dtype).itemsize - 1):  # the sign bit is 0
        result = jnp.where((y & one) != 0, result * x, result)
        x = x * x
        y = jax.lax.shift_right_logical(y, one)
    return result


@registerLowering("Pow")
def _pow(site: LoweringSite, x: Any, y: Any) -> Any:
    if isFloat(x):
        return jnp.power(x, y)
    x, y = broadcast(x, y)
    negative = jnp.less(y, 0)
    if size(x.shape):
        site.check(jnp.logical_not(jnp.any(negative)), NEGATIVE_POWER)
    return _integerPower(x, jnp.where(negative, jnp.zeros((), y.dtype), y))


def _pick(x: Any, y: Any, before: Any, tie: Any) -> Any:
    """numpy's Maximum or Minimum (``before`` is ``greater`` or ``less``, ``tie`` the same with
    equality): nan propagates, and of two equal values (zeros of either sign) float16 keeps x,
    float32 and float64 y (numpy's scalar loop, and its SIMD loops, which follow the x86 max
    and min instructions)."""
    if not isFloat(jnp.asarray(x)):
        return None
    first = tie if np.dtype(jnp.asarray(x).dtype) == np.float16 else before
    return jnp.where(first(x, y) | jnp.isnan(x), x, y)


def _maximum(x: Any, y: Any) -> Any:
    picked = _pick(x, y, jnp.greater, jnp.greater_equal)
    return jnp.maximum(x, y) if picked is None else picked


def _minimum(x: Any, y: Any) -> Any:
    picked = _pick(x, y, jnp.less, jnp.less_equal)
    return jnp.minimum(x, y) if picked is None else picked


registerLowering("Maximum", binary(_maximum))
registerLowering("Minimum", binary(_minimum))


# -- comparisons ---------------------------------------------------------------------------
@registerLowering("NotEqual")
def _notEqual(site: LoweringSite, x: Any, y: Any) -> Any:
    if not site.attr("incompatible_shape_error"):
        try:
            np.broadcast_shapes(jnp.shape(x), jnp.shape(y))
        except ValueError:  # shapes that do not broadcast are unequal
            return np.array(True)
    return jnp.not_equal(x, y)


registerLowering("Less", binary(jnp.less))
registerLowering("LessEqual", binary(jnp.less_equal))
registerLowering("Greater", binary(jnp.greater))
registerLowering("GreaterEqual", binary(jnp.greater_equal))

# -- logical connectives -------------------------------------------------------------------
registerLowering("LogicalAnd", binary(jnp.logical_and))
registerLowering("LogicalOr", binary(jnp.logical_or))
