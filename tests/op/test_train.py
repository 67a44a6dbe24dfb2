"""Specification of the training updates of ``tfops.op.train``, as TensorFlow's kernels
(training_ops.cc); each outputs the new value of ``var``:

    ApplyGradientDescent   var -= alpha * delta
    ApplyMomentum          accum = accum * momentum + grad
                           var -= accum * lr                                    (default)
                           var -= grad * lr + accum * momentum * lr             (useNesterov)
    ApplyAdam              lr_t = lr * sqrt(1 - beta2Power) / (1 - beta1Power)
                           m += (grad - m) * (1 - beta1);  v += (grad^2 - v) * (1 - beta2)
                           var -= m * lr_t / (sqrt(v) + epsilon)                (default)
                           var -= (grad * (1 - beta1) + beta1 * m) * lr_t / (sqrt(v) + epsilon)

The variables (``var``, ``accum``, ``m``, ``v``) share one floating point type and shape, the
gradient (``delta``, ``grad``) has their shape, the other inputs are scalars; shapes are checked
when the op is created and when it runs. Each table row is one op: its variables, gradient and
scalars (in the op's input order), a numpy reference and a schedule of scalar values.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest
from opchecks import FLOATS, INTEGERS, assertRejected, placeholder

from tfops import Graph, Ops, Session, Shape
from tfops.errors import FailedPreconditionError, InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import Variable
from tfops.op.train import ApplyAdam, ApplyGradientDescent, ApplyMomentum
from tfops.types import TBool, TFloat32, TType

Array = np.ndarray[Any, Any]
State = dict[str, Array]
SITE = f"created at {__file__}:"


def gradientDescent(s: State, alpha: Array, delta: Array, nesterov: bool) -> State:
    return {"var": s["var"] - alpha * delta}


def momentum(s: State, lr: Array, grad: Array, momentum: Array, nesterov: bool) -> State:
    accum = s["accum"] * momentum + grad
    if nesterov:
        return {"var": s["var"] - (grad * lr + accum * momentum * lr), "accum": accum}
    return {"var": s["var"] - accum * lr, "accum": accum}


def adam(s: State, beta1Power: Array, beta2Power: Array, lr: Array, beta1: Array, beta2: Array,
         epsilon: Array, grad: Array, nesterov: bool) -> State:
    one = np.array(1, s["var"].dtype)
    alpha = lr * np.sqrt(one - beta2Power) / (one - beta1Power)
    m = s["m"] + (grad - s["m"]) * (one - beta1)
    v = s["v"] + (grad * grad - s["v"]) * (one - beta2)
    step = (grad * (one - beta1) + beta1 * m) if nesterov else m
    return {"var": s["var"] - (step * alpha) / (np.sqrt(v) + epsilon), "m": m, "v": v}


class Row(NamedTuple):
    op: str
    cls: Any
    refs: tuple[str, ...]  # the variables, first in the op's inputs
    inputs: tuple[str, ...]  # the other inputs in order: scalars and the gradient
    gradient: str
    defaults: dict[str, float]  # a valid value of each scalar
    reference: Callable[..., State]
    starts: dict[str, tuple[float, float]]  # the range of each variable's random start
    schedule: list[dict[str, float]]  # the scalars of successive steps
    nesterov: bool = True

    def scalars(self) -> list[str]:
        return [name for name in self.inputs if name != self.gradient]

    def step(self, tf: Ops, refs: dict[str, Any], grad: Any, *options: Any,
             **scalars: Any) -> Any:
        given = {**self.defaults, **scalars, self.gradient: grad}
        method = getattr(tf.train, self.op[0].lower() + self.op[1:])
        return method(*[refs[n] for n in self.refs], *[given[n] for n in self.inputs], *options)

    def apply(self, state: State, grad: Array, nesterov: bool, **scalars: Any) -> State:
        given = {**self.defaults, **scalars, self.gradient: grad}
        return self.reference(state, *[given[n] for n in self.inputs], nesterov=nesterov)


ROWS = [
    Row("ApplyGradientDescent", ApplyGradientDescent, ("var",), ("alpha", "delta"), "delta",
        {"alpha": 0.1}, gradientDescent, {"var": (-2, 2)},
        [{"alpha": a} for a in (0.1, 0.05, 0.5, 0.25)], nesterov=False),
    Row("ApplyMomentum", ApplyMomentum, ("var", "accum"), ("lr", "grad", "momentum"), "grad",
        {"lr": 0.1, "momentum": 0.9}, momentum, {"var": (-2, 2), "accum": (-0.5, 0.5)},
        [{"lr": lr, "momentum": m} for lr, m in [(0.1, 0.9), (0.05, 0.5), (0.2, 0.0),
                                                 (0.1, 0.99)]]),
    Row("ApplyAdam", ApplyAdam, ("var", "m", "v"),
        ("beta1Power", "beta2Power", "lr", "beta1", "beta2", "epsilon", "grad"), "grad",
        {"beta1Power": 0.9, "beta2Power": 0.999, "lr": 0.1, "beta1": 0.9, "beta2": 0.999,
         "epsilon": 1e-8},
        adam, {"var": (-2, 2), "m": (-0.5, 0.5), "v": (0.0, 0.5)},
        [{"beta1Power": 0.9**t, "beta2Power": 0.999**t, "lr": 0.01 * (1 + t / 10),
          "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-3} for t in range(1, 6)]),
]
rows = pytest.mark.parametrize("row", ROWS, ids=lambda row: row.op)
GD, MOMENTUM, ADAM = ROWS


def params(rowsOf: Callable[[Row], list[Any]]) -> Any:
    """Parametrizes ``row, which`` over the rows and ``rowsOf(row)`` of each."""
    cases = [(row, which) for row in ROWS for which in rowsOf(row)]
    ids = [f"{r.op}-{'-'.join(map(str, w)) if isinstance(w, tuple) else w}" for r, w in cases]
    return pytest.mark.parametrize(("row", "which"), cases, ids=ids)


def fetch(session: Session, operand: Any) -> Array:
    return np.asarray(session.runner().fetch(operand).run()[0])


def variables(tf: Ops, row: Row, start: Any, named: bool = False) -> dict[str, Any]:
    """Variables of ``row`` initialized to ``start`` (``var``) and zeros (the others)."""
    start = np.asarray(start, np.float32) if not isinstance(start, np.ndarray) else start
    return {n: (tf.withName(n) if named else tf).variable(start if n == "var" else 0 * start)
            for n in row.refs}


def tolerance(dtype: type[TType]) -> float:
    return 4 * float(np.finfo(dtype.DTYPE).eps)


# -- construction --------------------------------------------------------------------------
@rows
def test_attributesHaveTensorFlowsDefaultsAndOptions(tf: Ops, row: Row) -> None:
    op = row.step(tf, variables(tf, row, [1.0]), [1.0]).op()
    assert op.attr("T") is TFloat32
    assert op.attr("use_locking") is False
    assert row.step(tf, variables(tf, row, [1.0]), [1.0], row.cls.useLocking(True)).op().attr(
        "use_locking") is True
    if row.nesterov:
        assert op.attr("use_nesterov") is False
        nesterov = row.step(tf, variables(tf, row, [1.0]), [1.0], row.cls.useNesterov(True))
        assert nesterov.op().attr("use_nesterov") is True


@rows
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: t.NAME)
def test_outputAndPythonScalarsHaveTheVariablesDataType(
    tf: Ops, row: Row, dtype: type[TType]
) -> None:
    step = row.step(tf, variables(tf, row, np.ones(2, dtype.DTYPE)), placeholder(tf, dtype, (2,)))
    assert step.asOutput().dataType() is dtype
    assert all(i.dataType() is dtype for i in step.op().inputs())


@rows
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_outputHasTheVariablesShape(tf: Ops, row: Row, shape: tuple[int, ...]) -> None:
    refs = {n: Variable.create(tf.scope(), Shape.of(*shape), TFloat32) for n in row.refs}
    assert row.step(tf, refs, tf.placeholder(TFloat32)).asOutput().shape() == Shape.of(*shape)


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("row", "nesterov"), [(GD, False), (MOMENTUM, False), (MOMENTUM, True), (ADAM, False),
                          (ADAM, True)],
    ids=["ApplyGradientDescent", "ApplyMomentum", "ApplyMomentum-nesterov", "ApplyAdam",
         "ApplyAdam-nesterov"],
)
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_severalStepsMatchTensorFlowsFormula(
    tf: Ops, session: Session, row: Row, nesterov: bool, dtype: type[TType],
    shape: tuple[int, ...],
) -> None:
    rng = np.random.RandomState(5)
    state = {n: rng.uniform(*row.starts[n], shape).astype(dtype.DTYPE) for n in row.refs}
    refs = {n: tf.variable(value) for n, value in state.items()}
    scalars = {n: placeholder(tf, dtype, ()) for n in row.scalars()}
    grad = placeholder(tf, dtype, shape)
    options = [row.cls.useNesterov(True)] if nesterov else []
    step = row.step(tf, refs, grad, *options, **scalars)
    session.initialize()
    for given in row.schedule:
        values = {n: np.array(x, dtype.DTYPE) for n, x in given.items()}
        g = rng.uniform(-1, 1, shape).astype(dtype.DTYPE)
        state = row.apply(state, g, nesterov, **values)
        runner = session.runner().feed(grad, g).fetch(step)
        for n, x in values.items():
            runner.feed(scalars[n], x)
        out = np.asarray(runner.run()[0])
        assert (out.dtype, out.shape) == (dtype.DTYPE, shape)
        np.testing.assert_allclose(out, state["var"], rtol=tolerance(dtype), atol=tolerance(dtype))
    for n in row.refs:
        got = fetch(session, refs[n])
        assert got.dtype == dtype.DTYPE
        np.testing.assert_allclose(got, state[n], rtol=tolerance(dtype), atol=tolerance(dtype))


@pytest.mark.parametrize(
    ("row", "nesterov", "start", "scalars", "grad", "outputs", "finals"),
    [
        (GD, False, {"var": [1.0, 2.0, -3.0]}, {"alpha": 0.5}, [2.0, -4.0, 1.0],
         [[0.0, 4.0, -3.5], [-1.0, 6.0, -4.0]], {}),
        (GD, False, {"var": [1.5, -2.5]}, {"alpha": 0.0}, [10.0, 10.0], [[1.5, -2.5]], {}),
        # accum = [1, 2], var = [0.5, -2]; then accum = [1.5, 3], var = [-0.25, -3.5]
        (MOMENTUM, False, {"var": [1.0, -1.0], "accum": [0.0, 0.0]},
         {"lr": 0.5, "momentum": 0.5}, [1.0, 2.0], [[0.5, -2.0], [-0.25, -3.5]],
         {"accum": [1.5, 3.0]}),
        # var -= g*lr + accum*m*lr = [0.75, 1.5]; then [0.5 + 0.375, 1 + 0.75]
        (MOMENTUM, True, {"var": [1.0, -1.0], "accum": [0.0, 0.0]},
         {"lr": 0.5, "momentum": 0.5}, [1.0, 2.0], [[0.25, -2.5], [-0.625, -4.25]],
         {"accum": [1.5, 3.0]}),
        # a zero momentum is gradient descent
        (MOMENTUM, False, {"var": [2.0], "accum": [7.0]}, {"lr": 0.25, "momentum": 0.0}, [4.0],
         [[1.0]], {"accum": [4.0]}),
        # lr_t = 0.5 * sqrt(0.25) / 0.5 = 0.5; m = 2 * 0.5 = 1; v = 4 * 0.25 = 1; var -= 0.5
        (ADAM, False, {"var": [1.0], "m": [0.0], "v": [0.0]},
         {"beta1Power": 0.5, "beta2Power": 0.75, "lr": 0.5, "beta1": 0.5, "beta2": 0.75,
          "epsilon": 0.0}, [2.0], [[0.5]], {"m": [1.0], "v": [1.0]}),
        # as above, then var -= (2 * 0.5 + 0.5 * 1) * 0.5 / 1 = 0.75
        (ADAM, True, {"var": [1.0], "m": [0.0], "v": [0.0]},
         {"beta1Power": 0.5, "beta2Power": 0.75, "lr": 0.5, "beta1": 0.5, "beta2": 0.75,
          "epsilon": 0.0}, [2.0], [[0.25]], {}),
    ],
    ids=["ApplyGradientDescent", "ApplyGradientDescent-zeroRate", "ApplyMomentum",
         "ApplyMomentum-nesterov", "ApplyMomentum-zeroMomentum", "ApplyAdam",
         "ApplyAdam-nesterov"],
)
def test_exactValuesInFloat64(
    tf: Ops, session: Session, row: Row, nesterov: bool, start: dict[str, list[float]],
    scalars: dict[str, float], grad: list[float], outputs: list[list[float]],
    finals: dict[str, list[float]],
) -> None:
    refs = {n: tf.variable(np.array(value)) for n, value in start.items()}
    options = [row.cls.useNesterov(True)] if nesterov else []
    step = row.step(tf, refs, np.array(grad), *options,
                    **{n: np.float64(x) for n, x in scalars.items()})
    session.initialize()
    for expected in outputs:
        np.testing.assert_array_equal(fetch(session, step), expected)
    np.testing.assert_array_equal(fetch(session, refs["var"]), outputs[-1])
    for n, expected in finals.items():
        np.testing.assert_array_equal(fetch(session, refs[n]), expected)


def test_adamsFirstStepMovesEachElementByAboutTheLearningRate(
    tf: Ops, session: Session
) -> None:
    refs = variables(tf, ADAM, np.array([1.0, 1.0, 1.0]))
    step = ADAM.step(tf, refs, np.array([1e-3, -5.0, 300.0]),
                     **{n: np.float64(x) for n, x in ADAM.defaults.items()})
    session.initialize()
    np.testing.assert_allclose(fetch(session, step), [0.9, 1.1, 0.9], rtol=1e-4)


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


@rows
def test_eachSessionKeepsItsOwnVariables(tf: Ops, graph: Graph, row: Row, backend: str) -> None:
    refs = variables(tf, row, np.array([1.0]))
    scalars = {n: np.float64(x) for n, x in row.defaults.items()}
    step = row.step(tf, refs, np.array([2.0]), **scalars)
    start = {n: np.array([1.0 if n == "var" else 0.0]) for n in row.refs}
    once = row.apply(start, np.array([2.0]), False, **scalars)
    twice = row.apply(once, np.array([2.0]), False, **scalars)
    with Session(graph, backend=backend) as first, Session(graph, backend=backend) as second:
        first.initialize()
        second.initialize()
        first.run(step)
        first.run(step)
        second.run(step)
        for n in row.refs:
            np.testing.assert_allclose(fetch(first, refs[n]), twice[n], rtol=1e-15)
            np.testing.assert_allclose(fetch(second, refs[n]), once[n], rtol=1e-15)


def test_concurrentGradientDescentStepsAreNotLost(tf: Ops, session: Session) -> None:
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
@params(lambda row: list(row.refs))
def test_uninitializedVariableRaisesFailedPrecondition(
    tf: Ops, session: Session, row: Row, which: str
) -> None:
    # the others initialized by the session itself; ``which`` has no initializer
    refs = {n: Variable.create(tf.withName(n).scope(), Shape.of(1), TFloat32) if n == which
            else tf.withName(n).variable(np.array([0.5], np.float32)) for n in row.refs}
    step = row.step(tf, refs, [1.0])
    with pytest.raises(FailedPreconditionError, match=f"'{which}'"):
        session.run(step)


@rows
@pytest.mark.parametrize("fed", [(1,), (4,), ()], ids=str)
def test_gradientFedWithAnotherShapeRaisesInvalidArgumentError(
    tf: Ops, session: Session, row: Row, fed: tuple[int, ...]
) -> None:
    refs = variables(tf, row, [1.0, 2.0, 3.0])
    grad = tf.placeholder(TFloat32)
    step = row.step(tf, refs, grad)
    session.initialize()
    with pytest.raises(InvalidArgumentError):
        session.runner().feed(grad, np.ones(fed, np.float32)).addTarget(step).run()
    for n in row.refs:
        np.testing.assert_array_equal(fetch(session, refs[n]), [1.0, 2.0, 3.0] if n == "var"
                                      else [0.0, 0.0, 0.0])


@params(Row.scalars)
def test_scalarFedAsAVectorRaisesInvalidArgumentError(
    tf: Ops, session: Session, row: Row, which: str
) -> None:
    refs = variables(tf, row, [1.0, 2.0, 3.0])
    fed = tf.placeholder(TFloat32)
    step = row.step(tf, refs, [1.0, 1.0, 1.0], **{which: fed})
    session.initialize()
    with pytest.raises(InvalidArgumentError):
        session.runner().feed(fed, np.full(3, row.defaults[which], np.float32)).addTarget(
            step).run()
    np.testing.assert_array_equal(fetch(session, refs["var"]), [1.0, 2.0, 3.0])


# -- construction errors -------------------------------------------------------------------
@params(Row.scalars)
def test_nonScalarHyperparameterRaisesValueError(
    tf: Ops, graph: Graph, row: Row, which: str
) -> None:
    refs = variables(tf, row, [1.0, 2.0])
    assertRejected(graph, lambda: row.step(tf, refs, [1.0, 1.0], **{which: [0.5, 0.5]}),
                   ValueError, f"{row.op} '{row.op}' ({SITE}", which)


@params(lambda row: [(n, s) for n in (*row.refs[1:], row.gradient)
                     for s in ([(3,), (1, 2), ()] if n == row.gradient else [(3,)])])
def test_tensorOfAnotherShapeThanTheVariableRaisesValueError(
    tf: Ops, graph: Graph, row: Row, which: tuple[str, tuple[int, ...]]
) -> None:
    name, shape = which
    refs = variables(tf, row, [1.0, 2.0])
    if name != row.gradient:
        refs[name] = tf.variable(np.zeros(shape, np.float32))
    grad = np.ones(shape if name == row.gradient else (2,), np.float32)
    assertRejected(graph, lambda: row.step(tf, refs, grad), ValueError, row.op, f"'{name}'",
                   SITE)


@params(lambda row: [(n, kind) for n in row.refs
                     for kind in ("constant", "placeholder", "identity")])
def test_nonVariableRefRaisesTypeErrorNamingTheOp(
    tf: Ops, graph: Graph, row: Row, which: tuple[str, str]
) -> None:
    name, kind = which
    refs = variables(tf, row, [1.0])
    refs[name] = {"constant": lambda: tf.constant([1.0]),
                  "placeholder": lambda: placeholder(tf, TFloat32, (1,)),
                  "identity": lambda: tf.identity(refs[name])}[kind]()
    assertRejected(graph, lambda: row.step(tf, refs, [1.0]), TypeError, row.op, f"'{name}'",
                   "variable")


@rows
@pytest.mark.parametrize("dtype", [*INTEGERS, TBool], ids=lambda t: t.NAME)
def test_nonFloatingVariablesRaiseTypeError(
    tf: Ops, graph: Graph, row: Row, dtype: type[TType]
) -> None:
    refs = {n: Variable.create(tf.scope(), Shape.of(2), dtype) for n in row.refs}
    scalars = {n: tf.placeholder(dtype) for n in row.scalars()}
    grad = tf.placeholder(dtype)
    assertRejected(graph, lambda: row.step(tf, refs, grad, **scalars), TypeError, row.op,
                   dtype.NAME)


@params(lambda row: [*row.refs[1:], *row.scalars(), f"{row.gradient}-float64",
                     f"{row.gradient}-int32"])
def test_inputOfAnotherDataTypeRaisesTypeError(
    tf: Ops, graph: Graph, row: Row, which: str
) -> None:
    refs = variables(tf, row, [1.0])  # float32
    grad: Any = [1.0]
    scalars = {}
    if which in row.refs:
        refs[which] = tf.variable(np.zeros(1, np.float64))
    elif which in row.defaults:
        scalars[which] = np.float64(row.defaults[which])
    else:
        grad = np.array([1.0]) if which.endswith("float64") else np.array([1], np.int32)
    assertRejected(graph, lambda: row.step(tf, refs, grad, **scalars), TypeError, row.op)


# -- gradient ------------------------------------------------------------------------------
@rows
def test_isNotDifferentiableAndPassesNoGradient(tf: Ops, row: Row) -> None:
    assert lookupGradient(row.op) == (True, None)
    g = placeholder(tf, TFloat32, (1,))
    step = row.step(tf, variables(tf, row, [1.0]), tf.math.square(g))
    assert tf.gradients(tf.math.square(step), [g]).dy(0) is None

