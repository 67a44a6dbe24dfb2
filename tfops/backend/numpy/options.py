"""The numpy backend's tuning, as a value: ``NumpyBackend(NumpyOptions(...))``."""

from __future__ import annotations

import os

from attrs import field, frozen

from tfops.errors import IllegalArgumentError

__all__ = ["NumpyOptions"]


def _cores() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return max(1, len(affinity(0)) if affinity is not None else (os.cpu_count() or 1))


def _positive(instance: object, attribute: object, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        name = getattr(attribute, "name", "option")
        raise IllegalArgumentError(f"NumpyOptions.{name} must be an int >= 1, got {value!r}")


@frozen
class NumpyOptions:
    """How the numpy backend compiles and runs requests (``docs/performance.md``).

    The defaults suit the machine of ``docs/performance.md``; results are the same with any
    values, only speed and memory change.

    Attributes:
        foldLimit: bytes; a constant folded when a request is compiled is kept only up to this
            size (larger ones are computed at run time, as TensorFlow's grappler does).
        large: elements; a run with a feed or constant this large takes the fused function,
            whose groups of elementwise ops run slice by slice.
        sliceBytes: bytes of each intermediate in a slice of a fused group whose steps are all
            numpy ufuncs (they write into scratch buffers the group keeps): small enough for a
            slice's intermediates to stay in cache, large enough that the Python calls of a
            slice cost little against its arithmetic.
        allocatingSliceBytes: the same for a group with a kernel that allocates its result (not
            a ufunc): below glibc's 128 KiB threshold, such allocations come from the heap
            rather than from freshly mapped pages.
        onePassBytes: bytes; a fused group whose tensors are at most this large runs in one pass
            over whole arrays rather than slice by slice (they are in cache anyway).
        threads: threads a large fused group runs on (default: the cores this process may use).
        parallel: elements; a fused group this large runs on ``threads`` threads.
        fusionCopies: groups a cheap elementwise step may be recomputed in, rather than
            written to memory and read back.
    """

    foldLimit: int = field(default=10 << 20, validator=_positive)
    large: int = field(default=1 << 15, validator=_positive)
    sliceBytes: int = field(default=1 << 20, validator=_positive)
    allocatingSliceBytes: int = field(default=1 << 16, validator=_positive)
    onePassBytes: int = field(default=1 << 20, validator=_positive)
    threads: int = field(factory=_cores, validator=_positive)
    parallel: int = field(default=1 << 22, validator=_positive)
    fusionCopies: int = field(default=2, validator=_positive)
