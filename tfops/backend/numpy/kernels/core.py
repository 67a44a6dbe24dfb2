"""numpy kernels of the core ops (``tfops.spec.core``, ``tfops.spec.array_reduce``): Const,
Placeholder, Identity, StopGradient and the reductions along axes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfops.backend.numpy.registry import Array, Kernel, KernelSite, registerKernel
from tfops.errors import InvalidArgumentError
from tfops.spec.rules import normalizeAxes, reductionAxes


@registerKernel("Const")
def _const(site: KernelSite) -> Kernel:
    value = site.attr("value")
    return lambda: value


@registerKernel("Placeholder")
def _placeholder(site: KernelSite) -> Kernel:
    def unfed() -> Array:
        raise InvalidArgumentError(None, "a placeholder must be fed a value (runner().feed)")

    return unfed


def _same(site: KernelSite) -> Kernel:
    return lambda x: x


registerKernel("Identity", _same)
registerKernel("StopGradient", _same)


# -- reductions ----------------------------------------------------------------------------
Reduce = Callable[[Array, tuple[int, ...], bool], Array]


def _lowest(x: Array) -> Any:
    return -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min


def _highest(x: Array) -> Any:
    return np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).max


def _extremum(fn: Any, identity: Callable[[Array], Any]) -> Reduce:
    """np.max or np.min, giving the identity of the reduction for no elements (as TF)."""

    def reduce(x: Array, axes: tuple[int, ...], keep: bool) -> Array:
        if x.size == 0:
            return fn(x, axis=axes, keepdims=keep, initial=identity(x))  # type: ignore[no-any-return]
        return fn(x, axis=axes, keepdims=keep)  # type: ignore[no-any-return]

    return reduce


def _reduction(opType: str, reduce: Reduce, direct: tuple[Any, bool] | None = None) -> None:
    """Registers the kernel of a reduction ``reduce(x, axes, keep)`` over the axes in input 1.

    ``direct`` is ``(ufunc, sameType)``: the ufunc whose ``reduce`` computes the same for a
    non-empty ``x`` with a cheaper call (what ``np.sum`` calls), and whether it is given
    ``x``'s data type as ``dtype``. With constant axes and a known rank, the axes are
    normalized once, when the plan binds the kernel.
    """

    def factory(site: KernelSite) -> Kernel:
        keep = bool(site.attr("keep_dims"))
        rank = site.shapes[0].numDimensions() if site.shapes else -1
        shortcut = direct
        if direct is not None and direct[1] and site.attr("T").DTYPE == np.float16:
            shortcut = None  # float16 is summed wider than its data type, by ``reduce``
        axesValue = site.constants[1] if len(site.constants) > 1 else None
        if axesValue is not None and rank >= 1:
            try:
                axes = normalizeAxes(None, np.asarray(axesValue), rank)
            except InvalidArgumentError:
                axes = None  # the general kernel raises at run time
            if axes is not None:
                return _constantAxes(reduce, shortcut, axes, keep)

        def run(x: Array, axes: Array) -> Array:
            return reduce(x, reductionAxes(x, axes), keep)

        return run

    registerKernel(opType, factory, fresh=True)


def _constantAxes(
    reduce: Reduce, direct: tuple[Any, bool] | None, axes: tuple[int, ...], keep: bool
) -> Kernel:
    if direct is None:
        return lambda x, _: reduce(x, axes, keep)
    ufunc, sameType = direct
    if sameType:  # the result keeps the input's data type, as np.sum(..., dtype=x.dtype)
        return lambda x, _: ufunc.reduce(x, axes, x.dtype, None, keep) if x.size else (
            reduce(x, axes, keep))
    return lambda x, _: ufunc.reduce(x, axes, None, None, keep) if x.size else (
        reduce(x, axes, keep))


_reduction("Max", _extremum(np.max, _lowest), (np.maximum, False))
_reduction("Min", _extremum(np.min, _highest), (np.minimum, False))


def sumOf(x: Array, axes: tuple[int, ...] | None, keep: bool) -> Array:
    """The sum in ``x``'s data type; float16 is summed in float32 and rounded once, so the
    result does not depend on the order numpy adds in (the memory layout of ``x``)."""
    if x.dtype == np.float16:
        return np.asarray(np.sum(x, axis=axes, keepdims=keep, dtype=np.float32), np.float16)
    return np.sum(x, axis=axes, keepdims=keep, dtype=x.dtype)


_reduction("Sum", sumOf, (np.add, True))
_reduction("Prod", lambda x, axes, keep: np.prod(x, axis=axes, keepdims=keep, dtype=x.dtype))
_reduction("All", lambda x, axes, keep: np.all(x, axis=axes, keepdims=keep))
_reduction("Any", lambda x, axes, keep: np.any(x, axis=axes, keepdims=keep))


@registerKernel("Rank")
def _rank(site: KernelSite) -> Kernel:
    return lambda x: np.array(x.ndim, np.int32)


@registerKernel("Size")
def _size(site: KernelSite) -> Kernel:
    dtype = site.attr("out_type").DTYPE
    return lambda x: np.array(x.size, dtype)
