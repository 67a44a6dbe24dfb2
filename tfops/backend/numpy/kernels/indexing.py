"""numpy kernels of the ops that rearrange dimensions (``tfops.spec.indexing``): Transpose,
InvertPermutation, Squeeze and Tile; and the run-time checks the other indexing kernels share."""

from __future__ import annotations

import numpy as np

from tfops.backend.numpy.registry import (
    Array,
    Kernel,
    KernelSite,
    checkAllocation,
    registerKernel,
)
from tfops.errors import InvalidArgumentError
from tfops.spec.indexing import normalizedPermutation


# -- helpers shared by the indexing kernels ------------------------------------------------
def check(condition: bool, message: str) -> None:
    """Raises the run-time error of a kernel when ``condition`` does not hold."""
    if not condition:
        raise InvalidArgumentError(None, message)


def normalizeAxis(axis: int, rank: int) -> int:
    """``axis`` in ``[0, rank)``; raises when it is out of ``[-rank, rank)``."""
    check(-rank <= axis < rank, f"axis {axis} is out of range [{-rank}, {rank})")
    return axis % rank


def _isPermutation(p: list[int]) -> bool:
    return sorted(p) == list(range(len(p)))


# -- Transpose and InvertPermutation -------------------------------------------------------
@registerKernel("Transpose")  # a view of the input
def _transpose(site: KernelSite) -> Kernel:
    def run(x: Array, perm: Array) -> Array:
        given = perm.tolist()
        p = normalizedPermutation(given) if perm.ndim == 1 and len(given) == x.ndim else None
        check(p is not None, f"perm {given} is not a permutation of the {x.ndim} dimensions "
              "of the input")
        assert p is not None
        return np.transpose(x, p)

    return run


@registerKernel("InvertPermutation", fresh=True)
def _invertPermutation(site: KernelSite) -> Kernel:
    def run(x: Array) -> Array:
        check(x.ndim == 1 and _isPermutation(x.tolist()),
              f"x {x.tolist()} is not a permutation of [0, {x.size})")
        y = np.empty_like(x)
        y[x] = np.arange(x.size, dtype=x.dtype)
        return y

    return run


# -- Squeeze -------------------------------------------------------------------------------
@registerKernel("Squeeze")  # a view of the input
def _squeeze(site: KernelSite) -> Kernel:
    axes: tuple[int, ...] = tuple(site.attr("squeeze_dims"))

    def run(x: Array) -> Array:
        if not axes:
            return np.squeeze(x)
        squeezed = {normalizeAxis(a, x.ndim) for a in axes}
        for a in sorted(squeezed):
            check(x.shape[a] == 1, f"cannot squeeze dimension {a} of size {x.shape[a]} "
                  f"(shape {list(x.shape)}): it must be 1")
        return np.squeeze(x, axis=tuple(squeezed))

    return run


# -- Tile ----------------------------------------------------------------------------------
@registerKernel("Tile", fresh=True)
def _tile(site: KernelSite) -> Kernel:
    limit = site.memoryLimit

    def run(x: Array, multiples: Array) -> Array:
        check(multiples.shape == (x.ndim,), f"multiples {multiples.tolist()} must have one "
              f"entry per dimension of shape {list(x.shape)}")
        check(bool((multiples >= 0).all()), f"multiples must not be negative, got "
              f"{multiples.tolist()}")
        dims = [d * m for d, m in zip(x.shape, multiples.tolist(), strict=True)]
        checkAllocation(dims, x.dtype, limit)
        result: Array
        if x.ndim == 0:
            result = x.copy()
        elif 0 in dims:  # np.tile returns a view of an empty input: the result is new memory
            result = np.empty(dims, x.dtype)
        else:
            result = np.tile(x, multiples.tolist())
        return result

    return run
