"""The numpy kernels of :mod:`tfops.spec.nn_pool` and :mod:`tfops.spec.nn_pool_v1`: MaxPoolV2,
TensorFlow's first MaxPool (window sizes and strides as attributes, else the same kernels),
AvgPool and their gradient ops.

The padded input is viewed as its windows (:func:`tfops.backend.numpy.kernels.nn_conv.windows`),
flattened to ``[batch, out_h, out_w, channels, taps]``; which taps lie on the input is
:func:`tfops.spec.nn_window.poolTaps`. The gradients spread one value per tap back over the
input (:func:`tfops.backend.numpy.kernels.nn_conv.spread`). TensorFlow's CPU kernels set the
rules reproduced here: MaxPool takes the largest element that is not NaN, no less than the
type's lowest value; MaxPoolGrad sends each window's gradient to its first maximum in row-major
order, or to its first element when that is NaN; MaxPoolGradGrad reads the first element equal
to the pooled output.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfops.backend.numpy.kernels.nn_conv import checked, fromNhwc, spread, toNhwc, windows
from tfops.backend.numpy.registry import Array, Kernel, KernelSite, checkAllocation, registerKernel
from tfops.errors import InvalidArgumentError
from tfops.spec.nn_pool_v1 import V1_PADDINGS
from tfops.spec.nn_window import ConvShapes, Sizes, Window, poolSizes, poolTaps

__all__ = ["lowest", "maxIndex", "taps"]


def lowest(dtype: np.dtype[Any]) -> Any:
    """The type's lowest value (TensorFlow's initial maximum)."""
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return np.asarray(info.min, dtype)


def _shapes(window: Window, sizes: Sizes, x: Array) -> ConvShapes:
    return ConvShapes(window, sizes, x.shape[0], x.shape[3], 1, x.shape[3])


def taps(x: Array, window: Window, sizes: Sizes) -> Array:
    """The windows of NHWC ``x``, ``[batch, out_h, out_w, channels, taps]`` (zero padding)."""
    view = windows(x, _shapes(window, sizes, x))
    return np.reshape(view, (*view.shape[:4], -1))


def maxIndex(view: Array, onInput: Array) -> Array:
    """Per window of ``view`` (``[..., taps]``), the tap TensorFlow's MaxPoolGrad picks: the
    first maximum among the taps on the input, or the first tap on the input when it is NaN."""
    nan = np.isnan(view) if view.dtype.kind == "f" else np.zeros((), bool)
    if onInput.all() and not nan.any():  # no padding, no NaN: the first maximum
        plain: Array = np.argmax(view, axis=-1)
        return plain
    key = np.where(onInput & ~nan, view, lowest(view.dtype))
    best = np.max(key, axis=-1, keepdims=True)
    chosen = np.argmax(onInput & (view == best) & ~nan, axis=-1)
    first = np.broadcast_to(np.argmax(onInput, axis=-1), chosen.shape)
    firstIsNan = np.take_along_axis(np.broadcast_to(nan, view.shape), first[..., None],
                                    axis=-1)[..., 0]
    result: Array = np.where(firstIsNan, first, chosen)
    return result


def _values(value: Array, name: str) -> list[int]:
    if value.ndim != 1 or value.shape[0] != 4:
        raise InvalidArgumentError(None, f"{name} must be a vector of 4 values, got shape "
                                   f"{list(value.shape)}")
    return [int(v) for v in value.tolist()]


def _sized(opType: str, site: KernelSite, ksize: Sequence[int], strides: Sequence[int],
           x: Array) -> tuple[Window, Sizes]:
    return checked(lambda: poolSizes(opType, ksize, strides, str(site.attr("padding")),
                                     str(site.attr("data_format")), x.shape))


Sizer = Callable[[Array, Sequence[Array]], tuple[Window, Sizes]]


def _sizer(opType: str, site: KernelSite, fromAttrs: bool) -> Sizer:
    """How a max pooling op finds its window when it runs, from the input and the op's
    ``ksize`` and ``strides`` inputs (the V2 ops) or from its attributes (TensorFlow's first
    ops, ``fromAttrs``, whose trailing inputs are none)."""
    padding, fmt = str(site.attr("padding")), str(site.attr("data_format"))
    if fromAttrs:
        ksize, strides = list(site.attr("ksize")), list(site.attr("strides"))
        explicit = list(site.attrs.get("explicit_paddings", ()))
        return lambda x, _: checked(lambda: poolSizes(opType, ksize, strides, padding, fmt,
                                                      x.shape, explicit, V1_PADDINGS[opType]))
    return lambda x, sizes: _sized(opType, site, _values(sizes[0], "ksize"),
                                   _values(sizes[1], "strides"), x)


def _checkShape(value: Array, name: str, expected: Sequence[int], fmt: str) -> None:
    n, h, w, c = expected
    want = [n, c, h, w] if fmt == "NCHW" else [n, h, w, c]
    if list(value.shape) != want:
        raise InvalidArgumentError(
            None, f"{name} has shape {list(value.shape)}, but pooling the input gives {want}"
        )


def _empty(sizes: Sizes, x: Array) -> bool:
    return 0 in (x.shape[0], x.shape[3], sizes.outH, sizes.outW)


def _tiles(x: Array, window: Window, sizes: Sizes) -> Array | None:
    """The windows of NHWC ``x`` as ``[batch, out_h, k_h, out_w, k_w, channels]``, a view
    without copying, when they tile the input exactly (strides equal to the window, no
    padding: LeNet's 2x2 pooling) and hold no NaN; else None (the general path)."""
    kh, kw = window.kernel
    if (window.strides != window.kernel or sizes.top or sizes.bottom or sizes.left
            or sizes.right or sizes.outH * kh != x.shape[1] or sizes.outW * kw != x.shape[2]):
        return None
    if x.dtype.kind == "f" and np.isnan(x).any():
        return None
    n, c = x.shape[0], x.shape[3]
    tiles: Array = np.reshape(x, (n, sizes.outH, kh, sizes.outW, kw, c))
    return tiles


# -- MaxPoolV2 ---------------------------------------------------------------------------------
def _maxPool(x: Array, window: Window, sizes: Sizes) -> Array:
    n, c = x.shape[0], x.shape[3]
    if _empty(sizes, x):
        return np.zeros((n, sizes.outH, sizes.outW, c), x.dtype)
    tiles = _tiles(x, window, sizes)
    if tiles is not None:  # the same maxima, read in place
        tiled: Array = np.maximum(np.max(tiles, axis=(2, 4)), lowest(x.dtype))
        return tiled
    view = taps(x, window, sizes)
    onInput = poolTaps(window, sizes)[0][None, :, :, None, :]
    if x.dtype.kind == "f":
        nan = np.isnan(view)
        if onInput.all() and not nan.any():  # no padding, no NaN: -inf is raised to lowest
            floored: Array = np.maximum(np.max(view, axis=-1), lowest(x.dtype))
            return floored
        onInput = onInput & ~nan
    result: Array = np.max(np.where(onInput, view, lowest(x.dtype)), axis=-1)
    return result


def _maxPoolKernel(opType: str, fromAttrs: bool) -> Callable[[KernelSite], Kernel]:
    def factory(site: KernelSite) -> Kernel:
        fmt, limit = str(site.attr("data_format")), site.memoryLimit
        sized = _sizer(opType, site, fromAttrs)

        def run(x: Array, *sizes: Array) -> Array:
            window, s = sized(x, sizes)
            checkAllocation([x.shape[0], s.outH, s.outW, x.shape[3 if fmt == "NHWC" else 1]],
                            x.dtype, limit)
            return fromNhwc(_maxPool(toNhwc(x, fmt), window, s), fmt)

        return run

    return factory


registerKernel("MaxPoolV2", _maxPoolKernel("MaxPoolV2", fromAttrs=False), fresh=True)
registerKernel("MaxPool", _maxPoolKernel("MaxPool", fromAttrs=True), fresh=True)


# -- MaxPoolGradV2 and MaxPoolGradGradV2 -------------------------------------------------------
def _maxPoolGrad(x: Array, g: Array, window: Window, sizes: Sizes) -> Array:
    if _empty(sizes, x):
        return np.zeros(x.shape, g.dtype)
    tiles = _tiles(x, window, sizes)
    if tiles is not None:  # each input in one window: the gradient lands in place
        kh, kw = window.kernel
        n, oh, _, ow, _, c = tiles.shape
        flat = np.reshape(np.transpose(tiles, (0, 1, 3, 5, 2, 4)), (n, oh, ow, c, kh * kw))
        first = np.argmax(flat, axis=-1)  # the first maximum in the window's row-major order
        placed = np.zeros(flat.shape, g.dtype)
        np.put_along_axis(placed, first[..., None], g[..., None], axis=-1)
        back = np.transpose(np.reshape(placed, (n, oh, ow, c, kh, kw)), (0, 1, 4, 2, 5, 3))
        return np.reshape(back, x.shape)
    view = taps(x, window, sizes)
    index = maxIndex(view, poolTaps(window, sizes)[0][None, :, :, None, :])
    parts = np.zeros(view.shape, g.dtype)
    np.put_along_axis(parts, index[..., None], g[..., None], axis=-1)
    kh, kw = window.kernel
    spreadable = np.transpose(np.reshape(parts, (*parts.shape[:4], kh, kw)), (0, 1, 2, 4, 5, 3))
    return spread(spreadable, _shapes(window, sizes, x))


def _maxPoolGradGrad(x: Array, y: Array, g: Array, window: Window, sizes: Sizes) -> Array:
    if _empty(sizes, x):
        return np.zeros((x.shape[0], sizes.outH, sizes.outW, x.shape[3]), g.dtype)
    onInput = poolTaps(window, sizes)[0][None, :, :, None, :]
    hit = onInput & (taps(x, window, sizes) == y[..., None])
    index = np.argmax(hit, axis=-1)[..., None]
    picked = np.take_along_axis(taps(g, window, sizes), index, axis=-1)[..., 0]
    result: Array = np.where(hit.any(axis=-1), picked, np.zeros((), g.dtype))
    return result


def _maxPoolGradKernel(opType: str, second: bool,
                       fromAttrs: bool) -> Callable[[KernelSite], Kernel]:
    def factory(site: KernelSite) -> Kernel:
        fmt, limit = str(site.attr("data_format")), site.memoryLimit
        sized = _sizer(opType, site, fromAttrs)

        def run(x: Array, y: Array, g: Array, *sizes: Array) -> Array:
            window, s = sized(x, sizes)
            xs, ys, gs = toNhwc(x, fmt), toNhwc(y, fmt), toNhwc(g, fmt)
            pooledDims = [xs.shape[0], s.outH, s.outW, xs.shape[3]]
            _checkShape(y, "orig_output", pooledDims, fmt)
            _checkShape(g, "grad", list(xs.shape) if second else pooledDims, fmt)
            checkAllocation(pooledDims if second else list(x.shape), g.dtype, limit)
            if second:
                return fromNhwc(_maxPoolGradGrad(xs, ys, gs, window, s), fmt)
            return fromNhwc(_maxPoolGrad(xs, gs, window, s), fmt)

        return run

    return factory


registerKernel("MaxPoolGradV2", _maxPoolGradKernel("MaxPoolGradV2", False, False), fresh=True)
registerKernel("MaxPoolGradGradV2", _maxPoolGradKernel("MaxPoolGradGradV2", True, False),
               fresh=True)
registerKernel("MaxPoolGrad", _maxPoolGradKernel("MaxPoolGrad", False, True), fresh=True)
registerKernel("MaxPoolGradGrad", _maxPoolGradKernel("MaxPoolGradGrad", True, True), fresh=True)


# -- AvgPool and AvgPoolGrad -------------------------------------------------------------------
def _wide(dtype: np.dtype[Any]) -> np.dtype[Any]:
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def _avgPool(x: Array, window: Window, sizes: Sizes) -> Array:
    if _empty(sizes, x):
        return np.zeros((x.shape[0], sizes.outH, sizes.outW, x.shape[3]), x.dtype)
    total = np.sum(taps(x, window, sizes), axis=-1, dtype=_wide(x.dtype))
    counts = poolTaps(window, sizes)[1][None, :, :, None]
    result: Array = (total / counts).astype(x.dtype)
    return result


@registerKernel("AvgPool", fresh=True)
def _avgPoolKernel(site: KernelSite) -> Kernel:
    fmt, limit = str(site.attr("data_format")), site.memoryLimit
    ksize, strides = list(site.attr("ksize")), list(site.attr("strides"))

    def run(x: Array) -> Array:
        window, sizes = _sized("AvgPool", site, ksize, strides, x)
        checkAllocation([x.shape[0], sizes.outH, sizes.outW, x.shape[3 if fmt == "NHWC" else 1]],
                        x.dtype, limit)
        return fromNhwc(_avgPool(toNhwc(x, fmt), window, sizes), fmt)

    return run


@registerKernel("AvgPoolGrad", fresh=True)
def _avgPoolGradKernel(site: KernelSite) -> Kernel:
    fmt, limit = str(site.attr("data_format")), site.memoryLimit
    ksize, strides = list(site.attr("ksize")), list(site.attr("strides"))

    def run(shape: Array, g: Array) -> Array:
        dims = _values(shape, "orig_input_shape")
        if any(d < 0 for d in dims):
            raise InvalidArgumentError(None, f"orig_input_shape must not be negative, got {dims}")
        checkAllocation(dims, g.dtype, limit)
        stand = np.broadcast_to(np.zeros((), g.dtype), dims)
        window, sizes = _sized("AvgPoolGrad", site, ksize, strides, stand)
        xs = toNhwc(stand, fmt)
        _checkShape(g, "grad", [xs.shape[0], sizes.outH, sizes.outW, xs.shape[3]], fmt)
        if _empty(sizes, xs):
            return np.zeros(dims, g.dtype)
        counts = poolTaps(window, sizes)[1][None, :, :, None]
        shares = (toNhwc(g, fmt).astype(_wide(g.dtype)) / counts).astype(g.dtype)
        kh, kw = window.kernel
        parts = np.broadcast_to(shares[:, :, :, None, None, :], (*shares.shape[:3], kh, kw,
                                                                  shares.shape[3]))
        return fromNhwc(spread(parts, _shapes(window, sizes, xs)), fmt)

    return run
