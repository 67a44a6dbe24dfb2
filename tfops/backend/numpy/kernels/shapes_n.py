"""The numpy kernel of :mod:`tfops.spec.shapes_n`: ShapeN."""

from __future__ import annotations

import numpy as np

from tfops.backend.numpy.registry import Array, Kernel, KernelSite, registerKernel


@registerKernel("ShapeN", fresh=True)
def _shapeN(site: KernelSite) -> Kernel:
    dtype = site.attr("out_type").DTYPE

    def run(*inputs: Array) -> tuple[Array, ...]:
        return tuple(np.array(x.shape, dtype) for x in inputs)

    return run
