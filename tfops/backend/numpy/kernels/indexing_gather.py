"""numpy kernels of the ops that pick or scatter rows by index (``tfops.spec.indexing_gather``):
GatherV2 and UnsortedSegmentSum."""

from __future__ import annotations

import numpy as np

from tfops.backend.numpy.kernels.indexing import check, normalizeAxis
from tfops.backend.numpy.registry import (
    Array,
    Kernel,
    KernelSite,
    checkAllocation,
    registerKernel,
)
from tfops.spec.indexing_gather import batchedGather, gatherBatchDims


def _checkInRange(name: str, indices: Array, size: int, dropsNegative: bool = False) -> None:
    """Raises naming the first of ``indices`` outside ``[0, size)`` (or at least ``size``, when
    negative indices are allowed)."""
    bad = indices >= size if dropsNegative else (indices < 0) | (indices >= size)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        check(False, f"{name}{list(where)} = {indices[where]} is not in [0, {size})")


@registerKernel("GatherV2", fresh=True)  # np.take and advanced indexing copy
def _gather(site: KernelSite) -> Kernel:
    limit = site.memoryLimit
    given = int(site.attr("batch_dims"))

    def run(params: Array, indices: Array, axis: Array) -> Array:
        check(axis.ndim == 0, f"axis must be a scalar, got shape {list(axis.shape)}")
        check(params.ndim > 0, "params must have at least one dimension, got a scalar")
        a = normalizeAxis(int(axis), params.ndim)
        _checkInRange("indices", indices, params.shape[a])
        batchDims = gatherBatchDims(given, params.shape, indices.shape, a) if given else 0
        checkAllocation([*params.shape[:a], *indices.shape[batchDims:], *params.shape[a + 1:]],
                        params.dtype, limit)
        if batchDims == 0:
            return np.take(params, indices, axis=a)
        result: Array = batchedGather(lambda v, at: v[at], params, indices, a, batchDims)
        return result

    return run


@registerKernel("UnsortedSegmentSum", fresh=True)
def _unsortedSegmentSum(site: KernelSite) -> Kernel:
    limit = site.memoryLimit

    def run(data: Array, ids: Array, numSegments: Array) -> Array:
        check(numSegments.ndim == 0 and int(numSegments) >= 0,
              f"num_segments must be a non-negative scalar, got {numSegments.tolist()}")
        check(data.shape[:ids.ndim] == ids.shape, f"the shape of segment_ids "
              f"{list(ids.shape)} must begin the shape of data {list(data.shape)}")
        count = int(numSegments)
        _checkInRange("segment_ids", ids, count, dropsNegative=True)
        checkAllocation([count, *data.shape[ids.ndim:]], data.dtype, limit)
        result = np.zeros((count, *data.shape[ids.ndim:]), data.dtype)
        kept = ids >= 0  # negative ids drop their data, as TensorFlow's
        np.add.at(result, ids[kept], data[kept])
        return result

    return run
