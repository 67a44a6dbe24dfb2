"""XLA lowerings of the array ops (``tfops.spec.array``): Fill, Range, OneHot, SelectV2 and
CheckNumerics.

The sizes of what Fill, Range and OneHot make are static inputs (XLA compiles shapes in); the
errors their values cause are raised while the request is traced, with the numpy kernels'
messages. CheckNumerics is a run-time check."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError
from tfops.spec.array import rangeSize

Array = np.ndarray[Any, Any]


def _requireScalar(value: Any, name: str) -> None:
    """Raises as the numpy kernels do when a (static or traced) input is not a scalar."""
    if np.ndim(value) != 0:
        raise InvalidArgumentError(
            None, f"{name} must be a scalar, got shape {list(np.shape(value))}")


def _scalar(value: Array, name: str) -> Any:
    """The element of a static scalar input."""
    _requireScalar(value, name)
    return np.asarray(value)[()]


# -- Fill ----------------------------------------------------------------------------------
@registerLowering("Fill", static=(0,))
def _fill(site: LoweringSite, dims: Array, value: Any) -> Any:
    dims = np.asarray(dims)
    if dims.ndim != 1:
        raise InvalidArgumentError(None, f"dims must be a vector, got shape {list(dims.shape)}")
    if (dims < 0).any():
        raise InvalidArgumentError(None, f"dims must be non-negative, got {dims.tolist()}")
    _requireScalar(value, "value")
    return jnp.full(tuple(int(d) for d in dims.tolist()), value, site.dtype())


# -- Range ---------------------------------------------------------------------------------
@registerLowering("Range", static=(0, 1, 2))
def _range(site: LoweringSite, start: Array, limit: Array, delta: Array) -> Any:
    dtype = site.dtype()
    first, step = _scalar(start, "start"), _scalar(delta, "delta")
    size = rangeSize(first, _scalar(limit, "limit"), step)
    # as the numpy kernel: first + arange(size) * step, each operation in the range's type
    return (first + jnp.arange(size, dtype=dtype) * step).astype(dtype)


# -- OneHot --------------------------------------------------------------------------------
@registerLowering("OneHot", static=(1,))
def _oneHot(site: LoweringSite, indices: Any, depth: Array, on: Any, off: Any) -> Any:
    axis = site.attr("axis")
    size = int(_scalar(depth, "depth"))
    if size < 0:
        raise InvalidArgumentError(None, f"depth must be non-negative, got {size}")
    rank = indices.ndim
    at = rank if axis == -1 else axis
    if at > rank:
        raise InvalidArgumentError(
            None, f"axis {axis} is out of range for indices of rank {rank}")
    _requireScalar(on, "on_value")
    _requireScalar(off, "off_value")
    positions = jnp.arange(size, dtype=np.int64).reshape((size,) + (1,) * (rank - at))
    hot = jnp.expand_dims(indices, at).astype(np.int64) == positions
    return jnp.where(hot, on, off).astype(site.dtype())


# -- SelectV2 ------------------------------------------------------------------------------
def _standIn(shape: tuple[int, ...], dtype: Any) -> Array:
    """An array of ``shape`` that allocates nothing (every element the same one)."""
    stand: Array = np.broadcast_to(np.zeros((), dtype), shape)
    return stand


@registerLowering("SelectV2")
def _select(site: LoweringSite, condition: Any, t: Any, e: Any) -> Any:
    shapes = (tuple(condition.shape), tuple(t.shape), tuple(e.shape))
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        # np.where's own message, as the numpy kernel raises it (the operands do not
        # broadcast, so nothing is allocated)
        np.where(*(_standIn(s, np.bool_) for s in shapes))
        raise
    return jnp.where(condition, t, e).astype(site.dtype())


# -- CheckNumerics -------------------------------------------------------------------------
@registerLowering("CheckNumerics")
def _checkNumerics(site: LoweringSite, tensor: Any) -> Any:
    message = site.attr("message")
    nan, inf = jnp.any(jnp.isnan(tensor)), jnp.any(jnp.isinf(tensor))
    # the first check that fails is reported: both, else the one found
    site.check(~(nan & inf), f"{message} : Tensor had Inf and NaN values")
    site.check(~nan, f"{message} : Tensor had NaN values")
    site.check(~inf, f"{message} : Tensor had Inf values")
    return tensor
