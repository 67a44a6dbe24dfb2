"""Running a compiled request: the ``_Plan`` a numpy executor keeps per request.

A plan runs its steps (``tfops.backend.numpy.compiler`` made them) three ways: interpreted on its
first run, then through a generated straight-line function, or, with large inputs, through the
fused one (``tfops.backend.numpy.fusion``), which reuses the memory its dead values leave.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfops.backend.numpy.base import Array, _checkSize, _sizeUnknown, _Step
from tfops.backend.numpy.buffers import _Buffers
from tfops.backend.numpy.compiler import _compile, _Context
from tfops.backend.numpy.fusion import _fuse, _fusible
from tfops.backend.numpy.runcode import _checkFinite, _dying, _explain, _generate, _ownArray
from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TType


class _Plan:
    """A compiled request: its steps, and the functions generated to run them.

    The first run interprets the steps; the second generates the straight-line function that
    every later run calls (so that a request run once does not pay for generating code). A run
    with large inputs takes the fused function instead, generated when the first such run
    comes.
    """

    __slots__ = (
        "feeds",
        "numSteps",
        "_context",
        "_steps",
        "_feedIds",
        "_fetchIds",
        "_constants",
        "_checkNumerics",
        "_small",
        "_large",
        "_fusible",
        "_largeAlways",
        "_runs",
        "_lock",
        "_buffers",
    )

    def __init__(
        self,
        context: _Context,
        feeds: tuple[Output[TType], ...],
        fetches: tuple[Output[TType], ...],
        targets: tuple[Operation, ...],
    ) -> None:
        self.feeds = feeds
        self._context = context
        checkNumerics = context.config.checkNumerics
        with np.errstate(all="ignore"):  # folding constants runs kernels
            compiled = _compile(context, feeds, fetches, targets)
        self._steps, self._feedIds, self._fetchIds, self._constants = compiled
        self._checkNumerics = checkNumerics
        self.numSteps = len(self._steps)
        self._small: Callable[..., list[Array]] | None = None
        self._large: Callable[..., list[Array]] | None = None
        self._fusible = not checkNumerics and any(_fusible(s) for s in self._steps)
        large = context.options.large
        self._largeAlways = any(np.size(c) >= large for c in self._constants.values())
        self._runs = 0
        self._lock = threading.Lock()
        self._buffers = _Buffers()  # what large runs left free, for the next one

    def run(self, values: Sequence[Any]) -> list[Array]:
        """Runs the plan on the fed values, in feed order; returns the fetched values."""
        with np.errstate(all="ignore"):  # numpy's errors are the kernels' to report
            if self._fusible:
                large = self._largeAlways
                if not large:
                    threshold = self._context.options.large
                    for v in values:
                        if v.size >= threshold:
                            large = True
                            break
                if large:
                    return (self._large or self._generateLarge())(*values)
            small = self._small
            if small is None:
                self._runs += 1
                if self._runs == 1:
                    return self._interpret(values)
                small = self._generateSmall()
            return small(*values)

    def _generateSmall(self) -> Callable[..., list[Array]]:
        with self._lock:
            if self._small is None:
                self._small = _generate(
                    self._steps,
                    self._feedIds,
                    self._fetchIds,
                    self._constants,
                    self._checkNumerics,
                    set(),
                    self._context.config.memoryLimit,
                )
            return self._small

    def _generateLarge(self) -> Callable[..., list[Array]]:
        with self._lock:
            if self._large is None:
                context = self._context
                units = _fuse(
                    self._steps,
                    self._fetchIds,
                    context.options,
                    context.config.memoryLimit,
                    context.pool,
                )
                self._large = _generate(
                    units,
                    self._feedIds,
                    self._fetchIds,
                    self._constants,
                    False,
                    _releasable(units, self._fetchIds),
                    context.config.memoryLimit,
                    self._buffers,
                )
            return self._large

    def _interpret(self, values: Sequence[Any]) -> list[Array]:
        """Runs the steps one by one, as the generated function would."""
        units = self._steps
        dying = _dying(units, self._feedIds, self._fetchIds, self._constants)
        slots: dict[int, Any] = dict(self._constants)
        slots.update(zip(self._feedIds, values, strict=True))
        for n, u in enumerate(units):
            try:
                result = u.kernel(*[slots[v] for v in u.ins])
                if self._checkNumerics and u.outs:
                    _checkFinite(u.op, u.single, result)
                if u.outs and _sizeUnknown(u.op):
                    _checkSize(u.single, self._context.config.memoryLimit, result)
                if u.single:
                    slots[u.outs[0]] = result  # type: ignore[index]
                else:
                    for v, r in zip(u.outs, result, strict=True):
                        if v is not None:
                            slots[v] = r
            except Exception as e:
                failure = _explain(u.op, e)
                if failure is None:
                    raise
                raise failure[0] from failure[1]
            for v in dying.get(n, ()):
                del slots[v]
        fed = tuple(values)
        return [_ownArray(slots[v], fed) for v in self._fetchIds]


def _releasable(units: list[_Step], fetchIds: list[int]) -> set[int]:
    """The values whose memory a run may reuse once they die: fresh results of fused groups
    that nobody fetches and that only steps with fresh results read (such a step never
    returns the value itself nor a view of it, so nothing else can see its memory)."""
    produced = {u.outs[0] for u in units if u.pooled and u.outs[0] is not None}
    produced -= set(fetchIds)
    for u in units:
        if not u.fresh:
            produced.difference_update(u.ins)
    return produced
