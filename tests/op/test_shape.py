"""Specification of the ``Shape`` op class (the run-time shape of a tensor)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.core import Gradients, Placeholder
from tfops.op.core import Shape as ShapeOp
from tfops.types import (
    TBool,
    TFloat16,
    TFloat32,
    TFloat64,
    TInt32,
    TInt64,
    TType,
    TUint8,
)

Run = Callable[..., Any]
ALL_TYPES: list[type[TType]] = [TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8, TBool]
HERE = re.escape(__file__)


# -- construction --------------------------------------------------------------------------
def test_opNameIsShape() -> None:
    assert ShapeOp.OP_NAME == "Shape"


def test_defaultNamesAreShapeThenShape_1(tf: Ops) -> None:
    x = tf.constant([1.0])
    assert tf.shape(x).op().name() == "Shape"
    assert tf.shape(x).op().name() == "Shape_1"


def test_opTypeIsShape(tf: Ops) -> None:
    assert tf.shape(tf.constant([1.0])).op().type() == "Shape"


def test_withNameNamesTheOp(tf: Ops) -> None:
    assert tf.withName("dims").shape(tf.constant([1.0])).op().name() == "dims"


def test_createOnAScope(tf: Ops) -> None:
    x = tf.constant([[1.0]])
    s = ShapeOp.create(tf.scope(), x)
    assert isinstance(s, ShapeOp)
    assert s.op().input(0) == x.asOutput()
    assert s.output() == s.asOutput() == s.op().output(0)


def test_outputIsInt32ByDefault(tf: Ops) -> None:
    s = tf.shape(tf.constant([1.0]))
    assert s.asOutput().dataType() is TInt32
    assert s.op().attr("out_type") is TInt32


def test_outTypeInt64(tf: Ops) -> None:
    s = tf.shape(tf.constant([1.0]), ShapeOp.outType(TInt64))
    assert s.asOutput().dataType() is TInt64


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        (Shape.scalar(), Shape.of(0)),
        (Shape.of(5), Shape.of(1)),
        (Shape.of(2, 3), Shape.of(2)),
        (Shape.of(-1, 3), Shape.of(2)),
        (Shape.of(-1, -1, -1), Shape.of(3)),
        (Shape.unknown(), Shape.of(-1)),
    ],
    ids=str,
)
def test_outputIsAVectorOfTheInputRank(tf: Ops, shape: Shape, expected: Shape) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(shape))
    assert tf.shape(x).asOutput().shape() == expected


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
def test_acceptsEveryInputDataType(tf: Ops, dtype: type[TType]) -> None:
    s = tf.shape(tf.placeholder(dtype, Placeholder.shape(Shape.of(4))))
    assert s.op().attr("T") is dtype
    assert s.asOutput().dataType() is TInt32


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(), (0,), (2, 3), (4, 0, 1)], ids=str)
def test_runReturnsTheInputShape(
    tf: Ops, run: Run, dtype: type[TType], shape: tuple[int, ...]
) -> None:
    result = run(tf.shape(tf.constant(np.zeros(shape, dtype.DTYPE))))
    assert result.dtype == np.int32
    assert result.shape == (len(shape),)
    assert result.tolist() == list(shape)


@pytest.mark.parametrize("outType", [TInt32, TInt64], ids=lambda t: t.NAME)
def test_runReturnsTheOutTypeDataType(tf: Ops, run: Run, outType: type[TType]) -> None:
    result = run(tf.shape(tf.constant(np.zeros((2, 5))), ShapeOp.outType(outType)))
    assert result.dtype == outType.DTYPE
    assert result.tolist() == [2, 5]


@pytest.mark.parametrize("rows", [0, 1, 7])
def test_runReturnsTheFedShapeOfAPartiallyKnownInput(tf: Ops, run: Run, rows: int) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(-1, 3)))
    assert run(tf.shape(x), feeds={x: np.zeros((rows, 3), np.float32)}).tolist() == [rows, 3]


def test_runReturnsTheFedShapeOfAnUnknownInput(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TBool)
    assert run(tf.shape(x), feeds={x: np.zeros((2, 1, 4), np.bool_)}).tolist() == [2, 1, 4]


def test_staticShapeFlowsIntoReshape(tf: Ops) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(-1, 3)))
    r = tf.reshape(tf.placeholder(TFloat32), tf.shape(x))
    assert r.asOutput().shape() == Shape.of(-1, 3)


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("Shape") == (True, None)


def test_passesNoGradient(tf: Ops) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2, 3)))
    y = tf.dtypes.cast(tf.shape(x), TFloat64)
    assert tf.gradients(y, [x]).dy() == [None]


def test_passesZerosWhenAskedForUnconnectedZeros(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2, 3)))
    y = tf.dtypes.cast(tf.shape(x), TFloat64)
    d = tf.gradients(y, [x], Gradients.unconnectedGradients("zero")).dy(0)
    assert d is not None
    assert run(d, feeds={x: np.ones((2, 3))}).tolist() == [[0.0] * 3] * 2


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize("outType", [TFloat32, TUint8, TBool], ids=lambda t: t.NAME)
def test_outTypeOtherThanInt32OrInt64RaisesTypeError(tf: Ops, outType: type[TType]) -> None:
    with pytest.raises(TypeError, match=rf"Shape 'Shape' \(created at {HERE}:\d+\)"):
        tf.shape(tf.constant([1.0]), ShapeOp.outType(outType))


def test_operandFromAnotherGraphRaisesValueError(tf: Ops) -> None:
    with Graph() as other:
        foreign = Ops.create(other).constant([1.0])
        with pytest.raises(ValueError, match=rf"Shape 'Shape' \(created at {HERE}:\d+\)"):
            tf.shape(foreign)


def test_failedCreateLeavesTheGraphUnchanged(graph: Graph, tf: Ops) -> None:
    x = tf.constant([1.0])
    before = list(graph.operations())
    with pytest.raises(TypeError):
        tf.shape(x, ShapeOp.outType(TFloat32))
    assert list(graph.operations()) == before
    assert tf.shape(x).op().name() == "Shape"
