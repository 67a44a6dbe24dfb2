"""XLA lowerings of the shapes ops (``tfops.spec.shapes``): Shape, Reshape, ExpandDims,
BroadcastTo, BroadcastGradientArgs, ZerosLike and OnesLike.

Every shape is static while a request is traced, so ``Shape`` gives a numpy value, the shape
arguments of ``Reshape``, ``ExpandDims`` and ``BroadcastTo`` are static inputs, and
``BroadcastGradientArgs`` is computed with numpy on its two static shapes."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError
from tfops.spec.rules import reshapeTarget

Array = np.ndarray[Any, Any]


@registerLowering("Shape")
def _shape(site: LoweringSite, x: Any) -> Any:
    return np.array(x.shape, site.dtype())  # known when the request is compiled


# -- Reshape -------------------------------------------------------------------------------
@registerLowering("Reshape", static=(1,))
def _reshape(site: LoweringSite, x: Any, shape: Array) -> Any:
    sizes = [int(d) for d in np.asarray(shape).reshape(-1).tolist()]
    target = None
    if sizes.count(-1) <= 1 and all(d >= -1 for d in sizes):
        target = reshapeTarget(tuple(x.shape), sizes)
    if target is None:
        raise InvalidArgumentError(
            None, f"cannot reshape a tensor of shape {list(x.shape)} into {sizes}"
        )
    return jnp.reshape(x, target)


# -- ExpandDims ----------------------------------------------------------------------------
@registerLowering("ExpandDims", static=(1,))
def _expandDims(site: LoweringSite, x: Any, axis: Array) -> Any:
    # as the numpy kernel: one integer, in range; the same errors, the same messages
    if np.size(axis) != 1:
        raise InvalidArgumentError(
            None, f"axis must be a single integer, got {np.asarray(axis).tolist()}"
        )
    a = int(np.asarray(axis).reshape(-1)[0])
    (position,) = normalize_axis_tuple(a, x.ndim + 1)
    return jnp.expand_dims(x, position)


# -- BroadcastTo ---------------------------------------------------------------------------
def _broadcastable(source: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether ``np.broadcast_to`` makes an array of ``source`` into ``target``."""
    if len(source) > len(target) or any(d < 0 for d in target):
        return False
    return all(s in (t, 1) for s, t in zip(reversed(source), reversed(target), strict=False))


@registerLowering("BroadcastTo", static=(1,))
def _broadcastTo(site: LoweringSite, x: Any, shape: Array) -> Any:
    value = np.asarray(shape)
    if value.ndim != 1:  # the numpy kernel fails on it too (iterating over its sizes)
        raise InvalidArgumentError(
            None, f"shape must be a vector, got a tensor of shape {list(value.shape)}")
    target = tuple(int(d) for d in value.tolist())
    if not _broadcastable(tuple(x.shape), target):
        raise InvalidArgumentError(
            None, f"cannot broadcast shape {list(x.shape)} to {list(target)}"
        )
    return jnp.broadcast_to(x, target)


# -- BroadcastGradientArgs -----------------------------------------------------------------
@registerLowering("BroadcastGradientArgs", static=(0, 1))
def _broadcastGradientArgs(site: LoweringSite, s0: Array, s1: Array) -> tuple[Array, Array]:
    dtype = site.dtype(0)
    a, b = np.asarray(s0).tolist(), np.asarray(s1).tolist()
    if a == b:  # as TensorFlow's BCast: identical shapes need no reduction
        return np.zeros(0, dtype), np.zeros(0, dtype)
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + a
    b = [1] * (n - len(b)) + b
    r0: list[int] = []
    r1: list[int] = []
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        if x != y and x != 1 and y != 1:
            raise InvalidArgumentError(
                None, f"incompatible shapes {np.asarray(s0).tolist()} and "
                f"{np.asarray(s1).tolist()}")
        if x == 1:
            r0.append(i)
        if y == 1:
            r1.append(i)
    return np.array(r0, dtype), np.array(r1, dtype)


# -- ZerosLike and OnesLike ----------------------------------------------------------------
@registerLowering("ZerosLike")
def _zerosLike(site: LoweringSite, x: Any) -> Any:
    return jnp.zeros(x.shape, site.dtype())


@registerLowering("OnesLike")
def _onesLike(site: LoweringSite, x: Any) -> Any:
    return jnp.ones(x.shape, site.dtype())
