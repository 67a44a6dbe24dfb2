"""Specification of ``ShapeN``: the shapes of several tensors of one data type in one op, as
TensorFlow's convolution gradients read them; int32 results (``outType(TInt64)``), no
gradient. Its values in TensorFlow are checked by ``tests/test_graphdef_tf.py`` (every op) and
``tests/test_graphdef_tf2.py`` (a Keras CNN's gradients)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from opchecks import assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.core import Gradients, ShapeN
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TInt64

SITE = f"created at {__file__}:"


def test_oneShapeOutputPerInput(tf: Ops) -> None:
    shapes = tf.shapeN(
        [
            placeholder(tf, TBool, (2, 3)),
            placeholder(tf, TBool, (-1,)),
            placeholder(tf, TBool, None),
        ]
    )
    assert (type(shapes).__name__, shapes.op().type(), shapes.op().name()) == (
        "ShapeN",
        "ShapeN",
        "ShapeN",
    )
    assert shapes.op().attr("N") == 3 and len(shapes.output()) == 3
    assert [o.shape() for o in shapes.output()] == [Shape.of(2), Shape.of(1), Shape.of(-1)]
    assert all(o.dataType() is TInt32 for o in shapes)  # iterable over its outputs


def test_outTypeInt64(tf: Ops, run: Any) -> None:
    shapes = tf.shapeN([tf.constant(np.ones((2, 0, 3)))], ShapeN.outType(TInt64))
    (only,) = shapes.output()
    assert only.dataType() is TInt64
    value = run(only)
    assert value.dtype == np.int64 and value.tolist() == [2, 0, 3]


@pytest.mark.parametrize("shapes", [[(2, 3), (4,), ()], [(0, 5)], [(1, 1, 1, 7), (3, 2)]], ids=str)
def test_runGivesEachShape(tf: Ops, run: Any, shapes: list[tuple[int, ...]]) -> None:
    xs = [tf.placeholder(TFloat32) for _ in shapes]
    result = tf.shapeN(xs)
    values = run(
        *result.output(),
        feeds={x: np.zeros(s, np.float32) for x, s in zip(xs, shapes, strict=True)},
    )
    got = values if len(shapes) > 1 else [values]
    assert [v.tolist() for v in got] == [list(s) for s in shapes]
    assert all(v.dtype == np.int32 for v in got)


def test_isNotDifferentiableAndPassesNoGradient(tf: Ops, run: Any) -> None:
    assert lookupGradient("ShapeN") == (True, None)
    x = placeholder(tf, TFloat64, (2, 3))
    y = tf.dtypes.cast(tf.shapeN([x, x]).output()[1], TFloat64)
    assert tf.gradients(y, [x]).dy() == [None]
    d = tf.gradients(y, [x], Gradients.unconnectedGradients("zero")).dy(0)
    assert d is not None and run(d, feeds={x: np.ones((2, 3))}).tolist() == [[0.0] * 3] * 2


def test_badInputsAreRejected(tf: Ops, graph: Graph) -> None:
    a, b = tf.constant([1.0]), tf.constant([1])
    assertRejected(graph, lambda: tf.shapeN([a, b]), TypeError, f"ShapeN 'ShapeN' ({SITE}")
    assertRejected(
        graph, lambda: tf.shapeN([]), ValueError, "ShapeN", "input list 'input' must not be empty"
    )
    assertRejected(graph, lambda: tf.shapeN([a], ShapeN.outType(TFloat32)), TypeError, "ShapeN")
