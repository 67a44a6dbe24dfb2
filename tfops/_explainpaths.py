"""The walks behind :func:`tfops.explainGradient`: the sub-graph between ``x`` and ``y``, the op
or tensor that blocks the gradient at each step, the exact number of paths (open and blocked)
and the first few paths themselves (``Analysis``).

Huge graphs are handled by counting, not listing: the sub-graph is found with two linear walks,
the paths are counted op by op in topological order, and only the paths asked for are walked.
"""

from __future__ import annotations

from collections.abc import Iterator

from tfops._explainreport import Blocker, BlockReason

# the generator's notion of a differentiable tensor, reused so that the explanation cannot
# disagree with what the generator does
from tfops.gradients import _differentiable
from tfops.operation import Operation
from tfops.output import Output
from tfops.spec.grad import lookupGradient
from tfops.types import TType


def ancestors(y: Output[TType], control: bool) -> set[Operation]:
    seen: set[Operation] = set()
    stack = [y.op()]
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack.extend(i.op() for i in op.inputs())
        if control:
            stack.extend(op.controlInputs())
    return seen


def between(x: Output[TType], y: Output[TType]) -> list[Operation]:
    """The ops on some data path from ``x`` to ``y``, in creation (topological) order."""
    reachesY = ancestors(y, control=False)
    found: set[Operation] = set()
    stack = [c for c in x.op().consumers() if c in reachesY and x in c.inputs()]
    while stack:
        op = stack.pop()
        if op in found:
            continue
        found.add(op)
        stack.extend(c for c in op.consumers() if c in reachesY)
    return sorted(found, key=lambda o: o._id)


def _edgesInto(op: Operation, x: Output[TType], onPath: set[Operation]) -> Iterator[Output[TType]]:
    """The inputs of ``op`` that lie on a path from ``x`` (one per input position: ``x * x``
    has two paths)."""
    for i in op.inputs():
        if i == x or i.op() in onPath:
            yield i


def _opBlock(op: Operation, out: Output[TType]) -> Blocker | None:
    registered, rule = lookupGradient(op.type())
    if not registered:
        return Blocker(op, BlockReason.NO_GRADIENT, out)
    if rule is None:
        reason = (
            BlockReason.STOP_GRADIENT
            if op.type() == "StopGradient"
            else BlockReason.NOT_DIFFERENTIABLE
        )
        return Blocker(op, reason, out)
    return None


def _tensorBlock(t: Output[TType]) -> Blocker | None:
    if _differentiable(t):
        return None
    op = t.op()
    castFromFloat = op.type() == "Cast" and op.numInputs() == 1 and _differentiable(op.input(0))
    return Blocker(op, BlockReason.INTEGER_CAST if castFromFloat else BlockReason.NON_FLOATING, t)


class Analysis:
    """The blockers of every op and tensor between ``x`` and ``y``, and path counts."""

    def __init__(self, x: Output[TType], y: Output[TType], ops: list[Operation]) -> None:
        self.x, self.y = x, y
        self.onPath = set(ops)
        self.opBlocks: dict[Operation, Blocker] = {}
        for op in ops:
            block = _opBlock(op, y if op == y.op() else op.output(0))
            if block is not None:
                self.opBlocks[op] = block
        self.tensorBlocks: dict[Output[TType], Blocker] = {}
        for t in [x, *(i for op in ops for i in _edgesInto(op, x, self.onPath)), y]:
            block = _tensorBlock(t)
            if block is not None and t.op() not in self.opBlocks:
                self.tensorBlocks[t] = block
        # paths from x into each op: all of them, and those no op or tensor blocks
        self.allInto: dict[Operation, int] = {}
        self.openInto: dict[Operation, int] = {}
        for op in ops:
            total = openCount = 0
            for t in _edgesInto(op, x, self.onPath):
                fromX = t == x
                total += 1 if fromX else self.allInto[t.op()]
                if t in self.tensorBlocks or (not fromX and t.op() in self.opBlocks):
                    continue
                openCount += 1 if fromX else self.openInto[t.op()]
            self.allInto[op] = total
            self.openInto[op] = openCount

    def counts(self) -> tuple[int, int]:
        """(paths, open paths) from ``x`` to ``y``."""
        if self.x == self.y:
            return 1, 0 if self.x in self.tensorBlocks else 1
        end = self.y.op()
        if end not in self.onPath:
            return 0, 0
        blocked = self.y in self.tensorBlocks or end in self.opBlocks
        return self.allInto[end], 0 if blocked else self.openInto[end]

    def blockers(self) -> tuple[Blocker, ...]:
        found = [*self.opBlocks.values(), *self.tensorBlocks.values()]
        return tuple(sorted(found, key=lambda b: (b.op._id, b.tensor.index())))

    def paths(self, limit: int) -> list[list[Output[TType]]]:
        """The first ``limit`` paths, as their tensors from ``x`` to ``y``, found backwards from
        ``y`` by a depth-first walk (iterative: any depth)."""
        if self.x == self.y:
            return [[self.x]] if limit > 0 else []
        if self.y.op() not in self.onPath:
            return []
        found: list[list[Output[TType]]] = []
        stack: list[tuple[Output[TType], ...]] = [(self.y,)]
        while stack and len(found) < limit:
            suffix = stack.pop()
            if suffix[0] == self.x:
                found.append(list(suffix))
                continue
            for t in reversed(list(_edgesInto(suffix[0].op(), self.x, self.onPath))):
                stack.append((t, *suffix))
        return found

    def blockersOf(self, tensors: list[Output[TType]]) -> list[Blocker]:
        found: list[Blocker] = []
        for n, t in enumerate(tensors):
            if n > 0 and t.op() in self.opBlocks:
                found.append(self.opBlocks[t.op()])
            if t in self.tensorBlocks:
                found.append(self.tensorBlocks[t])
        return found
