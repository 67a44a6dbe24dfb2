"""What the parts of the numpy executor share: the steps of a compiled request."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfops.backend.numpy.registry import Kernel
from tfops.errors import ResourceExhaustedError
from tfops.operation import Operation

Array = np.ndarray[Any, Any]


class _Step:
    """One kernel call (one line of a generated function), over value numbers: the values it
    reads, and those it defines (``None`` for an output that is fed)."""

    __slots__ = ("op", "kernel", "ins", "outs", "single", "keep", "pooled", "fresh")

    def __init__(
        self, op: Operation, kernel: Kernel, ins: list[int], outs: list[int | None],
        keep: bool = False, pooled: bool = False, fresh: bool = False,
    ) -> None:
        self.op = op  # the op a failure is reported for
        self.kernel = kernel
        self.ins = ins
        self.outs = outs
        self.single = pooled or _single(op)
        self.keep = keep  # runs even when nothing reads its outputs (effects, a known failure)
        self.pooled = pooled  # a fused group: takes the run's pool of free buffers first
        self.fresh = fresh  # its results are new memory, never an input nor a view of one


class _FailedInError(Exception):
    """A failure inside a fused group, with the op that failed."""

    def __init__(self, op: Operation, error: Exception) -> None:
        super().__init__(str(error))
        self.op = op
        self.error = error


def _sizeUnknown(op: Operation) -> bool:
    """Whether some output of ``op`` has a shape the plan does not know (so its size is
    checked against the memory limit when it is made, ``_checkSize``)."""
    return not all(o.shape().isFullyKnown() for o in op.outputs())


def _single(op: Operation) -> bool:
    """Whether the op's kernel returns one array (not a tuple of them)."""
    outputs = op._opdef.outputs
    return len(outputs) == 1 and outputs[0].countAttr is None


def _checkSize(single: bool, limit: int, result: Any) -> Any:
    """``result`` (a kernel's), if each of its arrays fits the session's memory limit.

    The run-time guard of ops whose result shape the plan did not know: kernels whose result
    size comes from input values check before allocating (``checkAllocation``); a result the
    size of its inputs or smaller in elements (elementwise, a cast to a wider type, a
    reduction) is at most eight times an input that is already in memory, so checking it once
    made keeps every tensor of the run within the limit."""
    for r in (result,) if single else result:
        nbytes = getattr(r, "nbytes", 0)
        if nbytes > limit:
            raise ResourceExhaustedError(
                None, f"a result of shape {list(np.shape(r))} takes {nbytes:,} bytes, more than "
                f"the session's memory limit of {limit:,} bytes"
            )
    return result


def _owned(value: Any) -> bool:
    """Whether ``value`` is an array whose memory a run may write into: a writeable,
    contiguous array owning its memory. Whether anything else can see that memory is for the
    plan to know (``_Plan``): this checks only the array itself."""
    return (
        type(value) is np.ndarray and value.base is None and value.flags.writeable
        and value.flags.c_contiguous
    )
