"""Specification of ``tfops.op.train.ApplyMomentum``, as TensorFlow's kernel:

    accum = accum * momentum + grad
    var -= accum * lr                                   (default)
    var -= grad * lr + accum * momentum * lr            (useNesterov)

``var`` and ``accum`` are variables of one floating point type and shape, ``grad`` has their
shape, ``lr`` and ``momentum`` are scalars; the output is the new value of ``var``.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Session, Shape
from tfops.errors import FailedPreconditionError, InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import Placeholder, Variable
from tfops.op.train import ApplyMomentum
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType

Array = np.ndarray[Any, Any]
FLOAT_TYPES: list[type[TType]] = [TFloat16, TFloat32, TFloat64]
HERE = re.escape(__file__)


def fetch(session: Session, operand: Any) -> Array:
    return np.asarray(session.runner().fetch(operand).run()[0])


def placeholder(tf: Ops, dtype: type[TType], shape: tuple[int, ...]) -> Placeholder[Any]:
    return tf.placeholder(dtype, Placeholder.shape(Shape.of(*shape)))


def tolerance(dtype: type[TType]) -> float:
    return 4 * float(np.finfo(dtype.DTYPE).eps)


def reference(var: Array, accum: Array, lr: Array, grad: Array, momentum: Array,
              nesterov: bool) -> tuple[Array, Array]:
    """TensorFlow's ApplyMomentum functor (training_ops.cc), in the arrays' own dtype."""
    accum = accum * momentum + grad
    if nesterov:
        return var - (grad * lr + accum * momentum * lr), accum
    return var - accum * lr, accum


# -- construction --------------------------------------------------------------------------
def test_opNameIsApplyMomentum() -> None:
    assert ApplyMomentum.OP_NAME == "ApplyMomentum"


def test_defaultNamesAreTheOpTypeThenNumbered(tf: Ops) -> None:
    w, a = tf.variable(tf.constant([1.0])), tf.variable(tf.constant([0.0]))
    assert tf.train.applyMomentum(w, a, 0.1, [1.0], 0.9).op().name() == "ApplyMomentum"
    assert tf.train.applyMomentum(w, a, 0.1, [1.0], 0.9).op().name() == "ApplyMomentum_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    w, a = tf.variable(tf.constant([1.0])), tf.variable(tf.constant([0.0]))
    assert tf.withName("mom").train.applyMomentum(w, a, 0.1, [1.0], 0.9).op().name() == "mom"


def test_createOnAScope(tf: Ops) -> None:
    w, a = tf.variable(tf.constant([1.0])), tf.variable(tf.constant([0.0]))
    lr, grad, momentum = tf.constant(0.1), tf.constant([1.0]), tf.constant(0.9)
    step = ApplyMomentum.create(tf.scope(), w, a, lr, grad, momentum)
    assert isinstance(step, ApplyMomentum)
    assert step.op().type() == "ApplyMomentum"
    assert [step.op().input(i) for i in range(5)] == [
        w.asOutput(), a.asOutput(), lr.asOutput(), grad.asOutput(), momentum.asOutput()
    ]
    assert step.out() == step.asOutput() == step.op().output(0)


def test_attributesHaveTensorFlowsDefaults(tf: Ops) -> None:
    w, a = tf.variable(tf.constant([1.0])), tf.variable(tf.constant([0.0]))
    step = tf.train.applyMomentum(w, a, 0.1, [1.0], 0.9)
    assert step.op().attr("T") is TFloat32
    assert step.op().attr("use_locking") is False
    assert step.op().attr("use_nesterov") is False


def test_options(tf: Ops) -> None:
    w, a = tf.variable(tf.constant([1.0])), tf.variable(tf.constant([0.0]))
    step = tf.train.applyMomentum(
        w, a, 0.1, [1.0], 0.9, ApplyMomentum.useNesterov(True), ApplyMomentum.useLocking(True)
    )
    assert step.op().attr("use_nesterov") is True
    assert step.op().attr("use_locking") is True


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda t: t.NAME)
def test_outputHasTheVariablesDataType(tf: Ops, dtype: type[TType]) -> None:
    w, a = tf.variable(np.ones(2, dtype.DTYPE)), tf.variable(np.zeros(2, dtype.DTYPE))
    step = tf.train.applyMomentum(w, a, 0.1, placeholder(tf, dtype, (2,)), 0.9)
    assert step.asOutput().dataType() is dtype
    assert step.op().input(2).dataType() is dtype
    assert step.op().input(4).dataType() is dtype


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_outputHasTheVariablesShape(tf: Ops, shape: tuple[int, ...]) -> None:
    w = Variable.create(tf.scope(), Shape.of(*shape), TFloat32)
    a = Variable.create(tf.scope(), Shape.of(*shape), TFloat32)
    step = tf.train.applyMomentum(w, a, 0.1, tf.placeholder(TFloat32), 0.9)
    assert step.asOutput().shape() == Shape.of(*shape)


def test_docstringCarriesTheSummary() -> None:
    assert ApplyMomentum.__doc__ is not None
    assert "Update '*var' according to the momentum scheme." in ApplyMomentum.__doc__


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("nesterov", [False, True], ids=["plain", "nesterov"])
@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_severalStepsMatchTensorFlowsFormula(
    tf: Ops, session: Session, dtype: type[TType], shape: tuple[int, ...], nesterov: bool
) -> None:
    rng = np.random.RandomState(11)
    var0 = rng.uniform(-2, 2, shape).astype(dtype.DTYPE)
    accum0 = rng.uniform(-0.5, 0.5, shape).astype(dtype.DTYPE)
    w, a = tf.variable(var0), tf.variable(accum0)
    lr, momentum = placeholder(tf, dtype, ()), placeholder(tf, dtype, ())
    grad = placeholder(tf, dtype, shape)
    step = tf.train.applyMomentum(w, a, lr, grad, momentum, ApplyMomentum.useNesterov(nesterov))
    session.initialize()
    var, accum = var0.copy(), accum0.copy()
    for rate, mom in [(0.1, 0.9), (0.05, 0.5), (0.2, 0.0), (0.1, 0.99)]:
        lrValue, momValue = np.array(rate, dtype.DTYPE), np.array(mom, dtype.DTYPE)
        g = rng.uniform(-1, 1, shape).astype(dtype.DTYPE)
        var, accum = reference(var, accum, lrValue, g, momValue, nesterov)
        out = np.asarray(
            session.runner().feed(lr, lrValue).feed(momentum, momValue).feed(grad, g)
            .fetch(step).run()[0]
        )
        assert out.dtype == dtype.DTYPE
        assert out.shape == shape
        np.testing.assert_allclose(out, var, rtol=tolerance(dtype), atol=tolerance(dtype))
    values = session.runner().fetch(w).fetch(a).run()
    np.testing.assert_allclose(values[0], var, rtol=tolerance(dtype), atol=tolerance(dtype))
    np.testing.assert_allclose(values[1], accum, rtol=tolerance(dtype), atol=tolerance(dtype))
    assert values[1].dtype == dtype.DTYPE


def test_exactValuesOfTwoPlainSteps(tf: Ops, session: Session) -> None:
    w = tf.variable(tf.constant(np.array([1.0, -1.0])))
    a = tf.variable(tf.constant(np.array([0.0, 0.0])))
    step = tf.train.applyMomentum(w, a, np.float64(0.5), np.array([1.0, 2.0]), np.float64(0.5))
    session.initialize()
    # accum = [1, 2], var = [0.5, -2]; then accum = [1.5, 3], var = [-0.25, -3.5]
    np.testing.assert_array_equal(fetch(session, step), [0.5, -2.0])
    np.testing.assert_array_equal(fetch(session, step), [-0.25, -3.5])
    np.testing.assert_array_equal(fetch(session, a), [1.5, 3.0])


def test_exactValuesOfTwoNesterovSteps(tf: Ops, session: Session) -> None:
    w = tf.variable(tf.constant(np.array([1.0, -1.0])))
    a = tf.variable(tf.constant(np.array([0.0, 0.0])))
    step = tf.train.applyMomentum(
        w, a, np.float64(0.5), np.array([1.0, 2.0]), np.float64(0.5),
        ApplyMomentum.useNesterov(True),
    )
    session.initialize()
    # accum = [1, 2]; var -= g*lr + accum*m*lr = [0.75, 1.5] -> [0.25, -2.5]
    np.testing.assert_array_equal(fetch(session, step), [0.25, -2.5])
    # accum = [1.5, 3]; var -= [0.5 + 0.375, 1 + 0.75] -> [-0.625, -4.25]
    np.testing.assert_array_equal(fetch(session, step), [-0.625, -4.25])
    np.testing.assert_array_equal(fetch(session, a), [1.5, 3.0])


def test_zeroMomentumIsGradientDescent(tf: Ops, session: Session) -> None:
    w = tf.variable(tf.constant(np.array([2.0])))
    a = tf.variable(tf.constant(np.array([7.0])))
    step = tf.train.applyMomentum(w, a, np.float64(0.25), np.array([4.0]), np.float64(0.0))
    session.initialize()
    np.testing.assert_array_equal(fetch(session, step), [1.0])
    np.testing.assert_array_equal(fetch(session, a), [4.0])


def test_eachSessionKeepsItsOwnAccumulator(tf: Ops, graph: Graph) -> None:
    w = tf.variable(tf.constant(np.array([0.0])))
    a = tf.variable(tf.constant(np.array([0.0])))
    step = tf.train.applyMomentum(w, a, np.float64(1.0), np.array([1.0]), np.float64(1.0))
    with Session(graph) as first, Session(graph) as second:
        first.initialize()
        second.initialize()
        for _ in range(3):
            first.run(step)  # accum 1, 2, 3; var -1, -3, -6
        second.run(step)
        np.testing.assert_array_equal(fetch(first, w), [-6.0])
        np.testing.assert_array_equal(fetch(first, a), [3.0])
        np.testing.assert_array_equal(fetch(second, w), [-1.0])
        np.testing.assert_array_equal(fetch(second, a), [1.0])


# -- run-time errors -----------------------------------------------------------------------
@pytest.mark.parametrize("which", ["var", "accum"])
def test_uninitializedVariableRaisesFailedPrecondition(
    tf: Ops, session: Session, which: str
) -> None:
    w = tf.withName("var").variable(tf.constant([1.0]))
    a = tf.withName("accum").variable(tf.constant([0.0]))
    step = tf.train.applyMomentum(w, a, 0.1, [1.0], 0.9)
    session.run(tf.assign(a if which == "var" else w, [0.0]))
    with pytest.raises(FailedPreconditionError, match=f"'{which}'"):
        session.run(step)


@pytest.mark.parametrize("fed", [(1,), (4,), ()], ids=str)
def test_gradFedWithAnotherShapeRaisesInvalidArgumentError(
    tf: Ops, session: Session, fed: tuple[int, ...]
) -> None:
    w = tf.variable(tf.constant([1.0, 2.0, 3.0]))
    a = tf.variable(tf.constant([0.0, 0.0, 0.0]))
    grad = tf.placeholder(TFloat32)
    step = tf.train.applyMomentum(w, a, 0.1, grad, 0.9)
    session.initialize()
    with pytest.raises(InvalidArgumentError):
        session.runner().feed(grad, np.ones(fed, np.float32)).addTarget(step).run()
    np.testing.assert_array_equal(fetch(session, w), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(fetch(session, a), [0.0, 0.0, 0.0])


@pytest.mark.parametrize("which", ["lr", "momentum"])
def test_scalarFedAsAVectorRaisesInvalidArgumentError(
    tf: Ops, session: Session, which: str
) -> None:
    w = tf.variable(tf.constant([1.0, 2.0, 3.0]))
    a = tf.variable(tf.constant([0.0, 0.0, 0.0]))
    fed = tf.placeholder(TFloat32)
    lr: Any = fed if which == "lr" else 0.1
    momentum: Any = fed if which == "momentum" else 0.9
    step = tf.train.applyMomentum(w, a, lr, [1.0, 1.0, 1.0], momentum)
    session.initialize()
    with pytest.raises(InvalidArgumentError):
        session.runner().feed(fed, np.full(3, 0.5, np.float32)).addTarget(step).run()
    np.testing.assert_array_equal(fetch(session, w), [1.0, 2.0, 3.0])


# -- construction errors -------------------------------------------------------------------
@pytest.mark.parametrize("which", ["lr", "momentum"])
def test_nonScalarHyperparameterRaisesValueError(tf: Ops, graph: Graph, which: str) -> None:
    w, a = tf.variable(tf.constant([1.0, 2.0])), tf.variable(tf.constant([0.0, 0.0]))
    lr: Any = [0.1, 0.1] if which == "lr" else 0.1
    momentum: Any = [0.9, 0.9] if which == "momentum" else 0.9
    before = list(graph.operations())
    with pytest.raises(ValueError, match=f"ApplyMomentum 'ApplyMomentum'.*{which}"):
        tf.train.applyMomentum(w, a, lr, [1.0, 1.0], momentum)
    assert list(graph.operations()) == before


def test_gradOfAnotherShapeRaisesValueError(tf: Ops, graph: Graph) -> None:
    w, a = tf.variable(tf.constant([1.0, 2.0])), tf.variable(tf.constant([0.0, 0.0]))
    before = list(graph.operations())
    with pytest.raises(ValueError, match="ApplyMomentum.*grad") as info:
        tf.train.applyMomentum(w, a, 0.1, [1.0, 2.0, 3.0], 0.9)
    assert re.search(f"created at {HERE}:", str(info.value))
    assert list(graph.operations()) == before


def test_accumOfAnotherShapeRaisesValueError(tf: Ops, graph: Graph) -> None:
    w, a = tf.variable(tf.constant([1.0, 2.0])), tf.variable(tf.constant([0.0, 0.0, 0.0]))
    before = list(graph.operations())
    with pytest.raises(ValueError, match="ApplyMomentum.*accum"):
        tf.train.applyMomentum(w, a, 0.1, [1.0, 2.0], 0.9)
    assert list(graph.operations()) == before


@pytest.mark.parametrize("which", ["var", "accum"])
def test_nonVariableRefRaisesValueErrorNamingTheOp(tf: Ops, graph: Graph, which: str) -> None:
    w: Any = tf.variable(tf.constant([1.0]))
    a: Any = tf.variable(tf.constant([0.0]))
    if which == "var":
        w = tf.constant([1.0])
    else:
        a = tf.identity(a)
    before = list(graph.operations())
    with pytest.raises(ValueError, match=f"ApplyMomentum.*'{which}'.*variable"):
        tf.train.applyMomentum(w, a, 0.1, [1.0], 0.9)
    assert list(graph.operations()) == before


@pytest.mark.parametrize("dtype", [TInt32, TInt64, TBool], ids=lambda t: t.NAME)
def test_nonFloatingVariablesRaiseTypeError(tf: Ops, graph: Graph, dtype: type[TType]) -> None:
    w = Variable.create(tf.scope(), Shape.of(2), dtype)
    a = Variable.create(tf.scope(), Shape.of(2), dtype)
    lr, grad, mom = (tf.placeholder(dtype) for _ in range(3))
    before = list(graph.operations())
    with pytest.raises(TypeError, match="ApplyMomentum"):
        tf.train.applyMomentum(w, a, lr, grad, mom)
    assert list(graph.operations()) == before


def test_accumOfAnotherDataTypeRaisesTypeError(tf: Ops, graph: Graph) -> None:
    w = tf.variable(tf.constant([1.0]))
    a = tf.variable(tf.constant(np.array([0.0])))  # float64
    before = list(graph.operations())
    with pytest.raises(TypeError, match="ApplyMomentum"):
        tf.train.applyMomentum(w, a, 0.1, [1.0], 0.9)
    assert list(graph.operations()) == before


def test_hyperparameterOfAnotherDataTypeRaisesTypeError(tf: Ops, graph: Graph) -> None:
    w, a = tf.variable(tf.constant([1.0])), tf.variable(tf.constant([0.0]))
    before = list(graph.operations())
    with pytest.raises(TypeError, match="ApplyMomentum"):
        tf.train.applyMomentum(w, a, 0.1, [1.0], np.float64(0.9))
    assert list(graph.operations()) == before


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredNotDifferentiable() -> None:
    assert lookupGradient("ApplyMomentum") == (True, None)


def test_gradientThroughTheUpdateIsNone(tf: Ops) -> None:
    w, a = tf.variable(tf.constant([1.0])), tf.variable(tf.constant([0.0]))
    g = placeholder(tf, TFloat32, (1,))
    y = tf.math.square(tf.train.applyMomentum(w, a, 0.1, tf.math.square(g), 0.9))
    assert tf.gradients(y, [g]).dy(0) is None
