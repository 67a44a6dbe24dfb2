"""Concat's own behaviour (TensorFlow's ``ConcatV2``): values of one rank and data type joined
along axis (constant or fed), where alone their sizes may differ; the gradient of each value is
its slice of the incoming gradient."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from opchecks import ALL, assertGradient, assertGradientsClose, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.core import Gradients
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TInt64, TType

HERE = f"created at {__file__}:"


def sample(dtype: type[TType], shape: tuple[int, ...], start: int) -> Any:
    values = np.arange(start, start + int(np.prod(shape))).reshape(shape)
    return values % 3 == 1 if dtype is TBool else values.astype(dtype.DTYPE)


def point(shape: tuple[int, ...], offset: float = 0.0) -> Any:
    return (np.arange(int(np.prod(shape))) * 0.75 - 2.0 + offset).reshape(shape)


@pytest.mark.parametrize(("axis", "indexType"), [(0, TInt32), (np.int64(0), TInt64)],
                         ids=["int32", "int64"])
def test_valuesAndAxisSetNAndTidx(tf: Ops, axis: Any, indexType: type[TType]) -> None:
    c = tf.concat([tf.constant([1.0]), tf.constant([2.0, 3.0])], axis)
    assert c.op().attr("N") == 2 and c.op().attr("Tidx") is indexType
    assert c.op().numInputs() == 3 and c.asOutput().shape() == Shape.of(3)


@pytest.mark.parametrize(
    ("shapes", "axis", "expected"),
    [
        ([Shape.of(2, 3), Shape.of(4, 3)], 0, Shape.of(6, 3)),
        ([Shape.of(2, 3), Shape.of(2, 1), Shape.of(2, 0)], 1, Shape.of(2, 4)),
        ([Shape.of(2, 3), Shape.of(2, 5)], -1, Shape.of(2, 8)),
        ([Shape.of(3)], 0, Shape.of(3)),
        ([Shape.of(-1, 3), Shape.of(2, 3)], 0, Shape.of(-1, 3)),
        ([Shape.of(-1, 3), Shape.of(2, -1)], 1, Shape.of(2, -1)),
        ([Shape.of(-1, 3), Shape.unknown()], 0, Shape.of(-1, 3)),
        ([Shape.of(2, 3), Shape.unknown()], 1, Shape.of(2, -1)),
        ([Shape.unknown(), Shape.unknown()], 0, Shape.unknown()),
        ([Shape.of(2, 3), Shape.of(2, 3)], "fed", Shape.of(-1, -1)),  # only the rank is known
    ],
    ids=str,
)
def test_staticShape(tf: Ops, shapes: list[Shape], axis: Any, expected: Shape) -> None:
    a = tf.placeholder(TInt32) if axis == "fed" else axis
    c = tf.concat([placeholder(tf, TFloat32, s) for s in shapes], a)
    assert c.asOutput().shape() == expected


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("shapes", "axis"),
    [([(2, 3), (1, 3)], 0), ([(2, 1), (2, 3), (2, 2)], 1), ([(2, 1, 2), (2, 2, 2)], -2),
     ([(3,)], 0), ([(0, 2), (3, 2)], 0), ([(2, 0), (2, 0)], 1)],
    ids=str,
)
def test_kernelMatchesNumpy(
    tf: Ops, run: Any, dtype: type[TType], shapes: list[tuple[int, ...]], axis: int
) -> None:
    values = [sample(dtype, s, start=10 * i) for i, s in enumerate(shapes)]
    c = tf.concat([tf.constant(v) for v in values], axis)
    assert c.asOutput().dataType() is dtype
    np.testing.assert_array_equal(run(c), np.concatenate(values, axis=axis), strict=True)


def test_kernelWithAnAxisFedAtRunTime(tf: Ops, run: Any) -> None:
    axis = tf.placeholder(TInt32)
    c = tf.concat([tf.constant([[1, 2]]), tf.constant([[3, 4]])], axis)
    assert run(c, feeds={axis: np.array(0, np.int32)}).tolist() == [[1, 2], [3, 4]]
    assert run(c, feeds={axis: np.array(-1, np.int32)}).tolist() == [[1, 2, 3, 4]]


@pytest.mark.parametrize(
    ("shapes", "axis"),
    [([(2, 3), (1, 3)], 0), ([(2, 1), (2, 2), (2, 1)], 1), ([(1, 2, 2), (1, 1, 2)], -2),
     ([(3,)], 0)],
    ids=str,
)
def test_gradientMatchesFiniteDifferences(
    tf: Ops, shapes: list[tuple[int, ...]], axis: int
) -> None:
    assertGradient(tf, lambda *xs: tf.concat(list(xs), axis),
                   [point(s, offset=i) for i, s in enumerate(shapes)])


@pytest.mark.parametrize("declared", [Shape.of(-1, 2), Shape.unknown()], ids=str)
def test_gradientWithoutAStaticShape(tf: Ops, declared: Shape) -> None:
    assertGradient(tf, lambda x: tf.concat([tf.math.square(x), x, np.ones((1, 2))], 0),
                   [point((2, 2))], [declared])


@pytest.mark.parametrize("axis", [np.int32(1), np.int64(-1)], ids=["int32", "int64"])
def test_gradientWithAnAxisFedAtRunTime(tf: Ops, axis: Any) -> None:
    x = tf.placeholder(TFloat64)
    a = tf.placeholder(TInt32 if axis.dtype == np.int32 else TInt64)
    y = tf.concat([x, tf.math.square(x)], a)
    assertGradientsClose(y, [x], {x: point((2, 3))}, feeds={a: axis})


def test_gradientOfEachValueIsItsSliceOfTheIncomingGradient(tf: Ops, run: Any) -> None:
    a, b = tf.constant(np.zeros((2, 1))), tf.constant(np.zeros((2, 2)))
    seed = Gradients.dx([tf.constant(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))])
    grads = tf.gradients(tf.concat([a, b], 1), [a, b], seed)
    da, db = grads.dy(0), grads.dy(1)
    assert da is not None and db is not None
    assert da.shape() == Shape.of(2, 1) and db.shape() == Shape.of(2, 2)
    assert run(da).tolist() == [[1.0], [4.0]]
    assert run(db).tolist() == [[2.0, 3.0], [5.0, 6.0]]


def test_secondDerivativeMatchesFiniteDifferences(tf: Ops) -> None:
    def firstDerivative(x: Any) -> Any:
        y = tf.concat([tf.math.square(x), x], 0)
        return tf.gradients(tf.sum(tf.math.mul(y, y), 0), [x]).dy(0)

    assertGradient(tf, firstDerivative, [point((3,))])


@pytest.mark.parametrize(
    ("values", "axis", "error", "fragment"),
    [
        ([np.zeros((2, 3)), np.zeros((2, 4))], 0, ValueError,
         "dimension 1 of the values differs"),
        ([np.zeros((2, 3)), np.zeros(3)], 0, ValueError, "all values must have the same rank"),
        ([np.zeros(2), np.zeros(2)], 1, ValueError, "axis 1 is out of range [-1, 1)"),
        ([np.zeros(2), np.zeros(2)], -2, ValueError, "axis -2 is out of range [-1, 1)"),
        ([np.zeros(()), np.zeros(())], 0, ValueError, "cannot concatenate scalars"),
        ([[1.0], [1.0]], [0], ValueError, "axis must be a scalar"),
        ([], 0, ValueError, "input list 'values' must not be empty"),
        ([np.zeros(1, np.float32), np.zeros(1, np.int32)], 0, TypeError,
         "input 'values' has data type int32"),
        ([[1.0], [1.0]], 0.0, TypeError, "data type float32 is not allowed for 'Tidx'"),
    ],
    ids=["sizes", "ranks", "axisTooLarge", "axisTooSmall", "scalars", "vectorAxis", "empty",
         "mixedTypes", "floatAxis"],
)
def test_badArgumentsAreRejected(
    graph: Graph, tf: Ops, values: list[Any], axis: Any, error: type[Exception], fragment: str
) -> None:
    assertRejected(graph, lambda: tf.concat(values, axis), error, f"ConcatV2 'Concat' ({HERE}",
                   fragment)


@pytest.mark.parametrize(
    ("build", "dtype", "fed", "fragment"),
    [(lambda tf, p: tf.concat([p, np.zeros((2, 2), np.float32)], 0), TFloat32,
      np.zeros((2, 3), np.float32), "can only be concatenated if they differ in dimension 0"),
     (lambda tf, p: tf.concat([[1], [2]], p), TInt32, np.array(1, np.int32),
      "axis 1 is out of range [-1, 1)")],
    ids=["sizes", "axis"],
)
def test_badValuesAtRunTimeRaiseInvalidArgumentError(
    tf: Ops, run: Any, build: Any, dtype: type[TType], fed: Any, fragment: str
) -> None:
    p = tf.placeholder(dtype)
    c = build(tf, p)
    with pytest.raises(InvalidArgumentError) as info:
        run(c, feeds={p: fed})
    assert info.value.op == c.op()
    assert fragment in str(info.value) and f"of type ConcatV2, {HERE}" in str(info.value)
