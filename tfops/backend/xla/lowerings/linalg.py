"""XLA lowerings of the linalg ops (``tfops.spec.linalg``): MatMul and BatchMatMulV2.

Products are computed at the highest precision (float32 products as float32, not in reduced
precision as accelerators may by default), and half precision accumulates in float32, as the
numpy kernels (and TensorFlow's CPU kernels) do."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError


def _product(site: LoweringSite, x: Any, y: Any) -> Any:
    """``x @ y`` (batch dimensions broadcast) in the output's data type."""
    dtype = site.dtype()
    wide = np.dtype(np.float32) if dtype == np.float16 else dtype
    result = jnp.matmul(x, y, precision=jax.lax.Precision.HIGHEST,
                        preferred_element_type=wide)
    return result.astype(dtype)


@registerLowering("MatMul")
def _matMul(site: LoweringSite, a: Any, b: Any) -> Any:
    ta, tb = site.attr("transpose_a"), site.attr("transpose_b")
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
    return _product(site, x, y)


@registerLowering("BatchMatMulV2")
def _batchMatMul(site: LoweringSite, x: Any, y: Any) -> Any:
    adjX, adjY = site.attr("adj_x"), site.attr("adj_y")
    if x.ndim < 2 or y.ndim < 2:
        raise InvalidArgumentError(
            None, f"inputs must have rank 2 or more, got shapes {list(x.shape)} and "
            f"{list(y.shape)}"
        )
    a = jnp.swapaxes(x, -1, -2) if adjX else x  # real types only: the adjoint is the transpose
    b = jnp.swapaxes(y, -1, -2) if adjY else y
    if a.shape[-1] != b.shape[-2]:
        raise InvalidArgumentError(
            None, f"inner dimensions differ: x {list(x.shape)} (adj_x={adjX}), "
            f"y {list(y.shape)} (adj_y={adjY})"
        )
    try:
        np.broadcast_shapes(tuple(x.shape[:-2]), tuple(y.shape[:-2]))
    except ValueError:
        raise InvalidArgumentError(
            None, f"batch dimensions of x {list(x.shape)} and y {list(y.shape)} do not "
            "broadcast"
        ) from None
    return _product(site, a, b)
