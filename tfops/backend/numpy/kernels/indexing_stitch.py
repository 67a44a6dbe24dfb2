"""numpy kernels of the ops that interleave rows by index (``tfops.spec.indexing_stitch``):
DynamicStitch and ParallelDynamicStitch."""

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
from tfops.spec.indexing_stitch import stitchRows, stitchSize


def _stitch(site: KernelSite) -> Kernel:
    limit = site.memoryLimit

    def run(*inputs: Array) -> Array:
        n = len(inputs) // 2
        indices, data = inputs[:n], inputs[n:]
        try:
            size, inner = stitchSize(indices, [d.shape for d in data])
        except ValueError as e:
            check(False, str(e))
            raise
        dtype = data[0].dtype
        checkAllocation([size, *inner], dtype, limit)
        checkAllocation([size], np.intp, limit, "the row plan")  # one entry per merged row
        rows = stitchRows(indices, size)
        # every data row end to end, then a row of zeros for the merged rows no index names
        flat = np.concatenate(
            [np.reshape(d, (i.size, *inner)) for i, d in zip(indices, data, strict=True)]
            + [np.zeros((1, *inner), dtype)]
        )
        merged: Array = flat[rows]
        return merged

    return run


registerKernel("DynamicStitch", _stitch, fresh=True)  # advanced indexing copies
registerKernel("ParallelDynamicStitch", _stitch, fresh=True)
