"""The numpy kernels of :mod:`tfops.spec.nn_conv` and :mod:`tfops.spec.nn_conv_depthwise`:
Conv2D, DepthwiseConv2dNative and their gradient ops.

A convolution is an im2col product: the padded input is viewed (no copy) as its windows,
``[batch, out_height, out_width, channels, filter_height, filter_width]``
(:func:`windows`, ``sliding_window_view`` then the strides and dilations as slice steps),
copied once as the im2col matrix (:func:`columns`) and multiplied by the filter in one matrix
product. The input's gradient spreads the products of ``out_backprop`` and the filter back over
the windows, one strided slice per filter tap (:func:`spread`); the filter's gradient is the
im2col matrix's transpose times ``out_backprop``. Grouped (and depthwise) convolutions contract
the windows group by group with ``einsum``. Layouts
other than NHWC are transposed in and out; float16 is computed in float32 and rounded once, as
TensorFlow's CPU kernels accumulate it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from tfops.backend.numpy.registry import Array, Kernel, KernelSite, checkAllocation, registerKernel
from tfops.errors import InvalidArgumentError
from tfops.spec.nn_window import (
    ConvShapes,
    Window,
    WindowError,
    backpropInputDims,
    checkBackprop,
    convWindow,
    runShapes,
    sizesValue,
)

__all__ = [
    "backpropFilterKernel",
    "backpropInputKernel",
    "checked",
    "columns",
    "convKernel",
    "filterGrad",
    "forward",
    "fromNhwc",
    "inputGrad",
    "spread",
    "toNhwc",
    "wide",
    "windowOf",
    "windows",
]

T = TypeVar("T")


def windowOf(site: KernelSite) -> Window:
    """The window of a convolution's attributes (the spec has checked them)."""
    return convWindow(
        "Conv2D", site.attr("strides"), site.attr("padding"), site.attr("data_format"),
        site.attr("dilations"), site.attr("explicit_paddings"),
    )


def toNhwc(x: Array, fmt: str) -> Array:
    """A 4-D tensor of layout ``fmt`` as NHWC (a view)."""
    return np.transpose(x, (0, 2, 3, 1)) if fmt == "NCHW" else x


def fromNhwc(x: Array, fmt: str) -> Array:
    """An NHWC tensor in layout ``fmt``, contiguous."""
    return np.ascontiguousarray(np.transpose(x, (0, 3, 1, 2)) if fmt == "NCHW" else x)


def wide(x: Array) -> Array:
    """``x`` in the type its products accumulate in (float32 for float16)."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def windows(x: Array, shapes: ConvShapes, pad: float = 0) -> Array:
    """The windows of NHWC ``x`` as a view ``[batch, out_h, out_w, channels, k_h, k_w]``, the
    input padded with ``pad`` as the window says (non-empty output sizes only)."""
    s, w = shapes.sizes, shapes.window
    if s.top or s.bottom or s.left or s.right:
        x = np.pad(x, ((0, 0), (s.top, s.bottom), (s.left, s.right), (0, 0)),
                   constant_values=np.asarray(pad, x.dtype))
    view = sliding_window_view(x, (w.effective(0), w.effective(1)), axis=(1, 2))
    (sh, sw), (dh, dw) = w.strides, w.dilations
    return view[:, : (s.outH - 1) * sh + 1 : sh, : (s.outW - 1) * sw + 1 : sw, :, ::dh, ::dw]


def columns(x: Array, shapes: ConvShapes) -> Array:
    """The im2col matrix of NHWC ``x``: one row per output position, ``[batch * out_h * out_w,
    k_h * k_w * channels]``, its columns in the order of a filter's ``[k_h, k_w, channels]``
    (a contiguous copy, so that the product is one matrix multiplication)."""
    view = np.transpose(windows(x, shapes), (0, 1, 2, 4, 5, 3))
    kh, kw = shapes.window.kernel
    return np.reshape(np.ascontiguousarray(view), (-1, kh * kw * x.shape[3]))


def spread(parts: Array, shapes: ConvShapes) -> Array:
    """The sum of ``parts`` ``[batch, out_h, out_w, k_h, k_w, channels]`` over the input
    positions each window tap read: an NHWC tensor of the input's size (what fell on the
    padding is dropped)."""
    s, w = shapes.sizes, shapes.window
    (sh, sw), (dh, dw) = w.strides, w.dilations
    kh, kw = w.kernel
    n, c = parts.shape[0], parts.shape[-1]
    height = max(s.top + s.inH + s.bottom, (s.outH - 1) * sh + w.effective(0))
    width = max(s.left + s.inW + s.right, (s.outW - 1) * sw + w.effective(1))
    total = np.zeros((n, height, width, c), parts.dtype)
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * dh, i * dh + (s.outH - 1) * sh + 1, sh)
            cols = slice(j * dw, j * dw + (s.outW - 1) * sw + 1, sw)
            total[:, rows, cols, :] += parts[:, :, :, i, j, :]
    return total[:, s.top : s.top + s.inH, s.left : s.left + s.inW, :]


def checked(fn: Callable[[], T]) -> T:
    """``fn()``, a :class:`WindowError` raised as TensorFlow's InvalidArgumentError."""
    try:
        return fn()
    except WindowError as e:
        raise InvalidArgumentError(None, str(e)) from None


# -- the products, NHWC, groups of input channels ---------------------------------------------
def forward(x: Array, f: Array, shapes: ConvShapes) -> Array:
    """The convolution of NHWC ``x`` by ``f`` (both in their accumulation type)."""
    s, g = shapes.sizes, shapes.groups
    kh, kw, fc, fo = f.shape
    if 0 in (shapes.batch, s.outH, s.outW):
        return np.zeros((shapes.batch, s.outH, s.outW, shapes.outChannels), x.dtype)
    if g == 1:
        product: Array = columns(x, shapes) @ np.reshape(f, (kh * kw * fc, fo))
        return np.reshape(product, (shapes.batch, s.outH, s.outW, fo))
    view = windows(x, shapes)
    grouped = np.reshape(view, (*view.shape[:3], g, fc, kh, kw))
    result = np.einsum("nhwgcij,ijcgm->nhwgm", grouped, np.reshape(f, (kh, kw, fc, g, fo // g)),
                       optimize=True)
    return np.reshape(result, (*result.shape[:3], fo))


def inputGrad(f: Array, dy: Array, shapes: ConvShapes) -> Array:
    """The gradient of an NHWC input given ``dy`` (NHWC)."""
    s, g = shapes.sizes, shapes.groups
    kh, kw, fc, fo = f.shape
    if 0 in (shapes.batch, s.outH, s.outW, fo):
        return np.zeros((shapes.batch, s.inH, s.inW, shapes.inChannels), dy.dtype)
    if g == 1:
        parts: Array = np.reshape(np.reshape(dy, (-1, fo)) @ np.reshape(f, (-1, fo)).T,
                                  (*dy.shape[:3], kh, kw, fc))
    else:
        grouped = np.reshape(dy, (*dy.shape[:3], g, fo // g))
        parts = np.einsum("nhwgm,ijcgm->nhwijgc", grouped, np.reshape(f, (kh, kw, fc, g, fo // g)),
                          optimize=True)
        parts = np.reshape(parts, (*dy.shape[:3], kh, kw, g * fc))
    return spread(parts, shapes)


def filterGrad(x: Array, dy: Array, shapes: ConvShapes, f: tuple[int, int, int, int]) -> Array:
    """The gradient of a filter of shape ``f`` given NHWC ``x`` and ``dy``."""
    s, g = shapes.sizes, shapes.groups
    kh, kw, fc, fo = f
    if 0 in (shapes.batch, s.outH, s.outW):
        return np.zeros(f, dy.dtype)
    if g == 1:
        product: Array = columns(x, shapes).T @ np.reshape(dy, (-1, fo))
        return np.reshape(product, (kh, kw, fc, fo))
    view = windows(x, shapes)
    grouped = np.reshape(view, (*view.shape[:3], g, fc, kh, kw))
    result = np.einsum("nhwgcij,nhwgm->ijcgm", grouped, np.reshape(dy, (*dy.shape[:3], g, fo // g)),
                       optimize=True)
    return np.reshape(result, (kh, kw, fc, fo))


# -- Conv2D ------------------------------------------------------------------------------------
def convKernel(depthwise: bool) -> Callable[[KernelSite], Kernel]:
    """The kernel factory of Conv2D (``depthwise``: DepthwiseConv2dNative)."""

    def factory(site: KernelSite) -> Kernel:
        window, fmt, limit = windowOf(site), str(site.attr("data_format")), site.memoryLimit

        def run(x: Array, f: Array) -> Array:
            shapes = checked(lambda: runShapes(window, x.shape, f.shape, depthwise, fmt))
            s = shapes.sizes
            checkAllocation([shapes.batch, s.outH, s.outW, shapes.outChannels], x.dtype, limit)
            filt = np.reshape(f, (*f.shape[:2], 1, -1)) if depthwise else f
            result = forward(wide(toNhwc(x, fmt)), wide(filt), shapes)
            return fromNhwc(result.astype(x.dtype, copy=False), fmt)

        return run

    return factory


registerKernel("Conv2D", convKernel(depthwise=False), fresh=True)


# -- the gradient ops --------------------------------------------------------------------------
def backpropInputKernel(depthwise: bool) -> Callable[[KernelSite], Kernel]:
    """The kernel factory of Conv2DBackpropInput (``depthwise``: of
    DepthwiseConv2dNativeBackpropInput)."""

    def factory(site: KernelSite) -> Kernel:
        window, fmt, limit = windowOf(site), str(site.attr("data_format")), site.memoryLimit
        lengths = (4,) if depthwise else (2, 4)

        def run(sizes: Array, f: Array, dy: Array) -> Array:
            def sized() -> ConvShapes:
                given = sizesValue(np.reshape(sizes, -1).tolist(), sizes.ndim, "input_sizes",
                                   lengths)
                dims = backpropInputDims(given, f.shape, dy.shape, fmt)
                shapes = runShapes(window, dims, f.shape, depthwise, fmt)
                checkBackprop(dy.shape, shapes, fmt)
                return shapes

            shapes = checked(sized)
            dims = [shapes.batch, shapes.sizes.inH, shapes.sizes.inW, shapes.inChannels]
            checkAllocation(dims, dy.dtype, limit)
            filt = np.reshape(f, (*f.shape[:2], 1, -1)) if depthwise else f
            result = inputGrad(wide(filt), wide(toNhwc(dy, fmt)), shapes)
            return fromNhwc(result.astype(dy.dtype, copy=False), fmt)

        return run

    return factory


def backpropFilterKernel(depthwise: bool) -> Callable[[KernelSite], Kernel]:
    """The kernel factory of Conv2DBackpropFilter (``depthwise``: of
    DepthwiseConv2dNativeBackpropFilter)."""

    def factory(site: KernelSite) -> Kernel:
        window, fmt, limit = windowOf(site), str(site.attr("data_format")), site.memoryLimit

        def run(x: Array, sizes: Array, dy: Array) -> Array:
            kh, kw, fc, fo = checked(lambda: sizesValue(np.reshape(sizes, -1).tolist(),
                                                        sizes.ndim, "filter_sizes", (4,)))

            def sized() -> ConvShapes:
                shapes = runShapes(window, x.shape, (kh, kw, fc, fo), depthwise, fmt)
                checkBackprop(dy.shape, shapes, fmt)
                return shapes

            shapes = checked(sized)
            checkAllocation([kh, kw, fc, fo], dy.dtype, limit)
            flat = (kh, kw, 1, fc * fo) if depthwise else (kh, kw, fc, fo)
            result = filterGrad(wide(toNhwc(x, fmt)), wide(toNhwc(dy, fmt)), shapes, flat)
            return np.ascontiguousarray(np.reshape(result, (kh, kw, fc, fo)), dy.dtype)

        return run

    return factory


registerKernel("Conv2DBackpropInput", backpropInputKernel(depthwise=False), fresh=True)
registerKernel("Conv2DBackpropFilter", backpropFilterKernel(depthwise=False), fresh=True)

# DepthwiseConv2dNative (tfops.spec.nn_conv_depthwise): the grouped convolution of one group
# per input channel
registerKernel("DepthwiseConv2dNative", convKernel(depthwise=True), fresh=True)
registerKernel("DepthwiseConv2dNativeBackpropInput", backpropInputKernel(depthwise=True),
               fresh=True)
registerKernel("DepthwiseConv2dNativeBackpropFilter", backpropFilterKernel(depthwise=True),
               fresh=True)
