"""XLA lowerings of the indexing_join ops (``tfops.spec.indexing_join``): ConcatV2, Pack,
Unpack and Pad.

ConcatV2's axis is its last input, whose position depends on the number of values: it is
declared static as position -1 (counted from the end), so it is a numpy value here (a
constant, computed from constants and shapes, or fed).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.lowerings.indexing import check, normalizeAxis, staticValue
from tfops.backend.xla.registry import LoweringSite, registerLowering


@registerLowering("ConcatV2", static=(-1,))
def _concat(site: LoweringSite, *inputs: Any) -> Any:
    *values, axisInput = inputs
    axisValue = staticValue(site, len(values), axisInput, "axis")
    check(axisValue.ndim == 0, f"axis must be a scalar, got shape {list(axisValue.shape)}")
    first = values[0]
    rank = first.ndim
    check(rank > 0, "cannot concatenate scalars (use Stack instead)")
    axis = normalizeAxis(int(axisValue), rank)
    for v in values:
        same = v.ndim == rank and all(
            a == b for i, (a, b) in enumerate(zip(v.shape, first.shape, strict=True))
            if i != axis)
        check(same, f"values of shapes {list(first.shape)} and {list(v.shape)} can "
              f"only be concatenated if they differ in dimension {axis} alone")
    if len(values) == 1:
        return jnp.asarray(first)
    return jnp.concatenate(values, axis=axis)


@registerLowering("Pack")
def _stack(site: LoweringSite, *values: Any) -> Any:
    for v in values:
        check(v.shape == values[0].shape, f"all values must have the same shape, got "
              f"{list(values[0].shape)} and {list(v.shape)}")
    axis = normalizeAxis(int(site.attr("axis")), values[0].ndim + 1)
    return jnp.stack(values, axis=axis)


@registerLowering("Unpack")
def _unstack(site: LoweringSite, value: Any) -> tuple[Any, ...]:
    num = int(site.attr("num"))
    axis = normalizeAxis(int(site.attr("axis")), value.ndim)
    check(value.shape[axis] == num, f"num is {num} but dimension {axis} of the value has "
          f"size {value.shape[axis]}")
    x = jnp.asarray(value)
    return tuple(jax.lax.index_in_dim(x, i, axis, keepdims=False) for i in range(num))


@registerLowering("Pad", static=(1,))
def _pad(site: LoweringSite, x: Any, paddings: np.ndarray[Any, Any]) -> Any:
    check(paddings.shape == (x.ndim, 2), f"paddings must have shape [{x.ndim}, 2] for a "
          f"tensor of shape {list(x.shape)}, got {list(paddings.shape)}")
    check(bool((paddings >= 0).all()), f"paddings must not be negative, got "
          f"{paddings.tolist()}")
    if x.ndim == 0:
        return jnp.asarray(x)
    config = [(int(low), int(high), 0) for low, high in paddings.tolist()]
    return jax.lax.pad(jnp.asarray(x), jnp.zeros((), x.dtype), config)
