"""numpy kernels of the linear algebra ops (``tfops.spec.linalg``): MatMul and BatchMatMulV2."""

from __future__ import annotations

import numpy as np

from tfops.backend.numpy.registry import (
    Array,
    Kernel,
    KernelSite,
    checkAllocation,
    registerKernel,
)
from tfops.errors import InvalidArgumentError


def _product(x: Array, y: Array) -> Array:
    """``x @ y`` in the inputs' dtype; half precision accumulates in float32, as TF's CPU does."""
    if x.dtype == np.float16:
        wide: Array = np.matmul(x.astype(np.float32), y.astype(np.float32))
        return wide.astype(np.float16)
    result: Array = np.matmul(x, y)
    return result


@registerKernel("MatMul", fresh=True)
def _matMul(site: KernelSite) -> Kernel:
    ta, tb = site.attr("transpose_a"), site.attr("transpose_b")
    limit = site.memoryLimit

    def run(a: Array, b: Array) -> Array:
        if a.ndim != 2 or b.ndim != 2:
            raise InvalidArgumentError(
                None, f"inputs must be matrices, got shapes {list(a.shape)} and {list(b.shape)}"
            )
        x, y = (a.T if ta else a), (b.T if tb else b)
        if x.shape[1] != y.shape[0]:
            raise InvalidArgumentError(
                None, f"matrix size-incompatible: a {list(a.shape)} (transpose_a={ta}), "
                f"b {list(b.shape)} (transpose_b={tb})"
            )
        checkAllocation([x.shape[0], y.shape[1]], np.result_type(a, b), limit)
        return _product(x, y)

    return run


@registerKernel("BatchMatMulV2", fresh=True)
def _batchMatMul(site: KernelSite) -> Kernel:
    adjX, adjY = site.attr("adj_x"), site.attr("adj_y")
    limit = site.memoryLimit

    def run(x: Array, y: Array) -> Array:
        if x.ndim < 2 or y.ndim < 2:
            raise InvalidArgumentError(
                None, f"inputs must have rank 2 or more, got shapes {list(x.shape)} and "
                f"{list(y.shape)}"
            )
        a = np.swapaxes(x, -1, -2) if adjX else x
        b = np.swapaxes(y, -1, -2) if adjY else y
        if a.shape[-1] != b.shape[-2]:
            raise InvalidArgumentError(
                None, f"inner dimensions differ: x {list(x.shape)} (adj_x={adjX}), "
                f"y {list(y.shape)} (adj_y={adjY})"
            )
        try:
            batch = np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
        except ValueError:
            raise InvalidArgumentError(
                None, f"batch dimensions of x {list(x.shape)} and y {list(y.shape)} do not "
                "broadcast"
            ) from None
        checkAllocation([*batch, a.shape[-2], b.shape[-1]], np.result_type(x, y), limit)
        return _product(a, b)

    return run
