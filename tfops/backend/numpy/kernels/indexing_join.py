"""numpy kernels of the ops that join tensors or grow them (``tfops.spec.indexing_join``):
ConcatV2, Pack, Unpack and Pad."""

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


@registerKernel("ConcatV2", fresh=True)  # np.concatenate copies, even a single value
def _concat(site: KernelSite) -> Kernel:
    limit = site.memoryLimit

    def run(*inputs: Array) -> Array:
        *values, axisValue = inputs
        check(axisValue.ndim == 0, f"axis must be a scalar, got shape {list(axisValue.shape)}")
        rank = values[0].ndim
        check(rank > 0, "cannot concatenate scalars (use Stack instead)")
        axis = normalizeAxis(int(axisValue), rank)
        for v in values:
            same = v.ndim == rank and all(
                a == b for i, (a, b) in enumerate(zip(v.shape, values[0].shape, strict=True))
                if i != axis)
            check(same, f"values of shapes {list(values[0].shape)} and {list(v.shape)} can "
                  f"only be concatenated if they differ in dimension {axis} alone")
        dims = list(values[0].shape)
        dims[axis] = sum(v.shape[axis] for v in values)
        checkAllocation(dims, values[0].dtype, limit)
        return np.concatenate(values, axis=axis)

    return run


@registerKernel("Pack", fresh=True)  # np.stack copies
def _stack(site: KernelSite) -> Kernel:
    limit = site.memoryLimit
    axisAttr: int = site.attr("axis")

    def run(*values: Array) -> Array:
        for v in values:
            check(v.shape == values[0].shape, f"all values must have the same shape, got "
                  f"{list(values[0].shape)} and {list(v.shape)}")
        checkAllocation([len(values), *values[0].shape], values[0].dtype, limit)
        return np.stack(values, axis=normalizeAxis(axisAttr, values[0].ndim + 1))

    return run


@registerKernel("Unpack", fresh=True)  # np.take copies each piece
def _unstack(site: KernelSite) -> Kernel:
    num: int = site.attr("num")
    axisAttr: int = site.attr("axis")

    def run(value: Array) -> tuple[Array, ...]:
        axis = normalizeAxis(axisAttr, value.ndim)
        check(value.shape[axis] == num, f"num is {num} but dimension {axis} of the value has "
              f"size {value.shape[axis]}")
        return tuple(np.take(value, i, axis=axis) for i in range(num))

    return run


@registerKernel("Pad", fresh=True)  # np.pad allocates the result
def _pad(site: KernelSite) -> Kernel:
    limit = site.memoryLimit

    def run(x: Array, paddings: Array) -> Array:
        check(paddings.shape == (x.ndim, 2), f"paddings must have shape [{x.ndim}, 2] for a "
              f"tensor of shape {list(x.shape)}, got {list(paddings.shape)}")
        check(bool((paddings >= 0).all()), f"paddings must not be negative, got "
              f"{paddings.tolist()}")
        checkAllocation([d + int(p.sum()) for d, p in zip(x.shape, paddings, strict=True)],
                        x.dtype, limit)
        return np.pad(x, paddings.tolist()) if x.ndim else x.copy()

    return run
