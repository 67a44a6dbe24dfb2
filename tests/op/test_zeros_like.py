"""Specification of the ``ZerosLike`` op class."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.core import Gradients, Placeholder, ZerosLike
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


def sample(dtype: type[TType], shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    values: np.ndarray[Any, Any] = np.arange(int(np.prod(shape))).reshape(shape) + 3
    if dtype is TBool:
        return np.ones(shape, np.bool_)
    return values.astype(dtype.DTYPE)


# -- construction --------------------------------------------------------------------------
def test_opNameIsZerosLike() -> None:
    assert ZerosLike.OP_NAME == "ZerosLike"


def test_defaultNamesAreZerosLikeThenZerosLike_1(tf: Ops) -> None:
    x = tf.constant([1.0])
    assert tf.zerosLike(x).op().name() == "ZerosLike"
    assert tf.zerosLike(x).op().name() == "ZerosLike_1"


def test_opTypeIsZerosLike(tf: Ops) -> None:
    assert tf.zerosLike(tf.constant([1.0])).op().type() == "ZerosLike"


def test_withNameNamesTheOp(tf: Ops) -> None:
    assert tf.withName("z").zerosLike(tf.constant([1.0])).op().name() == "z"


def test_outputIsNamedY(tf: Ops) -> None:
    x = tf.constant([1.0])
    z = ZerosLike.create(tf.scope(), x)
    assert isinstance(z, ZerosLike)
    assert z.op().input(0) == x.asOutput()
    assert z.y() == z.asOutput() == z.op().output(0)


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
def test_outputHasTheInputDataType(tf: Ops, dtype: type[TType]) -> None:
    assert tf.zerosLike(tf.placeholder(dtype)).asOutput().dataType() is dtype


@pytest.mark.parametrize(
    "shape",
    [Shape.scalar(), Shape.of(2, 3), Shape.of(0, 4), Shape.of(-1, 3), Shape.unknown()],
    ids=str,
)
def test_outputHasTheInputShape(tf: Ops, shape: Shape) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(shape))
    assert tf.zerosLike(x).asOutput().shape() == shape


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(), (0,), (2, 3), (1, 0, 2)], ids=str)
def test_runGivesZerosOfTheInputShapeAndType(
    tf: Ops, run: Run, dtype: type[TType], shape: tuple[int, ...]
) -> None:
    result = run(tf.zerosLike(tf.constant(sample(dtype, shape))))
    assert result.dtype == dtype.DTYPE
    assert result.shape == shape
    np.testing.assert_array_equal(result, np.zeros(shape, dtype.DTYPE))


def test_boolZerosAreFalse(tf: Ops, run: Run) -> None:
    assert run(tf.zerosLike(tf.constant([True, False]))).tolist() == [False, False]


def test_specialInputValuesStillGiveZeros(tf: Ops, run: Run) -> None:
    result = run(tf.zerosLike(tf.constant([np.nan, np.inf, -np.inf])))
    assert result.tolist() == [0.0, 0.0, 0.0]
    assert not np.signbit(result).any()


def test_runOfAPartiallyKnownInputGivesTheFedShape(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TInt64, Placeholder.shape(Shape.of(-1, 2)))
    assert run(tf.zerosLike(x), feeds={x: np.ones((3, 2), np.int64)}).tolist() == [[0, 0]] * 3


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("ZerosLike") == (True, None)


def test_passesNoGradient(tf: Ops) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2, 3)))
    assert tf.gradients(tf.zerosLike(x), [x]).dy() == [None]


def test_passesZerosWhenAskedForUnconnectedZeros(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2, 3)))
    d = tf.gradients(tf.zerosLike(x), [x], Gradients.unconnectedGradients("zero")).dy(0)
    assert d is not None
    assert run(d, feeds={x: np.ones((2, 3))}).tolist() == [[0.0] * 3] * 2


def test_onlyTheOtherPathContributes(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2)))
    y = tf.math.add(tf.math.square(x), tf.zerosLike(x))
    d = tf.gradients(y, [x]).dy(0)
    assert d is not None
    assert run(d, feeds={x: np.array([1.5, -2.0])}).tolist() == [3.0, -4.0]


# -- bad inputs ----------------------------------------------------------------------------
def test_operandFromAnotherGraphRaisesValueError(tf: Ops) -> None:
    with Graph() as other:
        foreign = Ops.create(other).constant([1.0])
        with pytest.raises(ValueError, match=rf"ZerosLike 'ZerosLike' \(created at {HERE}:\d+\)"):
            tf.zerosLike(foreign)


def test_valueThatIsNotATensorRaisesTypeError(tf: Ops) -> None:
    with pytest.raises(TypeError, match="ZerosLike"):
        tf.zerosLike("x")


def test_failedCreateLeavesTheGraphUnchanged(graph: Graph, tf: Ops) -> None:
    x = tf.constant([1.0])
    before = list(graph.operations())
    with Graph() as other:
        foreign = Ops.create(other).constant(1.0)
        with pytest.raises(ValueError):
            tf.zerosLike(foreign)
    assert list(graph.operations()) == before
    assert tf.zerosLike(x).op().name() == "ZerosLike"
