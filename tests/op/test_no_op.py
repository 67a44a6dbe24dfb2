"""Specification of ``tfops.op.core.NoOp``: does nothing; running it runs its control inputs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Session, Shape
from tfops.errors import FailedPreconditionError
from tfops.op.core import Variable
from tfops.types import TFloat64, TInt32


def fetch(session: Session, operand: Any) -> np.ndarray[Any, Any]:
    return np.asarray(session.runner().fetch(operand).run()[0])


# -- construction --------------------------------------------------------------------------
def test_controlDependenciesBecomeControlInputs(tf: Ops) -> None:
    assert tf.noOp().op().controlInputs() == ()
    a, b = tf.constant(1.0), tf.constant(2.0)
    n = tf.withControlDependencies([a, b]).noOp()
    assert set(n.op().controlInputs()) == {a.op(), b.op()}


# -- kernel --------------------------------------------------------------------------------
def test_runningANoOpSucceeds(tf: Ops, session: Session) -> None:
    session.run(tf.noOp())
    assert len(session.runner().addTarget(tf.noOp()).run()) == 0


def test_runningByName(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant(0))
    tf.withName("bump").withControlDependencies([tf.assignAdd(v, 1)]).noOp()
    session.initialize()
    session.run("bump")
    assert fetch(session, v) == 1


def test_runsEveryControlInputOnce(tf: Ops, session: Session) -> None:
    a = tf.variable(tf.constant(0))
    b = tf.variable(tf.constant(10.0))
    step = tf.withControlDependencies([tf.assignAdd(a, 1), tf.assignSub(b, 0.5)]).noOp()
    session.initialize()
    for _ in range(3):
        session.run(step)
    assert fetch(session, a) == 3
    assert fetch(session, b) == 8.5


def test_noOpOfNoOpsRunsTheirControls(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant(0))
    inner = tf.withControlDependencies([tf.assignAdd(v, 5)]).noOp()
    outer = tf.withControlDependencies([inner]).noOp()
    session.initialize()
    session.run(outer)
    assert fetch(session, v) == 5


def test_failingControlInputFailsTheNoOp(tf: Ops, session: Session) -> None:
    v = Variable.create(tf.withName("unset").scope(), Shape.scalar(), TInt32)
    step = tf.withControlDependencies([tf.assignAdd(v, 1)]).noOp()
    with pytest.raises(FailedPreconditionError, match="'unset'"):
        session.run(step)


def test_controlledOpsRunInEachSessionSeparately(tf: Ops, graph: Graph, backend: str) -> None:
    v = tf.variable(tf.constant(0))
    step = tf.withControlDependencies([tf.assignAdd(v, 1)]).noOp()
    with Session(graph, backend=backend) as first, Session(graph, backend=backend) as second:
        first.initialize()
        second.initialize()
        first.run(step)
        first.run(step)
        assert fetch(first, v) == 2
        assert fetch(second, v) == 0


# -- gradient ------------------------------------------------------------------------------
def test_controlDependencyOnANoOpLeavesGradientsUnchanged(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat64)
    y = tf.withControlDependencies([tf.noOp()]).math.square(x)
    dx = tf.gradients(y, [x]).dy(0)
    assert dx is not None
    result = session.runner().feed(x, np.array([1.5, -2.0])).fetch(dx).run()[0]
    np.testing.assert_array_equal(result, [3.0, -4.0])
