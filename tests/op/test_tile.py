"""Tile's own behaviour: dimension i repeated multiples[i] times (multiples constant or fed, one
non-negative entry per dimension); the gradient sums the copies."""

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


def sample(dtype: type[TType], shape: tuple[int, ...]) -> Any:
    values = np.arange(int(np.prod(shape))).reshape(shape)
    return values % 3 == 1 if dtype is TBool else values.astype(dtype.DTYPE)


def point(shape: tuple[int, ...]) -> Any:
    return (np.arange(int(np.prod(shape))) * 0.75 - 2.0).reshape(shape)


@pytest.mark.parametrize(("multiples", "indexType"),
                         [([3], TInt32), (np.array([3], np.int64), TInt64)], ids=["int32", "int64"])
def test_multiplesSetTmultiples(tf: Ops, multiples: Any, indexType: type[TType]) -> None:
    t = tf.tile(tf.constant([1, 2]), multiples)
    assert t.op().attr("Tmultiples") is indexType and t.asOutput().shape() == Shape.of(6)


@pytest.mark.parametrize(
    ("shape", "multiples", "expected"),
    [
        (Shape.of(2, 3), (2, 3), Shape.of(4, 9)),
        (Shape.of(2, 3), (1, 1), Shape.of(2, 3)),
        (Shape.of(2, 3), (0, 2), Shape.of(0, 6)),
        (Shape.scalar(), (), Shape.scalar()),
        (Shape.of(-1, 3), (2, 2), Shape.of(-1, 6)),
        (Shape.of(-1, 3), (0, 2), Shape.of(0, 6)),
        (Shape.unknown(), (2, 1, 3), Shape.of(-1, -1, -1)),
        # multiples known at run time (a placeholder of this shape): only the rank is known
        (Shape.of(2, 3), Shape.of(2), Shape.of(-1, -1)),
        (Shape.unknown(), Shape.of(3), Shape.of(-1, -1, -1)),
        (Shape.unknown(), Shape.unknown(), Shape.unknown()),
    ],
    ids=str,
)
def test_staticShape(tf: Ops, shape: Shape, multiples: Any, expected: Shape) -> None:
    m = (placeholder(tf, TInt32, multiples) if isinstance(multiples, Shape)
         else np.array(multiples, np.int32))
    assert tf.tile(placeholder(tf, TFloat32, shape), m).asOutput().shape() == expected


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("shape", "multiples"),
    [((2, 3), (2, 3)), ((3,), (1,)), ((2, 1, 2), (1, 3, 2)), ((), ()), ((2, 3), (0, 2)),
     ((0, 2), (3, 1))],
    ids=str,
)
def test_kernelMatchesNumpy(
    tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...], multiples: tuple[int, ...]
) -> None:
    value = sample(dtype, shape)
    t = tf.tile(tf.constant(value), np.array(multiples, np.int32))
    assert t.asOutput().dataType() is dtype
    np.testing.assert_array_equal(run(t), np.tile(value, multiples), strict=True)


def test_kernelWithMultiplesFedAtRunTime(tf: Ops, run: Any) -> None:
    multiples = tf.placeholder(TInt64)
    t = tf.tile(tf.constant([[1, 2]]), multiples)
    assert run(t, feeds={multiples: np.array([2, 2])}).tolist() == [[1, 2, 1, 2], [1, 2, 1, 2]]


@pytest.mark.parametrize(
    ("shape", "multiples", "declared"),
    [((2, 3), (2, 1), None), ((3,), (3,), None), ((2, 1, 2), (1, 3, 2), None),
     ((2, 2), (0, 1), None), ((2, 3), (2, 2), Shape.of(-1, 3)), ((2, 3), (2, 2), Shape.unknown())],
    ids=str,
)
def test_gradientMatchesFiniteDifferences(
    tf: Ops, shape: tuple[int, ...], multiples: tuple[int, ...], declared: Shape | None
) -> None:
    assertGradient(tf, lambda x: tf.tile(x, np.array(multiples, np.int32)), [point(shape)],
                   None if declared is None else [declared])


def test_gradientWithMultiplesFedAtRunTime(tf: Ops) -> None:
    x = placeholder(tf, TFloat64, (2, 2))
    multiples = tf.placeholder(TInt64)
    t = tf.tile(x, multiples)
    assertGradientsClose(t, [x], {x: point((2, 2))}, feeds={multiples: np.array([3, 2])})
    d = tf.gradients(tf.tile(x, tf.placeholder(TInt32)), [x]).dy(0)
    assert d is not None and d.shape() == Shape.of(2, 2)  # keeps the input's static shape


def test_gradientSumsTheCopies(tf: Ops, run: Any) -> None:
    x = tf.constant(np.zeros((1, 2)))
    seed = Gradients.dx([tf.constant(np.arange(12.0).reshape(2, 6))])
    d = tf.gradients(tf.tile(x, [2, 3]), [x], seed).dy(0)
    assert d is not None and d.shape() == Shape.of(1, 2)
    # column j of x is copied to columns j, j+2, j+4 of both rows
    assert run(d).tolist() == [[0 + 2 + 4 + 6 + 8 + 10.0, 1 + 3 + 5 + 7 + 9 + 11.0]]


@pytest.mark.parametrize(
    ("multiples", "error", "fragment"),
    [
        (np.array([2], np.int32), ValueError, "multiples has 1 entries for a tensor of rank 2"),
        (np.array([1, -1], np.int32), ValueError, "multiples must not be negative, got [1, -1]"),
        ([[2, 1]], ValueError, "multiples must be a vector"),
        ([2.0, 1.0], TypeError, "Tile input 'multiples'"),
    ],
    ids=["tooShort", "negative", "matrix", "float"],
)
def test_badMultiplesAreRejected(
    graph: Graph, tf: Ops, multiples: Any, error: type[Exception], fragment: str
) -> None:
    x = tf.constant(np.zeros((2, 3)))
    assertRejected(graph, lambda: tf.tile(x, multiples), error, "Tile", HERE, fragment)


def test_badMultiplesAtRunTimeRaiseInvalidArgumentError(tf: Ops, run: Any) -> None:
    m = tf.placeholder(TInt32)
    t = tf.tile(tf.constant([1.0]), m)
    for multiples, fragment in [  # in one session: the second run is of the plan made by the first
        ([-2], "multiples must not be negative, got [-2]"),
        ([2, 2], "multiples [2, 2] must have one entry per dimension of shape [1]"),
    ]:
        with pytest.raises(InvalidArgumentError) as info:
            run(t, feeds={m: np.array(multiples, np.int32)})
        assert info.value.op == t.op()
        assert fragment in str(info.value) and f"of type Tile, {HERE}" in str(info.value)
