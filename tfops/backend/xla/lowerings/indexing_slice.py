"""XLA lowerings of the indexing_slice ops (``tfops.spec.indexing_slice``): Slice, StridedSlice
and StridedSliceGrad.

Their begin, size, end, strides (and StridedSliceGrad's shape) are static inputs: the slice is
the numpy basic index the spec's ``sliceIndex`` makes of them, checked by ``slicedDims`` as the
numpy kernel checks it, and XLA takes it as static slices (StridedSlice) or as the padding that
puts ``dy`` back where the slice took it from (StridedSliceGrad).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.lowerings.indexing import check, fail
from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.spec.indexing_slice import slicedDims, sliceIndex

Array = np.ndarray[Any, Any]


@registerLowering("Slice", static=(1, 2))
def _slice(site: LoweringSite, x: Any, begin: Array, size: Array) -> Any:
    check(begin.shape == size.shape == (x.ndim,), f"begin {begin.tolist()} and size "
          f"{size.tolist()} must have one entry per dimension of shape {list(x.shape)}")
    starts, limits = [], []
    for i, (b, s, d) in enumerate(zip(begin.tolist(), size.tolist(), x.shape, strict=True)):
        end = d if s == -1 else b + s
        check(0 <= b <= d and s >= -1 and end <= d, f"the slice begin[{i}] = {b}, "
              f"size[{i}] = {s} is not within dimension {i} of size {d}")
        starts.append(b)
        limits.append(end)
    if x.ndim == 0:
        return jnp.asarray(x)
    return jax.lax.slice(jnp.asarray(x), starts, limits)


@registerLowering("StridedSlice", static=(1, 2, 3))
def _stridedSlice(site: LoweringSite, x: Any, begin: Array, end: Array, strides: Array) -> Any:
    check(begin.ndim == end.ndim == strides.ndim == 1 and begin.size == end.size
          == strides.size, f"begin, end and strides must be vectors of one length, got "
          f"shapes {list(begin.shape)}, {list(end.shape)} and {list(strides.shape)}")
    index = sliceIndex(site.attrs, begin.tolist(), end.tolist(), strides.tolist(), fail)
    slicedDims(x.shape, index, fail)
    return jnp.asarray(x)[index]


@registerLowering("StridedSliceGrad", static=(0, 1, 2, 3))
def _stridedSliceGrad(site: LoweringSite, shape: Array, begin: Array, end: Array,
                      strides: Array, dy: Any) -> Any:
    check(shape.ndim == 1 and bool((shape >= 0).all()),
          f"shape must be a vector of sizes, got {shape.tolist()}")
    dims = tuple(int(d) for d in shape.tolist())
    index = sliceIndex(site.attrs, begin.tolist(), end.tolist(), strides.tolist(), fail)
    sliced = slicedDims(dims, index, fail)
    check(tuple(sliced) == tuple(dy.shape), f"dy has shape {list(dy.shape)}, but the slice of "
          f"a tensor of shape {list(dims)} has shape {sliced}")
    if 0 in sliced or 0 in dims:
        return jnp.zeros(dims, dy.dtype)
    return _scatterSlice(jnp.asarray(dy), dims, index)


def _scatterSlice(dy: Any, dims: tuple[int, ...], index: tuple[Any, ...]) -> Any:
    """Zeros of ``dims`` holding ``dy`` (non-empty) where ``index`` (checked) takes it from: the
    axes of negative strides reversed, new axes dropped, single indices made axes of size 1,
    then padded with zeros around (and, for strides above 1, between) the taken elements."""
    consumed = sum(1 for item in index if item is not None and item is not Ellipsis)
    reversed_: list[int] = []  # axes of dy walked backwards
    full: list[int] = []  # dy's shape with one axis per dimension of the result
    config: list[tuple[int, int, int]] = []  # per dimension: low, high, interior padding
    axis = 0  # the dimension of the result
    dyAxis = 0
    for item in index:
        if item is Ellipsis:
            span = len(dims) - consumed
            for d in dims[axis:axis + span]:
                full.append(d)
                config.append((0, 0, 0))
            axis += span
            dyAxis += span
        elif item is None:
            dyAxis += 1  # a new axis of size 1: dropped by the reshape
        elif isinstance(item, slice):
            d = dims[axis]
            taken = range(*item.indices(d))
            if taken.step < 0:
                reversed_.append(dyAxis)
                taken = taken[::-1]
            k, step, start = len(taken), taken.step, taken.start
            full.append(k)
            config.append((start, d - (start + (k - 1) * step + 1), step - 1))
            axis += 1
            dyAxis += 1
        else:  # a single index: an axis of size 1 in the result
            d = dims[axis]
            i = int(item) % d
            full.append(1)
            config.append((i, d - i - 1, 0))
            axis += 1
    for d in dims[axis:]:
        full.append(d)
        config.append((0, 0, 0))
    if reversed_:
        dy = jnp.flip(dy, axis=tuple(reversed_))
    dy = jnp.reshape(dy, tuple(full))
    return jax.lax.pad(dy, jnp.zeros((), dy.dtype), config)
