"""Specification of ``tfops.op.train.ApplyGradientDescent``: var -= alpha * delta.

As TensorFlow's kernel: floating point variables, ``alpha`` a scalar, ``delta`` of the
variable's shape (checked when the op is created, and when it runs); outputs the new value.
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
from tfops.op.core import Placeholder, Variable
from tfops.op.train import ApplyGradientDescent
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Array = np.ndarray[Any, Any]
FLOAT_TYPES: list[type[TType]] = [TFloat16, TFloat32, TFloat64]
HERE = re.escape(__file__)


def fetch(session: Session, operand: Any) -> Array:
    return np.asarray(session.runner().fetch(operand).run()[0])


def placeholder(tf: Ops, dtype: type[TType], shape: tuple[int, ...]) -> Placeholder[Any]:
    return tf.placeholder(dtype, Placeholder.shape(Shape.of(*shape)))


def tolerance(dtype: type[TType]) -> float:
    return 4 * float(np.finfo(dtype.DTYPE).eps)


# -- construction --------------------------------------------------------------------------
def test_opNameIsApplyGradientDescent() -> None:
    assert ApplyGradientDescent.OP_NAME == "ApplyGradientDescent"


def test_defaultNamesAreTheOpTypeThenNumbered(tf: Ops) -> None:
    w = tf.variable(tf.constant([1.0]))
    assert tf.train.applyGradientDescent(w, 0.1, [1.0]).op().name() == "ApplyGradientDescent"
    assert tf.train.applyGradientDescent(w, 0.1, [1.0]).op().name() == "ApplyGradientDescent_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    w = tf.variable(tf.constant([1.0]))
    assert tf.withName("sgd").train.applyGradientDescent(w, 0.1, [1.0]).op().name() == "sgd"


def test_createOnAScope(tf: Ops) -> None:
    w = tf.variable(tf.constant([1.0, 2.0]))
    alpha, delta = tf.constant(0.5), tf.constant([1.0, 1.0])
    step = ApplyGradientDescent.create(tf.scope(), w, alpha, delta)
    assert isinstance(step, ApplyGradientDescent)
    assert step.op().type() == "ApplyGradientDescent"
    assert [step.op().input(i) for i in range(3)] == [
        w.asOutput(), alpha.asOutput(), delta.asOutput()
    ]
    assert step.out() == step.asOutput() == step.op().output(0)


def test_attributesHaveTensorFlowsDefaults(tf: Ops) -> None:
    step = tf.train.applyGradientDescent(tf.variable(tf.constant([1.0])), 0.1, [1.0])
    assert step.op().attr("T") is TFloat32
    assert step.op().attr("use_locking") is False


def test_useLockingOption(tf: Ops) -> None:
    w = tf.variable(tf.constant([1.0]))
    step = tf.train.applyGradientDescent(w, 0.1, [1.0], ApplyGradientDescent.useLocking(True))
    assert step.op().attr("use_locking") is True


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda t: t.NAME)
def test_outputHasTheVariablesDataType(tf: Ops, dtype: type[TType]) -> None:
    w = tf.variable(np.ones(2, dtype.DTYPE))
    step = tf.train.applyGradientDescent(w, 0.1, placeholder(tf, dtype, (2,)))
    assert step.asOutput().dataType() is dtype
    assert step.op().input(1).dataType() is dtype  # a Python alpha takes the variable's type


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_outputHasTheVariablesShape(tf: Ops, shape: tuple[int, ...]) -> None:
    w = Variable.create(tf.scope(), Shape.of(*shape), TFloat32)
    step = tf.train.applyGradientDescent(w, 0.1, tf.placeholder(TFloat32))
    assert step.asOutput().shape() == Shape.of(*shape)


def test_docstringCarriesTheSummary() -> None:
    assert ApplyGradientDescent.__doc__ is not None
    assert "Update '*var' by subtracting 'alpha' * 'delta' from it." in (
        ApplyGradientDescent.__doc__
    )


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_severalStepsMatchTheFormula(
    tf: Ops, session: Session, dtype: type[TType], shape: tuple[int, ...]
) -> None:
    rng = np.random.RandomState(3)
    start = rng.uniform(-2, 2, shape).astype(dtype.DTYPE)
    w = tf.variable(start)
    alpha = placeholder(tf, dtype, ())
    delta = placeholder(tf, dtype, shape)
    step = tf.train.applyGradientDescent(w, alpha, delta)
    session.initialize()
    expected = start.copy()
    for lr in (0.1, 0.05, 0.5, 0.25):
        a = np.array(lr, dtype.DTYPE)
        d = rng.uniform(-1, 1, shape).astype(dtype.DTYPE)
        expected = expected - a * d
        out = np.asarray(session.runner().feed(alpha, a).feed(delta, d).fetch(step).run()[0])
        assert out.dtype == dtype.DTYPE
        assert out.shape == shape
        np.testing.assert_allclose(out, expected, rtol=tolerance(dtype), atol=tolerance(dtype))
    value = fetch(session, w)
    assert value.dtype == dtype.DTYPE
    np.testing.assert_allclose(value, expected, rtol=tolerance(dtype), atol=tolerance(dtype))


def test_exactValuesInFloat64(tf: Ops, session: Session) -> None:
    w = tf.variable(tf.constant(np.array([1.0, 2.0, -3.0])))
    step = tf.train.applyGradientDescent(w, 0.5, np.array([2.0, -4.0, 1.0]))
    session.initialize()
    np.testing.assert_array_equal(fetch(session, step), [0.0, 4.0, -3.5])
    np.testing.assert_array_equal(fetch(session, step), [-1.0, 6.0, -4.0])
    np.testing.assert_array_equal(fetch(session, w), [-1.0, 6.0, -4.0])


def test_zeroLearningRateLeavesTheVariable(tf: Ops, session: Session) -> None:
    w = tf.variable(tf.constant([1.5, -2.5]))
    step = tf.train.applyGradientDescent(w, 0.0, [10.0, 10.0])
    session.initialize()
    session.run(step)
    np.testing.assert_array_equal(fetch(session, w), [1.5, -2.5])


def test_gradientDescentOnAQuadraticConverges(tf: Ops, session: Session) -> None:
    w = tf.variable(tf.constant(np.array([4.0, -2.0])))
    loss = tf.sum(tf.math.square(tf.math.sub(w, np.array([1.0, 3.0]))), 0)
    dw = tf.gradients(loss, [w]).dy(0)
    assert dw is not None
    step = tf.train.applyGradientDescent(w, np.float64(0.25), dw)
    session.initialize()
    # w <- w - 0.25 * 2 (w - c) = (w + c) / 2: the distance to c halves each step
    for _ in range(10):
        session.run(step)
    np.testing.assert_allclose(fetch(session, w), [1.0 + 3.0 / 1024, 3.0 - 5.0 / 1024],
                               rtol=1e-15)


def test_eachSessionUpdatesItsOwnVariable(tf: Ops, graph: Graph) -> None:
    w = tf.variable(tf.constant([1.0]))
    step = tf.train.applyGradientDescent(w, 1.0, [0.25])
    with Session(graph) as first, Session(graph) as second:
        first.initialize()
        second.initialize()
        first.run(step)
        first.run(step)
        second.run(step)
        np.testing.assert_array_equal(fetch(first, w), [0.5])
        np.testing.assert_array_equal(fetch(second, w), [0.75])


def test_concurrentStepsAreNotLost(tf: Ops, session: Session) -> None:
    w = tf.variable(tf.constant(np.zeros(2)))
    step = tf.train.applyGradientDescent(w, np.float64(1.0), np.array([-1.0, -2.0]))
    session.initialize()

    def work() -> None:
        for _ in range(50):
            session.run(step)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    np.testing.assert_array_equal(fetch(session, w), [400.0, 800.0])


# -- run-time errors -----------------------------------------------------------------------
def test_uninitializedVariableRaisesFailedPrecondition(tf: Ops, session: Session) -> None:
    w = tf.withName("weights").variable(tf.constant([1.0]))
    step = tf.train.applyGradientDescent(w, 0.1, [1.0])
    with pytest.raises(FailedPreconditionError, match="'weights'"):
        session.run(step)


@pytest.mark.parametrize("fed", [(1,), (4,), ()], ids=str)
def test_deltaFedWithAnotherShapeRaisesInvalidArgumentError(
    tf: Ops, session: Session, fed: tuple[int, ...]
) -> None:
    w = tf.variable(tf.constant([1.0, 2.0, 3.0]))
    delta = tf.placeholder(TFloat32)
    step = tf.train.applyGradientDescent(w, 0.1, delta)
    session.initialize()
    with pytest.raises(InvalidArgumentError):
        session.runner().feed(delta, np.ones(fed, np.float32)).addTarget(step).run()
    np.testing.assert_array_equal(fetch(session, w), [1.0, 2.0, 3.0])


def test_alphaFedAsAVectorRaisesInvalidArgumentError(tf: Ops, session: Session) -> None:
    w = tf.variable(tf.constant([1.0, 2.0, 3.0]))
    alpha = tf.placeholder(TFloat32)
    step = tf.train.applyGradientDescent(w, alpha, [1.0, 1.0, 1.0])
    session.initialize()
    with pytest.raises(InvalidArgumentError):
        session.runner().feed(alpha, np.full(3, 0.1, np.float32)).addTarget(step).run()
    np.testing.assert_array_equal(fetch(session, w), [1.0, 2.0, 3.0])


# -- construction errors -------------------------------------------------------------------
def test_nonScalarAlphaRaisesValueError(tf: Ops, graph: Graph) -> None:
    w = tf.variable(tf.constant([1.0, 2.0]))
    before = list(graph.operations())
    with pytest.raises(ValueError, match="ApplyGradientDescent 'ApplyGradientDescent'.*alpha"):
        tf.train.applyGradientDescent(w, [0.1, 0.1], [1.0, 1.0])
    assert list(graph.operations()) == before


@pytest.mark.parametrize("delta", [[1.0, 2.0, 3.0], [[1.0, 2.0]], 1.0], ids=str)
def test_deltaOfAnotherShapeRaisesValueError(tf: Ops, graph: Graph, delta: Any) -> None:
    w = tf.variable(tf.constant([1.0, 2.0]))
    before = list(graph.operations())
    with pytest.raises(ValueError, match="ApplyGradientDescent.*delta") as info:
        tf.train.applyGradientDescent(w, 0.1, delta)
    assert re.search(f"created at {HERE}:", str(info.value))
    assert list(graph.operations()) == before


@pytest.mark.parametrize("kind", ["constant", "placeholder", "identity of a variable"])
def test_nonVariableVarRaisesValueErrorNamingTheOp(tf: Ops, graph: Graph, kind: str) -> None:
    if kind == "constant":
        var: Any = tf.constant([1.0])
    elif kind == "placeholder":
        var = placeholder(tf, TFloat32, (1,))
    else:
        var = tf.identity(tf.variable(tf.constant([1.0])))
    before = list(graph.operations())
    with pytest.raises(ValueError, match="ApplyGradientDescent.*variable"):
        tf.train.applyGradientDescent(var, 0.1, [1.0])
    assert list(graph.operations()) == before


@pytest.mark.parametrize("dtype", [TInt32, TInt64, TUint8, TBool], ids=lambda t: t.NAME)
def test_nonFloatingVariableRaisesTypeError(tf: Ops, graph: Graph, dtype: type[TType]) -> None:
    w = Variable.create(tf.scope(), Shape.of(2), dtype)
    alpha, delta = tf.placeholder(dtype), tf.placeholder(dtype)
    before = list(graph.operations())
    with pytest.raises(TypeError, match="ApplyGradientDescent") as info:
        tf.train.applyGradientDescent(w, alpha, delta)
    assert dtype.NAME in str(info.value)
    assert list(graph.operations()) == before


@pytest.mark.parametrize(
    ("alpha", "delta"),
    [
        (np.float64(0.1), [1.0, 1.0]),
        (0.1, np.array([1.0, 1.0], np.float64)),
        (0.1, np.array([1, 1], np.int32)),
    ],
    ids=["float64 alpha", "float64 delta", "int32 delta"],
)
def test_inputsOfAnotherDataTypeRaiseTypeError(
    tf: Ops, graph: Graph, alpha: Any, delta: Any
) -> None:
    w = tf.variable(tf.constant([1.0, 2.0]))  # float32
    before = list(graph.operations())
    with pytest.raises(TypeError, match="ApplyGradientDescent"):
        tf.train.applyGradientDescent(w, alpha, delta)
    assert list(graph.operations()) == before


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredNotDifferentiable() -> None:
    assert lookupGradient("ApplyGradientDescent") == (True, None)


def test_gradientThroughTheUpdateIsNone(tf: Ops) -> None:
    w = tf.variable(tf.constant([1.0, 2.0]))
    delta = placeholder(tf, TFloat32, (2,))
    y = tf.math.square(tf.train.applyGradientDescent(w, 0.1, tf.math.square(delta)))
    assert tf.gradients(y, [delta]).dy(0) is None
