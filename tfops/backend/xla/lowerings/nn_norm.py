"""The XLA lowerings of :mod:`tfops.spec.nn_norm`: batch normalization (in single precision, as
TensorFlow's CPU kernels) and local response normalization."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError
from tfops.spec.nn_norm import channelAxis, formatRank

F32 = jnp.float32


# -- batch normalization -------------------------------------------------------------------
def _layout(x: Any, fmt: str, name: str) -> tuple[int, tuple[int, ...]]:
    rank = formatRank(fmt)
    if x.ndim != rank:
        raise InvalidArgumentError(
            None, f"{name} must be {rank}-dimensional in the {fmt} layout, got shape "
            f"{list(x.shape)}"
        )
    axis = channelAxis(fmt, rank)
    return axis, tuple(a for a in range(rank) if a != axis)


def _checkVectors(channels: int, vectors: Sequence[tuple[str, Any]]) -> None:
    for name, v in vectors:
        if v.ndim != 1 or v.shape[0] != channels:
            raise InvalidArgumentError(
                None, f"{name} must have the same number of elements as the channels of x, "
                f"got shape {list(v.shape)} and {channels} channels"
            )


def _perChannel(v: Any, axis: int, rank: int) -> Any:
    shape = [1] * rank
    shape[axis] = -1
    return jnp.reshape(v, shape)


def _f32(value: float) -> Any:
    return jnp.asarray(np.float32(value), F32)


@registerLowering("FusedBatchNormV3")
def _fusedBatchNorm(
    site: LoweringSite, x: Any, scale: Any, offset: Any, mean: Any, variance: Any
) -> tuple[Any, ...]:
    epsilon, factor = np.float32(site.attr("epsilon")), np.float32(
        site.attr("exponential_avg_factor"))
    fmt, training = str(site.attr("data_format")), bool(site.attr("is_training"))
    axis, axes = _layout(x, fmt, "x")
    channels = x.shape[axis]
    _checkVectors(channels, [("scale", scale), ("offset", offset)])
    if not training or factor != 1:
        _checkVectors(channels, [("mean", mean), ("variance", variance)])
    empty = jnp.zeros(0, F32)
    n = int(np.prod(x.shape)) // channels if channels else 0
    if n == 0:  # TensorFlow: NaN statistics, zero reserve spaces
        nan = jnp.full(channels, jnp.nan, F32)
        zeros = jnp.zeros(channels, F32)
        return jnp.zeros(x.shape, x.dtype), nan, nan, zeros, zeros, empty
    xf = x.astype(F32)
    if training:
        batchMean = jnp.sum(xf, axis=axes) * _f32(1 / n)
        centered = xf - _perChannel(batchMean, axis, x.ndim)
        batchVar = jnp.sum(jnp.square(centered), axis=axes) * _f32(1 / n)
    else:
        batchMean, batchVar = mean, variance
        centered = xf - _perChannel(batchMean, axis, x.ndim)
    scaling = _f32(1) / jnp.sqrt(batchVar + _f32(epsilon)) * scale
    y = (centered * _perChannel(scaling, axis, x.ndim)
         + _perChannel(offset, axis, x.ndim)).astype(x.dtype)
    if not training:
        return y, mean, variance, mean, variance, empty
    unbiased = batchVar * _f32(n / (n - 1) if n > 1 else 1)
    if factor == 1:
        return y, batchMean, unbiased, batchMean, batchVar, empty
    keep = _f32(1 - factor)
    return (y, keep * mean + _f32(factor) * batchMean,
            keep * variance + _f32(factor) * unbiased, batchMean, batchVar, empty)


@registerLowering("FusedBatchNormGradV3")
def _fusedBatchNormGrad(
    site: LoweringSite, dy: Any, x: Any, scale: Any, mean: Any, variance: Any, unused: Any
) -> tuple[Any, ...]:
    epsilon = np.float32(site.attr("epsilon"))
    fmt, training = str(site.attr("data_format")), bool(site.attr("is_training"))
    axis, axes = _layout(x, fmt, "x")
    if dy.shape != x.shape:
        raise InvalidArgumentError(
            None, f"x and y_backprop must have the same shape, got {list(x.shape)} and "
            f"{list(dy.shape)}"
        )
    channels = x.shape[axis]
    _checkVectors(channels, [("scale", scale), ("reserve_space_1", mean),
                             ("reserve_space_2", variance)])
    empty = jnp.zeros(0, F32)
    n = int(np.prod(x.shape)) // channels if channels else 0
    if n == 0:
        zeros = jnp.zeros(channels, F32)
        return jnp.zeros(x.shape, x.dtype), zeros, zeros, empty, empty
    dyf = dy.astype(F32)
    centered = x.astype(F32) - _perChannel(mean, axis, x.ndim)
    rsqrt = _f32(1) / jnp.sqrt(variance + _f32(epsilon))
    dOffset = jnp.sum(dyf, axis=axes)
    dScale = jnp.sum(dyf * (centered * _perChannel(rsqrt, axis, x.ndim)), axis=axes)
    coef = _perChannel(scale * rsqrt, axis, x.ndim)
    if training:
        meanDy = dOffset * _f32(1 / n)
        meanDyX = jnp.sum(dyf * centered, axis=axes) * _f32(1 / n)
        correction = jnp.square(rsqrt) * meanDyX
        dx = coef * (dyf - _perChannel(meanDy, axis, x.ndim)
                     - centered * _perChannel(correction, axis, x.ndim))
    else:
        dx = dyf * coef
    return dx.astype(x.dtype), dScale, dOffset, empty, empty


# -- local response normalization ----------------------------------------------------------
def _windowSum(a: Any, radius: int) -> Any:
    """The sum of ``a`` over the channels within ``radius`` of each (the last axis)."""
    depth = a.shape[-1]
    r = min(radius, max(depth - 1, 0))
    padded = jnp.pad(a, [(0, 0)] * (a.ndim - 1) + [(r, r)])
    total = jnp.zeros_like(a)
    for tap in range(2 * r + 1):  # one slice per tap of the window
        total = total + padded[..., tap:tap + depth]
    return total


def _lrnAttrs(site: LoweringSite) -> tuple[int, Any, Any, Any]:
    return (int(site.attr("depth_radius")), _f32(site.attr("bias")), _f32(site.attr("alpha")),
            _f32(site.attr("beta")))


def _check4d(*arrays: tuple[str, Any]) -> None:
    for name, a in arrays:
        if a.ndim != 4:
            raise InvalidArgumentError(None, f"{name} must be 4-dimensional, got shape "
                                             f"{list(a.shape)}")


@registerLowering("LRN")
def _lrn(site: LoweringSite, x: Any) -> Any:
    radius, bias, alpha, beta = _lrnAttrs(site)
    _check4d(("input", x))
    xf = x.astype(F32)  # half precision computes in single precision
    norm = bias + alpha * _windowSum(jnp.square(xf), radius)
    return (xf * jnp.power(norm, -beta)).astype(x.dtype)


@registerLowering("LRNGrad")
def _lrnGrad(site: LoweringSite, grads: Any, x: Any, y: Any) -> Any:
    radius, bias, alpha, beta = _lrnAttrs(site)
    _check4d(("input_grads", grads), ("input_image", x), ("output_image", y))
    if not grads.shape == x.shape == y.shape:
        raise InvalidArgumentError(
            None, "input_grads, input_image and output_image must have the same shape, "
            f"got {list(grads.shape)}, {list(x.shape)} and {list(y.shape)}"
        )
    gf, xf, yf = grads.astype(F32), x.astype(F32), y.astype(F32)
    norm = bias + alpha * _windowSum(jnp.square(xf), radius)
    spread = _windowSum(gf * yf / norm, radius)
    return (gf * jnp.power(norm, -beta) - _f32(2) * alpha * beta * xf * spread).astype(x.dtype)
