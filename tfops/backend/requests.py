"""What every backend does alike with a request: which ops it runs, in which order, and the
devices their specifications name."""

from __future__ import annotations

import re
from collections.abc import Sequence

from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TType

__all__ = ["DeviceName", "describe", "neededOps", "parseDevice"]


def neededOps(
    fed: set[Output[TType]], fetches: Sequence[Output[TType]], targets: Sequence[Operation]
) -> list[Operation]:
    """The ops a request runs, in the order every backend runs them: what the fetches and
    targets need (a fed output replaces its computation, an op whose every output is fed is
    replaced by the feeds), in creation order, a topological order since an op can only consume
    ops created before it; a variable read runs right before its first reader."""
    needed: set[Operation] = set()
    stack: list[Operation] = [f.op() for f in fetches if f not in fed] + [
        t for t in targets  # a target whose every output is fed is replaced by the feeds
        if not (t.numOutputs() and all(o in fed for o in t.outputs()))
    ]
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed.add(op)
        refs = op._refInputs()
        stack.extend(i.op() for n, i in enumerate(op.inputs()) if i not in fed and n not in refs)
        stack.extend(  # an op whose every output is fed is replaced by the feed
            c for c in op.controlInputs()
            if not (c.numOutputs() and all(o in fed for o in c.outputs()))
        )

    def order(op: Operation) -> tuple[int, int]:
        # A variable read (a stateful op without inputs) runs right before its first reader, so
        # a reader created under a control dependency on an assignment sees the assigned value.
        if op._opdef.stateful and not op.inputs():
            readers = [
                c._id for c in op.consumers() if c in needed and any(
                    i.op() is op for n, i in enumerate(c.inputs()) if n not in c._refInputs()
                )
            ]
            if readers:
                return min(readers), 0
        return op._id, 1

    return sorted(needed, key=order)


_DEVICE = re.compile(r"(?:/job:[A-Za-z0-9_]+)?(?:/replica:\d+)?(?:/task:\d+)?"
                     r"(?:/(?:device:)?(?P<kind>[A-Za-z]+):(?P<index>\d+|\*))?")

DeviceName = tuple[str, int]
"""A device as (kind, index): ``("gpu", 0)``; index -1 for ``*`` (any)."""


def parseDevice(spec: str) -> DeviceName | None:
    """The device a TensorFlow specification names, or ``None`` when it names none
    (``""``, ``"/job:worker"``)."""
    match = _DEVICE.fullmatch(spec)
    if match is None or match.group("kind") is None:
        return None
    index = match.group("index")
    return match.group("kind").lower(), -1 if index == "*" else int(index)


def describe(name: DeviceName) -> str:
    """``/device:GPU:0`` for ``("gpu", 0)``."""
    kind, index = name
    return f"/device:{kind.upper()}:{'*' if index < 0 else index}"
