"""Why a gradient is ``None``: :func:`explainGradient` lists every path from ``x`` to ``y`` and,
on each blocked one, the op that blocks it and where the user created it.

Whether a gradient flows is the gradient generator's own verdict: a dry run of
:func:`tfops.gradients.addGradients`, undone before returning (the graph is left exactly as it
was). The reasons come from the same tables the generator reads: the gradient registry
(``tfops.spec.grad.lookupGradient``: a rule, a not-differentiable mark, or nothing) and the
generator's notion of a differentiable tensor (floating point).

Huge graphs are handled by counting, not listing: the sub-graph between ``x`` and ``y`` is found
with two linear walks, the number of paths (open and blocked) and the ops that block them are
exact, and only the first ``maxPaths`` paths are listed one by one (a path of more than
``_SHOWN_OPS`` ops is shortened in the text).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import TypeVar, cast

from attrs import frozen

from tfops.errors import IllegalArgumentError, NoGradientError

# the generator's notion of a differentiable tensor and its entry point, reused so that the
# explanation cannot disagree with what the generator does
from tfops.gradients import _differentiable, addGradients
from tfops.graph import Graph
from tfops.operation import Operation
from tfops.output import Operand, Output
from tfops.spec.grad import lookupGradient
from tfops.types import TType

# the data types of y and x (Operand is invariant in its type)
_TY = TypeVar("_TY", bound=TType)
_TX = TypeVar("_TX", bound=TType)

__all__ = [
    "BlockReason",
    "Blocker",
    "GradientPath",
    "GradientReport",
    "GradientStatus",
    "explainGradient",
]

_SHOWN_OPS = 12
"""A listed path with more ops than this shows its first and last few only."""


class BlockReason(enum.Enum):
    """Why no gradient passes an op on a path."""

    STOP_GRADIENT = "StopGradient: its input is a constant to the gradient"
    """A ``StopGradient``: its input is treated as a constant, on purpose."""
    NOT_DIFFERENTIABLE = "marked not differentiable"
    """An op type registered with ``notDifferentiable`` (``Shape``, ``ArgMax``, ``Equal``...)."""
    NO_GRADIENT = "no gradient registered: tf.gradients raises LookupError"
    """An op type with no gradient rule at all: ``tf.gradients`` raises ``LookupError``."""
    INTEGER_CAST = "cast to a non-floating type"
    """A ``Cast`` from floating point to an integer or bool type."""
    NON_FLOATING = "a non-floating output"
    """The tensor on the path is an integer or bool tensor: gradients flow only through floats."""
    RULE_GIVES_NONE = "its gradient rule gives no gradient for this input"
    """The op's gradient rule returns ``None`` for the input the path comes through."""


class GradientStatus(enum.Enum):
    """What ``tf.gradients(y, [x])`` gives."""

    FLOWS = "a gradient flows"
    NONE = "no gradient (None)"
    ERROR = "tf.gradients raises LookupError"


@frozen
class Blocker:
    """An op that stops the gradient on a path.

    Attributes:
        op: the blocking operation.
        reason: why it blocks.
        tensor: where the gradient stops: for ``INTEGER_CAST`` and ``NON_FLOATING`` the
            non-floating tensor on the path, for ``RULE_GIVES_NONE`` the op's input the path
            comes through, otherwise the op's output (``y`` when the op is ``y``'s).
    """

    op: Operation
    reason: BlockReason
    tensor: Output[TType]

    def creationSite(self) -> str:
        """``file:line`` of the user code that created the blocking op."""
        return self.op.creationSite()

    def __str__(self) -> str:
        detail = self.reason.value
        if self.reason in (BlockReason.INTEGER_CAST, BlockReason.NON_FLOATING):
            detail += f": '{self.tensor.name()}' is {self.tensor.dataType().NAME}"
        elif self.reason is BlockReason.RULE_GIVES_NONE:
            detail += f" '{self.tensor.name()}'"
        return f"{self.op.type()} '{self.op.name()}' ({detail}), created at {self.creationSite()}"


@frozen
class GradientPath:
    """One path of data edges from ``x`` to ``y``.

    Attributes:
        tensors: the tensors along the path, ``x`` first and ``y`` last; each one after ``x`` is
            an output of the op that consumed the one before.
        blockers: the ops on the path that stop the gradient, from ``x`` towards ``y`` (empty:
            the path is open).
    """

    tensors: tuple[Output[TType], ...]
    blockers: tuple[Blocker, ...]

    def ops(self) -> tuple[Operation, ...]:
        """The ops the path goes through, from the first consumer of ``x`` to ``y``'s op."""
        return tuple(t.op() for t in self.tensors[1:])

    def isBlocked(self) -> bool:
        """Whether some op on the path stops the gradient."""
        return bool(self.blockers)

    def __str__(self) -> str:
        steps = [f"{op.type()} '{op.name()}'" for op in self.ops()]
        if len(steps) > _SHOWN_OPS:
            half = _SHOWN_OPS // 2
            steps = [*steps[:half], f"... {len(steps) - 2 * half} more ops ...", *steps[-half:]]
        return " -> ".join([f"'{self.tensors[0].name()}'", *steps])


@frozen
class GradientReport:
    """Why ``x`` gets (or does not get) a gradient from ``y``; ``str(report)`` explains it in
    words.

    Attributes:
        y: the differentiated tensor.
        x: the tensor the gradient is taken with respect to.
        status: what ``tf.gradients(y, [x])`` gives (the generator's own verdict).
        paths: the first ``maxPaths`` paths from ``x`` to ``y`` (all of them when
            ``numPaths <= maxPaths``).
        numPaths: how many paths there are from ``x`` to ``y`` (exact, however many).
        numOpenPaths: how many of them no op blocks (0 whenever ``status`` is ``NONE``).
        blockers: every op that blocks at least one path (listed or not), in graph order.
        error: the generator's error message when ``status`` is ``ERROR``, else ``None``.
        controlOnly: ``y`` depends on ``x``'s op through control dependencies only, which carry
            no gradient.
    """

    y: Output[TType]
    x: Output[TType]
    status: GradientStatus
    paths: tuple[GradientPath, ...]
    numPaths: int
    numOpenPaths: int
    blockers: tuple[Blocker, ...]
    error: str | None
    controlOnly: bool

    @property
    def flows(self) -> bool:
        """Whether ``tf.gradients(y, [x])`` gives a gradient (not ``None``, no error)."""
        return self.status is GradientStatus.FLOWS

    def blockedPaths(self) -> tuple[GradientPath, ...]:
        """The listed paths that some op blocks."""
        return tuple(p for p in self.paths if p.isBlocked())

    def openPaths(self) -> tuple[GradientPath, ...]:
        """The listed paths no op blocks."""
        return tuple(p for p in self.paths if not p.isBlocked())

    def __str__(self) -> str:
        lines = [
            f"gradient of '{self.y.name()}' ({self.y.dataType().NAME}) with respect to "
            f"'{self.x.name()}' ({self.x.dataType().NAME}): {self.status.value}"
        ]
        if self.numPaths == 0:
            how = ("only through control dependencies, which carry no gradient"
                   if self.controlOnly else "not at all: no path of data edges leads from x to y")
            lines.append(f"'{self.y.name()}' depends on '{self.x.name()}' {how}")
            return "\n".join(lines)
        lines.append(
            f"{self.numPaths} path(s) from x to y: {self.numOpenPaths} open, "
            f"{self.numPaths - self.numOpenPaths} blocked"
        )
        if self.error is not None:
            lines.append(f"error: {self.error}")
        if self.blockers:
            lines.append("blocked by:")
            lines.extend(f"  {b}" for b in self.blockers)
        lines.append("paths:")
        for n, path in enumerate(self.paths, 1):
            lines.append(f"  {n}. {path}")
            names = ", ".join(f"{b.op.type()} '{b.op.name()}'" for b in path.blockers)
            verdict = f"blocked by {names}" if path.blockers else "open"
            lines.append(f"     {verdict}")
        if len(self.paths) < self.numPaths:
            lines.append(f"  ... and {self.numPaths - len(self.paths)} more path(s) not listed")
        return "\n".join(lines)


# -- the sub-graph between x and y ------------------------------------------------------------
def _ancestors(y: Output[TType], control: bool) -> set[Operation]:
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


def _between(x: Output[TType], y: Output[TType]) -> list[Operation]:
    """The ops on some data path from ``x`` to ``y``, in creation (topological) order."""
    reachesY = _ancestors(y, control=False)
    found: set[Operation] = set()
    stack = [c for c in x.op().consumers() if c in reachesY and x in c.inputs()]
    while stack:
        op = stack.pop()
        if op in found:
            continue
        found.add(op)
        stack.extend(c for c in op.consumers() if c in reachesY)
    return sorted(found, key=lambda o: o._id)


def _edgesInto(
    op: Operation, x: Output[TType], onPath: set[Operation]
) -> Iterator[Output[TType]]:
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
        reason = (BlockReason.STOP_GRADIENT if op.type() == "StopGradient"
                  else BlockReason.NOT_DIFFERENTIABLE)
        return Blocker(op, reason, out)
    return None


def _tensorBlock(t: Output[TType]) -> Blocker | None:
    if _differentiable(t):
        return None
    op = t.op()
    castFromFloat = op.type() == "Cast" and op.numInputs() == 1 and _differentiable(op.input(0))
    return Blocker(op, BlockReason.INTEGER_CAST if castFromFloat else BlockReason.NON_FLOATING, t)


class _Analysis:
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


def _dryRun(
    graph: Graph, y: Output[TType], xs: list[Output[TType]]
) -> tuple[set[Output[TType]], str | None]:
    """Which of ``xs`` the generator gives a gradient from ``y``, or its error; every op it adds
    is removed again (the graph's transaction undoes them and their names)."""

    class _UndoError(Exception):
        pass

    reached: set[Output[TType]] = set()
    try:
        with graph._transaction():
            grads = addGradients(graph, None, [y], xs)
            reached = {x for x, g in zip(xs, grads, strict=True) if g is not None}
            raise _UndoError
    except _UndoError:
        return reached, None
    except NoGradientError as e:
        return set(), str(e)


def explainGradient(
    y: Operand[_TY], x: Operand[_TX], *, maxPaths: int = 20
) -> GradientReport:
    """Explains why ``x`` gets (or does not get) a gradient from ``y``.

    Lists the paths of data edges from ``x`` to ``y`` and, on each blocked one, the ops that
    stop the gradient: a ``StopGradient``, an op marked not differentiable, an op with no
    gradient registered (``tf.gradients`` then raises), a cast to an integer type, any integer
    or bool tensor on the path, or a gradient rule that gives nothing for that input. Whether a
    gradient flows is what ``tf.gradients(y, [x])`` gives, found by a dry run that leaves the
    graph unchanged.

    Args:
        y: the tensor differentiated.
        x: the tensor the gradient is taken with respect to.
        maxPaths: how many paths to list one by one (counts and blockers always cover every
            path, however many).

    Returns:
        A :class:`GradientReport`; ``str(report)`` is a readable explanation.

    Raises:
        ValueError: ``x`` and ``y`` are in different graphs, or ``maxPaths`` is negative.
        IllegalStateError: the graph is closed.

    Example:
        >>> from tfops import Graph, Ops, explainGradient
        >>> from tfops.types import TFloat64
        >>> g = Graph(); tf = Ops.create(g)
        >>> x = tf.withName("x").placeholder(TFloat64)
        >>> y = tf.math.mul(tf.withName("frozen").stopGradient(x), x)
        >>> report = explainGradient(y, x)
        >>> report.flows, report.numPaths, report.numOpenPaths, report.blockers[0].op.name()
        (True, 2, 1, 'frozen')
    """
    # as outputs of some data type (Output is invariant in it)
    yOut, xOut = cast("Output[TType]", y.asOutput()), cast("Output[TType]", x.asOutput())
    graph = yOut.op().graph()
    if xOut.op().graph() is not graph:
        raise IllegalArgumentError(
            f"x '{xOut.name()}' and y '{yOut.name()}' belong to different graphs; explain a "
            "gradient between tensors of one graph"
        )
    if maxPaths < 0:
        raise IllegalArgumentError(f"maxPaths must be 0 or more, got {maxPaths}")
    graph._checkOpen()
    analysis = _Analysis(xOut, yOut, _between(xOut, yOut))
    numPaths, numOpen = analysis.counts()
    listed = analysis.paths(maxPaths)

    # one dry run gives the generator's verdict for x and, for every floating tensor on the
    # path, whether a gradient reaches it: where an open path loses it, a rule gave None
    candidates = list(dict.fromkeys(
        [xOut, *(t for tensors in listed for t in tensors[1:-1] if _differentiable(t))]
    ))
    reached, error = _dryRun(graph, yOut, candidates)
    if error is not None:
        status = GradientStatus.ERROR
    elif xOut in reached:
        status = GradientStatus.FLOWS
    else:
        status = GradientStatus.NONE
        numOpen = 0  # what looked open loses the gradient in a rule (RULE_GIVES_NONE)

    paths: list[GradientPath] = []
    for tensors in listed:
        blockers = analysis.blockersOf(tensors)
        if not blockers and error is None and len(tensors) > 1:
            # walk back from y: the first tensor the gradient does not reach
            for n in range(len(tensors) - 2, -1, -1):
                if tensors[n] not in reached:
                    consumer = tensors[n + 1].op()
                    blockers = [Blocker(consumer, BlockReason.RULE_GIVES_NONE, tensors[n])]
                    break
        paths.append(GradientPath(tuple(tensors), tuple(blockers)))
    extra = [b for p in paths for b in p.blockers if b.reason is BlockReason.RULE_GIVES_NONE]
    allBlockers = analysis.blockers() + tuple(dict.fromkeys(extra))
    # x's op reaches y, but not through data edges (another output of x's op does not count)
    controlOnly = (numPaths == 0 and xOut.op() in _ancestors(yOut, control=True)
                   and xOut.op() not in _ancestors(yOut, control=False))
    return GradientReport(
        y=yOut, x=xOut, status=status, paths=tuple(paths), numPaths=numPaths,
        numOpenPaths=numOpen, blockers=allBlockers, error=error, controlOnly=controlOnly,
    )
