"""The XLA lowerings of :mod:`tfops.spec.math_integer`."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from tfops.backend.xla.lowerings.math import binary, broadcast, divide, integerDivide, isFloat
from tfops.backend.xla.registry import LoweringSite, registerLowering


@registerLowering("Mod")
@registerLowering("TruncateMod")
def _truncateMod(site: LoweringSite, x: Any, y: Any) -> Any:
    # XLA's remainder is that of truncated division (fmod), for integers (INT_MIN rem -1 is 0)
    # and floats
    if isFloat(x):
        return jax.lax.rem(*broadcast(x, y))
    return integerDivide(site, x, y, jax.lax.rem)


@registerLowering("TruncateDiv")
def _truncateDiv(site: LoweringSite, x: Any, y: Any) -> Any:
    if isFloat(x):
        return jnp.trunc(divide(x, y))
    # XLA's integer division truncates towards zero (INT_MIN / -1 is INT_MIN)
    return integerDivide(site, x, y, jax.lax.div)


registerLowering("BitwiseAnd", binary(jnp.bitwise_and))
registerLowering("BitwiseOr", binary(jnp.bitwise_or))
registerLowering("BitwiseXor", binary(jnp.bitwise_xor))
