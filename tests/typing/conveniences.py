"""What type checkers infer for the top-k ops, ``tf.nn.dropout`` and TF Java's conveniences
(checked by tests/test_typing.py, not run). No line here may need an ignore."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from scope import Scope
from tfops import Ops, Shape
from tfops.composite.indices import Index, Indices
from tfops.composite.nn import Dropout
from tfops.op.core import Concat, Constant, ReduceMax, Size, StridedSlice, Sum
from tfops.op.core import Shape as ShapeOp
from tfops.op.nn import InTopK, TopK
from tfops.ops import ShapeOps
from tfops.output import Operand, Output
from tfops.types import (
    TBool,
    TFloat32,
    TFloat64,
    TInt32,
    TInt64,
    TIntegral,
    TUint8,
)

if TYPE_CHECKING:  # only type checkers read this file; typing.assert_type is Python 3.11+
    from typing_extensions import assert_type


def topK(tf: Ops, x: Output[TFloat32], labels: Output[TInt64]) -> None:
    """TopK is generic in the values' type; the indices are some integer type."""
    top = tf.nn.topK(x, 2)
    assert_type(top, TopK[TFloat32])
    assert_type(top.values(), Output[TFloat32])
    assert_type(top.indices(), Output[TIntegral])
    assert_type(tf.nn.topK(x, 1, indexType=TInt64, sorted=False), TopK[TFloat32])
    hit = tf.nn.inTopK(x, labels, tf.constant(1, TInt64))
    assert_type(hit, InTopK)
    assert_type(hit.precision(), Output[TBool])


def dropout(tf: Ops, x: Output[TFloat64], rate: Output[TFloat32]) -> None:
    """The result has the input's type, whatever the rate."""
    assert_type(tf.nn.dropout(x, 0.5), Dropout[TFloat64])
    assert_type(tf.nn.dropout(x, rate, noiseShape=[None, 1], seed=3).asOutput(),
                Output[TFloat64])


def arrays(tf: Ops, scope: Scope, i64: np.int64, u8: np.uint8, f64: np.float64) -> None:
    """``tf.array`` and ``Constant.arrayOf``: the elements' type, as TF Java's overloads."""
    assert_type(tf.array(1, 2, 3), Constant[TInt32])
    assert_type(tf.array(1.0, 2.0), Constant[TFloat32])
    assert_type(tf.array(True, False), Constant[TBool])
    assert_type(tf.array(i64, i64), Constant[TInt64])
    assert_type(tf.array(u8), Constant[TUint8])
    assert_type(Constant.arrayOf(scope, f64), Constant[TFloat64])


def constantOfAShape(tf: Ops, scope: Scope) -> None:
    """TF Java's ``tf.constant(Shape)``: the dimensions, ``TInt64``."""
    assert_type(tf.constant(Shape.of(2, 3)), Constant[TInt64])
    assert_type(Constant.create(scope, Shape.scalar()), Constant[TInt64])


def aliases(tf: Ops, scope: Scope, x: Output[TFloat32]) -> None:
    """TF Java's second names build the same class."""
    assert_type(tf.reduceSum(x, 0), Sum[TFloat32])
    assert_type(tf.reduceMax(x, [0], keepDims=True).output(), Output[TFloat32])
    assert_type(ReduceMax.create(scope, x, 0).output(), Output[TFloat32])


def shapeHelpers(tf: Ops, x: Output[TFloat32]) -> None:
    """``tf.shape`` is the Shape op's method and the group of TF Java's ``Shapes``."""
    assert_type(tf.shape, ShapeOps)
    s = tf.shape(x)
    assert_type(s, ShapeOp[TInt32])
    assert_type(tf.shape(x, outType=TInt64), ShapeOp[TInt64])
    assert_type(tf.shape.flatten(x), Operand[TFloat32])
    assert_type(tf.shape.flatten(s), Operand[TInt32])
    assert_type(tf.shape.size(s), Operand[TInt32])
    assert_type(tf.shape.numDimensions(s, TInt64), Size[TInt64])
    assert_type(tf.shape.reduceDims(x, 1), Operand[TFloat32])
    assert_type(tf.shape.takeLast(s, 2), Operand[TInt32])
    assert_type(tf.shape.prepend(s, 3), Concat[TInt32])


def stridedSliceWithIndices(tf: Ops, x: Output[TFloat32]) -> None:
    """TF Java's ``tf.stridedSlice(x, Index...)`` beside the op's own signature."""
    assert_type(Indices.at(0), Index)
    assert_type(tf.stridedSlice(x, Indices.at(0), Indices.all()), StridedSlice[TFloat32])
    assert_type(tf.stridedSlice(x, [0], [1], [1], shrinkAxisMask=1), StridedSlice[TFloat32])
