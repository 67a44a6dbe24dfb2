"""The numpy kernels of :mod:`tfops.spec.math_norm`."""

from __future__ import annotations

import numpy as np

from tfops.backend.numpy.registry import Array, Kernel, KernelSite, registerKernel
from tfops.spec.rules import reductionAxes


def euclideanNorm(x: Array, axes: tuple[int, ...], keep: bool) -> Array:
    """sqrt(sum(x^2)) over ``axes``, summed in ``x``'s data type; for integers the square root
    truncated towards zero."""
    with np.errstate(over="ignore", invalid="ignore"):
        squares = np.sum(np.multiply(x, x), axis=axes, keepdims=keep, dtype=x.dtype)
        if x.dtype.kind == "f":
            return np.asarray(np.sqrt(squares))
        return np.trunc(np.sqrt(squares.astype(np.float64))).astype(x.dtype)


@registerKernel("EuclideanNorm", fresh=True)
def _euclideanNorm(site: KernelSite) -> Kernel:
    keep = bool(site.attr("keep_dims"))
    return lambda x, axes: euclideanNorm(x, reductionAxes(x, axes), keep)
