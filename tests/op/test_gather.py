"""Gather's own behaviour (TensorFlow's ``GatherV2``): slices of params at indices along axis
(numpy's ``take``), axis constant or fed, indices checked at run time; the gradient adds each
slice of the incoming gradient back at its index, repeated indices summed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from opchecks import ALL, assertGradient, assertGradientsClose, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.core import Gather, Gradients
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TInt64, TType

HERE = f"created at {__file__}:"


def sample(dtype: type[TType], shape: tuple[int, ...]) -> Any:
    values = np.arange(int(np.prod(shape))).reshape(shape)
    return values % 3 == 1 if dtype is TBool else values.astype(dtype.DTYPE)


def point(shape: tuple[int, ...]) -> Any:
    return (np.arange(int(np.prod(shape))) * 0.75 - 2.0).reshape(shape)


@pytest.mark.parametrize(("indices", "axis", "indexType"),
                         [([1, 1], 0, TInt32), (np.array([2, 0], np.int64), np.int64(0), TInt64)],
                         ids=["int32", "int64"])
def test_indicesAndAxisSetTheIndexTypes(
    tf: Ops, indices: Any, axis: Any, indexType: type[TType]
) -> None:
    g = tf.gather(tf.constant([1, 2, 3]), indices, axis)
    assert g.op().attr("Tindices") is indexType and g.op().attr("Taxis") is indexType
    assert g.op().attr("batch_dims") == 0 and g.asOutput().shape() == Shape.of(2)


@pytest.mark.parametrize(
    ("params", "indices", "axis", "expected"),
    [
        (Shape.of(4, 3), Shape.of(2), 0, Shape.of(2, 3)),
        (Shape.of(4, 3), Shape.of(2, 5), 1, Shape.of(4, 2, 5)),
        (Shape.of(4, 3, 2), Shape.scalar(), -2, Shape.of(4, 2)),
        (Shape.of(4, 3), Shape.of(0), 0, Shape.of(0, 3)),
        (Shape.of(-1, 3), Shape.of(-1), 1, Shape.of(-1, -1)),
        (Shape.of(-1, 3), Shape.of(2), 0, Shape.of(2, 3)),
        (Shape.unknown(), Shape.of(2), 0, Shape.unknown()),
        (Shape.of(4, 3), Shape.unknown(), 0, Shape.unknown()),
        (Shape.of(4, 3), Shape.of(1, 2), "fed", Shape.of(-1, -1, -1)),  # only the rank is known
    ],
    ids=str,
)
def test_staticShape(tf: Ops, params: Shape, indices: Shape, axis: Any, expected: Shape) -> None:
    a = tf.placeholder(TInt32) if axis == "fed" else axis
    g = tf.gather(placeholder(tf, TFloat32, params), placeholder(tf, TInt32, indices), a)
    assert g.asOutput().shape() == expected


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("shape", "indices", "axis"),
    [((4, 3), [3, 0, 0], 0), ((4, 3), [[2, 1], [0, 2]], 1), ((4, 3, 2), 1, -1), ((4,), [], 0),
     ((0, 3), [1], 1), ((4, 3), 2, 0)],
    ids=str,
)
def test_kernelMatchesNumpyTake(
    tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...], indices: Any, axis: int
) -> None:
    value, i = sample(dtype, shape), np.array(indices, np.int32)
    g = tf.gather(tf.constant(value), i, axis)
    assert g.asOutput().dataType() is dtype
    np.testing.assert_array_equal(run(g), np.take(value, i, axis=axis), strict=True)


def test_kernelWithIndicesAndAxisFedAtRunTime(tf: Ops, run: Any) -> None:
    indices, axis = tf.placeholder(TInt64), tf.placeholder(TInt32)
    g = tf.gather(tf.constant([[1, 2], [3, 4]]), indices, axis)
    feeds = {indices: np.array([1, 1, 0]), axis: np.array(-1, np.int32)}
    assert run(g, feeds=feeds).tolist() == [[2, 2, 1], [4, 4, 3]]


@pytest.mark.parametrize(
    ("shape", "indices", "axis", "declared"),
    [((4, 2), [3, 0, 3], 0, None), ((3, 4), [[2, 1], [0, 2]], 1, None), ((2, 3, 2), 1, -1, None),
     ((2, 3), [], 1, None), ((3,), [2, 2, 2], 0, None), ((2, 3), [[2, 0]], -1, Shape.of(-1, 3)),
     ((2, 3), [[2, 0]], -1, Shape.unknown())],
    ids=str,
)
def test_gradientMatchesFiniteDifferences(
    tf: Ops, shape: tuple[int, ...], indices: Any, axis: int, declared: Shape | None
) -> None:
    assertGradient(tf, lambda x: tf.gather(x, np.array(indices, np.int32), axis), [point(shape)],
                   None if declared is None else [declared])


def test_gradientWithAnAxisFedAtRunTime(tf: Ops) -> None:
    x, axis = placeholder(tf, TFloat64, (2, 3)), tf.placeholder(TInt64)
    assertGradientsClose(tf.gather(x, [0, 2, 2], axis), [x], {x: point((2, 3))},
                         feeds={axis: np.array(1)})


def test_gradientSumsTheSlicesOfRepeatedIndices(tf: Ops, run: Any) -> None:
    x = tf.constant(np.zeros((3, 2)))
    seed = Gradients.dx([tf.constant(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))])
    d = tf.gradients(tf.gather(x, [2, 0, 2], 0), [x], seed).dy(0)
    assert d is not None and d.shape() == Shape.of(3, 2)
    assert run(d).tolist() == [[3.0, 4.0], [0.0, 0.0], [6.0, 8.0]]


def test_secondDerivativeMatchesFiniteDifferences(tf: Ops) -> None:
    def firstDerivative(x: Any) -> Any:
        y = tf.gather(tf.math.square(x), [2, 0, 2], 0)
        return tf.gradients(tf.sum(tf.math.mul(y, y), [0, 1]), [x]).dy(0)

    assertGradient(tf, firstDerivative, [point((3, 2))])


@pytest.mark.parametrize(
    ("params", "indices", "axis", "options", "error", "fragment"),
    [
        (np.zeros((2, 3)), [0], 2, [], ValueError, "axis 2 is out of range [-2, 2)"),
        (np.zeros((2, 3)), [0], -3, [], ValueError, "axis -3 is out of range [-2, 2)"),
        (np.zeros((2, 3)), [[0], [1]], 1, [Gather.batchDims(3)], ValueError,
         "batch_dims 3 is out of range [-2, 2]"),
        (1.0, [0], 0, [], ValueError, "params must have at least one dimension"),
        ([1.0], [0], [0], [], ValueError, "axis must be a scalar"),
        ([1.0], [0.0], 0, [], TypeError, "data type float32 is not allowed for 'Tindices'"),
        ([1.0], np.array([0], np.uint8), 0, [], TypeError, "data type uint8 is not allowed"),
    ],
    ids=["axisTooLarge", "axisTooSmall", "batchDims", "scalarParams", "vectorAxis",
         "floatIndices", "uint8Indices"],
)
def test_badArgumentsAreRejected(
    graph: Graph, tf: Ops, params: Any, indices: Any, axis: Any, options: list[Any],
    error: type[Exception], fragment: str,
) -> None:
    assertRejected(graph, lambda: tf.gather(params, indices, axis, *options), error,
                   f"GatherV2 'Gather' ({HERE}", fragment)


def test_withNameNamesTheOpButNotTheConstantsItMakesOfPythonValues(tf: Ops) -> None:
    g = tf.withName("rows").gather(tf.constant([1.0]), [0], 0)
    assert g.op().name() == "rows" and g.op().input(1).op().name() == "Const_1"


@pytest.mark.parametrize("index", [3, -1], ids=str)
def test_indexOutOfRangeAtRunTimeRaisesInvalidArgumentError(
    tf: Ops, run: Any, index: int
) -> None:
    indices = tf.placeholder(TInt32)
    g = tf.gather(tf.constant([1.0, 2.0, 3.0]), indices, 0)
    with pytest.raises(InvalidArgumentError) as info:
        run(g, feeds={indices: np.array([0, index], np.int32)})
    assert info.value.op == g.op()
    assert f"indices[1] = {index} is not in [0, 3)" in str(info.value)
    assert f"of type GatherV2, {HERE}" in str(info.value)
