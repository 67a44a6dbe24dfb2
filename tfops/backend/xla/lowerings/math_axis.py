"""XLA lowerings of the math ops along one axis (``tfops.spec.math_axis``): ArgMax, ArgMin and
Cumsum. The axis is a static input (known when the request is compiled)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError


def _axis(x: Any, axis: Any, what: str) -> int:
    """The axis in ``[0, rank)``; raises ``InvalidArgumentError`` when it is bad, as the numpy
    kernel does."""
    axis = np.asarray(axis)
    if axis.ndim != 0:
        raise InvalidArgumentError(None, f"{what} must be a scalar, got shape {list(axis.shape)}")
    rank, value = int(x.ndim), int(axis)
    if not -rank <= value < rank:
        raise InvalidArgumentError(
            None, f"{what} {value} is out of range for a tensor of rank {rank} "
            "(must be in [-rank, rank))"
        )
    return value % rank


# -- ArgMax, ArgMin ------------------------------------------------------------------------
def _argLowering(
    pick: Callable[..., Any], clamp: Callable[..., Any], largest: bool
) -> Callable[..., Any]:
    def lower(site: LoweringSite, x: Any, dimension: Any) -> Any:
        axis = _axis(x, dimension, "dimension")
        if x.shape[axis] == 0:
            raise InvalidArgumentError(
                None, f"dimension {axis} of shape {list(x.shape)} is empty: no index to return"
            )
        if jnp.issubdtype(x.dtype, jnp.floating):  # NaN skipped, as the numpy kernel
            info = np.finfo(x.dtype)
            x = clamp(x, jnp.asarray(info.min if largest else info.max, x.dtype))
        return pick(x, axis=axis).astype(site.dtype())

    return lower


# TensorFlow's rule, as the numpy kernel: NaN, -inf (inf for ArgMin) and the lowest (highest)
# finite value never beat index 0, so they are clamped to that value before the first extreme.
registerLowering("ArgMax", _argLowering(jnp.argmax, jnp.fmax, largest=True), static=(1,))
registerLowering("ArgMin", _argLowering(jnp.argmin, jnp.fmin, largest=False), static=(1,))


# -- Cumsum ---------------------------------------------------------------------------------
@registerLowering("Cumsum", static=(1,))
def _cumsum(site: LoweringSite, x: Any, axisValue: Any) -> Any:
    exclusive, reverse = bool(site.attr("exclusive")), bool(site.attr("reverse"))
    axis = _axis(x, axisValue, "axis")
    source = jnp.flip(x, axis) if reverse else x
    total = jnp.cumsum(source, axis=axis, dtype=x.dtype)
    if exclusive:  # shift by one along the axis, starting from 0
        pad = [(0, 0)] * x.ndim
        pad[axis] = (1, 0)
        kept = [slice(None)] * x.ndim
        kept[axis] = slice(0, x.shape[axis])
        total = jnp.pad(total, pad)[tuple(kept)]
    return (jnp.flip(total, axis) if reverse else total).astype(x.dtype)
