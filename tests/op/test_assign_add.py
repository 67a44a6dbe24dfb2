"""Specification of ``tfops.op.core.AssignAdd``: ref += value, outputting the new value.

As TensorFlow's ``AssignAdd``: numbers only; the value has the variable's data type and shape
(``updates.shape = ref.shape``, no broadcasting); an uninitialized variable raises
``FailedPreconditionError``; concurrent updates are never lost.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Session, Shape
from tfops.errors import FailedPreconditionError, InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import AssignAdd, Placeholder, Variable
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

NUMBER_TYPES: list[type[TType]] = [TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8]
HERE = re.escape(__file__)


def fetch(session: Session, operand: Any) -> np.ndarray[Any, Any]:
    return np.asarray(session.runner().fetch(operand).run()[0])


def variable(tf: Ops, shape: tuple[int, ...], dtype: type[TType] = TFloat32) -> Variable[Any]:
    return Variable.create(tf.scope(), Shape.of(*shape), dtype)


# -- construction --------------------------------------------------------------------------
def test_opNameIsAssignAdd() -> None:
    assert AssignAdd.OP_NAME == "AssignAdd"


def test_defaultNamesAreAssignAddThenAssignAdd_1(tf: Ops) -> None:
    v = variable(tf, (2,))
    assert tf.assignAdd(v, [1.0, 2.0]).op().name() == "AssignAdd"
    assert tf.assignAdd(v, [1.0, 2.0]).op().name() == "AssignAdd_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    assert tf.withName("inc").assignAdd(variable(tf, ()), 1.0).op().name() == "inc"


def test_createOnAScope(tf: Ops) -> None:
    v = variable(tf, (2,))
    a = AssignAdd.create(tf.scope(), v, tf.constant([1.0, 2.0]))
    assert isinstance(a, AssignAdd)
    assert a.op().type() == "AssignAdd"
    assert a.op().input(0) == v.asOutput()
    assert a.outputRef() == a.asOutput() == a.op().output(0)


def test_attributesHaveTensorFlowsDefaults(tf: Ops) -> None:
    a = tf.assignAdd(variable(tf, ()), 1.0)
    assert a.op().attr("T") is TFloat32
    assert a.op().attr("use_locking") is False


def test_useLockingOption(tf: Ops) -> None:
    a = tf.assignAdd(variable(tf, ()), 1.0, AssignAdd.useLocking(True))
    assert a.op().attr("use_locking") is True


@pytest.mark.parametrize("dtype", NUMBER_TYPES, ids=lambda t: t.NAME)
def test_outputHasTheVariablesDataType(tf: Ops, dtype: type[TType]) -> None:
    a = tf.assignAdd(variable(tf, (2,), dtype), np.ones(2, dtype.DTYPE))
    assert a.asOutput().dataType() is dtype


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_outputHasTheVariablesShape(tf: Ops, shape: tuple[int, ...]) -> None:
    value = tf.placeholder(TFloat32)
    assert tf.assignAdd(variable(tf, shape), value).asOutput().shape() == Shape.of(*shape)


def test_pythonValueTakesTheVariablesDataType(tf: Ops) -> None:
    a = tf.assignAdd(variable(tf, (), TFloat64), 1)
    assert a.op().input(1).dataType() is TFloat64


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", NUMBER_TYPES, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(), (4,), (2, 3)], ids=str)
def test_addsAndOutputsTheNewValue(
    tf: Ops, session: Session, dtype: type[TType], shape: tuple[int, ...]
) -> None:
    start = np.arange(int(np.prod(shape))).reshape(shape).astype(dtype.DTYPE)
    step = (np.arange(int(np.prod(shape))).reshape(shape) % 3 + 1).astype(dtype.DTYPE)
    v = tf.variable(start)
    add = tf.assignAdd(v, step)
    session.initialize()
    first = fetch(session, add)
    assert first.dtype == dtype.DTYPE
    np.testing.assert_array_equal(first, start + step)
    np.testing.assert_array_equal(fetch(session, add), start + step + step)
    value = fetch(session, v)
    assert value.dtype == dtype.DTYPE
    np.testing.assert_array_equal(value, start + step + step)


def test_negativeAndFractionalIncrements(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant(np.array([1.0, 2.0])))
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2)))
    add = tf.assignAdd(v, x)
    session.initialize()
    for delta in ([0.5, -3.0], [-0.25, 0.125]):
        session.runner().feed(x, np.array(delta)).addTarget(add).run()
    np.testing.assert_array_equal(fetch(session, v), [1.25, -0.875])


@pytest.mark.parametrize(
    ("dtype", "start", "step", "expected"),
    [(TUint8, 250, 10, 4), (TInt32, 2**31 - 1, 1, -(2**31))],
)
def test_integerOverflowWrapsAround(
    tf: Ops, session: Session, dtype: type[TType], start: int, step: int, expected: int
) -> None:
    v = tf.variable(np.array(start, dtype.DTYPE))
    add = tf.assignAdd(v, np.array(step, dtype.DTYPE))
    session.initialize()
    assert fetch(session, add) == expected


def test_eachSessionUpdatesItsOwnValue(tf: Ops, graph: Graph) -> None:
    v = tf.variable(tf.constant(0))
    inc = tf.assignAdd(v, 3)
    with Session(graph) as first, Session(graph) as second:
        first.initialize()
        second.initialize()
        for _ in range(4):
            first.run(inc)
        second.run(inc)
        assert fetch(first, v) == 12
        assert fetch(second, v) == 3


def test_asAControlDependencyOfANoOp(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant(1))
    step = tf.withControlDependencies([tf.assignAdd(v, 2)]).noOp()
    session.initialize()
    session.run(step)
    session.run(step)
    assert fetch(session, v) == 5


def test_concurrentIncrementsAreNotLost(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant(0))
    inc = tf.assignAdd(v, 1)
    session.initialize()
    errors: list[BaseException] = []
    start = threading.Barrier(8)

    def work() -> None:
        try:
            start.wait()
            for _ in range(200):
                session.run(inc)
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert fetch(session, v) == 1600


def test_concurrentFloatIncrementsFromFetchesAreNotLost(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant(np.zeros(3)))
    inc = tf.assignAdd(v, np.ones(3))
    session.initialize()
    outputs: list[float] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(200):
            out = float(fetch(session, inc)[0])
            with lock:
                outputs.append(out)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_array_equal(fetch(session, v), [1600.0, 1600.0, 1600.0])
    # every update's output is a distinct intermediate value
    assert sorted(outputs) == [float(i) for i in range(1, 1601)]


# -- errors --------------------------------------------------------------------------------
def test_uninitializedVariableRaisesFailedPrecondition(tf: Ops, session: Session) -> None:
    v = tf.withName("total").variable(tf.constant(0.0))
    add = tf.assignAdd(v, 1.0)
    with pytest.raises(FailedPreconditionError, match="'total'"):
        session.run(add)


def test_incompatibleStaticShapeRaisesValueError(tf: Ops, graph: Graph) -> None:
    v = variable(tf, (3,))
    before = list(graph.operations())
    with pytest.raises(ValueError, match="AssignAdd 'AssignAdd'") as info:
        tf.assignAdd(v, [1.0, 2.0])
    assert re.search(f"created at {HERE}:", str(info.value))
    assert list(graph.operations()) == before


def test_scalarValueForAVectorVariableRaisesValueError(tf: Ops, graph: Graph) -> None:
    v = variable(tf, (3,))
    before = list(graph.operations())
    with pytest.raises(ValueError, match="AssignAdd"):
        tf.assignAdd(v, 1.0)
    assert list(graph.operations()) == before


@pytest.mark.parametrize("fed", [(4,), (1,), (), (2, 3)], ids=str)
def test_fedValueOfAnotherShapeRaisesInvalidArgumentError(
    tf: Ops, session: Session, fed: tuple[int, ...]
) -> None:
    v = tf.variable(tf.constant([1.0, 2.0, 3.0]))
    x = tf.placeholder(TFloat32)
    add = tf.assignAdd(v, x)
    session.initialize()
    with pytest.raises(InvalidArgumentError):
        session.runner().feed(x, np.ones(fed, np.float32)).addTarget(add).run()
    np.testing.assert_array_equal(fetch(session, v), [1.0, 2.0, 3.0])


def test_boolVariableRaisesTypeError(tf: Ops, graph: Graph) -> None:
    v = variable(tf, (2,), TBool)
    before = list(graph.operations())
    with pytest.raises(TypeError, match="AssignAdd") as info:
        tf.assignAdd(v, np.array([True, False]))
    assert "bool" in str(info.value)
    assert list(graph.operations()) == before


@pytest.mark.parametrize(
    ("dtype", "value"),
    [(TFloat32, np.array(1.0, np.float64)), (TInt32, np.array(1, np.int64)), (TInt32, 0.5)],
    ids=str,
)
def test_valueOfAnotherDataTypeRaisesTypeError(
    tf: Ops, graph: Graph, dtype: type[TType], value: Any
) -> None:
    v = variable(tf, (), dtype)
    before = list(graph.operations())
    with pytest.raises(TypeError, match="AssignAdd"):
        tf.assignAdd(v, value)
    assert list(graph.operations()) == before


@pytest.mark.parametrize("kind", ["constant", "placeholder", "identity of a variable"])
def test_nonVariableRefRaisesValueErrorNamingTheOp(tf: Ops, graph: Graph, kind: str) -> None:
    if kind == "constant":
        ref: Any = tf.constant(1.0)
    elif kind == "placeholder":
        ref = tf.placeholder(TFloat32, Placeholder.shape(Shape.scalar()))
    else:
        ref = tf.identity(variable(tf, ()))
    before = list(graph.operations())
    with pytest.raises(ValueError, match="AssignAdd 'AssignAdd.*variable"):
        tf.assignAdd(ref, 2.0)
    assert list(graph.operations()) == before


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredNotDifferentiable() -> None:
    assert lookupGradient("AssignAdd") == (True, None)


def test_gradientThroughAssignAddIsNone(tf: Ops) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(2)))
    y = tf.math.square(tf.assignAdd(variable(tf, (2,)), tf.math.mul(x, x)))
    assert tf.gradients(y, [x]).dy(0) is None


def test_aReadUnderAControlDependencySeesTheUpdate(tf: Ops, session: Session) -> None:
    counter = tf.variable(tf.constant(0))
    increment = tf.assignAdd(counter, 1)
    after = tf.withControlDependencies([increment]).identity(counter)
    session.initialize()
    assert [int(session.runner().fetch(after).run()[0]) for _ in range(3)] == [1, 2, 3]
