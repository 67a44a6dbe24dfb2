"""Specification of the variable updates ``Assign`` (ref = value), ``AssignAdd`` (ref += value)
and ``AssignSub`` (ref -= value), each outputting the new value.

As TensorFlow's: ``Assign`` takes any data type, the others numbers only; the value has the
variable's data type and shape (no broadcasting), checked when the op is created and when it
runs; ``AssignAdd`` and ``AssignSub`` of an uninitialized variable raise
``FailedPreconditionError``; concurrent updates are never lost. ``Assign`` with
``validateShape(False)`` gives the variable the value's shape.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest
from opchecks import ALL, NUMBERS, assertRejected, placeholder

from tfops import Graph, Ops, Session, Shape
from tfops.errors import FailedPreconditionError, InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import Assign, AssignAdd, AssignSub, Gradients, Variable
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Array = np.ndarray[Any, Any]
SITE = f"created at {__file__}:"


class Row(NamedTuple):
    op: str
    cls: Any
    update: Callable[[Any, Any], Any]  # the new value from the old one and the value
    dtypes: tuple[type[TType], ...]
    useLocking: bool  # the default of the use_locking attribute

    def build(self, tf: Ops, ref: Any, value: Any, *options: Any) -> Any:
        return getattr(tf, self.op[0].lower() + self.op[1:])(ref, value, *options)

    def updates(self, start: Any, *values: Any) -> Any:
        return functools.reduce(self.update, values, start)


ROWS = [
    Row("Assign", Assign, lambda old, new: new, ALL, True),
    Row("AssignAdd", AssignAdd, np.add, NUMBERS, False),
    Row("AssignSub", AssignSub, np.subtract, NUMBERS, False),
]
ARITHMETIC = ROWS[1:]
rows = pytest.mark.parametrize("row", ROWS, ids=lambda row: row.op)
arithmetic = pytest.mark.parametrize("row", ARITHMETIC, ids=lambda row: row.op)
ROWS_AND_TYPES = pytest.mark.parametrize(
    ("row", "dtype"), [(row, dtype) for row in ROWS for dtype in row.dtypes],
    ids=lambda v: getattr(v, "op", None) or v.NAME,
)


def values(dtype: type[TType], shape: tuple[int, ...], offset: int) -> Array:
    counts: Array = np.arange(int(np.prod(shape))).reshape(shape)
    return (counts % 2 == 1) if dtype is TBool else (counts % 3 + offset).astype(dtype.DTYPE)


def fetch(session: Session, operand: Any) -> Array:
    return np.asarray(session.runner().fetch(operand).run()[0])


def variable(tf: Ops, shape: tuple[int, ...], dtype: type[TType] = TFloat32) -> Variable[Any]:
    return Variable.create(tf.scope(), Shape.of(*shape), dtype)


# -- construction --------------------------------------------------------------------------
@rows
def test_attributesHaveTensorFlowsDefaultsAndUseLockingIsAnOption(tf: Ops, row: Row) -> None:
    a = row.build(tf, variable(tf, ()), 1.0)
    assert a.op().attr("T") is TFloat32
    assert a.op().attr("use_locking") is row.useLocking
    option = row.cls.useLocking(not row.useLocking)
    assert row.build(tf, variable(tf, ()), 1.0, option).op().attr("use_locking") is (
        not row.useLocking)


def test_assignValidatesShapesUnlessTold(tf: Ops) -> None:
    assert tf.assign(variable(tf, (1,)), [1.0]).op().attr("validate_shape") is True
    a = tf.assign(variable(tf, (2,)), tf.constant([1.0, 2.0, 3.0]), Assign.validateShape(False))
    assert a.op().attr("validate_shape") is False
    assert a.asOutput().shape() == Shape.of(3)  # the value's


@ROWS_AND_TYPES
def test_outputHasTheVariablesDataType(tf: Ops, row: Row, dtype: type[TType]) -> None:
    a = row.build(tf, variable(tf, (2, 3), dtype), values(dtype, (2, 3), 1))
    assert a.asOutput().dataType() is dtype


@rows
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (0, 4)], ids=str)
def test_outputHasTheVariablesShape(tf: Ops, row: Row, shape: tuple[int, ...]) -> None:
    value = tf.placeholder(TFloat32)  # unknown shape: the variable's is the answer
    assert row.build(tf, variable(tf, shape), value).asOutput().shape() == Shape.of(*shape)


def test_assignOutputShapeMergesAPartiallyKnownVariableAndValue(tf: Ops) -> None:
    v = Variable.create(tf.scope(), Shape.of(2, -1), TFloat32)
    assert tf.assign(v, placeholder(tf, TFloat32, (-1, 3))).asOutput().shape() == Shape.of(2, 3)


@rows
def test_pythonValueTakesTheVariablesDataType(tf: Ops, row: Row) -> None:
    assert row.build(tf, variable(tf, (2,), TFloat64), [1, 2]).op().input(1).dataType() is (
        TFloat64)


# -- kernel --------------------------------------------------------------------------------
@ROWS_AND_TYPES
@pytest.mark.parametrize("shape", [(), (4,), (2, 3)], ids=str)
def test_updatesTheVariableAndOutputsTheNewValue(
    tf: Ops, session: Session, row: Row, dtype: type[TType], shape: tuple[int, ...]
) -> None:
    start, value = values(dtype, shape, 10), values(dtype, shape, 1)
    v = tf.variable(start)
    a = row.build(tf, v, value)
    session.initialize()
    first = fetch(session, a)
    assert first.dtype == dtype.DTYPE
    np.testing.assert_array_equal(first, row.updates(start, value))
    np.testing.assert_array_equal(fetch(session, a), row.updates(start, value, value))
    result = fetch(session, v)
    assert result.dtype == dtype.DTYPE
    np.testing.assert_array_equal(result, row.updates(start, value, value))


@rows
def test_updateByFedNegativeAndFractionalValues(tf: Ops, session: Session, row: Row) -> None:
    v = tf.variable(tf.constant(np.array([1.0, 2.0])))
    x = placeholder(tf, TFloat64, (2,))
    a = row.build(tf, v, x)
    session.initialize()
    for delta in ([0.5, -3.0], [-0.25, 0.125]):
        session.runner().feed(x, np.array(delta)).addTarget(a).run()
    expected = row.updates(np.array([1.0, 2.0]), [0.5, -3.0], [-0.25, 0.125])
    np.testing.assert_array_equal(fetch(session, v), expected)


@rows
def test_updateFromAnotherVariableFeedsAComputation(tf: Ops, session: Session, row: Row) -> None:
    src, dst = tf.variable(tf.constant([7, 8])), tf.variable(tf.constant([1, 2]))
    doubled = tf.math.mul(row.build(tf, dst, src), tf.constant(2))
    session.initialize()
    expected = row.updates(np.array([1, 2]), np.array([7, 8]))
    np.testing.assert_array_equal(fetch(session, doubled), 2 * expected)
    np.testing.assert_array_equal(fetch(session, dst), expected)


@rows
def test_eachSessionUpdatesItsOwnValue(tf: Ops, graph: Graph, row: Row, backend: str) -> None:
    v = tf.variable(tf.constant(20))
    a = row.build(tf, v, 3)
    with Session(graph, backend=backend) as first, Session(graph, backend=backend) as second:
        first.initialize()
        second.initialize()
        for _ in range(4):
            first.run(a)
        second.run(a)
        assert fetch(first, v) == row.updates(20, 3, 3, 3, 3)
        assert fetch(second, v) == row.updates(20, 3)


@rows
def test_asAControlDependency(tf: Ops, session: Session, row: Row) -> None:
    v = tf.variable(tf.constant(1))
    update = row.build(tf, v, 2)
    step = tf.withControlDependencies([update]).noOp()
    read = tf.withControlDependencies([update]).identity(v)
    session.initialize()
    session.run(step)
    session.run(step)
    assert fetch(session, v) == row.updates(1, 2, 2)
    assert [int(fetch(session, read)) for _ in range(2)] == [row.updates(1, 2, 2, 2),
                                                             row.updates(1, 2, 2, 2, 2)]


def test_assignInitializesAVariable(tf: Ops, session: Session) -> None:
    v = variable(tf, (2,), TInt64)
    session.run(tf.assign(v, np.array([5, 6], np.int64)))
    np.testing.assert_array_equal(fetch(session, v), [5, 6])


def test_lastAssignWins(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant(0))
    one, two = tf.assign(v, 1), tf.assign(v, 2)
    session.initialize()
    session.run(two)
    session.run(one)
    assert fetch(session, v) == 1


def test_withoutShapeValidationTheVariableTakesTheNewShape(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant([1.0, 2.0]))
    x = tf.placeholder(TFloat32)
    a = tf.assign(v, x, Assign.validateShape(False))
    session.initialize()
    session.runner().feed(x, np.ones((2, 2), np.float32)).addTarget(a).run()
    np.testing.assert_array_equal(fetch(session, v), np.ones((2, 2)))


@pytest.mark.parametrize(
    ("row", "dtype", "start", "value", "expected"),
    [(ARITHMETIC[0], TUint8, 250, 10, 4), (ARITHMETIC[0], TInt32, 2**31 - 1, 1, -(2**31)),
     (ARITHMETIC[1], TUint8, 5, 10, 251), (ARITHMETIC[1], TInt32, -(2**31), 1, 2**31 - 1)],
    ids=["AssignAdd-uint8", "AssignAdd-int32", "AssignSub-uint8", "AssignSub-int32"],
)
def test_integerOverflowWrapsAround(
    tf: Ops, session: Session, row: Row, dtype: type[TType], start: int, value: int,
    expected: int,
) -> None:
    a = row.build(tf, tf.variable(np.array(start, dtype.DTYPE)), np.array(value, dtype.DTYPE))
    session.initialize()
    assert fetch(session, a) == expected


def runInThreads(work: Callable[[], None], count: int = 8) -> None:
    threads = [threading.Thread(target=work) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


@arithmetic
def test_concurrentUpdatesAreNotLost(tf: Ops, session: Session, row: Row) -> None:
    v = tf.variable(tf.constant(0))
    a = row.build(tf, v, 1)
    session.initialize()
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def work() -> None:
        try:
            start.wait()
            for _ in range(200):
                session.run(a)
        except BaseException as e:  # reported below
            errors.append(e)

    runInThreads(work)
    assert errors == []
    assert fetch(session, v) == row.update(0, 1600)


@arithmetic
def test_concurrentUpdatesOutputDistinctIntermediateValues(
    tf: Ops, session: Session, row: Row
) -> None:
    v = tf.variable(tf.constant(np.zeros(3)))
    a = row.build(tf, v, np.ones(3))
    session.initialize()
    outputs: list[float] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(200):
            out = float(fetch(session, a)[0])
            with lock:
                outputs.append(out)

    runInThreads(work)
    np.testing.assert_array_equal(fetch(session, v), [row.update(0.0, 1600.0)] * 3)
    assert sorted(outputs) == sorted(float(row.update(0, i)) for i in range(1, 1601))


# -- errors --------------------------------------------------------------------------------
@arithmetic
def test_uninitializedVariableRaisesFailedPrecondition(
    tf: Ops, session: Session, row: Row
) -> None:
    total = Variable.create(tf.withName("total").scope(), Shape.scalar(), TFloat32)
    a = row.build(tf, total, 1.0)
    with pytest.raises(FailedPreconditionError, match="'total'"):
        session.run(a)


@rows
@pytest.mark.parametrize(
    ("shape", "value"),
    [((2,), [1.0, 2.0, 3.0]), ((2,), [[1.0, 2.0]]), ((), [1.0]), ((2, 3), np.zeros((3, 2))),
     ((3,), 1.0)],
    ids=str,
)
def test_incompatibleStaticShapeRaisesValueError(
    tf: Ops, graph: Graph, row: Row, shape: tuple[int, ...], value: Any
) -> None:
    v = variable(tf, shape)
    assertRejected(graph, lambda: row.build(tf, v, np.asarray(value, np.float32)), ValueError,
                   f"{row.op} '{row.op}' ({SITE}")


@rows
@pytest.mark.parametrize("fed", [(4,), (1,), (), (2, 3)], ids=str)
def test_fedValueOfAnotherShapeRaisesInvalidArgumentError(
    tf: Ops, session: Session, row: Row, fed: tuple[int, ...]
) -> None:
    v = tf.variable(tf.constant([1.0, 2.0, 3.0]))
    x = tf.placeholder(TFloat32)
    a = tf.withName("set").assign(v, x) if row.op == "Assign" else row.build(tf, v, x)
    session.initialize()
    with pytest.raises(InvalidArgumentError) as info:
        session.runner().feed(x, np.ones(fed, np.float32)).addTarget(a).run()
    assert info.value.op == a.op()
    if row.op == "Assign":
        assert "'Variable'" in str(info.value)
    np.testing.assert_array_equal(fetch(session, v), [1.0, 2.0, 3.0])


def test_wrongFedShapeOnAnUninitializedVariableRaisesInvalidArgumentError(
    tf: Ops, session: Session
) -> None:
    x = tf.placeholder(TFloat32)
    a = tf.assign(variable(tf, (2,)), x)
    with pytest.raises(InvalidArgumentError):
        session.runner().feed(x, np.ones(3, np.float32)).addTarget(a).run()


@rows
@pytest.mark.parametrize(
    ("dtype", "value"),
    [
        (TFloat32, np.array([1.0], np.float64)),
        (TFloat64, np.array([1.0], np.float32)),
        (TInt32, np.array([1], np.int64)),
        (TInt32, [1.5]),
        (TFloat32, [True]),
        (TBool, [1]),
        (TFloat32, "a float64 operand"),
    ],
    ids=str,
)
def test_valueOfAnotherDataTypeRaisesTypeError(
    tf: Ops, graph: Graph, row: Row, dtype: type[TType], value: Any
) -> None:
    v = variable(tf, (1,), dtype)
    if isinstance(value, str):
        value = tf.placeholder(TFloat64)
    assertRejected(graph, lambda: row.build(tf, v, value), TypeError, row.op, SITE)


@arithmetic
def test_boolVariableRaisesTypeError(tf: Ops, graph: Graph, row: Row) -> None:
    v = variable(tf, (2,), TBool)
    assertRejected(graph, lambda: row.build(tf, v, np.array([True, False])), TypeError,
                   row.op, "bool")


@rows
@pytest.mark.parametrize("kind", ["constant", "placeholder", "identity of a variable", "value"])
def test_nonVariableRefRaisesTypeErrorNamingTheOp(
    tf: Ops, graph: Graph, row: Row, kind: str
) -> None:
    refs = {"constant": lambda: tf.constant([1.0]),
            "placeholder": lambda: tf.placeholder(TFloat32),
            "identity of a variable": lambda: tf.identity(tf.variable(tf.constant([1.0]))),
            "value": lambda: 1.0}
    ref = refs[kind]()
    assertRejected(graph, lambda: row.build(tf, ref, [2.0]), TypeError, f"{row.op} '{row.op}",
                   "must be a variable")


# -- gradient ------------------------------------------------------------------------------
@rows
def test_isNotDifferentiableAndPassesNoGradient(tf: Ops, session: Session, row: Row) -> None:
    assert lookupGradient(row.op) == (True, None)
    x = placeholder(tf, TFloat32, (2,))
    a = row.build(tf, variable(tf, (2,)), tf.math.square(x))
    assert tf.gradients(tf.math.square(a), [x]).dy(0) is None
    dx = tf.gradients(a, [x], Gradients.unconnectedGradients("zero")).dy(0)
    assert dx is not None
    result = session.runner().feed(x, np.array([1.0, 2.0], np.float32)).fetch(dx).run()[0]
    np.testing.assert_array_equal(result, [0.0, 0.0])
