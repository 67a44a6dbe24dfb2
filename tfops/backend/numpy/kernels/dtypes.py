"""numpy kernel of the data type ops (``tfops.spec.dtypes``): Cast."""

from __future__ import annotations

from tfops.backend.numpy.registry import Array, Kernel, KernelSite, registerKernel


@registerKernel("Cast")
def _cast(site: KernelSite) -> Kernel:
    dtype = site.attr("DstT").DTYPE

    def run(x: Array) -> Array:
        return x.astype(dtype, copy=False)  # x itself when it has the type already

    return run
