"""numpy kernels of the shape ops (``tfops.spec.shapes``): Shape, Reshape, ExpandDims,
BroadcastTo, BroadcastGradientArgs, ZerosLike and OnesLike."""

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
from tfops.shape import Shape
from tfops.spec.rules import reshapeTarget


def _constant(site: KernelSite, i: int) -> Array | None:
    """The value of input ``i`` when the plan knows it before running."""
    return site.constants[i] if i < len(site.constants) else None


def _shape(site: KernelSite, i: int) -> Shape:
    """The static shape of input ``i`` (unknown when the site does not say)."""
    return site.shapes[i] if i < len(site.shapes) else Shape.unknown()


@registerKernel("Shape", fresh=True)
def _shapeKernel(site: KernelSite) -> Kernel:
    dtype = site.attr("out_type").DTYPE
    return lambda x: np.array(x.shape, dtype)


# -- Reshape -------------------------------------------------------------------------------
@registerKernel("Reshape")
def _reshape(site: KernelSite) -> Kernel:
    # A constant shape for a statically known input: the target is computed once.
    sizesValue, source = _constant(site, 1), _shape(site, 0)
    if sizesValue is not None and source.isFullyKnown():
        sizes = [int(d) for d in np.asarray(sizesValue).reshape(-1).tolist()]
        if sizes.count(-1) <= 1 and all(d >= -1 for d in sizes):
            target = reshapeTarget(source.asArray() or (), sizes)
            if target is not None:
                return lambda x, _: np.reshape(x, target)

    def run(x: Array, shape: Array) -> Array:
        sizes = [int(d) for d in shape.reshape(-1).tolist()]
        result = None
        if sizes.count(-1) <= 1 and all(d >= -1 for d in sizes):
            result = reshapeTarget(x.shape, sizes)
        if result is None:
            raise InvalidArgumentError(
                None, f"cannot reshape a tensor of shape {list(x.shape)} into {sizes}"
            )
        return np.reshape(x, result)

    return run


# -- ExpandDims ----------------------------------------------------------------------------
@registerKernel("ExpandDims")
def _expandDims(site: KernelSite) -> Kernel:
    # A constant axis of an input of known rank is one index with a new axis, made once.
    axisValue, rank = _constant(site, 1), _shape(site, 0).numDimensions()
    if axisValue is not None and rank >= 0 and np.size(axisValue) == 1:
        axis = int(np.asarray(axisValue).reshape(-1)[0])
        if -rank - 1 <= axis <= rank:
            index = (slice(None),) * (axis % (rank + 1)) + (None,)
            return lambda x, _: np.asarray(x)[index]

    return lambda x, axis: np.expand_dims(x, _singleAxis(axis))


def _singleAxis(axis: Array) -> int:
    """ExpandDims's axis, which must hold one integer (as the shape rule says of a constant)."""
    if np.size(axis) != 1:
        raise InvalidArgumentError(
            None, f"axis must be a single integer, got {np.asarray(axis).tolist()}"
        )
    return int(np.asarray(axis).reshape(-1)[0])


# -- BroadcastTo ---------------------------------------------------------------------------
def _staticBroadcastTo(target: tuple[int, ...]) -> Kernel:
    """A constant target that a statically known input broadcasts to: the plan checked the
    result's size before running, and nothing can fail."""
    strides = (0,) * len(target)

    def run(x: Array, _: Array) -> Array:
        a = np.asarray(x)
        if a.size != 1 or a.ndim > len(target):
            broadcast: Array = np.broadcast_to(a, target)
            return broadcast
        view: Array = np.ndarray(target, a.dtype, a, 0, strides)  # np.broadcast_to, cheaper
        view.flags.writeable = False
        return view

    return run


@registerKernel("BroadcastTo")
def _broadcastTo(site: KernelSite) -> Kernel:
    targetValue, source = _constant(site, 1), _shape(site, 0)
    if targetValue is not None and source.isFullyKnown():
        target = tuple(int(d) for d in np.asarray(targetValue).reshape(-1).tolist())
        try:
            if np.broadcast_shapes(source.asArray() or (), target) == target:
                return _staticBroadcastTo(target)
        except ValueError:
            pass  # the general kernel raises at run time
    limit = site.memoryLimit

    def run(x: Array, shape: Array) -> Array:
        checkAllocation(shape.tolist(), x.dtype, limit)
        try:
            return np.broadcast_to(x, shape.tolist())
        except ValueError:
            raise InvalidArgumentError(
                None, f"cannot broadcast shape {list(x.shape)} to {shape.tolist()}"
            ) from None

    return run


# -- BroadcastGradientArgs -----------------------------------------------------------------
@registerKernel("BroadcastGradientArgs", fresh=True)
def _broadcastGradientArgs(site: KernelSite) -> Kernel:
    def run(s0: Array, s1: Array) -> tuple[Array, Array]:
        a, b = s0.tolist(), s1.tolist()
        if a == b:  # as TensorFlow's BCast: identical shapes need no reduction
            return np.zeros(0, s0.dtype), np.zeros(0, s0.dtype)
        n = max(len(a), len(b))
        a = [1] * (n - len(a)) + a
        b = [1] * (n - len(b)) + b
        r0, r1 = [], []
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y and x != 1 and y != 1:
                raise InvalidArgumentError(None, f"incompatible shapes {s0.tolist()} and "
                                           f"{s1.tolist()}")
            if x == 1 and y != 1 or x == 1 and y == 1:
                r0.append(i)
            if y == 1 and x != 1 or x == 1 and y == 1:
                r1.append(i)
        return np.array(r0, s0.dtype), np.array(r1, s0.dtype)

    return run


# -- ZerosLike and OnesLike ----------------------------------------------------------------
@registerKernel("ZerosLike", fresh=True)
def _zerosLike(site: KernelSite) -> Kernel:
    return lambda x: np.zeros_like(x)


@registerKernel("OnesLike", fresh=True)
def _onesLike(site: KernelSite) -> Kernel:
    return lambda x: np.ones_like(x)
