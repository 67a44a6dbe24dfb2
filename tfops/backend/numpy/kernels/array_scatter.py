"""The numpy kernels of :mod:`tfops.spec.array_scatter`: GatherNd, ScatterNd,
TensorScatterUpdate and TensorScatterAdd.

Indices are checked as TensorFlow's CPU kernels check them, with their messages
(``indices[1] = [2, 1] does not index into param shape [2,2]``); under the ``IGNORE`` policy a
bad index reads zeros (GatherNd) or writes nothing (the scatters).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from tfops.backend.numpy.kernels.indexing import check
from tfops.backend.numpy.registry import (
    Array,
    Kernel,
    KernelSite,
    checkAllocation,
    registerKernel,
)


def dims(shape: Sequence[int]) -> str:
    """A shape as TensorFlow's messages write it: ``[2,2]``."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def badIndexMessage(outer: Sequence[int], row: int, value: Sequence[int], what: str,
                    shape: Sequence[int]) -> str:
    """TensorFlow's message for row ``row`` of indices (whose outer shape is ``outer``), holding
    ``value``, which is not a position in ``shape``."""
    position = ",".join(str(int(i)) for i in np.unravel_index(row, tuple(outer))) if outer else ""
    values = ", ".join(str(int(v)) for v in value)
    return f"indices[{position}] = [{values}] does not index into {what} {dims(shape)}"


def indexRows(indices: Array, rank: int, what: str) -> Array:
    """The rows of ``indices``, one index of length ``K`` each, checked to be at most ``rank``
    (that of ``what``)."""
    check(indices.ndim >= 1, "indices must be at least a vector, got a scalar")
    depth = indices.shape[-1]
    check(depth <= rank, f"indices.shape[-1] = {depth} must be at most the rank of {what} "
          f"({rank})")
    n = math.prod(indices.shape[:-1])
    return indices.reshape(n, depth)


def outOfRange(rows: Array, shape: Sequence[int]) -> Array:
    """Per row of indices, whether it is not a position in ``shape`` (its first ``K``
    dimensions)."""
    if rows.shape[1] == 0:
        return np.zeros(rows.shape[0], np.bool_)
    limits = np.asarray(shape[:rows.shape[1]], np.int64)
    return np.asarray(((rows < 0) | (rows >= limits)).any(axis=1))


def ignores(site: KernelSite) -> bool:
    """Whether the op's ``bad_indices_policy`` skips bad indices (else they raise)."""
    return bool(site.attrs.get("bad_indices_policy", "") == "IGNORE")


# -- GatherNd ------------------------------------------------------------------------------
@registerKernel("GatherNd", fresh=True)  # fancy indexing and broadcast copies
def _gatherNd(site: KernelSite) -> Kernel:
    limit, ignore = site.memoryLimit, ignores(site)

    def run(params: Array, indices: Array) -> Array:
        check(params.ndim >= 1, "params must be at least a vector, got a scalar")
        rows = indexRows(indices, params.ndim, "params")
        n, depth = rows.shape
        outer, inner = indices.shape[:-1], params.shape[depth:]
        check(n == 0 or params.size > 0, f"requested {n} slices of params of shape "
              f"{dims(params.shape)}, which is empty")
        bad = outOfRange(rows, params.shape)
        if bad.any() and not ignore:
            first = int(np.argmax(bad))
            check(False, badIndexMessage(outer, first, rows[first].tolist(), "param shape",
                                         params.shape))
        checkAllocation([*outer, *inner], params.dtype, limit)
        if depth == 0:
            result = np.broadcast_to(params, (n, *inner)).copy()
        else:
            result = params[tuple(np.where(bad[:, None], 0, rows).T)]
            result[bad] = 0
        return np.asarray(result).reshape((*outer, *inner))

    return run


# -- the scatters --------------------------------------------------------------------------
def scatterInto(target: Array, indices: Array, updates: Array, add: bool, ignore: bool) -> Array:
    """``target`` (the result, written in place) with the slices of ``updates`` added at (or
    written to) the positions ``indices`` gives, checked as TensorFlow checks them."""
    rows = indexRows(indices, target.ndim, "the output")
    n, depth = rows.shape
    outer, inner = indices.shape[:-1], target.shape[depth:]
    check(updates.shape == (*outer, *inner), f"updates must have shape indices.shape[:-1] + "
          f"shape[{depth}:] = {list((*outer, *inner))}, got {list(updates.shape)}")
    check(n == 0 or (depth > 0 and target.size > 0),
          "indices and updates are given for an empty output shape (or indices of length 0)")
    values = updates.reshape((n, *inner))
    bad = outOfRange(rows, target.shape)
    if bad.any():
        if not ignore:
            first = int(np.argmax(bad))
            check(False, badIndexMessage(outer, first, rows[first].tolist(), "shape",
                                         target.shape))
        rows, values = rows[~bad], values[~bad]
    where = tuple(rows.T)
    if add:
        np.add.at(target, where, values)  # repeated positions summed (bool: or-ed)
    else:
        target[where] = values  # of repeated positions, the last row's slice stays
    return target


@registerKernel("ScatterNd", fresh=True)
def _scatterNd(site: KernelSite) -> Kernel:
    limit, ignore = site.memoryLimit, ignores(site)

    def run(indices: Array, updates: Array, shape: Array) -> Array:
        check(shape.ndim == 1, f"shape must be a vector, got shape {list(shape.shape)}")
        check(bool((shape >= 0).all()), f"shape must not have negative sizes, got "
              f"{shape.tolist()}")
        out = [int(d) for d in shape.tolist()]
        checkAllocation(out, updates.dtype, limit)
        return scatterInto(np.zeros(out, updates.dtype), indices, updates, True, ignore)

    return run


def _tensorScatter(add: bool) -> Kernel:
    def factory(site: KernelSite) -> Kernel:
        ignore = ignores(site)

        def run(tensor: Array, indices: Array, updates: Array) -> Array:
            check(updates.ndim >= 1, "updates must be at least a vector, got a scalar")
            return scatterInto(tensor.copy(), indices, updates, add, ignore)

        return run

    return factory


registerKernel("TensorScatterUpdate", _tensorScatter(False), fresh=True)
registerKernel("TensorScatterAdd", _tensorScatter(True), fresh=True)
