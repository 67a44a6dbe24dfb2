"""L2Loss's own behaviour: sum(t ** 2) / 2, a scalar whatever t's shape (half precision sums in
single precision); its gradient is t times the incoming gradient."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from opchecks import FLOATS, assertGradient, assertGradientsClose, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.op.core import Gradients
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8


def sample(shape: tuple[int, ...]) -> Any:
    return np.random.default_rng(6).normal(size=shape)


@pytest.mark.parametrize(
    "shape",
    [Shape.scalar(), Shape.of(3), Shape.of(2, 3, 4), Shape.of(0, 2), Shape.of(-1, 3),
     Shape.unknown()],
    ids=str,
)
def test_outputIsAScalarWhateverTheInputShape(tf: Ops, shape: Shape) -> None:
    assert tf.nn.l2Loss(placeholder(tf, TFloat32, shape)).asOutput().shape() == Shape.scalar()


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: t.NAME)
def test_kernelIsHalfTheSumOfSquares(tf: Ops, run: Any, dtype: type[TType]) -> None:
    y = tf.nn.l2Loss(tf.constant(np.array([[1.0, -2.0], [3.0, 4.0]], dtype.DTYPE)))
    assert y.asOutput().dataType() is dtype
    np.testing.assert_array_equal(run(y), np.array(15.0, dtype.DTYPE), strict=True)


@pytest.mark.parametrize(
    ("value", "expected", "rtol"),
    [(sample((3, 4, 5)), np.sum(sample((3, 4, 5)) ** 2) / 2, 1e-14), (np.float64(3.0), 4.5, 0),
     (np.zeros(0, np.float32), 0.0, 0), (np.zeros((2, 0), np.float32), 0.0, 0),
     # 300^2 = 90000 overflows float16, half of the sum (45000) does not: it rounds to 44992
     (np.array([300.0], np.float16), 44992.0, 0)],
    ids=["float64", "scalar", "empty", "emptyMatrix", "float16"],
)
def test_kernelMatchesNumpy(tf: Ops, run: Any, value: Any, expected: Any, rtol: float) -> None:
    result = run(tf.nn.l2Loss(tf.constant(value)))
    assert result.dtype == np.asarray(value).dtype and result.shape == ()
    np.testing.assert_allclose(result, expected, rtol=rtol, atol=0)


@pytest.mark.parametrize(("shape", "declared"),
                         [((), None), ((5,), None), ((2, 3), None), ((2, 3, 4), None),
                          ((2, 3), Shape.unknown())], ids=str)
def test_gradientMatchesFiniteDifferences(
    tf: Ops, shape: tuple[int, ...], declared: Shape | None
) -> None:
    assertGradient(tf, lambda t: tf.nn.l2Loss(t), [sample(shape)],
                   None if declared is None else [declared])


def test_gradientIsTheTensorTimesTheIncomingGradient(tf: Ops, run: Any) -> None:
    t = tf.constant(np.array([1.0, -2.0, 3.0]))
    seed = Gradients.dx([tf.constant(np.float64(2.0))])
    dt = tf.gradients(tf.nn.l2Loss(t), [t], seed).dy(0)
    assert dt is not None and dt.shape() == Shape.of(3)
    assert run(dt).tolist() == [2.0, -4.0, 6.0]


def test_secondOrderGradientIsTheIdentity(tf: Ops) -> None:
    t = placeholder(tf, TFloat64, (3,))
    dt = tf.gradients(tf.nn.l2Loss(t), [t]).dy(0)
    assert dt is not None
    check = assertGradientsClose(dt, [t], {t: sample((3,))})
    np.testing.assert_array_equal(check.theoretical[0], np.eye(3))


@pytest.mark.parametrize("t", [TInt32, TInt64, TUint8, TBool, [1, 2]], ids=str)
def test_nonFloatingInputIsRejected(graph: Graph, tf: Ops, t: Any) -> None:
    x = tf.placeholder(t) if isinstance(t, type) else t
    dtype = t.NAME if isinstance(t, type) else "int32"
    assertRejected(graph, lambda: tf.nn.l2Loss(x), TypeError,
                   f"L2Loss 'L2Loss' (created at {__file__}:", f"data type {dtype} is not allowed")
