"""The XLA lowerings of :mod:`tfops.spec.nn_conv` and :mod:`tfops.spec.nn_conv_depthwise`:
Conv2D, DepthwiseConv2dNative and their gradient ops.

A convolution is one ``lax.conv_general_dilated`` in the op's layout (the padding explicit, as
TensorFlow's window geometry gives it); the gradient ops are its transposes, convolutions
too: the input's gradient convolves ``out_backprop``, dilated by the strides, with the flipped
filter (:func:`inputGrad`); the filter's convolves the input with it (:func:`filterGrad`).
Products are computed at the highest precision, float16 accumulates in float32, as the numpy
kernels do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.registry import LoweringSite, registerLowering
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
    "backpropFilterLowering",
    "backpropInputLowering",
    "convLowering",
    "convolve",
    "filterGrad",
    "inputGrad",
]

T = TypeVar("T")


def _windowOf(site: LoweringSite) -> Window:
    return convWindow(
        "Conv2D", site.attr("strides"), site.attr("padding"), site.attr("data_format"),
        site.attr("dilations"), site.attr("explicit_paddings"),
    )


def _checked(fn: Callable[[], T]) -> T:
    try:
        return fn()
    except WindowError as e:
        raise InvalidArgumentError(None, str(e)) from None


def convolve(x: Any, f: Any, shapes: ConvShapes, fmt: str, dtype: np.dtype[Any]) -> Any:
    """The convolution of ``x`` (layout ``fmt``) by an ``[h, w, in / groups, out]`` filter
    ``f``, in ``dtype``."""
    s, w = shapes.sizes, shapes.window
    outDims = (shapes.batch, s.outH, s.outW, shapes.outChannels)
    if 0 in outDims or 0 in f.shape:
        order = (0, 3, 1, 2) if fmt == "NCHW" else (0, 1, 2, 3)
        return jnp.zeros(tuple(outDims[a] for a in order), dtype)
    wide = np.dtype(np.float32) if dtype == np.float16 else dtype
    result = jax.lax.conv_general_dilated(
        x, f, window_strides=w.strides, padding=[(s.top, s.bottom), (s.left, s.right)],
        rhs_dilation=w.dilations, dimension_numbers=(fmt, "HWIO", fmt),
        feature_group_count=shapes.groups, precision=jax.lax.Precision.HIGHEST,
        preferred_element_type=wide,
    )
    return result.astype(dtype)


def _flat(f: Any, depthwise: bool) -> Any:
    """A depthwise filter ``[h, w, in, multiplier]`` as the grouped one ``[h, w, 1, in *
    multiplier]``."""
    return jnp.reshape(f, (*f.shape[:2], 1, -1)) if depthwise else f


def convLowering(depthwise: bool) -> Callable[..., Any]:
    """The lowering of Conv2D (``depthwise``: of DepthwiseConv2dNative)."""

    def lower(site: LoweringSite, x: Any, f: Any) -> Any:
        window, fmt = _windowOf(site), str(site.attr("data_format"))
        shapes = _checked(lambda: runShapes(window, x.shape, f.shape, depthwise, fmt))
        return convolve(x, _flat(f, depthwise), shapes, fmt, site.dtype())

    return lower


def _nhwc(x: Any, fmt: str) -> Any:
    return jnp.transpose(x, (0, 2, 3, 1)) if fmt == "NCHW" else x


def _inFormat(x: Any, fmt: str) -> Any:
    return jnp.transpose(x, (0, 3, 1, 2)) if fmt == "NCHW" else x


def _conv(lhs: Any, rhs: Any, strides: tuple[int, int], pads: list[tuple[int, int]],
          wide: np.dtype[Any], **kw: Any) -> Any:
    """An NHWC-by-HWIO ``conv_general_dilated`` whose negative paddings are crops of the input
    (XLA's CPU convolutions with negative padding have returned garbage)."""
    crops = [(max(-lo, 0), max(-hi, 0)) for lo, hi in pads]
    if any(lo or hi for lo, hi in crops):
        (top, bottom), (left, right) = crops
        lhs = lhs[:, top : lhs.shape[1] - bottom, left : lhs.shape[2] - right, :]
    return jax.lax.conv_general_dilated(
        lhs, rhs, window_strides=strides, padding=[(max(lo, 0), max(hi, 0)) for lo, hi in pads],
        dimension_numbers=("NHWC", "HWIO", "NHWC"), precision=jax.lax.Precision.HIGHEST,
        preferred_element_type=wide, **kw,
    )


def inputGrad(f: Any, dy: Any, shapes: ConvShapes, dtype: np.dtype[Any]) -> Any:
    """The gradient of an NHWC input given NHWC ``dy`` and an ``[h, w, in / groups, out]``
    filter: ``dy`` dilated by the strides, convolved with the flipped filter (inputs and
    outputs swapped within each group)."""
    s, w, g = shapes.sizes, shapes.window, shapes.groups
    kh, kw, fc, fo = f.shape
    if 0 in (shapes.batch, s.inH, s.inW, shapes.inChannels, s.outH, s.outW, fo):
        return jnp.zeros((shapes.batch, s.inH, s.inW, shapes.inChannels), dtype)
    rhs = f.reshape(kh, kw, fc, g, fo // g).transpose(0, 1, 4, 3, 2).reshape(kh, kw, fo // g,
                                                                             g * fc)
    rhs = rhs[::-1, ::-1]
    (sh, sw) = w.strides
    pads = [(w.effective(0) - 1 - s.top, s.inH + s.top - 1 - (s.outH - 1) * sh),
            (w.effective(1) - 1 - s.left, s.inW + s.left - 1 - (s.outW - 1) * sw)]
    wide = np.dtype(np.float32) if dtype == np.float16 else dtype
    result = _conv(dy, rhs, (1, 1), pads, wide, lhs_dilation=w.strides,
                   rhs_dilation=w.dilations, feature_group_count=g)
    return result.astype(dtype)


def filterGrad(x: Any, dy: Any, shapes: ConvShapes, f: tuple[int, ...],
               dtype: np.dtype[Any]) -> Any:
    """The gradient of an ``[h, w, in / groups, out]`` filter given NHWC ``x`` and ``dy``: the
    input's channels as the batch, its batch as the features, convolved with ``dy`` dilated
    by the strides, in steps of the dilations."""
    s, w, g = shapes.sizes, shapes.window, shapes.groups
    if 0 in (shapes.batch, s.outH, s.outW) or 0 in f:
        return jnp.zeros(f, dtype)
    (sh, sw) = w.strides
    pads = [(s.top, w.effective(0) + (s.outH - 1) * sh - s.inH - s.top),
            (s.left, w.effective(1) + (s.outW - 1) * sw - s.inW - s.left)]
    wide = np.dtype(np.float32) if dtype == np.float16 else dtype
    result = _conv(jnp.transpose(x, (3, 1, 2, 0)), jnp.transpose(dy, (1, 2, 0, 3)), w.dilations,
                   pads, wide, rhs_dilation=w.strides, batch_group_count=g)
    return jnp.transpose(result, (1, 2, 0, 3)).astype(dtype)


def backpropInputLowering(depthwise: bool) -> Callable[..., Any]:
    """The lowering of Conv2DBackpropInput (``depthwise``: of its depthwise twin); the input
    sizes are static."""

    def lower(site: LoweringSite, sizes: Any, f: Any, dy: Any) -> Any:
        window, fmt, dtype = _windowOf(site), str(site.attr("data_format")), site.dtype()
        values = np.asarray(sizes)

        def sized() -> ConvShapes:
            given = sizesValue(values.ravel().tolist(), values.ndim, "input_sizes",
                               (4,) if depthwise else (2, 4))
            dims = backpropInputDims(given, f.shape, dy.shape, fmt)
            shapes = runShapes(window, dims, f.shape, depthwise, fmt)
            checkBackprop(dy.shape, shapes, fmt)
            return shapes

        shapes = _checked(sized)
        result = inputGrad(_flat(f, depthwise), _nhwc(dy, fmt), shapes, dtype)
        return _inFormat(result, fmt)

    return lower


def backpropFilterLowering(depthwise: bool) -> Callable[..., Any]:
    """The lowering of Conv2DBackpropFilter (``depthwise``: of its depthwise twin); the filter
    sizes are static."""

    def lower(site: LoweringSite, x: Any, sizes: Any, dy: Any) -> Any:
        window, fmt, dtype = _windowOf(site), str(site.attr("data_format")), site.dtype()
        values = np.asarray(sizes)

        def sized() -> tuple[list[int], ConvShapes]:
            dims = sizesValue(values.ravel().tolist(), values.ndim, "filter_sizes", (4,))
            shapes = runShapes(window, x.shape, dims, depthwise, fmt)
            checkBackprop(dy.shape, shapes, fmt)
            return dims, shapes

        dims, shapes = _checked(sized)
        kh, kw, fc, fo = dims
        flat = (kh, kw, 1, fc * fo) if depthwise else (kh, kw, fc, fo)
        result = filterGrad(_nhwc(x, fmt), _nhwc(dy, fmt), shapes, flat, dtype)
        return result.reshape(kh, kw, fc, fo)

    return lower


registerLowering("Conv2D", convLowering(depthwise=False))
registerLowering("Conv2DBackpropInput", backpropInputLowering(depthwise=False), static=(0,))
registerLowering("Conv2DBackpropFilter", backpropFilterLowering(depthwise=False), static=(1,))
registerLowering("DepthwiseConv2dNative", convLowering(depthwise=True))
registerLowering("DepthwiseConv2dNativeBackpropInput", backpropInputLowering(depthwise=True),
                 static=(0,))
registerLowering("DepthwiseConv2dNativeBackpropFilter", backpropFilterLowering(depthwise=True),
                 static=(1,))
