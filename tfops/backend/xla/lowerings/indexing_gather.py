"""XLA lowerings of the indexing_gather ops (``tfops.spec.indexing_gather``): GatherV2 and
UnsortedSegmentSum.

Indices are values: those out of range are a run-time check (``LoweringSite.check``); the
result is computed anyway, with clamped (gather) or dropped (segment sum) indices. When the
indices are known as the request is compiled, they are checked then, with the numpy kernel's
message naming the first bad one.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.lowerings.indexing import check, normalizeAxis
from tfops.backend.xla.registry import LoweringSite, isStatic, registerLowering
from tfops.spec.indexing_gather import batchedGather, gatherBatchDims


def _checkInRange(site: LoweringSite, name: str, indices: Any, size: int,
                  dropsNegative: bool = False) -> None:
    """Checks that ``indices`` are in ``[0, size)`` (or below ``size``, when negative indices
    are allowed): now when they are known, naming the first bad one as the numpy kernel does;
    else when the request runs."""
    if isStatic(indices):
        value = np.asarray(indices)
        bad = value >= size if dropsNegative else (value < 0) | (value >= size)
        if bad.any():
            where = tuple(int(i) for i in np.argwhere(bad)[0])
            check(False, f"{name}{list(where)} = {value[where]} is not in [0, {size})")
        return
    if indices.size == 0:
        return
    ok = indices < size if dropsNegative else (indices >= 0) & (indices < size)
    shape = tuple(indices.shape)
    first = jnp.argmin(jnp.ravel(ok))  # the first bad index, told when the check fails
    found = jnp.ravel(indices)[first]

    def message(where: Any, value: Any) -> str:
        position = [int(i) for i in np.unravel_index(int(where), shape)]
        return f"{name}{position} = {value} is not in [0, {size})"

    site.check(ok, message, first, found)


@registerLowering("GatherV2", static=(2,))
def _gather(site: LoweringSite, params: Any, indices: Any, axis: np.ndarray[Any, Any]) -> Any:
    given = int(site.attrs.get("batch_dims", 0))
    check(axis.ndim == 0, f"axis must be a scalar, got shape {list(axis.shape)}")
    check(params.ndim > 0, "params must have at least one dimension, got a scalar")
    a = normalizeAxis(int(axis), params.ndim)
    size = params.shape[a]
    _checkInRange(site, "indices", indices, size)
    ishape = tuple(np.shape(indices))
    batchDims = gatherBatchDims(given, tuple(params.shape), ishape, a) if given else 0
    shape = (*params.shape[:a], *ishape[batchDims:], *params.shape[a + 1:])
    if size == 0 or 0 in shape:  # nothing to take (or an index error already recorded)
        return jnp.zeros(shape, params.dtype)
    if batchDims == 0:
        return jnp.take(params, indices, axis=a, mode="clip")
    clipped = jnp.clip(jnp.asarray(indices), 0, size - 1)  # a bad index: a failed check
    return batchedGather(lambda v, at: v[at], params, clipped, a, batchDims)


@registerLowering("UnsortedSegmentSum", static=(2,))
def _unsortedSegmentSum(site: LoweringSite, data: Any, ids: Any,
                        numSegments: np.ndarray[Any, Any]) -> Any:
    check(numSegments.ndim == 0 and int(numSegments) >= 0,
          f"num_segments must be a non-negative scalar, got {numSegments.tolist()}")
    idsShape = tuple(np.shape(ids))
    check(tuple(data.shape[:len(idsShape)]) == idsShape, f"the shape of segment_ids "
          f"{list(idsShape)} must begin the shape of data {list(data.shape)}")
    count = int(numSegments)
    _checkInRange(site, "segment_ids", ids, count, dropsNegative=True)
    rest = tuple(data.shape[len(idsShape):])
    n = int(np.prod(idsShape, dtype=np.int64))
    result = jnp.zeros((count, *rest), data.dtype)
    if n == 0 or count == 0:
        return result
    flatIds = jnp.reshape(jnp.asarray(ids), (n,))
    flatData = jnp.reshape(data, (n, *rest))
    # negative ids drop their data, as TensorFlow's; ids >= count (a failed check) too
    kept = jnp.where((flatIds >= 0) & (flatIds < count), flatIds, count)
    return result.at[kept].add(flatData, mode="drop")
