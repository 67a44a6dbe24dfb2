"""GraphDefs that tfops writes, run by TensorFlow 2.21 (``tf.compat.v1.import_graph_def`` in a
``tf.compat.v1`` Graph and Session): every op type loads, and gives tfops' values; the README's
graph, the stable softmax and an MLP with variables, with their gradients, and a frozen trained
model give the same values as a tfops session. Also: the tables of where TensorFlow's op
definitions differ from tfops' specs (``tfops.interop.attrs``) are exactly the differences."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import tensorflow
import test_docs
from tensorflow.python.framework import op_def_registry
from test_every_op import create, every
from test_graphdef import isRandom

from tfops import Graph, Ops, Session
from tfops.framework.optimizers import GradientDescent
from tfops.interop.attrs import TF_ONLY_AT_DEFAULT, TF_ONLY_HINTS, TF_TYPE_LISTS, TFOPS_ONLY
from tfops.opdef import OpDef
from tfops.spec import builtinOps
from tfops.types import TFloat32, TFloat64

v1 = tensorflow.compat.v1
_KINDS = {
    "type": "type",
    "bool": "bool",
    "int": "int",
    "float": "float",
    "string": "string",
    "shape": "shape",
    "tensor": "tensor",
    "list(int)": "list(int)",
}


def runInTensorFlow(
    graphDef: bytes,
    fetches: list[str],
    feeds: Mapping[str, Any] | None = None,
    targets: list[str] | None = None,
) -> list[Any]:
    """The fetches' values in a TensorFlow session of the imported GraphDef, after its ``Init``
    NoOp ran (when it has one); names are tfops' (``op`` or ``op:i``)."""
    graphDefProto = v1.GraphDef()
    graphDefProto.ParseFromString(graphDef)
    with tensorflow.Graph().as_default() as graph:
        v1.import_graph_def(graphDefProto, name="")
        with v1.Session(graph=graph) as session:
            if any(n.name == "Init" for n in graphDefProto.node):
                session.run("Init")
            if targets:
                session.run(targets)
            return list(
                session.run(
                    [f if ":" in f else f + ":0" for f in fetches],
                    {(k if ":" in k else k + ":0"): v for k, v in (feeds or {}).items()},
                )
            )


def tfopsValues(
    graph: Graph, fetches: list[str], feeds: Mapping[str, Any] | None = None
) -> list[Any]:
    with Session(graph) as s:
        runner = s.runner()
        for k, v in (feeds or {}).items():
            runner.feed(k, v)
        for f in fetches:
            runner.fetch(f)
        return list(runner.run())


def test_theInteropPageRunsAndPrintsWhatItSays() -> None:
    """docs/interop.md, a guide outside docs/concepts, checked as tests/test_docs.py checks
    the guides (its blocks import TensorFlow, so it is checked here)."""
    test_docs.test_guideCodeRunsAndPrintsWhatItSays(test_docs.DOCS / "interop.md")


# -- the tables of differences ------------------------------------------------------------------
def test_tensorFlowsOpDefinitionsDifferOnlyWhereTheTablesSay() -> None:
    hints: dict[str, set[str]] = {}
    atDefault: dict[str, dict[str, object]] = {}
    tfopsOnly: dict[str, set[str]] = {}
    for spec in builtinOps():  # (not the ops other tests register)
        found = op_def_registry.get(spec.type)
        assert found is not None, f"TensorFlow has no op {spec.type}"
        theirs = {a.name: a for a in found.attr}
        for attr in spec.attrs:
            if attr.name not in theirs:
                tfopsOnly.setdefault(spec.type, set()).add(attr.name)
            else:
                assert theirs[attr.name].type == _KINDS[attr.kind], (spec.type, attr.name)
        for name, attr in theirs.items():
            if spec.attrDef(name) is not None or name in TF_TYPE_LISTS.get(spec.type, {}):
                continue
            if name.startswith("grad_"):
                hints.setdefault(spec.type, set()).add(name)
            else:
                default = attr.default_value
                atDefault.setdefault(spec.type, {})[name] = getattr(
                    default, default.WhichOneof("value")
                )
        # a GraphDef lists inputs by position: their names may differ (Max's axis is
        # TensorFlow's reduction_indices), their number and kinds may not
        assert [bool(i.number_attr or i.type_list_attr) for i in found.input_arg] == [
            i.isList for i in spec.inputs
        ], spec.type
        assert len(found.output_arg) == len(spec.outputs), spec.type
        for name, inputName in TF_TYPE_LISTS.get(spec.type, {}).items():
            (arg,) = [i for i in found.input_arg if i.name == inputName]
            assert arg.type_list_attr == name
    assert hints == {k: set(v) for k, v in TF_ONLY_HINTS.items()}
    assert atDefault == {
        op: {n: (d.encode() if isinstance(d, str) else d) for n, (_, d) in attrs.items()}
        for op, attrs in TF_ONLY_AT_DEFAULT.items()
    }
    # the spec-level attributes tfops adds; Assert's N is the builder's count of its list
    assert tfopsOnly == {k: set(v) for k, v in TFOPS_ONLY.items() if k != "Assert"}
    assert "N" not in {i.number_attr for i in op_def_registry.get("Assert").input_arg}


# outputs that hold no data, which TensorFlow's CPU kernel returns as scalars although its shape
# function (and tfops) says [0]: FusedBatchNormGradV3's reserve_space_4 and _5
EMPTY_PLACEHOLDERS = {("FusedBatchNormGradV3", 3), ("FusedBatchNormGradV3", 4)}


# -- every op -----------------------------------------------------------------------------------
@every
def test_everyOpRunsInTensorFlowWithTfopsValues(spec: OpDef) -> None:
    with Graph() as g:
        op = create(spec, Ops.create(g)).op()
        feeds = {op.name(): np.array([1.0, 2.0], np.float32)} if spec.type == "Placeholder" else {}
        fetches = [o.name() for o in op.outputs()]
        graphDef = g.toGraphDef()
        if not fetches:  # an op without outputs (NoOp, Assert) runs as a target
            runInTensorFlow(graphDef, [], feeds, targets=[op.name()])
            return
        theirs = runInTensorFlow(graphDef, fetches, feeds)
        mine = tfopsValues(g, fetches, feeds)
        for n, (a, b) in enumerate(zip(mine, theirs, strict=True)):
            if (spec.type, n) in EMPTY_PLACEHOLDERS:
                assert a.shape == (0,) and b.shape == () and a.dtype == b.dtype
                continue
            assert a.dtype == b.dtype and a.shape == b.shape, spec.type
            if not isRandom(spec):
                np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6, err_msg=spec.type)


# -- whole graphs --------------------------------------------------------------------------------
def test_theReadmeGraphAndItsGradientRunInTensorFlow(tf: Ops, graph: Graph) -> None:
    x = tf.withName("x").placeholder(TFloat64)
    z = tf.math.sub(x, tf.stopGradient(tf.max(x, 0)))
    e = tf.math.exp(z)
    p = tf.math.div(e, tf.sum(e, 0))
    dp = tf.gradients(tf.sum(tf.math.mul(p, [1.0, 2.0, 3.0]), 0), [x]).dy(0)
    fetches, feeds = [p.op().name(), dp.op().name()], {"x": np.array([1000.0, 1001.0, 1002.0])}
    theirs = runInTensorFlow(graph.toGraphDef(), fetches, feeds)
    for a, b in zip(tfopsValues(graph, fetches, feeds), theirs, strict=True):
        np.testing.assert_array_equal(a, b)


def test_theStableSoftmaxOfTheExamplesAndItsGradientRunInTensorFlow(tf: Ops, graph: Graph) -> None:
    from tfops.examples.stable_softmax import stableSoftmax

    x = tf.withName("x").placeholder(TFloat64)
    p = stableSoftmax(tf, x)
    dx = tf.gradients(tf.sum(tf.math.mul(p, [1.0, -2.0, 3.0]), 0), [x]).dy(0)
    feeds = {"x": np.array([1000.0, 0.0, -1000.0])}
    fetches = [p.asOutput().name(), dx.name()]
    theirs = runInTensorFlow(graph.toGraphDef(), fetches, feeds)
    for a, b in zip(tfopsValues(graph, fetches, feeds), theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def mlp(tf: Ops) -> tuple[Any, Any, Any]:
    """A two-layer perceptron on ``x`` [?, 4] with its softmax cross-entropy on ``labels``."""
    rng = np.random.default_rng(3)
    x = tf.withName("x").placeholder(TFloat32)
    labels = tf.withName("labels").placeholder(TFloat32)
    w1 = tf.withName("w1").variable(tf.constant(rng.normal(size=(4, 8)).astype(np.float32)))
    b1 = tf.withName("b1").variable(tf.constant(np.zeros(8, np.float32)))
    w2 = tf.withName("w2").variable(tf.constant(rng.normal(size=(8, 3)).astype(np.float32)))
    hidden = tf.nn.relu(tf.nn.biasAdd(tf.linalg.matMul(x, w1), b1))
    logits = tf.withName("logits").linalg.matMul(hidden, w2)
    loss = tf.withName("loss").math.mean(
        tf.nn.softmaxCrossEntropyWithLogits(logits, labels).loss(), 0
    )
    return logits, loss, tf.gradients(loss, [w1, b1, w2])


FEEDS = {
    "x": np.random.default_rng(5).normal(size=(6, 4)).astype(np.float32),
    "labels": np.eye(3, dtype=np.float32)[[0, 1, 2, 0, 1, 2]],
}


def test_anMlpWithVariablesAndItsGradientsRunsInTensorFlow(tf: Ops, graph: Graph) -> None:
    logits, loss, grads = mlp(tf)
    fetches = [logits.asOutput().name(), loss.asOutput().name(), *(g.name() for g in grads)]
    theirs = runInTensorFlow(graph.toGraphDef(), fetches, FEEDS)
    for a, b in zip(tfopsValues(graph, fetches, FEEDS), theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_aFrozenTrainedMlpRunsInTensorFlowWithTheSessionsValues(tf: Ops, graph: Graph) -> None:
    logits, loss, _ = mlp(tf)
    step = GradientDescent(graph, 0.5).minimize(loss)
    with Session(graph) as session:
        initial = session.runner().feed("x", FEEDS["x"]).fetch(logits).run()[0]
        for _ in range(5):
            runner = session.runner().addTarget(step)
            for k, v in FEEDS.items():
                runner.feed(k, v)
            runner.run()
        expected = session.runner().feed("x", FEEDS["x"]).fetch(logits).run()[0]
        frozen = session.freeze([logits])
    served = v1.GraphDef()
    served.ParseFromString(frozen)
    assert {n.op for n in served.node} >= {"Const", "MatMul"}
    assert not {n.op for n in served.node} & {"VariableV2", "Assign", "NoOp"}
    (got,) = runInTensorFlow(frozen, [logits.asOutput().name()], {"x": FEEDS["x"]})
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)
    assert not np.allclose(got, initial, rtol=1e-3)  # the trained values, not the initial ones


def test_aGraphDefTensorFlowReExportsImportsAsTheSameGraph(tf: Ops, graph: Graph) -> None:
    x = tf.withName("x").placeholder(TFloat64)
    y = tf.math.exp(tf.math.sub(x, tf.stopGradient(tf.max(x, 0))))
    tf.gradients(y, [x])
    with tensorflow.Graph().as_default() as tfGraph:
        proto = v1.GraphDef()
        proto.ParseFromString(graph.toGraphDef())
        v1.import_graph_def(proto, name="")
        again = tfGraph.as_graph_def().SerializeToString()
    copy = Graph()
    copy.importGraphDef(again)
    assert [(op.name(), op.type()) for op in copy.operations()] == [
        (op.name(), op.type()) for op in graph.operations()
    ]


def test_aTensorFlowGraphWithVariablesAndGradientsImportsWithTensorFlowsValues() -> None:
    rng = np.random.default_rng(8)
    inputs = rng.normal(size=(4, 3)).astype(np.float32)
    with tensorflow.Graph().as_default() as tfGraph:
        x = v1.placeholder(tensorflow.float32, [None, 3], name="x")
        w = v1.Variable(rng.normal(size=(3, 2)).astype(np.float32), name="w", use_resource=False)
        p = tensorflow.nn.softmax(tensorflow.matmul(x, w), name="p")
        loss = tensorflow.reduce_sum(p * [[1.0, -1.0]], name="loss")
        (dw,) = v1.gradients(loss, [w])
        dw = tensorflow.identity(dw, name="dw")
        init = v1.global_variables_initializer()
        with v1.Session(graph=tfGraph) as tfSession:
            tfSession.run(init)
            expected = tfSession.run([p, dw], {x: inputs})
        data = tfGraph.as_graph_def().SerializeToString()
    with Graph() as g:
        g.importGraphDef(data)
        with Session(g) as s:
            s.run(init.name)  # TensorFlow's own initializer op ("init"), not TF Java's Init
            got = s.runner().feed("x", inputs).fetch("p").fetch("dw").run()
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_tensorFlow2sAddV2ImportsWithTensorFlowsValuesAndGradient() -> None:
    """TensorFlow 2 writes ``x + y`` (and ``tf.add``) as ``AddV2``: it imports, runs and
    differentiates as TensorFlow does."""
    xs = np.array([1.0, -2.0, 3.5])
    with tensorflow.Graph().as_default() as tfGraph:
        x = v1.placeholder(tensorflow.float64, [3], name="x")
        y = tensorflow.identity(x * x + 2.0 * x, name="y")
        (dx,) = v1.gradients(tensorflow.reduce_sum(y), [x])
        dx = tensorflow.identity(dx, name="dx")
        with v1.Session(graph=tfGraph) as tfSession:
            expected = tfSession.run([y, dx], {x: xs})
        data = tfGraph.as_graph_def().SerializeToString()
    assert "AddV2" in {node.op for node in tfGraph.as_graph_def().node}
    with Graph() as g:
        g.importGraphDef(data)
        tf = Ops.create(g)
        (ours,) = tf.gradients(
            tf.sum(g.operation("y").output(0), 0), [g.operation("x").output(0)]
        ).dy()
        with Session(g) as s:
            got = s.runner().feed("x", xs).fetch("y").fetch("dx").fetch(ours).run()
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    np.testing.assert_array_equal(got[2], expected[1])
