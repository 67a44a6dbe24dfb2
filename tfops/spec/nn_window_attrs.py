"""The attributes of TensorFlow's 2-D sliding windows, read and checked: the axes of a data
format (NHWC, NCHW), the 4-vectors of strides, dilations and window sizes, the padding
algorithm and the explicit paddings. :mod:`tfops.spec.nn_window` builds its windows from them
(and exports :class:`WindowError` and the format helpers with them). A bad attribute raises
:class:`WindowError`, whose message the shape rule (at construction) and the kernels (at run
time) report.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "WindowError",
    "checkFormat",
    "checkPadding",
    "explicitSides",
    "formatAxes",
    "fourInts",
    "fromFormat",
    "spatial",
    "toFormat",
]


class WindowError(Exception):
    """An attribute or a size the window cannot take; the message says which and why."""


def formatAxes(dataFormat: str) -> tuple[int, int, int, int]:
    """The axes of (batch, height, width, channels) in a 4-D tensor of ``dataFormat``."""
    return (0, 2, 3, 1) if dataFormat == "NCHW" else (0, 1, 2, 3)


def spatial(values: Sequence[int], dataFormat: str) -> tuple[int, int]:
    """The (height, width) entries of a 4-vector in ``dataFormat`` order."""
    _, h, w, _ = formatAxes(dataFormat)
    return int(values[h]), int(values[w])


def fromFormat(dims: Sequence[int], dataFormat: str) -> tuple[int, int, int, int]:
    """A 4-vector in ``dataFormat`` order as (batch, height, width, channels)."""
    n, h, w, c = formatAxes(dataFormat)
    return int(dims[n]), int(dims[h]), int(dims[w]), int(dims[c])


def toFormat(nhwc: Sequence[int], dataFormat: str) -> tuple[int, int, int, int]:
    """(batch, height, width, channels) as a 4-vector in ``dataFormat`` order."""
    n, h, w, c = nhwc
    return (n, c, h, w) if dataFormat == "NCHW" else (n, h, w, c)


# -- the checks of the attributes -------------------------------------------------------------
def fourInts(name: str, values: Sequence[int], opType: str, dataFormat: str) -> list[int]:
    """``values``, an attribute of 4 ints (``name``: strides, dilations, ksize), as a list."""
    if len(values) != 4:
        raise WindowError(
            f"{opType} on data format {dataFormat} requires the {name} attribute to contain 4 "
            f"values, but got: {len(values)}"
        )
    return [int(v) for v in values]


def checkFormat(dataFormat: str, allowed: Sequence[str]) -> None:
    """Raises :class:`WindowError` unless ``dataFormat`` is one of ``allowed``."""
    if dataFormat not in allowed:
        raise WindowError(
            f"data_format {dataFormat!r} is not supported; it must be one of "
            + ", ".join(repr(f) for f in allowed)
        )


def checkPadding(padding: str, allowed: Sequence[str]) -> None:
    """Raises :class:`WindowError` unless ``padding`` is one of ``allowed``."""
    if padding not in allowed:
        raise WindowError(
            f"padding {padding!r} is not supported; it must be one of "
            + ", ".join(repr(p) for p in allowed)
        )


def explicitSides(
    padding: str, values: Sequence[int], dataFormat: str
) -> tuple[int, int, int, int]:
    """The (top, bottom, left, right) paddings of ``explicit_paddings`` (``values``, 8 ints in
    ``dataFormat`` order): all zeros unless ``padding`` is EXPLICIT, when they must be
    non-negative and zero in the batch and depth dimensions."""
    pads = [int(v) for v in values]
    if padding != "EXPLICIT":
        if pads:
            raise WindowError(
                "explicit_paddings attribute must be empty if the padding attribute is not "
                f"EXPLICIT, got {pads}"
            )
        return (0, 0, 0, 0)
    if len(pads) != 8:
        raise WindowError(
            f"explicit_paddings attribute must contain 8 values, but got: {len(pads)}"
        )
    if any(p < 0 for p in pads):
        raise WindowError(f"All elements of explicit_paddings must be nonnegative, got {pads}")
    n, h, w, c = formatAxes(dataFormat)
    if pads[2 * n] or pads[2 * n + 1] or pads[2 * c] or pads[2 * c + 1]:
        raise WindowError(
            "Nonzero explicit padding in the batch or depth dimensions is not supported, got "
            f"{pads}"
        )
    return pads[2 * h], pads[2 * h + 1], pads[2 * w], pads[2 * w + 1]
