"""Fusing for large inputs: which elementwise steps are computed together, as one group.

``_fuse`` turns a plan's steps into the lines of its large-input function, each fusible step
computed inside the groups that read it; a group runs as a ``_Fused`` (``fused.py``), and the
memory its results leave free is reused by the next groups of a run (``buffers.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from tfops.backend.numpy.base import _Step
from tfops.backend.numpy.fused import _Fused
from tfops.backend.numpy.options import NumpyOptions
from tfops.types import TFloating


def _fusible(step: _Step) -> bool:
    op = step.op
    opdef = op._opdef
    return (
        opdef.elementwise
        and step.fresh
        and not opdef.stateful
        and step.single
        and step.outs[0] is not None
        and issubclass(op.output(0).dataType(), TFloating)
        and all(issubclass(i.dataType(), TFloating) for i in op.inputs())
    )


def _fuse(
    steps: list[_Step],
    fetchIds: list[int],
    options: NumpyOptions,
    limit: int,
    pool: Callable[[], ThreadPoolExecutor],
) -> list[_Step]:
    """The steps as the lines of the large-input function: each fusible step whose value only
    fusible steps read, and nobody fetches, is computed inside the groups of its readers (in at
    most ``options.fusionCopies`` of them: recomputing a cheap step costs less than writing its
    value to memory and reading it back), so that a group computes one value from its inputs
    without writing any intermediate to memory. A group is convex: every member leads to its
    root within it, so no path leaves the group and comes back."""
    fusible = [_fusible(s) for s in steps]
    readers: dict[int, list[int]] = {}
    for n, s in enumerate(steps):
        for v in s.ins:
            readers.setdefault(v, []).append(n)
    fetched = set(fetchIds)
    groups: list[frozenset[int]] = [frozenset()] * len(steps)  # the roots a step is part of
    for n in reversed(range(len(steps))):
        if not fusible[n]:
            continue
        out = steps[n].outs[0]
        reading = readers.get(out, []) if out is not None else []
        joined: frozenset[int] = frozenset().union(*(groups[r] for r in reading))
        inside = reading and out not in fetched and all(fusible[r] for r in reading)
        groups[n] = joined if inside and len(joined) <= options.fusionCopies else frozenset((n,))
    members: dict[int, list[_Step]] = {}
    for n, s in enumerate(steps):
        for root in groups[n]:
            members.setdefault(root, []).append(s)
    units: list[_Step] = []
    for n, s in enumerate(steps):
        if not fusible[n]:
            units.append(s)
        elif n in groups[n]:
            group = _Fused(members[n], options, limit, pool)
            units.append(_Step(s.op, group, group.args, s.outs, pooled=True, fresh=True))
    return units
