"""The XLA lowerings of :mod:`tfops.spec.linalg_factor`: Cholesky and Qr."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from tfops.backend.xla.lowerings.linalg_solve import checkMatrices, working
from tfops.backend.xla.registry import LoweringSite, registerLowering


@registerLowering("Cholesky")
def _cholesky(site: LoweringSite, x: Any) -> Any:
    checkMatrices(x, "input", square=True)
    if x.size == 0:
        return jnp.zeros(x.shape, site.dtype())
    # the lower triangle only is read; a matrix that is not positive definite comes back NaN,
    # and its upper triangle is made zero as the numpy kernel's
    factor = jax.lax.linalg.cholesky(x, symmetrize_input=False)
    n = x.shape[-1]
    return jnp.where(jnp.tril(jnp.ones((n, n), bool)), factor, jnp.zeros((), x.dtype))


@registerLowering("Qr")
def _qr(site: LoweringSite, x: Any) -> Any:
    checkMatrices(x, "input", square=False)
    mode = "complete" if site.attr("full_matrices") else "reduced"
    q, r = jnp.linalg.qr(working(x), mode=mode)
    return q.astype(site.dtype(0)), r.astype(site.dtype(1))
