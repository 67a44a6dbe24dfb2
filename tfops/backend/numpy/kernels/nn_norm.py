"""The numpy kernels of :mod:`tfops.spec.nn_norm`: batch normalization (in single precision,
as TensorFlow's CPU kernels) and local response normalization."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tfops.backend.numpy.registry import Array, Kernel, KernelSite, registerKernel
from tfops.errors import InvalidArgumentError
from tfops.spec.nn_norm import channelAxis, formatRank

F32 = np.float32


# -- batch normalization -------------------------------------------------------------------
def _layout(x: Array, fmt: str, name: str) -> tuple[int, tuple[int, ...]]:
    """The channel axis of ``x`` and the axes reduced over; raises for a wrong rank."""
    rank = formatRank(fmt)
    if x.ndim != rank:
        raise InvalidArgumentError(
            None, f"{name} must be {rank}-dimensional in the {fmt} layout, got shape "
            f"{list(x.shape)}"
        )
    axis = channelAxis(fmt, rank)
    return axis, tuple(a for a in range(rank) if a != axis)


def _checkVectors(channels: int, vectors: Sequence[tuple[str, Array]]) -> None:
    for name, v in vectors:
        if v.ndim != 1 or v.shape[0] != channels:
            raise InvalidArgumentError(
                None, f"{name} must have the same number of elements as the channels of x, "
                f"got shape {list(v.shape)} and {channels} channels"
            )


def _perChannel(v: Array, axis: int, rank: int) -> Array:
    """``v`` shaped to broadcast along ``axis`` of a ``rank``-dimensional tensor."""
    shape = [1] * rank
    shape[axis] = -1
    result: Array = np.reshape(v, shape)
    return result


@registerKernel("FusedBatchNormV3", fresh=True)
def _fusedBatchNorm(site: KernelSite) -> Kernel:
    epsilon, factor = F32(site.attr("epsilon")), F32(site.attr("exponential_avg_factor"))
    fmt, training = str(site.attr("data_format")), bool(site.attr("is_training"))

    def run(
        x: Array, scale: Array, offset: Array, mean: Array, variance: Array
    ) -> tuple[Array, ...]:
        axis, axes = _layout(x, fmt, "x")
        channels = x.shape[axis]
        _checkVectors(channels, [("scale", scale), ("offset", offset)])
        if not training or factor != 1:
            _checkVectors(channels, [("mean", mean), ("variance", variance)])
        empty = np.zeros(0, F32)
        n = x.size // channels if channels else 0
        if n == 0:  # TensorFlow: NaN statistics, zero reserve spaces
            nan = np.full(channels, np.nan, F32)
            return (np.zeros(x.shape, x.dtype), nan, np.array(nan), np.zeros(channels, F32),
                    np.zeros(channels, F32), empty)
        xf: Array = x.astype(F32)
        batchMean: Array
        batchVar: Array
        if training:
            batchMean = np.sum(xf, axis=axes, dtype=F32) * F32(1 / n)
            centered = xf - _perChannel(batchMean, axis, x.ndim)
            batchVar = np.sum(np.square(centered), axis=axes, dtype=F32) * F32(1 / n)
        else:
            batchMean, batchVar = mean.astype(F32), variance.astype(F32)
            centered = xf - _perChannel(batchMean, axis, x.ndim)
        scaling: Array = F32(1) / np.sqrt(batchVar + epsilon) * scale
        y = (centered * _perChannel(scaling, axis, x.ndim)
             + _perChannel(offset, axis, x.ndim)).astype(x.dtype)
        if not training:
            return (y, np.array(mean, F32), np.array(variance, F32), np.array(mean, F32),
                    np.array(variance, F32), empty)
        unbiased: Array = batchVar * F32(n / (n - 1) if n > 1 else 1)
        if factor == 1:
            return y, np.array(batchMean), unbiased, batchMean, batchVar, empty
        keep: Array = np.asarray(F32(1) - factor)
        return (y, keep * mean + factor * batchMean, keep * variance + factor * unbiased,
                batchMean, batchVar, empty)

    return run


@registerKernel("FusedBatchNormGradV3", fresh=True)
def _fusedBatchNormGrad(site: KernelSite) -> Kernel:
    epsilon = F32(site.attr("epsilon"))
    fmt, training = str(site.attr("data_format")), bool(site.attr("is_training"))

    def run(
        dy: Array, x: Array, scale: Array, mean: Array, variance: Array, unused: Array
    ) -> tuple[Array, ...]:
        axis, axes = _layout(x, fmt, "x")
        if dy.shape != x.shape:
            raise InvalidArgumentError(
                None, f"x and y_backprop must have the same shape, got {list(x.shape)} and "
                f"{list(dy.shape)}"
            )
        channels = x.shape[axis]
        _checkVectors(channels, [("scale", scale), ("reserve_space_1", mean),
                                 ("reserve_space_2", variance)])
        empty = np.zeros(0, F32)
        n = x.size // channels if channels else 0
        if n == 0:
            return (np.zeros(x.shape, x.dtype), np.zeros(channels, F32),
                    np.zeros(channels, F32), empty, np.zeros(0, F32))
        dyf: Array = dy.astype(F32)
        centered: Array = x.astype(F32) - _perChannel(mean, axis, x.ndim)
        rsqrt: Array = F32(1) / np.sqrt(variance + epsilon)
        dOffset: Array = np.asarray(np.sum(dyf, axis=axes, dtype=F32))
        dScale: Array = np.asarray(np.sum(dyf * (centered * _perChannel(rsqrt, axis, x.ndim)),
                                          axis=axes, dtype=F32))
        coef: Array = _perChannel(scale * rsqrt, axis, x.ndim)
        if training:
            meanDy: Array = dOffset * F32(1 / n)
            meanDyX: Array = np.sum(dyf * centered, axis=axes, dtype=F32) * F32(1 / n)
            correction: Array = np.square(rsqrt) * meanDyX
            dx: Array = coef * (dyf - _perChannel(meanDy, axis, x.ndim)
                         - centered * _perChannel(correction, axis, x.ndim))
        else:
            dx = dyf * coef
        return dx.astype(x.dtype), dScale, dOffset, empty, np.zeros(0, F32)

    return run


# -- local response normalization ----------------------------------------------------------
def _windowSum(a: Array, radius: int) -> Array:
    """The sum of ``a`` over the channels within ``radius`` of each (the last axis)."""
    depth = a.shape[-1]
    r = min(radius, max(depth - 1, 0))
    padded = np.pad(a, [(0, 0)] * (a.ndim - 1) + [(r, r)])
    total: Array = np.zeros_like(a)
    for tap in range(2 * r + 1):  # one slice per tap of the window
        total += padded[..., tap:tap + depth]
    return total


def _lrnAttrs(site: KernelSite) -> tuple[int, Array, Array, Array]:
    return (int(site.attr("depth_radius")), F32(site.attr("bias")), F32(site.attr("alpha")),
            F32(site.attr("beta")))


def _check4d(*arrays: tuple[str, Array]) -> None:
    for name, a in arrays:
        if a.ndim != 4:
            raise InvalidArgumentError(None, f"{name} must be 4-dimensional, got shape "
                                             f"{list(a.shape)}")


@registerKernel("LRN", fresh=True)
def _lrn(site: KernelSite) -> Kernel:
    radius, bias, alpha, beta = _lrnAttrs(site)

    def run(x: Array) -> Array:
        _check4d(("input", x))
        xf = x.astype(F32)  # half precision computes in single precision
        norm = bias + alpha * _windowSum(np.square(xf), radius)
        with np.errstate(invalid="ignore", divide="ignore"):
            result: Array = (xf * np.power(norm, -beta)).astype(x.dtype)
        return result

    return run


@registerKernel("LRNGrad", fresh=True)
def _lrnGrad(site: KernelSite) -> Kernel:
    radius, bias, alpha, beta = _lrnAttrs(site)

    def run(grads: Array, x: Array, y: Array) -> Array:
        _check4d(("input_grads", grads), ("input_image", x), ("output_image", y))
        if not grads.shape == x.shape == y.shape:
            raise InvalidArgumentError(
                None, "input_grads, input_image and output_image must have the same shape, "
                f"got {list(grads.shape)}, {list(x.shape)} and {list(y.shape)}"
            )
        gf, xf, yf = grads.astype(F32), x.astype(F32), y.astype(F32)
        norm = bias + alpha * _windowSum(np.square(xf), radius)
        with np.errstate(invalid="ignore", divide="ignore"):
            spread = _windowSum(gf * yf / norm, radius)
            result: Array = (gf * np.power(norm, -beta)
                             - F32(2) * alpha * beta * xf * spread).astype(x.dtype)
        return result

    return run
