"""Squeeze's own behaviour: dimensions of size 1 removed (all of them, or those ``axis`` names,
which must be 1), statically where the shape is known and at run time otherwise."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from opchecks import ALL, assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.core import Gradients, Squeeze
from tfops.types import TBool, TFloat32, TInt32, TType

HERE = f"created at {__file__}:"


def sample(dtype: type[TType], shape: tuple[int, ...]) -> Any:
    values = np.arange(int(np.prod(shape))).reshape(shape)
    return values % 2 == 1 if dtype is TBool else values.astype(dtype.DTYPE)


def test_axisSetsSqueezeDims(tf: Ops) -> None:
    x = tf.constant([[1.0, 2.0]])
    assert tf.squeeze(x, Squeeze.axis([0])).op().attr("squeeze_dims") == (0,)
    assert tf.squeeze(x).op().attr("squeeze_dims") == ()  # the default: every 1


@pytest.mark.parametrize(
    ("shape", "axis", "expected"),
    [
        (Shape.of(1, 2, 1, 3), [], Shape.of(2, 3)),
        (Shape.of(1, 2, 1, 3), [0], Shape.of(2, 1, 3)),
        (Shape.of(1, 2, 1, 3), [-2], Shape.of(1, 2, 3)),
        (Shape.of(1, 2, 1, 3), [2, 0], Shape.of(2, 3)),
        (Shape.of(1, 1), [], Shape.scalar()),
        (Shape.of(2, 3), [], Shape.of(2, 3)),
        (Shape.scalar(), [], Shape.scalar()),
        (Shape.of(0, 1), [], Shape.of(0)),
        (Shape.of(-1, 1, 3), [1], Shape.of(-1, 3)),
        (Shape.of(-1, 1, 3), [0], Shape.of(1, 3)),
        (Shape.of(-1, 1, 3), [], Shape.unknown()),
        (Shape.unknown(), [0], Shape.unknown()),
        (Shape.unknown(), [], Shape.unknown()),
    ],
    ids=str,
)
def test_staticShape(tf: Ops, shape: Shape, axis: list[int], expected: Shape) -> None:
    s = tf.squeeze(placeholder(tf, TFloat32, shape), Squeeze.axis(axis))
    assert s.asOutput().shape() == expected


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("shape", "axis"),
    [((1, 2, 1, 3), []), ((1, 2, 1, 3), [0]), ((1, 2, 1, 3), [-2, 0]), ((1, 1), []), ((), []),
     ((0, 1), [1]), ((2, 3), [])],
    ids=str,
)
def test_kernelMatchesNumpy(
    tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...], axis: list[int]
) -> None:
    value = sample(dtype, shape)
    s = tf.squeeze(tf.constant(value), Squeeze.axis(axis))
    assert s.asOutput().dataType() is dtype
    np.testing.assert_array_equal(run(s), np.squeeze(value, axis=tuple(axis) or None), strict=True)


def test_kernelOfAnUnknownShapeSqueezesWhatIsFed(tf: Ops, run: Any) -> None:
    x = tf.placeholder(TInt32)
    s = tf.squeeze(x)
    assert run(s, feeds={x: [[[1], [2]]]}).tolist() == [1, 2]
    assert run(s, feeds={x: [[7]]}).tolist() == 7


@pytest.mark.parametrize(
    ("shape", "axis", "declared"),
    [((1, 3, 1), [], None), ((1, 3, 1), [-1], None), ((2, 1, 2), [1], None), ((1, 1), [], None),
     ((2, 1, 3), [1], Shape.of(-1, 1, 3)), ((2, 1, 3), [1], Shape.unknown())],
    ids=str,
)
def test_gradientMatchesFiniteDifferences(
    tf: Ops, shape: tuple[int, ...], axis: list[int], declared: Shape | None
) -> None:
    point = (np.arange(int(np.prod(shape))) * 0.5 - 1.25).reshape(shape)
    assertGradient(tf, lambda x: tf.squeeze(x, Squeeze.axis(axis)), [point],
                   None if declared is None else [declared])


def test_gradientIsTheIncomingGradientInTheInputShape(tf: Ops, run: Any) -> None:
    x = tf.constant(np.zeros((1, 2, 1)))
    seed = Gradients.dx([tf.constant(np.array([3.0, 4.0]))])
    d = tf.gradients(tf.squeeze(x), [x], seed).dy(0)
    assert d is not None and d.shape() == Shape.of(1, 2, 1)
    assert run(d).tolist() == [[[3.0], [4.0]]]


@pytest.mark.parametrize(
    ("shape", "axis", "fragment"),
    [
        ((1, 3), [1], "cannot squeeze dimension 1 of size 3"),
        ((1, 3), [0, 1], "cannot squeeze dimension 1 of size 3"),
        ((1, 3), [-1], "cannot squeeze dimension 1 of size 3"),
        ((1, 1), [2], "axis 2 is out of range [-2, 2)"),
        ((1, 1), [-3], "axis -3 is out of range [-2, 2)"),
    ],
    ids=str,
)
def test_badAxisIsRejected(
    graph: Graph, tf: Ops, shape: tuple[int, ...], axis: list[int], fragment: str
) -> None:
    x = tf.constant(np.zeros(shape))
    assertRejected(graph, lambda: tf.squeeze(x, Squeeze.axis(axis)), ValueError,
                   f"Squeeze 'Squeeze' ({HERE}", fragment)


@pytest.mark.parametrize(
    ("declared", "axis", "fed", "fragment"),
    [(Shape.of(-1, 2), [0], (3, 2), "cannot squeeze dimension 0 of size 3"),
     (Shape.unknown(), [3], (1, 1), "axis 3 is out of range [-2, 2)")],
    ids=["notA1", "axisOutOfRange"],
)
def test_badAxisAtRunTimeRaisesInvalidArgumentError(
    tf: Ops, run: Any, declared: Shape, axis: list[int], fed: tuple[int, ...], fragment: str
) -> None:
    x = placeholder(tf, TFloat32, declared)
    s = tf.squeeze(x, Squeeze.axis(axis))
    with pytest.raises(InvalidArgumentError) as info:
        run(s, feeds={x: np.zeros(fed, np.float32)})
    assert info.value.op == s.op()
    assert fragment in str(info.value) and f"of type Squeeze, {HERE}" in str(info.value)
