"""The numpy kernels of :mod:`tfops.spec.linalg_solve`: MatrixInverse, MatrixDeterminant,
MatrixSolve, MatrixTriangularSolve.

The determinant follows TensorFlow's CPU kernel (Eigen's LU with partial pivoting, the pivots'
product negated per row exchange) with an elimination of our own, vectorized over the batch and
looping over the columns: LAPACK's recursive LU rounds differently, and numpy gives no pivots.
The triangular solve is a substitution over the rows, vectorized the same way: numpy has none,
and a zero on the diagonal must give infinities, not an error.
"""

from __future__ import annotations

import numpy as np

from tfops.backend.numpy.registry import Array, Kernel, KernelSite, registerKernel
from tfops.errors import InvalidArgumentError


def checkMatrices(x: Array, name: str, square: bool) -> None:
    """Raises ``InvalidArgumentError`` unless ``x`` is a batch of (square) matrices."""
    if x.ndim < 2:
        raise InvalidArgumentError(
            None, f"input '{name}' must have rank 2 or more, got shape {list(x.shape)}"
        )
    if square and x.shape[-1] != x.shape[-2]:
        raise InvalidArgumentError(
            None, f"input '{name}' must be a batch of square matrices, got shape "
            f"{list(x.shape)}"
        )


def firstPivotIsNan(a: Array) -> bool:
    """Whether a matrix of ``a`` starts with NaN: its first pivot is NaN then (partial pivoting
    keeps a NaN it starts from), and TensorFlow's kernels, which take the smallest absolute pivot
    as Eigen does, from the first on, find the matrix not invertible. (A NaN pivot further on
    does not stay the minimum; LAPACK, under numpy, fails only on a pivot of zero.)"""
    return bool(a.shape[-1]) and bool(np.isnan(a[..., 0, 0]).any())


def working(x: Array) -> Array:
    """``x`` in the precision it is computed in: half precision in single precision."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def adjointed(x: Array, adjoint: bool) -> Array:
    return np.swapaxes(x, -1, -2) if adjoint else x


@registerKernel("MatrixInverse", fresh=True)
def _matrixInverse(site: KernelSite) -> Kernel:
    adjoint = bool(site.attr("adjoint"))

    def run(x: Array) -> Array:
        checkMatrices(x, "input", square=True)
        if firstPivotIsNan(x):
            raise InvalidArgumentError(None, "Input is not invertible.")
        try:
            inverse = np.linalg.inv(working(adjointed(x, adjoint)))
        except np.linalg.LinAlgError:
            raise InvalidArgumentError(None, "Input is not invertible.") from None
        return inverse.astype(x.dtype)

    return run


def determinants(a: Array) -> Array:
    """The determinants of the batch of square matrices ``a``, by Eigen's elimination."""
    n = a.shape[-1]
    if n == 0:  # the determinant of an empty matrix is 1
        return np.ones(a.shape[:-2], a.dtype)
    lu = a.reshape(-1, n, n).copy()
    which = np.arange(lu.shape[0])
    sign = np.ones(lu.shape[0], a.dtype)
    for k in range(n):
        pivotRow = np.argmax(np.abs(lu[:, k:, k]), axis=-1) + k
        rowK = lu[which, k].copy()
        lu[which, k] = lu[which, pivotRow]
        lu[which, pivotRow] = rowK
        sign[pivotRow != k] *= -1
        pivot = lu[:, k, k]
        # an all-zero column (pivot 0) is left as it is, as Eigen does
        lu[:, k + 1:, k] /= np.where(pivot == 0, 1, pivot)[:, None]
        lu[:, k + 1:, k + 1:] -= lu[:, k + 1:, k, None] * lu[:, k, None, k + 1:]
    product = np.asarray(sign * np.prod(np.diagonal(lu, axis1=-2, axis2=-1), axis=-1))
    determinant: Array = product.reshape(a.shape[:-2]).astype(a.dtype)
    return determinant


@registerKernel("MatrixDeterminant", fresh=True)
def _matrixDeterminant(site: KernelSite) -> Kernel:
    def run(x: Array) -> Array:
        checkMatrices(x, "input", square=True)
        return determinants(x)

    return run


@registerKernel("MatrixSolve", fresh=True)
def _matrixSolve(site: KernelSite) -> Kernel:
    adjoint = bool(site.attr("adjoint"))

    def run(a: Array, b: Array) -> Array:
        checkMatrices(a, "matrix", square=True)
        checkMatrices(b, "rhs", square=False)
        if a.ndim != b.ndim:
            raise InvalidArgumentError(
                None, f"All input tensors must have the same rank: matrix {list(a.shape)}, "
                f"rhs {list(b.shape)}"
            )
        if a.shape[:-1] != b.shape[:-1]:
            raise InvalidArgumentError(
                None, f"Input matrix and rhs are incompatible: matrix {list(a.shape)}, "
                f"rhs {list(b.shape)}"
            )
        if a.size == 0 or b.size == 0:
            return np.zeros(b.shape, b.dtype)
        if firstPivotIsNan(a):
            raise InvalidArgumentError(None, "Input matrix is not invertible.")
        try:
            return np.linalg.solve(adjointed(a, adjoint), b).astype(b.dtype)
        except np.linalg.LinAlgError:
            raise InvalidArgumentError(None, "Input matrix is not invertible.") from None

    return run


def triangularSolve(a: Array, b: Array, lower: bool) -> Array:
    """Solves ``a x = b`` reading the lower (upper) triangle of ``a`` only, by substitution;
    the batch dimensions of ``a`` and ``b`` match."""
    m = a.shape[-1]
    x = np.empty(b.shape, b.dtype)
    for i in range(m) if lower else range(m - 1, -1, -1):
        known = slice(0, i) if lower else slice(i + 1, m)
        done = np.matmul(a[..., i, None, known], x[..., known, :])[..., 0, :]
        x[..., i, :] = (b[..., i, :] - done) / a[..., i, i, None]
    return x


@registerKernel("MatrixTriangularSolve", fresh=True)
def _matrixTriangularSolve(site: KernelSite) -> Kernel:
    adjoint, lower = bool(site.attr("adjoint")), bool(site.attr("lower"))

    def run(a: Array, b: Array) -> Array:
        checkMatrices(a, "matrix", square=True)
        checkMatrices(b, "rhs", square=False)
        if a.shape[-1] != b.shape[-2]:
            raise InvalidArgumentError(
                None, f"Input matrix and rhs are incompatible: matrix {list(a.shape)}, "
                f"rhs {list(b.shape)}"
            )
        try:
            batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        except ValueError:
            raise InvalidArgumentError(
                None, f"batch dimensions of matrix {list(a.shape)} and rhs {list(b.shape)} do "
                "not broadcast"
            ) from None
        matrix = np.broadcast_to(adjointed(a, adjoint), (*batch, *a.shape[-2:]))
        rhs = np.broadcast_to(b, (*batch, *b.shape[-2:]))
        return triangularSolve(matrix, rhs, lower != adjoint)

    return run
