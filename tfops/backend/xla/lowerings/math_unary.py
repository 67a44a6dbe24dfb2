"""XLA lowerings of the unary math ops (``tfops.spec.math_unary``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from tfops.backend.xla.registry import registerLowering


def elementwise(fn: Callable[[Any], Any]) -> Callable[..., Any]:
    """The lowering of an op that is ``fn`` of its one input."""
    return lambda site, x: fn(x)


_FUNCTIONS: dict[str, Callable[[Any], Any]] = {
    "Abs": jnp.abs,
    "Sign": jnp.sign,
    "Sqrt": jnp.sqrt,
    "Rsqrt": jax.lax.rsqrt,
    "Expm1": jnp.expm1,
    "Log1p": jnp.log1p,
    "Tanh": jnp.tanh,
    "Sigmoid": jax.nn.sigmoid,
    "Softplus": lambda x: jnp.logaddexp(jnp.zeros((), x.dtype), x),
    "IsFinite": jnp.isfinite,
    "IsNan": jnp.isnan,
    "LogicalNot": jnp.logical_not,
}
for _name, _function in _FUNCTIONS.items():
    registerLowering(_name, elementwise(_function))
