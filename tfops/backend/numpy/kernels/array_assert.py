"""The numpy kernels of :mod:`tfops.spec.array_assert`: Assert, and the summary of a tensor
its message shows, written as TensorFlow's ``Tensor::SummarizeValue`` writes it."""

from __future__ import annotations

import numpy as np

from tfops.backend.numpy.registry import Array, Kernel, KernelSite, registerKernel
from tfops.backend.numpy.state import KernelContext
from tfops.errors import InvalidArgumentError


def _element(value: object, dtype: np.dtype[np.generic]) -> str:
    """One element as TensorFlow prints it: bools as 1/0, floats in the fewest of 6 (float32)
    or 15 (float64) significant digits that read back the same, else 9 or 17."""
    if dtype == np.bool_:
        return "1" if value else "0"
    if dtype.kind != "f":
        return str(int(value))  # type: ignore[call-overload]
    number = float(value)  # type: ignore[arg-type]
    short, full, kind = (15, 17, np.float64) if dtype == np.float64 else (6, 9, np.float32)
    text = f"{number:.{short}g}"
    if kind(text) != kind(number) and not np.isnan(number):
        text = f"{number:.{full}g}"
    return text


def summarize(value: Array, limit: int) -> str:
    """``value`` as TensorFlow's ``SummarizeValue(limit)``: its first ``limit`` elements (all
    for a negative ``limit``), nested in brackets as its dimensions, ``...`` where some are
    left out."""
    flat = value.reshape(-1)
    count = flat.size if limit < 0 else min(limit, flat.size)
    items = [_element(v, value.dtype) for v in flat[:count].tolist()]
    if value.ndim == 0:
        text = " ".join(items)
    else:
        text = _dimension(list(value.shape), 0, items, [0])
    return text + ("..." if flat.size > count else "")


def _dimension(shape: list[int], axis: int, items: list[str], printed: list[int]) -> str:
    """Dimension ``axis`` of the tensor, from element ``printed[0]`` on (TensorFlow's
    ``PrintOneDim``); only ``len(items)`` elements are printed in all."""
    limit = len(items)
    if printed[0] >= limit:
        return ""
    parts: list[str] = []
    if axis == len(shape) - 1:
        for i in range(shape[axis]):
            if printed[0] >= limit:
                if axis != 0:
                    parts.append("...")
                break
            parts.append((" " if i > 0 else "") + items[printed[0]])
            printed[0] += 1
        return "".join(parts)
    for _ in range(shape[axis]):
        opened = printed[0] < limit
        inner = _dimension(shape, axis + 1, items, printed)
        if opened:
            parts.append("[" + inner + "]")
        else:
            parts.append(inner)
    return "".join(parts)


def assertionMessage(data: tuple[Array, ...], limit: int) -> str:
    """Assert's message for a false condition."""
    return "assertion failed: " + " ".join(f"[{summarize(np.asarray(d), limit)}]" for d in data)


def checkCondition(condition: Array) -> None:
    """Raises unless ``condition`` is a scalar, as TensorFlow's kernel requires."""
    if condition.ndim != 0:
        raise InvalidArgumentError(None, f"condition must be a scalar, got a tensor of shape "
                                   f"{list(condition.shape)}")


@registerKernel("Assert")
def _assert(site: KernelSite) -> Kernel:
    limit = int(site.attr("summarize"))

    def run(ctx: KernelContext, condition: Array, *data: Array) -> tuple[()]:
        checkCondition(condition)
        if not bool(condition):
            raise InvalidArgumentError(None, assertionMessage(data, limit))
        return ()

    return run
