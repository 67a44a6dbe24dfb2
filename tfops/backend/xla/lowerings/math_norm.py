"""The XLA lowerings of :mod:`tfops.spec.math_norm`."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.lowerings.core import axesOf
from tfops.backend.xla.registry import LoweringSite, registerLowering


@registerLowering("EuclideanNorm", static=(1,))
def _euclideanNorm(site: LoweringSite, x: Any, axes: Any) -> Any:
    """As the numpy kernel: the squares summed in ``x``'s data type, for integers the square
    root truncated towards zero."""
    keep = bool(site.attr("keep_dims"))
    squares = jnp.sum(x * x, axis=axesOf(site, x), keepdims=keep, dtype=x.dtype)
    if np.dtype(x.dtype).kind == "f":
        return jnp.sqrt(squares)
    return jnp.trunc(jnp.sqrt(squares.astype(np.float64))).astype(x.dtype)
