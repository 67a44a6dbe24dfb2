"""numpy kernels of the math ops along one axis (``tfops.spec.math_axis``): ArgMax, ArgMin and
Cumsum."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tfops.backend.numpy.registry import Array, Factory, Kernel, KernelSite, registerKernel
from tfops.errors import InvalidArgumentError


def _runAxis(x: Array, axis: Array, what: str) -> int:
    """The run-time axis in ``[0, rank)``; raises ``InvalidArgumentError`` when it is bad."""
    if axis.ndim != 0:
        raise InvalidArgumentError(None, f"{what} must be a scalar, got shape {list(axis.shape)}")
    rank, value = x.ndim, int(axis)
    if not -rank <= value < rank:
        raise InvalidArgumentError(
            None, f"{what} {value} is out of range for a tensor of rank {rank} "
            "(must be in [-rank, rank))"
        )
    return value % rank


# -- ArgMax, ArgMin ------------------------------------------------------------------------
def _argKernel(pick: Callable[..., Array], clamp: Callable[..., Array], largest: bool) -> Factory:
    def factory(site: KernelSite) -> Kernel:
        dtype = site.attr("output_type").DTYPE

        def run(x: Array, dimension: Array) -> Array:
            axis = _runAxis(x, dimension, "dimension")
            if x.shape[axis] == 0:
                raise InvalidArgumentError(
                    None, f"dimension {axis} of shape {list(x.shape)} is empty: no index to return"
                )
            if x.dtype.kind == "f":  # as TensorFlow: NaN skipped, the start beaten strictly
                info = np.finfo(x.dtype)
                x = clamp(x, info.min if largest else info.max)
            return np.asarray(pick(x, axis=axis)).astype(dtype)

        return run

    return factory


# TensorFlow's search starts at index 0 holding the lowest finite value (highest for ArgMin) and
# moves only to a strictly larger (smaller) element, so NaN never wins, nor -inf (inf) nor that
# value itself: clamping NaN and those to the start value and taking numpy's first extreme
# element gives the same index.
registerKernel("ArgMax", _argKernel(np.argmax, np.fmax, largest=True), fresh=True)
registerKernel("ArgMin", _argKernel(np.argmin, np.fmin, largest=False), fresh=True)


# -- Cumsum ---------------------------------------------------------------------------------
@registerKernel("Cumsum", fresh=True)
def _cumsum(site: KernelSite) -> Kernel:
    exclusive, reverse = bool(site.attr("exclusive")), bool(site.attr("reverse"))

    def run(x: Array, axisValue: Array) -> Array:
        axis = _runAxis(x, axisValue, "axis")
        source = np.flip(x, axis) if reverse else x
        total: Array = np.cumsum(source, axis=axis, dtype=x.dtype)
        if exclusive:  # shift by one along the axis, starting from 0
            shifted = np.zeros_like(total)
            into = [slice(None)] * x.ndim
            into[axis] = slice(1, None)
            outOf = [slice(None)] * x.ndim
            outOf[axis] = slice(0, -1)
            shifted[tuple(into)] = total[tuple(outOf)]
            total = shifted
        result: Array = (
            np.flip(total, axis).copy()  # a copy, never a view, even where flipping is a no-op
            if reverse else np.ascontiguousarray(total)
        )
        return result

    return run
