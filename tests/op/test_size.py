"""Specification of the ``Size`` op class (the number of elements of a tensor)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.core import Placeholder, Size
from tfops.testing import assertGradientsClose
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
def test_opNameIsSize() -> None:
    assert Size.OP_NAME == "Size"


def test_defaultNamesAreSizeThenSize_1(tf: Ops) -> None:
    x = tf.constant([1.0])
    assert tf.size(x).op().name() == "Size"
    assert tf.size(x).op().name() == "Size_1"


def test_opTypeIsSize(tf: Ops) -> None:
    assert tf.size(tf.constant([1.0])).op().type() == "Size"


def test_withNameNamesTheOp(tf: Ops) -> None:
    assert tf.withName("count").size(tf.constant([1.0])).op().name() == "count"


def test_subScopePrefixesTheName(tf: Ops) -> None:
    assert tf.withSubScope("dims").size(tf.constant([1.0])).op().name() == "dims/Size"


def test_createOnAScope(tf: Ops) -> None:
    x = tf.constant([[1.0]])
    s = Size.create(tf.scope(), x)
    assert isinstance(s, Size)
    assert s.op().input(0) == x.asOutput()
    assert s.output() == s.asOutput() == s.op().output(0)


def test_outputIsInt32ByDefault(tf: Ops) -> None:
    s = tf.size(tf.constant([1.0]))
    assert s.op().attr("out_type") is TInt32
    assert s.asOutput().dataType() is TInt32


def test_outTypeInt64(tf: Ops) -> None:
    s = tf.size(tf.constant([1.0]), Size.outType(TInt64))
    assert s.op().attr("out_type") is TInt64
    assert s.asOutput().dataType() is TInt64


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
def test_acceptsEveryInputDataType(tf: Ops, dtype: type[TType]) -> None:
    s = tf.size(tf.placeholder(dtype, Placeholder.shape(Shape.of(4))))
    assert s.op().attr("T") is dtype


@pytest.mark.parametrize(
    "shape", [Shape.scalar(), Shape.of(3), Shape.of(-1, 3), Shape.unknown()], ids=str
)
def test_outputIsAScalar(tf: Ops, shape: Shape) -> None:
    assert tf.size(tf.placeholder(TFloat32, Placeholder.shape(shape))).asOutput().shape() == (
        Shape.scalar()
    )


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("shape", "expected"),
    [((), 1), ((0,), 0), ((5,), 5), ((2, 3), 6), ((4, 0, 1), 0), ((2, 1, 3, 2), 12)],
    ids=str,
)
def test_runReturnsTheNumberOfElements(
    tf: Ops, run: Run, dtype: type[TType], shape: tuple[int, ...], expected: int
) -> None:
    result = run(tf.size(tf.constant(np.zeros(shape, dtype.DTYPE))))
    assert result.dtype == np.int32
    assert result.shape == ()
    assert result.tolist() == expected


@pytest.mark.parametrize("outType", [TInt32, TInt64], ids=lambda t: t.NAME)
def test_runReturnsTheOutTypeDataType(tf: Ops, run: Run, outType: type[TType]) -> None:
    result = run(tf.size(tf.constant(np.zeros((2, 5))), Size.outType(outType)))
    assert result.dtype == outType.DTYPE
    assert result.tolist() == 10


@pytest.mark.parametrize("rows", [0, 1, 7])
def test_runReturnsTheSizeOfTheFedValue(tf: Ops, run: Run, rows: int) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(-1, 3)))
    assert run(tf.size(x), feeds={x: np.zeros((rows, 3), np.float32)}).tolist() == 3 * rows


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("Size") == (True, None)


def test_passesNoGradient(tf: Ops) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2, 3)))
    y = tf.dtypes.cast(tf.size(x), TFloat64)
    assert tf.gradients(y, [x]).dy() == [None]


def test_gradientMatchesFiniteDifferencesBesideASize(tf: Ops) -> None:
    # d(x * size(x)) / dx is size(x) on the diagonal: nothing flows through Size itself.
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(3)))
    y = tf.math.mul(x, tf.dtypes.cast(tf.size(x), TFloat64))
    check = assertGradientsClose(y, [x], {x: np.array([1.0, -2.0, 0.5])})
    np.testing.assert_array_equal(check.theoretical[0], 3.0 * np.eye(3))


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize("outType", [TFloat32, TUint8, TBool], ids=lambda t: t.NAME)
def test_outTypeOtherThanInt32OrInt64RaisesTypeError(tf: Ops, outType: type[TType]) -> None:
    with pytest.raises(TypeError, match=rf"Size 'Size' \(created at {HERE}:\d+\)"):
        tf.size(tf.constant([1.0]), Size.outType(outType))


def test_operandFromAnotherGraphRaisesValueError(tf: Ops) -> None:
    with Graph() as other:
        foreign = Ops.create(other).constant([1.0])
        with pytest.raises(ValueError, match=rf"Size 'Size' \(created at {HERE}:\d+\)"):
            tf.size(foreign)


def test_failedCreateLeavesTheGraphUnchanged(graph: Graph, tf: Ops) -> None:
    x = tf.constant([1.0])
    before = list(graph.operations())
    with pytest.raises(TypeError):
        tf.size(x, Size.outType(TFloat32))
    assert list(graph.operations()) == before
    assert tf.size(x).op().name() == "Size"
