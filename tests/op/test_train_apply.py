"""Specification of the update ops of ``tfops.spec.train_apply``, as TensorFlow's kernels
(training_ops.cc); each updates its variables and outputs the new value of ``var``:

    ApplyAdagradDA                 g += grad; gg += grad^2; t = global_step
                                   var = -lr * sign(g) * max(|g| - l1 t, 0) / (l2 t lr + sqrt(gg))
    ApplyAdadelta                  accum = rho accum + (1 - rho) grad^2
                                   update = sqrt(accum_update + eps) / sqrt(accum + eps) * grad
                                   var -= lr update; accum_update = rho au + (1 - rho) update^2
    ApplyAdaMax                    m += (grad - m)(1 - beta1); v = max(beta2 v, |grad|)
                                   var -= lr / (1 - beta1_power) * m / (v + epsilon)
    ApplyFtrl, ApplyFtrlV2         FTRL-proximal (V2: grad + 2 l2_shrinkage var in linear)
    ApplyProximalGradientDescent   prox = var - alpha delta; var = FOBOS(prox, alpha, l1, l2)
    ApplyProximalAdagrad           accum += grad^2; rate = lr / sqrt(accum); FOBOS with rate
    ApplyPowerSign                 m = beta m + (1 - beta) grad
                                   var -= lr exp(logbase sign_decay sign(grad) sign(m)) grad
    ApplyAddSign                   var -= lr (alpha + sign_decay sign(grad) sign(m)) grad

What we compare against: TensorFlow 2.21's own kernels, ``tf.raw_ops.Apply*`` on reference
variables in a TF1 graph, run for 3 steps from fixed random starts in float32 and float64 by
``tests/fixtures/tf/make_optimizers_ops.py`` (``optimizers_ops.npz``): every variable after
every step must match on each backend. The construction rules (shapes, scalars, variables, the
int64 step) are checked when the op is created.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import assertRejected

from tfops import Graph, Ops, Session, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import Variable
from tfops.op.train import (
    ApplyAdadelta,
    ApplyAdagradDA,
    ApplyAdaMax,
    ApplyAddSign,
    ApplyFtrl,
    ApplyFtrlV2,
    ApplyPowerSign,
    ApplyProximalAdagrad,
    ApplyProximalGradientDescent,
)
from tfops.opdef import lookupOp
from tfops.types import TFloat16, TFloat32, TInt32, TInt64

FIXTURE = np.load(Path(__file__).parents[1] / "fixtures" / "tf" / "optimizers_ops.npz")
CASES = sorted({tuple(key.split("/")[:2]) for key in FIXTURE.files})  # (case, dtype)
CLASSES: dict[str, Any] = {
    c.__name__: c
    for c in (
        ApplyAdagradDA,
        ApplyAdadelta,
        ApplyAdaMax,
        ApplyFtrl,
        ApplyFtrlV2,
        ApplyProximalGradientDescent,
        ApplyProximalAdagrad,
        ApplyPowerSign,
        ApplyAddSign,
    )
}
OPS = sorted(CLASSES)
ops = pytest.mark.parametrize("op", OPS)
GRADIENTS = ("grad", "delta")


def inputs(op: str) -> tuple[list[str], list[str]]:
    """The names of ``op``'s variables and of its other inputs, in order."""
    spec = lookupOp(op)
    assert spec is not None
    return ([i.name for i in spec.inputs if i.isRef], [i.name for i in spec.inputs if not i.isRef])


def build(tf: Ops, op: str, refs: dict[str, Any], grad: Any, *options: Any, **given: Any) -> Any:
    """``op`` on ``refs`` and ``grad``, with valid float32 scalars unless ``given``."""
    _, values = inputs(op)
    args = []
    for name in values:
        if name in given:
            args.append(given[name])
        elif name in GRADIENTS:
            args.append(grad)
        elif name == "global_step":
            args.append(np.int64(1))
        else:
            args.append(np.float32(0.1))
    method = getattr(tf.train, op[0].lower() + op[1:])
    return method(*[refs[n] for n in inputs(op)[0]], *args, *options)


def variables(tf: Ops, op: str, start: Any) -> dict[str, Any]:
    start = np.asarray(start, np.float32)
    return {
        n: tf.withName(n).variable(start if n == "var" else 0.5 + 0 * start) for n in inputs(op)[0]
    }


def fetch(session: Session, operand: Any) -> np.ndarray[Any, Any]:
    return np.asarray(session.runner().fetch(operand).run()[0])


# -- construction --------------------------------------------------------------------------
@ops
def test_attributesHaveTensorFlowsDefaultsAndOptions(tf: Ops, op: str) -> None:
    out = build(tf, op, variables(tf, op, [1.0]), [1.0])
    assert (out.op().type(), out.op().attr("T"), out.op().attr("use_locking")) == (
        op,
        TFloat32,
        False,
    )
    locked = build(tf, op, variables(tf, op, [1.0]), [1.0], CLASSES[op].useLocking(True))
    assert locked.op().attr("use_locking") is True
    assert locked.asOutput().shape() == Shape.of(1)


@pytest.mark.parametrize("op", ["ApplyFtrl", "ApplyFtrlV2"])
def test_ftrlMultipliesLinearByLrOnlyWhenAsked(tf: Ops, op: str) -> None:
    plain = build(tf, op, variables(tf, op, [1.0]), [1.0])
    assert plain.op().attr("multiply_linear_by_lr") is False
    byLr = build(tf, op, variables(tf, op, [1.0]), [1.0], CLASSES[op].multiplyLinearByLr(True))
    assert byLr.op().attr("multiply_linear_by_lr") is True


@ops
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_outputHasTheVariablesShape(tf: Ops, op: str, shape: tuple[int, ...]) -> None:
    refs = {n: Variable.create(tf.scope(), Shape.of(*shape), TFloat32) for n in inputs(op)[0]}
    out = build(tf, op, refs, tf.placeholder(TFloat32))
    assert out.asOutput().shape() == Shape.of(*shape)


@ops
@pytest.mark.parametrize("which", ["grad", "ref"])
def test_aTensorOfAnotherShapeRaisesValueError(tf: Ops, graph: Graph, op: str, which: str) -> None:
    refs = variables(tf, op, [1.0, 2.0])
    grad = tf.constant(np.ones(3 if which == "grad" else 2, np.float32))
    name = next(n for n in inputs(op)[1] if n in GRADIENTS)
    if which == "ref":
        last = inputs(op)[0][-1]
        refs[last] = tf.variable(np.zeros(3, np.float32))
        if last != "var":  # with one variable, the gradient no longer has its shape
            name = last
    assertRejected(graph, lambda: build(tf, op, refs, grad), ValueError, op, f"'{name}'", "shape")


@ops
def test_aNonScalarHyperparameterRaisesValueError(tf: Ops, graph: Graph, op: str) -> None:
    refs = variables(tf, op, [1.0, 2.0])
    first = next(n for n in inputs(op)[1] if n not in GRADIENTS)
    vector, grad = tf.constant([0.1, 0.1]), tf.constant([1.0, 1.0])
    assertRejected(
        graph,
        lambda: build(tf, op, refs, grad, **{first: vector}),
        ValueError,
        op,
        f"'{first}' must be a scalar",
    )


@ops
def test_aNonVariableRefOrIntegerTypeIsRejected(tf: Ops, graph: Graph, op: str) -> None:
    refs = variables(tf, op, [1.0])
    last = inputs(op)[0][-1]
    refs[last], grad = tf.constant([1.0]), tf.constant([1.0])
    assertRejected(
        graph, lambda: build(tf, op, refs, grad), TypeError, op, f"'{last}' must be a variable"
    )
    ints = {n: Variable.create(tf.scope(), Shape.of(1), TInt32) for n in inputs(op)[0]}
    scalars = {
        n: tf.constant(1) for n in inputs(op)[1] if n not in GRADIENTS and n != "global_step"
    }
    one = tf.constant([1])
    assertRejected(graph, lambda: build(tf, op, ints, one, **scalars), TypeError, op, "int32")


def test_adagradDAsStepIsAnInt64Scalar(tf: Ops, graph: Graph) -> None:
    refs = variables(tf, "ApplyAdagradDA", [1.0])
    out = build(tf, "ApplyAdagradDA", refs, [1.0])
    assert out.op().input(7).dataType() is TInt64
    real, vector = tf.constant(np.float32(1.0)), tf.constant(np.array([1, 2], np.int64))
    assertRejected(
        graph,
        lambda: build(tf, "ApplyAdagradDA", refs, [1.0], global_step=real),
        TypeError,
        "global_step",
    )
    assertRejected(
        graph,
        lambda: build(tf, "ApplyAdagradDA", refs, [1.0], global_step=vector),
        ValueError,
        "'global_step' must be a scalar",
    )


@pytest.mark.parametrize(
    "op", ["ApplyAdagradDA", "ApplyProximalGradientDescent", "ApplyProximalAdagrad"]
)
def test_float16IsRejectedWhereTensorFlowHasNoKernel(tf: Ops, graph: Graph, op: str) -> None:
    halves = {n: Variable.create(tf.scope(), Shape.of(1), TFloat16) for n in inputs(op)[0]}
    grad = tf.constant(np.ones(1, np.float16))
    scalars = {
        n: tf.constant(np.float16(0.1))
        for n in inputs(op)[1]
        if n not in GRADIENTS and n != "global_step"
    }
    assertRejected(graph, lambda: build(tf, op, halves, grad, **scalars), TypeError, op, "float16")


@ops
def test_isNotDifferentiable(op: str) -> None:
    assert lookupGradient(op) == (True, None)


# -- kernel against TensorFlow's -----------------------------------------------------------
@pytest.mark.parametrize(("case", "dtype"), CASES, ids=["-".join(c) for c in CASES])
def test_threeStepsEqualTensorFlowsKernel(
    graph: Graph, tf: Ops, case: str, dtype: str, backend: str
) -> None:
    op = case.split("-")[0]
    key = f"{case}/{dtype}"
    refNames, valueNames = inputs(op)
    refs = {n: tf.variable(FIXTURE[f"{key}/start/{n}"]) for n in refNames}
    grad, step = tf.placeholder(refs["var"].asOutput().dataType()), tf.placeholder(TInt64)
    scalars = iter(FIXTURE[f"{key}/scalars"])
    given: dict[str, Any] = {}
    for name in valueNames:
        if name == "global_step":
            given[name] = step
        elif name not in GRADIENTS:
            given[name] = tf.constant(np.asarray(next(scalars), dtype))
    options = [CLASSES[op].multiplyLinearByLr(True)] if bool(FIXTURE[f"{key}/attrs"]) else []
    update = build(tf, op, refs, grad, *options, **given)
    first = int(FIXTURE[f"{key}/scalars"][-1])
    # float16: 2 ulps of the largest value (TensorFlow rounds to float16 after every operation,
    # XLA may keep float32 between fused ones; FTRL's difference of powers shows it)
    scale = max(float(np.max(np.abs(FIXTURE[f"{key}/after/{n}"]))) for n in refNames)
    tol = {
        "float16": dict(rtol=4e-3, atol=2 * float(np.finfo(np.float16).eps) * scale),
        "float32": dict(rtol=4e-6, atol=1e-6),
        "float64": dict(rtol=1e-13, atol=1e-14),
    }[dtype]
    with Session(graph, backend=backend) as session:
        session.initialize()
        for i in range(3):
            runner = session.runner().feed(grad, FIXTURE[f"{key}/grad"][i]).fetch(update)
            if "global_step" in valueNames:
                runner.feed(step, np.int64(first + i))
            out = np.asarray(runner.run()[0])
            assert out.dtype == np.dtype(dtype)
            np.testing.assert_allclose(out, FIXTURE[f"{key}/after/var"][i], **tol)
            for n in refNames:
                np.testing.assert_allclose(
                    fetch(session, refs[n]),
                    FIXTURE[f"{key}/after/{n}"][i],
                    **tol,
                    err_msg=f"{case} {n} after step {i + 1}",
                )
    # the steps move every variable: the comparison is not of copies of the start
    for n in refNames:
        assert not np.array_equal(FIXTURE[f"{key}/after/{n}"][-1], FIXTURE[f"{key}/start/{n}"])


def test_ftrlZeroesTheWeightsWhoseLinearIsWithinL1(graph: Graph, tf: Ops, backend: str) -> None:
    # from var = accum = linear = 0, linear becomes grad: |1| > l1 = 0.5 gives
    # (0.5 * 1 - 1) / (sqrt(1) / 1 + 2 * 0) = -0.5; |0.3| <= 0.5 gives 0
    w, a, lin = (tf.variable(np.zeros(2)) for _ in range(3))
    step = tf.train.applyFtrl(
        w, a, lin, np.array([1.0, 0.3]), *map(np.float64, (1.0, 0.5, 0.0, -0.5))
    )
    with Session(graph, backend=backend) as session:
        session.initialize()
        np.testing.assert_array_equal(fetch(session, step), [-0.5, 0.0])
        np.testing.assert_array_equal(fetch(session, lin), [1.0, 0.3])


# -- run-time errors -----------------------------------------------------------------------
@ops
def test_aGradientFedWithAnotherShapeRaisesAndChangesNothing(
    graph: Graph, tf: Ops, op: str, backend: str
) -> None:
    refs = variables(tf, op, [1.0, 2.0, 3.0])
    grad = tf.placeholder(TFloat32)
    step = build(tf, op, refs, grad)
    with Session(graph, backend=backend) as session:
        session.initialize()
        with pytest.raises(InvalidArgumentError, match="has shape"):
            session.runner().feed(grad, np.ones(2, np.float32)).addTarget(step).run()
        for n in inputs(op)[0]:
            np.testing.assert_array_equal(
                fetch(session, refs[n]), [1.0, 2.0, 3.0] if n == "var" else [0.5, 0.5, 0.5]
            )


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("lr", 0.0, "lr is not a positive scalar: 0.0"),
        ("l1", -0.5, "l1 regularization strength is not a non-negative scalar: -0.5"),
        ("l2", -1.0, "l2 regularization strength is not a non-negative scalar: -1.0"),
    ],
)
def test_proximalAdagradRejectsABadRateOrStrengthWhenItRuns(
    graph: Graph, tf: Ops, backend: str, name: str, value: float, message: str
) -> None:
    refs = variables(tf, "ApplyProximalAdagrad", [1.0])
    bad = tf.placeholder(TFloat32)
    step = build(tf, "ApplyProximalAdagrad", refs, [1.0], **{name: bad})
    with Session(graph, backend=backend) as session:
        session.initialize()
        with pytest.raises(InvalidArgumentError, match=message):
            session.runner().feed(bad, np.float32(value)).addTarget(step).run()
        np.testing.assert_array_equal(fetch(session, refs["var"]), [1.0])
