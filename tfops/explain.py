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

This module holds the entry point and the dry run; the walks are in ``tfops._explainpaths`` and
the report's types, with their text, in ``tfops._explainreport`` (imported from here, their
public home).
"""

from __future__ import annotations

from typing import TypeVar, cast

from tfops._explainpaths import Analysis, ancestors, between
from tfops._explainreport import (
    Blocker,
    BlockReason,
    GradientPath,
    GradientReport,
    GradientStatus,
)
from tfops.errors import IllegalArgumentError, NoGradientError

# the generator's notion of a differentiable tensor and its entry point, reused so that the
# explanation cannot disagree with what the generator does
from tfops.gradients import _differentiable, addGradients
from tfops.graph import Graph
from tfops.output import Operand, Output
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


def explainGradient(y: Operand[_TY], x: Operand[_TX], *, maxPaths: int = 20) -> GradientReport:
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
    analysis = Analysis(xOut, yOut, between(xOut, yOut))
    numPaths, numOpen = analysis.counts()
    listed = analysis.paths(maxPaths)

    # one dry run gives the generator's verdict for x and, for every floating tensor on the
    # path, whether a gradient reaches it: where an open path loses it, a rule gave None
    candidates = list(
        dict.fromkeys(
            [xOut, *(t for tensors in listed for t in tensors[1:-1] if _differentiable(t))]
        )
    )
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
    controlOnly = (
        numPaths == 0
        and xOut.op() in ancestors(yOut, control=True)
        and xOut.op() not in ancestors(yOut, control=False)
    )
    return GradientReport(
        y=yOut,
        x=xOut,
        status=status,
        paths=tuple(paths),
        numPaths=numPaths,
        numOpenPaths=numOpen,
        blockers=allBlockers,
        error=error,
        controlOnly=controlOnly,
    )
