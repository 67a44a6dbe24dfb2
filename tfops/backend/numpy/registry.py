"""The numpy backend's kernel table: one kernel factory per op type, with its hints.

A factory is called when a plan binds the op (once per compiled request) with a
:class:`KernelSite`: the op's attributes, and what the plan knows before it runs (the values of
constant inputs, the inputs' static shapes, the session's memory limit). It returns the kernel,
a function of the input arrays returning the output array (a tuple of them for several
outputs) of exactly the output's data type; a stateful op's kernel takes the session's
:class:`~tfops.backend.numpy.state.KernelContext` first. A factory may return a kernel
specialized to what the site settles (constant axes normalized once), as long as it gives
exactly the general kernel's results on every input the plan can pass.

Kernels raise ``InvalidArgumentError(None, message)`` for bad values at run time; the session
names the op and where it was created.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias, overload

import numpy as np
from attrs import frozen

from tfops.errors import IllegalArgumentError, ResourceExhaustedError
from tfops.shape import Shape
from tfops.types import TType

__all__ = [
    "Array",
    "Factory",
    "Kernel",
    "KernelSite",
    "NumpyKernel",
    "broadcasting",
    "checkAllocation",
    "elementwise",
    "lookupKernel",
    "registerKernel",
    "registeredKernels",
]

Array: TypeAlias = "np.ndarray[Any, Any]"
Kernel: TypeAlias = Callable[..., Any]


@frozen
class KernelSite:
    """What a kernel factory knows about one op when a plan binds its kernel.

    Attributes:
        attrs: the op's attributes (TensorFlow's names).
        constants: per input, its value when the plan knows it before running, else ``None``.
        shapes: per input, its static shape.
        memoryLimit: the largest tensor, in bytes, a run of the session may allocate.
    """

    attrs: Mapping[str, Any]
    constants: tuple[Array | None, ...] = ()
    shapes: tuple[Shape, ...] = ()
    memoryLimit: int = 1 << 62

    def attr(self, name: str) -> Any:
        """The value of attribute ``name``."""
        return self.attrs[name]

    def knowsShapes(self) -> bool:
        """Whether every input's shape is fully known before the run."""
        return all(s.isFullyKnown() for s in self.shapes)


Factory: TypeAlias = Callable[[KernelSite], Kernel]


@frozen
class NumpyKernel:
    """A registered kernel factory and what the executor may rely on about its kernels.

    ``fresh``: the kernel's results are always arrays it allocated itself, never one of its
    inputs nor a view of one, so an executor may reuse their memory once they die.
    """

    factory: Factory
    fresh: bool = False


_KERNELS: dict[str, NumpyKernel] = {}
_LOCK = threading.Lock()


@overload
def registerKernel(opType: str, factory: Factory, *, fresh: bool = False) -> Factory: ...


@overload
def registerKernel(
    opType: str, factory: None = None, *, fresh: bool = False
) -> Callable[[Factory], Factory]: ...


def registerKernel(
    opType: str, factory: Factory | None = None, *, fresh: bool = False
) -> Factory | Callable[[Factory], Factory]:
    """Registers the numpy kernel factory of ``opType`` (a call, or a decorator).

    Raises:
        ValueError: ``opType`` already has a numpy kernel.
    """

    def register(f: Factory) -> Factory:
        with _LOCK:
            if opType in _KERNELS:
                raise IllegalArgumentError(f"op type {opType!r} already has a numpy kernel")
            _KERNELS[opType] = NumpyKernel(f, fresh)
        return f

    return register(factory) if factory is not None else register


def lookupKernel(opType: str) -> NumpyKernel | None:
    """The numpy kernel of ``opType``, or ``None``."""
    return _KERNELS.get(opType)


def registeredKernels() -> frozenset[str]:
    """The op types that have a numpy kernel."""
    return frozenset(_KERNELS)


def checkAllocation(
    dims: Sequence[int], dtype: Any, limit: int, what: str = "the result"
) -> None:
    """Raises ``ResourceExhaustedError`` when a tensor of ``dims`` would exceed ``limit`` bytes:
    kernels whose output size comes from input values call it before allocating, so a huge
    request fails with a clear error instead of exhausting the machine."""
    size = int(np.dtype(dtype).itemsize)
    for d in dims:
        size *= int(d)
    if size > limit:
        raise ResourceExhaustedError(
            None, f"{what} of shape {list(dims)} needs {size:,} bytes, more than the session's "
            f"memory limit of {limit:,} bytes"
        )


def elementwise(fn: Callable[..., Array]) -> Factory:
    """The factory of a kernel that is ``fn`` whatever the site (most elementwise ops)."""
    return lambda site: fn


def broadcasting(fn: Callable[[Array, Array], Array], out: type[TType] | None = None) -> Factory:
    """The factory of a broadcasting binary op's kernel ``fn``, guarded by the memory limit.

    When the inputs' static shapes are fully known, the plan checked the broadcast result
    against the limit before running, so ``fn`` runs unguarded. Otherwise only inputs whose
    sizes multiply past an eighth of the limit can broadcast to a result past it, so they pay
    one multiplication, and the others the broadcast shape's check. ``out`` is the result's
    data type when it is fixed (comparisons).
    """

    def factory(site: KernelSite) -> Kernel:
        if site.knowsShapes():
            return fn
        limit = site.memoryLimit
        # the result has at most as many elements as the inputs' sizes multiplied, of at most
        # eight bytes each: inputs whose sizes multiply to no more than this cannot exceed it
        cheap = limit // 8

        def guarded(x: Array, y: Array) -> Array:
            if np.size(x) * np.size(y) > cheap:
                shape = np.broadcast_shapes(np.shape(x), np.shape(y))
                checkAllocation(
                    shape, out.DTYPE if out is not None else np.result_type(x, y), limit
                )
            result: Array = fn(x, y)
            return result

        return guarded

    return factory
