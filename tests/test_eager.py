"""Eager execution (``EagerSession``, TF Java's): ops run when created, on both backends, with
the values a graph session computes, the checks and errors of a graph, TF Java's refusals, and
bounded memory."""

from __future__ import annotations

import gc
import re
import threading
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from test_every_op import OPS, sampleOf

from tfops import EagerSession, Graph, Ops, Session
from tfops.errors import (
    DataTypeError,
    IllegalArgumentError,
    IllegalStateError,
    InvalidArgumentError,
)
from tfops.op.random import RandomUniform
from tfops.opdef import OpDef
from tfops.types import TFloat32, TFloat64, TInt32

BACKENDS = ["numpy", "xla"]

X = np.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.5]], np.float32)
ROW = np.array([10.0, 20.0, 30.0], np.float32)
SQ = np.array([[2.0, 1.0], [1.0, 3.0]], np.float32)

# each row builds with a facade `tf` from the operands x ([2, 3]), row ([3]) and sq ([2, 2])
TABLE: dict[str, Callable[[Any, Any, Any, Any], Any]] = {
    "exp": lambda tf, x, row, sq: tf.math.exp(x),
    "neg (operator)": lambda tf, x, row, sq: -x,
    "abs (operator)": lambda tf, x, row, sq: abs(x),
    "sigmoid": lambda tf, x, row, sq: tf.math.sigmoid(x),
    "add broadcast (operator)": lambda tf, x, row, sq: x + row,
    "sub scalar (operator)": lambda tf, x, row, sq: 1.5 - x,
    "mul broadcast": lambda tf, x, row, sq: tf.math.mul(x, row),
    "truediv (operator)": lambda tf, x, row, sq: x / row,
    "floordiv (operator)": lambda tf, x, row, sq: x // 0.75,
    "pow (operator)": lambda tf, x, row, sq: row**2.0,
    "less (operator)": lambda tf, x, row, sq: x < 1.0,
    "maximum": lambda tf, x, row, sq: tf.math.maximum(x, row),
    "sum over axis 0": lambda tf, x, row, sq: tf.sum(x, 0),
    "max keepDims": lambda tf, x, row, sq: tf.max(x, 1, keepDims=True),
    "mean of all": lambda tf, x, row, sq: tf.math.mean(x, tf.constant([0, 1])),
    "argMax": lambda tf, x, row, sq: tf.math.argMax(x, 1),
    "matmul (operator)": lambda tf, x, row, sq: sq @ x,
    "matmul transposeA": lambda tf, x, row, sq: tf.linalg.matMul(x, x, transposeA=True),
    "slice [1:, ::-1] (operator)": lambda tf, x, row, sq: x[1:, ::-1],
    "slice [..., None] (operator)": lambda tf, x, row, sq: x[..., None],
    "slice [-1] (operator)": lambda tf, x, row, sq: x[-1],
    "reshape to a shape": lambda tf, x, row, sq: tf.reshape(x, tf.shape(tf.math.mul(x, 0.0))),
    "concat": lambda tf, x, row, sq: tf.concat([x, x], 0),
    "gather": lambda tf, x, row, sq: tf.gather(row, tf.constant([2, 0]), tf.constant(0)),
    "cast": lambda tf, x, row, sq: tf.dtypes.cast(x, TInt32),
    "softmax": lambda tf, x, row, sq: tf.nn.softmax(x),
}


def _graphValues(backend: str, build: Callable[[Ops], Any]) -> list[np.ndarray[Any, Any]]:
    """What a graph session computes for ``build``, its constants fed (so that an XLA session,
    which folds small constant subgraphs with numpy kernels, runs each op in XLA, as an eager
    op runs)."""
    g = Graph()
    op = build(Ops.create(g))
    with Session(g, backend=backend) as session:
        runner = session.runner()
        for c in g.operations():
            if c.type() == "Const":
                runner.feed(c.output(0), c.attr("value"))
        outputs = op.op().outputs()
        for o in outputs:
            runner.fetch(o)
        return list(runner.run()) if outputs else []


def _assertSame(eager: list[np.ndarray[Any, Any]], graph: list[np.ndarray[Any, Any]]) -> None:
    assert len(eager) == len(graph)
    for e, g in zip(eager, graph, strict=True):
        assert e.dtype == g.dtype and e.shape == g.shape
        np.testing.assert_array_equal(e, g)


@pytest.fixture(params=BACKENDS)
def eager(request: pytest.FixtureRequest) -> Iterator[EagerSession]:
    with EagerSession(backend=request.param) as session:
        yield session


# -- values: as a graph session's ------------------------------------------------------------
@pytest.mark.parametrize("row", TABLE, ids=list(TABLE))
def test_tableValuesAreTheGraphSessions(row: str, eager: EagerSession) -> None:
    def build(tf: Ops) -> Any:
        return TABLE[row](tf, tf.constant(X), tf.constant(ROW), tf.constant(SQ))

    result = build(Ops.create(eager))
    _assertSame([result.asTensor()], _graphValues(eager.backend().name, build))


@pytest.mark.parametrize("spec", OPS, ids=lambda spec: spec.type)
def test_everyOpRunsAsInAGraphOrIsRefused(spec: OpDef, eager: EagerSession) -> None:
    """Every op's sample (tests/test_every_op.py) runs eagerly with a graph session's values;
    the ops that exist only in a graph are refused, with TF Java's message."""
    tf = Ops.create(eager)
    if not eager.isOpEnabled(spec.type):
        with pytest.raises(IllegalArgumentError, match=r"^Op \w+ is not valid in eager mode\."):
            sampleOf(spec)(tf)
        return
    op = sampleOf(spec)(tf)
    values = [o.asTensor() for o in op.op().outputs()]
    for o, v in zip(op.op().outputs(), values, strict=True):
        assert o.shape().isFullyKnown() and list(o.shape().asArray() or []) == list(v.shape)
    if not spec.stateful:  # random ops: below, with seeds
        _assertSame(values, _graphValues(eager.backend().name, sampleOf(spec)))


def test_randomOpsWithSeedsContinueOneSequenceAsGraphRunsDo(eager: EagerSession) -> None:
    """As TensorFlow's eager kernel cache (checked with TF 2.21's raw RandomUniform): calls of
    a seeded random op with the same attributes continue one sequence, whatever shape each
    asks for, as successive runs of one op in a graph session do; other attributes (here the
    shape's data type) start another sequence, and so does a new session."""

    def draw(tf: Ops, shape: Any) -> Any:
        seeds = (RandomUniform.seed(7), RandomUniform.seed2(3))
        operand = shape if hasattr(shape, "asOutput") else tf.constant(shape)
        return tf.random.randomUniform(operand, TFloat32, *seeds)

    g = Graph()
    gtf = Ops.create(g)
    shape = gtf.placeholder(TInt32)
    op = draw(gtf, shape)
    shapes = [np.array([2], np.int32), np.array([2], np.int32), np.array([3], np.int32)]
    with Session(g, backend=eager.backend().name) as session:
        runs = [session.runner().feed(shape, v).fetch(op).run()[0] for v in shapes]
    tf = Ops.create(eager)
    _assertSame([draw(tf, v).asTensor() for v in shapes], runs)
    _assertSame([draw(tf, np.array([2], np.int64)).asTensor()], runs[:1])
    with EagerSession(backend=eager.backend()) as again:
        _assertSame([draw(Ops.create(again), shapes[0]).asTensor()], runs[:1])


# -- values and shapes -----------------------------------------------------------------------
def test_asTensorIsAReadOnlyArrayOfTheOutput(eager: EagerSession) -> None:
    tf = Ops.create(eager)
    y = tf.constant([1.0, 2.0]) * 3.0
    value = y.asTensor()
    assert value.tolist() == [3.0, 6.0] and value.dtype == np.float32
    assert y.asOutput().asTensor() is value
    with pytest.raises(ValueError, match="read-only"):
        value[0] = 0.0


def test_outputShapesAreConcrete(eager: EagerSession) -> None:
    tf = Ops.create(eager)
    diff = tf.setDiff1d(tf.constant([3, 1, 4, 2]), tf.constant([1]))  # [?] in a graph
    assert diff.out().shape().asArray() == (3,)
    assert diff.out().asTensor().tolist() == [3, 4, 2]
    assert diff.idx().asTensor().tolist() == [0, 2, 3]
    with pytest.raises(IllegalStateError, match="has 2 outputs"):
        diff.asTensor()


def test_graphTensorHasNoValue() -> None:
    g = Graph()
    x = Ops.create(g).constant(1.0)
    with pytest.raises(IllegalStateError, match="graph tensors must be fetched by running"):
        x.asTensor()
    with pytest.raises(IllegalStateError, match="graph tensors must be fetched by running"):
        x.asOutput().asTensor()


def test_itKeepsNoOpsAndNamesThemAsTfJavaDoes(eager: EagerSession) -> None:
    tf = Ops.create(eager)
    ops = [tf.math.neg(tf.constant(1.0)) for _ in range(3)]
    assert [op.op().name() for op in ops] == ["Neg", "Neg_1", "Neg_2"]
    assert tf.withSubScope("layer").withName("n").math.neg(ops[0]).op().name() == "layer/n"
    assert list(eager.operations()) == [] and eager.operation("Neg") is None
    assert eager.size() == 0 and eager.initializers() == []
    with pytest.raises(IllegalStateError, match="keeps no graph to draw"):
        eager.toDot()
    assert ops[0].op() == ops[0].op() and ops[0].op() != ops[1].op()


def test_controlDependenciesAndInitScopesRunAtOnce(eager: EagerSession) -> None:
    tf = Ops.create(eager)
    x = tf.constant([1.0, 2.0])
    assert tf.withControlDependencies([x]).math.neg(x).asTensor().tolist() == [-1.0, -2.0]
    assert tf.withInitScope().math.neg(x).asTensor().tolist() == [-1.0, -2.0]
    init = tf.init()
    assert init.op().type() == "NoOp"
    with pytest.raises(IllegalStateError, match="has no outputs"):
        init.asTensor()


def test_aDeviceTheBackendLacksIsAnErrorNamingTheOp() -> None:
    with EagerSession() as session:
        tf = Ops.create(session)
        with pytest.raises(InvalidArgumentError, match="numpy backend runs on /device:CPU:0"):
            tf.withDevice("/device:GPU:0").math.neg(tf.constant(1.0))
    with EagerSession(allowSoftPlacement=True) as session:
        tf = Ops.create(session)
        assert tf.withDevice("/device:GPU:0").math.neg(tf.constant(1.0)).asTensor() == -1.0


# -- the errors of a graph, at construction ---------------------------------------------------
def _withoutSites(message: str) -> str:
    return re.sub(r"\(created at [^)]*\)", "", message)


@pytest.mark.parametrize(
    "mistake",
    [
        lambda tf: tf.math.add(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0])),
        lambda tf: tf.math.sub(tf.constant([1.0], TFloat32), tf.constant([1.0], TFloat64)),
        lambda tf: tf.reshape(tf.constant([1.0, 2.0, 3.0]), tf.constant([2, 2])),
        lambda tf: tf.sum(tf.constant([1.0, 2.0]), tf.constant(3)),
    ],
    ids=["shapes", "dtypes", "reshape", "axis"],
)
def test_constructionErrorsAreAGraphs(mistake: Callable[[Ops], Any], eager: EagerSession) -> None:
    with pytest.raises((IllegalArgumentError, DataTypeError)) as inGraph:
        mistake(Ops.create(Graph()))
    with pytest.raises(type(inGraph.value)) as inEager:
        mistake(Ops.create(eager))
    assert _withoutSites(str(inEager.value)) == _withoutSites(str(inGraph.value))


def test_runErrorNamesTheEagerOpAndWhereItWasCreated(eager: EagerSession) -> None:
    tf = Ops.create(eager)
    with pytest.raises(InvalidArgumentError) as caught:
        tf.checkNumerics(tf.constant([1.0, np.inf]), "found a bad value")
    assert "found a bad value" in str(caught.value)
    assert caught.value.op is not None and caught.value.op.type() == "CheckNumerics"
    assert caught.value.op.creationSite().startswith(__file__)


# -- TF Java's refusals ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("opType", "build"),
    [
        ("Placeholder", lambda tf: tf.placeholder(TFloat32)),
        ("VariableV2", lambda tf: tf.variable(tf.constant([1.0]))),
        ("Assign", lambda tf: tf.assign(tf.constant([1.0]), tf.constant([2.0]))),
        ("AssignAdd", lambda tf: tf.assignAdd(tf.constant([1.0]), tf.constant([2.0]))),
    ],
    ids=["Placeholder", "VariableV2", "Assign", "AssignAdd"],
)
def test_graphOnlyOpsAreRefused(
    opType: str, build: Callable[[Ops], Any], eager: EagerSession
) -> None:
    with pytest.raises(IllegalArgumentError, match=rf"^Op {opType} is not valid in eager mode\."):
        build(Ops.create(eager))
    assert not eager.isOpEnabled(opType) and eager.isOpEnabled("Const")


def test_graphAndEagerOperandsDoNotMix(eager: EagerSession) -> None:
    g = Graph()
    graphX = Ops.create(g).constant([1.0, 2.0])
    tf = Ops.create(eager)
    eagerX = tf.constant([1.0, 2.0])
    with pytest.raises(IllegalArgumentError, match="Can't use graph operation 'Const' in eager"):
        tf.math.add(eagerX, graphX)
    with pytest.raises(IllegalArgumentError, match="Can't use graph operation"):
        eagerX + graphX
    with pytest.raises(
        IllegalArgumentError,
        match="was from an eager session, can't use in a "
        r"graph; use tf.constant\(x.asTensor\(\)\)",
    ):
        Ops.create(g).math.add(graphX, eagerX)
    with pytest.raises(IllegalArgumentError, match="was from an eager session"):
        graphX * eagerX
    with EagerSession() as other:
        with pytest.raises(IllegalArgumentError, match="was from another eager session"):
            Ops.create(other).math.neg(eagerX)
    assert [op.name() for op in g.operations()] == ["Const"]  # nothing left half-made


def test_aSessionOfAnEagerSessionIsRefused(eager: EagerSession) -> None:
    with pytest.raises(IllegalArgumentError, match=r"EagerSession runs its ops as they are"):
        Session(eager)


def test_noGradientsInEagerModeAsInTfJava(eager: EagerSession) -> None:
    """TF Java's EagerSession has no gradient tape, and its Gradients op needs a Graph."""
    tf = Ops.create(eager)
    x = tf.constant([1.0, 2.0])
    y = tf.math.square(x)
    pattern = "Gradients can be computed only in a graph execution environment"
    with pytest.raises(IllegalStateError, match=pattern):
        tf.gradients(y, [x])
    with pytest.raises(IllegalStateError, match=pattern):
        eager.addGradients(None, [y.asOutput()], [x.asOutput()])
    with pytest.raises(IllegalStateError, match="keeps no graph"):
        y.op().inputs()


# -- the session's life ---------------------------------------------------------------------
def test_closingMakesItsTensorsUnusable() -> None:
    session = EagerSession()
    tf = Ops.create(session)
    x = tf.constant([1.0]) + 1.0
    with session:
        pass
    assert session.isClosed()
    with pytest.raises(IllegalStateError, match="^Eager session has been closed"):
        x.asTensor()
    with pytest.raises(IllegalStateError, match="^Eager session has been closed"):
        tf.constant(1.0)


def test_defaultSessionIsOnePerProcessFromEveryThread() -> None:
    found: list[EagerSession] = []
    threads = [
        threading.Thread(target=lambda: found.append(EagerSession.getDefault())) for _ in range(16)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(found) == 16 and all(s is EagerSession.getDefault() for s in found)
    assert Ops.create().scope().env() is EagerSession.getDefault()
    assert (Ops.create().constant(2) + 3).asTensor() == 5
    with pytest.raises(IllegalStateError, match="^Default eager session cannot be closed"):
        EagerSession.getDefault().close()
    with pytest.raises(IllegalStateError, match="^Default eager session is already initialized"):
        EagerSession.initDefault(backend="xla")


def test_initDefaultSetsTheDefaultSessionsOptions() -> None:
    EagerSession._closeDefaultForTest()
    try:
        made = EagerSession.initDefault(backend="numpy", checkNumerics=True)
        assert EagerSession.getDefault() is made
        tf = Ops.create()
        with pytest.raises(InvalidArgumentError, match="contains inf"):
            tf.math.log(tf.constant([0.0]))
    finally:
        EagerSession._closeDefaultForTest()


def test_opsFromSeveralThreadsRunCorrectly(eager: EagerSession) -> None:
    tf = Ops.create(eager)
    results: dict[int, float] = {}

    def work(k: int) -> None:
        x = tf.constant(float(k))
        for _ in range(20):
            x = x + 1.0
        results[k] = float(x.asTensor())

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {k: k + 20.0 for k in range(8)}


# -- memory ---------------------------------------------------------------------------------
def test_aLoopOfTenThousandOpsRunsInBoundedMemory() -> None:
    """Each eager op keeps its values, not its inputs nor its name, and forms no reference
    cycle with its outputs: a result nobody references is freed at once, and the session holds
    nothing per op. (A result kept by mistake would be 4 KB an op, 40 MB in all.)"""
    with EagerSession() as session:
        tf = Ops.create(session)
        x = tf.constant(np.zeros(1000, np.float32))
        gc.disable()  # freed by reference counting alone, not by the cycle collector
        tracemalloc.start()
        try:
            for _ in range(2000):  # warm up: kernels compiled, Python's free lists filled
                x = x + 1.0
            before = tracemalloc.get_traced_memory()[0]
            for _ in range(10_000):
                x = x + 1.0
            grown = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
            gc.enable()
        assert float(x.asTensor()[0]) == 12_000.0
        assert grown < 16_000, f"memory grew by {grown} bytes over 10,000 eager ops"


@pytest.mark.parametrize("backend", BACKENDS)
def test_anEagerTensorHasAValueForNumpyBoolAndIteration(backend: str) -> None:
    """As TF Python's eager tensors: ``np.asarray(x)`` is the value, ``bool`` is numpy's
    (one element only), iteration gives ``x[0], x[1], ...``; a graph's tensor refuses all
    three (tests/test_operators.py)."""
    with EagerSession(backend=backend) as session:
        tf = Ops.create(session)
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        np.testing.assert_array_equal(np.asarray(x), [[1.0, 2.0], [3.0, 4.0]])
        assert np.asarray(x.asOutput(), dtype=np.float64).dtype == np.float64
        rows = [np.asarray(row) for row in x]
        np.testing.assert_array_equal(rows, [[1.0, 2.0], [3.0, 4.0]])
        assert bool(tf.math.greater(tf.constant(2.0), 1.0)) is True
        with pytest.raises(ValueError, match="more than one element"):
            bool(x)
        with pytest.raises(TypeError, match="scalar"):
            iter(tf.constant(1.0))
