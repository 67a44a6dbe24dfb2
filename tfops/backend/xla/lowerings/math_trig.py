"""The XLA lowerings of :mod:`tfops.spec.math_trig`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from tfops.backend.xla.lowerings.math import binary
from tfops.backend.xla.lowerings.math_unary import elementwise
from tfops.backend.xla.registry import registerLowering

_FUNCTIONS: dict[str, Callable[[Any], Any]] = {
    "Sin": jnp.sin,
    "Cos": jnp.cos,
    "Tan": jnp.tan,
    "Asin": jnp.arcsin,
    "Acos": jnp.arccos,
    "Atan": jnp.arctan,
    "Sinh": jnp.sinh,
    "Cosh": jnp.cosh,
    "Asinh": jnp.arcsinh,
    "Acosh": jnp.arccosh,
    "Atanh": jnp.arctanh,
}
for _name, _function in _FUNCTIONS.items():
    registerLowering(_name, elementwise(_function))
registerLowering("Atan2", binary(jnp.arctan2))
