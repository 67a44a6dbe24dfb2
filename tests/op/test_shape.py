"""Specification of the ops that read only their input's shape: ``Shape`` (the dimensions),
``Rank`` (their number) and ``Size`` (the number of elements), for any input data type; an int32
result (``Shape`` and ``Size`` take ``outType(TInt64)``), no gradient."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest
from opchecks import ALL, assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.core import Gradients, Rank, Size
from tfops.op.core import Shape as ShapeOp
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]
SITE = f"created at {__file__}:"


class Row(NamedTuple):
    op: str
    cls: Any
    reference: Callable[[tuple[int, ...]], Any]  # the value for an input of this shape
    staticShape: Callable[[Shape], Shape]  # the output's static shape for this input shape
    hasOutType: bool = True


ROWS = [
    Row("Shape", ShapeOp, list,
        lambda s: Shape.of(s.numDimensions()) if s.numDimensions() >= 0 else Shape.of(-1)),
    Row("Rank", Rank, len, lambda s: Shape.scalar(), hasOutType=False),
    Row("Size", Size, lambda shape: int(np.prod(shape)), lambda s: Shape.scalar()),
]
rows = pytest.mark.parametrize("row", ROWS, ids=lambda row: row.op)
WITH_OUT_TYPE = pytest.mark.parametrize("row", [r for r in ROWS if r.hasOutType],
                                      ids=lambda row: row.op)


def build(tf: Ops, row: Row, x: Any, *options: Any) -> Any:
    return getattr(tf, row.op.lower())(x, *options)


# -- construction --------------------------------------------------------------------------
@rows
@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
def test_acceptsEveryInputDataTypeAndGivesInt32(tf: Ops, row: Row, dtype: type[TType]) -> None:
    y = build(tf, row, placeholder(tf, dtype, (4,)))
    assert y.op().attr("T") is dtype
    assert y.asOutput().dataType() is TInt32
    if row.hasOutType:
        assert y.op().attr("out_type") is TInt32


@WITH_OUT_TYPE
def test_outTypeInt64(tf: Ops, row: Row) -> None:
    y = build(tf, row, tf.constant([1.0]), row.cls.outType(TInt64))
    assert y.asOutput().dataType() is y.op().attr("out_type") is TInt64


@rows
@pytest.mark.parametrize(
    "shape",
    [Shape.scalar(), Shape.of(5), Shape.of(2, 3), Shape.of(-1, 3), Shape.of(-1, -1, -1),
     Shape.unknown()],
    ids=str,
)
def test_staticOutputShape(tf: Ops, row: Row, shape: Shape) -> None:
    y = build(tf, row, placeholder(tf, TFloat32, shape))
    assert y.asOutput().shape() == row.staticShape(shape)


def test_staticShapeOfAShapeFlowsIntoReshape(tf: Ops) -> None:
    x = placeholder(tf, TFloat32, (-1, 3))
    assert tf.reshape(tf.placeholder(TFloat32), tf.shape(x)).asOutput().shape() == Shape.of(-1, 3)


# -- kernel --------------------------------------------------------------------------------
@rows
@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (4, 0, 1), (2, 1, 3, 2)], ids=str)
def test_runMatchesTheReference(
    tf: Ops, run: Run, row: Row, dtype: type[TType], shape: tuple[int, ...]
) -> None:
    result = run(build(tf, row, tf.constant(np.zeros(shape, dtype.DTYPE))))
    assert result.dtype == np.int32
    assert result.tolist() == row.reference(shape)


@WITH_OUT_TYPE
@pytest.mark.parametrize("outType", [TInt32, TInt64], ids=lambda t: t.NAME)
def test_runGivesTheOutType(tf: Ops, run: Run, row: Row, outType: type[TType]) -> None:
    result = run(build(tf, row, tf.constant(np.zeros((2, 5))), row.cls.outType(outType)))
    assert result.dtype == outType.DTYPE
    assert result.tolist() == row.reference((2, 5))


@rows
@pytest.mark.parametrize(
    ("shape", "fed"),
    [((-1, 3), (0, 3)), ((-1, 3), (1, 3)), ((-1, 3), (7, 3)), (None, ()), (None, (2, 1, 4)),
     (None, (2, 0, 5))],
    ids=str,
)
def test_runOfTheFedValue(
    tf: Ops, run: Run, row: Row, shape: tuple[int, ...] | None, fed: tuple[int, ...]
) -> None:
    x = placeholder(tf, TBool, shape)
    assert run(build(tf, row, x), feeds={x: np.zeros(fed, np.bool_)}).tolist() == (
        row.reference(fed))


# -- gradient ------------------------------------------------------------------------------
@rows
def test_isNotDifferentiableAndPassesNoGradient(tf: Ops, run: Run, row: Row) -> None:
    assert lookupGradient(row.op) == (True, None)
    x = placeholder(tf, TFloat64, (2, 3))
    y = tf.dtypes.cast(build(tf, row, x), TFloat64)
    assert tf.gradients(y, [x]).dy() == [None]
    d = tf.gradients(y, [x], Gradients.unconnectedGradients("zero")).dy(0)
    assert d is not None
    assert run(d, feeds={x: np.ones((2, 3))}).tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize("row", ROWS[1:], ids=lambda row: row.op)
def test_gradientBesideTheOpMatchesFiniteDifferences(tf: Ops, row: Row) -> None:
    # d(x * n(x)) / dx is n(x) on the diagonal: nothing flows through n itself
    assertGradient(tf, lambda x: tf.math.mul(x, tf.dtypes.cast(build(tf, row, x), TFloat64)),
                   [np.array([1.0, -2.0, 0.5])])


# -- bad inputs ----------------------------------------------------------------------------
@WITH_OUT_TYPE
@pytest.mark.parametrize("outType", [TFloat32, TUint8, TBool], ids=lambda t: t.NAME)
def test_outTypeOtherThanInt32OrInt64RaisesTypeError(
    tf: Ops, graph: Graph, row: Row, outType: type[TType]
) -> None:
    x = tf.constant([1.0])
    assertRejected(graph, lambda: build(tf, row, x, row.cls.outType(outType)), TypeError,
                   f"{row.op} '{row.op}' ({SITE}")


@rows
def test_nonOperandInputRaisesTypeError(tf: Ops, graph: Graph, row: Row) -> None:
    assertRejected(graph, lambda: build(tf, row, "x"), TypeError, row.op)
