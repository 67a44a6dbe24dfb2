"""The composites ``tf.booleanMask`` and ``tf.booleanMaskUpdate`` (TF Java's ``BooleanMask`` and
``BooleanMaskUpdate``): numpy's ``tensor[mask]`` and ``tensor[mask] = updates`` for masks of any
rank from any axis, their options, static shapes, op names, gradients through their parts, and
the masks TF Java rejects."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import ALL, assertGradient, assertMatches, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.composite.mask import BooleanMask, BooleanMaskUpdate
from tfops.errors import IllegalArgumentError, InvalidArgumentError
from tfops.types import TBool, TFloat32, TFloat64, TType

HERE = f"created at {__file__}:"

MASKS = [  # tensor shape, mask, axis
    ((4,), [True, False, True, True], 0),
    ((3, 2), [False, True, True], 0),
    ((2, 3, 4), [True, False, True], 1),
    ((2, 3, 4), [[True, False, True, False], [False, False, True, True],
                 [True, True, False, False]], -2),
    ((2, 3), [[True, False, True], [False, True, False]], 0),
    ((2, 3), [False, False, False], 1),
]


def sample(dtype: type[TType], shape: tuple[int, ...], start: int = 1) -> Any:
    values = np.arange(start, start + int(np.prod(shape))).reshape(shape)
    return values % 3 == 1 if dtype is TBool else values.astype(dtype.DTYPE)


def masked(shape: tuple[int, ...], mask: Any, axis: int) -> tuple[Any, ...]:
    """numpy's index of ``mask`` applied from ``axis``."""
    m = np.asarray(mask)
    return (slice(None),) * (axis % len(shape)) + (m,)


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(("shape", "mask", "axis"), MASKS, ids=str)
def test_booleanMaskMatchesNumpy(
    tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...], mask: Any, axis: int
) -> None:
    value = sample(dtype, shape)
    y = tf.booleanMask(tf.constant(value), tf.constant(np.array(mask)), axis=axis)
    assertMatches(run(y), value[masked(shape, mask, axis)], dtype)


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(("shape", "mask", "axis"), MASKS, ids=str)
def test_booleanMaskUpdateMatchesNumpy(
    tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...], mask: Any, axis: int
) -> None:
    value = sample(dtype, shape)
    where = masked(shape, mask, axis)
    updates = sample(dtype, value[where].shape, start=50)
    y = tf.booleanMaskUpdate(tf.constant(value), tf.constant(np.array(mask)),
                             tf.constant(updates), axis=axis)
    expected = value.copy()
    expected[where] = updates
    assert y.asOutput().shape() == Shape.of(*shape)
    assertMatches(run(y), expected, dtype)


@pytest.mark.parametrize(
    ("updates", "axis"),
    [(-1.0, 0), ([-1.0, -2.0, -3.0, -4.0], 0), ([[-1.0], [-2.0]], 1), (-7.0, -1)],
    ids=str,
)
def test_booleanMaskUpdateBroadcastsTheUpdates(
    tf: Ops, run: Any, updates: Any, axis: int
) -> None:
    value = np.arange(24.0).reshape(2, 3, 4) if axis != -1 else np.arange(8.0).reshape(2, 4)
    mask = np.array([True, False, True]) if axis != -1 else np.array([True, False, False, True])
    if axis == 0:
        mask = np.array([[True, False, True], [False, True, False]])
    y = tf.booleanMaskUpdate(tf.constant(value), tf.constant(mask), updates,
                             BooleanMaskUpdate.axis(axis))
    expected = value.copy()
    where = masked(value.shape, mask, axis)
    expected[where] = np.broadcast_to(np.asarray(updates), expected[where].shape)
    assertMatches(run(y), expected, TFloat64)


def test_booleanMaskUpdateWithoutBroadcastNeedsTheFullShape(tf: Ops, run: Any) -> None:
    t, m = tf.constant([1.0, 2.0, 3.0]), tf.constant([True, False, True])
    exact = tf.booleanMaskUpdate(t, m, tf.constant([8.0, 9.0]), BooleanMaskUpdate.broadcast(False))
    assert run(exact).tolist() == [8.0, 2.0, 9.0]
    short = tf.booleanMaskUpdate(t, m, tf.constant([0.0]), broadcast=False)
    assert short.op().input(2).op().type() == "Const"  # no BroadcastTo
    with pytest.raises(InvalidArgumentError, match=r"updates must have shape .* got \[1\]"):
        run(short)


def test_optionsAndKeywordsAreTheSame(tf: Ops) -> None:
    t, m = tf.constant(np.zeros((2, 3))), tf.constant([True, False, True])
    a = tf.booleanMask(t, m, BooleanMask.axis(1))
    b = tf.booleanMask(t, m, axis=1)
    assert a.asOutput().shape() == b.asOutput().shape() == Shape.of(2, -1)


@pytest.mark.parametrize(
    ("shape", "mask", "axis", "expected"),
    [(Shape.of(4, 3), Shape.of(4), 0, Shape.of(-1, 3)),
     (Shape.of(2, 3, 4), Shape.of(3, 4), 1, Shape.of(2, -1)),
     (Shape.of(-1, 3), Shape.of(-1), 0, Shape.of(-1, 3)),  # TF: [?, 3] (shape of x computed)
     (Shape.unknown(), Shape.of(3), 0, Shape.unknown())],
    ids=str,
)
def test_booleanMaskStaticShape(
    tf: Ops, shape: Shape, mask: Shape, axis: int, expected: Shape
) -> None:
    y = tf.booleanMask(placeholder(tf, TFloat32, shape), placeholder(tf, TBool, mask), axis=axis)
    assert y.asOutput().shape() == expected


def test_booleanMaskOfPartlyKnownShapesRuns(tf: Ops, run: Any) -> None:
    t, m = placeholder(tf, TFloat32, (-1, 2)), placeholder(tf, TBool, (-1,))
    y = tf.booleanMask(t, m)
    u = tf.booleanMaskUpdate(t, m, 0.0)
    value = np.arange(6, dtype=np.float32).reshape(3, 2)
    got = run(y, u, feeds={t: value, m: np.array([True, False, True])})
    assert [v.tolist() for v in got] == [[[0.0, 1.0], [4.0, 5.0]],
                                         [[0.0, 0.0], [2.0, 3.0], [0.0, 0.0]]]


def test_opsAreNamedUnderTheSubScope(graph: Graph, tf: Ops) -> None:
    t, m = tf.constant([1.0, 2.0]), tf.constant([True, False])
    y = tf.booleanMask(t, m)
    u = tf.withName("update").booleanMaskUpdate(t, m, 0.0)
    assert y.op().name() == "BooleanMask/Gather" and y.op().type() == "GatherV2"
    assert u.op().name() == "update/TensorScatterNdUpdate"
    names = [op.name() for op in graph.operations()]
    assert "BooleanMask/Where" in names and "update/Where" in names


def test_gradientsFlowThroughTheParts(tf: Ops) -> None:
    mask = np.array([[True, False, True], [False, True, True]])
    x = (np.arange(12.0).reshape(2, 3, 2) - 3.0) * 0.5
    assertGradient(tf, lambda t: tf.math.square(tf.booleanMask(t, mask)), [x])
    assertGradient(tf, lambda t: tf.math.square(tf.booleanMask(t, [True, False], axis=2)), [x])
    updates = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    assertGradient(tf, lambda t, u: tf.math.square(tf.booleanMaskUpdate(t, mask, u)),
                   [x, updates])
    assertGradient(tf, lambda t, u: tf.math.square(tf.booleanMaskUpdate(t, [False, True], u,
                                                                        axis=-1)),
                   [x, np.array([[[1.0], [2.0], [3.0]], [[4.0], [5.0], [6.0]]])])


@pytest.mark.parametrize(
    ("mask", "axis", "fragment"),
    [
        (True, 0, "mask cannot be a scalar"),
        ("unknown", 0, "mask must have a known number of dimensions"),
        ([True, False], 0, "mask shape [2] is not compatible with the required mask shape [3]"),
        ([[True, False]], 1, "axis 1 and a mask of rank 2 do not fit a tensor of shape [3, 2]"),
        ([1, 0, 1], 0, "mask must be bool, got int32"),
    ],
    ids=["scalar", "unknownRank", "shape", "tooManyDims", "intMask"],
)
def test_badMasksAreRejected(graph: Graph, tf: Ops, mask: Any, axis: int, fragment: str) -> None:
    t = tf.constant(np.zeros((3, 2)))
    m = tf.placeholder(TBool) if mask == "unknown" else tf.constant(mask)
    assertRejected(graph, lambda: tf.booleanMask(t, m, axis=axis), IllegalArgumentError,
                   f"BooleanMask ({HERE}", fragment)
    assertRejected(graph, lambda: tf.booleanMaskUpdate(t, m, 0.0, axis=axis),
                   IllegalArgumentError, f"BooleanMaskUpdate ({HERE}", fragment)


def test_aFloatTensorKeepsItsTypeForPythonUpdates(tf: Ops, run: Any) -> None:
    y = tf.booleanMaskUpdate(tf.constant(np.array([1.0, 2.0])), [False, True], 5)
    assert y.asOutput().dataType() is TFloat64 and run(y).tolist() == [1.0, 5.0]


def test_booleanMaskMatchesTensorFlow(tf: Ops, run: Any) -> None:
    fixture = np.load(Path(__file__).parents[1] / "fixtures" / "tf" / "arrays.npz")
    y = tf.booleanMask(tf.constant(fixture["booleanmask_t"]),
                       tf.constant(fixture["booleanmask_m"]), axis=1)
    assertMatches(run(y), fixture["booleanmask_out"], TFloat64)
