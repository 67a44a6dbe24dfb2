"""The XLA lowerings of :mod:`tfops.spec.nn_pool` and :mod:`tfops.spec.nn_pool_v1`: MaxPoolV2,
TensorFlow's first MaxPool (sizes as attributes, else the same lowerings), AvgPool and their
gradient ops.

The padded input's windows are gathered as ``[batch, out_h, out_w, channels, taps]``, one
strided slice per tap (:func:`_taps`); the gradients add one value per tap back (:func:`_spread`).
The rules are the numpy kernels' (TensorFlow's CPU kernels'): see
:mod:`tfops.backend.numpy.kernels.nn_pool`. The window sizes and strides of MaxPoolV2 and its
gradient ops are static inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError
from tfops.spec.nn_pool_v1 import V1_PADDINGS
from tfops.spec.nn_window import Sizes, Window, WindowError, poolSizes, poolTaps


def _nhwc(x: Any, fmt: str) -> Any:
    return jnp.transpose(x, (0, 2, 3, 1)) if fmt == "NCHW" else x


def _inFormat(x: Any, fmt: str) -> Any:
    return jnp.transpose(x, (0, 3, 1, 2)) if fmt == "NCHW" else x


def _lowest(dtype: np.dtype[Any]) -> Any:
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return np.asarray(info.min, dtype)


def _taps(x: Any, window: Window, sizes: Sizes) -> Any:
    """The windows of NHWC ``x`` as ``[batch, out_h, out_w, channels, taps]`` (zero
    padding)."""
    s = sizes
    padded = jnp.pad(x, ((0, 0), (s.top, s.bottom), (s.left, s.right), (0, 0)))
    (kh, kw), (sh, sw) = window.kernel, window.strides
    return jnp.stack([
        padded[:, i : i + (s.outH - 1) * sh + 1 : sh, j : j + (s.outW - 1) * sw + 1 : sw, :]
        for i in range(kh) for j in range(kw)
    ], axis=-1)


def _spread(parts: Any, window: Window, sizes: Sizes) -> Any:
    """The sum of ``parts`` ``[batch, out_h, out_w, channels, taps]`` over the input positions
    each tap read (NHWC, what fell on the padding dropped)."""
    s = sizes
    (kh, kw), (sh, sw) = window.kernel, window.strides
    height = max(s.top + s.inH + s.bottom, (s.outH - 1) * sh + kh)
    width = max(s.left + s.inW + s.right, (s.outW - 1) * sw + kw)
    total = jnp.zeros((parts.shape[0], height, width, parts.shape[3]), parts.dtype)
    for i in range(kh):
        for j in range(kw):
            total = total.at[:, i : i + (s.outH - 1) * sh + 1 : sh,
                             j : j + (s.outW - 1) * sw + 1 : sw, :].add(parts[..., i * kw + j])
    return total[:, s.top : s.top + s.inH, s.left : s.left + s.inW, :]


def _sized(opType: str, site: LoweringSite, shape: Sequence[int], sizes: Sequence[Any],
           fromAttrs: bool) -> tuple[Window, Sizes]:
    """The window of a pooling op against an input of shape ``shape``: from its attributes
    (AvgPool, TensorFlow's first MaxPool ops: ``fromAttrs``) or from its static ``ksize`` and
    ``strides`` inputs ``sizes`` (the V2 ops)."""
    padding, fmt = str(site.attr("padding")), str(site.attr("data_format"))
    try:
        if fromAttrs:
            return poolSizes(opType, list(site.attr("ksize")), list(site.attr("strides")),
                             padding, fmt, shape, list(site.attrs.get("explicit_paddings", ())),
                             V1_PADDINGS.get(opType, ("SAME", "VALID")))
        return poolSizes(opType, _values(sizes[0], "ksize"), _values(sizes[1], "strides"),
                         padding, fmt, shape)
    except WindowError as e:
        raise InvalidArgumentError(None, str(e)) from None


def _values(value: Any, name: str) -> list[int]:
    array = np.asarray(value)
    if array.ndim != 1 or array.shape[0] != 4:
        raise InvalidArgumentError(None, f"{name} must be a vector of 4 values, got shape "
                                   f"{list(array.shape)}")
    return [int(v) for v in array.tolist()]


def _checkShape(value: Any, name: str, expected: Sequence[int], fmt: str) -> None:
    n, h, w, c = expected
    want = [n, c, h, w] if fmt == "NCHW" else [n, h, w, c]
    if list(value.shape) != want:
        raise InvalidArgumentError(
            None, f"{name} has shape {list(value.shape)}, but pooling the input gives {want}"
        )


def _empty(sizes: Sizes, shape: Sequence[int]) -> bool:
    return 0 in (shape[0], shape[3], sizes.outH, sizes.outW)


def _onInput(window: Window, sizes: Sizes) -> Any:
    return poolTaps(window, sizes)[0][None, :, :, None, :]


def _counts(window: Window, sizes: Sizes) -> Any:
    return poolTaps(window, sizes)[1][None, :, :, None]


def _isNan(x: Any) -> Any:
    return jnp.isnan(x) if jnp.issubdtype(x.dtype, jnp.floating) else jnp.zeros(x.shape, bool)


# -- MaxPoolV2 and MaxPool --------------------------------------------------------------------
def _maxPoolLowering(opType: str, fromAttrs: bool) -> Callable[..., Any]:
    def lower(site: LoweringSite, x: Any, *sizes: Any) -> Any:
        fmt, dtype = str(site.attr("data_format")), site.dtype()
        window, s = _sized(opType, site, x.shape, sizes, fromAttrs)
        xs = _nhwc(x, fmt)
        if _empty(s, xs.shape):
            return _inFormat(jnp.zeros((xs.shape[0], s.outH, s.outW, xs.shape[3]), dtype), fmt)
        view = _taps(xs, window, s)
        keep = _onInput(window, s) & ~_isNan(view)
        return _inFormat(jnp.max(jnp.where(keep, view, _lowest(dtype)), axis=-1), fmt)

    return lower


registerLowering("MaxPoolV2", _maxPoolLowering("MaxPoolV2", fromAttrs=False), static=(1, 2))
registerLowering("MaxPool", _maxPoolLowering("MaxPool", fromAttrs=True))


# -- MaxPoolGradV2 and MaxPoolGradGradV2 -------------------------------------------------------
def _maxIndex(view: Any, onInput: Any) -> Any:
    nan = _isNan(view)
    key = jnp.where(onInput & ~nan, view, _lowest(np.dtype(view.dtype)))
    best = jnp.max(key, axis=-1, keepdims=True)
    chosen = jnp.argmax(onInput & (view == best) & ~nan, axis=-1)
    first = jnp.broadcast_to(jnp.argmax(jnp.asarray(onInput), axis=-1), chosen.shape)
    firstIsNan = jnp.take_along_axis(nan, first[..., None], axis=-1)[..., 0]
    return jnp.where(firstIsNan, first, chosen)


def _maxPoolGradLowering(opType: str, second: bool, fromAttrs: bool) -> Callable[..., Any]:
    def lower(site: LoweringSite, x: Any, y: Any, g: Any, *sizes: Any) -> Any:
        fmt, dtype = str(site.attr("data_format")), site.dtype()
        window, s = _sized(opType, site, x.shape, sizes, fromAttrs)
        xs, ys, gs = _nhwc(x, fmt), _nhwc(y, fmt), _nhwc(g, fmt)
        pooledDims = [xs.shape[0], s.outH, s.outW, xs.shape[3]]
        _checkShape(y, "orig_output", pooledDims, fmt)
        _checkShape(g, "grad", list(xs.shape) if second else pooledDims, fmt)
        if _empty(s, xs.shape):
            return jnp.zeros(tuple(int(d) for d in (y.shape if second else x.shape)), dtype)
        view, onInput = _taps(xs, window, s), _onInput(window, s)
        if second:
            hit = onInput & (view == ys[..., None])
            index = jnp.argmax(hit, axis=-1)[..., None]
            picked = jnp.take_along_axis(_taps(gs, window, s), index, axis=-1)[..., 0]
            return _inFormat(jnp.where(hit.any(axis=-1), picked, jnp.zeros((), dtype)), fmt)
        index = _maxIndex(view, onInput)
        taps = jnp.arange(view.shape[-1])
        parts = jnp.where(index[..., None] == taps, gs[..., None], jnp.zeros((), dtype))
        return _inFormat(_spread(parts, window, s), fmt)

    return lower


registerLowering("MaxPoolGradV2", _maxPoolGradLowering("MaxPoolGradV2", False, False),
                 static=(3, 4))
registerLowering("MaxPoolGradGradV2", _maxPoolGradLowering("MaxPoolGradGradV2", True, False),
                 static=(3, 4))
registerLowering("MaxPoolGrad", _maxPoolGradLowering("MaxPoolGrad", False, True))
registerLowering("MaxPoolGradGrad", _maxPoolGradLowering("MaxPoolGradGrad", True, True))


# -- AvgPool and AvgPoolGrad -------------------------------------------------------------------
def _wide(dtype: np.dtype[Any]) -> np.dtype[Any]:
    return np.dtype(np.float32) if dtype == np.float16 else dtype


@registerLowering("AvgPool")
def _avgPool(site: LoweringSite, x: Any) -> Any:
    fmt, dtype = str(site.attr("data_format")), site.dtype()
    window, sizes = _sized("AvgPool", site, x.shape, (), fromAttrs=True)
    xs = _nhwc(x, fmt)
    if _empty(sizes, xs.shape):
        return _inFormat(jnp.zeros((xs.shape[0], sizes.outH, sizes.outW, xs.shape[3]), dtype),
                         fmt)
    total = jnp.sum(_taps(xs, window, sizes), axis=-1, dtype=_wide(dtype))
    return _inFormat((total / _counts(window, sizes)).astype(dtype), fmt)


@registerLowering("AvgPoolGrad", static=(0,))
def _avgPoolGrad(site: LoweringSite, shape: Any, g: Any) -> Any:
    fmt, dtype = str(site.attr("data_format")), site.dtype()
    dims = _values(shape, "orig_input_shape")
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(None, f"orig_input_shape must not be negative, got {dims}")
    window, sizes = _sized("AvgPoolGrad", site, dims, (), fromAttrs=True)
    n, c = (dims[0], dims[1]) if fmt == "NCHW" else (dims[0], dims[3])
    _checkShape(g, "grad", [n, sizes.outH, sizes.outW, c], fmt)
    if 0 in dims or 0 in (sizes.outH, sizes.outW):
        return jnp.zeros(tuple(dims), dtype)
    shares = (_nhwc(g, fmt).astype(_wide(dtype)) / _counts(window, sizes)).astype(dtype)
    kh, kw = window.kernel
    parts = jnp.broadcast_to(shares[..., None], (*shares.shape, kh * kw))
    return _inFormat(_spread(parts, window, sizes), fmt)
