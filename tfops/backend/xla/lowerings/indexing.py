"""XLA lowerings of the indexing ops (``tfops.spec.indexing``): Transpose, InvertPermutation,
Squeeze and Tile; and the checks the other indexing lowerings share.

Every shape is static while a request is traced, so what the numpy kernels check of shapes, and
of the inputs the lowerings take as numpy values (perm, multiples), is checked here when the
request is compiled, with the kernels' messages.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.registry import LoweringSite, isStatic, registerLowering
from tfops.errors import InvalidArgumentError
from tfops.spec.indexing import normalizedPermutation


# -- helpers shared by the indexing lowerings ----------------------------------------------
def check(condition: bool, message: str) -> None:
    """Raises the numpy kernel's error when ``condition`` (known while tracing) does not hold."""
    if not condition:
        raise InvalidArgumentError(None, message)


def fail(message: str) -> Exception:
    """The error a shape helper of ``tfops.spec`` raises for ``message``."""
    return InvalidArgumentError(None, message)


def normalizeAxis(axis: int, rank: int) -> int:
    """``axis`` in ``[0, rank)``; raises when it is out of ``[-rank, rank)``."""
    check(-rank <= axis < rank, f"axis {axis} is out of range [{-rank}, {rank})")
    return axis % rank


def staticValue(site: LoweringSite, i: int, value: Any, what: str) -> np.ndarray[Any, Any]:
    """Input ``i`` (``value``) as a numpy value, for a lowering that cannot declare it static
    (its position varies with the op); raises as the engine does when it is not known."""
    if not isStatic(value):
        op = site.op
        name = op._inputs[i].name()
        raise InvalidArgumentError(
            None, f"input {i} of {op._type} ('{name}', the {what}) must be known when the "
            "request is compiled on the xla backend: a constant, a shape, or a value computed "
            "from them (XLA compiles its value in); the numpy backend takes it at run time"
        )
    return np.asarray(value)


def _isPermutation(p: list[int]) -> bool:
    return sorted(p) == list(range(len(p)))


# -- Transpose and InvertPermutation -------------------------------------------------------
@registerLowering("Transpose", static=(1,))
def _transpose(site: LoweringSite, x: Any, perm: np.ndarray[Any, Any]) -> Any:
    given = perm.tolist()
    p = normalizedPermutation(given) if perm.ndim == 1 and len(given) == x.ndim else None
    check(p is not None, f"perm {given} is not a permutation of the {x.ndim} dimensions "
          "of the input")
    assert p is not None
    return jnp.transpose(x, p)


@registerLowering("InvertPermutation")
def _invertPermutation(site: LoweringSite, x: Any) -> Any:
    if isStatic(x):  # known when the request is compiled: computed now, a static value again
        value = np.asarray(x)
        check(value.ndim == 1 and _isPermutation(value.tolist()),
              f"x {value.tolist()} is not a permutation of [0, {value.size})")
        y = np.empty_like(value)
        y[value] = np.arange(value.size, dtype=value.dtype)
        return y
    n = x.size
    check(x.ndim == 1, f"x of shape {list(x.shape)} is not a permutation of [0, {n})")
    # a permutation hits every position of [0, n) exactly once (out-of-range entries dropped)
    hits = jnp.zeros(n, jnp.int32).at[x].add(1, mode="drop")
    site.check(hits == 1, lambda v: f"x {v.tolist()} is not a permutation of [0, {n})", x)
    return jnp.zeros(n, x.dtype).at[x].set(jnp.arange(n, dtype=x.dtype), mode="drop")


# -- Squeeze -------------------------------------------------------------------------------
@registerLowering("Squeeze")
def _squeeze(site: LoweringSite, x: Any) -> Any:
    axes: tuple[int, ...] = tuple(site.attr("squeeze_dims"))
    if not axes:
        return jnp.reshape(x, tuple(d for d in x.shape if d != 1))
    squeezed = {normalizeAxis(a, x.ndim) for a in axes}
    for a in sorted(squeezed):
        check(x.shape[a] == 1, f"cannot squeeze dimension {a} of size {x.shape[a]} "
              f"(shape {list(x.shape)}): it must be 1")
    return jnp.reshape(x, tuple(d for a, d in enumerate(x.shape) if a not in squeezed))


# -- Tile ----------------------------------------------------------------------------------
@registerLowering("Tile", static=(1,))
def _tile(site: LoweringSite, x: Any, multiples: np.ndarray[Any, Any]) -> Any:
    check(multiples.shape == (x.ndim,), f"multiples {multiples.tolist()} must have one "
          f"entry per dimension of shape {list(x.shape)}")
    check(bool((multiples >= 0).all()), f"multiples must not be negative, got "
          f"{multiples.tolist()}")
    if x.ndim == 0:
        return jnp.asarray(x)
    dims = [d * m for d, m in zip(x.shape, multiples.tolist(), strict=True)]
    if 0 in dims:
        return jnp.zeros(dims, x.dtype)
    return jnp.tile(x, multiples.tolist())
