"""UnsortedSegmentSum's own behaviour: each slice of data added to row segment_ids[i] of a
result with num_segments rows; negative ids drop their slice, ids >= num_segments fail at run
time; the gradient gathers the incoming gradient's row of each segment (zero for dropped ids)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from opchecks import NUMBERS, assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.core import Gradients
from tfops.types import TFloat32, TInt32, TInt64, TType

HERE = f"created at {__file__}:"


def point(shape: tuple[int, ...]) -> Any:
    return (np.arange(int(np.prod(shape))) * 0.75 - 2.0).reshape(shape)


def segmentSums(data: Any, ids: Any, count: int) -> Any:
    """The reference: each slice of ``data`` added to its segment's row, in a Python loop."""
    result = np.zeros((count, *data.shape[ids.ndim:]), data.dtype)
    for position in np.ndindex(*ids.shape):
        if ids[position] >= 0:
            result[ids[position]] += data[position]
    return result


@pytest.mark.parametrize(("ids", "count", "indexType"),
                         [([1, 0], 3, TInt32), (np.array([1, 0], np.int64), np.int64(3), TInt64)],
                         ids=["int32", "int64"])
def test_idsAndCountSetTheIndexTypes(tf: Ops, ids: Any, count: Any, indexType: type[TType]) -> None:
    s = tf.math.unsortedSegmentSum(tf.constant([1.0, 2.0]), ids, count)
    assert s.op().attr("Tindices") is indexType and s.op().attr("Tnumsegments") is indexType
    assert s.asOutput().shape() == Shape.of(3)


@pytest.mark.parametrize(
    ("data", "ids", "count", "expected"),
    [
        (Shape.of(4, 3), Shape.of(4), 5, Shape.of(5, 3)),
        (Shape.of(4, 3), Shape.of(4, 3), 5, Shape.of(5)),
        (Shape.of(2, 3, 2), Shape.of(2), 5, Shape.of(5, 3, 2)),
        (Shape.of(4), Shape.scalar(), 5, Shape.of(5, 4)),
        (Shape.of(-1, 3), Shape.of(4), 5, Shape.of(5, 3)),
        (Shape.of(4, 3), Shape.of(-1), 5, Shape.of(5, 3)),
        (Shape.unknown(), Shape.of(4), 5, Shape.unknown()),
        (Shape.of(4, 3), Shape.unknown(), 5, Shape.unknown()),
        (Shape.of(4, 3), Shape.of(4), "fed", Shape.of(-1, 3)),
    ],
    ids=str,
)
def test_staticShape(tf: Ops, data: Shape, ids: Shape, count: Any, expected: Shape) -> None:
    n = tf.placeholder(TInt32) if count == "fed" else count
    s = tf.math.unsortedSegmentSum(placeholder(tf, TFloat32, data), placeholder(tf, TInt32, ids), n)
    assert s.asOutput().shape() == expected


@pytest.mark.parametrize("dtype", NUMBERS, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("shape", "ids", "count"),
    [((4, 3), [3, 0, 0, 1], 5), ((2, 3), [[2, 2, 0], [1, -1, 2]], 3), ((2, 2), 1, 3),
     ((0, 3), [], 2), ((3,), [0, 1, 2], 3), ((2,), [0, 0], 1),
     ((4,), [0, -1, 0, -5], 2), ((1, 2), [-1], 0)],  # negative ids drop their data
    ids=str,
)
def test_kernelMatchesAPythonLoop(
    tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...], ids: Any, count: int
) -> None:
    data = (np.arange(int(np.prod(shape))).reshape(shape) % 7 + 1).astype(dtype.DTYPE)
    s = tf.math.unsortedSegmentSum(tf.constant(data), np.array(ids, np.int32), count)
    assert s.asOutput().dataType() is dtype
    np.testing.assert_array_equal(run(s), segmentSums(data, np.array(ids), count), strict=True)


def test_kernelWithIdsAndCountFedAtRunTime(tf: Ops, run: Any) -> None:
    ids, count = tf.placeholder(TInt64), tf.placeholder(TInt64)
    s = tf.math.unsortedSegmentSum(tf.constant([1, 2, 3]), ids, count)
    feeds = {ids: np.array([2, 2, 0]), count: np.array(4)}
    assert run(s, feeds=feeds).tolist() == [3, 0, 3, 0]


@pytest.mark.parametrize(
    ("shape", "ids", "count", "declared"),
    [((4, 2), [3, 0, 0, 1], 4, None), ((2, 3), [[2, 2, 0], [1, -1, 2]], 3, None),
     ((3,), [1, -2, 1], 2, None), ((2, 2), 1, 3, None), ((3, 3), [1, -1, 1], 2, Shape.of(-1, 3)),
     ((3, 3), [1, -1, 1], 2, Shape.unknown())],
    ids=str,
)
def test_gradientMatchesFiniteDifferences(
    tf: Ops, shape: tuple[int, ...], ids: Any, count: int, declared: Shape | None
) -> None:
    assertGradient(tf, lambda x: tf.math.unsortedSegmentSum(x, np.array(ids, np.int32), count),
                   [point(shape)], None if declared is None else [declared])


def test_gradientIsTheRowOfEachSegmentAndZeroForDroppedIds(tf: Ops, run: Any) -> None:
    x = tf.constant(np.zeros((4, 2)))
    seed = Gradients.dx([tf.constant(np.array([[1.0, 2.0], [3.0, 4.0]]))])
    d = tf.gradients(tf.math.unsortedSegmentSum(x, [1, -1, 0, 1], 2), [x], seed).dy(0)
    assert d is not None and d.shape() == Shape.of(4, 2)
    assert run(d).tolist() == [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0], [3.0, 4.0]]


def test_secondDerivativeMatchesFiniteDifferences(tf: Ops) -> None:
    def firstDerivative(x: Any) -> Any:
        y = tf.math.unsortedSegmentSum(tf.math.square(x), [1, 0, 1, -1], 2)
        return tf.gradients(tf.sum(tf.math.mul(y, y), 0), [x]).dy(0)

    assertGradient(tf, firstDerivative, [point((4,))])


@pytest.mark.parametrize(
    ("data", "ids", "count", "error", "fragment"),
    [
        (np.zeros((4, 3)), [0, 1, 2], 3, ValueError,
         "the shape of segment_ids [3] must begin the shape of data [4, 3]"),
        (np.zeros(4), [[0], [1]], 3, ValueError, "the shape of segment_ids [2, 1] must begin"),
        ([1.0], [0], -1, ValueError, "num_segments must not be negative, got -1"),
        ([1.0], [0], [1], ValueError, "num_segments must be a scalar"),
        ([True], [0], 1, TypeError, "data type bool is not allowed for 'T'"),
        ([1.0], [0.0], 1, TypeError, "data type float32 is not allowed for 'Tindices'"),
    ],
    ids=["idsLonger", "idsOfHigherRank", "negativeCount", "vectorCount", "boolData",
         "floatIds"],
)
def test_badArgumentsAreRejected(
    graph: Graph, tf: Ops, data: Any, ids: Any, count: Any, error: type[Exception], fragment: str
) -> None:
    assertRejected(graph, lambda: tf.math.unsortedSegmentSum(data, ids, count), error,
                   f"UnsortedSegmentSum 'UnsortedSegmentSum' ({HERE}", fragment)


def test_idOutOfRangeAtRunTimeRaisesInvalidArgumentError(tf: Ops, run: Any) -> None:
    ids = tf.placeholder(TInt32)
    s = tf.math.unsortedSegmentSum(tf.constant([1.0, 2.0]), ids, 2)
    with pytest.raises(InvalidArgumentError) as info:
        run(s, feeds={ids: np.array([0, 2], np.int32)})
    assert info.value.op == s.op()
    assert "segment_ids[1] = 2 is not in [0, 2)" in str(info.value)
    assert f"of type UnsortedSegmentSum, {HERE}" in str(info.value)
