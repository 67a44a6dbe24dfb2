"""The numpy kernels of :mod:`tfops.spec.math_segment`: the sorted and unsorted segment
reductions, and Cumprod."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfops.backend.numpy.kernels.indexing import check
from tfops.backend.numpy.registry import (
    Array,
    Kernel,
    KernelSite,
    checkAllocation,
    registerKernel,
)


def lowest(dtype: Any) -> Any:
    """The lowest finite value of ``dtype`` (TensorFlow's empty maximum)."""
    dtype = np.dtype(dtype)
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def highest(dtype: Any) -> Any:
    """The highest finite value of ``dtype`` (TensorFlow's empty minimum)."""
    dtype = np.dtype(dtype)
    return np.finfo(dtype).max if dtype.kind == "f" else np.iinfo(dtype).max


def truncatingDivide(total: Array, count: Array) -> Array:
    """``total / count`` in ``total``'s dtype, integers rounded toward zero as C++ does."""
    if total.dtype.kind == "f":
        quotient: Array = (total / count).astype(total.dtype)
        return quotient
    floor = total // count
    return np.where((floor < 0) & (floor * count != total), floor + 1, floor).astype(total.dtype)


# -- SegmentSum, SegmentMean, SegmentMax, SegmentMin, SegmentProd ---------------------------
def checkSortedIds(data: Array, ids: Array) -> int:
    """Checks ``ids`` as TensorFlow's sorted segment kernels do; returns the number of
    segments (the last id plus one)."""
    check(ids.ndim == 1, f"segment_ids must be a vector, got shape {list(ids.shape)}")
    check(data.ndim >= 1, "data must have at least one dimension, got a scalar")
    check(ids.shape[0] == data.shape[0], f"segment_ids of shape {list(ids.shape)} must have "
          f"one id per row of data, whose shape is {list(data.shape)}")
    if ids.shape[0] == 0:
        return 0
    check(int(ids[0]) >= 0, f"segment ids must be >= 0, got {int(ids[0])}")
    falls = np.flatnonzero(ids[1:] < ids[:-1])
    if falls.size:
        at = int(falls[0]) + 1
        check(False, f"segment ids are not increasing: segment_ids[{at}] = {int(ids[at])} "
              f"follows {int(ids[at - 1])}")
    return int(ids[-1]) + 1


def _sortedKernel(reduce: np.ufunc, empty: int, mean: bool = False) -> Any:
    def factory(site: KernelSite) -> Kernel:
        limit = site.memoryLimit

        def run(data: Array, ids: Array) -> Array:
            count = checkSortedIds(data, ids)
            checkAllocation([count, *data.shape[1:]], data.dtype, limit)
            result = np.full((count, *data.shape[1:]), empty, data.dtype)
            if count == 0:
                return result
            starts = np.flatnonzero(np.concatenate([[True], ids[1:] != ids[:-1]]))
            reduced: Array = reduce.reduceat(data, starts, axis=0, dtype=data.dtype)
            if mean:
                sizes: Array = np.diff(np.append(starts, ids.shape[0]))
                reduced = truncatingDivide(reduced, sizes.reshape((-1, *[1] * (data.ndim - 1))))
            result[ids[starts]] = reduced
            return result

        return run

    return factory


registerKernel("SegmentSum", _sortedKernel(np.add, 0), fresh=True)
registerKernel("SegmentMean", _sortedKernel(np.add, 0, mean=True), fresh=True)
registerKernel("SegmentMax", _sortedKernel(np.maximum, 0), fresh=True)
registerKernel("SegmentMin", _sortedKernel(np.minimum, 0), fresh=True)
registerKernel("SegmentProd", _sortedKernel(np.multiply, 1), fresh=True)


# -- UnsortedSegmentMax, UnsortedSegmentMin, UnsortedSegmentProd ----------------------------
def checkUnsortedIds(data: Array, ids: Array, numSegments: Array) -> int:
    """Checks the inputs as TensorFlow's unsorted segment kernels do; returns the number of
    segments."""
    check(numSegments.ndim == 0, f"num_segments must be a scalar, got shape "
          f"{list(numSegments.shape)}")
    count = int(numSegments)
    check(count >= 0, f"num_segments must not be negative, got {count}")
    check(data.shape[:ids.ndim] == ids.shape, f"the shape of segment_ids {list(ids.shape)} "
          f"must begin the shape of data {list(data.shape)}")
    bad = ids >= count
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        check(False, f"segment_ids{list(where)} = {ids[where]} is out of range [0, {count})")
    return count


def _unsortedKernel(reduce: np.ufunc, empty: Any) -> Any:
    def factory(site: KernelSite) -> Kernel:
        limit = site.memoryLimit

        def run(data: Array, ids: Array, numSegments: Array) -> Array:
            count = checkUnsortedIds(data, ids, numSegments)
            checkAllocation([count, *data.shape[ids.ndim:]], data.dtype, limit)
            kept = ids >= 0  # negative ids drop their data, as TensorFlow's
            keptIds, keptData = ids[kept], data[kept]
            result = np.full((count, *data.shape[ids.ndim:]), empty(data.dtype), data.dtype)
            if reduce is not np.multiply and data.dtype.kind == "f" and np.isnan(keptData).any():
                return nanFold(reduce, result, keptIds, keptData)
            reduce.at(result, keptIds, keptData)
            return result

        return run

    return factory


def nanFold(reduce: np.ufunc, start: Array, ids: Array, data: Array) -> Array:
    """TensorFlow's CPU fold of a maximum (minimum) over data holding NaN: its step keeps the
    new value unless it is below (above) the running one, so a NaN is replaced by the value
    after it: each segment's result is the extreme of the values after its last NaN (starting
    from no bound), NaN when the NaN is its last value."""
    position = np.arange(ids.shape[0]).reshape(-1, *[1] * (data.ndim - 1))
    position = np.broadcast_to(position, data.shape)
    last = np.full(start.shape, -1, np.int64)
    np.maximum.at(last, ids, np.where(np.isnan(data), position, -1))
    after = position > last[ids]
    unbounded = -np.inf if reduce is np.maximum else np.inf
    folded = np.where(last >= 0, np.asarray(unbounded, start.dtype), start)
    reduce.at(folded, ids, np.where(after, data, np.asarray(unbounded, data.dtype)))
    anyAfter = np.zeros(start.shape, np.bool_)
    np.logical_or.at(anyAfter, ids, after)
    result: Array = np.where((last >= 0) & ~anyAfter, np.asarray(np.nan, start.dtype), folded)
    return result


registerKernel("UnsortedSegmentMax", _unsortedKernel(np.maximum, lowest), fresh=True)
registerKernel("UnsortedSegmentMin", _unsortedKernel(np.minimum, highest), fresh=True)
def _one(dtype: Any) -> Any:
    return 1


registerKernel("UnsortedSegmentProd", _unsortedKernel(np.multiply, _one), fresh=True)


# -- Cumprod ---------------------------------------------------------------------------------
def runAxis(x: Array, axis: Array) -> int:
    """The run-time axis in ``[0, rank)``; raises ``InvalidArgumentError`` when it is bad."""
    check(axis.ndim == 0, f"axis must be a scalar, got shape {list(axis.shape)}")
    rank, value = x.ndim, int(axis)
    check(-rank <= value < rank, f"axis {value} is out of range for a tensor of rank {rank} "
          "(must be in [-rank, rank))")
    return value % rank


@registerKernel("Cumprod", fresh=True)
def _cumprod(site: KernelSite) -> Kernel:
    exclusive, reverse = bool(site.attr("exclusive")), bool(site.attr("reverse"))

    def run(x: Array, axisValue: Array) -> Array:
        axis = runAxis(x, axisValue)
        source = np.flip(x, axis) if reverse else x
        total: Array = np.cumprod(source, axis=axis, dtype=x.dtype)
        if exclusive:  # shift by one along the axis, starting from 1
            shifted = np.ones_like(total)
            into = [slice(None)] * x.ndim
            into[axis] = slice(1, None)
            outOf = [slice(None)] * x.ndim
            outOf[axis] = slice(0, -1)
            shifted[tuple(into)] = total[tuple(outOf)]
            total = shifted
        result: Array = np.flip(total, axis).copy() if reverse else np.ascontiguousarray(total)
        return result

    return run
