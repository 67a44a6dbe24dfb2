"""The XLA lowerings of :mod:`tfops.spec.math_special`."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.lowerings.math import binary, broadcast, divide
from tfops.backend.xla.lowerings.math_unary import elementwise
from tfops.backend.xla.registry import registerLowering


def _inFloat64(fn: Any) -> Any:
    """``fn`` computed in float64 and rounded to the arguments' float16 or float32: XLA's
    float32 approximations of lgamma and digamma are off by several units in the last place
    (lgamma(1) is 4.8e-7), TensorFlow's and scipy's are not."""

    def run(*args: Any) -> Any:
        dtype = args[0].dtype
        if np.dtype(dtype).itemsize < 8:
            return fn(*(a.astype(np.float64) for a in args)).astype(dtype)
        return fn(*args)

    return run


def _isPole(x: Any) -> Any:
    return (x <= 0) & (jnp.floor(x) == x)


def _lgamma(x: Any) -> Any:
    return jnp.where(jnp.isneginf(x), jnp.array(np.inf, x.dtype), jax.lax.lgamma(x))


def _digamma(x: Any) -> Any:
    return jnp.where(_isPole(x), jnp.array(np.nan, x.dtype), jax.lax.digamma(x))


def _polygamma(n: Any, x: Any) -> Any:
    """As the numpy kernel: digamma for n = 0, (-1)^(n+1) n! zeta(n + 1, x) for n = 1, 2...;
    NaN for other orders."""
    n, x = broadcast(n, x)
    one = jnp.ones((), x.dtype)
    order = jnp.where(n >= 1, n, one)
    sign = jnp.where(jax.lax.rem(order, 2 * one) == one, one, -one)
    y = sign * jnp.exp(jax.lax.lgamma(order + one)) * _zeta(order + one, x)
    valid = (n >= 0) & (jnp.floor(n) == n)
    nan = jnp.array(np.nan, x.dtype)
    return jnp.where(valid, jnp.where(n == 0, _digamma(x), y), nan)


def _zeta(x: Any, q: Any) -> Any:
    """As the numpy kernel: at the poles q = 0, -1, -2..., ``inf`` where ``x`` (> 1) is an
    even integer, else NaN."""
    x, q = broadcast(x, q)
    pole = _isPole(q) & (x > 1)
    evenX = (jnp.floor(x) == x) & (jax.lax.rem(x, jnp.full((), 2, x.dtype)) == 0)
    atPole = jnp.where(evenX, jnp.array(np.inf, x.dtype), jnp.array(np.nan, x.dtype))
    zero = jnp.zeros((), x.dtype)
    # at q = inf the sum is 0 (XLA says NaN)
    atInf = jnp.where(jnp.isposinf(q) & (x > 1), zero, jax.lax.zeta(x, q))
    return jnp.where(pole, atPole, atInf)


def _xlogy(x: Any, y: Any) -> Any:
    x, y = broadcast(x, y)
    return jnp.where(x == 0, x, x * jnp.log(y))  # x itself: -0.0 stays -0.0


def _xdivy(x: Any, y: Any) -> Any:
    x, y = broadcast(x, y)
    return jnp.where(x == 0, x, divide(x, y))


registerLowering("IsInf", elementwise(jnp.isinf))
registerLowering("Erf", elementwise(_inFloat64(jax.lax.erf)))
registerLowering("Erfc", elementwise(_inFloat64(jax.lax.erfc)))
registerLowering("Lgamma", elementwise(_inFloat64(_lgamma)))
registerLowering("Digamma", elementwise(_inFloat64(_digamma)))
registerLowering("Polygamma", binary(_inFloat64(_polygamma)))
registerLowering("Zeta", binary(_inFloat64(_zeta)))
registerLowering("Xlogy", binary(_xlogy))
registerLowering("Xdivy", binary(_xdivy))
