"""Specification of the ``OnesLike`` op class."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.core import Gradients, OnesLike, Placeholder
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
        return np.zeros(shape, np.bool_)
    return values.astype(dtype.DTYPE)


# -- construction --------------------------------------------------------------------------
def test_opNameIsOnesLike() -> None:
    assert OnesLike.OP_NAME == "OnesLike"


def test_defaultNamesAreOnesLikeThenOnesLike_1(tf: Ops) -> None:
    x = tf.constant([1.0])
    assert tf.onesLike(x).op().name() == "OnesLike"
    assert tf.onesLike(x).op().name() == "OnesLike_1"


def test_opTypeIsOnesLike(tf: Ops) -> None:
    assert tf.onesLike(tf.constant([1.0])).op().type() == "OnesLike"


def test_withNameNamesTheOp(tf: Ops) -> None:
    assert tf.withName("z").onesLike(tf.constant([1.0])).op().name() == "z"


def test_outputIsNamedY(tf: Ops) -> None:
    x = tf.constant([1.0])
    z = OnesLike.create(tf.scope(), x)
    assert isinstance(z, OnesLike)
    assert z.op().input(0) == x.asOutput()
    assert z.y() == z.asOutput() == z.op().output(0)


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
def test_outputHasTheInputDataType(tf: Ops, dtype: type[TType]) -> None:
    assert tf.onesLike(tf.placeholder(dtype)).asOutput().dataType() is dtype


@pytest.mark.parametrize(
    "shape",
    [Shape.scalar(), Shape.of(2, 3), Shape.of(0, 4), Shape.of(-1, 3), Shape.unknown()],
    ids=str,
)
def test_outputHasTheInputShape(tf: Ops, shape: Shape) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(shape))
    assert tf.onesLike(x).asOutput().shape() == shape


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(), (0,), (2, 3), (1, 0, 2)], ids=str)
def test_runGivesOnesOfTheInputShapeAndType(
    tf: Ops, run: Run, dtype: type[TType], shape: tuple[int, ...]
) -> None:
    result = run(tf.onesLike(tf.constant(sample(dtype, shape))))
    assert result.dtype == dtype.DTYPE
    assert result.shape == shape
    np.testing.assert_array_equal(result, np.ones(shape, dtype.DTYPE))


def test_boolOnesAreTrue(tf: Ops, run: Run) -> None:
    assert run(tf.onesLike(tf.constant([True, False]))).tolist() == [True, True]


def test_specialInputValuesStillGiveOnes(tf: Ops, run: Run) -> None:
    result = run(tf.onesLike(tf.constant([np.nan, np.inf, -np.inf, 0.0])))
    assert result.tolist() == [1.0, 1.0, 1.0, 1.0]


def test_runOfAPartiallyKnownInputGivesTheFedShape(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TInt64, Placeholder.shape(Shape.of(-1, 2)))
    assert run(tf.onesLike(x), feeds={x: np.ones((3, 2), np.int64)}).tolist() == [[1, 1]] * 3


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("OnesLike") == (True, None)


def test_passesNoGradient(tf: Ops) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2, 3)))
    assert tf.gradients(tf.onesLike(x), [x]).dy() == [None]


def test_passesZerosWhenAskedForUnconnectedZeros(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2, 3)))
    d = tf.gradients(tf.onesLike(x), [x], Gradients.unconnectedGradients("zero")).dy(0)
    assert d is not None
    assert run(d, feeds={x: np.ones((2, 3))}).tolist() == [[0.0] * 3] * 2


def test_onlyTheOtherPathContributes(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2)))
    y = tf.math.mul(tf.math.square(x), tf.onesLike(x))
    d = tf.gradients(y, [x]).dy(0)
    assert d is not None
    assert run(d, feeds={x: np.array([1.5, -2.0])}).tolist() == [3.0, -4.0]


# -- bad inputs ----------------------------------------------------------------------------
def test_operandFromAnotherGraphRaisesValueError(tf: Ops) -> None:
    with Graph() as other:
        foreign = Ops.create(other).constant([1.0])
        with pytest.raises(ValueError, match=rf"OnesLike 'OnesLike' \(created at {HERE}:\d+\)"):
            tf.onesLike(foreign)


def test_valueThatIsNotATensorRaisesTypeError(tf: Ops) -> None:
    with pytest.raises(TypeError, match="OnesLike"):
        tf.onesLike("x")


def test_failedCreateLeavesTheGraphUnchanged(graph: Graph, tf: Ops) -> None:
    x = tf.constant([1.0])
    before = list(graph.operations())
    with Graph() as other:
        foreign = Ops.create(other).constant(1.0)
        with pytest.raises(ValueError):
            tf.onesLike(foreign)
    assert list(graph.operations()) == before
    assert tf.onesLike(x).op().name() == "OnesLike"
