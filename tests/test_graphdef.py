"""``Graph.toGraphDef`` / ``Graph.importGraphDef`` without TensorFlow: every op type round-trips
(same names, attributes, control inputs, devices, initializers, and the same results), GraphDefs
that TensorFlow 2.21 wrote (``tests/fixtures/tf/make_graphdefs.py``) give TensorFlow's values,
and bad input leaves the graph unchanged with a clear error."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_every_op import create, every

from tfops import Graph, Ops, Session, Shape
from tfops.errors import DataTypeError, IllegalArgumentError, IllegalStateError
from tfops.opdef import OpDef
from tfops.operation import Operation
from tfops.types import TFloat32, TFloat64

FIXTURES = Path(__file__).parent / "fixtures" / "tf"


def attrKey(value: object) -> object:
    """An attribute as a GraphDef keeps it: floats as float32, arrays by dtype, shape, bytes."""
    if isinstance(value, float):
        return np.float32(value)
    if isinstance(value, np.ndarray):
        return (value.dtype, value.shape, value.tobytes())
    return value


def describe(op: Operation, prefix: str = "") -> tuple[Any, ...]:
    """Everything a GraphDef keeps of ``op``, with ``prefix/`` taken off the names."""

    def name(n: str) -> str:
        return n[len(prefix) :] if prefix else n

    return (
        name(op.name()),
        op.type(),
        [(name(i.op().name()), i.index()) for i in op.inputs()],
        [name(c.name()) for c in op.controlInputs()],
        op.device(),
        {k: attrKey(v) for k, v in op.attrs().items()},
        [(o.dataType(), o.shape()) for o in op.outputs()],
    )


def assertSameGraph(original: Graph, copy: Graph, prefix: str = "") -> None:
    assert [describe(op) for op in original.operations()] == [
        describe(op, prefix) for op in copy.operations()
    ]
    strip = len(prefix)
    assert [op.name() for op in original.initializers()] == [
        op.name()[strip:] for op in copy.initializers()
    ]


def roundTrip(graph: Graph, prefix: str | None = None) -> Graph:
    copy = Graph()
    copy.importGraphDef(graph.toGraphDef(), prefix)
    return copy


def results(graph: Graph, op: Operation, feeds: dict[str, Any] | None = None) -> list[Any]:
    with Session(graph) as s:
        runner = s.runner()
        for k, v in (feeds or {}).items():
            runner.feed(k, v)
        if op.numOutputs() == 0:
            runner.addTarget(op.name())
        for o in op.outputs():
            runner.fetch(o.name())
        return list(runner.run())


def isRandom(spec: OpDef) -> bool:
    """A random op that draws new numbers on every run: its values differ between sessions."""
    return spec.group == "random" and spec.stateful


# -- every op ----------------------------------------------------------------------------------
@every
def test_everyOpRoundTrips(spec: OpDef) -> None:
    with Graph() as g:
        tf = Ops.create(g)
        created = create(spec, tf.withDevice("/device:CPU:0"))
        op = created.op()
        copy = roundTrip(g)
        assertSameGraph(g, copy)
        again = copy.operation(op.name())
        assert again is not None
        feeds = {op.name(): np.array([1.0, 2.0], np.float32)} if spec.type == "Placeholder" else {}
        mine, theirs = results(g, op, feeds), results(copy, again, feeds)
        for a, b in zip(mine, theirs, strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape
            if not isRandom(spec):
                np.testing.assert_array_equal(a, b)


def test_roundTripKeepsControlInputsDevicesAndInitializers(tf: Ops, graph: Graph) -> None:
    v = tf.withSubScope("layer").variable(tf.constant([1.0, 2.0]))
    check = tf.assertThat(tf.constant(True), [tf.constant([1, 2])])
    y = tf.withControlDependencies([check]).withDevice("/device:CPU:0").math.mul(v, 2.0)
    tf.withInitScope().withName("extra").constant(3.0)
    copy = roundTrip(graph)
    assertSameGraph(graph, copy)
    assert [op.name() for op in copy.initializers()] == ["layer/Variable", "layer/Assign", "extra"]
    copied = copy.operation(y.op().name())
    assert copied is not None and [c.name() for c in copied.controlInputs()] == [check.op().name()]
    assert copied.device() == "/device:CPU:0"
    np.testing.assert_array_equal(results(copy, copied)[0], [2.0, 4.0])


def test_importUnderAPrefixRenamesEveryOpAndInitializer(tf: Ops, graph: Graph) -> None:
    tf.math.add(tf.variable(tf.constant([1.0])), 1.0)
    copy = roundTrip(graph, "imported")
    assertSameGraph(graph, copy, "imported/")
    assert all(op.name().startswith("imported/") for op in copy.operations())


def test_namesOfImportedOpsAreTakenForLaterOps(tf: Ops, graph: Graph) -> None:
    tf.constant(1.0)
    copy = roundTrip(graph)
    assert Ops.create(copy).constant(2.0).op().name() == "Const_1"
    assert Ops.create(copy).withSubScope("p").constant(2.0).op().name() == "p/Const"


def test_aPlaceholderKeepsItsShape(tf: Ops, graph: Graph) -> None:
    tf.placeholder(TFloat32, shape=Shape.of(-1, 3))
    tf.placeholder(TFloat64)
    copy = roundTrip(graph)
    assert [op.output(0).shape() for op in copy.operations()] == [Shape.of(-1, 3), Shape.unknown()]


def test_theReadmeGraphAndItsGradientGiveTheSameValues(tf: Ops, graph: Graph) -> None:
    x = tf.placeholder(TFloat64)
    z = tf.math.sub(x, tf.stopGradient(tf.max(x, 0)))
    e = tf.math.exp(z)
    p = tf.math.div(e, tf.sum(e, 0))
    dp = tf.gradients(tf.sum(tf.math.mul(p, [1.0, 2.0, 3.0]), 0), [x]).dy(0)
    copy = roundTrip(graph, "r")
    feed = np.array([1000.0, 1001.0, 1002.0])
    with Session(graph) as s, Session(copy) as c:
        mine = s.runner().feed(x, feed).fetch(p).fetch(dp).run()
        theirs = (
            c.runner()
            .feed("r/" + x.op().name(), feed)
            .fetch("r/" + p.op().name())
            .fetch("r/" + dp.op().name())
            .run()
        )
    for a, b in zip(mine, theirs, strict=True):
        np.testing.assert_array_equal(a, b)


def test_aGraphWithItsOwnInitOpAndInitializersIsRejected(tf: Ops, graph: Graph) -> None:
    tf.withName("Init").identity(tf.constant(1.0))
    graph.toGraphDef()  # no initializers: no Init NoOp is written
    tf.variable(tf.constant(1.0))
    with pytest.raises(IllegalStateError, match="own op named 'Init'.*rename that op"):
        graph.toGraphDef()


def test_aNoOpNamedInitIsRejectedEvenWithoutInitializers(tf: Ops, graph: Graph) -> None:
    tf.withName("Init").noOp()  # it would read back as the list of initializers
    with pytest.raises(IllegalStateError, match="own op named 'Init'"):
        graph.toGraphDef()


# -- Session.freeze ----------------------------------------------------------------------------
def test_freezeReplacesVariablesByTheirCurrentValuesAndDropsInitializers(
    tf: Ops, graph: Graph
) -> None:
    w = tf.withName("w").variable(tf.constant([1.0, 2.0]))
    y = tf.withName("y").math.mul(w, 3.0)
    step = tf.assignAdd(w, tf.constant([10.0, 10.0]))
    unused = tf.withName("unused").math.exp(tf.constant(1.0))
    with Session(graph) as s:
        s.run(step)
        frozen = s.freeze([y])
        expected = s.runner().fetch(y).run()[0]
    served = Graph()
    served.importGraphDef(frozen)
    assert served.initializers() == []
    assert served.operation(unused.op().name()) is None
    assert served.operation(step.op().name()) is None
    w2 = served.operation("w")
    assert w2 is not None and w2.type() == "Const"
    np.testing.assert_array_equal(w2.attr("value"), [11.0, 12.0])  # type: ignore[arg-type]
    with Session(served) as s:
        np.testing.assert_array_equal(s.runner().fetch("y").run()[0], expected)


def test_freezeTakesNamesAndASingleFetch(tf: Ops, graph: Graph) -> None:
    w = tf.withName("w").variable(tf.constant([1.0]))
    tf.withName("y").math.neg(w)
    with Session(graph) as s:
        assert s.freeze("y") == s.freeze(["y:0"])


def test_freezingATrainingStepIsRejected(tf: Ops, graph: Graph) -> None:
    w = tf.variable(tf.constant([1.0]))
    step = tf.withName("train").assignAdd(w, tf.constant([1.0]))
    with (
        Session(graph) as s,
        pytest.raises(IllegalArgumentError, match="AssignAdd 'train'.*writes"),
    ):
        s.freeze([step])


# -- GraphDefs that TensorFlow 2.21 wrote ------------------------------------------------------
def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def test_aFrozenMlpWrittenByTensorFlowGivesTensorFlowsValues(graph: Graph) -> None:
    expected = np.load(FIXTURES / "graphdefs.npz")
    graph.importGraphDef(fixture("frozen_mlp.pb"))
    with Session(graph) as s:
        got = s.runner().feed("x", expected["mlp_x"]).fetch("probabilities").run()[0]
    np.testing.assert_allclose(got, expected["mlp_probabilities"], rtol=1e-6, atol=1e-7)


def test_theStableSoftmaxAndItsGradientWrittenByTensorFlowGiveTensorFlowsValues(
    graph: Graph,
) -> None:
    expected = np.load(FIXTURES / "graphdefs.npz")
    graph.importGraphDef(fixture("stable_softmax.pb"), prefix="tf")
    with Session(graph) as s:
        p, dx = s.runner().feed("tf/x", expected["softmax_x"]).fetch("tf/p").fetch("tf/dx").run()
    np.testing.assert_allclose(p, expected["softmax_p"], rtol=1e-12)
    np.testing.assert_allclose(dx, expected["softmax_dx"], rtol=1e-12, atol=1e-15)


# -- errors: the graph is left unchanged -------------------------------------------------------
def snapshot(graph: Graph) -> list[str]:
    return [op.name() for op in graph.operations()] + [
        "init:" + op.name() for op in graph.initializers()
    ]


@pytest.fixture
def source() -> bytes:
    with Graph() as g:
        tf = Ops.create(g)
        tf.withName("y").math.exp(tf.variable(tf.constant([1.0, 2.0])))
        return g.toGraphDef()


def nodes(data: bytes) -> Any:
    from tensorboard.compat.proto import graph_pb2

    graphDef = graph_pb2.GraphDef()
    graphDef.ParseFromString(data)
    return graphDef


def unchangedAfter(
    graph: Graph,
    data: bytes,
    match: str,
    prefix: str | None = None,
    error: type[Exception] = IllegalArgumentError,
) -> None:
    before = snapshot(graph)
    with pytest.raises(error, match=match) as raised:
        graph.importGraphDef(data, prefix)
    assert str(raised.value)
    assert snapshot(graph) == before
    assert graph.size() == len([n for n in before if not n.startswith("init:")])


def test_unknownOpTypesAreAllNamed(tf: Ops, graph: Graph, source: bytes) -> None:
    tf.constant(1.0)
    graphDef = nodes(source)
    graphDef.node[0].op = "FancyOp"
    graphDef.node[2].op = "OtherOp"
    unchangedAfter(graph, graphDef.SerializeToString(), r"2 op type\(s\).*FancyOp.*OtherOp")


def test_corruptBytesAreRejected(tf: Ops, graph: Graph) -> None:
    tf.constant(1.0)
    unchangedAfter(graph, b"\x00\x01not a graph", "not a serialized TensorFlow GraphDef")


def test_truncatedBytesAreRejected(tf: Ops, graph: Graph, source: bytes) -> None:
    tf.constant(1.0)
    for cut in (len(source) // 2, len(source) - 3):
        unchangedAfter(graph, source[:cut], "not a serialized TensorFlow GraphDef|not a node")


def test_aDuplicateNodeNameIsRejected(tf: Ops, graph: Graph, source: bytes) -> None:
    tf.constant(1.0)
    graphDef = nodes(source)
    graphDef.node[1].name = graphDef.node[0].name
    unchangedAfter(graph, graphDef.SerializeToString(), "more than one node named")


def test_namesAlreadyInTheGraphAreRejected(graph: Graph, source: bytes) -> None:
    graph.importGraphDef(source)
    unchangedAfter(graph, source, "already has op.*'y'")


def test_aPrefixAlreadyUsedIsRejected(tf: Ops, graph: Graph, source: bytes) -> None:
    tf.withSubScope("taken").constant(1.0)
    unchangedAfter(graph, source, "prefix 'taken' is already used", prefix="taken")
    tf.withName("op").constant(1.0)
    unchangedAfter(graph, source, "prefix 'op' is already used", prefix="op")


def test_anOpThatFailsHalfwayLeavesNothingBehind(tf: Ops, graph: Graph, source: bytes) -> None:
    tf.constant(1.0)
    graphDef = nodes(source)
    graphDef.node[-2].attr["T"].type = 7  # DT_STRING: the last op cannot be built
    unchangedAfter(
        graph,
        graphDef.SerializeToString(),
        "has data type DT_STRING, which tfops does not have",
        prefix="p",
        error=DataTypeError,
    )


def test_anAttributeTfopsDoesNotKnowIsRejected(graph: Graph, source: bytes) -> None:
    graphDef = nodes(source)
    graphDef.node[-2].attr["frobnicate"].b = True
    unchangedAfter(graph, graphDef.SerializeToString(), "'frobnicate'.*not an attribute")


def test_anInputThatNamesNoNodeIsRejected(graph: Graph, source: bytes) -> None:
    graphDef = nodes(source)
    graphDef.node[-2].input[0] = "nowhere"
    unchangedAfter(graph, graphDef.SerializeToString(), "reads 'nowhere'")


def test_withoutTheInteropExtraTfopsImportsAndTheErrorSaysWhatToInstall() -> None:
    script = textwrap.dedent(
        """
        import sys
        sys.modules["tensorboard"] = None  # as if it were not installed
        import tfops
        from tfops.errors import MissingDependencyError
        g = tfops.Graph()
        tfops.Ops.create(g).constant(1.0)
        try:
            g.toGraphDef()
        except MissingDependencyError as e:
            assert isinstance(e, ImportError)
            print(e)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[1],
    )
    assert result.returncode == 0, result.stderr
    assert "pip install 'tfops-java[interop]'" in result.stdout
