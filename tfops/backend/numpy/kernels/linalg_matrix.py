"""The numpy kernels of :mod:`tfops.spec.linalg_matrix`: MatrixDiagV3, MatrixDiagPartV3,
MatrixSetDiagV3 and MatrixBandPart.

The diagonal ops gather through index tables that depend only on the sizes, the band and the
alignment (:func:`placement`, :func:`extraction`); the XLA lowerings use the same tables.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfops.backend.numpy.kernels.indexing import check
from tfops.backend.numpy.registry import (
    Array,
    Kernel,
    KernelSite,
    checkAllocation,
    registerKernel,
)


# -- the index tables ------------------------------------------------------------------------
def band(k: Array) -> tuple[int, int]:
    """``(lower, upper)`` from ``k`` (a scalar, or a vector of one or two), checked."""
    check(k.ndim <= 1, f"k must be a scalar or a vector, got shape {list(k.shape)}")
    flat = k.reshape(-1)
    check(0 < flat.size <= 2, f"k must have one or two elements, got {flat.size}")
    lower, upper = int(flat[0]), int(flat[-1])
    check(lower <= upper, f"the lower diagonal {lower} must not be above the upper one {upper}")
    return lower, upper


def checkBandFits(lower: int, upper: int, rows: int, cols: int) -> None:
    """Each diagonal of the band must lie in ``rows`` by ``cols`` matrices (or be 0)."""
    for which, d in (("lower", lower), ("upper", upper)):
        check(-rows < d < cols or d == 0, f"the {which} diagonal {d} is out of range for "
              f"{rows}x{cols} matrices: it must be in ({-rows}, {cols})")


def diagonalLength(d: Any, rows: int, cols: int) -> Any:
    """The length of diagonal ``d`` of ``rows`` by ``cols`` matrices."""
    return np.minimum(rows + np.minimum(0, d), cols - np.maximum(0, d))


def _offset(d: Any, length: int, rows: int, cols: int, align: str) -> Any:
    """Where diagonal ``d``'s elements start in its stored row of ``length``."""
    superLeft = align in ("LEFT_LEFT", "LEFT_RIGHT")
    subLeft = align in ("LEFT_LEFT", "RIGHT_LEFT")
    left = ((d >= 0) & superLeft) | ((d <= 0) & subLeft)
    return np.where(left, 0, length - diagonalLength(d, rows, cols))


def placement(rows: int, cols: int, lower: int, upper: int, length: int,
              align: str) -> tuple[Array, Array, Array]:
    """For each element ``(i, j)`` of a matrix: the stored row and position of its diagonal
    element, and whether it lies in the band (outside it, the position is ``length``: a padding
    slot after the stored rows)."""
    i, j = np.indices((rows, cols))
    d = j - i
    inBand = (d >= lower) & (d <= upper)
    row = np.where(inBand, upper - d, 0)
    position = np.where(inBand, j - np.maximum(d, 0) + _offset(d, length, rows, cols, align),
                        length)
    return row, position, inBand


def extraction(rows: int, cols: int, lower: int, upper: int, length: int, align: str) -> Array:
    """For each stored row and position of the band's diagonals: the flat index of its matrix
    element, or ``rows * cols`` (a padding slot after the matrix) where it is padding."""
    d = upper - np.arange(upper - lower + 1)[:, None]
    n = np.arange(length)[None, :] - _offset(d, length, rows, cols, align)
    valid = (n >= 0) & (n < diagonalLength(d, rows, cols))
    index: Array = np.where(valid, (n + np.maximum(0, -d)) * cols + n + np.maximum(0, d),
                            rows * cols)
    return index


def bandLength(rows: int, cols: int, lower: int, upper: int) -> int:
    """The length of the longest diagonal from ``lower`` to ``upper``."""
    return max(min(rows + min(upper, 0), cols - max(lower, 0)), 0)


def diagSize(rows: int, cols: int, lower: int, upper: int, length: int) -> tuple[int, int]:
    """TensorFlow's matrix size for MatrixDiagV3, checked: -1 for both sizes gives the smallest
    square matrices, -1 for one its smallest size."""
    minRows, minCols = length - min(upper, 0), length + max(lower, 0)
    check((rows == -1 or rows >= minRows) and (cols == -1 or cols >= minCols),
          f"{rows}x{cols} matrices are too small for diagonals of length {length} from "
          f"{lower} to {upper} (at least {minRows}x{minCols})")
    if rows == -1 and cols == -1:
        rows = cols = max(minRows, minCols)
    rows, cols = (minRows if rows == -1 else rows), (minCols if cols == -1 else cols)
    check(rows == minRows or cols == minCols, f"{rows}x{cols} matrices do not fit diagonals of "
          f"length {length} from {lower} to {upper} (one of the sizes must be "
          f"{minRows}x{minCols}'s)")
    return rows, cols


def stacked(diagonal: Array, lower: int, upper: int) -> Array:
    """The diagonals as ``[..., count, length]`` (one diagonal gets its row axis), checked."""
    check(diagonal.ndim >= 1, "diagonal must have at least one dimension, got a scalar")
    count = upper - lower + 1
    if count == 1:
        return diagonal[..., None, :]
    check(diagonal.ndim >= 2 and diagonal.shape[-2] == count, f"diagonal of shape "
          f"{list(diagonal.shape)} must hold the {count} diagonals from {lower} to {upper} in "
          "its second-last dimension")
    return diagonal


def _scalar(value: Array, what: str) -> Array:
    check(value.ndim == 0, f"{what} must be a scalar, got shape {list(value.shape)}")
    return value


# -- MatrixDiagV3 ----------------------------------------------------------------------------
@registerKernel("MatrixDiagV3", fresh=True)
def _matrixDiag(site: KernelSite) -> Kernel:
    align, limit = str(site.attr("align")), site.memoryLimit

    def run(diagonal: Array, k: Array, numRows: Array, numCols: Array, padding: Array) -> Array:
        lower, upper = band(k)
        rows = int(_scalar(numRows, "num_rows"))
        cols = int(_scalar(numCols, "num_cols"))
        _scalar(padding, "padding_value")
        rowsOf = stacked(diagonal, lower, upper)
        length = rowsOf.shape[-1]
        rows, cols = diagSize(rows, cols, lower, upper, length)
        checkAllocation([*rowsOf.shape[:-2], rows, cols], diagonal.dtype, limit)
        slot = np.broadcast_to(padding, (*rowsOf.shape[:-1], 1))
        padded = np.concatenate([rowsOf, slot], axis=-1)
        row, position, _ = placement(rows, cols, lower, upper, length, align)
        result: Array = padded[..., row, position]
        return result

    return run


# -- MatrixDiagPartV3 ------------------------------------------------------------------------
@registerKernel("MatrixDiagPartV3", fresh=True)
def _matrixDiagPart(site: KernelSite) -> Kernel:
    align = str(site.attr("align"))

    def run(x: Array, k: Array, padding: Array) -> Array:
        lower, upper = band(k)
        _scalar(padding, "padding_value")
        check(x.ndim >= 2, f"input must have at least two dimensions, got shape {list(x.shape)}")
        rows, cols = x.shape[-2], x.shape[-1]
        checkBandFits(lower, upper, rows, cols)
        length = bandLength(rows, cols, lower, upper)
        flat = x.reshape((*x.shape[:-2], rows * cols))
        padded = np.concatenate([flat, np.broadcast_to(padding, (*x.shape[:-2], 1))], axis=-1)
        result: Array = padded[..., extraction(rows, cols, lower, upper, length, align)]
        return result[..., 0, :] if lower == upper else result

    return run


# -- MatrixSetDiagV3 -------------------------------------------------------------------------
@registerKernel("MatrixSetDiagV3", fresh=True)
def _matrixSetDiag(site: KernelSite) -> Kernel:
    align = str(site.attr("align"))

    def run(x: Array, diagonal: Array, k: Array) -> Array:
        lower, upper = band(k)
        check(x.ndim >= 2, f"input must have at least two dimensions, got shape {list(x.shape)}")
        rows, cols = x.shape[-2], x.shape[-1]
        checkBandFits(lower, upper, rows, cols)
        length = bandLength(rows, cols, lower, upper)
        count = [upper - lower + 1] if upper > lower else []
        expected = [*x.shape[:-2], *count, length]
        check(list(diagonal.shape) == expected, f"diagonal of shape {list(diagonal.shape)} "
              f"does not match the diagonals {lower} to {upper} of input of shape "
              f"{list(x.shape)} (expected {expected})")
        rowsOf = stacked(diagonal, lower, upper)
        padded = np.concatenate([rowsOf, np.zeros((*rowsOf.shape[:-1], 1), x.dtype)], axis=-1)
        row, position, inBand = placement(rows, cols, lower, upper, length, align)
        result: Array = np.where(inBand, padded[..., row, position], x)
        return result

    return run


# -- MatrixBandPart --------------------------------------------------------------------------
def bandBounds(x: Array, numLower: Array, numUpper: Array) -> tuple[int, int]:
    """The bounds, checked as TensorFlow's kernel does."""
    check(x.ndim >= 2, f"input must have at least two dimensions, got shape {list(x.shape)}")
    lower, upper = int(_scalar(numLower, "num_lower")), int(_scalar(numUpper, "num_upper"))
    check(lower <= x.shape[-2], f"num_lower must be negative or at most the number of rows "
          f"({x.shape[-2]}), got {lower}")
    check(upper <= x.shape[-1], f"num_upper must be negative or at most the number of columns "
          f"({x.shape[-1]}), got {upper}")
    return lower, upper


@registerKernel("MatrixBandPart", fresh=True)
def _bandPart(site: KernelSite) -> Kernel:
    def run(x: Array, numLower: Array, numUpper: Array) -> Array:
        lower, upper = bandBounds(x, numLower, numUpper)
        i, j = np.indices(x.shape[-2:])
        keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
        result: Array = np.where(keep, x, np.zeros((), x.dtype))
        return result

    return run
