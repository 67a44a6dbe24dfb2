"""numpy kernels of the ops that cut a part out of a tensor (``tfops.spec.indexing_slice``):
Slice, StridedSlice and StridedSliceGrad.

A strided slice runs as the numpy basic index that the spec's ``sliceIndex`` makes of its begin,
end and strides vectors and masks, checked by ``slicedDims`` as TensorFlow's kernel checks it.
"""

from __future__ import annotations

import numpy as np

from tfops.backend.numpy.kernels.indexing import check
from tfops.backend.numpy.registry import (
    Array,
    Kernel,
    KernelSite,
    checkAllocation,
    registerKernel,
)
from tfops.errors import InvalidArgumentError
from tfops.spec.indexing_slice import slicedDims, sliceIndex


def _runtimeError(message: str) -> Exception:
    return InvalidArgumentError(None, message)


@registerKernel("Slice")  # a view of the input
def _slice(site: KernelSite) -> Kernel:
    def run(x: Array, begin: Array, size: Array) -> Array:
        check(begin.shape == size.shape == (x.ndim,), f"begin {begin.tolist()} and size "
              f"{size.tolist()} must have one entry per dimension of shape {list(x.shape)}")
        index = []
        for i, (b, s, d) in enumerate(zip(begin.tolist(), size.tolist(), x.shape, strict=True)):
            end = d if s == -1 else b + s
            check(0 <= b <= d and s >= -1 and end <= d, f"the slice begin[{i}] = {b}, "
                  f"size[{i}] = {s} is not within dimension {i} of size {d}")
            index.append(slice(b, end))
        return x[tuple(index)]

    return run


@registerKernel("StridedSlice")  # a view of the input
def _stridedSlice(site: KernelSite) -> Kernel:
    attrs = site.attrs

    def run(x: Array, begin: Array, end: Array, strides: Array) -> Array:
        check(begin.ndim == end.ndim == strides.ndim == 1 and begin.size == end.size
              == strides.size, f"begin, end and strides must be vectors of one length, got "
              f"shapes {list(begin.shape)}, {list(end.shape)} and {list(strides.shape)}")
        index = sliceIndex(attrs, begin.tolist(), end.tolist(), strides.tolist(), _runtimeError)
        slicedDims(x.shape, index, _runtimeError)
        result: Array = x[index]
        return result

    return run


@registerKernel("StridedSliceGrad", fresh=True)
def _stridedSliceGrad(site: KernelSite) -> Kernel:
    attrs = site.attrs
    limit = site.memoryLimit

    def run(shape: Array, begin: Array, end: Array, strides: Array, dy: Array) -> Array:
        check(shape.ndim == 1 and bool((shape >= 0).all()),
              f"shape must be a vector of sizes, got {shape.tolist()}")
        index = sliceIndex(attrs, begin.tolist(), end.tolist(), strides.tolist(), _runtimeError)
        sliced = slicedDims(tuple(shape.tolist()), index, _runtimeError)
        check(tuple(sliced) == dy.shape, f"dy has shape {list(dy.shape)}, but the slice of a "
              f"tensor of shape {shape.tolist()} has shape {sliced}")
        checkAllocation(shape.tolist(), dy.dtype, limit)
        result = np.zeros(shape.tolist(), dy.dtype)
        result[index] = dy
        return result

    return run
