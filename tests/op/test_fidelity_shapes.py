"""Specification of the static shapes TensorFlow 2.21 gives an op whose shape argument is
computed in the graph (``concat([shape(x)[0:1], [12]])``, ``stack([n, 2])``...): the partial
evaluation of shape-valued subgraphs (``tfops.partial``) behind every shape rule that reads a
shape argument. The expected shapes are TensorFlow's in graph mode (``tf.compat.v1``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import assertMatches, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.op.core import Placeholder
from tfops.types import TFloat32, TInt32, TInt64

Run = Callable[..., Any]
U = -1  # an unknown dimension
CREATED = f"created at {__file__}:"


# -- static shapes from computed shape arguments -----------------------------------------------
def _slice(tf: Ops, s: Any, begin: int, end: int | None = None, shrink: bool = False) -> Any:
    """``s[begin:end]`` (``s[begin]`` with ``shrink``) of a vector, as TF Python's slicing."""
    stop = 0 if end is None else end
    return tf.stridedSlice(s, [begin], [stop], [1], endMask=int(end is None),
                           shrinkAxisMask=int(shrink))


# each row: a builder given (tf, x of shape [?, 3, 4], s = shape(x), y of shape [2, 3], six of
# shape [6], n a fed int32 scalar) and the static shape TensorFlow 2.21 gives in graph mode
STATIC_SHAPES: list[tuple[str, Callable[..., Any], Shape]] = [
    ("reshape by concat([s[0:1], [12]])",
     lambda tf, x, s, y, six, n: tf.reshape(x, tf.concat([_slice(tf, s, 0, 1), [12]], 0)),
     Shape.of(U, 12)),
    ("reshape by stack([s[0], 12])",
     lambda tf, x, s, y, six, n: tf.reshape(x, tf.stack([_slice(tf, s, 0, 1, True), 12])),
     Shape.of(U, 12)),
    ("reshape zeros(6) by shape(y)",
     lambda tf, x, s, y, six, n: tf.reshape(tf.zeros([6], TFloat32), tf.shape(y)),
     Shape.of(2, 3)),
    ("reshape [6] by stack([n, 2])",
     lambda tf, x, s, y, six, n: tf.reshape(six, tf.stack([n, 2])), Shape.of(3, 2)),
    ("reshape [6] by stack([-1, n])",
     lambda tf, x, s, y, six, n: tf.reshape(six, tf.stack([-1, n])), Shape.of(U, U)),
    ("reshape by stack([-1, s[1] * s[2]])",
     lambda tf, x, s, y, six, n: tf.reshape(x, tf.stack([-1, tf.math.mul(
         _slice(tf, s, 1, 2, True), _slice(tf, s, 2, 3, True))])),
     Shape.of(U, 12)),
    ("reshape by stack([s[0], -1])",
     lambda tf, x, s, y, six, n: tf.reshape(x, tf.stack([_slice(tf, s, 0, 1, True), -1])),
     Shape.of(U, U)),
    ("tile by stack([2, s[1], 1])",
     lambda tf, x, s, y, six, n: tf.tile(x, tf.stack([2, _slice(tf, s, 1, 2, True), 1])),
     Shape.of(U, 9, 4)),
    ("tile by stack([2, n, 0])",
     lambda tf, x, s, y, six, n: tf.tile(x, tf.stack([2, n, 0])), Shape.of(U, U, 0)),
    ("fill by stack([s[0], 5])",
     lambda tf, x, s, y, six, n: tf.fill(tf.stack([_slice(tf, s, 0, 1, True), 5]), 1.0),
     Shape.of(U, 5)),
    ("broadcastTo concat([s[1:], [2]])",
     lambda tf, x, s, y, six, n: tf.broadcastTo(tf.constant([1.0]),
                                                tf.concat([_slice(tf, s, 1), [2]], 0)),
     Shape.of(3, 4, 2)),
    ("zeros by concat([s[1:], [2]])",
     lambda tf, x, s, y, six, n: tf.zeros(tf.concat([_slice(tf, s, 1), [2]], 0), TFloat32),
     Shape.of(3, 4, 2)),
    ("reshape by cast(cast(shape(x), int64), int32)",
     lambda tf, x, s, y, six, n: tf.reshape(x, tf.dtypes.cast(tf.dtypes.cast(s, TInt64),
                                                              TInt32)),
     Shape.of(U, 3, 4)),
    ("reshape by concat([expandDims(s[0], 0), [12]])",
     lambda tf, x, s, y, six, n: tf.reshape(x, tf.concat(
         [tf.expandDims(_slice(tf, s, 0, 1, True), 0), [12]], 0)),
     Shape.of(U, 12)),
    ("reshape zeros(4) by fill([2], 2)",
     lambda tf, x, s, y, six, n: tf.reshape(tf.zeros([4], TFloat32), tf.fill([2], 2)),
     Shape.of(2, 2)),
    ("reshape y by stack([size(y)])",
     lambda tf, x, s, y, six, n: tf.reshape(y, tf.stack([tf.size(y)])), Shape.of(6)),
    ("zeros by stack([rank(y), 1])",
     lambda tf, x, s, y, six, n: tf.zeros(tf.stack([tf.rank(y), 1]), TFloat32),
     Shape.of(2, 1)),
    ("reshape by concat([slice(s, [0], [1]), [12]])",
     lambda tf, x, s, y, six, n: tf.reshape(x, tf.concat([tf.slice(s, [0], [1]), [12]], 0)),
     Shape.of(U, 12)),
    ("zeros by s[-1:]",
     lambda tf, x, s, y, six, n: tf.zeros(_slice(tf, s, -1), TFloat32), Shape.of(4)),
    ("zeros by stack([s[2] // 2, s[1] - 1])",
     lambda tf, x, s, y, six, n: tf.zeros(tf.stack([
         tf.math.floorDiv(_slice(tf, s, 2, 3, True), 2),
         tf.math.sub(_slice(tf, s, 1, 2, True), 1)]), TFloat32),
     Shape.of(2, 2)),
    ("randomUniform by stack([s[1], 2])",
     lambda tf, x, s, y, six, n: tf.random.randomUniform(
         tf.stack([_slice(tf, s, 1, 2, True), 2]), TFloat32),
     Shape.of(3, 2)),
]


@pytest.mark.parametrize(("name", "build", "expected"), STATIC_SHAPES,
                         ids=[row[0] for row in STATIC_SHAPES])
def test_computedShapeArgumentsGiveTensorFlowsStaticShapes(
    tf: Ops, name: str, build: Callable[..., Any], expected: Shape
) -> None:
    x = placeholder(tf, TFloat32, (U, 3, 4))
    y, six = placeholder(tf, TFloat32, (2, 3)), placeholder(tf, TFloat32, (6,))
    n = placeholder(tf, TInt32, ())
    assert build(tf, x, tf.shape(x), y, six, n).asOutput().shape() == expected


def test_computedShapeArgumentsRunToTheirStaticShapes(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat32, (U, 3, 4))
    s = tf.shape(x)
    flat = tf.reshape(x, tf.concat([_slice(tf, s, 0, 1), [12]], 0))
    tiled = tf.tile(x, tf.stack([2, _slice(tf, s, 1, 2, True), 1]))
    value = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    got = run(flat, tiled, feeds={x: value})
    assertMatches(got[0], value.reshape(2, 12), TFloat32)
    assertMatches(got[1], np.tile(value, (2, 3, 1)), TFloat32)


def test_computedShapeArgumentsAreChecked(graph: Graph, tf: Ops) -> None:
    """A computed shape that cannot fit is rejected when built, as a constant one is."""
    y, n = placeholder(tf, TFloat32, (2, 3)), placeholder(tf, TInt32, ())
    wrong = tf.stack([n, 4])
    assertRejected(graph, lambda: tf.reshape(y, wrong), ValueError, "Reshape 'Reshape'",
                   CREATED, "cannot reshape a tensor of 6 elements (shape [2, 3]) into shape "
                   "[?, 4]")
    twice = tf.stack([-1, -1, n])
    assertRejected(graph, lambda: tf.reshape(y, twice), ValueError,
                   "the new shape [-1, -1, ?] may have one -1")
    negative = tf.stack([2, tf.math.sub(0, _slice(tf, tf.shape(y), 1, 2, True))])
    assertRejected(graph, lambda: tf.tile(y, negative), ValueError, "Tile 'Tile'",
                   "multiples must not be negative, got [2, -3]")


def test_partialValueOfAnUnknownLengthIsUnknown(tf: Ops) -> None:
    x = tf.placeholder(TFloat32)
    assert tf.reshape(placeholder(tf, TFloat32, (6,)), tf.shape(x)).asOutput().shape() == (
        Shape.unknown())
    fed = tf.placeholder(TInt32, Placeholder.shape(Shape.of(2)))
    assert tf.zeros(fed, TFloat32).asOutput().shape() == Shape.of(U, U)


def test_partialValueEvaluatesEachOpOnce(tf: Ops) -> None:
    """A chain of doublings has 2**25 paths through it, but only 25 ops."""
    total = tf.size(placeholder(tf, TFloat32, (2, 3))).asOutput()
    for _ in range(25):
        total = tf.math.add(total, total).asOutput()
    assert tf.zeros(tf.stack([total]), TFloat32).asOutput().shape() == Shape.of(6 * 2**25)
