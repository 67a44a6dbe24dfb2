"""The XLA lowering of :mod:`tfops.spec.linalg_einsum` (Einsum): the numpy kernel's plan, with
JAX's einsum at the highest precision."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tfops.backend.numpy.kernels.linalg_einsum import plan
from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.spec.linalg_einsum import parseEquation


@registerLowering("Einsum")
def _einsum(site: LoweringSite, *inputs: Any) -> Any:
    p = plan(parseEquation(str(site.attr("equation"))), [tuple(x.shape) for x in inputs])
    dtype = inputs[0].dtype
    work = [x.astype(jnp.float32) for x in inputs] if dtype == np.float16 else list(inputs)
    z = jnp.einsum(p.equation, *work, precision=jax.lax.Precision.HIGHEST)
    if p.gather is not None and p.onDiagonal is not None:
        z = jnp.where(p.onDiagonal, z[p.gather], jnp.zeros((), z.dtype))
    return z.astype(dtype)
