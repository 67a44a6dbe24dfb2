"""Specification of the update ops of ``tfops.spec.train_more``, as TensorFlow's kernels
(training_ops.cc); each updates its variables and outputs the new value of ``var``:

    ApplyAdagrad           accum += grad^2 (unless updateSlots(False))
                           var -= lr * grad / sqrt(accum)
    ApplyRMSProp           ms += (grad^2 - ms) * (1 - rho)
                           mom = mom * momentum + lr * grad / sqrt(ms + epsilon);  var -= mom
    ApplyCenteredRMSProp   ms += (grad^2 - ms) * (1 - rho);  mg += (grad - mg) * (1 - rho)
                           mom = mom * momentum + lr * grad / sqrt(ms - mg^2 + epsilon); var -= mom

The variables share one floating point type and shape, ``grad`` has their shape, the other
inputs are scalars; checked when the op is created and when it runs. The optimizers built on
these ops are compared with TensorFlow's in ``tests/test_optimizers.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest
from opchecks import assertRejected

from tfops import Graph, Ops, Session, Shape
from tfops.errors import FailedPreconditionError, InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import Variable
from tfops.op.train import ApplyAdagrad, ApplyCenteredRMSProp, ApplyRMSProp
from tfops.types import TFloat16, TFloat32, TFloat64, TInt32, TType

Array = np.ndarray[Any, Any]
State = dict[str, Array]


def adagrad(s: State, lr: Array, grad: Array, update: bool = True) -> State:
    accum = s["accum"] + grad * grad if update else s["accum"]
    return {"var": s["var"] - lr * grad / np.sqrt(accum), "accum": accum}


def rmsProp(s: State, lr: Array, rho: Array, momentum: Array, epsilon: Array,
            grad: Array) -> State:
    ms = s["ms"] + (grad * grad - s["ms"]) * (1 - rho)
    mom = s["mom"] * momentum + lr * grad / np.sqrt(ms + epsilon)
    return {"var": s["var"] - mom, "ms": ms, "mom": mom}


def centeredRmsProp(s: State, lr: Array, rho: Array, momentum: Array, epsilon: Array,
                    grad: Array) -> State:
    ms = s["ms"] + (grad * grad - s["ms"]) * (1 - rho)
    mg = s["mg"] + (grad - s["mg"]) * (1 - rho)
    mom = s["mom"] * momentum + lr * grad / np.sqrt(ms - mg * mg + epsilon)
    return {"var": s["var"] - mom, "mg": mg, "ms": ms, "mom": mom}


class Row(NamedTuple):
    op: str
    cls: Any
    refs: tuple[str, ...]  # the variables, in input order
    scalars: dict[str, float]  # the scalar inputs in order, with a valid value
    reference: Callable[..., State]
    starts: dict[str, tuple[float, float]]  # the range of each variable's random start

    def step(self, tf: Ops, refs: dict[str, Any], grad: Any, *options: Any,
             **scalars: Any) -> Any:
        given = {**self.scalars, **scalars}
        method = getattr(tf.train, self.op[0].lower() + self.op[1:])
        return method(*[refs[n] for n in self.refs], *[given[n] for n in self.scalars], grad,
                      *options)


ROWS = [
    Row("ApplyAdagrad", ApplyAdagrad, ("var", "accum"), {"lr": 0.1}, adagrad,
        {"var": (-2, 2), "accum": (0.1, 1)}),
    Row("ApplyRMSProp", ApplyRMSProp, ("var", "ms", "mom"),
        {"lr": 0.05, "rho": 0.9, "momentum": 0.5, "epsilon": 1e-6}, rmsProp,
        {"var": (-2, 2), "ms": (0.1, 1), "mom": (-0.5, 0.5)}),
    Row("ApplyCenteredRMSProp", ApplyCenteredRMSProp, ("var", "mg", "ms", "mom"),
        {"lr": 0.05, "rho": 0.9, "momentum": 0.5, "epsilon": 1e-6}, centeredRmsProp,
        {"var": (-2, 2), "mg": (-0.1, 0.1), "ms": (0.5, 1), "mom": (-0.5, 0.5)}),
]
rows = pytest.mark.parametrize("row", ROWS, ids=lambda row: row.op)
ADAGRAD = ROWS[0]


def fetch(session: Session, operand: Any) -> Array:
    return np.asarray(session.runner().fetch(operand).run()[0])


def variables(tf: Ops, row: Row, start: Any, named: bool = False) -> dict[str, Any]:
    """Variables of ``row`` initialized to ``start`` (``var``) and ones (the others)."""
    start = np.asarray(start, np.float32)
    return {n: (tf.withName(n) if named else tf).variable(start if n == "var" else 1 + 0 * start)
            for n in row.refs}


# -- construction --------------------------------------------------------------------------
@rows
def test_attributesHaveTensorFlowsDefaultsAndOptions(tf: Ops, row: Row) -> None:
    op = row.step(tf, variables(tf, row, [1.0]), [1.0]).op()
    assert (op.type(), op.attr("T"), op.attr("use_locking")) == (row.op, TFloat32, False)
    locked = row.step(tf, variables(tf, row, [1.0]), [1.0], row.cls.useLocking(True))
    assert locked.op().attr("use_locking") is True
    assert locked.asOutput().shape() == Shape.of(1)


def test_adagradUpdatesSlotsByDefault(tf: Ops) -> None:
    refs = variables(tf, ADAGRAD, [1.0])
    assert ADAGRAD.step(tf, refs, [1.0]).op().attr("update_slots") is True
    off = ADAGRAD.step(tf, refs, [1.0], ApplyAdagrad.updateSlots(False))
    assert off.op().attr("update_slots") is False


@rows
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_outputHasTheVariablesShape(tf: Ops, row: Row, shape: tuple[int, ...]) -> None:
    refs = {n: Variable.create(tf.scope(), Shape.of(*shape), TFloat32) for n in row.refs}
    assert row.step(tf, refs, tf.placeholder(TFloat32)).asOutput().shape() == Shape.of(*shape)


@rows
@pytest.mark.parametrize("name", ["grad", "ref"])
def test_aTensorOfAnotherShapeRaisesValueError(tf: Ops, graph: Graph, row: Row,
                                               name: str) -> None:
    refs = variables(tf, row, [1.0, 2.0])
    grad = tf.constant(np.ones(3 if name == "grad" else 2, np.float32))
    if name == "ref":
        name = row.refs[-1]
        refs[name] = tf.variable(np.zeros(3, np.float32))
    assertRejected(graph, lambda: row.step(tf, refs, grad), ValueError, row.op, f"'{name}'",
                   "shape")


@rows
def test_aNonScalarHyperparameterRaisesValueError(tf: Ops, graph: Graph, row: Row) -> None:
    refs = variables(tf, row, [1.0, 2.0])
    grad, lr = tf.constant([1.0, 1.0]), tf.constant([0.1, 0.1])
    assertRejected(graph, lambda: row.step(tf, refs, grad, lr=lr), ValueError, row.op,
                   "'lr' must be a scalar")


@rows
def test_aNonVariableRefOrIntegerTypeIsRejected(tf: Ops, graph: Graph, row: Row) -> None:
    refs = variables(tf, row, [1.0])
    grad = tf.constant([1.0])
    refs[row.refs[-1]] = tf.constant([1.0])
    assertRejected(graph, lambda: row.step(tf, refs, grad), TypeError, row.op,
                   f"'{row.refs[-1]}' must be a variable")
    ints = {n: Variable.create(tf.scope(), Shape.of(1), TInt32) for n in row.refs}
    one = tf.constant([1])
    scalars = {n: tf.constant(1) for n in row.scalars}
    assertRejected(graph, lambda: row.step(tf, ints, one, **scalars), TypeError, row.op,
                   "int32")


@rows
def test_isNotDifferentiable(row: Row) -> None:
    assert lookupGradient(row.op) == (True, None)


# -- kernel --------------------------------------------------------------------------------
@rows
@pytest.mark.parametrize("dtype", [TFloat16, TFloat32, TFloat64], ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_fiveStepsMatchTensorFlowsFormula(
    graph: Graph, tf: Ops, row: Row, dtype: type[TType], shape: tuple[int, ...], backend: str
) -> None:
    rng = np.random.RandomState(7)
    state = {n: rng.uniform(*row.starts[n], shape).astype(dtype.DTYPE) for n in row.refs}
    refs = {n: tf.variable(value) for n, value in state.items()}
    grad = tf.placeholder(dtype)
    scalars = {n: np.array(x, dtype.DTYPE) for n, x in row.scalars.items()}
    step = row.step(tf, refs, grad, **scalars)
    tol = 8 * float(np.finfo(dtype.DTYPE).eps)
    with Session(graph, backend=backend) as session:
        session.initialize()
        for _ in range(5):
            g = rng.uniform(-1, 1, shape).astype(dtype.DTYPE)
            state = row.reference(state, *scalars.values(), g)
            out = np.asarray(session.runner().feed(grad, g).fetch(step).run()[0])
            assert (out.dtype, out.shape) == (dtype.DTYPE, shape)
            np.testing.assert_allclose(out, state["var"], rtol=tol, atol=tol)
        for n in row.refs:
            np.testing.assert_allclose(fetch(session, refs[n]), state[n], rtol=tol, atol=tol)


@pytest.mark.parametrize("update", [True, False])
def test_adagradExactValues(graph: Graph, tf: Ops, backend: str, update: bool) -> None:
    w, accum = tf.variable(np.array([1.0, 2.0])), tf.variable(np.array([0.0, 12.0]))
    step = tf.train.applyAdagrad(w, accum, np.float64(0.5), np.array([2.0, 2.0]),
                                 updateSlots=update)
    with Session(graph, backend=backend) as session:
        session.initialize()
        if update:  # accum = [4, 16]; var -= 0.5 * 2 / [2, 4]
            np.testing.assert_array_equal(fetch(session, step), [0.5, 1.75])
            np.testing.assert_array_equal(fetch(session, accum), [4.0, 16.0])
        else:  # accum stays [0, 12]: the first element divides by zero, as TensorFlow does
            np.testing.assert_array_equal(fetch(session, step), [-np.inf, 2.0 - 1 / 12**0.5])


def test_rmsPropExactValues(graph: Graph, tf: Ops, backend: str) -> None:
    # ms = 1 + (16 - 1) * 0.2 = 4; mom = 0.5 * 1 + 0.25 * 4 / 2 = 1; var = 3 - 1
    w, ms, mom = (tf.variable(np.array([x])) for x in (3.0, 1.0, 1.0))
    step = tf.train.applyRMSProp(w, ms, mom, *map(np.float64, (0.25, 0.8, 0.5, 0.0)),
                                 np.array([4.0]))
    # mg = 0 + 4 * 0.2 = 0.8, ms = 4, denom = 4 - 0.64 = 3.36
    w2, mg, ms2, mom2 = (tf.variable(np.array([x])) for x in (3.0, 0.0, 1.0, 1.0))
    centered = tf.train.applyCenteredRMSProp(w2, mg, ms2, mom2,
                                             *map(np.float64, (0.25, 0.8, 0.5, 0.0)),
                                             np.array([4.0]))
    with Session(graph, backend=backend) as session:
        session.initialize()
        np.testing.assert_array_equal(fetch(session, step), [2.0])
        np.testing.assert_allclose(fetch(session, centered), [3.0 - 0.5 - 1.0 / 3.36**0.5],
                                   rtol=1e-15)
        np.testing.assert_allclose(fetch(session, mg), [0.8], rtol=1e-15)


# -- run-time errors -----------------------------------------------------------------------
@rows
def test_aGradientFedWithAnotherShapeRaisesAndChangesNothing(
    graph: Graph, tf: Ops, row: Row, backend: str
) -> None:
    refs = variables(tf, row, [1.0, 2.0, 3.0])
    grad = tf.placeholder(TFloat32)
    step = row.step(tf, refs, grad)
    with Session(graph, backend=backend) as session:
        session.initialize()
        with pytest.raises(InvalidArgumentError, match="'grad' has shape"):
            session.runner().feed(grad, np.ones(2, np.float32)).addTarget(step).run()
        for n in row.refs:
            np.testing.assert_array_equal(fetch(session, refs[n]),
                                          [1.0, 2.0, 3.0] if n == "var" else [1.0, 1.0, 1.0])


@rows
def test_anUninitializedSlotRaisesFailedPrecondition(tf: Ops, session: Session,
                                                     row: Row) -> None:
    # the session initializes the others itself; the first slot has no initializer
    slot = row.refs[1]
    refs = {n: Variable.create(tf.withName(n).scope(), Shape.of(1), TFloat32) if n == slot
            else tf.withName(n).variable(np.array([0.5], np.float32)) for n in row.refs}
    step = row.step(tf, refs, [1.0])
    with pytest.raises(FailedPreconditionError, match=f"'{slot}'"):
        session.run(step)
