"""The XLA lowerings of :mod:`tfops.spec.linalg_matrix`.

The diagonal ops take ``k`` (and MatrixDiagV3 its sizes) static, and gather through the numpy
kernels' index tables, built when the request is compiled; MatrixBandPart's bounds may be
values, checked when the request runs.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.numpy.kernels.linalg_matrix import (
    band,
    bandLength,
    checkBandFits,
    diagSize,
    extraction,
    placement,
)
from tfops.backend.xla.lowerings.indexing import check
from tfops.backend.xla.registry import LoweringSite, isStatic, registerLowering


def _scalar(value: Any, what: str) -> Any:
    check(np.ndim(value) == 0, f"{what} must be a scalar, got shape {list(np.shape(value))}")
    return value


def _stacked(diagonal: Any, lower: int, upper: int) -> Any:
    check(diagonal.ndim >= 1, "diagonal must have at least one dimension, got a scalar")
    count = upper - lower + 1
    if count == 1:
        return diagonal[..., None, :]
    check(diagonal.ndim >= 2 and diagonal.shape[-2] == count, f"diagonal of shape "
          f"{list(diagonal.shape)} must hold the {count} diagonals from {lower} to {upper} in "
          "its second-last dimension")
    return diagonal


@registerLowering("MatrixDiagV3", static=(1, 2, 3))
def _matrixDiag(site: LoweringSite, diagonal: Any, k: Any, numRows: Any, numCols: Any,
                padding: Any) -> Any:
    lower, upper = band(np.asarray(k))
    rows = int(_scalar(numRows, "num_rows"))
    cols = int(_scalar(numCols, "num_cols"))
    _scalar(padding, "padding_value")
    rowsOf = _stacked(diagonal, lower, upper)
    length = int(rowsOf.shape[-1])
    rows, cols = diagSize(rows, cols, lower, upper, length)
    slot = jnp.broadcast_to(jnp.asarray(padding, diagonal.dtype), (*rowsOf.shape[:-1], 1))
    padded = jnp.concatenate([rowsOf, slot], axis=-1)
    row, position, _ = placement(rows, cols, lower, upper, length, str(site.attr("align")))
    return padded[..., row, position]


@registerLowering("MatrixDiagPartV3", static=(1,))
def _matrixDiagPart(site: LoweringSite, x: Any, k: Any, padding: Any) -> Any:
    lower, upper = band(np.asarray(k))
    _scalar(padding, "padding_value")
    check(x.ndim >= 2, f"input must have at least two dimensions, got shape {list(x.shape)}")
    rows, cols = int(x.shape[-2]), int(x.shape[-1])
    checkBandFits(lower, upper, rows, cols)
    length = bandLength(rows, cols, lower, upper)
    flat = jnp.reshape(x, (*x.shape[:-2], rows * cols))
    slot = jnp.broadcast_to(jnp.asarray(padding, x.dtype), (*x.shape[:-2], 1))
    padded = jnp.concatenate([flat, slot], axis=-1)
    result = padded[..., extraction(rows, cols, lower, upper, length, str(site.attr("align")))]
    return result[..., 0, :] if lower == upper else result


@registerLowering("MatrixSetDiagV3", static=(2,))
def _matrixSetDiag(site: LoweringSite, x: Any, diagonal: Any, k: Any) -> Any:
    lower, upper = band(np.asarray(k))
    check(x.ndim >= 2, f"input must have at least two dimensions, got shape {list(x.shape)}")
    rows, cols = int(x.shape[-2]), int(x.shape[-1])
    checkBandFits(lower, upper, rows, cols)
    length = bandLength(rows, cols, lower, upper)
    count = [upper - lower + 1] if upper > lower else []
    expected = [*x.shape[:-2], *count, length]
    check(list(diagonal.shape) == expected, f"diagonal of shape {list(diagonal.shape)} does "
          f"not match the diagonals {lower} to {upper} of input of shape {list(x.shape)} "
          f"(expected {expected})")
    rowsOf = _stacked(diagonal, lower, upper)
    padded = jnp.concatenate([rowsOf, jnp.zeros((*rowsOf.shape[:-1], 1), x.dtype)], axis=-1)
    row, position, inBand = placement(rows, cols, lower, upper, length, str(site.attr("align")))
    return jnp.where(inBand, padded[..., row, position], x)


@registerLowering("MatrixBandPart")
def _bandPart(site: LoweringSite, x: Any, numLower: Any, numUpper: Any) -> Any:
    check(x.ndim >= 2, f"input must have at least two dimensions, got shape {list(x.shape)}")
    _scalar(numLower, "num_lower")
    _scalar(numUpper, "num_upper")
    rows, cols = int(x.shape[-2]), int(x.shape[-1])
    for bound, size, what, which in ((numLower, rows, "num_lower", "rows"),
                                     (numUpper, cols, "num_upper", "columns")):
        prefix = f"{what} must be negative or at most the number of {which} ({size}), got "
        if isStatic(bound):
            check(int(bound) <= size, f"{prefix}{int(bound)}")
        else:
            site.check(bound <= size, lambda value, p=prefix: f"{p}{int(value)}", bound)
    i, j = np.indices((rows, cols))
    lower, upper = jnp.asarray(numLower), jnp.asarray(numUpper)
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return jnp.where(keep, x, jnp.zeros((), x.dtype))
