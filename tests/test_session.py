"""Session: feeds, fetches, targets, pruning, plan caching, threads and run-time errors."""

from __future__ import annotations

import inspect
import threading

import numpy as np
import pytest

from tfops import Graph, Ops, Result, Session
from tfops import Shape as TShape
from tfops.errors import IllegalStateError, InvalidArgumentError
from tfops.op.core import Placeholder
from tfops.types import TFloat32, TFloat64, TInt32


def _here() -> str:
    """``file:line`` of the line that calls this."""
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    return f"{frame.f_back.f_code.co_filename}:{frame.f_back.f_lineno}"


# -- feeds and fetches ------------------------------------------------------------------------


def test_fetchAConstant(tf: Ops, session: Session) -> None:
    c = tf.constant([1.0, 2.0])
    value = session.runner().fetch(c).run()[0]
    assert (value.tolist(), value.dtype) == ([1.0, 2.0], np.dtype(np.float32))


def test_feedAndFetchByOperand(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat64)
    y = tf.math.square(x)
    result = session.runner().feed(x, np.array([2.0, 3.0])).fetch(y).run()
    assert result[0].tolist() == [4.0, 9.0]


def test_feedAndFetchByOutput(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat64)
    y = tf.math.square(x)
    result = session.runner().feed(x.asOutput(), np.array(2.0)).fetch(y.asOutput()).run()
    assert result[0] == 4.0


def test_feedAndFetchByName(tf: Ops, session: Session) -> None:
    x = tf.withName("x").placeholder(TFloat64)
    tf.withName("y").math.square(x)
    result = session.runner().feed("x", np.array(3.0)).fetch("y").run()
    assert result[0] == 9.0


def test_feedAndFetchByNameWithIndex(tf: Ops, session: Session) -> None:
    x = tf.withName("x").placeholder(TFloat64)
    tf.withName("y").math.square(x)
    result = session.runner().feed("x:0", np.array(3.0)).fetch("y:0").run()
    assert result[0] == 9.0


def test_fetchByNameInASubScope(tf: Ops, session: Session) -> None:
    tf.withSubScope("outer").withName("c").constant(5)
    assert session.runner().fetch("outer/c").run()[0] == 5


def test_fetchTheSecondOutputByName(tf: Ops, session: Session) -> None:
    tf.withName("args").broadcastGradientArgs([2, 3], [3])
    result = session.runner().fetch("args:1").fetch("args").run()
    assert [result[0].tolist(), result[1].tolist()] == [[0], []]


def test_resultsKeepFetchOrder(tf: Ops, session: Session) -> None:
    a, b, c = tf.constant(1), tf.constant(2), tf.constant(3)
    result = session.runner().fetch(c).fetch(a).fetch(b).fetch(a).run()
    assert [int(v) for v in result] == [3, 1, 2, 1]


def test_feedValueOfACompatibleKindIsConvertedToTheDataType(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32)
    value = session.runner().feed(x, [1, 2]).fetch(x).run()[0]
    assert (value.tolist(), value.dtype) == ([1.0, 2.0], np.dtype(np.float32))


def test_feedOfAPartiallyKnownShape(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(-1, 3)))
    value = session.runner().feed(x, np.ones((2, 3), np.float32)).fetch(x).run()[0]
    assert value.shape == (2, 3)


def test_runWithNoFetchesReturnsAnEmptyResult(tf: Ops, session: Session) -> None:
    tf.constant(1.0)
    assert len(session.runner().run()) == 0


def test_fetchedArrayIsIndependentOfTheGraph(tf: Ops, session: Session) -> None:
    c = tf.constant([1.0, 2.0])
    first = session.runner().fetch(c).run()[0]
    first[0] = 99.0
    assert session.runner().fetch(c).run()[0].tolist() == [1.0, 2.0]


# -- Result -----------------------------------------------------------------------------------


@pytest.fixture
def result(tf: Ops, session: Session) -> Result:
    a = tf.withName("a").constant(1)
    b = tf.withName("b").constant(2)
    return session.runner().fetch(a).fetch(b).run()


def test_resultLength(result: Result) -> None:
    assert len(result) == 2


def test_resultIndexing(result: Result) -> None:
    assert [int(result[0]), int(result[1])] == [1, 2]


def test_resultGetByIndex(result: Result) -> None:
    assert [int(result.get(0)), int(result.get(1))] == [1, 2]


def test_resultIteratesInFetchOrder(result: Result) -> None:
    assert [int(v) for v in result] == [1, 2]


def test_resultGetByOperand(graph: Graph, result: Result) -> None:
    b = graph.operation("b")
    assert b is not None
    assert int(result.get(b.output(0))) == 2


def test_resultGetByOpClass(tf: Ops, session: Session) -> None:
    a, b = tf.constant(1), tf.constant(2)
    result = session.runner().fetch(a).fetch(b).run()
    assert [int(result.get(b)), int(result.get(a))] == [2, 1]


def test_resultGetByName(result: Result) -> None:
    assert [int(result.get("b")), int(result.get("a:0"))] == [2, 1]


def test_resultGetOfSomethingNotFetchedRaisesValueError(result: Result) -> None:
    with pytest.raises(ValueError):
        result.get("c")


# -- fetch errors -----------------------------------------------------------------------------


def test_fetchOfAMissingNameRaisesValueError(tf: Ops, session: Session) -> None:
    tf.withName("c").constant(1.0)
    with pytest.raises(ValueError):
        session.runner().fetch("missing")


def test_fetchOfAMissingOutputIndexRaisesValueError(tf: Ops, session: Session) -> None:
    tf.withName("op").constant(1.0)
    with pytest.raises(ValueError):
        session.runner().fetch("op:7")


def test_fetchOfAMalformedNameRaisesValueError(tf: Ops, session: Session) -> None:
    tf.withName("op").constant(1.0)
    with pytest.raises(ValueError):
        session.runner().fetch("op:x")


def test_feedOfAMissingNameRaisesValueError(session: Session) -> None:
    with pytest.raises(ValueError):
        session.runner().feed("missing", 1.0)


def test_fetchOfAnOperandFromAnotherGraphRaisesValueError(session: Session) -> None:
    other = Ops.create(Graph()).constant(1.0)
    with pytest.raises(ValueError):
        session.runner().fetch(other)


# -- pruning ----------------------------------------------------------------------------------


def test_unneededBranchWithAnUnfedPlaceholderIsNotRun(tf: Ops, session: Session) -> None:
    unfed = tf.placeholder(TFloat32)
    tf.math.square(unfed)
    y = tf.math.square(tf.constant(3.0))
    assert session.runner().fetch(y).run()[0] == np.float32(9.0)


def test_unneededFailingOpIsNotRun(tf: Ops, session: Session) -> None:
    tf.math.div(tf.constant(1), tf.constant(0))  # integer division by zero if it ran
    y = tf.math.neg(tf.constant(2))
    assert session.runner().fetch(y).run()[0] == -2


def test_fedIntermediateReplacesItsComputation(tf: Ops, session: Session) -> None:
    sq = tf.math.square(tf.constant(2.0))
    y = tf.math.add(sq, tf.constant(1.0))
    assert session.runner().feed(sq, np.float32(10.0)).fetch(y).run()[0] == np.float32(11.0)


def test_fedIntermediateDoesNotNeedTheInputsOfItsComputation(tf: Ops, session: Session) -> None:
    unfed = tf.placeholder(TFloat32)
    sq = tf.math.square(unfed)
    y = tf.math.neg(sq)
    assert session.runner().feed(sq, np.float32(4.0)).fetch(y).run()[0] == np.float32(-4.0)


def test_fetchOfAFedOutputReturnsTheFedValue(tf: Ops, session: Session) -> None:
    sq = tf.math.square(tf.constant(2.0))
    assert session.runner().feed(sq, np.float32(7.0)).fetch(sq).run()[0] == np.float32(7.0)


# -- plan caching -----------------------------------------------------------------------------


def test_aFedTargetIsReplacedByItsFeed(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat64)
    y = tf.math.square(x)
    result = session.runner().feed(x, np.array([3.0])).addTarget(x).fetch(y).run()
    assert result[0].tolist() == [9.0]


def test_sameRequestTwiceCompilesOnePlan(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32)
    y = tf.math.square(x)
    session.runner().feed(x, np.float32(1.0)).fetch(y).run()
    (plan,) = session._plans.values()
    value = session.runner().feed(x, np.float32(2.0)).fetch(y).run()[0]
    assert value == np.float32(4.0)
    assert list(session._plans.values()) == [plan]


def test_differentRequestsCompileDifferentPlans(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32)
    y = tf.math.square(x)
    z = tf.math.neg(x)
    session.runner().feed(x, np.float32(1.0)).fetch(y).run()
    session.runner().feed(x, np.float32(1.0)).fetch(z).run()
    assert len(session._plans) == 2


# -- targets ----------------------------------------------------------------------------------


def test_addTargetRunsTheOp(tf: Ops, session: Session) -> None:
    failing = tf.math.div(tf.constant(1), tf.constant(0))
    with pytest.raises(InvalidArgumentError) as info:
        session.runner().addTarget(failing).run()
    assert info.value.op == failing.op()


def test_addTargetByNameRunsTheOp(tf: Ops, session: Session) -> None:
    failing = tf.withName("failing").math.div(tf.constant(1), tf.constant(0))
    with pytest.raises(InvalidArgumentError) as info:
        session.runner().addTarget("failing").run()
    assert info.value.op == failing.op()


def test_addTargetAcceptsAnOperation(tf: Ops, session: Session) -> None:
    failing = tf.math.div(tf.constant(1), tf.constant(0))
    with pytest.raises(InvalidArgumentError):
        session.runner().addTarget(failing.op()).run()


def test_sessionRunRunsATarget(tf: Ops, session: Session) -> None:
    failing = tf.math.div(tf.constant(1), tf.constant(0))
    with pytest.raises(InvalidArgumentError) as info:
        session.run(failing)
    assert info.value.op == failing.op()


def test_sessionRunOfATargetByName(tf: Ops, session: Session) -> None:
    failing = tf.withName("failing").math.div(tf.constant(1), tf.constant(0))
    with pytest.raises(InvalidArgumentError) as info:
        session.run("failing")
    assert info.value.op == failing.op()


def test_sessionRunOfATargetThatSucceeds(tf: Ops, session: Session) -> None:
    session.run(tf.math.square(tf.constant(2.0)))
    assert len(session._plans) == 1


def test_targetIsNotFetched(tf: Ops, session: Session) -> None:
    a = tf.constant(1.0)
    b = tf.constant(2.0)
    result = session.runner().addTarget(a).fetch(b).run()
    assert [float(v) for v in result] == [2.0]


def test_addTargetOfAMissingNameRaisesValueError(session: Session) -> None:
    with pytest.raises(ValueError):
        session.runner().addTarget("missing")


# -- control dependencies ---------------------------------------------------------------------


def test_controlDependencyOfAFetchIsRun(tf: Ops, session: Session) -> None:
    failing = tf.math.div(tf.constant(1), tf.constant(0))
    c = tf.withControlDependencies([failing]).constant(2.0)
    with pytest.raises(InvalidArgumentError) as info:
        session.runner().fetch(c).run()
    assert info.value.op == failing.op()


def test_controlDependencyOfATargetIsRun(tf: Ops, session: Session) -> None:
    failing = tf.math.div(tf.constant(1), tf.constant(0))
    c = tf.withControlDependencies([failing]).constant(2.0)
    with pytest.raises(InvalidArgumentError) as info:
        session.run(c)
    assert info.value.op == failing.op()


def test_controlDependencyOnAFedPlaceholderNeedsNoOtherValue(tf: Ops, session: Session) -> None:
    # A fed placeholder is replaced by its value, control edges included (TensorFlow's
    # subgraph rewriting moves a fed Placeholder's control edges to the feed).
    x = tf.placeholder(TFloat32)
    c = tf.withControlDependencies([x]).constant(2.0)
    assert session.runner().feed(x, np.float32(1.0)).fetch(c).run()[0] == np.float32(2.0)


# -- threads ----------------------------------------------------------------------------------


def test_oneSessionRunsFromEightThreadsAtOnce(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(TShape.of(3)))
    y = tf.math.add(tf.math.square(x), tf.constant(np.float64(1.0)))
    start = threading.Barrier(8)
    wrong: list[tuple[int, int, list[float]]] = []

    def work(t: int) -> None:
        start.wait()
        for i in range(50):
            value = np.array([t, i, t * i], np.float64)
            got = session.runner().feed(x, value).fetch(y).run()[0]
            if got.tolist() != (value * value + 1.0).tolist():
                wrong.append((t, i, got.tolist()))

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert wrong == []


# -- closed session or graph ------------------------------------------------------------------


def test_closedSessionRaisesIllegalStateErrorForRunner(graph: Graph) -> None:
    s = Session(graph)
    s.close()
    with pytest.raises(IllegalStateError):
        s.runner()


def test_closedSessionRaisesIllegalStateErrorForARunnerMadeBefore(tf: Ops, graph: Graph) -> None:
    c = tf.constant(1.0)
    s = Session(graph)
    runner = s.runner().fetch(c)
    s.close()
    with pytest.raises(IllegalStateError):
        runner.run()


def test_closedSessionRaisesIllegalStateErrorForRun(tf: Ops, graph: Graph) -> None:
    c = tf.constant(1.0)
    s = Session(graph)
    s.close()
    with pytest.raises(IllegalStateError):
        s.run(c)


def test_sessionIsAContextManagerThatClosesOnExit(tf: Ops, graph: Graph) -> None:
    c = tf.constant(1.0)
    with Session(graph) as s:
        assert s.runner().fetch(c).run()[0] == np.float32(1.0)
    with pytest.raises(IllegalStateError):
        s.runner()


def test_sessionOfAClosedGraphRaisesIllegalStateError(tf: Ops) -> None:
    g = Graph()
    c = Ops.create(g).constant(1.0)
    s = Session(g)
    g.close()
    with pytest.raises(IllegalStateError):
        s.runner().fetch(c).run()


# -- run-time errors --------------------------------------------------------------------------


def test_unfedPlaceholderRaisesInvalidArgumentError(tf: Ops, session: Session) -> None:
    x, site = tf.withName("x").placeholder(TFloat32), _here()
    y = tf.math.square(x)
    with pytest.raises(InvalidArgumentError) as info:
        session.runner().fetch(y).run()
    assert info.value.op == x.op()
    assert "'x'" in str(info.value) and site in str(info.value)


def test_unfedPlaceholderAsATargetRaisesInvalidArgumentError(tf: Ops, session: Session) -> None:
    x, site = tf.withName("x").placeholder(TFloat32), _here()
    with pytest.raises(InvalidArgumentError) as info:
        session.run(x)
    assert info.value.op == x.op()
    assert "'x'" in str(info.value) and site in str(info.value)


def test_feedOfTheWrongShapeRaisesInvalidArgumentError(tf: Ops, session: Session) -> None:
    x, site = tf.withName("x").placeholder(TFloat32, Placeholder.shape(TShape.of(-1, 3))), _here()
    with pytest.raises(InvalidArgumentError) as info:
        session.runner().feed(x, np.ones((2, 2), np.float32)).fetch(x).run()
    assert info.value.op == x.op()
    assert "'x" in str(info.value) and site in str(info.value)


def test_feedOfTheWrongRankRaisesInvalidArgumentError(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(3)))
    with pytest.raises(InvalidArgumentError):
        session.runner().feed(x, np.float32(1.0)).fetch(x).run()


def test_feedOfAFloatArrayToAnIntPlaceholderRaisesInvalidArgumentError(
    tf: Ops, session: Session
) -> None:
    x, site = tf.withName("x").placeholder(TInt32), _here()
    with pytest.raises(InvalidArgumentError) as info:
        session.runner().feed(x, np.array([1.5, 2.0])).fetch(x).run()
    assert info.value.op == x.op()
    assert "'x" in str(info.value) and site in str(info.value)


@pytest.mark.parametrize("value", ["abc", object(), {"a": 1}], ids=["str", "object", "dict"])
def test_feedOfANonArrayRaisesInvalidArgumentError(
    tf: Ops, session: Session, value: object
) -> None:
    x, site = tf.withName("x").placeholder(TFloat32), _here()
    with pytest.raises(InvalidArgumentError) as info:
        session.runner().feed(x, value).fetch(x).run()
    assert info.value.op == x.op()
    assert "'x" in str(info.value) and site in str(info.value)


def test_kernelFailureNamesTheOpAndWhereItWasCreated(tf: Ops, session: Session) -> None:
    d, site = tf.withName("d").math.div(tf.constant(1), tf.constant(0)), _here()
    with pytest.raises(InvalidArgumentError) as info:
        session.runner().fetch(d).run()
    assert info.value.op == d.op()
    assert "'d'" in str(info.value) and site in str(info.value)


def test_sessionStillRunsAfterAFailedRun(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32)
    y = tf.math.square(x)
    with pytest.raises(InvalidArgumentError):
        session.runner().fetch(y).run()
    assert session.runner().feed(x, np.float32(3.0)).fetch(y).run()[0] == np.float32(9.0)
