"""Pad's own behaviour: zeros added before and after each dimension, paddings[i] = [before,
after] (a [rank, 2] matrix of non-negative counts, constant or fed); the gradient is the
incoming gradient where the input sits."""

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
Pairs = list[list[int]]


def paddingsOf(pairs: Pairs) -> Any:
    return np.array(pairs, np.int32).reshape(-1, 2)


def point(shape: tuple[int, ...]) -> Any:
    return (np.arange(int(np.prod(shape))) * 0.75 - 2.0).reshape(shape)


@pytest.mark.parametrize(("paddings", "indexType"),
                         [([[1, 0]], TInt32), (np.array([[1, 0]], np.int64), TInt64)],
                         ids=["int32", "int64"])
def test_paddingsSetTpaddings(tf: Ops, paddings: Any, indexType: type[TType]) -> None:
    p = tf.pad(tf.constant([1.0, 2.0]), paddings)
    assert p.op().attr("Tpaddings") is indexType and p.asOutput().shape() == Shape.of(3)


@pytest.mark.parametrize(
    ("shape", "pairs", "expected"),
    [
        (Shape.of(2, 3), [[1, 2], [0, 1]], Shape.of(5, 4)),
        (Shape.of(2, 3), [[0, 0], [0, 0]], Shape.of(2, 3)),
        (Shape.of(0, 3), [[1, 1], [0, 0]], Shape.of(2, 3)),
        (Shape.scalar(), [], Shape.scalar()),
        (Shape.of(-1, 3), [[1, 1], [2, 0]], Shape.of(-1, 5)),
        (Shape.unknown(), [[1, 1], [2, 0]], Shape.of(-1, -1)),
        # paddings known at run time (a placeholder of this shape): only the rank is known
        (Shape.of(2, 3), Shape.of(2, 2), Shape.of(-1, -1)),
        (Shape.unknown(), Shape.of(3, 2), Shape.of(-1, -1, -1)),
        (Shape.unknown(), Shape.unknown(), Shape.unknown()),
    ],
    ids=str,
)
def test_staticShape(tf: Ops, shape: Shape, pairs: Any, expected: Shape) -> None:
    p = placeholder(tf, TInt32, pairs) if isinstance(pairs, Shape) else paddingsOf(pairs)
    assert tf.pad(placeholder(tf, TFloat32, shape), p).asOutput().shape() == expected


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("shape", "pairs"),
    [((2, 3), [[1, 2], [0, 1]]), ((3,), [[0, 0]]), ((2, 1, 2), [[0, 1], [2, 0], [1, 1]]),
     ((), []), ((0, 2), [[1, 0], [0, 1]])],
    ids=str,
)
def test_kernelMatchesNumpy(
    tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...], pairs: Pairs
) -> None:
    values = np.arange(1, 1 + int(np.prod(shape))).reshape(shape)
    value = values % 3 != 1 if dtype is TBool else values.astype(dtype.DTYPE)
    p = tf.pad(tf.constant(value), paddingsOf(pairs))
    assert p.asOutput().dataType() is dtype
    np.testing.assert_array_equal(run(p), np.pad(value, pairs) if pairs else value, strict=True)


def test_kernelPadsWithZeros(tf: Ops, run: Any) -> None:
    assert run(tf.pad(tf.constant([[7, 8]]), [[1, 0], [1, 1]])).tolist() == [[0, 0, 0, 0],
                                                                             [0, 7, 8, 0]]
    paddings = tf.placeholder(TInt64)  # fed at run time
    p = tf.pad(tf.constant([1.0, 2.0]), paddings)
    assert run(p, feeds={paddings: np.array([[2, 1]])}).tolist() == [0.0, 0.0, 1.0, 2.0, 0.0]


@pytest.mark.parametrize(
    ("shape", "pairs", "declared"),
    [((2, 3), [[1, 2], [0, 1]], None), ((3,), [[0, 0]], None),
     ((2, 1, 2), [[0, 1], [2, 0], [1, 1]], None), ((2, 3), [[1, 0], [2, 1]], Shape.of(-1, 3)),
     ((2, 3), [[1, 0], [2, 1]], Shape.unknown())],
    ids=str,
)
def test_gradientMatchesFiniteDifferences(
    tf: Ops, shape: tuple[int, ...], pairs: Pairs, declared: Shape | None
) -> None:
    assertGradient(tf, lambda x: tf.pad(x, paddingsOf(pairs)), [point(shape)],
                   None if declared is None else [declared])


def test_gradientWithPaddingsFedAtRunTime(tf: Ops) -> None:
    x, paddings = placeholder(tf, TFloat64, (2, 2)), tf.placeholder(TInt32)
    assertGradientsClose(tf.pad(x, paddings), [x], {x: point((2, 2))},
                         feeds={paddings: paddingsOf([[1, 1], [0, 2]])})


def test_gradientIsTheIncomingGradientWhereTheInputSits(tf: Ops, run: Any) -> None:
    x = tf.constant(np.zeros((1, 2)))
    seed = Gradients.dx([tf.constant(np.arange(12.0).reshape(3, 4))])
    d = tf.gradients(tf.pad(x, [[1, 1], [2, 0]]), [x], seed).dy(0)
    assert d is not None and d.shape() == Shape.of(1, 2)
    assert run(d).tolist() == [[6.0, 7.0]]


@pytest.mark.parametrize(
    ("paddings", "error", "fragment"),
    [
        (paddingsOf([[1, 1]]), ValueError, "paddings has 1 rows for a tensor of rank 2"),
        (paddingsOf([[1, 1], [0, -1]]), ValueError,
         "paddings must not be negative, got [[1, 1], [0, -1]]"),
        ([1, 1], ValueError, "paddings must be a matrix of shape [rank, 2], got [2]"),
        ([[1, 1, 1], [1, 1, 1]], ValueError, "must be a matrix of shape [rank, 2], got [2, 3]"),
        ([[1.0, 1.0], [1.0, 1.0]], TypeError, "Pad input 'paddings'"),
    ],
    ids=["rows", "negative", "vector", "columns", "float"],
)
def test_badPaddingsAreRejected(
    graph: Graph, tf: Ops, paddings: Any, error: type[Exception], fragment: str
) -> None:
    x = tf.constant(np.zeros((2, 3)))
    assertRejected(graph, lambda: tf.pad(x, paddings), error, "Pad", HERE, fragment)


def test_badPaddingsAtRunTimeRaiseInvalidArgumentError(tf: Ops, run: Any) -> None:
    paddings = tf.placeholder(TInt32)
    p = tf.pad(tf.constant([1.0]), paddings)
    for pairs, fragment in [  # in one session: the second run is of the plan made by the first
        ([[0, -1]], "paddings must not be negative, got [[0, -1]]"),
        ([[0, 1], [1, 1]], "paddings must have shape [1, 2] for a tensor of shape [1], got [2, 2]"),
    ]:
        with pytest.raises(InvalidArgumentError) as info:
            run(p, feeds={paddings: paddingsOf(pairs)})
        assert info.value.op == p.op()
        assert fragment in str(info.value) and f"of type Pad, {HERE}" in str(info.value)
