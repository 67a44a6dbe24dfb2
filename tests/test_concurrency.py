"""Concurrency: one graph built from many threads, one session run from many threads.

Names stay unique and no op is lost however many threads build into one graph, through their own
scopes or one shared scope, and even while other threads fail; a session gives each thread its
own results; variable updates from many threads are not lost; the plan cache stays correct when
threads ask for the same new request at the same moment.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from scope import Scope
from tfops import Graph, Ops, Output, Session
from tfops import Shape as TShape
from tfops.errors import IllegalArgumentError
from tfops.op.core import Placeholder
from tfops.types import TFloat64, TType

THREADS = 8


@pytest.fixture(autouse=True)
def _switchThreadsOften() -> Iterator[None]:
    """Makes the interpreter switch threads every microsecond instead of every 5 ms: the runs
    here take microseconds, so at the default interval a thread would finish its loop before
    another one started, and a race would go unseen."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


def _inThreads(work: Callable[[int], None], threads: int = THREADS) -> None:
    """Runs ``work(t)`` for t in range(threads), all starting together; re-raises the first
    error a thread met."""
    start = threading.Barrier(threads)
    errors: list[BaseException] = []

    def run(t: int) -> None:
        try:
            start.wait()
            work(t)
        except BaseException as e:  # reported to the test below
            errors.append(e)

    pool = [threading.Thread(target=run, args=(t,)) for t in range(threads)]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    if errors:
        raise errors[0]


def _names(graph: Graph) -> list[str]:
    return [op.name() for op in graph.operations()]


def _suffixed(name: str, count: int) -> set[str]:
    """``name``, ``name_1``, ..., ``name_{count-1}``: what ``count`` ops of one default name get."""
    return {name} | {f"{name}_{i}" for i in range(1, count)}


# -- building -----------------------------------------------------------------------------------


def test_threadsWithTheirOwnRootScopesGetUniqueNamesAndLoseNoOps(graph: Graph) -> None:
    a = Ops.create(graph).withName("a").constant(1.0)
    made: list[list[str]] = [[] for _ in range(THREADS)]

    def work(t: int) -> None:
        tf = Ops.create(graph)  # a root scope of this thread's own
        for _ in range(300):
            made[t].append(tf.math.neg(a).op().name())

    _inThreads(work)
    allMade = [n for names in made for n in names]
    assert len(set(allMade)) == THREADS * 300
    assert set(allMade) == _suffixed("Neg", THREADS * 300)
    assert sorted(_names(graph)) == sorted(["a", *allMade])


def test_threadsSharingOneRootScopeGetUniqueNamesAndLoseNoOps(graph: Graph) -> None:
    tf = Ops.create(graph)
    a = tf.withName("a").constant(1.0)
    made: list[list[str]] = [[] for _ in range(THREADS)]

    def work(t: int) -> None:
        for _ in range(300):
            made[t].append(tf.math.neg(a).op().name())

    _inThreads(work)
    allMade = {n for names in made for n in names}
    assert allMade == _suffixed("Neg", THREADS * 300)
    assert sorted(_names(graph)) == sorted(["a", *allMade])


def test_everyOpBuiltByAThreadIsTheOneTheGraphHoldsUnderItsName(graph: Graph) -> None:
    tf = Ops.create(graph)
    x = tf.withName("x").placeholder(TFloat64)
    made: list[list[tuple[str, object]]] = [[] for _ in range(THREADS)]

    def work(t: int) -> None:
        for i in range(300):
            op = tf.math.add(x, np.float64(t * 1000 + i)).op()
            made[t].append((op.name(), op))

    _inThreads(work)
    for names in made:
        for name, op in names:
            assert graph.operation(name) is op


def test_threadsOpeningSubScopesOfOneNameGetDistinctSubScopes(graph: Graph) -> None:
    root = Scope(graph)
    prefixes: list[list[str]] = [[] for _ in range(THREADS)]

    def work(t: int) -> None:
        for _ in range(300):
            prefixes[t].append(root.withSubScope("layer").prefix())

    _inThreads(work)
    allPrefixes = [p for ps in prefixes for p in ps]
    assert set(allPrefixes) == _suffixed("layer", THREADS * 300)


def test_eachOpComesAfterItsInputsInTheGraphsOrder(graph: Graph) -> None:
    # the session runs ops in creation order, so it must be a topological order
    tf = Ops.create(graph)
    x = tf.withName("x").placeholder(TFloat64)

    def work(t: int) -> None:
        y: Output[TFloat64] = x.asOutput()
        for _ in range(150):
            y = tf.math.square(tf.math.neg(y)).asOutput()

    _inThreads(work)
    position = {name: i for i, name in enumerate(_names(graph))}
    for op in graph.operations():
        for source in op.inputs():
            assert position[source.op().name()] < position[op.name()]


def test_failingConstructionsInSomeThreadsLeaveNoTraceInTheOthers(graph: Graph) -> None:
    tf = Ops.create(graph)
    two, three = tf.withName("two").constant([1.0, 2.0]), tf.withName("three").constant([1.0] * 3)
    failures: list[int] = [0] * THREADS

    def work(t: int) -> None:
        for _ in range(300):
            if t % 2:
                try:
                    tf.math.add(two, three)
                except IllegalArgumentError:
                    failures[t] += 1
            else:
                tf.math.add(two, two)

    _inThreads(work)
    assert failures == [0, 300] * (THREADS // 2)
    # the names failed attempts took for a moment were all given back: no gaps
    assert set(_names(graph)) == {"two", "three"} | _suffixed("Add", THREADS // 2 * 300)
    assert graph.size() == 2 + THREADS // 2 * 300


def test_threadsReadingOpsWhileTheGraphClosesAlwaysSeeTheirOutputs() -> None:
    """Closing releases every op's outputs (the op keeps their data types and shapes): a
    thread reading an op meanwhile gets the output it had, or one equal to it, never none."""
    graph = Graph()
    tf = Ops.create(graph)
    x = tf.placeholder(TFloat64)
    outs: list[Output[TFloat64]] = [x.asOutput()]
    for _ in range(3000):
        outs.append(tf.math.exp(outs[-1]).asOutput())
    split = tf.split(tf.constant(0), tf.constant(np.zeros(4)), 2)
    parts = split.output()
    ops = [o.op() for o in outs]

    def work(t: int) -> None:
        if t == 0:
            graph.close()
            return
        for _ in range(3):
            for op, out in zip(ops, outs, strict=True):
                assert op.numOutputs() == 1 and op.output(0) == out and op.outputs() == [out]
            assert split.op().outputs() == parts and split.op().numOutputs() == 2

    _inThreads(work, 4)
    assert graph.isClosed()


def test_gradientsBuiltFromManyThreadsGetDistinctPrefixesAndRightValues(graph: Graph) -> None:
    tf = Ops.create(graph)
    x = tf.withName("x").placeholder(TFloat64)
    y = tf.math.mul(tf.math.square(x), x)  # dy/dx = 3 x^2
    grads: list[list[Output[TType]]] = [[] for _ in range(THREADS)]

    def work(t: int) -> None:
        for _ in range(20):
            dy = tf.gradients(y, [x]).dy(0)
            assert dy is not None
            grads[t].append(dy)

    _inThreads(work)
    every = [g for gs in grads for g in gs]
    prefixes = {g.op().name().split("/")[0] for g in every}
    assert prefixes == _suffixed("Gradients", THREADS * 20)
    with Session(graph) as s:
        runner = s.runner().feed(x, np.array([1.0, -2.0]))
        for g in every:
            runner.fetch(g)
        assert all(v.tolist() == [3.0, 12.0] for v in runner.run())


# -- running ------------------------------------------------------------------------------------


def test_threadsRunningOneSessionWithTheirOwnFeedsAndFetchesGetTheirOwnResults(
    graph: Graph,
) -> None:
    tf = Ops.create(graph)
    x = tf.placeholder(TFloat64, Placeholder.shape(TShape.of(3)))
    square = tf.math.square(x)
    total = tf.sum(square, 0)
    neg = tf.math.neg(x)
    wrong: list[str] = []

    with Session(graph) as session:

        def work(t: int) -> None:
            for i in range(300):
                value = np.array([t, i, t - i], np.float64)
                kind = (t + i) % 3
                if kind == 0:
                    got = session.runner().feed(x, value).fetch(total).fetch(neg).run()
                    expected = [float((value * value).sum()), (-value).tolist()]
                    actual = [float(got[0]), got[1].tolist()]
                elif kind == 1:
                    got = session.runner().feed(x, value).fetch(square).run()
                    expected, actual = [(value * value).tolist()], [got[0].tolist()]
                else:  # an intermediate fed: its computation is replaced
                    got = session.runner().feed(square, value).fetch(total).run()
                    expected, actual = [float(value.sum())], [float(got[0])]
                if actual != expected:
                    wrong.append(f"thread {t} step {i}: {actual} != {expected}")

        _inThreads(work)
    assert wrong == []


def test_concurrentAssignAddLosesNoUpdate(graph: Graph) -> None:
    tf = Ops.create(graph)
    v = tf.variable(tf.constant(np.float64(0.0)))
    add = tf.assignAdd(v, tf.constant(np.float64(1.0)))
    seen: list[list[float]] = [[] for _ in range(THREADS)]

    with Session(graph) as session:
        session.initialize()

        def work(t: int) -> None:
            for _ in range(500):
                seen[t].append(float(session.runner().fetch(add).run()[0]))

        _inThreads(work)
        final = float(session.runner().fetch(v).run()[0])
    assert final == THREADS * 500
    # each update saw the value the one before it left: every count appears exactly once
    assert sorted(s for values in seen for s in values) == [
        float(i) for i in range(1, THREADS * 500 + 1)
    ]


def test_concurrentAssignAddAndAssignSubOnTwoVariablesLoseNoUpdate(graph: Graph) -> None:
    tf = Ops.create(graph)
    up = tf.variable(tf.constant(np.zeros(2), TFloat64))
    down = tf.variable(tf.constant(np.zeros(2), TFloat64))
    step = tf.withControlDependencies(
        [tf.assignAdd(up, np.ones(2)), tf.assignSub(down, np.ones(2))]
    ).noOp()

    with Session(graph) as session:
        session.initialize()

        def work(t: int) -> None:
            for _ in range(500):
                session.run(step)

        _inThreads(work)
        values = session.runner().fetch(up).fetch(down).run()
    assert [values[0].tolist(), values[1].tolist()] == [[4000.0] * 2, [-4000.0] * 2]


def test_threadsAskingForTheSameNewRequestsAtOnceGetRightResultsAndOnePlanEach(
    graph: Graph,
) -> None:
    tf = Ops.create(graph)
    x = tf.placeholder(TFloat64)
    outputs = [tf.math.mul(x, np.float64(k)) for k in range(40)]
    together = threading.Barrier(THREADS)
    wrong: list[str] = []

    with Session(graph) as session:

        def work(t: int) -> None:
            for k, out in enumerate(outputs):
                together.wait()  # every thread meets request k before any plan for it exists
                got = session.runner().feed(x, np.float64(t)).fetch(out).run()[0]
                if float(got) != float(t * k):
                    wrong.append(f"thread {t} request {k}: {float(got)}")

        _inThreads(work)
        assert wrong == []
        assert len(session._plans) == len(outputs)


def test_runningWhileOtherThreadsBuildGivesRightResults(graph: Graph) -> None:
    tf = Ops.create(graph)
    x = tf.placeholder(TFloat64)
    y = tf.math.add(tf.math.square(x), np.float64(1.0))
    wrong: list[str] = []
    before = graph.size()

    with Session(graph) as session:

        def work(t: int) -> None:
            for i in range(200):
                if t % 2:
                    tf.math.neg(y)
                    continue
                got = float(session.runner().feed(x, np.float64(i)).fetch(y).run()[0])
                if got != i * i + 1.0:
                    wrong.append(f"thread {t} step {i}: {got}")

        _inThreads(work)
    assert wrong == []
    assert graph.size() == before + THREADS // 2 * 200


def test_variablesOfTwoSessionsOnOneGraphStaySeparateUnderThreads(graph: Graph) -> None:
    tf = Ops.create(graph)
    v = tf.variable(tf.constant(np.float64(0.0)))
    add = tf.assignAdd(v, tf.constant(np.float64(1.0)))
    sessions = [Session(graph), Session(graph)]
    for s in sessions:
        s.initialize()

    def work(t: int) -> None:
        for _ in range(200):
            sessions[t % 2].run(add)

    _inThreads(work)
    counts = [float(s.runner().fetch(v).run()[0]) for s in sessions]
    for s in sessions:
        s.close()
    assert counts == [THREADS // 2 * 200.0] * 2
