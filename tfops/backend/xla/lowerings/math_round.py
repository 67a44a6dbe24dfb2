"""The XLA lowerings of :mod:`tfops.spec.math_round`."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from tfops.backend.xla.lowerings.math import isFloat
from tfops.backend.xla.lowerings.math_unary import elementwise
from tfops.backend.xla.registry import registerLowering


def _halfToEven(x: Any) -> Any:
    if not isFloat(x):
        return x
    return jax.lax.round(x, jax.lax.RoundingMethod.TO_NEAREST_EVEN)


registerLowering("Floor", elementwise(jnp.floor))
registerLowering("Ceil", elementwise(jnp.ceil))
registerLowering("Round", elementwise(_halfToEven))
registerLowering("Rint", elementwise(_halfToEven))
