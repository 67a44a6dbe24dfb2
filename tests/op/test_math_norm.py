"""Specification of ``tfops.op.linalg.EuclideanNorm``: a reduction as Sum's (axes, keepDims),
sqrt(sum(input^2)), compared with TensorFlow 2.21 (``tests/fixtures/tf/math.npz``) and with
numpy, with TensorFlow's gradient input / (norm / grad)."""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.linalg import EuclideanNorm
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Array = np.ndarray[Any, Any]
Run = Callable[..., Any]  # the conftest fixture: fetches in the test's session
FIXTURE = np.load(pathlib.Path(__file__).parents[1] / "fixtures" / "tf" / "math.npz")
CASES = sorted({k.split("/")[1] for k in FIXTURE.files if k.startswith("EuclideanNorm/")})
TYPES = {"float32": TFloat32, "float64": TFloat64, "int32": TInt32}
RTOL = {TFloat16: 1e-3, TFloat32: 1e-6, TFloat64: 1e-13}


def norm(x: Array, axes: tuple[int, ...], keep: bool = False) -> Array:
    """numpy's reference, in float64."""
    result: Array = np.sqrt(np.sum(np.square(x.astype(np.float64)), axis=axes, keepdims=keep))
    return result


# -- construction ------------------------------------------------------------------------------
def test_createReducesTheGivenAxes(tf: Ops, graph: Graph) -> None:
    x = placeholder(tf, TFloat32, (2, 3, 4))
    n = EuclideanNorm.create(tf.scope(), x, tf.constant([0, -1]))
    assert n.output() == n.asOutput() and n.asOutput().name() == "EuclideanNorm:0"
    assert n.asOutput().shape() == Shape.of(3) and n.asOutput().dataType() is TFloat32
    assert n.op().attr("keep_dims") is False and n.op().attr("Tidx") is TInt32
    kept = tf.linalg.euclideanNorm(x, tf.constant(np.array([1], np.int64)), keepDims=True)
    assert kept.asOutput().shape() == Shape.of(2, 1, 4) and kept.op().attr("Tidx") is TInt64


@pytest.mark.parametrize(("static", "axes", "keep", "expected"), [
    (Shape.of(-1, 3), [1], False, Shape.of(-1)),
    (Shape.of(-1, 3), [0], True, Shape.of(1, 3)),
    (Shape.unknown(), [0], False, Shape.unknown()),
    (Shape.of(2, 3), None, False, Shape.unknown()),  # axes known at run time only
    (Shape.of(2, 3), None, True, Shape.of(-1, -1)),
    (Shape.of(2, 3), [], False, Shape.of(2, 3)),
], ids=str)
def test_partiallyKnownShapes(tf: Ops, static: Shape, axes: Any, keep: bool,
                              expected: Shape) -> None:
    x = placeholder(tf, TFloat64, static)
    a = placeholder(tf, TInt32, (1,)) if axes is None else tf.constant(np.array(axes, np.int32))
    assert tf.linalg.euclideanNorm(x, a, keepDims=keep).asOutput().shape() == expected


@pytest.mark.parametrize("dtype", [TBool], ids=lambda t: t.NAME)
def test_rejectsOtherDataTypes(tf: Ops, graph: Graph, dtype: type[TType]) -> None:
    x, axis = tf.placeholder(dtype), tf.constant(0)
    assertRejected(graph, lambda: tf.linalg.euclideanNorm(x, axis), TypeError,
                   "EuclideanNorm", "is not allowed for 'T'", f"created at {__file__}:")


def test_rejectsAnAxisOutOfRange(tf: Ops, graph: Graph) -> None:
    x = placeholder(tf, TFloat32, (2, 3))
    axis = tf.constant(2)
    assertRejected(graph, lambda: tf.linalg.euclideanNorm(x, axis), ValueError,
                   "EuclideanNorm", f"created at {__file__}:")


def test_anAxisOutOfRangeAtRunTimeRaises(tf: Ops, run: Run) -> None:
    x, axis = placeholder(tf, TFloat32, (2, 3)), placeholder(tf, TInt32, ())
    n = tf.linalg.euclideanNorm(x, axis)
    with pytest.raises(InvalidArgumentError) as info:
        run(n, feeds={x: np.ones((2, 3), np.float32), axis: np.array(5, np.int32)})
    assert "'EuclideanNorm'" in str(info.value) and f"created at {__file__}:" in str(info.value)


# -- kernel ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("case", "dtype"), [(c, t) for c in CASES for t in TYPES],
                         ids=lambda v: str(v))
def test_valuesAreTensorFlows(tf: Ops, run: Run, case: str, dtype: str) -> None:
    key = f"EuclideanNorm/{case}/{dtype}/"
    x, axes = FIXTURE[key + "x"], FIXTURE[key + "axes"]
    keep = bool(FIXTURE[key + "keep"])
    p, a = placeholder(tf, TYPES[dtype], x.shape), placeholder(tf, TInt32, axes.shape)
    got = run(tf.linalg.euclideanNorm(p, a, keepDims=keep), feeds={p: x, a: axes})
    expected = FIXTURE[key + "z"]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if dtype == "int32":
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=RTOL[TYPES[dtype]], atol=0)


@pytest.mark.parametrize("dtype", [TFloat16, TFloat32, TFloat64], ids=lambda t: t.NAME)
@pytest.mark.parametrize(("axes", "keep"), [((0,), False), ((1, 2), True), ((), False),
                                            ((0, 1, 2), True)], ids=str)
def test_kernelMatchesNumpy(tf: Ops, run: Run, dtype: type[TType], axes: tuple[int, ...],
                            keep: bool) -> None:
    x = np.random.default_rng(0).normal(size=(3, 4, 5)).astype(dtype.DTYPE)
    got = run(tf.linalg.euclideanNorm(tf.constant(x), tf.constant(np.array(axes, np.int32)),
                                      keepDims=keep))
    assert got.dtype == dtype.DTYPE
    np.testing.assert_allclose(got, norm(x, axes, keep), rtol=RTOL[dtype], atol=0)


def test_integersAreTruncatedSquareRoots(tf: Ops, run: Run) -> None:
    x = np.array([[3, 4, 0], [1, 1, 1], [-5, 12, 0]])
    for dtype in (np.int32, np.int64):
        got = run(tf.linalg.euclideanNorm(tf.constant(x.astype(dtype)), tf.constant(1)))
        assert got.dtype == dtype and got.tolist() == [5, 1, 13]  # sqrt(3) truncated
    x8 = tf.constant(np.array([[3, 4]], np.uint8))
    assert x8.asOutput().dataType() is TUint8
    got = run(tf.linalg.euclideanNorm(x8, tf.constant(1)))
    assert got.dtype == np.uint8 and got.tolist() == [5]


def test_normOfNoElementsIsZeroAndOverflowIsInf(tf: Ops, run: Run) -> None:
    empty = tf.linalg.euclideanNorm(tf.constant(np.zeros((2, 0))), tf.constant(1))
    large = tf.linalg.euclideanNorm(tf.constant(np.array([1e200, 1e200])), tf.constant(0))
    got = run(empty, large)
    assert got[0].tolist() == [0.0, 0.0] and got[1] == np.inf  # no rescaling, as TensorFlow


# -- gradient ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("case"), CASES)
def test_gradientIsTensorFlows(tf: Ops, run: Run, case: str) -> None:
    key = f"EuclideanNorm/{case}/float64/"
    x, axes = FIXTURE[key + "x"], FIXTURE[key + "axes"]
    keep = bool(FIXTURE[key + "keep"])
    p = placeholder(tf, TFloat64, x.shape)
    n = tf.math.mul(tf.linalg.euclideanNorm(p, tf.constant(axes), keepDims=keep), 1.5)
    dx = tf.gradients(n, [p]).dy(0)
    assert dx is not None and dx.shape() == Shape.of(*x.shape)
    expected = FIXTURE[key + "dx"]  # with NaN where the norm is 0 (0 / (0 / g))
    np.testing.assert_allclose(run(dx, feeds={p: x}), expected, rtol=1e-13, equal_nan=True)
    assert np.isnan(expected).any() == (case in ("none", "axis-1keep"))


@pytest.mark.parametrize(("axes", "keep"), [((0,), False), ((1,), True), ((0, 1), False),
                                            ((-1,), True)], ids=str)
@pytest.mark.parametrize("known", [True, False], ids=["static", "unknown"])
def test_gradientMatchesFiniteDifferences(tf: Ops, axes: tuple[int, ...], keep: bool,
                                          known: bool) -> None:
    x = np.random.default_rng(1).uniform(0.5, 2.0, (3, 4)) * [1, -1, 1, -1]
    axis = tf.constant(np.array(axes, np.int32))
    assertGradient(tf, lambda v: tf.linalg.euclideanNorm(v, axis, keepDims=keep), [x],
                   shapes=[Shape.of(3, 4) if known else Shape.unknown()])


def test_gradientWithAxesFedAtRunTime(tf: Ops, run: Run) -> None:
    x, axis = placeholder(tf, TFloat64, (2, 2)), placeholder(tf, TInt32, (1,))
    dx = tf.gradients(tf.linalg.euclideanNorm(x, axis), [x]).dy(0)
    assert dx is not None
    value = np.array([[3.0, 4.0], [6.0, 8.0]])
    got = run(dx, feeds={x: value, axis: np.array([1], np.int32)})
    np.testing.assert_allclose(got, [[0.6, 0.8], [0.6, 0.8]], rtol=1e-15)


def test_secondOrderGradientMatchesFiniteDifferences(tf: Ops) -> None:
    axis = tf.constant(1)

    def first(x: Any) -> Any:
        y = tf.math.square(tf.linalg.euclideanNorm(tf.math.sin(x), axis))
        return tf.gradients(y, [x]).dy(0)

    assertGradient(tf, first, [np.array([[0.3, -0.8, 1.1], [0.5, 0.9, -1.2]])])
