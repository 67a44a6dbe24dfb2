"""The XLA lowerings of :mod:`tfops.spec.linalg_solve`: MatrixInverse, MatrixDeterminant,
MatrixSolve, MatrixTriangularSolve.

Inverses, solutions and determinants come from one LU decomposition with partial pivoting
(``jax.lax.linalg.lu``). The run fails where TensorFlow's kernels fail it
(:func:`invertible`). Half precision is computed in single precision."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError


def checkMatrices(x: Any, name: str, square: bool) -> None:
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


def working(x: Any) -> Any:
    """``x`` in the precision it is computed in: half precision in single precision."""
    return x.astype(jnp.float32) if x.dtype == jnp.float16 else x


def adjointed(x: Any, adjoint: bool) -> Any:
    return jnp.swapaxes(x, -1, -2) if adjoint else x


def invertible(a: Any, lu: Any) -> Any:
    """Whether TensorFlow's CPU kernels take every matrix of ``a`` (with its LU factors ``lu``)
    as invertible: the smallest absolute pivot is above zero, the minimum as Eigen takes it,
    from the first pivot on, so that a NaN there (and only there) stays the minimum. The first
    pivot is NaN exactly when ``a[0, 0]`` is (partial pivoting keeps a NaN it starts from), which
    is read from ``a``: a GPU's LU may pivot past a NaN where a CPU's does not."""
    pivots = jnp.diagonal(lu, axis1=-2, axis2=-1)
    return jnp.all(pivots != 0) & ~jnp.any(jnp.isnan(a[..., 0, 0]))


def _luSolve(site: LoweringSite, a: Any, b: Any, message: str) -> Any:
    """Solves ``a x = b`` (equal batch dimensions), failing where TensorFlow's kernels do."""
    if a.shape[-1] == 0 or 0 in b.shape:
        return jnp.zeros(b.shape, b.dtype)
    lu, _, permutation = jax.lax.linalg.lu(a)
    site.check(invertible(a, lu), message)
    rows = jnp.broadcast_to(permutation[..., None], b.shape)
    permuted = jnp.take_along_axis(b, rows, axis=-2)
    y = jax.lax.linalg.triangular_solve(lu, permuted, left_side=True, lower=True,
                                        unit_diagonal=True)
    return jax.lax.linalg.triangular_solve(lu, y, left_side=True, lower=False)


@registerLowering("MatrixInverse")
def _matrixInverse(site: LoweringSite, x: Any) -> Any:
    checkMatrices(x, "input", square=True)
    a = working(adjointed(x, bool(site.attr("adjoint"))))
    identity = jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    return _luSolve(site, a, identity, "Input is not invertible.").astype(site.dtype())


@registerLowering("MatrixDeterminant")
def _matrixDeterminant(site: LoweringSite, x: Any) -> Any:
    checkMatrices(x, "input", square=True)
    n = x.shape[-1]
    if n == 0 or x.size == 0:
        return jnp.ones(x.shape[:-2], site.dtype())
    lu, pivots, _ = jax.lax.linalg.lu(x)
    exchanges = jnp.sum(pivots != jnp.arange(n, dtype=pivots.dtype), axis=-1)
    sign = jnp.where(exchanges % 2 == 1, -1, 1).astype(x.dtype)
    return sign * jnp.prod(jnp.diagonal(lu, axis1=-2, axis2=-1), axis=-1)


@registerLowering("MatrixSolve")
def _matrixSolve(site: LoweringSite, a: Any, b: Any) -> Any:
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
    matrix = adjointed(a, bool(site.attr("adjoint")))
    return _luSolve(site, matrix, b, "Input matrix is not invertible.").astype(site.dtype())


@registerLowering("MatrixTriangularSolve")
def _matrixTriangularSolve(site: LoweringSite, a: Any, b: Any) -> Any:
    checkMatrices(a, "matrix", square=True)
    checkMatrices(b, "rhs", square=False)
    if a.shape[-1] != b.shape[-2]:
        raise InvalidArgumentError(
            None, f"Input matrix and rhs are incompatible: matrix {list(a.shape)}, "
            f"rhs {list(b.shape)}"
        )
    try:
        batch = np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    except ValueError:
        raise InvalidArgumentError(
            None, f"batch dimensions of matrix {list(a.shape)} and rhs {list(b.shape)} do not "
            "broadcast"
        ) from None
    if 0 in b.shape or 0 in batch:
        return jnp.zeros((*batch, *b.shape[-2:]), site.dtype())
    matrix = jnp.broadcast_to(a, (*batch, *a.shape[-2:]))
    rhs = jnp.broadcast_to(b, (*batch, *b.shape[-2:]))
    return jax.lax.linalg.triangular_solve(matrix, rhs, left_side=True,
                                           lower=bool(site.attr("lower")),
                                           transpose_a=bool(site.attr("adjoint")))
