"""Specification of ``tfops.framework.optimizers``: GradientDescent, Momentum, Adam, RMSProp,
AdaGrad.

What we compare against: TensorFlow 2.21's TF1 optimizers (``tf.compat.v1.train.
GradientDescentOptimizer``, ``MomentumOptimizer``, ``AdamOptimizer``, ``RMSPropOptimizer``,
``AdagradOptimizer``), run in graph mode on the
same two problems (a 2-variable quadratic in float32 and float64, a tiny logistic regression in
float32) by ``tests/fixtures/tf/make_optimizers.py``, which wrote ``optimizers.npz``: the loss
and both variables before the first and after each of 5 ``minimize`` steps. Each case here
builds the same problem with tfops, runs 5 steps of the matching optimizer on each backend, and
compares the 6 points of the trajectory to float tolerance.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import assertRejected

from tfops import Graph, Ops, Session, Shape
from tfops.framework.optimizers import (
    AdaGrad,
    Adam,
    GradientDescent,
    Momentum,
    Optimizer,
    RMSProp,
)
from tfops.op.core import Variable
from tfops.types import TFloat32, TFloat64, TInt32

FIXTURE = np.load(Path(__file__).parent / "fixtures" / "tf" / "optimizers.npz")
BACKENDS = ["numpy", "xla"]
backends = pytest.mark.parametrize("backend", BACKENDS)

# the problems' data, as in make_optimizers.py
A = np.array([2.0, 0.5])
C = np.array([1.0, -2.0])
W0 = np.array([1.5, -0.5])
B0 = np.array(0.3)
X = np.random.RandomState(0).uniform(-1, 1, (8, 3))
Y = np.array([[1.0], [0.0], [1.0], [1.0], [0.0], [0.0], [1.0], [0.0]])
LW0 = np.array([[0.2], [-0.1], [0.05]])
LB0 = np.array([0.1])

# config name -> the tfops optimizer, with TF1's arguments of make_optimizers.py
CONFIGS: dict[str, Callable[[Graph], Optimizer]] = {
    "GradientDescent": lambda g: GradientDescent(g, 0.1),
    "Momentum": lambda g: Momentum(g, 0.1, momentum=0.9),
    "Momentum-nesterov": lambda g: Momentum(g, 0.05, momentum=0.5, useNesterov=True),
    "Adam": lambda g: Adam(g, 0.1),
    "Adam-hyper": lambda g: Adam(g, 0.05, betaOne=0.8, betaTwo=0.99, epsilon=1e-3),
    # TF1's RMSProp defaults (decay 0.9, momentum 0, epsilon 1e-10) are TF Java's
    "RMSProp": lambda g: RMSProp(g, 0.01),
    "RMSProp-momentum": lambda g: RMSProp(g, 0.05, decay=0.8, momentum=0.5, epsilon=1e-6),
    "RMSProp-centered": lambda g: RMSProp(g, 0.02, decay=0.9, momentum=0.3, epsilon=1e-4,
                                          centered=True),
    # TF1's initial accumulator is 0.1 (TF Java's 0.01): given explicitly
    "AdaGrad": lambda g: AdaGrad(g, 0.1, initialAccumulatorValue=0.1),
    "AdaGrad-accumulator": lambda g: AdaGrad(g, 0.3, initialAccumulatorValue=0.5),
}
Problem = tuple[Any, Any, Any]


def quadratic(tf: Ops, dtype: Any) -> Problem:
    w = tf.withName("w").variable(W0.astype(dtype))
    b = tf.withName("b").variable(B0.astype(dtype))
    loss = tf.sum(A.astype(dtype) * tf.math.square(w - C.astype(dtype)), 0) + tf.math.square(
        b * tf.sum(w, 0) - np.array(1.0, dtype))
    return loss, w, b


def logistic(tf: Ops, dtype: Any) -> Problem:
    w = tf.withName("w").variable(LW0.astype(dtype))
    b = tf.withName("b").variable(LB0.astype(dtype))
    z = tf.linalg.matMul(X.astype(dtype), w) + b
    loss = tf.math.mean(tf.math.softplus(z) - Y.astype(dtype) * z, [0, 1])
    return loss, w, b


PROBLEMS = {"quadratic": quadratic, "logistic": logistic}
CASES = [(p, d) for p, d in (("quadratic", "float32"), ("quadratic", "float64"),
                             ("logistic", "float32"))]


def fetch(session: Session, *operands: Any) -> list[np.ndarray[Any, Any]]:
    runner = session.runner()
    for x in operands:
        runner.fetch(x)
    return [np.asarray(v) for v in runner.run()]


# -- trajectories against TensorFlow --------------------------------------------------------
@backends
@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize(("problem", "dtype"), CASES, ids=["-".join(c) for c in CASES])
def test_fiveStepsEqualTensorFlowsTF1Optimizer(
    problem: str, dtype: str, config: str, backend: str
) -> None:
    key = f"{problem}/{dtype}/{config}"
    graph = Graph()
    tf = Ops.create(graph)
    loss, w, b = PROBLEMS[problem](tf, np.dtype(dtype))
    step = CONFIGS[config](graph).minimize(loss)
    tol = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-12, atol=1e-13)}[dtype]
    with Session(graph, backend=backend) as session:
        session.initialize()
        for i in range(6):
            lossValue, wValue, bValue = fetch(session, loss, w, b)
            assert wValue.dtype == np.dtype(dtype)
            np.testing.assert_allclose(lossValue, FIXTURE[f"{key}/loss"][i], **tol)
            np.testing.assert_allclose(wValue, FIXTURE[f"{key}/w"][i], **tol)
            np.testing.assert_allclose(bValue, FIXTURE[f"{key}/b"][i], **tol)
            if i < 5:
                session.run(step)
    # the trajectory moves: the comparison is not of 6 copies of the start
    assert FIXTURE[f"{key}/loss"][5] < FIXTURE[f"{key}/loss"][0]


# -- what a step builds ---------------------------------------------------------------------
def test_constructorsHaveTensorFlowJavasDefaults(graph: Graph) -> None:
    assert GradientDescent(graph).getLearningRate() == 0.01
    assert repr(Momentum(graph)) == "Momentum(learningRate=0.01, momentum=0.0, useNesterov=False)"
    assert repr(Adam(graph)) == ("Adam(learningRate=0.001, betaOne=0.9, betaTwo=0.999, "
                                 "epsilon=1e-08)")
    assert repr(RMSProp(graph)) == ("RMSProp(learningRate=0.001, decay=0.9, momentum=0.0, "
                                    "epsilon=1e-10, centered=False)")
    assert repr(AdaGrad(graph)) == "AdaGrad(learningRate=0.001, initialAccumulatorValue=0.01)"
    assert [o.getOptimizerName() for o in (GradientDescent(graph), Momentum(graph), Adam(graph),
                                            RMSProp(graph), AdaGrad(graph))] == [
        "GradientDescent", "Momentum", "Adam", "RMSProp", "Adagrad"]


@pytest.mark.parametrize(
    ("make", "slots"),
    [(lambda g: RMSProp(g), {"rms": 1.0, "momentum": 0.0}),
     (lambda g: RMSProp(g, centered=True), {"rms": 1.0, "momentum": 0.0, "mg": 0.0}),
     (lambda g: AdaGrad(g), {"accumulator": 0.01}),
     (lambda g: AdaGrad(g, initialAccumulatorValue=0.5), {"accumulator": 0.5})],
    ids=["RMSProp", "RMSProp-centered", "AdaGrad", "AdaGrad-accumulator"],
)
def test_slotsStartAtTheirInitialValues(
    tf: Ops, graph: Graph, session: Session, make: Callable[[Graph], Optimizer],
    slots: dict[str, float],
) -> None:
    loss, w, b = quadratic(tf, np.float64)
    optimizer = make(graph)
    optimizer.minimize(loss)
    session.initialize()
    for var in (w, b):
        for slot, value in slots.items():
            found = optimizer.getSlot(var, slot)
            assert found is not None and found.op().name() == f"{var.op().name()}-{slot}"
            got = fetch(session, found)[0]
            assert got.dtype == np.float64
            np.testing.assert_array_equal(got, np.full(var.asOutput().shape().asArray() or (),
                                                       value))
    assert optimizer.getSlot(w, "mg") is None or "mg" in slots


def test_slotsAreNamedAfterTheVariableAndRegisteredAsInitializers(tf: Ops, graph: Graph) -> None:
    loss, w, b = quadratic(tf, np.float32)
    adam = Adam(graph)
    adam.minimize(loss)
    for var in (w, b):
        for slot in ("m", "v"):
            found = adam.getSlot(var, slot)
            assert found is not None and found.op().name() == f"{var.op().name()}-{slot}"
            assert Optimizer.createName(var, slot) == f"{var.op().name()}-{slot}"
            assert found.asOutput().shape() == var.asOutput().shape()
            assert found.asOutput().dataType() is TFloat32
    assert adam.getSlot(w, "momentum") is None
    powers = adam.getBetaPowers()
    assert powers is not None and [p.op().name() for p in powers] == ["beta1_power",
                                                                       "beta2_power"]
    initialized = {op.name() for op in graph.initializers()}  # each slot and its Assign
    assert {"w-m", "w-v", "b-m", "b-v", "beta1_power", "beta2_power"} <= initialized
    momentum = Momentum(graph)
    momentum.minimize(loss)
    assert [momentum.getSlot(v, "momentum").op().name()  # type: ignore[union-attr]
            for v in (w, b)] == ["w-momentum", "b-momentum"]


@backends
def test_variablesInSubScopesGetTheirSlotsInTheSameSubScope(backend: str) -> None:
    """A slot of ``net/w`` is ``net/w-m`` (TF Java's ``withName`` would refuse the "/")."""
    with Graph() as graph, Session(graph, backend=backend) as session:
        net = Ops.create(graph).withSubScope("net")
        w = net.withName("w").variable(np.array([1.0, -2.0], np.float32))
        step = Adam(graph, 0.1).minimize(net.sum(net.math.square(w), 0))
        assert [Adam.createName(w, s) for s in ("m", "v")] == ["net/w-m", "net/w-v"]
        for slot in ("m", "v"):
            found = Optimizer.createName(w, slot)
            assert graph.operation(found) is not None, found
        session.run(step)
        (value,) = session.runner().fetch(w).run()
        np.testing.assert_allclose(value, [0.9, -1.9], rtol=1e-6)


def test_minimizeReturnsANamedNoOpAndReusesSlots(tf: Ops, graph: Graph) -> None:
    loss, w, _ = quadratic(tf, np.float32)
    adam = Adam(graph)
    first = adam.minimize(loss)
    variables = sum(op.type() == "VariableV2" for op in graph.operations())
    second = adam.minimize(loss, name="train")
    assert (first.op().type(), first.op().name()) == ("NoOp", "Adam-minimize")
    assert second.op().name() == "train"
    assert sum(op.type() == "VariableV2" for op in graph.operations()) == variables
    assert {c.type() for c in first.op().controlInputs()} == {"ApplyAdam", "Assign"}
    assert GradientDescent(graph).minimize(loss).op().name() == "GradientDescent-minimize"


def test_computeGradientsPairsOnlyTheVariablesTheLossDependsOn(
    tf: Ops, graph: Graph, session: Session
) -> None:
    unused = tf.withName("unused").variable(np.array([5.0], np.float32))
    loss, w, b = quadratic(tf, np.float32)
    pairs = GradientDescent(graph, 0.1).computeGradients(loss)
    assert [v.op().name() for _, v in pairs] == ["w", "b"]
    assert all(isinstance(v, Variable) for _, v in pairs)
    step = GradientDescent(graph, 0.1).applyGradients(pairs)
    session.initialize()
    grads = fetch(session, *(g for g, _ in pairs))
    session.run(step)
    np.testing.assert_allclose(fetch(session, w)[0], W0 - 0.1 * grads[0], rtol=1e-6)
    np.testing.assert_allclose(fetch(session, b)[0], B0 - 0.1 * grads[1], rtol=1e-6)
    np.testing.assert_array_equal(fetch(session, unused)[0], [5.0])


@backends
def test_aLearningRatePlaceholderIsReadAtEachStep(backend: str) -> None:
    graph = Graph()
    tf = Ops.create(graph)
    w = tf.variable(np.array([1.0, -2.0]))
    rate = tf.placeholder(TFloat32)  # float32 rate, float64 variable: cast as TensorFlow does
    step = GradientDescent(graph, rate).minimize(tf.sum(tf.math.square(w), 0))
    with Session(graph, backend=backend) as session:
        session.initialize()
        session.runner().feed(rate, np.float32(0.25)).addTarget(step).run()
        np.testing.assert_allclose(fetch(session, w)[0], [0.5, -1.0])
        session.runner().feed(rate, np.float32(0.5)).addTarget(step).run()
        np.testing.assert_allclose(fetch(session, w)[0], [0.0, 0.0])


def test_adamMultipliesTheBetaPowersAfterEachStep(tf: Ops, graph: Graph,
                                                  session: Session) -> None:
    loss, _, _ = quadratic(tf, np.float64)
    adam = Adam(graph, betaOne=0.5, betaTwo=0.75)
    step = adam.minimize(loss)
    powers = adam.getBetaPowers()
    assert powers is not None
    session.initialize()
    for _ in range(3):
        session.run(step)
    assert [float(x) for x in fetch(session, *powers)] == [0.5**4, 0.75**4]


# -- bad input: clear errors, graph and optimizer unchanged ----------------------------------
def test_aLossWithoutTrainableVariableRaisesValueError(tf: Ops, graph: Graph) -> None:
    tf.withName("w").variable(np.array([1.0], np.float32))
    constant = tf.math.square(tf.constant([3.0]))
    assertRejected(graph, lambda: Adam(graph).minimize(constant), ValueError,
                   "depends on no trainable variable", "'w'")
    v = tf.variable(np.array([2.0], np.float32))
    blocked = tf.math.square(tf.stopGradient(v))
    assertRejected(graph, lambda: GradientDescent(graph).minimize(blocked), ValueError,
                   "depends on no trainable variable")


def test_aGraphWithoutVariablesRaisesValueError(tf: Ops, graph: Graph) -> None:
    loss = tf.math.square(tf.constant(3.0))
    assertRejected(graph, lambda: Momentum(graph).minimize(loss), ValueError,
                   "variables of the graph: none")


def test_anIntegerLossRaisesTypeError(tf: Ops, graph: Graph) -> None:
    v = tf.variable(np.array([2], np.int32))
    loss = tf.math.square(v)
    assert loss.asOutput().dataType() is TInt32
    assertRejected(graph, lambda: Adam(graph).minimize(loss), TypeError, "int32",
                   "floating point loss")
    assertRejected(graph, lambda: Adam(graph).minimize(3.0), TypeError, "operand")


@pytest.mark.parametrize("rate", ["0.1", True, None, [0.1]], ids=repr)
def test_aLearningRateOfTheWrongTypeRaisesTypeError(graph: Graph, rate: Any) -> None:
    assertRejected(graph, lambda: Adam(graph, rate), TypeError, "Adam", "learningRate")


def test_aLearningRateOperandMustBeAFloatScalarOfTheGraph(tf: Ops, graph: Graph) -> None:
    integer, vector = tf.constant(1), tf.constant([0.1, 0.2])
    assertRejected(graph, lambda: GradientDescent(graph, integer), TypeError, "learning rate",
                   "int32")
    assertRejected(graph, lambda: GradientDescent(graph, vector), ValueError, "scalar")
    other = Ops.create(Graph()).constant(0.1)
    assertRejected(graph, lambda: GradientDescent(graph, other), ValueError, "another graph")


@pytest.mark.parametrize(
    ("make", "what"),
    [(lambda g: Momentum(g, momentum="0.9"), "momentum"),
     (lambda g: Momentum(g, useNesterov=1), "useNesterov"),
     (lambda g: Adam(g, betaOne=None), "betaOne"),
     (lambda g: Adam(g, epsilon=True), "epsilon"),
     (lambda g: RMSProp(g, decay="0.9"), "decay"),
     (lambda g: RMSProp(g, centered="yes"), "centered"),
     (lambda g: AdaGrad(g, initialAccumulatorValue=[0.1]), "initialAccumulatorValue")],
    ids=["momentum", "useNesterov", "betaOne", "epsilon", "decay", "centered",
         "initialAccumulatorValue"],
)
def test_aHyperparameterOfTheWrongTypeRaisesTypeError(
    graph: Graph, make: Callable[[Graph], Any], what: str
) -> None:
    assertRejected(graph, lambda: make(graph), TypeError, what)


@pytest.mark.parametrize("make", list(CONFIGS.values()), ids=list(CONFIGS))
def test_aGradientOfTheWrongShapeRaisesValueErrorAndBuildsNothing(
    tf: Ops, graph: Graph, make: Callable[[Graph], Optimizer]
) -> None:
    _, w, b = quadratic(tf, np.float32)
    optimizer = make(graph)
    good = tf.constant(np.ones(2, np.float32))
    bad = tf.constant(np.ones(3, np.float32))
    assertRejected(graph, lambda: optimizer.applyGradients([(good, w), (bad, b)]), ValueError,
                   "pair 1", "'b'", "shape [3]")
    assert optimizer.getSlot(w, "m") is None and optimizer.getSlot(w, "momentum") is None
    if isinstance(optimizer, Adam):
        assert optimizer.getBetaPowers() is None
    # the optimizer still works: nothing half-built stays in it
    optimizer.applyGradients([(good, w)])


def test_aNegativeInitialAccumulatorRaisesValueError(graph: Graph) -> None:
    assertRejected(graph, lambda: AdaGrad(graph, initialAccumulatorValue=-0.1), ValueError,
                   "initialAccumulatorValue must be non-negative")


def test_aGradientOfAnotherDataTypeRaisesTypeError(tf: Ops, graph: Graph) -> None:
    _, w, _ = quadratic(tf, np.float32)
    grad = tf.constant(np.ones(2, np.float64))
    assert grad.asOutput().dataType() is TFloat64
    assertRejected(graph, lambda: Adam(graph).applyGradients([(grad, w)]), TypeError,
                   "float64", "'w'", "float32")


def test_applyGradientsRejectsWhatIsNotAVariableOrAPair(tf: Ops, graph: Graph) -> None:
    _, w, _ = quadratic(tf, np.float32)
    grad = tf.constant(np.ones(2, np.float32))
    gd = GradientDescent(graph)
    assertRejected(graph, lambda: gd.applyGradients([]), ValueError, "no (gradient, variable)")
    read = tf.identity(w)
    assertRejected(graph, lambda: gd.applyGradients([(grad, read)]), ValueError,
                   "Identity", "not a variable")
    assertRejected(graph, lambda: gd.applyGradients([(grad, w), (grad, w)]), ValueError,
                   "'w' appears twice")
    assertRejected(graph, lambda: gd.applyGradients([(grad,)]), TypeError, "pair 0")
    assertRejected(graph, lambda: gd.applyGradients([([1.0, 1.0], w)]), TypeError,
                   "gradient must be an operand")
    ints, ones = tf.variable(np.array([1, 2], np.int32)), tf.constant([1, 1])
    assertRejected(graph, lambda: gd.applyGradients([(ones, ints)]), TypeError,
                   "floating point variables")


def test_anInvalidNameRaisesValueError(tf: Ops, graph: Graph) -> None:
    loss, _, _ = quadratic(tf, np.float32)
    assertRejected(graph, lambda: Adam(graph).minimize(loss, name="a b"), ValueError)
    assertRejected(graph, lambda: Adam(graph, name="-x"), ValueError)


def test_aVariableOfUnknownShapeRaisesValueErrorAndMinimizeBuildsNothing(
    tf: Ops, graph: Graph
) -> None:
    v = Variable.create(tf.withName("v").scope(), Shape.of(-1), TFloat32)
    loss = tf.sum(tf.math.square(v), 0)
    adam = Adam(graph)
    assertRejected(graph, lambda: adam.minimize(loss), ValueError, "'v:0'", "fully known shape")
    assert adam.getSlot(v, "m") is None and adam.getBetaPowers() is None


@backends
def test_variablesOfTwoDataTypesAreUpdatedInTheirOwnType(backend: str) -> None:
    graph = Graph()
    tf = Ops.create(graph)
    w32 = tf.variable(np.array([1.0, -1.0], np.float32))
    w64 = tf.variable(np.array([2.0]))
    loss = tf.sum(tf.math.square(w64), 0) + tf.dtypes.cast(tf.sum(tf.math.square(w32), 0),
                                                            TFloat64)
    adam = Adam(graph, 0.1)
    step = adam.minimize(loss)
    with Session(graph, backend=backend) as session:
        session.initialize()
        session.run(step)
        a, b = fetch(session, w32, w64)
    # Adam's first step moves each element by about the learning rate, against the gradient
    assert (a.dtype, b.dtype) == (np.float32, np.float64)
    np.testing.assert_allclose(a, [0.9, -0.9], rtol=1e-5)
    np.testing.assert_allclose(b, [1.9], rtol=1e-6)
