"""The XLA lowerings of :mod:`tfops.spec.array_scatter`: GatherNd, ScatterNd,
TensorScatterUpdate and TensorScatterAdd.

Shapes are static, so what the numpy kernels check of them is checked when the request is
compiled; indices are values: one out of range is a run-time check (``LoweringSite.check``,
with the numpy kernel's message), or a compile-time error when the indices are known then. The
result is computed anyway, reading index 0 (GatherNd) or writing nothing (the scatters) for a
bad index, which is also what the ``IGNORE`` policy asks, GatherNd's slices then zeroed.
ScatterNd's ``shape`` is compiled in (``static``).
"""

from __future__ import annotations

import math
from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.numpy.kernels.array_scatter import (
    badIndexMessage,
    dims,
    outOfRange,
)
from tfops.backend.xla.lowerings.indexing import check
from tfops.backend.xla.registry import LoweringSite, isStatic, registerLowering


def _rows(indices: Any, rank: int, what: str) -> Any:
    check(indices.ndim >= 1, "indices must be at least a vector, got a scalar")
    depth = indices.shape[-1]
    check(depth <= rank, f"indices.shape[-1] = {depth} must be at most the rank of {what} "
          f"({rank})")
    n = math.prod(indices.shape[:-1])
    if isStatic(indices):
        return np.reshape(np.asarray(indices), (n, depth))
    return jnp.reshape(indices, (n, depth))


def _badRows(site: LoweringSite, rows: Any, outer: tuple[int, ...], shape: tuple[int, ...],
             what: str) -> Any:
    """Per row, whether it is out of range of ``shape``; unless the op ignores bad indices, a
    check that none is (now when the rows are known, else when the request runs)."""
    n, depth = rows.shape
    ignore = _ignores(site)
    if isStatic(rows):
        bad = outOfRange(rows, shape)
        if bad.any() and not ignore:
            row = int(np.argmax(bad))
            check(False, badIndexMessage(outer, row, rows[row].tolist(), what, shape))
        return jnp.asarray(bad)
    if depth == 0:
        return jnp.zeros(n, jnp.bool_)
    limits = jnp.asarray(np.asarray(shape[:depth], np.int64))
    bad = ((rows < 0) | (rows >= limits)).any(axis=1)
    if not ignore and n:
        first = jnp.argmax(bad)

        def message(row: Any, value: Any) -> str:
            return badIndexMessage(outer, int(row), np.asarray(value).tolist(), what, shape)

        site.check(~bad, message, first, rows[first])
    return bad


def _ignores(site: LoweringSite) -> bool:
    """Whether the op's ``bad_indices_policy`` skips bad indices."""
    return bool(site.attrs.get("bad_indices_policy", "") == "IGNORE")


@registerLowering("GatherNd")
def _gatherNd(site: LoweringSite, params: Any, indices: Any) -> Any:
    check(params.ndim >= 1, "params must be at least a vector, got a scalar")
    rows = _rows(indices, params.ndim, "params")
    n, depth = rows.shape
    outer, inner = tuple(indices.shape[:-1]), tuple(params.shape[depth:])
    check(n == 0 or params.size > 0, f"requested {n} slices of params of shape "
          f"{dims(params.shape)}, which is empty")
    bad = _badRows(site, rows, outer, tuple(params.shape), "param shape")
    x = jnp.asarray(params)
    if n == 0:
        return jnp.zeros((*outer, *inner), x.dtype)
    if depth == 0:
        return jnp.broadcast_to(x, (*outer, *inner))
    safe = jnp.where(bad[:, None], 0, rows)
    result = x[tuple(safe[:, k] for k in range(depth))]
    result = jnp.where(jnp.reshape(bad, (n,) + (1,) * len(inner)), jnp.zeros((), x.dtype), result)
    return jnp.reshape(result, (*outer, *inner))


def _scatter(site: LoweringSite, target: Any, indices: Any, updates: Any, add: bool) -> Any:
    rows = _rows(indices, target.ndim, "the output")
    n, depth = rows.shape
    outer, inner = tuple(indices.shape[:-1]), tuple(target.shape[depth:])
    check(tuple(updates.shape) == (*outer, *inner), f"updates must have shape indices.shape[:-1] "
          f"+ shape[{depth}:] = {list((*outer, *inner))}, got {list(updates.shape)}")
    check(n == 0 or (depth > 0 and target.size > 0),
          "indices and updates are given for an empty output shape (or indices of length 0)")
    if n == 0:
        return target
    bad = _badRows(site, rows, outer, tuple(target.shape), "shape")
    # a bad row goes past the end of dimension 0, where mode="drop" writes nothing
    dropped = jnp.where(bad[:, None], target.shape[0], rows)
    where = tuple(dropped[:, k] for k in range(depth))
    values = jnp.reshape(updates, (n, *inner))
    if not add:
        return target.at[where].set(values, mode="drop")
    if target.dtype == jnp.bool_:
        return target.at[where].max(values, mode="drop")  # or-ed, as numpy's add of bools
    return target.at[where].add(values, mode="drop")


@registerLowering("ScatterNd", static=(2,))
def _scatterNd(site: LoweringSite, indices: Any, updates: Any,
               shape: np.ndarray[Any, Any]) -> Any:
    check(shape.ndim == 1, f"shape must be a vector, got shape {list(shape.shape)}")
    check(bool((shape >= 0).all()), f"shape must not have negative sizes, got {shape.tolist()}")
    target = jnp.zeros(tuple(int(d) for d in shape.tolist()), site.dtype())
    return _scatter(site, target, indices, updates, True)


@registerLowering("TensorScatterUpdate")
def _tensorScatterUpdate(site: LoweringSite, tensor: Any, indices: Any, updates: Any) -> Any:
    check(updates.ndim >= 1, "updates must be at least a vector, got a scalar")
    return _scatter(site, jnp.asarray(tensor), indices, updates, False)


@registerLowering("TensorScatterAdd")
def _tensorScatterAdd(site: LoweringSite, tensor: Any, indices: Any, updates: Any) -> Any:
    check(updates.ndim >= 1, "updates must be at least a vector, got a scalar")
    return _scatter(site, jnp.asarray(tensor), indices, updates, True)

