"""Transpose's own behaviour: the output's dimension i is the input's dimension perm[i]; perm
is a permutation of the dimensions, constant or fed, and the gradient transposes back by the
inverse permutation."""

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


@pytest.mark.parametrize(("perm", "permType"), [([1, 0], TInt32),
                                               (np.array([1, 0], np.int64), TInt64)], ids=str)
def test_permSetsTperm(tf: Ops, perm: Any, permType: type[TType]) -> None:
    t = tf.linalg.transpose(tf.constant([[1, 2, 3]]), perm)
    assert t.op().attr("Tperm") is permType and t.asOutput().shape() == Shape.of(3, 1)


@pytest.mark.parametrize(
    ("shape", "perm", "expected"),
    [
        (Shape.of(2, 3), (1, 0), Shape.of(3, 2)),
        (Shape.of(2, 3, 4), (2, 0, 1), Shape.of(4, 2, 3)),
        (Shape.of(2, 3, 4), (0, 1, 2), Shape.of(2, 3, 4)),
        (Shape.scalar(), (), Shape.scalar()),
        (Shape.of(0, 5), (1, 0), Shape.of(5, 0)),
        (Shape.of(-1, 3), (1, 0), Shape.of(3, -1)),
        (Shape.unknown(), (1, 2, 0), Shape.of(-1, -1, -1)),
        # a perm known at run time (a placeholder of this shape): only the rank is known
        (Shape.of(2, 3), Shape.of(2), Shape.of(-1, -1)),
        (Shape.unknown(), Shape.of(3), Shape.of(-1, -1, -1)),
        (Shape.unknown(), Shape.unknown(), Shape.unknown()),
    ],
    ids=str,
)
def test_staticShape(tf: Ops, shape: Shape, perm: Any, expected: Shape) -> None:
    p = placeholder(tf, TInt32, perm) if isinstance(perm, Shape) else np.array(perm, np.int32)
    assert tf.linalg.transpose(placeholder(tf, TFloat32, shape), p).asOutput().shape() == expected


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("shape", "perm"),
    [((2, 3), (1, 0)), ((2, 3, 4), (1, 2, 0)), ((2, 3, 4), (2, 1, 0)), ((), ()), ((0, 3), (1, 0)),
     ((5,), (0,))],
    ids=str,
)
def test_kernelMatchesNumpy(
    tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...], perm: tuple[int, ...]
) -> None:
    value = sample(dtype, shape)
    t = tf.linalg.transpose(tf.constant(value), np.array(perm, np.int32))
    assert t.asOutput().dataType() is dtype
    np.testing.assert_array_equal(run(t), np.transpose(value, perm), strict=True)


def test_kernelWithAPermFedAtRunTime(tf: Ops, run: Any) -> None:
    p = tf.placeholder(TInt64)
    t = tf.linalg.transpose(tf.constant([[1, 2, 3], [4, 5, 6]]), p)
    assert run(t, feeds={p: np.array([1, 0])}).tolist() == [[1, 4], [2, 5], [3, 6]]
    assert run(t, feeds={p: np.array([0, 1])}).tolist() == [[1, 2, 3], [4, 5, 6]]


@pytest.mark.parametrize(
    ("shape", "perm", "declared"),
    [((2, 3), (1, 0), "static"), ((2, 3, 2), (2, 0, 1), "static"), ((2, 1, 3), (1, 2, 0), "static"),
     ((3,), (0,), "static"), ((2, 3, 2), (1, 2, 0), Shape.of(-1, 3, -1)),
     ((2, 3, 2), (1, 2, 0), Shape.unknown())],
    ids=str,
)
def test_gradientMatchesFiniteDifferences(
    tf: Ops, shape: tuple[int, ...], perm: tuple[int, ...], declared: Any
) -> None:
    shapes = None if declared == "static" else [declared]
    assertGradient(tf, lambda x: tf.linalg.transpose(x, np.array(perm, np.int32)),
                   [point(shape)], shapes)


def test_gradientMatchesFiniteDifferencesWithAPermFedAtRunTime(tf: Ops) -> None:
    x = placeholder(tf, TFloat64, (2, 3, 2))
    p = tf.placeholder(TInt32)
    assertGradientsClose(tf.linalg.transpose(x, p), [x], {x: point((2, 3, 2))},
                         feeds={p: np.array([2, 0, 1], np.int32)})


def test_gradientIsTransposedByTheInversePermutation(tf: Ops, run: Any) -> None:
    x = tf.constant(np.zeros((2, 3, 4)))
    seed = np.arange(24.0).reshape(4, 2, 3)
    d = tf.gradients(tf.linalg.transpose(x, [2, 0, 1]), [x], Gradients.dx([tf.constant(seed)]))
    assert d.dy(0) is not None and d.dy(0).shape() == Shape.of(2, 3, 4)
    np.testing.assert_array_equal(run(d.dy(0)), np.transpose(seed, (1, 2, 0)))


@pytest.mark.parametrize(
    ("perm", "error", "fragment"),
    [
        ([0, 0], ValueError, "perm [0, 0] is not a permutation of [0, 2)"),
        ([1, 2], ValueError, "perm [1, 2] is not a permutation of [0, 2)"),
        ([-3, 0], ValueError, "perm [-3, 0] is not a permutation of [0, 2)"),
        ([0, 1, 2], ValueError, "perm has 3 entries for a tensor of rank 2"),
        ([0], ValueError, "perm has 1 entries for a tensor of rank 2"),
        (Shape.of(3), ValueError, "perm has 3 entries for a tensor of rank 2"),
        ([[1, 0]], ValueError, "perm must be a vector"),
        ([1.0, 0.0], TypeError, "Transpose input 'perm'"),
        (np.array([1, 0], np.uint8), TypeError, "data type uint8 is not allowed"),
    ],
    ids=["repeated", "outOfRange", "negative", "tooLong", "tooShort", "fedLengthDiffersFromRank",
         "matrix", "float", "uint8"],
)
def test_badPermIsRejected(
    graph: Graph, tf: Ops, perm: Any, error: type[Exception], fragment: str
) -> None:
    x = tf.constant(np.zeros((2, 3)))
    p = placeholder(tf, TInt32, perm) if isinstance(perm, Shape) else perm
    assertRejected(graph, lambda: tf.linalg.transpose(x, p), error, "Transpose", HERE, fragment)


def test_badPermAtRunTimeRaisesInvalidArgumentError(tf: Ops, run: Any) -> None:
    p = tf.placeholder(TInt32)
    t = tf.linalg.transpose(tf.constant(np.zeros((2, 3))), p)
    with pytest.raises(InvalidArgumentError) as info:
        run(t, feeds={p: np.array([1, 1], np.int32)})
    assert info.value.op == t.op()
    assert "perm [1, 1] is not a permutation" in str(info.value)
    assert f"of type Transpose, {HERE}" in str(info.value)
