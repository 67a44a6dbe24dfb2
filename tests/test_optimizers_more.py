"""Specification of ``tfops.framework.optimizers``' AdaGradDA, AdaDelta, Ftrl, AdaMax, Nadam.

What we compare against (``tests/fixtures/tf/make_optimizers_more.py`` wrote
``optimizers_more.npz`` with TensorFlow 2.21, on the problems of ``test_optimizers.py``: a
2-variable quadratic in float32 and float64, a tiny logistic regression in float32; the loss and
both variables before the first and after each of 5 steps):

- AdaGradDA, AdaDelta, Ftrl: TF1's ``tf.compat.v1.train.AdagradDAOptimizer`` (with an int64
  ``global_step`` variable from 0 passed to ``minimize``), ``AdadeltaOptimizer``,
  ``FtrlOptimizer``, ``minimize(loss)`` in graph mode;
- AdaMax (no TF1 optimizer): TensorFlow's kernel ``ResourceApplyAdaMax`` driven as TensorFlow
  Java's ``Adamax`` drives it (slots from zeros, a float32 ``beta1_power`` variable multiplied
  by ``beta1`` after the updates); the fixture script checks that Keras 3's ``Adamax`` agrees;
- Nadam (no TF1 optimizer; Keras 3's has another schedule): Keras 2's Nadam update written with
  TensorFlow ops, its schedule computed in float32 from a step counter variable read when the
  step runs, as TensorFlow Java's ``Nadam`` computes it.

Each case builds the same problem with tfops, runs 5 steps of the matching optimizer on each
backend and compares the 6 points of the trajectory to float tolerance.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import assertRejected
from test_optimizers import CASES, PROBLEMS, fetch, quadratic

from tfops import Graph, Ops, Session
from tfops.framework.optimizers import AdaDelta, AdaGradDA, AdaMax, Ftrl, Nadam, Optimizer
from tfops.types import TFloat64, TInt32, TInt64

FIXTURE = np.load(Path(__file__).parent / "fixtures" / "tf" / "optimizers_more.npz")
backends = pytest.mark.parametrize("backend", ["numpy", "xla"])

# config name -> the tfops optimizer, with the arguments of make_optimizers_more.py
CONFIGS: dict[str, Callable[[Graph], Optimizer]] = {
    "AdaGradDA": lambda g: AdaGradDA(g, 0.1),
    "AdaGradDA-l1l2": lambda g: AdaGradDA(
        g, 0.2, initialAccumulatorValue=0.5, l1Strength=0.01, l2Strength=0.05
    ),
    # TF1's epsilon is 1e-8 (TF Java's 1e-7): given explicitly
    "AdaDelta": lambda g: AdaDelta(g, 1.0, epsilon=1e-8),
    "AdaDelta-hyper": lambda g: AdaDelta(g, 0.5, rho=0.8, epsilon=1e-4),
    "Ftrl": lambda g: Ftrl(g, 0.1),
    "Ftrl-l1l2": lambda g: Ftrl(
        g,
        0.2,
        learningRatePower=-0.6,
        initialAccumulatorValue=0.3,
        l1RegularizationStrength=0.01,
        l2RegularizationStrength=0.05,
    ),
    "Ftrl-shrinkage": lambda g: Ftrl(
        g,
        0.2,
        l1RegularizationStrength=0.01,
        l2RegularizationStrength=0.02,
        l2ShrinkageRegularizationStrength=0.1,
    ),
    "AdaMax": lambda g: AdaMax(g, 0.1),
    "AdaMax-hyper": lambda g: AdaMax(g, 0.05, betaOne=0.8, betaTwo=0.99, epsilon=1e-3),
    "Nadam": lambda g: Nadam(g, 0.1),
    "Nadam-hyper": lambda g: Nadam(g, 0.05, betaOne=0.8, betaTwo=0.99, epsilon=1e-3),
}
OPTIMIZERS: dict[str, Callable[[Graph], Optimizer]] = {
    "AdaGradDA": AdaGradDA,
    "AdaDelta": AdaDelta,
    "Ftrl": Ftrl,
    "AdaMax": AdaMax,
    "Nadam": Nadam,
}
optimizers = pytest.mark.parametrize("make", list(OPTIMIZERS.values()), ids=list(OPTIMIZERS))


# -- trajectories against TensorFlow --------------------------------------------------------
@backends
@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize(("problem", "dtype"), CASES, ids=["-".join(c) for c in CASES])
def test_fiveStepsEqualTensorFlows(problem: str, dtype: str, config: str, backend: str) -> None:
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
    # the trajectory moves: the comparison is not of 6 copies of the start (AdaGradDA's first
    # step replaces the variables by its dual average, so its loss need not fall)
    trajectory = FIXTURE[f"{key}/w"]
    assert all(not np.array_equal(trajectory[i + 1], trajectory[i]) for i in range(5))


# -- what a step builds ---------------------------------------------------------------------
def test_constructorsHaveTensorFlowJavasDefaults(graph: Graph) -> None:
    assert repr(AdaGradDA(graph)) == (
        "AdaGradDA(learningRate=0.001, initialAccumulatorValue=0.1, l1Strength=0.0, l2Strength=0.0)"
    )
    assert repr(AdaDelta(graph)) == "AdaDelta(learningRate=0.001, rho=0.95, epsilon=1e-07)"
    assert repr(Ftrl(graph)) == (
        "Ftrl(learningRate=0.001, learningRatePower=-0.5, initialAccumulatorValue=0.1, "
        "l1RegularizationStrength=0.0, l2RegularizationStrength=0.0, "
        "l2ShrinkageRegularizationStrength=0.0)"
    )
    assert repr(AdaMax(graph)) == (
        "AdaMax(learningRate=0.001, betaOne=0.9, betaTwo=0.999, epsilon=1e-07)"
    )
    assert repr(Nadam(graph)) == (
        "Nadam(learningRate=0.001, betaOne=0.9, betaTwo=0.999, epsilon=1e-08)"
    )
    assert [make(graph).getOptimizerName() for make in OPTIMIZERS.values()] == [
        "adagrad-da",
        "Adadelta",
        "Ftrl",
        "Adamax",
        "Nadam",
    ]


@pytest.mark.parametrize(
    ("make", "slots", "scalars"),
    [
        (
            lambda g: AdaGradDA(g, initialAccumulatorValue=0.5),
            {"gradient_accumulator": 0.0, "gradient_squared_accumulator": 0.5},
            {"adagrad-da-global-step": 0},
        ),
        (lambda g: AdaDelta(g), {"accum": 0.0, "accum_update": 0.0}, {}),
        (
            lambda g: Ftrl(g, initialAccumulatorValue=0.3),
            {"gradient_accumulator": 0.3, "linear_accumulator": 0.0},
            {},
        ),
        (lambda g: AdaMax(g, betaOne=0.8), {"m": 0.0, "v": 0.0}, {"beta1_power": 0.8}),
        (lambda g: Nadam(g), {"m": 0.0, "v": 0.0}, {"momentum": 1.0, "iterations": 0}),
    ],
    ids=list(OPTIMIZERS),
)
def test_slotsAreNamedAsTensorFlowJavaAndStartAtTheirValuesInTheInitScope(
    tf: Ops,
    graph: Graph,
    session: Session,
    make: Callable[[Graph], Optimizer],
    slots: dict[str, float],
    scalars: dict[str, float],
) -> None:
    loss, w, b = quadratic(tf, np.float64)
    optimizer = make(graph)
    optimizer.minimize(loss)
    initialized = {op.name() for op in graph.initializers()}
    session.initialize()
    for var in (w, b):
        for slot, value in slots.items():
            found = optimizer.getSlot(var, slot)
            assert found is not None and found.op().name() == f"{var.op().name()}-{slot}"
            assert found.op().name() in initialized
            got = fetch(session, found)[0]
            assert got.dtype == np.float64
            np.testing.assert_array_equal(got, np.full(var.asOutput().shape().asArray(), value))
    for name, value in scalars.items():
        assert name in initialized
        got = fetch(session, name)[0]
        assert got.shape == () and got == np.asarray(value, got.dtype)


def test_adaGradDACountsItsStepsAfterTheUpdates(tf: Ops, graph: Graph, session: Session) -> None:
    loss, w, _ = quadratic(tf, np.float32)
    optimizer = AdaGradDA(graph, 0.1)
    step = optimizer.minimize(loss)
    counter = optimizer.getGlobalStep()
    assert counter is not None and counter.asOutput().dataType() is TInt64
    assert counter.op().name() == "adagrad-da-global-step"
    session.initialize()
    for _ in range(3):
        session.run(step)
    assert int(fetch(session, counter)[0]) == 3


@backends
def test_nadamReadsTheStepCountWhenTheStepRuns(backend: str) -> None:
    # two training ops built by one Nadam share its step count: running the first twice, then
    # the second, is three steps (TF Java fixes the count when it builds each op)
    def trajectory(alternate: bool) -> list[Any]:
        graph = Graph()
        tf = Ops.create(graph)
        loss, w, b = quadratic(tf, np.float64)
        nadam = Nadam(graph, 0.1)
        first, second = nadam.minimize(loss), nadam.minimize(loss, name="again")
        with Session(graph, backend=backend) as session:
            session.initialize()
            for step in (first, first, second if alternate else first):
                session.run(step)
            iterations = nadam.getIterations()
            assert iterations is not None
            return [*fetch(session, w, b), int(fetch(session, iterations)[0])]

    same, alternated = trajectory(False), trajectory(True)
    assert same[2] == alternated[2] == 3
    np.testing.assert_array_equal(alternated[0], same[0])
    np.testing.assert_array_equal(alternated[1], same[1])
    np.testing.assert_allclose(same[0], FIXTURE["quadratic/float64/Nadam/w"][3], rtol=1e-12)


def test_ftrlUsesTheShrinkageOpOnlyWithShrinkage(tf: Ops, graph: Graph) -> None:
    loss, _, _ = quadratic(tf, np.float32)
    plain = Ftrl(graph).minimize(loss)
    shrinking = Ftrl(graph, l2ShrinkageRegularizationStrength=0.1).minimize(loss)
    assert {c.type() for c in plain.op().controlInputs()} == {"ApplyFtrl"}
    assert {c.type() for c in shrinking.op().controlInputs()} == {"ApplyFtrlV2"}


# -- bad input: clear errors, graph and optimizer unchanged ----------------------------------
@optimizers
def test_aLossWithoutTrainableVariableRaisesValueError(
    tf: Ops, graph: Graph, make: Callable[[Graph], Optimizer]
) -> None:
    tf.withName("w").variable(np.array([1.0], np.float32))
    constant = tf.math.square(tf.constant([3.0]))
    optimizer = make(graph)
    assertRejected(
        graph,
        lambda: optimizer.minimize(constant),
        ValueError,
        "depends on no trainable variable",
        "'w'",
    )


@optimizers
def test_anIntegerLossRaisesTypeError(
    tf: Ops, graph: Graph, make: Callable[[Graph], Optimizer]
) -> None:
    loss = tf.math.square(tf.variable(np.array([2], np.int32)))
    assert loss.asOutput().dataType() is TInt32
    optimizer = make(graph)
    assertRejected(graph, lambda: optimizer.minimize(loss), TypeError, "int32", "floating point")


@optimizers
@pytest.mark.parametrize("rate", ["0.1", True, None, [0.1]], ids=repr)
def test_aLearningRateOfTheWrongTypeRaisesTypeError(
    graph: Graph, make: Callable[..., Optimizer], rate: Any
) -> None:
    name = type(make(graph)).__name__
    assertRejected(graph, lambda: make(graph, rate), TypeError, name, "learningRate")
    integer = Ops.create(graph).constant(1)
    assertRejected(graph, lambda: make(graph, integer), TypeError, "learning rate", "int32")


@optimizers
def test_aGradientOfTheWrongShapeRaisesValueErrorAndBuildsNothing(
    tf: Ops, graph: Graph, make: Callable[[Graph], Optimizer]
) -> None:
    _, w, b = quadratic(tf, np.float32)
    optimizer = make(graph)
    good = tf.constant(np.ones(2, np.float32))
    bad = tf.constant(np.ones(3, np.float32))
    assertRejected(
        graph,
        lambda: optimizer.applyGradients([(good, w), (bad, b)]),
        ValueError,
        "pair 1",
        "'b'",
        "shape [3]",
    )
    for slot in ("m", "accum", "gradient_accumulator"):
        assert optimizer.getSlot(w, slot) is None
    assert all(
        getattr(optimizer, getter, lambda: None)() is None
        for getter in ("getGlobalStep", "getBetaOnePower", "getMomentum", "getIterations")
    )
    # the optimizer still works: nothing half-built stays in it
    optimizer.applyGradients([(good, w)])


@pytest.mark.parametrize(
    ("make", "error", "what"),
    [
        (lambda g: AdaGradDA(g, initialAccumulatorValue=0.0), ValueError, "greater than zero"),
        (lambda g: AdaGradDA(g, l1Strength=-0.1), ValueError, "l1Strength must not be negative"),
        (lambda g: AdaGradDA(g, l2Strength="0"), TypeError, "l2Strength"),
        (lambda g: AdaDelta(g, rho=None), TypeError, "rho"),
        (lambda g: Ftrl(g, learningRatePower=0.5), ValueError, "learningRatePower must be"),
        (lambda g: Ftrl(g, initialAccumulatorValue=-1.0), ValueError, "initialAccumulatorValue"),
        (
            lambda g: Ftrl(g, l2ShrinkageRegularizationStrength=-0.1),
            ValueError,
            "l2ShrinkageRegularizationStrength must be positive or zero",
        ),
        (lambda g: Ftrl(g, l1RegularizationStrength=True), TypeError, "l1RegularizationStrength"),
        (lambda g: AdaMax(g, betaTwo=[0.9]), TypeError, "betaTwo"),
        (lambda g: Nadam(g, epsilon="tiny"), TypeError, "epsilon"),
    ],
    ids=[
        "AdaGradDA-initial",
        "AdaGradDA-l1",
        "AdaGradDA-l2",
        "AdaDelta-rho",
        "Ftrl-power",
        "Ftrl-initial",
        "Ftrl-shrinkage",
        "Ftrl-l1",
        "AdaMax-betaTwo",
        "Nadam-epsilon",
    ],
)
def test_aBadHyperparameterIsRejected(
    graph: Graph, make: Callable[[Graph], Any], error: type[Exception], what: str
) -> None:
    assertRejected(graph, lambda: make(graph), error, what)


@backends
@optimizers
def test_variablesOfTwoDataTypesAreUpdatedInTheirOwnType(
    backend: str, make: Callable[[Graph], Optimizer]
) -> None:
    graph = Graph()
    tf = Ops.create(graph)
    w32 = tf.variable(np.array([1.0, -1.0], np.float32))
    w64 = tf.variable(np.array([2.0]))
    squares32 = tf.dtypes.cast(tf.sum(tf.math.square(w32), 0), TFloat64)
    step = make(graph).minimize(tf.sum(tf.math.square(w64), 0) + squares32)
    with Session(graph, backend=backend) as session:
        session.initialize()
        session.run(step)
        a, b = fetch(session, w32, w64)
    # every optimizer's first step brings each element closer to the minimum, 0
    assert (a.dtype, b.dtype) == (np.float32, np.float64)
    assert np.all(np.abs(a) < 1) and abs(b[0]) < 2
