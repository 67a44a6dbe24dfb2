"""Specification of ``tfops.op.core.Variable`` (op type ``VariableV2``) and ``tf.variable``.

A variable's value lives in the session: each ``Session`` on a graph holds its own value, set
by the initializer ``tf.variable(init)`` builds in the init scope (run by the session before
its first run, by ``session.initialize()`` or by ``tf.init()``); reading a variable that holds
no value (``Variable.create`` never assigned) raises ``FailedPreconditionError`` naming it.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest
from opchecks import ALL, assertRejected, placeholder

from tfops import Graph, Ops, Session, Shape
from tfops.errors import FailedPreconditionError, IllegalStateError, OpError, TfopsError
from tfops.op.core import Variable
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TType

SITE = f"created at {__file__}:"


def sample(dtype: type[TType], shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    values: np.ndarray[Any, Any] = np.arange(int(np.prod(shape))).reshape(shape)
    return (values % 2 == 1) if dtype is TBool else values.astype(dtype.DTYPE)


def fetch(session: Session, operand: Any) -> np.ndarray[Any, Any]:
    return np.asarray(session.runner().fetch(operand).run()[0])


# -- construction --------------------------------------------------------------------------
def test_facadeVariableAddsTheInitialValueTheVariableAndItsAssign(tf: Ops, graph: Graph) -> None:
    v = tf.withName("w").variable(tf.constant([1.0, 2.0]))
    ops = [(op.name(), op.type()) for op in graph.operations()]
    assert ops == [("Const", "Const"), ("w", "VariableV2"), ("Assign", "Assign")]
    variable, assign = graph.initializers()  # both in the init scope, as in TF Java
    assert variable == v.op() and assign.name() == "Assign"
    assert assign.input(0) == v.asOutput()
    assert assign.input(1).op().name() == "Const"


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    "shape", [Shape.scalar(), Shape.of(3), Shape.of(2, 3), Shape.of(0, 2), Shape.of(-1, 3)],
    ids=str,
)
def test_createTakesTheShapeAndDataTypeAttributes(
    tf: Ops, dtype: type[TType], shape: Shape
) -> None:
    v = Variable.create(tf.scope(), shape, dtype)
    assert v.asOutput().dataType() is v.op().attr("dtype") is dtype
    assert v.asOutput().shape() == v.op().attr("shape") == shape


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_facadeVariableTakesTheInitialValuesTypeAndShapeAndInitializesToIt(
    tf: Ops, session: Session, dtype: type[TType], shape: tuple[int, ...]
) -> None:
    init = sample(dtype, shape)
    v = tf.variable(init)
    assert (v.asOutput().dataType(), v.asOutput().shape()) == (dtype, Shape.of(*shape))
    session.initialize()
    value = fetch(session, v)
    assert value.dtype == dtype.DTYPE
    np.testing.assert_array_equal(value, init)


def test_facadeVariableFromAPythonValue(tf: Ops) -> None:
    v = tf.variable([[1, 2, 3]])
    assert (v.asOutput().dataType(), v.asOutput().shape()) == (TInt32, Shape.of(1, 3))


# -- values per session --------------------------------------------------------------------
def test_initOpInitializesEveryVariable(tf: Ops, graph: Graph, session: Session) -> None:
    a = tf.variable(tf.constant([1.0, 2.0]))
    b = tf.variable(tf.constant(7))
    init = tf.init()
    assert (init.op().name(), init.op().type()) == ("init", "NoOp")
    assigns = [op for op in graph.initializers() if op.type() == "Assign"]
    assert list(init.op().controlInputs()) == assigns
    session.run(init)
    np.testing.assert_array_equal(fetch(session, a), [1.0, 2.0])
    assert fetch(session, b) == 7


def test_initOpWithNameAndSecondInitOp(tf: Ops) -> None:
    tf.variable(tf.constant(1.0))
    assert tf.withName("setup").init().op().name() == "setup"
    assert tf.init().op().name() == "init"
    assert tf.init().op().name() == "init_1"


def test_initializeWithNoVariablesDoesNothing(tf: Ops, session: Session) -> None:
    init = tf.init()
    assert init.op().controlInputs() == ()
    session.initialize()
    session.run(init)


def test_initialValueComputedFromOtherOps(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.math.mul(tf.constant([1.0, 2.0]), tf.constant(3.0)))
    session.initialize()
    np.testing.assert_array_equal(fetch(session, v), [3.0, 6.0])


def test_forceInitializeRestoresTheInitialValue(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant(1.0))
    step = tf.assignAdd(v, 5.0)
    session.initialize()
    session.run(step)
    assert fetch(session, v) == 6.0
    session.initialize()  # as in TF Java: the initializers ran already
    assert fetch(session, v) == 6.0
    session.forceInitialize()
    assert fetch(session, v) == 1.0
    session.run(tf.init())
    assert fetch(session, v) == 1.0


def test_twoSessionsOnOneGraphHoldSeparateValues(
    tf: Ops, graph: Graph, backend: str
) -> None:
    v = tf.variable(tf.constant(10))
    inc = tf.assignAdd(v, 1)
    with (Session(graph, backend=backend) as first, Session(graph, backend=backend) as second,
          Session(graph, backend=backend, autoInit=False) as third):
        first.run(inc)
        first.run(inc)
        second.run(inc)
        assert (fetch(first, v), fetch(second, v)) == (12, 11)
        with pytest.raises(IllegalStateError, match="un-ran initializers"):
            fetch(third, v)  # initializing the others left it uninitialized
        third.initialize()
        assert fetch(third, v) == 10


def test_fetchesAreCopiesAndReadsFlowIntoComputations(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant([1.0, -2.0]))
    session.initialize()
    value = fetch(session, v)
    value[0] = 100.0  # changing a fetched array does not change the variable
    np.testing.assert_array_equal(fetch(session, v), [1.0, -2.0])
    np.testing.assert_array_equal(fetch(session, tf.math.square(v)), [1.0, 4.0])


def test_valueCanBeFedLikeAnyOutput(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant([1.0, 2.0]))
    y = tf.math.mul(v, tf.constant(2.0))
    # the feed replaces the variable's read (the session initialized it, to no effect here)
    result = session.runner().feed(v, np.array([5.0, 6.0], np.float32)).fetch(y).run()[0]
    np.testing.assert_array_equal(result, [10.0, 12.0])


def test_readsFromManyThreadsSeeTheValue(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant(np.arange(6.0).reshape(2, 3)))
    session.initialize()
    seen: list[np.ndarray[Any, Any]] = []
    lock = threading.Lock()

    def read() -> None:
        for _ in range(20):
            value = fetch(session, v)
            with lock:
                seen.append(value)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 160
    for value in seen:
        np.testing.assert_array_equal(value, np.arange(6.0).reshape(2, 3))


# -- uninitialized -------------------------------------------------------------------------
def test_readingBeforeInitializationRaisesFailedPrecondition(tf: Ops, session: Session) -> None:
    v = Variable.create(tf.withName("weights").scope(), Shape.of(1), TFloat32)
    with pytest.raises(FailedPreconditionError, match=f"'weights'.*{SITE}") as info:
        fetch(session, v)
    assert isinstance(info.value, OpError) and isinstance(info.value, TfopsError)
    assert info.value.op is not None and info.value.op.name() == "weights"
    counter = Variable.create(tf.withName("counter").scope(), Shape.of(1), TFloat32)
    with pytest.raises(FailedPreconditionError, match="'counter'"):
        fetch(session, tf.math.square(counter))  # read through another op


def test_uninitializedCreateRaisesUntilAssigned(tf: Ops, session: Session) -> None:
    v = Variable.create(tf.scope(), Shape.of(2), TFloat64)
    with pytest.raises(FailedPreconditionError, match="'Variable'"):
        fetch(session, v)
    session.run(tf.assign(v, np.array([3.0, 4.0])))
    np.testing.assert_array_equal(fetch(session, v), [3.0, 4.0])


# -- gradient ------------------------------------------------------------------------------
def test_gradientWithRespectToAVariable(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant(np.array([1.0, -3.0])))
    w = tf.variable(tf.constant(2.0))
    dv, dw = tf.gradients(tf.sum(tf.math.square(v), 0), [v, w]).dy()
    assert dv is not None and dv.dataType() is TFloat64
    assert dw is None  # a variable that y does not use
    session.initialize()
    np.testing.assert_array_equal(fetch(session, dv), [2.0, -6.0])


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("init", "error", "fragment"),
    [((-1, 2), ValueError, "fully known shape"), ([[1.0, 2.0], [3.0]], ValueError, "rectangular"),
     ("not a number", TypeError, "not a number")],
    ids=["unknownShape", "ragged", "string"],
)
def test_badInitialValueLeavesTheGraphUnchanged(
    tf: Ops, graph: Graph, init: Any, error: type[Exception], fragment: str
) -> None:
    if isinstance(init, tuple):
        init = placeholder(tf, TFloat32, init)
    assertRejected(graph, lambda: tf.variable(init), error, fragment)
    assert graph.initializers() == []


@pytest.mark.parametrize(("shape", "dtype"), [(Shape.of(2), np.float32), (3, TFloat32)],
                         ids=["nonType", "nonShape"])
def test_createWithANonTypeOrANonShapeRaisesTypeError(
    tf: Ops, graph: Graph, shape: Any, dtype: Any
) -> None:
    assertRejected(graph, lambda: Variable.create(tf.scope(), shape, dtype), TypeError,
                   "VariableV2")
