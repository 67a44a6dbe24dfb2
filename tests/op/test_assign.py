"""Specification of ``tfops.op.core.Assign``: ref = value, outputting the new value.

As TensorFlow's ``Assign``: any data type; the value must have the variable's data type, and
its shape (``validate_shape``, the default) when the op is created and when it runs. With
``validateShape(False)`` the variable takes the value's shape.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Session, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import Assign, Placeholder, Variable
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

ALL_TYPES: list[type[TType]] = [TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8, TBool]
HERE = re.escape(__file__)


def sample(dtype: type[TType], shape: tuple[int, ...], offset: int = 0) -> np.ndarray[Any, Any]:
    values: np.ndarray[Any, Any] = np.arange(int(np.prod(shape))).reshape(shape) + offset
    if dtype is TBool:
        return (values % 2 == 1).astype(np.bool_)
    return values.astype(dtype.DTYPE)


def fetch(session: Session, operand: Any) -> np.ndarray[Any, Any]:
    return np.asarray(session.runner().fetch(operand).run()[0])


def variable(tf: Ops, shape: tuple[int, ...], dtype: type[TType] = TFloat32) -> Variable[Any]:
    return Variable.create(tf.scope(), Shape.of(*shape), dtype)


# -- construction --------------------------------------------------------------------------
def test_opNameIsAssign() -> None:
    assert Assign.OP_NAME == "Assign"


def test_defaultNamesAreAssignThenAssign_1(tf: Ops) -> None:
    v = variable(tf, (2,))
    assert tf.assign(v, [1.0, 2.0]).op().name() == "Assign"
    assert tf.assign(v, [1.0, 2.0]).op().name() == "Assign_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    v = variable(tf, (2,))
    assert tf.withName("set").assign(v, [1.0, 2.0]).op().name() == "set"


def test_createOnAScope(tf: Ops) -> None:
    v = variable(tf, (2,))
    a = Assign.create(tf.scope(), v, tf.constant([1.0, 2.0]))
    assert isinstance(a, Assign)
    assert a.op().type() == "Assign"
    assert a.op().input(0) == v.asOutput()
    assert a.op().input(1).op().type() == "Const"
    assert a.outputRef() == a.asOutput() == a.op().output(0)


def test_attributesHaveTensorFlowsDefaults(tf: Ops) -> None:
    a = tf.assign(variable(tf, (1,)), [1.0])
    assert a.op().attr("T") is TFloat32
    assert a.op().attr("validate_shape") is True
    assert a.op().attr("use_locking") is True


def test_options(tf: Ops) -> None:
    v = variable(tf, (1,))
    a = tf.assign(v, [1.0], Assign.validateShape(False), Assign.useLocking(False))
    assert a.op().attr("validate_shape") is False
    assert a.op().attr("use_locking") is False


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
def test_outputHasTheVariablesDataType(tf: Ops, dtype: type[TType]) -> None:
    a = tf.assign(variable(tf, (2, 3), dtype), sample(dtype, (2, 3)))
    assert a.asOutput().dataType() is dtype


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (0, 4)], ids=str)
def test_outputHasTheVariablesShape(tf: Ops, shape: tuple[int, ...]) -> None:
    value = tf.placeholder(TFloat32)  # unknown shape: the variable's is the answer
    assert tf.assign(variable(tf, shape), value).asOutput().shape() == Shape.of(*shape)


def test_outputShapeMergesAPartiallyKnownVariableAndValue(tf: Ops) -> None:
    v = Variable.create(tf.scope(), Shape.of(2, -1), TFloat32)
    value = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(-1, 3)))
    assert tf.assign(v, value).asOutput().shape() == Shape.of(2, 3)


def test_withoutShapeValidationTheOutputHasTheValuesShape(tf: Ops) -> None:
    v = variable(tf, (2,))
    a = tf.assign(v, tf.constant([1.0, 2.0, 3.0]), Assign.validateShape(False))
    assert a.asOutput().shape() == Shape.of(3)


def test_pythonValueTakesTheVariablesDataType(tf: Ops) -> None:
    a = tf.assign(variable(tf, (2,), TFloat64), [1, 2])
    assert a.op().input(1).dataType() is TFloat64


def test_docstringCarriesTheSummary() -> None:
    assert Assign.__doc__ is not None
    assert "Update 'ref' by assigning 'value' to it." in Assign.__doc__


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(), (4,), (2, 3)], ids=str)
def test_assignSetsTheValueAndOutputsIt(
    tf: Ops, session: Session, dtype: type[TType], shape: tuple[int, ...]
) -> None:
    v = tf.variable(sample(dtype, shape))
    new = sample(dtype, shape, offset=1)
    a = tf.assign(v, new)
    session.initialize()
    out = fetch(session, a)
    assert out.dtype == dtype.DTYPE
    np.testing.assert_array_equal(out, new)
    value = fetch(session, v)
    assert value.dtype == dtype.DTYPE
    np.testing.assert_array_equal(value, new)


def test_assignInitializesAVariable(tf: Ops, session: Session) -> None:
    v = variable(tf, (2,), TInt64)
    session.run(tf.assign(v, np.array([5, 6], np.int64)))
    np.testing.assert_array_equal(fetch(session, v), [5, 6])


def test_assignAFedValue(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant([0.0, 0.0]))
    x = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(2)))
    a = tf.assign(v, x)
    session.initialize()
    session.runner().feed(x, np.array([1.5, -2.5], np.float32)).addTarget(a).run()
    np.testing.assert_array_equal(fetch(session, v), [1.5, -2.5])


def test_lastAssignWins(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant(0))
    one, two = tf.assign(v, 1), tf.assign(v, 2)
    session.initialize()
    session.run(two)
    session.run(one)
    assert fetch(session, v) == 1


def test_outputFeedsAComputation(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant([1.0, 2.0]))
    doubled = tf.math.mul(tf.assign(v, [3.0, 4.0]), tf.constant(2.0))
    session.initialize()
    np.testing.assert_array_equal(fetch(session, doubled), [6.0, 8.0])
    np.testing.assert_array_equal(fetch(session, v), [3.0, 4.0])


def test_assignFromAnotherVariable(tf: Ops, session: Session) -> None:
    src = tf.variable(tf.constant([7, 8]))
    dst = tf.variable(tf.constant([0, 0]))
    copy = tf.assign(dst, src)
    session.initialize()
    session.run(copy)
    np.testing.assert_array_equal(fetch(session, dst), [7, 8])


def test_assignInOneSessionDoesNotChangeAnother(tf: Ops, graph: Graph) -> None:
    v = tf.variable(tf.constant(1.0))
    a = tf.assign(v, 9.0)
    with Session(graph) as first, Session(graph) as second:
        first.initialize()
        second.initialize()
        first.run(a)
        assert fetch(first, v) == 9.0
        assert fetch(second, v) == 1.0


def test_assignAsAControlDependency(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant(1.0))
    step = tf.withControlDependencies([tf.assign(v, 4.0)]).noOp()
    session.initialize()
    session.run(step)
    assert fetch(session, v) == 4.0


def test_withoutShapeValidationTheVariableTakesTheNewShape(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant([1.0, 2.0]))
    x = tf.placeholder(TFloat32)
    a = tf.assign(v, x, Assign.validateShape(False))
    session.initialize()
    session.runner().feed(x, np.ones((2, 2), np.float32)).addTarget(a).run()
    np.testing.assert_array_equal(fetch(session, v), np.ones((2, 2)))


# -- shape and type checks -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("shape", "value"),
    [((2,), [1.0, 2.0, 3.0]), ((2,), [[1.0, 2.0]]), ((), [1.0]), ((2, 3), np.zeros((3, 2)))],
    ids=str,
)
def test_incompatibleStaticShapeRaisesValueError(
    tf: Ops, graph: Graph, shape: tuple[int, ...], value: Any
) -> None:
    v = variable(tf, shape)
    before = list(graph.operations())
    with pytest.raises(ValueError, match="Assign 'Assign'") as info:
        tf.assign(v, np.asarray(value, np.float32))
    assert re.search(f"created at {HERE}:", str(info.value))
    assert list(graph.operations()) == before


def test_wrongFedShapeRaisesInvalidArgumentError(tf: Ops, session: Session) -> None:
    v = tf.variable(tf.constant([1.0, 2.0]))
    x = tf.placeholder(TFloat32)
    a = tf.withName("set").assign(v, x)
    session.initialize()
    with pytest.raises(InvalidArgumentError, match="'Variable'") as info:
        session.runner().feed(x, np.ones(3, np.float32)).addTarget(a).run()
    assert info.value.op is not None and info.value.op.name() == "set"
    np.testing.assert_array_equal(fetch(session, v), [1.0, 2.0])


def test_wrongFedShapeOnAnUninitializedVariableRaisesInvalidArgumentError(
    tf: Ops, session: Session
) -> None:
    v = variable(tf, (2,))
    x = tf.placeholder(TFloat32)
    a = tf.assign(v, x)
    with pytest.raises(InvalidArgumentError):
        session.runner().feed(x, np.ones(3, np.float32)).addTarget(a).run()


@pytest.mark.parametrize(
    ("dtype", "value"),
    [
        (TFloat32, np.array([1.0], np.float64)),
        (TFloat64, np.array([1.0], np.float32)),
        (TInt32, np.array([1], np.int64)),
        (TInt32, [1.5]),
        (TFloat32, [True]),
        (TBool, [1]),
    ],
    ids=str,
)
def test_valueOfAnotherDataTypeRaisesTypeError(
    tf: Ops, graph: Graph, dtype: type[TType], value: Any
) -> None:
    v = variable(tf, (1,), dtype)
    before = list(graph.operations())
    with pytest.raises(TypeError, match="Assign"):
        tf.assign(v, value)
    assert list(graph.operations()) == before


def test_operandOfAnotherDataTypeRaisesTypeError(tf: Ops, graph: Graph) -> None:
    v = variable(tf, (2,), TFloat32)
    x = tf.placeholder(TFloat64)
    before = list(graph.operations())
    with pytest.raises(TypeError, match="Assign 'Assign'"):
        tf.assign(v, x)
    assert list(graph.operations()) == before


@pytest.mark.parametrize("kind", ["constant", "placeholder", "identity"])
def test_nonVariableRefRaisesValueErrorNamingTheOp(tf: Ops, graph: Graph, kind: str) -> None:
    if kind == "constant":
        ref: Any = tf.constant([1.0])
    elif kind == "placeholder":
        ref = tf.placeholder(TFloat32)
    else:
        ref = tf.identity(tf.variable(tf.constant([1.0])))
    before = list(graph.operations())
    with pytest.raises(ValueError, match="Assign 'Assign.*'.*variable"):
        tf.assign(ref, [2.0])
    assert list(graph.operations()) == before


def test_pythonValueAsRefRaisesValueError(tf: Ops, graph: Graph) -> None:
    with pytest.raises(ValueError, match="Assign"):
        tf.assign(1.0, 2.0)
    assert list(graph.operations()) == []


def test_refFromAnotherGraphRaisesValueError(tf: Ops, graph: Graph) -> None:
    with Graph() as other:
        foreign = Ops.create(other).variable(1.0)
        with pytest.raises(ValueError, match="Assign"):
            tf.assign(foreign, 2.0)
    assert list(graph.operations()) == []


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredNotDifferentiable() -> None:
    assert lookupGradient("Assign") == (True, None)


def test_gradientThroughAssignIsNone(tf: Ops) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(2)))
    v = variable(tf, (2,))
    y = tf.math.square(tf.assign(v, tf.math.square(x)))
    assert tf.gradients(y, [x]).dy(0) is None


def test_gradientThroughAssignIsZerosWhenAskedFor(tf: Ops, session: Session) -> None:
    from tfops.op.core import Gradients

    x = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(2)))
    v = variable(tf, (2,))
    dx = tf.gradients(
        tf.assign(v, tf.math.square(x)), [x], Gradients.unconnectedGradients("zero")
    ).dy(0)
    assert dx is not None
    result = session.runner().feed(x, np.array([1.0, 2.0], np.float32)).fetch(dx).run()[0]
    np.testing.assert_array_equal(result, [0.0, 0.0])
