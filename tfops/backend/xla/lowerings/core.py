"""XLA lowerings of the core ops (``tfops.spec.core``, ``tfops.spec.array_reduce``): Const,
Placeholder, Identity, StopGradient and the reductions along axes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError
from tfops.spec.rules import normalizeAxes


@registerLowering("Const")
def _const(site: LoweringSite) -> Any:
    return site.attr("value")  # a numpy value: known when the request is compiled


@registerLowering("Placeholder")
def _placeholder(site: LoweringSite) -> Any:
    raise InvalidArgumentError(None, "a placeholder must be fed a value (runner().feed)")


def _same(site: LoweringSite, x: Any) -> Any:
    return x


registerLowering("Identity", _same)
registerLowering("StopGradient", _same)


# -- reductions ----------------------------------------------------------------------------
def axesOf(site: LoweringSite, x: Any, i: int = 1) -> tuple[int, ...]:
    """The axes of ``x`` that the reduction over input ``i`` (a static input) covers; raises
    ``InvalidArgumentError`` for an axis out of range or repeated, as the numpy kernel does."""
    value = site.constants[i]
    assert value is not None, "register the lowering with the axes input static"
    return normalizeAxes(None, value, x.ndim)


def _reduction(opType: str, reduce: Callable[..., Any], identity: Callable[[Any], Any] | None
               = None) -> None:
    def lower(site: LoweringSite, x: Any, axes: Any) -> Any:
        keep = bool(site.attr("keep_dims"))
        covered = axesOf(site, x)
        if identity is not None and x.size == 0:  # the reduction of no elements
            shape = tuple(1 if k in covered else d for k, d in enumerate(x.shape)) if keep else (
                tuple(d for k, d in enumerate(x.shape) if k not in covered))
            return jnp.full(shape, identity(x.dtype), x.dtype)
        return reduce(x, axis=covered, keepdims=keep).astype(x.dtype)

    registerLowering(opType, lower, static=(1,))


def _lowest(dtype: Any) -> Any:
    return -np.inf if np.dtype(dtype).kind == "f" else np.iinfo(dtype).min


def _highest(dtype: Any) -> Any:
    return np.inf if np.dtype(dtype).kind == "f" else np.iinfo(dtype).max


_reduction("Max", jnp.max, _lowest)
_reduction("Min", jnp.min, _highest)
def sumOf(x: Any, axis: tuple[int, ...], keepdims: bool) -> Any:
    """The sum in ``x``'s data type; float16 is summed in float32 and rounded once, as the
    numpy kernel does."""
    if x.dtype == jnp.float16:
        return jnp.sum(x.astype(jnp.float32), axis=axis, keepdims=keepdims).astype(x.dtype)
    return jnp.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


_reduction("Sum", sumOf)
_reduction("Prod", jnp.prod)
_reduction("All", jnp.all)
_reduction("Any", jnp.any)


@registerLowering("Rank")
def _rank(site: LoweringSite, x: Any) -> Any:
    return np.asarray(x.ndim, np.int32)  # known when the request is compiled


@registerLowering("Size")
def _size(site: LoweringSite, x: Any) -> Any:
    return np.asarray(x.size, site.dtype())
