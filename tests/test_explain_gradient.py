"""``tfops.explainGradient``: every path from ``x`` to ``y``, and on each blocked one the op that
blocks it and where it was created; whether a gradient flows is the generator's own answer."""

from __future__ import annotations

import inspect
import re
import uuid
from pathlib import Path
from typing import cast

import numpy as np
import pytest

from tfops import GradientReport, Graph, Ops, Output, explainGradient
from tfops.backend.numpy import registerKernel
from tfops.errors import IllegalStateError
from tfops.examples import stable_softmax
from tfops.explain import BlockReason, GradientStatus
from tfops.op import (
    AttrDef,
    GradOp,
    Grads,
    InputDef,
    OpDef,
    OutputDef,
    registerGradient,
    registerOp,
)
from tfops.output import Operand
from tfops.types import TFloat32, TFloat64, TFloating, TInt32

ROOT = Path(__file__).resolve().parents[1]


def lineOf(marker: str, source: Path = Path(__file__)) -> str:
    """``file:line`` of the one line of ``source`` that ends with ``marker``."""
    text = source.read_text().splitlines()
    lines = [n for n, line in enumerate(text, 1) if line.rstrip().endswith(marker)]
    assert len(lines) == 1, f"{marker!r} is on lines {lines} of {source}"
    return f"{source}:{lines[0]}"


def opNames(graph: Graph) -> list[str]:
    return [op.name() for op in graph.operations()]


def agreesWithGenerator(tf: Ops, report: GradientReport) -> bool:
    """Whether the report's verdict is what ``tf.gradients`` gives (run after the report)."""
    try:
        dy = tf.gradients(report.y, [report.x]).dy(0)
    except LookupError:
        return report.status is GradientStatus.ERROR
    return (dy is not None) == report.flows


# -- the seed's stable softmax ------------------------------------------------------------------
def test_stableSoftmaxNamesTheStopGradientAndItsCreationLine(graph: Graph, tf: Ops) -> None:
    x = tf.withName("x").placeholder(TFloat64)
    p = stable_softmax.stableSoftmax(tf.withSubScope("stable"), x)

    report = explainGradient(p, x)

    assert report.flows and report.status is GradientStatus.FLOWS
    assert (report.numPaths, report.numOpenPaths) == (4, 2)
    [blocker] = report.blockers
    assert blocker.op.name() == "stable/StopGradient"
    assert blocker.reason is BlockReason.STOP_GRADIENT
    # examples count as user code: the site is the seed's listing in the example module
    site = lineOf("x, tf.stopGradient(tf.max(x, 0)))", Path(inspect.getfile(stable_softmax)))
    assert blocker.creationSite() == site
    text = str(report)
    assert "StopGradient 'stable/StopGradient'" in text
    assert site in text
    # the two paths through max(x) are blocked there, the two through x - max directly open
    assert [p.isBlocked() for p in report.paths] == [False, True, False, True]
    for path in report.blockedPaths():
        assert [b.op.name() for b in path.blockers] == ["stable/StopGradient"]
        assert [op.type() for op in path.ops()][:2] == ["Max", "StopGradient"]
    assert [op.type() for op in report.openPaths()[0].ops()] == ["Sub", "Exp", "Div"]
    assert agreesWithGenerator(tf, report)


def test_stopGradientCreatedHereIsReportedAtThisLine(tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    m = tf.stopGradient(tf.max(x, 0))  # <- the StopGradient of this test
    numerator = tf.math.exp(tf.math.sub(x, m))
    p = tf.math.div(numerator, tf.sum(numerator, 0))

    [blocker] = explainGradient(p, x).blockers
    assert blocker.op == m.op()
    assert blocker.creationSite() == lineOf("# <- the StopGradient of this test")


def test_everyPathThroughStopGradientGivesNone(tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    y = tf.math.exp(tf.math.square(tf.withName("frozen").stopGradient(x)))

    report = explainGradient(y, x)

    assert report.status is GradientStatus.NONE and not report.flows
    assert (report.numPaths, report.numOpenPaths) == (1, 0)
    assert [(b.op.name(), b.reason) for b in report.paths[0].blockers] == [
        ("frozen", BlockReason.STOP_GRADIENT)
    ]
    assert "no gradient (None)" in str(report)
    assert agreesWithGenerator(tf, report)


# -- integer casts and integer tensors ----------------------------------------------------------
def test_noneGradientThroughAnIntegerCast(tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    asInt = tf.withName("toInt").dtypes.cast(x, TInt32)  # <- the cast to int32
    y = tf.math.square(tf.dtypes.cast(asInt, TFloat64))

    report = explainGradient(y, x)

    assert report.status is GradientStatus.NONE
    [blocker] = report.blockers
    assert (blocker.op.name(), blocker.reason) == ("toInt", BlockReason.INTEGER_CAST)
    assert blocker.tensor == asInt.asOutput() and blocker.tensor.dataType() is TInt32
    assert blocker.creationSite() == lineOf("# <- the cast to int32")
    assert "Cast 'toInt' (cast to a non-floating type: 'toInt:0' is int32)" in str(report)
    assert tf.gradients(y, [x]).dy(0) is None


def test_aFloatPathBesideAnIntegerOneStillFlows(tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    throughInt = tf.dtypes.cast(tf.dtypes.cast(x, TInt32), TFloat64)
    y = tf.math.add(tf.math.mul(x, np.float64(3.0)), throughInt)

    report = explainGradient(y, x)

    assert report.flows
    assert (report.numPaths, report.numOpenPaths) == (2, 1)
    assert [b.reason for b in report.blockers] == [BlockReason.INTEGER_CAST]
    assert agreesWithGenerator(tf, report)


def test_integerXIsBlockedAtItsOwnOp(tf: Ops) -> None:
    x = tf.withName("counts").placeholder(TInt32)
    y = tf.math.square(tf.dtypes.cast(x, TFloat32))

    report = explainGradient(y, x)

    assert report.status is GradientStatus.NONE
    [blocker] = report.blockers
    assert (blocker.op.name(), blocker.reason) == ("counts", BlockReason.NON_FLOATING)
    assert agreesWithGenerator(tf, report)


def test_opMarkedNotDifferentiable(tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    y = tf.math.mul(tf.withName("rounded").math.floor(x), np.float64(2.0))

    report = explainGradient(y, x)

    assert report.status is GradientStatus.NONE
    assert [(b.op.name(), b.reason) for b in report.blockers] == [
        ("rounded", BlockReason.NOT_DIFFERENTIABLE)
    ]
    assert agreesWithGenerator(tf, report)


# -- ops without a gradient, and rules that give none ------------------------------------------
def _registerUnary(opType: str) -> None:
    registerOp(
        OpDef(
            type=opType,
            group="test",
            summary="Returns x doubled (a user-defined test op).",
            description="I.e., y = 2 * x.",
            inputs=(InputDef("x", "the input tensor", typeAttr="T"),),
            outputs=(OutputDef("y", "twice ``x``", typeAttr="T"),),
            attrs=(AttrDef("T", "type", allowed=(TFloat32, TFloat64)),),
            infer=lambda ctx: [ctx.shapes[0]],
        )
    )
    registerKernel(opType, lambda site: lambda x: 2 * x)


def unary(tf: Ops, opType: str, x: Operand[TFloat64], name: str) -> Output[TFloat64]:
    op = tf.scope().opBuilder(opType, name).addInput(x).build()  # <- the user's op is built
    return cast("Output[TFloat64]", op.output(0))


NO_GRAD_TYPE = f"TestDoubleNoGrad{uuid.uuid4().hex}"  # unique: the registry is global
_registerUnary(NO_GRAD_TYPE)
NONE_RULE_TYPE = f"TestDoubleNoneRule{uuid.uuid4().hex}"
_registerUnary(NONE_RULE_TYPE)


@registerGradient(NONE_RULE_TYPE)
def _noneGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [None]


def test_opWithoutGradientIsNamedAndTheGraphIsLeftUnchanged(graph: Graph, tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    doubled = unary(tf, NO_GRAD_TYPE, tf.math.exp(x), "Double")
    y = tf.math.square(doubled)
    before = opNames(graph)

    report = explainGradient(y, x)

    assert opNames(graph) == before
    # the dry run's names are free again: the next gradients get the first prefix
    added = graph.addGradients(None, [tf.math.exp(x).asOutput()], [x.asOutput()])[0]
    assert added is not None and added.name().startswith("gradients/")
    assert report.status is GradientStatus.ERROR and not report.flows
    [blocker] = report.blockers
    assert (blocker.op.name(), blocker.reason) == ("Double", BlockReason.NO_GRADIENT)
    # the innermost frame of user code: this module's helper that builds the op
    assert blocker.creationSite() == lineOf("# <- the user's op is built")
    assert report.error is not None and NO_GRAD_TYPE in report.error
    assert "tf.gradients raises LookupError" in str(report)
    assert agreesWithGenerator(tf, report)


def test_ruleGivingNoneIsFoundOnAnOpenLookingPath(tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    y = tf.math.exp(unary(tf, NONE_RULE_TYPE, tf.math.square(x), "Halt"))

    report = explainGradient(y, x)

    assert report.status is GradientStatus.NONE and report.numOpenPaths == 0
    [blocker] = report.paths[0].blockers
    assert (blocker.op.name(), blocker.reason) == ("Halt", BlockReason.RULE_GIVES_NONE)
    assert blocker.tensor.op().type() == "Square"
    assert report.blockers == (blocker,)
    assert agreesWithGenerator(tf, report)


# -- connected graphs ----------------------------------------------------------------------------
def test_fullyConnectedPath(graph: Graph, tf: Ops) -> None:
    x = tf.withName("x").placeholder(TFloat64)
    y = tf.math.mul(tf.math.exp(x), x)  # two paths: through Exp, and straight into Mul

    report = explainGradient(y, x)

    assert opNames(graph) == ["x", "Exp", "Mul"]
    assert report.flows and report.error is None and report.blockers == ()
    assert (report.numPaths, report.numOpenPaths) == (2, 2)
    assert [[t.name() for t in p.tensors] for p in report.paths] == [
        ["x:0", "Exp:0", "Mul:0"], ["x:0", "Mul:0"]
    ]
    assert str(report).splitlines()[:2] == [
        "gradient of 'Mul:0' (float64) with respect to 'x:0' (float64): a gradient flows",
        "2 path(s) from x to y: 2 open, 0 blocked",
    ]
    assert agreesWithGenerator(tf, report)


def test_xIsY(tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    report = explainGradient(x, x)
    assert report.flows and report.numPaths == 1 and report.paths[0].ops() == ()


def test_noPathAndControlOnlyDependencies(tf: Ops) -> None:
    x = tf.withName("x").placeholder(TFloat64)
    other = tf.placeholder(TFloat64)
    unrelated = explainGradient(tf.math.square(other), x)
    assert unrelated.status is GradientStatus.NONE and unrelated.numPaths == 0
    assert not unrelated.controlOnly
    assert "no path of data edges" in str(unrelated)

    # another output of the same op is no path from x
    parts = tf.split(tf.constant(0), tf.math.exp(x), 2)
    sibling = explainGradient(tf.math.square(parts.output()[1]), parts.output()[0])
    assert sibling.numPaths == 0 and not sibling.controlOnly

    y = tf.withControlDependencies([tf.math.square(x)]).math.exp(other)
    controlled = explainGradient(y, x)
    assert controlled.numPaths == 0 and controlled.controlOnly
    assert "only through control dependencies" in str(controlled)


# -- huge graphs ---------------------------------------------------------------------------------
def test_exponentiallyManyPathsAreCountedNotListed(graph: Graph, tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    y: Operand[TFloat64] = x
    for _ in range(80):
        y = tf.math.add(y, y)  # each Add doubles the number of paths

    report = explainGradient(y, x, maxPaths=5)

    assert report.numPaths == report.numOpenPaths == 2**80
    assert len(report.paths) == 5 and report.flows
    assert f"... and {2**80 - 5} more path(s) not listed" in str(report)


def test_deepChainNeedsNoRecursionAndIsShortenedInText(tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    y: Operand[TFloat64] = tf.stopGradient(x)
    for _ in range(3000):
        y = tf.math.neg(y)

    report = explainGradient(y, x)

    assert report.numPaths == 1 and len(report.paths[0].ops()) == 3001
    assert report.paths[0].blockers[0].reason is BlockReason.STOP_GRADIENT
    assert "... 2989 more ops ..." in str(report)


# -- bad input -----------------------------------------------------------------------------------
def test_tensorsOfAnotherGraphRaise(tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    with Graph() as other:
        y = Ops.create(other).constant(1.0)
        with pytest.raises(ValueError, match="different graphs"):
            explainGradient(y, x)


def test_closedGraphRaises() -> None:
    g = Graph()
    x = Ops.create(g).placeholder(TFloat64)
    g.close()
    with pytest.raises(IllegalStateError, match="the graph is closed"):
        explainGradient(x, x)


def test_negativeMaxPathsRaises(tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    with pytest.raises(ValueError, match="maxPaths must be 0 or more, got -1"):
        explainGradient(x, x, maxPaths=-1)


# -- the docs -----------------------------------------------------------------------------------
def test_gradientsPageExampleRunsAndPrintsWhatItSays() -> None:
    """The explainGradient section of docs/gradients.md is a whole program; each ``print`` in
    it says in a trailing comment what it prints (as tests/test_docs.py checks the guides)."""
    page = (ROOT / "docs" / "gradients.md").read_text()
    start = page.index("## Why is my gradient None?")
    end = page.find("\n## ", start)
    section = page[start:] if end == -1 else page[start:end]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks, "the explainGradient section has no Python block"
    printed: list[str] = []

    def record(*values: object, **_: object) -> None:
        printed.append(" ".join(str(v) for v in values))

    namespace: dict[str, object] = {"__name__": "docs_gradients", "print": record}
    for block in blocks:
        expected = [m.group(1) for m in re.finditer(r"^\s*print\(.*\)\s+# (.*)$", block, re.M)]
        start = len(printed)
        exec(compile(block, "softmax_demo.py", "exec"), namespace)
        got = printed[start:]
        assert len(got) == len(expected), "every print must say what it prints"
        for said, value in zip(expected, got, strict=True):
            assert " ".join(said.split()) == " ".join(value.split())


def test_reportTypesAreExported() -> None:
    import tfops

    assert tfops.explainGradient is explainGradient
    assert tfops.GradientReport is GradientReport
