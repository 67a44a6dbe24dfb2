"""The numpy kernels of :mod:`tfops.spec.array_split`: Split, SplitV, ReverseV2, ClipByValue,
Where and ListDiff."""

from __future__ import annotations

import numpy as np

from tfops.backend.numpy.kernels.indexing import check
from tfops.backend.numpy.registry import Array, Kernel, KernelSite, registerKernel
from tfops.errors import InvalidArgumentError
from tfops.spec.array_split import reversedAxes, splitSizes


def splitDim(axis: Array, shape: tuple[int, ...]) -> int:
    """The split dimension in ``[0, rank)`` for a value of ``shape``, checked as the shape rule
    checks it."""
    check(axis.ndim == 0, f"split_dim must be a scalar, got shape {list(axis.shape)}")
    check(len(shape) > 0, "cannot split a scalar: value must have at least one dimension")
    rank, a = len(shape), int(axis)
    check(-rank <= a < rank, f"split_dim {a} is out of range [{-rank}, {rank}) for a value of "
          f"shape {list(shape)}")
    return a % rank


@registerKernel("Split")  # the pieces are views of the value
def _split(site: KernelSite) -> Kernel:
    num: int = site.attr("num_split")

    def run(axis: Array, value: Array) -> tuple[Array, ...]:
        a = splitDim(axis, value.shape)
        size = value.shape[a]
        check(size % num == 0, f"num_split {num} does not evenly divide dimension {a} of the "
              f"value (size {size}, shape {list(value.shape)})")
        return tuple(np.split(value, num, axis=a))

    return run


@registerKernel("SplitV")  # the pieces are views of the value
def _splitV(site: KernelSite) -> Kernel:
    num: int = site.attr("num_split")

    def run(value: Array, sizes: Array, axis: Array) -> tuple[Array, ...]:
        a = splitDim(axis, value.shape)
        check(sizes.shape == (num,), f"size_splits must be a vector of num_split = {num} "
              f"entries, got shape {list(sizes.shape)}")
        try:
            resolved = splitSizes([int(s) for s in sizes.tolist()], value.shape[a])
        except ValueError as e:
            raise InvalidArgumentError(None, str(e)) from None
        return tuple(np.split(value, np.cumsum(resolved[:-1]), axis=a))

    return run


@registerKernel("ReverseV2")  # a view of the input
def _reverse(site: KernelSite) -> Kernel:
    def run(x: Array, axis: Array) -> Array:
        check(axis.ndim == 1, f"axis must be a vector, got shape {list(axis.shape)}")
        check(x.ndim <= 8, f"cannot reverse a tensor of rank {x.ndim} (at most 8)")
        try:
            axes = reversedAxes(axis.tolist(), x.ndim)
        except ValueError as e:
            raise InvalidArgumentError(None, str(e)) from None
        return np.flip(x, axes) if axes else x

    return run


def clipShapesMatch(t: tuple[int, ...], low: tuple[int, ...], high: tuple[int, ...]) -> str:
    """TensorFlow's message when a bound is neither a scalar nor of ``t``'s shape, else ''."""
    if all(b in ((), t) for b in (low, high)):
        return ""
    return (f"clip_value_min and clip_value_max must be scalars or have the shape of t: t has "
            f"shape {list(t)}, clip_value_min {list(low)}, clip_value_max {list(high)}")


@registerKernel("ClipByValue", fresh=True)
def _clipByValue(site: KernelSite) -> Kernel:
    def run(t: Array, low: Array, high: Array) -> Array:
        message = clipShapesMatch(t.shape, low.shape, high.shape)
        check(not message, message)
        # TensorFlow's min then max, where a comparison with NaN keeps the first operand
        capped = np.where(high < t, high, t)
        return np.asarray(np.where(capped < low, low, capped), t.dtype)

    return run


@registerKernel("Where", fresh=True)
def _where(site: KernelSite) -> Kernel:
    def run(x: Array) -> Array:
        check(x.ndim > 0, "input must have at least one dimension, got a scalar")
        return np.argwhere(x).astype(np.int64)

    return run


def listDiff(x: Array, y: Array, index: type[np.generic]) -> tuple[Array, Array]:
    """ListDiff's outputs: the elements of ``x`` not in ``y`` and their positions."""
    check(x.ndim == 1, f"x must be a vector, got shape {list(x.shape)}")
    check(y.ndim == 1, f"y must be a vector, got shape {list(y.shape)}")
    kept = ~np.isin(x, y)
    return x[kept], np.flatnonzero(kept).astype(index)


@registerKernel("ListDiff", fresh=True)
def _listDiff(site: KernelSite) -> Kernel:
    index = site.attr("out_idx").DTYPE

    def run(x: Array, y: Array) -> tuple[Array, Array]:
        return listDiff(x, y, index)

    return run
