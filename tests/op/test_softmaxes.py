"""Softmax's and LogSoftmax's own behaviour: exp(logits) / sum(exp(logits)) and its log over the
last axis, computed stably (large logits do not overflow); rows of ``OPS`` are each op with its
float64 reference, its tolerance (rtol, atol) by data type and the map to probabilities."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest
from opchecks import FLOATS, assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.core import Gradients
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

HERE = f"created at {__file__}:"


def logSoftmax(x: Any) -> Any:
    """A numerically stable log-softmax over the last axis, in float64."""
    shifted = x.astype(np.float64) - np.max(x.astype(np.float64), axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def logits(shape: tuple[int, ...], seed: int = 0) -> Any:
    return np.random.default_rng(seed).normal(size=shape) * 2


class Spec(NamedTuple):
    name: str
    op: Callable[[Ops, Any], Any]
    reference: Callable[[Any], Any]  # in float64
    tolerance: dict[type[TType], tuple[float, float]]  # (rtol, atol) by data type
    probabilities: Callable[[Any], Any]  # from the op's output


OPS = [
    Spec("Softmax", lambda tf, x: tf.nn.softmax(x), lambda x: np.exp(logSoftmax(x)),
         {TFloat16: (1e-3, 0.0), TFloat32: (1e-6, 0.0), TFloat64: (1e-14, 0.0)}, lambda y: y),
    # log-probabilities near 0 are compared absolutely: one rounding of the logits' size
    Spec("LogSoftmax", lambda tf, x: tf.nn.logSoftmax(x), logSoftmax,
         {TFloat16: (1e-3, 4e-3), TFloat32: (1e-6, 2e-6), TFloat64: (1e-14, 1e-14)}, np.exp),
]
each = pytest.mark.parametrize("spec", OPS, ids=lambda spec: spec.name)


@pytest.mark.parametrize(
    "shape",
    [Shape.of(3), Shape.of(2, 3), Shape.of(2, 3, 4), Shape.of(0, 3), Shape.of(-1, 3),
     Shape.of(-1, -1), Shape.unknown()],
    ids=str,
)
@each
def test_outputShapeIsTheInputShape(tf: Ops, spec: Spec, shape: Shape) -> None:
    assert spec.op(tf, placeholder(tf, TFloat32, shape)).asOutput().shape() == shape


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(4,), (3, 5), (2, 3, 4), (1, 1)], ids=str)
@each
def test_kernelMatchesNumpy(
    tf: Ops, run: Any, spec: Spec, shape: Any, dtype: type[TType]
) -> None:
    value = logits(shape).astype(dtype.DTYPE)
    y = spec.op(tf, tf.constant(value))
    assert y.asOutput().dataType() is dtype
    result = run(y)
    assert result.dtype == dtype.DTYPE and result.shape == shape
    rtol, atol = spec.tolerance[dtype]
    np.testing.assert_allclose(result, spec.reference(value), rtol=rtol, atol=atol)


@pytest.mark.parametrize(
    ("dtype", "big"), [(TFloat16, 6e4), (TFloat32, 1e30), (TFloat64, 1e300)],
    ids=lambda v: getattr(v, "NAME", str(v)),
)
def test_largeLogitsDoNotOverflow(tf: Ops, run: Any, dtype: type[TType], big: float) -> None:
    value = tf.constant(np.array([[big, big], [big, 0.0], [-big, -big]], dtype.DTYPE))
    p, logp = run(tf.nn.softmax(value), tf.nn.logSoftmax(value))
    assert p.dtype == logp.dtype == dtype.DTYPE
    assert p.tolist() == [[0.5, 0.5], [1.0, 0.0], [0.5, 0.5]]
    log2 = float(np.log(np.array(2.0, dtype.DTYPE)))
    assert logp.tolist() == [[-log2, -log2], [0.0, -float(np.array(big, dtype.DTYPE))],
                             [-log2, -log2]]


@each
def test_largeLogitsMatchTheStableReference(tf: Ops, run: Any, spec: Spec) -> None:
    value = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, -999.0, -1003.0]], np.float32)
    np.testing.assert_allclose(run(spec.op(tf, tf.constant(value))), spec.reference(value),
                               rtol=1e-6, atol=spec.tolerance[TFloat32][1])


def test_extremeLogits(tf: Ops, run: Any) -> None:
    assert run(tf.nn.softmax(tf.constant(np.array([-np.inf, 0.0, 0.0])))).tolist() == [0.0, 0.5,
                                                                                         0.5]
    # exp(-200) underflows float32: log(softmax) would be -inf, log_softmax is exact
    value = tf.constant(np.array([0.0, -200.0], np.float32))
    assert run(tf.nn.logSoftmax(value)).tolist() == [0.0, -200.0]


@each
def test_probabilitiesSumToOneAndIgnoreAShift(tf: Ops, run: Any, spec: Spec) -> None:
    value = logits((5, 7))
    a, b = run(spec.op(tf, tf.constant(value)), spec.op(tf, tf.constant(value + 50.0)))
    np.testing.assert_allclose(np.sum(spec.probabilities(a), axis=-1), np.ones(5), rtol=1e-15)
    np.testing.assert_allclose(spec.probabilities(a), spec.probabilities(b), rtol=1e-12)


@pytest.mark.parametrize("dtype", [TFloat32, TFloat64], ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0,), (2, 0, 4)], ids=str)
@each
def test_kernelOfEmptyTensors(
    tf: Ops, run: Any, spec: Spec, shape: Any, dtype: type[TType]
) -> None:
    result = run(spec.op(tf, tf.constant(np.zeros(shape, dtype.DTYPE))))
    assert result.shape == shape and result.dtype == dtype.DTYPE


def test_softmaxKernelOfAFedUnknownShape(tf: Ops, run: Any) -> None:
    x = tf.placeholder(TFloat64)
    np.testing.assert_allclose(run(tf.nn.softmax(x), feeds={x: np.array([[0.0, np.log(3.0)]])}),
                               [[0.25, 0.75]], rtol=1e-15)


@pytest.mark.parametrize(
    ("shape", "offset", "declared"),
    [((1,), 0.0, None), ((4,), 0.0, None), ((2, 3), 0.0, None), ((2, 3, 4), 0.0, None),
     ((3, 1), 0.0, None), ((2, 3), 0.0, Shape.of(-1, 3)), ((2, 3), 0.0, Shape.unknown()),
     ((2, 3), 1000.0, None), ((2, 3), -1000.0, None)],
    ids=str,
)
@each
def test_gradientMatchesFiniteDifferences(
    tf: Ops, spec: Spec, shape: Any, offset: float, declared: Shape | None
) -> None:
    assertGradient(tf, lambda x: spec.op(tf, x), [logits(shape) + offset],
                   None if declared is None else [declared])


@pytest.mark.parametrize(
    ("spec", "seed", "expected"),
    [(OPS[0], [1.0, 0.0], [0.1875, -0.1875]),  # (g - g.p) * p
     (OPS[1], [1.0, 1.0], [0.5, -0.5])],  # g - sum(g) * p
    ids=["Softmax", "LogSoftmax"],
)
def test_gradientAtProbabilitiesAQuarterAndThreeQuarters(
    tf: Ops, run: Any, spec: Spec, seed: list[float], expected: list[float]
) -> None:
    x = tf.constant(np.array([0.0, np.log(3.0)]))
    dx = tf.gradients(spec.op(tf, x), [x], Gradients.dx([tf.constant(np.array(seed))])).dy(0)
    assert dx is not None
    np.testing.assert_allclose(run(dx), expected, rtol=1e-15)


@each
def test_secondOrderGradientMatchesFiniteDifferences(tf: Ops, spec: Spec) -> None:
    w = tf.constant(logits((2, 3), seed=1))
    assertGradient(tf, lambda x: tf.gradients(tf.sum(tf.math.mul(spec.op(tf, x), w), [0, 1]),
                                              [x]).dy(0), [logits((2, 3))])


@pytest.mark.parametrize(
    ("value", "error", "fragment"),
    [(TInt32, TypeError, "data type int32 is not allowed for 'T'"),
     (TInt64, TypeError, "data type int64 is not allowed for 'T'"),
     (TUint8, TypeError, "data type uint8 is not allowed for 'T'"),
     (TBool, TypeError, "data type bool is not allowed for 'T'"),
     ([1, 2], TypeError, "data type int32 is not allowed for 'T'"),
     (2.0, ValueError, "logits must have 1 or more dimensions, got a scalar")],
    ids=str,
)
@each
def test_badLogitsAreRejected(
    graph: Graph, tf: Ops, spec: Spec, value: Any, error: type[Exception], fragment: str
) -> None:
    x = tf.placeholder(value) if isinstance(value, type) else value
    assertRejected(graph, lambda: spec.op(tf, x), error, f"{spec.name} '{spec.name}' ({HERE}",
                   fragment)


@each
def test_fedScalarRaisesInvalidArgumentError(tf: Ops, run: Any, spec: Spec) -> None:
    x = tf.placeholder(TFloat32)
    y = spec.op(tf, x)
    with pytest.raises(InvalidArgumentError) as info:
        run(y, feeds={x: np.float32(1.0)})
    assert info.value.op == y.op()
    assert "logits must have 1 or more dimensions, got a scalar" in str(info.value)
    assert f"of type {spec.name}, {HERE}" in str(info.value)
