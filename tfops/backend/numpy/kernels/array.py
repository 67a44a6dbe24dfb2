"""numpy kernels of the array ops (``tfops.spec.array``): Fill, Range, OneHot, SelectV2 and
CheckNumerics."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfops.backend.numpy.registry import (
    Array,
    Kernel,
    KernelSite,
    checkAllocation,
    registerKernel,
)
from tfops.errors import InvalidArgumentError
from tfops.spec.array import rangeSize


def _scalar(value: Array, name: str) -> Any:
    """The element of a run-time scalar input."""
    if value.ndim != 0:
        raise InvalidArgumentError(None, f"{name} must be a scalar, got shape {list(value.shape)}")
    return value[()]


# -- Fill ----------------------------------------------------------------------------------
@registerKernel("Fill", fresh=True)
def _fill(site: KernelSite) -> Kernel:
    limit = site.memoryLimit

    def run(dims: Array, value: Array) -> Array:
        if dims.ndim != 1:
            raise InvalidArgumentError(None, f"dims must be a vector, got shape {list(dims.shape)}")
        if (dims < 0).any():
            raise InvalidArgumentError(None, f"dims must be non-negative, got {dims.tolist()}")
        checkAllocation(dims.tolist(), value.dtype, limit)
        return np.full(dims.tolist(), _scalar(value, "value"), value.dtype)

    return run


# -- Range ---------------------------------------------------------------------------------
@registerKernel("Range", fresh=True)
def _range(site: KernelSite) -> Kernel:
    dtype = site.attr("Tidx").DTYPE
    memoryLimit = site.memoryLimit

    def run(start: Array, limit: Array, delta: Array) -> Array:
        first, step = _scalar(start, "start"), _scalar(delta, "delta")
        size = rangeSize(first, _scalar(limit, "limit"), step)
        checkAllocation([size], dtype, memoryLimit)
        result: Array = (first + np.arange(size, dtype=dtype) * step).astype(dtype)
        return result

    return run


# -- OneHot --------------------------------------------------------------------------------
@registerKernel("OneHot", fresh=True)
def _oneHot(site: KernelSite) -> Kernel:
    axis = site.attr("axis")
    limit = site.memoryLimit

    def run(indices: Array, depth: Array, on: Array, off: Array) -> Array:
        size = int(_scalar(depth, "depth"))
        if size < 0:
            raise InvalidArgumentError(None, f"depth must be non-negative, got {size}")
        at = indices.ndim if axis == -1 else axis
        if at > indices.ndim:
            raise InvalidArgumentError(
                None, f"axis {axis} is out of range for indices of rank {indices.ndim}")
        checkAllocation([*indices.shape, size], on.dtype, limit)
        # the comparison has the new dimension at ``at`` already, so the result is one fresh
        # C-contiguous array (no moved-axis view)
        positions = np.arange(size).reshape((size,) + (1,) * (indices.ndim - at))
        hot = np.expand_dims(indices, at) == positions
        result: Array = np.where(hot, _scalar(on, "on_value"), _scalar(off, "off_value"))
        return result.astype(on.dtype, copy=False)

    return run


# -- SelectV2 ------------------------------------------------------------------------------
@registerKernel("SelectV2", fresh=True)
def _select(site: KernelSite) -> Kernel:
    if site.knowsShapes():  # the plan checked the broadcast result before running
        return lambda condition, t, e: np.where(condition, t, e)
    limit = site.memoryLimit

    def run(condition: Array, t: Array, e: Array) -> Array:
        if condition.size * t.size * e.size > 1 << 20:
            shape = np.broadcast_shapes(condition.shape, t.shape, e.shape)
            checkAllocation(shape, np.result_type(t, e), limit)
        result: Array = np.where(condition, t, e)
        return result

    return run


# -- CheckNumerics -------------------------------------------------------------------------
@registerKernel("CheckNumerics")
def _checkNumerics(site: KernelSite) -> Kernel:
    message = site.attr("message")

    def run(tensor: Array) -> Array:
        nan, inf = bool(np.isnan(tensor).any()), bool(np.isinf(tensor).any())
        if nan or inf:
            found = "Inf and NaN" if nan and inf else "NaN" if nan else "Inf"
            raise InvalidArgumentError(None, f"{message} : Tensor had {found} values")
        return tensor

    return run
