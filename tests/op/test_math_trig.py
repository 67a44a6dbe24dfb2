"""Specification of ``tfops.op.math.Atan2`` (the unary trigonometric and hyperbolic ops are rows
of ``test_unary.py``; all of them are compared with TensorFlow in ``test_math_tf.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import FLOATS, INTEGERS, assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.math import Atan2
from tfops.types import TBool, TFloat64, TType

Run = Callable[..., Any]  # the conftest fixture: fetches in the test's session
inf, nan, pi = np.inf, np.nan, np.pi
RTOL = {"float16": 1e-3, "float32": 1e-6, "float64": 1e-15}


def test_createNamesItsInputsYThenX(tf: Ops, graph: Graph) -> None:
    y, x = placeholder(tf, TFloat64, (2, 1)), placeholder(tf, TFloat64, (3,))
    z = Atan2.create(tf.scope(), y=y, x=x)
    assert z.op().input(0) == y.asOutput() and z.op().input(1) == x.asOutput()
    assert z.z() == z.asOutput() and z.asOutput().name() == "Atan2:0"
    assert z.asOutput().shape() == Shape.of(2, 3) and z.asOutput().dataType() is TFloat64


@pytest.mark.parametrize("dtype", INTEGERS + (TBool,), ids=lambda t: t.NAME)
def test_rejectsOtherDataTypes(tf: Ops, graph: Graph, dtype: type[TType]) -> None:
    a, b = tf.placeholder(dtype), tf.placeholder(dtype)
    assertRejected(graph, lambda: tf.math.atan2(a, b), TypeError, "Atan2 'Atan2'",
                   "is not allowed for 'T'", f"created at {__file__}:")


def test_rejectsShapesThatDoNotBroadcast(tf: Ops, graph: Graph) -> None:
    a, b = placeholder(tf, TFloat64, (2, 3)), placeholder(tf, TFloat64, (4,))
    assertRejected(graph, lambda: tf.math.atan2(a, b), ValueError, "Atan2 'Atan2'",
                   f"created at {__file__}:")


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: t.NAME)
def test_kernelMatchesNumpyAndBroadcasts(tf: Ops, run: Run, dtype: type[TType]) -> None:
    rng = np.random.default_rng(0)
    y, x = (rng.uniform(-3, 3, shape).astype(dtype.DTYPE) for shape in ((4, 1), (5,)))
    a, b = placeholder(tf, dtype, (-1, 1)), placeholder(tf, dtype, (5,))
    got = run(tf.math.atan2(a, b), feeds={a: y, b: x})
    assert got.dtype == dtype.DTYPE and got.shape == (4, 5)
    expected = np.arctan2(y.astype(np.float64), x.astype(np.float64))
    np.testing.assert_allclose(got, expected, rtol=RTOL[dtype.DTYPE.name], atol=0)


def test_quadrantsFromTheSignsOfZerosAndInfinities(tf: Ops, run: Run) -> None:
    y = np.array([0.0, -0.0, 0.0, -0.0, 0.0, -0.0, 1.0, -1.0, inf, inf, -inf, 1.0, nan, 1.0])
    x = np.array([-1.0, -1.0, 0.0, 0.0, -0.0, -0.0, 0.0, -0.0, inf, -inf, 2.0, -inf, 1.0, nan])
    expected = [pi, -pi, 0.0, -0.0, pi, -pi, pi / 2, -pi / 2, pi / 4, 3 * pi / 4, -pi / 2, pi,
                nan, nan]
    got = run(tf.math.atan2(tf.constant(y), tf.constant(x)))
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))


@pytest.mark.parametrize(("yShape", "xShape"), [((2, 3), (2, 3)), ((2, 3), (3,)), ((), (2, 2)),
                                                ((2, 1), (1, 3))], ids=str)
def test_gradientMatchesFiniteDifferences(
    tf: Ops, yShape: tuple[int, ...], xShape: tuple[int, ...]
) -> None:
    rng = np.random.default_rng(1)
    y, x = rng.uniform(-2, 2, yShape), rng.uniform(0.5, 2, xShape) * rng.choice([-1, 1], xShape)
    assertGradient(tf, tf.math.atan2, [y, x])


@pytest.mark.parametrize("which", [0, 1])
def test_secondOrderGradientMatchesFiniteDifferences(tf: Ops, which: int) -> None:
    def first(y: Any, x: Any) -> Any:
        return tf.gradients(tf.math.square(tf.math.atan2(y, x)), [y, x]).dy(which)

    assertGradient(tf, first, [np.array([0.5, -1.5, 2.0]), np.array([1.0, 0.7, -1.2])])


def test_gradientIsXAndMinusYOverTheSquaredRadius(tf: Ops, run: Run) -> None:
    y, x = placeholder(tf, TFloat64, (2,)), placeholder(tf, TFloat64, (2,))
    dy, dx = tf.gradients(tf.math.atan2(y, x), [y, x])
    assert dy is not None and dx is not None
    got = run(dy, dx, feeds={y: np.array([3.0, 0.0]), x: np.array([4.0, -2.0])})
    np.testing.assert_allclose(got, [[4 / 25, -0.5], [-3 / 25, -0.0]], rtol=1e-15)
    assert lookupGradient("Atan2")[1] is not None
