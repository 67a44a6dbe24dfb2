"""The XLA lowerings of :mod:`tfops.spec.math_segment`.

The sorted segment reductions' ids are static (they give the result's number of rows): they
are checked when the request is compiled, with the numpy kernel's messages. The unsorted ones
take the number of segments static and check their ids when the request runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tfops.backend.numpy.kernels.math_segment import (
    checkSortedIds,
    checkUnsortedIds,
    highest,
    lowest,
    runAxis,
)
from tfops.backend.xla.lowerings.indexing import check
from tfops.backend.xla.registry import LoweringSite, isStatic, registerLowering

Segmenter = Callable[..., Any]


# -- SegmentSum, SegmentMean, SegmentMax, SegmentMin, SegmentProd ---------------------------
def _sortedLowering(segment: Segmenter, empty: int, mean: bool = False) -> Any:
    def lower(site: LoweringSite, data: Any, ids: np.ndarray[Any, Any]) -> Any:
        ids = np.asarray(ids)
        count = checkSortedIds(np.broadcast_to(np.bool_(False), data.shape), ids)
        rest = tuple(data.shape[1:])
        if count == 0:
            return jnp.full((0, *rest), empty, data.dtype)
        reduced = segment(data, jnp.asarray(ids), num_segments=count, indices_are_sorted=True)
        sizes = np.bincount(ids, minlength=count).reshape(-1, *[1] * len(rest))
        if mean:
            divisor = jnp.asarray(np.maximum(sizes, 1), data.dtype)
            # lax.div rounds integers toward zero, as TensorFlow's
            reduced = jax.lax.div(reduced, jnp.broadcast_to(divisor, reduced.shape))
        return jnp.where(jnp.asarray(sizes == 0), jnp.asarray(empty, data.dtype),
                         reduced).astype(data.dtype)

    return lower


registerLowering("SegmentSum", _sortedLowering(jax.ops.segment_sum, 0), static=(1,))
registerLowering("SegmentMean", _sortedLowering(jax.ops.segment_sum, 0, mean=True),
                 static=(1,))
registerLowering("SegmentMax", _sortedLowering(jax.ops.segment_max, 0), static=(1,))
registerLowering("SegmentMin", _sortedLowering(jax.ops.segment_min, 0), static=(1,))
registerLowering("SegmentProd", _sortedLowering(jax.ops.segment_prod, 1), static=(1,))


# -- UnsortedSegmentMax, UnsortedSegmentMin, UnsortedSegmentProd ----------------------------
def _checkIds(site: LoweringSite, ids: Any, count: int) -> None:
    """Checks that no id is ``count`` or more: now when the ids are known, else at run time."""
    if isStatic(ids) or ids.size == 0:
        return
    ok = ids < count
    shape = tuple(ids.shape)
    first = jnp.argmin(jnp.ravel(ok))
    found = jnp.ravel(ids)[first]

    def message(where: Any, value: Any) -> str:
        position = [int(i) for i in np.unravel_index(int(where), shape)]
        return f"segment_ids{position} = {value} is out of range [0, {count})"

    site.check(ok, message, first, found)


def _unsortedLowering(segment: Segmenter, bound: Callable[[Any], Any] | None) -> Any:
    def lower(site: LoweringSite, data: Any, ids: Any, numSegments: np.ndarray[Any, Any]) -> Any:
        idsShape = tuple(np.shape(ids))
        if isStatic(ids):
            count = checkUnsortedIds(np.broadcast_to(np.bool_(False), data.shape),
                                     np.asarray(ids), np.asarray(numSegments))
        else:
            check(np.ndim(numSegments) == 0, f"num_segments must be a scalar, got shape "
                  f"{list(np.shape(numSegments))}")
            count = int(numSegments)
            check(count >= 0, f"num_segments must not be negative, got {count}")
            check(tuple(data.shape[:len(idsShape)]) == idsShape, f"the shape of segment_ids "
                  f"{list(idsShape)} must begin the shape of data {list(data.shape)}")
            _checkIds(site, ids, count)
        rest = tuple(data.shape[len(idsShape):])
        n = int(np.prod(idsShape, dtype=np.int64))
        flatIds = jnp.reshape(jnp.asarray(ids), (n,))
        flatData = jnp.reshape(data, (n, *rest))
        # negative ids drop their data, as TensorFlow's; ids >= count (a failed check) too
        kept = jnp.where((flatIds >= 0) & (flatIds < count), flatIds, count)
        if bound is None:
            return segment(flatData, kept, num_segments=count).astype(data.dtype)
        if not jnp.issubdtype(data.dtype, jnp.floating):
            return bound(segment(flatData, kept, num_segments=count)).astype(data.dtype)
        return _nanFold(segment, bound, flatData, kept, count).astype(data.dtype)

    return lower


def _nanFold(segment: Segmenter, bound: Callable[[Any], Any], data: Any, ids: Any,
             count: int) -> Any:
    """The numpy kernel's ``nanFold`` (TensorFlow's fold over NaN), and the plain extreme,
    bounded by the lowest (highest) finite value, for segments without NaN."""
    position = jnp.broadcast_to(
        jnp.arange(data.shape[0]).reshape(-1, *[1] * (data.ndim - 1)), data.shape)
    last = jnp.maximum(jax.ops.segment_max(jnp.where(jnp.isnan(data), position, -1), ids,
                                           num_segments=count), -1)
    after = position > jnp.take(jnp.concatenate([last, jnp.full((1, *last.shape[1:]), -1,
                                                                 last.dtype)]), ids, axis=0)
    unbounded = -jnp.inf if segment is jax.ops.segment_max else jnp.inf
    folded = segment(jnp.where(after, data, unbounded), ids, num_segments=count)
    anyAfter = jax.ops.segment_max(after.astype(jnp.int32), ids, num_segments=count) > 0
    return jnp.where(last >= 0, jnp.where(anyAfter, folded, jnp.nan), bound(folded))


def _atLeastLowest(x: Any) -> Any:
    return jnp.maximum(x, jnp.asarray(lowest(x.dtype), x.dtype))


def _atMostHighest(x: Any) -> Any:
    return jnp.minimum(x, jnp.asarray(highest(x.dtype), x.dtype))


registerLowering("UnsortedSegmentMax", _unsortedLowering(jax.ops.segment_max, _atLeastLowest),
                 static=(2,))
registerLowering("UnsortedSegmentMin", _unsortedLowering(jax.ops.segment_min, _atMostHighest),
                 static=(2,))
registerLowering("UnsortedSegmentProd", _unsortedLowering(jax.ops.segment_prod, None),
                 static=(2,))


# -- Cumprod ---------------------------------------------------------------------------------
@registerLowering("Cumprod", static=(1,))
def _cumprod(site: LoweringSite, x: Any, axisValue: np.ndarray[Any, Any]) -> Any:
    exclusive, reverse = bool(site.attr("exclusive")), bool(site.attr("reverse"))
    axis = runAxis(np.broadcast_to(np.bool_(False), x.shape), np.asarray(axisValue))
    source = jnp.flip(x, axis) if reverse else x
    if exclusive:  # shift by one along the axis, starting from 1
        pad = [(0, 0)] * x.ndim
        pad[axis] = (1, 0)
        kept = [slice(None)] * x.ndim
        kept[axis] = slice(0, x.shape[axis])
        source = jnp.pad(source, pad, constant_values=1)[tuple(kept)]
    total = jnp.cumprod(source, axis=axis, dtype=x.dtype)
    return (jnp.flip(total, axis) if reverse else total).astype(x.dtype)
