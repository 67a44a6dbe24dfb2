"""The geometry of TensorFlow's 2-D sliding windows, shared by the convolution and pooling specs
and by their kernels on every backend.

A window is read from an op's attributes once (:func:`convWindow`, :func:`poolWindow`: the
strides, dilations, window sizes and paddings of the two spatial dimensions, in the op's data
format) and sized against an input (:meth:`Window.size`): TensorFlow's output sizes and
paddings (``GetWindowedOutputSizeVerbose``). VALID pads nothing and keeps every window that fits;
SAME gives ``ceil(in / stride)`` outputs and pads what they need, the odd element after; EXPLICIT
pads what ``explicit_paddings`` says. Bad attributes and sizes raise :class:`WindowError`, whose
message the shape rule (at construction) and the kernels (at run time) report.

The attribute checks and the data formats' axes are :mod:`tfops.spec.nn_window_attrs`; this
module exports its :class:`WindowError` and format helpers too, so that the specs and the
kernels import the window from one place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from attrs import frozen

from tfops.spec.nn_window_attrs import (
    WindowError,
    checkFormat,
    checkPadding,
    explicitSides,
    formatAxes,
    fourInts,
    fromFormat,
    spatial,
    toFormat,
)

__all__ = [
    "ConvShapes",
    "Sizes",
    "Window",
    "WindowError",
    "backpropInputDims",
    "checkBackprop",
    "convChannels",
    "convShapes",
    "convWindow",
    "formatAxes",
    "fromFormat",
    "poolSizes",
    "poolTaps",
    "poolWindow",
    "runShapes",
    "sizesValue",
    "spatial",
    "toFormat",
]


@frozen
class Sizes:
    """A window sized against an input: output sizes and paddings of the spatial dimensions."""

    inH: int
    inW: int
    outH: int
    outW: int
    top: int
    bottom: int
    left: int
    right: int


@frozen
class Window:
    """The spatial window of one op: sizes, strides, dilations and padding, as (height,
    width)."""

    kernel: tuple[int, int]
    strides: tuple[int, int]
    dilations: tuple[int, int]
    padding: str
    explicit: tuple[int, int, int, int] = (0, 0, 0, 0)
    """top, bottom, left, right (EXPLICIT padding only)."""

    def withKernel(self, kernel: tuple[int, int]) -> Window:
        """The same window with the filter's spatial size (a convolution's comes from its
        filter)."""
        return Window(kernel, self.strides, self.dilations, self.padding, self.explicit)

    def effective(self, axis: int) -> int:
        """The extent of the dilated window along spatial ``axis`` (0: height, 1: width)."""
        return (self.kernel[axis] - 1) * self.dilations[axis] + 1

    def outputSize(self, size: int, axis: int, strict: bool = True) -> tuple[int, int, int]:
        """(output size, padding before, padding after) along spatial ``axis``.

        ``strict`` (TensorFlow's shape functions, at construction): the padded input must hold
        one window. Otherwise (TensorFlow's kernels, at run time) the output size is
        ``(padded - window + stride) / stride`` rounded toward zero, so a window that overhangs
        by less than a stride gives an empty output.

        Raises:
            WindowError: with VALID or EXPLICIT padding, the window does not fit the input.
        """
        stride, extent = self.strides[axis], self.effective(axis)
        if self.padding == "SAME":
            out = (size + stride - 1) // stride
            needed = max((out - 1) * stride + extent - size, 0)
            return out, needed // 2, needed - needed // 2
        before, after = (
            (self.explicit[2 * axis], self.explicit[2 * axis + 1])
            if self.padding == "EXPLICIT"
            else (0, 0)
        )
        padded = size + before + after
        if not strict:
            span = padded - extent + stride
            out = span // stride if span >= 0 else -(-span // stride)
            if out < 0:
                raise WindowError(
                    f"Computed output size would be negative: {out} [input_size: {size}, "
                    f"effective_filter_size: {extent}, stride: {stride}]"
                )
            return out, before, after
        if padded < extent:
            name = ("height", "width")[axis]
            raise WindowError(
                f"the window does not fit: the input's {name} {size}"
                + (f" padded by {before} + {after}" if before or after else "")
                + f" is smaller than the window's {name} {extent} with {self.padding} padding"
            )
        return (padded - extent) // stride + 1, before, after

    def size(self, inH: int, inW: int, strict: bool = True) -> Sizes:
        """The window sized against an input of spatial size ``inH`` x ``inW`` (``strict``:
        see :meth:`outputSize`)."""
        outH, top, bottom = self.outputSize(inH, 0, strict)
        outW, left, right = self.outputSize(inW, 1, strict)
        return Sizes(inH, inW, outH, outW, top, bottom, left, right)


def convWindow(
    opType: str,
    strides: Sequence[int],
    padding: str,
    dataFormat: str,
    dilations: Sequence[int] = (1, 1, 1, 1),
    explicitPaddings: Sequence[int] = (),
) -> Window:
    """The window of a convolution's attributes (its kernel size, from the filter, is 1 x 1
    until :meth:`Window.withKernel`).

    Raises:
        WindowError: an attribute the op cannot take.
    """
    checkFormat(dataFormat, ("NHWC", "NCHW"))
    checkPadding(padding, ("SAME", "VALID", "EXPLICIT"))
    s = fourInts("stride", strides, opType, dataFormat)
    d = fourInts("dilation", dilations, opType, dataFormat)
    n, h, w, c = formatAxes(dataFormat)
    if s[n] != 1 or s[c] != 1:
        raise WindowError(
            f"strides in the batch and depth dimensions are not supported, got {s}: they must be 1"
        )
    if d[n] != 1 or d[c] != 1:
        raise WindowError(
            f"dilations in the batch and depth dimensions are not supported, got {d}: they "
            "must be 1"
        )
    if s[h] < 1 or s[w] < 1:
        raise WindowError(f"Stride must be > 0, but got {s}")
    if d[h] < 1 or d[w] < 1:
        raise WindowError(f"Dilation rate must be >= 1, but got {d}")
    pads = explicitSides(padding, explicitPaddings, dataFormat)
    return Window((1, 1), (s[h], s[w]), (d[h], d[w]), padding, pads)


def poolWindow(
    opType: str,
    ksize: Sequence[int],
    strides: Sequence[int],
    padding: str,
    dataFormat: str,
    explicitPaddings: Sequence[int] = (),
    paddings: Sequence[str] = ("SAME", "VALID"),
) -> Window:
    """The window of a pooling op's attributes (or of MaxPoolV2's ``ksize`` and ``strides``
    inputs).

    Raises:
        WindowError: an attribute the op cannot take. Pooling over the batch or the depth
            dimension is not supported (TensorFlow's CPU kernels pool over the batch never, and
            over the depth only in MaxPool, with a spatial window of 1).
    """
    checkFormat(dataFormat, ("NHWC", "NCHW"))
    checkPadding(padding, paddings)
    k = fourInts("ksize", ksize, opType, dataFormat)
    s = fourInts("stride", strides, opType, dataFormat)
    n, h, w, c = formatAxes(dataFormat)
    if k[n] != 1 or s[n] != 1 or k[c] != 1 or s[c] != 1:
        raise WindowError(
            f"pooling over the batch or depth dimension is not supported: ksize {k} and "
            f"strides {s} must be 1 there"
        )
    if k[h] < 1 or k[w] < 1:
        raise WindowError(f"Sliding window ksize must be positive, got {k}")
    if s[h] < 1 or s[w] < 1:
        raise WindowError(f"Sliding window stride must be positive, got {s}")
    pads = explicitSides(padding, explicitPaddings, dataFormat)
    if pads[0] >= k[h] or pads[1] >= k[h] or pads[2] >= k[w] or pads[3] >= k[w]:
        raise WindowError(
            f"explicit paddings {list(pads)} (top, bottom, left, right) must be smaller than "
            f"the window size {k[h]} x {k[w]}"
        )
    return Window((k[h], k[w]), (s[h], s[w]), (1, 1), padding, pads)


@frozen
class ConvShapes:
    """A convolution sized against its input and filter.

    The filter is ``[height, width, inChannels / groups, outChannels]``: with several groups
    (input channels a multiple of the filter's), each group of input channels is convolved with
    its own slice of the output channels. A depthwise convolution is the case of one group per
    input channel, its filter ``[height, width, inChannels, multiplier]`` read as
    ``[height, width, 1, inChannels * multiplier]``.
    """

    window: Window
    sizes: Sizes
    batch: int
    inChannels: int
    groups: int
    outChannels: int


def convChannels(c: int, fc: int, fo: int, depthwise: bool) -> tuple[int, int]:
    """(groups, output channels) of a convolution of ``c`` input channels by a filter of
    ``fc`` input and ``fo`` output channels (-1: not known yet, then so is the result's
    share of it).

    Raises:
        WindowError: the filter's depth does not divide the input's.
    """
    if depthwise:
        if c != fc:
            raise WindowError(f"the input depth {c} does not match the filter's input depth {fc}")
        return c, c * fo if fo >= 0 else -1
    if c < fc or c % fc:
        raise WindowError(f"Depth of input ({c}) is not a multiple of input depth of filter ({fc})")
    groups = c // fc
    if fo >= 0 and fo % groups:
        raise WindowError(
            f"Depth of output ({fo}) is not a multiple of the number of groups ({groups})"
        )
    return groups, fo


def convShapes(
    window: Window,
    x: Sequence[int],
    f: Sequence[int],
    depthwise: bool = False,
    strict: bool = True,
) -> ConvShapes:
    """Sizes a convolution of an input of (batch, height, width, channels) ``x`` with a filter
    of shape ``f`` (``strict``: see :meth:`Window.outputSize`).

    Raises:
        WindowError: the filter is empty, its depth does not divide the input's, or the window
            does not fit.
    """
    n, h, w, c = (int(d) for d in x)
    kh, kw, fc, fo = (int(d) for d in f)
    if min(kh, kw, fc, fo) < 1:
        raise WindowError(
            f"the filter must not be empty (every dimension positive), got shape {list(f)}"
        )
    groups, out = convChannels(c, fc, fo, depthwise)
    sized = window.withKernel((kh, kw))
    return ConvShapes(sized, sized.size(h, w, strict), n, c, groups, out)


# -- what the kernels check at run time -------------------------------------------------------
def runShapes(
    window: Window, x: Sequence[int], f: Sequence[int], depthwise: bool, dataFormat: str
) -> ConvShapes:
    """Sizes a convolution at run time: input shape ``x`` in ``dataFormat`` order, filter
    shape ``f`` (TensorFlow's kernels' output sizes: see :meth:`Window.outputSize`).

    Raises:
        WindowError: the shapes do not go together.
    """
    if len(x) != 4 or len(f) != 4:
        raise WindowError(
            f"input and filter must be 4-dimensional, got shapes {list(x)} and {list(f)}"
        )
    return convShapes(window, fromFormat(x, dataFormat), f, depthwise, strict=False)


def checkBackprop(dy: Sequence[int], shapes: ConvShapes, dataFormat: str) -> None:
    """``out_backprop``'s shape ``dy`` (``dataFormat`` order) is the convolution's output's.

    Raises:
        WindowError: it is not.
    """
    s = shapes.sizes
    expected = toFormat((shapes.batch, s.outH, s.outW, shapes.outChannels), dataFormat)
    if tuple(int(d) for d in dy) != expected:
        raise WindowError(
            f"out_backprop has shape {list(dy)}, but the convolution gives {list(expected)}"
        )


def sizesValue(value: Sequence[int], rank: int, name: str, lengths: Sequence[int]) -> list[int]:
    """The values of a sizes input (``input_sizes``, ``filter_sizes``) of rank ``rank``: a
    vector of one of ``lengths`` non-negative values.

    Raises:
        WindowError: it is not.
    """
    dims = [int(d) for d in value]
    if rank != 1 or len(dims) not in lengths or any(d < 0 for d in dims):
        expected = " or ".join(str(n) for n in lengths)
        raise WindowError(f"{name} must be a vector of {expected} non-negative values, got {dims}")
    return dims


def backpropInputDims(
    sizes: list[int], f: Sequence[int], dy: Sequence[int], dataFormat: str
) -> list[int]:
    """The input shape (``dataFormat`` order) ``input_sizes`` gives: its 4 values, or its 2
    spatial ones with the batch of ``out_backprop`` (``dy``) and the depth of the filter.

    Raises:
        WindowError: with 2 sizes, the filter or ``out_backprop`` is not 4-D.
    """
    if len(sizes) == 4:
        return sizes
    if len(dy) != 4 or len(f) != 4:
        raise WindowError(
            f"filter and out_backprop must be 4-dimensional, got shapes {list(f)} and {list(dy)}"
        )
    return list(toFormat((int(dy[0]), sizes[0], sizes[1], int(f[2])), dataFormat))


def poolTaps(window: Window, sizes: Sizes) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Which taps of each pooling window lie on the input (not on the padding), as a boolean
    ``[out_height, out_width, k_height * k_width]`` (taps in row-major order), and how many
    each window holds, ``[out_height, out_width]``."""
    (kh, kw), (sh, sw) = window.kernel, window.strides
    rows = np.arange(sizes.outH)[:, None] * sh + np.arange(kh)[None, :] - sizes.top
    cols = np.arange(sizes.outW)[:, None] * sw + np.arange(kw)[None, :] - sizes.left
    onRows = (rows >= 0) & (rows < sizes.inH)
    onCols = (cols >= 0) & (cols < sizes.inW)
    taps = onRows[:, None, :, None] & onCols[None, :, None, :]
    counts = onRows.sum(1)[:, None] * onCols.sum(1)[None, :]
    return np.reshape(taps, (sizes.outH, sizes.outW, kh * kw)), counts


def poolSizes(
    opType: str,
    ksize: Sequence[int],
    strides: Sequence[int],
    padding: str,
    dataFormat: str,
    x: Sequence[int],
    explicitPaddings: Sequence[int] = (),
    paddings: Sequence[str] = ("SAME", "VALID"),
) -> tuple[Window, Sizes]:
    """A pooling window sized at run time against an input of shape ``x`` (``dataFormat``
    order); ``explicitPaddings`` and ``paddings`` as :func:`poolWindow`'s.

    Raises:
        WindowError: the attributes, the sizes or the input's rank are bad.
    """
    if len(x) != 4:
        raise WindowError(f"input must be 4-dimensional, got shape {list(x)}")
    window = poolWindow(opType, ksize, strides, padding, dataFormat, explicitPaddings, paddings)
    _, h, w, _ = fromFormat(x, dataFormat)
    return window, window.size(h, w, strict=False)
