"""Specification of initialization, as TensorFlow Java's ``Session`` and ``Scope.withInitScope``.

A graph's initializers are the ops built through an init scope (``scope.withInitScope()``,
``tf.withInitScope()``), ``tf.variable(init)``'s variable and assign among them. A session runs
those that have not run in it before a run (``autoInit``, the default), each once, also those
added after the session was created; ``Session(graph, autoInit=False)`` raises
``IllegalStateError`` ("un-ran initializers") instead, until ``session.initialize()``. Every
test runs on both backends.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from scope import Scope
from tfops import Graph, Ops, Session, Shape
from tfops.backend import backendNames
from tfops.errors import IllegalStateError, InvalidArgumentError, TfopsError
from tfops.op.core import Assign, Variable
from tfops.types import TFloat32, TInt32


@pytest.fixture(params=backendNames())
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


def fetch(session: Session, operand: Any) -> Any:
    return session.runner().fetch(operand).run()[0]


# -- autoInit ------------------------------------------------------------------------------
def test_sessionRunsTheInitializersBeforeItsFirstRun(tf: Ops, graph: Graph, backend: str) -> None:
    w = tf.variable(tf.constant([1.0, 2.0]))
    b = tf.variable(tf.constant(3))
    with Session(graph, backend=backend) as s:
        np.testing.assert_array_equal(fetch(s, tf.math.mul(w, 2.0)), [2.0, 4.0])
        assert fetch(s, b) == 3


def test_initializersRunOnceNotBeforeEveryRun(tf: Ops, graph: Graph, backend: str) -> None:
    counter = tf.variable(tf.constant(0))
    step = tf.assignAdd(counter, 1)
    with Session(graph, backend=backend) as s:
        for _ in range(3):
            s.run(step)
        s.initialize()  # nothing left to run: the count stays
        assert fetch(s, counter) == 3


def test_initializersAddedAfterTheSessionWasCreatedRunBeforeTheNextRun(
    tf: Ops, graph: Graph, backend: str
) -> None:
    a = tf.variable(tf.constant(1.0))
    with Session(graph, backend=backend) as s:
        s.run(tf.assignAdd(a, 1.0))
        b = tf.variable(tf.math.mul(tf.constant(5.0), 2.0))  # added while the session is open
        assert (fetch(s, a), fetch(s, b)) == (2.0, 10.0)  # a keeps its value, b is initialized


def test_aRandomInitialValueIsDrawnOnce(tf: Ops, graph: Graph, backend: str) -> None:
    w = tf.variable(tf.random.randomUniform([4], TFloat32))
    with Session(graph, backend=backend) as s:
        first = fetch(s, w)
        np.testing.assert_array_equal(fetch(s, w), first)
        assert ((first >= 0) & (first < 1)).all()


def test_concurrentFirstRunsInitializeOnce(tf: Ops, graph: Graph, backend: str) -> None:
    counter = tf.variable(tf.constant(0))
    step = tf.assignAdd(counter, 1)
    with Session(graph, backend=backend) as s:
        threads = [threading.Thread(target=lambda: [s.run(step) for _ in range(10)])
                   for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert fetch(s, counter) == 80  # no increment was undone by a late initialization


def test_aFailingInitializerFailsTheRunAndRunsAgainNextTime(
    tf: Ops, graph: Graph, backend: str
) -> None:
    x = tf.placeholder(TFloat32, shape=Shape.scalar())
    w = tf.variable(tf.math.add(x, 1.0))  # its initial value needs a feed the run lacks
    with Session(graph, backend=backend) as s:
        with pytest.raises(InvalidArgumentError, match="'Placeholder'"):
            fetch(s, w)
        with pytest.raises(InvalidArgumentError, match="'Placeholder'"):
            fetch(s, w)  # not counted as ran


def test_forceInitializeRunsEveryInitializerAgain(tf: Ops, graph: Graph, backend: str) -> None:
    v = tf.variable(tf.constant(1.0))
    with Session(graph, backend=backend) as s:
        s.run(tf.assignAdd(v, 5.0))
        s.forceInitialize()
        assert fetch(s, v) == 1.0


# -- autoInit=False ------------------------------------------------------------------------
def test_withoutAutoInitARunRaisesIllegalStateErrorNamingTheInitializers(
    tf: Ops, graph: Graph, backend: str
) -> None:
    v = tf.withName("weights").variable(tf.constant(1.0))
    c = tf.constant(2.0)
    with Session(graph, backend=backend, autoInit=False) as s:
        with pytest.raises(IllegalStateError, match=r"un-ran initializers \('Assign'\)") as e:
            fetch(s, v)
        assert isinstance(e.value, RuntimeError) and isinstance(e.value, TfopsError)
        assert "session.initialize()" in str(e.value) and "autoInit" in str(e.value)
        with pytest.raises(IllegalStateError, match="un-ran initializers"):
            fetch(s, c)  # as in TF Java: any run, whether it reads a variable or not
        s.initialize()
        assert (fetch(s, v), fetch(s, c)) == (1.0, 2.0)


def test_withoutAutoInitNewInitializersNeedInitializeAgain(
    tf: Ops, graph: Graph, backend: str
) -> None:
    a = tf.variable(tf.constant(1))
    with Session(graph, backend=backend, autoInit=False) as s:
        s.initialize()
        s.run(tf.assignAdd(a, 1))
        b = tf.withName("late").variable(tf.constant(7))
        with pytest.raises(IllegalStateError, match="'Assign_1'"):
            fetch(s, a)
        s.initialize()  # runs only the new one: a keeps its value
        assert (fetch(s, a), fetch(s, b)) == (2, 7)


def test_withoutAutoInitARunThatRunsEveryInitializerItselfIsAllowed(
    tf: Ops, graph: Graph, backend: str
) -> None:
    a = tf.variable(tf.constant([1.0, 2.0]))
    b = tf.variable(tf.constant(3))
    with Session(graph, backend=backend, autoInit=False) as s:
        s.run(tf.init())
        np.testing.assert_array_equal(fetch(s, a), [1.0, 2.0])
        assert fetch(s, b) == 3


def test_withoutAutoInitAGraphWithoutInitializersRuns(
    tf: Ops, graph: Graph, backend: str
) -> None:
    with Session(graph, backend=backend, autoInit=False) as s:
        assert fetch(s, tf.math.add(tf.constant(1), 2)) == 3


# -- the init scope ------------------------------------------------------------------------
def test_opsBuiltInTheInitScopeAreInitializers(tf: Ops, graph: Graph, backend: str) -> None:
    root = graph.baseScope()
    init = root.withInitScope()
    assert init.isInit() and not root.isInit()
    v = Variable.create(init.withName("v"), Shape.of(2), TFloat32)
    value = tf.withInitScope().constant([4.0, 5.0])
    assign = Assign.create(init, v, value)
    other = tf.constant(1.0)
    assert graph.initializers() == [v.op(), value.op(), assign.op()]
    assert graph.isInitializer(assign.op()) and not graph.isInitializer(other.op())
    with Session(graph, backend=backend) as s:
        np.testing.assert_array_equal(fetch(s, v), [4.0, 5.0])


def test_tfVariableBuildsTheVariableAndItsAssignInTheInitScope(tf: Ops, graph: Graph) -> None:
    c = tf.constant([1.0])
    v = tf.withName("w").variable(c)
    assert [op.name() for op in graph.initializers()] == ["w", "Assign"]
    assert not graph.isInitializer(c.op())  # built by the caller, run by the assign
    assert v.op().controlInputs() == ()


def test_theInitScopeHasNoControlDependencies(tf: Ops, graph: Graph) -> None:
    gate = tf.noOp()
    controlled = tf.withControlDependencies([gate])
    built = controlled.withInitScope().constant(1.0)
    assert built.op().controlInputs() == ()
    assert controlled.constant(1.0).op().controlInputs() == (gate.op(),)


def test_theInitScopeAcceptsOnlyInitializersAsControlDependencies(
    tf: Ops, graph: Graph
) -> None:
    init = tf.withInitScope()
    first = init.constant(1.0)
    after = init.withControlDependencies([first]).constant(2.0)
    assert after.op().controlInputs() == (first.op(),)
    with pytest.raises(ValueError, match="'Const_2' is not an initializer.*withInitScope"):
        init.withControlDependencies([tf.constant(3.0)])


def test_initializersAreLeftOutAsControlDependenciesOutsideTheInitScope(
    tf: Ops, graph: Graph, backend: str
) -> None:
    v = tf.variable(tf.constant(1.0))
    (assign,) = [op for op in graph.initializers() if op.type() == "Assign"]
    step = tf.withControlDependencies([assign]).assignAdd(v, 1.0)
    assert step.op().controlInputs() == ()
    # a scope made before the op became an initializer leaves it out too
    gate = tf.noOp()
    scope = tf.withControlDependencies([gate]).scope()
    graph.addInitializer(gate.op())
    assert Ops.create(graph).withControlDependencies([gate]).scope().controlDependencies() == ()
    assert Assign.create(scope, v, 0.0).op().controlInputs() == ()
    with Session(graph, backend=backend) as s:
        s.run(step)
        s.run(step)  # the initial value is not assigned again before each step
        assert fetch(s, v) == 3.0


def test_aFailedConstructionInTheInitScopeRegistersNothing(
    tf: Ops, graph: Graph, backend: str
) -> None:
    v = tf.variable(tf.constant(1.0))
    before = graph.initializers()
    with pytest.raises(ValueError):
        tf.withInitScope().math.add(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError):
        tf.variable(tf.placeholder(TFloat32))  # an initial value of unknown shape
    assert graph.initializers() == before
    with Session(graph, backend=backend, autoInit=False) as s:
        s.initialize()
        assert fetch(s, v) == 1.0


def test_addInitializerRejectsAnOpOfAnotherGraph(tf: Ops) -> None:
    with Graph() as other:
        foreign = Ops.create(other).constant(1.0)
        with pytest.raises(ValueError, match="'Const' is from another graph"):
            tf.scope().env().addInitializer(foreign.op())  # type: ignore[attr-defined]


def test_aScopeOnAnEnvironmentWithoutInitializersLeavesNothingOut() -> None:
    with Graph() as g:
        c = Ops.create(g).constant(1.0)
        assert Scope(g).withControlDependencies([c]).controlDependencies() == (c.op(),)
        assert Scope(g).withInitScope().withControlDependencies([]).isInit()


def test_withInitScopeOnTheFacadeKeepsTheName(tf: Ops, graph: Graph) -> None:
    c = tf.withSubScope("layer").withInitScope().withName("bias").constant(np.int32(0))
    assert c.asOutput().dataType() is TInt32
    assert c.op().name() == "layer/bias" and graph.isInitializer(c.op())


# -- TF Java's LinearRegression example, line for line -------------------------------------
class JavaRandom:
    """``java.util.Random``: the example's data comes from ``new Random(42)``."""

    def __init__(self, seed: int) -> None:
        self.seed = (seed ^ 0x5DEECE66D) & ((1 << 48) - 1)

    def next(self, bits: int) -> int:
        self.seed = (self.seed * 0x5DEECE66D + 0xB) & ((1 << 48) - 1)
        return self.seed >> (48 - bits)

    def nextDouble(self) -> float:
        return ((self.next(26) << 27) + self.next(27)) * 2.0**-53


N = 10
LEARNING_RATE = 0.1
WEIGHT_VARIABLE_NAME = "weight"
BIAS_VARIABLE_NAME = "bias"


def test_linearRegressionExampleNeedsNoInitializeCall(backend: str) -> None:
    """tensorflow/java-models' ``LinearRegressionExample``. ``GradientDescent.minimize`` is
    written out (the gradients, then ``applyGradientDescent`` per variable, grouped); nothing
    else differs, and no initialization is asked for.

    The expected numbers are TensorFlow 2.21's for the same program in graph mode
    (``tf.compat.v1``: the same data, ``tf.Variable(1.0)`` weight and bias,
    ``GradientDescentOptimizer(0.1).minimize(mse)``, one step per observation): weight
    9.91635799407959, bias 2.875901460647583, prediction at 10: 102.03948211669922.
    """
    # Prepare the data
    xValues = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0]
    yValues = [0.0] * N
    rnd = JavaRandom(42)
    for i in range(len(yValues)):
        yValues[i] = float(np.float32(10 * xValues[i] + 2 + 0.1 * (rnd.nextDouble() - 0.5)))

    with Graph() as graph:
        tf = Ops.create(graph)

        # Define placeholders
        xData = tf.placeholder(TFloat32, shape=Shape.scalar())
        yData = tf.placeholder(TFloat32, shape=Shape.scalar())

        # Define variables
        weight = tf.withName(WEIGHT_VARIABLE_NAME).variable(tf.constant(np.float32(1)))
        bias = tf.withName(BIAS_VARIABLE_NAME).variable(tf.constant(np.float32(1)))

        # Define the model function weight*x + bias
        mul = tf.math.mul(xData, weight)
        yPredicted = tf.math.add(mul, bias)

        # Define loss function MSE
        sum = tf.math.pow(tf.math.sub(yPredicted, yData), tf.constant(2.0))
        mse = tf.math.div(sum, tf.constant(2.0 * N))

        # Back-propagate gradients to variables for training (GradientDescent.minimize)
        dWeight, dBias = tf.gradients(mse, [weight, bias]).dy()
        assert dWeight is not None and dBias is not None
        minimize = tf.withControlDependencies([
            tf.train.applyGradientDescent(weight, LEARNING_RATE, dWeight),
            tf.train.applyGradientDescent(bias, LEARNING_RATE, dBias),
        ]).noOp()

        with Session(graph, backend=backend) as session:
            # Train the model on data
            for i in range(len(xValues)):
                y = yValues[i]
                x = xValues[i]
                session.runner().addTarget(minimize).feed(xData, x).feed(yData, y).run()

            # Extract linear regression model weight and bias values
            result = session.runner().fetch(WEIGHT_VARIABLE_NAME).fetch(BIAS_VARIABLE_NAME).run()
            np.testing.assert_allclose(result.get(WEIGHT_VARIABLE_NAME), 9.91635799407959,
                                       rtol=1e-6)
            np.testing.assert_allclose(result.get(BIAS_VARIABLE_NAME), 2.875901460647583,
                                       rtol=1e-6)

            # Let's predict y for x = 10f
            x = 10.0
            predictedY = 0.0
            predictedY = float(session.runner().feed(xData, x).feed(yData, predictedY)
                               .fetch(yPredicted).run().get(0))
            np.testing.assert_allclose(predictedY, 102.03948211669922, rtol=1e-6)
