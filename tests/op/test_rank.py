"""Specification of the ``Rank`` op class (the number of dimensions of a tensor)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.core import Gradients, Placeholder, Rank
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
def test_opNameIsRank() -> None:
    assert Rank.OP_NAME == "Rank"


def test_defaultNamesAreRankThenRank_1(tf: Ops) -> None:
    x = tf.constant([1.0])
    assert tf.rank(x).op().name() == "Rank"
    assert tf.rank(x).op().name() == "Rank_1"


def test_opTypeIsRank(tf: Ops) -> None:
    assert tf.rank(tf.constant([1.0])).op().type() == "Rank"


def test_withNameNamesTheOp(tf: Ops) -> None:
    assert tf.withName("ndims").rank(tf.constant([1.0])).op().name() == "ndims"


def test_subScopePrefixesTheName(tf: Ops) -> None:
    assert tf.withSubScope("dims").rank(tf.constant([1.0])).op().name() == "dims/Rank"


def test_createOnAScope(tf: Ops) -> None:
    x = tf.constant([[1.0]])
    r = Rank.create(tf.scope(), x)
    assert isinstance(r, Rank)
    assert r.op().input(0) == x.asOutput()
    assert r.output() == r.asOutput() == r.op().output(0)


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
def test_acceptsEveryInputDataTypeAndGivesInt32(tf: Ops, dtype: type[TType]) -> None:
    r = tf.rank(tf.placeholder(dtype, Placeholder.shape(Shape.of(4))))
    assert r.op().attr("T") is dtype
    assert r.asOutput().dataType() is TInt32


@pytest.mark.parametrize(
    "shape", [Shape.scalar(), Shape.of(3), Shape.of(-1, 3), Shape.unknown()], ids=str
)
def test_outputIsAScalar(tf: Ops, shape: Shape) -> None:
    assert tf.rank(tf.placeholder(TFloat32, Placeholder.shape(shape))).asOutput().shape() == (
        Shape.scalar()
    )


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (4, 0, 1), (1, 1, 1, 1)], ids=str)
def test_runReturnsTheNumberOfDimensions(
    tf: Ops, run: Run, dtype: type[TType], shape: tuple[int, ...]
) -> None:
    result = run(tf.rank(tf.constant(np.zeros(shape, dtype.DTYPE))))
    assert result.dtype == np.int32
    assert result.shape == ()
    assert result.tolist() == len(shape)


@pytest.mark.parametrize("shape", [(), (3,), (2, 0, 5)], ids=str)
def test_runReturnsTheRankOfTheFedValue(tf: Ops, run: Run, shape: tuple[int, ...]) -> None:
    x = tf.placeholder(TBool)
    assert run(tf.rank(x), feeds={x: np.zeros(shape, np.bool_)}).tolist() == len(shape)


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("Rank") == (True, None)


def test_passesNoGradient(tf: Ops) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2, 3)))
    y = tf.dtypes.cast(tf.rank(x), TFloat64)
    assert tf.gradients(y, [x]).dy() == [None]


def test_passesZerosWhenAskedForUnconnectedZeros(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2)))
    y = tf.dtypes.cast(tf.rank(x), TFloat64)
    d = tf.gradients(y, [x], Gradients.unconnectedGradients("zero")).dy(0)
    assert d is not None
    assert run(d, feeds={x: np.ones(2)}).tolist() == [0.0, 0.0]


def test_gradientMatchesFiniteDifferencesBesideARank(tf: Ops) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2, 3)))
    y = tf.math.mul(x, tf.dtypes.cast(tf.rank(x), TFloat64))
    check = assertGradientsClose(y, [x], {x: np.arange(6.0).reshape(2, 3)})
    np.testing.assert_array_equal(check.theoretical[0], 2.0 * np.eye(6))


# -- bad inputs ----------------------------------------------------------------------------
def test_nonOperandInputRaisesTypeError(tf: Ops) -> None:
    with pytest.raises(TypeError, match="Rank"):
        tf.rank("x")


def test_operandFromAnotherGraphRaisesValueError(tf: Ops) -> None:
    with Graph() as other:
        foreign = Ops.create(other).constant([1.0])
        with pytest.raises(ValueError, match=rf"Rank 'Rank' \(created at {HERE}:\d+\)"):
            tf.rank(foreign)


def test_failedCreateLeavesTheGraphUnchanged(graph: Graph, tf: Ops) -> None:
    x = tf.constant([1.0])
    before = list(graph.operations())
    with Graph() as other, pytest.raises(ValueError):
        tf.rank(Ops.create(other).constant([1.0]))
    with pytest.raises(TypeError):
        tf.rank("x")
    assert list(graph.operations()) == before
    assert tf.rank(x).op().name() == "Rank"
