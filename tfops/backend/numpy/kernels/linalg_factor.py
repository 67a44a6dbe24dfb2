"""The numpy kernels of :mod:`tfops.spec.linalg_factor`: Cholesky and Qr."""

from __future__ import annotations

import numpy as np

from tfops.backend.numpy.kernels.linalg_solve import checkMatrices, working
from tfops.backend.numpy.registry import Array, Kernel, KernelSite, registerKernel


def choleskyOrNan(a: Array) -> Array:
    """The Cholesky factors of the batch ``a`` by Eigen's column by column algorithm (reading
    the lower triangle), the lower triangle NaN where a matrix is not positive definite."""
    n = a.shape[-1]
    flat = a.reshape(-1, n, n)
    factor = np.zeros_like(flat)
    failed = np.zeros(flat.shape[0], bool)
    for k in range(n):
        row = factor[:, k, :k]
        rest = flat[:, k, k] - np.sum(row * row, axis=-1)
        failed |= rest <= 0
        diagonal = np.sqrt(np.where(rest <= 0, 1, rest))
        factor[:, k, k] = diagonal
        below = flat[:, k + 1:, k] - np.matmul(factor[:, k + 1:, :k], row[:, :, None])[..., 0]
        factor[:, k + 1:, k] = below / diagonal[:, None]
    lowerTriangle = np.tril(np.ones((n, n), bool))
    result = np.asarray(np.where(failed[:, None, None] & lowerTriangle, np.nan, factor))
    factors: Array = result.reshape(a.shape).astype(a.dtype)
    return factors


@registerKernel("Cholesky", fresh=True)
def _cholesky(site: KernelSite) -> Kernel:
    def run(x: Array) -> Array:
        checkMatrices(x, "input", square=True)
        if x.size == 0:
            return np.zeros(x.shape, x.dtype)
        try:
            return np.linalg.cholesky(x).astype(x.dtype)
        except np.linalg.LinAlgError:  # a matrix is not positive definite: NaN for it only
            return choleskyOrNan(x)

    return run


@registerKernel("Qr", fresh=True)
def _qr(site: KernelSite) -> Kernel:
    full = bool(site.attr("full_matrices"))

    def run(x: Array) -> tuple[Array, Array]:
        checkMatrices(x, "input", square=False)
        q, r = np.linalg.qr(working(x), mode="complete" if full else "reduced")
        return q.astype(x.dtype), r.astype(x.dtype)

    return run
