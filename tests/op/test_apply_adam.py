"""Specification of ``tfops.op.train.ApplyAdam``, as TensorFlow's kernel:

    lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)
    m += (grad - m) * (1 - beta1)
    v += (grad^2 - v) * (1 - beta2)
    var -= m * lr_t / (sqrt(v) + epsilon)                                  (default)
    var -= (grad * (1 - beta1) + beta1 * m) * lr_t / (sqrt(v) + epsilon)    (useNesterov)

``var``, ``m`` and ``v`` are variables of one floating point type and shape, ``grad`` has their
shape, the other inputs are scalars (the caller updates the beta powers); the output is the new
value of ``var``.
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
from tfops.op.train import ApplyAdam
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TType

Array = np.ndarray[Any, Any]
FLOAT_TYPES: list[type[TType]] = [TFloat16, TFloat32, TFloat64]
SCALARS = ("beta1Power", "beta2Power", "lr", "beta1", "beta2", "epsilon")
HERE = re.escape(__file__)


def fetch(session: Session, operand: Any) -> Array:
    return np.asarray(session.runner().fetch(operand).run()[0])


def placeholder(tf: Ops, dtype: type[TType], shape: tuple[int, ...]) -> Placeholder[Any]:
    return tf.placeholder(dtype, Placeholder.shape(Shape.of(*shape)))


def tolerance(dtype: type[TType]) -> float:
    return 4 * float(np.finfo(dtype.DTYPE).eps)


def reference(var: Array, m: Array, v: Array, beta1Power: Array, beta2Power: Array, lr: Array,
              beta1: Array, beta2: Array, epsilon: Array, grad: Array,
              nesterov: bool) -> tuple[Array, Array, Array]:
    """TensorFlow's ApplyAdam functor (training_ops.cc), in the arrays' own dtype."""
    one = np.array(1, var.dtype)
    alpha = lr * np.sqrt(one - beta2Power) / (one - beta1Power)
    m = m + (grad - m) * (one - beta1)
    v = v + (grad * grad - v) * (one - beta2)
    if nesterov:
        return var - ((grad * (one - beta1) + beta1 * m) * alpha) / (np.sqrt(v) + epsilon), m, v
    return var - (m * alpha) / (np.sqrt(v) + epsilon), m, v


class Adam:
    """Variables var, m, v (float32 unless told) and an ApplyAdam step with constant scalars."""

    def __init__(self, tf: Ops, var: Any, grad: Any, *options: ApplyAdam.Options,
                 scalars: tuple[Any, ...] = (0.9, 0.999, 0.1, 0.9, 0.999, 1e-8)) -> None:
        self.var = tf.withName("var").variable(var)
        zeros = np.zeros(np.shape(var), np.asarray(var).dtype if isinstance(var, np.ndarray)
                         else np.float32)
        self.m = tf.withName("m").variable(zeros)
        self.v = tf.withName("v").variable(zeros)
        self.step = tf.train.applyAdam(self.var, self.m, self.v, *scalars, grad, *options)


# -- construction --------------------------------------------------------------------------
def test_opNameIsApplyAdam() -> None:
    assert ApplyAdam.OP_NAME == "ApplyAdam"


def test_defaultNamesAreTheOpTypeThenNumbered(tf: Ops) -> None:
    assert Adam(tf, [1.0], [1.0]).step.op().name() == "ApplyAdam"
    a = Adam(tf, [1.0], [1.0])
    assert a.step.op().name() == "ApplyAdam_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    a = Adam(tf, [1.0], [1.0])
    scalars = (0.9, 0.999, 0.1, 0.9, 0.999, 1e-8)
    step = tf.withName("adam").train.applyAdam(a.var, a.m, a.v, *scalars, [1.0])
    assert step.op().name() == "adam"


def test_createOnAScope(tf: Ops) -> None:
    a = Adam(tf, [1.0], [1.0])
    scalars = [tf.constant(x) for x in (0.9, 0.999, 0.1, 0.9, 0.999, 1e-8)]
    grad = tf.constant([0.5])
    step = ApplyAdam.create(tf.scope(), a.var, a.m, a.v, *scalars, grad)
    assert isinstance(step, ApplyAdam)
    assert step.op().type() == "ApplyAdam"
    expected = [a.var.asOutput(), a.m.asOutput(), a.v.asOutput()]
    expected += [s.asOutput() for s in scalars] + [grad.asOutput()]
    assert [step.op().input(i) for i in range(10)] == expected
    assert step.out() == step.asOutput() == step.op().output(0)


def test_attributesHaveTensorFlowsDefaults(tf: Ops) -> None:
    step = Adam(tf, [1.0], [1.0]).step
    assert step.op().attr("T") is TFloat32
    assert step.op().attr("use_locking") is False
    assert step.op().attr("use_nesterov") is False


def test_options(tf: Ops) -> None:
    step = Adam(tf, [1.0], [1.0], ApplyAdam.useNesterov(True), ApplyAdam.useLocking(True)).step
    assert step.op().attr("use_nesterov") is True
    assert step.op().attr("use_locking") is True


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda t: t.NAME)
def test_outputAndPythonScalarsHaveTheVariablesDataType(tf: Ops, dtype: type[TType]) -> None:
    step = Adam(tf, np.ones(2, dtype.DTYPE), placeholder(tf, dtype, (2,))).step
    assert step.asOutput().dataType() is dtype
    assert all(step.op().input(i).dataType() is dtype for i in range(10))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_outputHasTheVariablesShape(tf: Ops, shape: tuple[int, ...]) -> None:
    var, m, v = (Variable.create(tf.scope(), Shape.of(*shape), TFloat32) for _ in range(3))
    scalars = (0.9, 0.999, 0.1, 0.9, 0.999, 1e-8)
    step = tf.train.applyAdam(var, m, v, *scalars, tf.placeholder(TFloat32))
    assert step.asOutput().shape() == Shape.of(*shape)


def test_docstringCarriesTheSummary() -> None:
    assert ApplyAdam.__doc__ is not None
    assert "Update '*var' according to the Adam algorithm." in ApplyAdam.__doc__


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("nesterov", [False, True], ids=["plain", "nesterov"])
@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_severalStepsMatchTensorFlowsFormula(
    tf: Ops, session: Session, dtype: type[TType], shape: tuple[int, ...], nesterov: bool
) -> None:
    rng = np.random.RandomState(5)
    var0 = rng.uniform(-2, 2, shape).astype(dtype.DTYPE)
    m0 = rng.uniform(-0.5, 0.5, shape).astype(dtype.DTYPE)
    v0 = rng.uniform(0.0, 0.5, shape).astype(dtype.DTYPE)
    var, m, v = tf.variable(var0), tf.variable(m0), tf.variable(v0)
    inputs = [placeholder(tf, dtype, ()) for _ in SCALARS]
    grad = placeholder(tf, dtype, shape)
    step = tf.train.applyAdam(var, m, v, *inputs, grad, ApplyAdam.useNesterov(nesterov))
    session.initialize()
    state = (var0.copy(), m0.copy(), v0.copy())
    lr, beta1, beta2, epsilon = 0.01, 0.9, 0.999, 1e-3
    for t in range(1, 6):
        values = [np.array(x, dtype.DTYPE) for x in
                  (beta1**t, beta2**t, lr * (1 + t / 10), beta1, beta2, epsilon)]
        g = rng.uniform(-1, 1, shape).astype(dtype.DTYPE)
        state = reference(*state, *values, g, nesterov=nesterov)
        runner = session.runner().feed(grad, g).fetch(step)
        for p, x in zip(inputs, values, strict=True):
            runner.feed(p, x)
        out = np.asarray(runner.run()[0])
        assert out.dtype == dtype.DTYPE
        assert out.shape == shape
        np.testing.assert_allclose(out, state[0], rtol=tolerance(dtype), atol=tolerance(dtype))
    final = session.runner().fetch(var).fetch(m).fetch(v).run()
    for got, want in zip(final, state, strict=True):
        assert got.dtype == dtype.DTYPE
        np.testing.assert_allclose(got, want, rtol=tolerance(dtype), atol=tolerance(dtype))


def test_exactValuesOfTheFirstStep(tf: Ops, session: Session) -> None:
    # beta1Power 0.5, beta2Power 0.75: lr_t = lr * sqrt(0.25) / 0.5 = lr; lr = 0.5
    # m = 0 + (2 - 0) * 0.5 = 1; v = 0 + (4 - 0) * 0.25 = 1; var -= 1 * 0.5 / (1 + 0) -> 0.5
    a = Adam(tf, np.array([1.0]), np.array([2.0]),
             scalars=tuple(np.float64(x) for x in (0.5, 0.75, 0.5, 0.5, 0.75, 0.0)))
    session.initialize()
    np.testing.assert_array_equal(fetch(session, a.step), [0.5])
    np.testing.assert_array_equal(fetch(session, a.m), [1.0])
    np.testing.assert_array_equal(fetch(session, a.v), [1.0])


def test_exactValuesOfTheFirstNesterovStep(tf: Ops, session: Session) -> None:
    # as above, then var -= (2 * 0.5 + 0.5 * 1) * 0.5 / 1 = 0.75 -> 0.25
    a = Adam(tf, np.array([1.0]), np.array([2.0]), ApplyAdam.useNesterov(True),
             scalars=tuple(np.float64(x) for x in (0.5, 0.75, 0.5, 0.5, 0.75, 0.0)))
    session.initialize()
    np.testing.assert_array_equal(fetch(session, a.step), [0.25])


def test_firstStepMovesEachElementByAboutTheLearningRate(tf: Ops, session: Session) -> None:
    a = Adam(tf, np.array([1.0, 1.0, 1.0]), np.array([1e-3, -5.0, 300.0]),
             scalars=tuple(np.float64(x) for x in (0.9, 0.999, 0.1, 0.9, 0.999, 1e-8)))
    session.initialize()
    np.testing.assert_allclose(fetch(session, a.step), [0.9, 1.1, 0.9], rtol=1e-4)


def test_eachSessionKeepsItsOwnMoments(tf: Ops, graph: Graph) -> None:
    a = Adam(tf, np.array([1.0]), np.array([2.0]),
             scalars=tuple(np.float64(x) for x in (0.5, 0.75, 0.5, 0.5, 0.75, 0.0)))
    with Session(graph) as first, Session(graph) as second:
        first.initialize()
        second.initialize()
        first.run(a.step)
        first.run(a.step)
        np.testing.assert_array_equal(fetch(first, a.m), [1.5])
        np.testing.assert_array_equal(fetch(second, a.m), [0.0])
        np.testing.assert_array_equal(fetch(second, a.var), [1.0])


# -- run-time errors -----------------------------------------------------------------------
@pytest.mark.parametrize("which", ["var", "m", "v"])
def test_uninitializedVariableRaisesFailedPrecondition(
    tf: Ops, session: Session, which: str
) -> None:
    a = Adam(tf, [1.0], [1.0])
    for name, variable in (("var", a.var), ("m", a.m), ("v", a.v)):
        if name != which:
            session.run(tf.assign(variable, [0.5]))
    with pytest.raises(FailedPreconditionError, match=f"'{which}'"):
        session.run(a.step)


@pytest.mark.parametrize("fed", [(1,), (4,), ()], ids=str)
def test_gradFedWithAnotherShapeRaisesInvalidArgumentError(
    tf: Ops, session: Session, fed: tuple[int, ...]
) -> None:
    grad = tf.placeholder(TFloat32)
    a = Adam(tf, np.array([1.0, 2.0, 3.0], np.float32), grad)
    session.initialize()
    with pytest.raises(InvalidArgumentError):
        session.runner().feed(grad, np.ones(fed, np.float32)).addTarget(a.step).run()
    np.testing.assert_array_equal(fetch(session, a.var), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(fetch(session, a.m), [0.0, 0.0, 0.0])


@pytest.mark.parametrize("which", range(len(SCALARS)), ids=lambda i: SCALARS[i])
def test_scalarFedAsAVectorRaisesInvalidArgumentError(
    tf: Ops, session: Session, which: int
) -> None:
    fed = tf.placeholder(TFloat32)
    scalars: list[Any] = [0.9, 0.999, 0.1, 0.9, 0.999, 1e-8]
    scalars[which] = fed
    a = Adam(tf, np.array([1.0, 2.0, 3.0], np.float32), [1.0, 1.0, 1.0],
             scalars=tuple(scalars))
    session.initialize()
    value = np.array([0.9, 0.999, 0.1, 0.9, 0.999, 1e-8], np.float32)[which]
    with pytest.raises(InvalidArgumentError):
        session.runner().feed(fed, np.full(3, value, np.float32)).addTarget(a.step).run()
    np.testing.assert_array_equal(fetch(session, a.var), [1.0, 2.0, 3.0])


# -- construction errors -------------------------------------------------------------------
@pytest.mark.parametrize("which", range(len(SCALARS)), ids=lambda i: SCALARS[i])
def test_nonScalarHyperparameterRaisesValueError(tf: Ops, graph: Graph, which: int) -> None:
    var, m, v = (tf.variable(tf.constant([1.0, 2.0])) for _ in range(3))
    scalars: list[Any] = [0.9, 0.999, 0.1, 0.9, 0.999, 1e-8]
    scalars[which] = [scalars[which]] * 2
    before = list(graph.operations())
    with pytest.raises(ValueError, match=f"ApplyAdam 'ApplyAdam'.*{SCALARS[which]}"):
        tf.train.applyAdam(var, m, v, *scalars, [1.0, 1.0])
    assert list(graph.operations()) == before


@pytest.mark.parametrize("which", ["m", "v", "grad"])
def test_tensorOfAnotherShapeRaisesValueError(tf: Ops, graph: Graph, which: str) -> None:
    shapes = {"m": (2,), "v": (2,), "grad": (2,)}
    shapes[which] = (3,)
    var = tf.variable(tf.constant([1.0, 2.0]))
    m = tf.variable(np.zeros(shapes["m"], np.float32))
    v = tf.variable(np.zeros(shapes["v"], np.float32))
    grad = np.ones(shapes["grad"], np.float32)
    before = list(graph.operations())
    with pytest.raises(ValueError, match=f"ApplyAdam.*'{which}'") as info:
        tf.train.applyAdam(var, m, v, 0.9, 0.999, 0.1, 0.9, 0.999, 1e-8, grad)
    assert re.search(f"created at {HERE}:", str(info.value))
    assert list(graph.operations()) == before


@pytest.mark.parametrize("which", ["var", "m", "v"])
def test_nonVariableRefRaisesValueErrorNamingTheOp(tf: Ops, graph: Graph, which: str) -> None:
    refs: dict[str, Any] = {n: tf.variable(tf.constant([1.0])) for n in ("var", "m", "v")}
    refs[which] = tf.constant([1.0])
    before = list(graph.operations())
    with pytest.raises(ValueError, match=f"ApplyAdam.*'{which}'.*variable"):
        tf.train.applyAdam(refs["var"], refs["m"], refs["v"], 0.9, 0.999, 0.1, 0.9, 0.999,
                           1e-8, [1.0])
    assert list(graph.operations()) == before


@pytest.mark.parametrize("dtype", [TInt32, TBool], ids=lambda t: t.NAME)
def test_nonFloatingVariablesRaiseTypeError(tf: Ops, graph: Graph, dtype: type[TType]) -> None:
    var, m, v = (Variable.create(tf.scope(), Shape.of(2), dtype) for _ in range(3))
    rest = [tf.placeholder(dtype) for _ in range(7)]
    before = list(graph.operations())
    with pytest.raises(TypeError, match="ApplyAdam"):
        tf.train.applyAdam(var, m, v, *rest)
    assert list(graph.operations()) == before


def test_momentOfAnotherDataTypeRaisesTypeError(tf: Ops, graph: Graph) -> None:
    var, m = tf.variable(tf.constant([1.0])), tf.variable(tf.constant([0.0]))
    v = tf.variable(np.zeros(1, np.float64))
    before = list(graph.operations())
    with pytest.raises(TypeError, match="ApplyAdam"):
        tf.train.applyAdam(var, m, v, 0.9, 0.999, 0.1, 0.9, 0.999, 1e-8, [1.0])
    assert list(graph.operations()) == before


def test_scalarOfAnotherDataTypeRaisesTypeError(tf: Ops, graph: Graph) -> None:
    var, m, v = (tf.variable(tf.constant([1.0])) for _ in range(3))
    before = list(graph.operations())
    with pytest.raises(TypeError, match="ApplyAdam"):
        tf.train.applyAdam(var, m, v, 0.9, 0.999, np.float64(0.1), 0.9, 0.999, 1e-8, [1.0])
    assert list(graph.operations()) == before


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredNotDifferentiable() -> None:
    assert lookupGradient("ApplyAdam") == (True, None)


def test_gradientThroughTheUpdateIsNone(tf: Ops) -> None:
    g = placeholder(tf, TFloat32, (1,))
    step = Adam(tf, [1.0], tf.math.square(g)).step
    assert tf.gradients(tf.math.square(step), [g]).dy(0) is None
