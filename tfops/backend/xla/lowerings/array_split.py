"""The XLA lowerings of :mod:`tfops.spec.array_split`: Split, SplitV, ReverseV2, ClipByValue,
Where and ListDiff.

Split dimensions, sizes and reversed axes are compiled in (``static``). Where and ListDiff give
results whose size depends on their inputs' values: XLA needs every shape when it compiles, so
those inputs must be known then too (as TensorFlow's XLA bridge needs them), and the result is
computed then.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tfops.backend.numpy.kernels.array_split import clipShapesMatch, listDiff, splitDim
from tfops.backend.xla.lowerings.indexing import check
from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError
from tfops.spec.array_split import reversedAxes, splitSizes


def _pieces(value: Any, sizes: list[int], axis: int) -> tuple[Any, ...]:
    x = jnp.asarray(value)
    starts = np.cumsum([0, *sizes[:-1]]).tolist()
    return tuple(jax.lax.slice_in_dim(x, s, s + n, axis=axis)
                 for s, n in zip(starts, sizes, strict=True))


@registerLowering("Split", static=(0,))
def _split(site: LoweringSite, axis: np.ndarray[Any, Any], value: Any) -> tuple[Any, ...]:
    num = int(site.attr("num_split"))
    a = splitDim(axis, tuple(value.shape))
    size = value.shape[a]
    check(size % num == 0, f"num_split {num} does not evenly divide dimension {a} of the "
          f"value (size {size}, shape {list(value.shape)})")
    return _pieces(value, [size // num] * num, a)


@registerLowering("SplitV", static=(1, 2))
def _splitV(site: LoweringSite, value: Any, sizes: np.ndarray[Any, Any],
            axis: np.ndarray[Any, Any]) -> tuple[Any, ...]:
    num = int(site.attr("num_split"))
    a = splitDim(axis, tuple(value.shape))
    check(sizes.shape == (num,), f"size_splits must be a vector of num_split = {num} "
          f"entries, got shape {list(sizes.shape)}")
    try:
        resolved = splitSizes([int(s) for s in sizes.tolist()], value.shape[a])
    except ValueError as e:
        raise InvalidArgumentError(None, str(e)) from None
    return _pieces(value, resolved, a)


@registerLowering("ReverseV2", static=(1,))
def _reverse(site: LoweringSite, x: Any, axis: np.ndarray[Any, Any]) -> Any:
    check(axis.ndim == 1, f"axis must be a vector, got shape {list(axis.shape)}")
    check(x.ndim <= 8, f"cannot reverse a tensor of rank {x.ndim} (at most 8)")
    try:
        axes = reversedAxes(axis.tolist(), x.ndim)
    except ValueError as e:
        raise InvalidArgumentError(None, str(e)) from None
    return jnp.flip(jnp.asarray(x), axes) if axes else jnp.asarray(x)


@registerLowering("ClipByValue")
def _clipByValue(site: LoweringSite, t: Any, low: Any, high: Any) -> Any:
    message = clipShapesMatch(tuple(t.shape), tuple(np.shape(low)), tuple(np.shape(high)))
    check(not message, message)
    capped = jnp.where(high < t, high, t)
    return jnp.where(capped < low, low, capped).astype(site.dtype())


@registerLowering("Where", static=(0,))
def _where(site: LoweringSite, x: np.ndarray[Any, Any]) -> Any:
    check(x.ndim > 0, "input must have at least one dimension, got a scalar")
    return jnp.asarray(np.argwhere(x).astype(np.int64))


@registerLowering("ListDiff", static=(0, 1))
def _listDiff(site: LoweringSite, x: np.ndarray[Any, Any],
              y: np.ndarray[Any, Any]) -> tuple[Any, Any]:
    out, idx = listDiff(x, y, site.dtype(1).type)
    return jnp.asarray(out), jnp.asarray(idx)
