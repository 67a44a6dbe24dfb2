"""XLA lowering of the data type ops (``tfops.spec.dtypes``): Cast.

The numpy kernel is ``x.astype(DstT)``: C conversions. XLA's differ where C's are left to the
machine or where XLA's CPU code flushes subnormal numbers to zero, so those cases are written out
here with integer operations on the bits:

- floating point to integer truncates towards zero; a value out of the integer's range (or nan)
  gives what numpy gives on this machine: on x86 the "integer indefinite" (the most negative
  int32 or int64), uint8 taking the low byte of the int32 conversion; XLA saturates;
- float64 to float16 rounds once (XLA goes through float32 and rounds twice: here float32 is
  rounded to odd first, on the bits, which makes the second rounding exact);
- a subnormal float32 result of float64, or a subnormal input widened, keeps its value;
- anything non-zero is true, subnormal numbers included.

The attribute ``Truncate`` changes nothing, as in the numpy kernel.
"""

from __future__ import annotations

import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.registry import LoweringSite, registerLowering


def _indefinite() -> bool:
    """Whether numpy converts an out of range float to int32 as x86 does (the most negative
    value, nan included), rather than saturating."""
    probe = np.array([np.nan, 1e300, -1e300, 3e9])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        converted = probe.astype(np.int32)
    return bool(np.all(converted == np.iinfo(np.int32).min))


INDEFINITE = _indefinite()

_BITS = {np.dtype(np.float16): np.uint16, np.dtype(np.float32): np.uint32,
         np.dtype(np.float64): np.uint64}


def _isNonZero(x: Any) -> Any:
    """``x != 0``, bit by bit for floats (nan is non-zero; a subnormal number too, which XLA's
    CPU comparisons would read as zero)."""
    if x.dtype.kind != "f":
        return jnp.not_equal(x, 0)
    bits = jax.lax.bitcast_convert_type(x, _BITS[np.dtype(x.dtype)])
    magnitude = np.iinfo(_BITS[np.dtype(x.dtype)]).max >> 1  # all but the sign bit
    return jnp.not_equal(bits & magnitude, 0)


def _floatToInteger(x: Any, dtype: np.dtype[Any]) -> Any:
    """The C conversion, truncating towards zero; out of range as numpy's on this machine."""
    if not INDEFINITE:
        return x.astype(dtype)  # saturating, nan to 0, as XLA's
    if x.dtype == np.float16:
        x = x.astype(np.float32)  # exactly, as numpy converts half precision
    target = np.dtype(np.int64) if dtype == np.int64 else np.dtype(np.int32)
    bound = float(2 ** (8 * target.itemsize - 1))
    t = jnp.trunc(x)
    valid = (t >= np.asarray(-bound, x.dtype)) & (t < np.asarray(bound, x.dtype))
    converted = jnp.where(valid, t, jnp.zeros((), x.dtype)).astype(target)
    wide = jnp.where(valid, converted, jnp.full((), np.iinfo(target).min, target))
    return wide.astype(dtype)  # uint8: the low byte of the int32 conversion


def _toFloat16(x: Any) -> Any:
    """float64 rounded once to float16: first rounded to odd in float32, on the bits (its 24 bits
    are more than the 11 + 2 the second rounding needs), then to nearest. Outside the exponents
    where float16 has non-zero finite values, XLA's conversion gives the same result."""
    bits = jax.lax.bitcast_convert_type(x, np.uint64)
    exponent = ((bits >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int32) - 1023
    mantissa = bits & np.uint64((1 << 52) - 1)
    sticky = ((mantissa & np.uint64((1 << 29) - 1)) != 0).astype(np.uint32)
    sign = (bits >> np.uint64(63)).astype(np.uint32) << np.uint32(31)
    inRange = (exponent >= -30) & (exponent <= 15)
    biased = jnp.where(inRange, exponent + 127, 127).astype(np.uint32) << np.uint32(23)
    odd = sign | biased | (mantissa >> np.uint64(29)).astype(np.uint32) | sticky
    rounded = jax.lax.bitcast_convert_type(odd, np.float32).astype(np.float16)
    return jnp.where(inRange, rounded, x.astype(np.float16))


def _toFloat32(x: Any) -> Any:
    """float64 to float32, rounding to nearest even, with float32's subnormal results (which
    XLA's CPU code would flush to zero) computed on the bits."""
    f = x.astype(np.float32)
    magnitude = jnp.abs(x)
    # a subnormal float32 is its significand times 2^-149: the significand, rounded to even
    significand = jnp.round(magnitude * np.float64(2.0**149)).astype(np.uint32)
    sign = jnp.where(jnp.signbit(x), np.uint32(0x80000000), np.uint32(0))
    subnormal = jax.lax.bitcast_convert_type(significand | sign, np.float32)
    small = magnitude < np.float64(np.finfo(np.float32).tiny)
    return jnp.where(small & jnp.isfinite(x), subnormal, f)


def _widen(x: Any, dtype: np.dtype[Any]) -> Any:
    """float16 or float32 widened exactly, subnormal inputs (read as zero by XLA's CPU code)
    included: their significand times the smallest subnormal."""
    bitsType = _BITS[np.dtype(x.dtype)]
    info = np.finfo(x.dtype)
    mantissaBits = int(info.nmant)
    bits = jax.lax.bitcast_convert_type(x, bitsType)
    exponentMask = bitsType((np.iinfo(bitsType).max >> 1) ^ ((1 << mantissaBits) - 1))
    significand = (bits & bitsType((1 << mantissaBits) - 1)).astype(dtype)
    value = significand * np.asarray(info.smallest_subnormal, dtype)
    subnormal = jnp.where(jnp.signbit(x), -value, value)
    isSubnormal = jnp.equal(bits & exponentMask, 0)
    return jnp.where(isSubnormal, subnormal, x.astype(dtype))


@registerLowering("Cast")
def _cast(site: LoweringSite, x: Any) -> Any:
    dtype = site.dtype()
    x = jnp.asarray(x)
    source = np.dtype(x.dtype)
    if source == dtype:
        return x
    if dtype == np.bool_:
        return _isNonZero(x)
    if source.kind == "f":
        if dtype.kind in "iu":
            return _floatToInteger(x, dtype)
        if dtype.itemsize > source.itemsize:
            return _widen(x, dtype)
        if source == np.float64:
            return _toFloat16(x) if dtype == np.float16 else _toFloat32(x)
    return x.astype(dtype)  # integers wrap around, bools are 0 or 1, integers to floats round
