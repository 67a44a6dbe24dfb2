"""Specification of the ``All`` op class (reduce logical and)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import All, Placeholder
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
HERE = re.escape(__file__)
Axis = int | Sequence[int] | np.ndarray[Any, Any]


def sample(shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """Mostly true, so some groups are all true and some are not."""
    return np.random.default_rng(9).integers(0, 4, size=shape) > 0


# -- construction --------------------------------------------------------------------------
def test_opNameIsAll() -> None:
    assert All.OP_NAME == "All"


def test_defaultNamesAreAllThenAll_1(tf: Ops) -> None:
    x = tf.constant([True, False])
    assert tf.all(x, 0).op().name() == "All"
    assert tf.all(x, 0).op().name() == "All_1"


def test_opTypeIsAll(tf: Ops) -> None:
    assert tf.all(tf.constant([True]), 0).op().type() == "All"


def test_withNameNamesTheOp(tf: Ops) -> None:
    assert tf.withName("valid").all(tf.constant([True]), 0).op().name() == "valid"


def test_subScopePrefixesTheName(tf: Ops) -> None:
    assert tf.withSubScope("check").all(tf.constant([True]), 0).op().name() == "check/All"


def test_createWithKeepDimsOption(tf: Ops) -> None:
    a = All.create(tf.scope(), tf.constant([[True]]), 0, All.keepDims(True))
    assert isinstance(a, All)
    assert a.op().attr("keep_dims") is True
    assert a.output() == a.asOutput() == a.op().output(0)


def test_keepDimsIsFalseByDefault(tf: Ops) -> None:
    assert tf.all(tf.constant([True]), 0).op().attr("keep_dims") is False


def test_outputIsBool(tf: Ops) -> None:
    a = tf.all(tf.placeholder(TBool, Placeholder.shape(Shape.of(2))), 0)
    assert a.op().attr("T") is TBool
    assert a.asOutput().dataType() is TBool


def test_int64AxisIsAccepted(tf: Ops) -> None:
    a = tf.all(tf.constant([[True, False]]), np.int64(1))
    assert a.op().attr("Tidx") is TInt64
    assert a.asOutput().shape() == Shape.of(1)


@pytest.mark.parametrize(
    ("shape", "axis", "keep", "expected"),
    [
        (Shape.of(2, 3), 0, False, Shape.of(3)),
        (Shape.of(2, 3), 1, True, Shape.of(2, 1)),
        (Shape.of(2, 3), -1, False, Shape.of(2)),
        (Shape.of(2, 3), [0, 1], False, Shape.scalar()),
        (Shape.of(2, 3), [-2, -1], True, Shape.of(1, 1)),
        (Shape.of(2, 3), np.array([], np.int32), False, Shape.of(2, 3)),
        (Shape.of(0, 3), 0, False, Shape.of(3)),
        (Shape.of(-1, 3), 1, False, Shape.of(-1)),
        (Shape.of(-1, 3), 0, True, Shape.of(1, 3)),
        (Shape.unknown(), 0, False, Shape.unknown()),
    ],
    ids=lambda v: str(v.tolist()) if isinstance(v, np.ndarray) else str(v),
)
def test_staticShapeInference(
    tf: Ops, shape: Shape, axis: Axis, keep: bool, expected: Shape
) -> None:
    x = tf.placeholder(TBool, Placeholder.shape(shape))
    assert tf.all(x, axis, All.keepDims(keep)).asOutput().shape() == expected


def test_nonConstantAxisWithKeepDimsKeepsTheRank(tf: Ops) -> None:
    x = tf.placeholder(TBool, Placeholder.shape(Shape.of(2, 3)))
    a = tf.all(x, tf.placeholder(TInt32), All.keepDims(True))
    assert a.asOutput().shape() == Shape.of(-1, -1)


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("shape", "axis", "keep"),
    [
        ((5,), 0, False),
        ((2, 3), 1, False),
        ((2, 3), -1, True),
        ((2, 3), -2, False),
        ((3, 4, 2), [0, 2], False),
        ((3, 4, 2), [-1, 1], True),
        ((2, 3), [0, 1], False),
        ((), [], False),
        ((0, 3), 1, True),
    ],
    ids=str,
)
def test_runMatchesNumpy(
    tf: Ops, run: Run, shape: tuple[int, ...], axis: int | list[int], keep: bool
) -> None:
    value = sample(shape)
    result = run(tf.all(tf.constant(value), np.array(axis, np.int32), All.keepDims(keep)))
    expected = np.all(value, axis=tuple(np.atleast_1d(axis).tolist()), keepdims=keep)
    assert result.dtype == np.bool_
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result, expected)


def test_allOfNoElementsIsTrue(tf: Ops, run: Run) -> None:
    assert run(tf.all(tf.constant(np.zeros((0, 3), np.bool_)), 0)).tolist() == [True] * 3


def test_runOfARow(tf: Ops, run: Run) -> None:
    x = tf.constant([[True, True], [True, False], [False, False]])
    assert run(tf.all(x, 1)).tolist() == [True, False, False]


def test_runWithANonConstantAxis(tf: Ops, run: Run) -> None:
    x = tf.constant([[True, True, False], [True, True, True]])
    axis = tf.placeholder(TInt32)
    a = tf.all(x, axis)
    assert run(a, feeds={axis: np.array(-1, np.int32)}).tolist() == [False, True]
    assert run(a, feeds={axis: np.array([0], np.int32)}).tolist() == [True, True, False]


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("All") == (True, None)


def test_passesNoGradient(tf: Ops) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2, 3)))
    flags = tf.math.equal(x, 0.0)
    y = tf.dtypes.cast(tf.all(flags, 1), TFloat64)
    assert tf.gradients(y, [x]).dy() == [None]


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "dtype", [TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8], ids=lambda t: t.NAME
)
def test_nonBoolInputRaisesTypeError(tf: Ops, dtype: type[TType]) -> None:
    x = tf.placeholder(dtype, Placeholder.shape(Shape.of(2)))
    with pytest.raises(TypeError, match=rf"All 'All' \(created at {HERE}:\d+\).*bool"):
        tf.all(x, 0)


def test_floatAxisRaisesTypeError(tf: Ops) -> None:
    with pytest.raises(TypeError, match=rf"All 'All' \(created at {HERE}:\d+\)"):
        tf.all(tf.constant([True]), tf.constant(0.0))


@pytest.mark.parametrize("axis", [2, -3, [0, 2]], ids=str)
def test_axisOutOfRangeRaisesValueError(tf: Ops, axis: int | list[int]) -> None:
    x = tf.placeholder(TBool, Placeholder.shape(Shape.of(-1, 3)))
    with pytest.raises(ValueError, match=rf"All 'All' \(created at {HERE}:\d+\).*out of range"):
        tf.all(x, axis)


def test_operandFromAnotherGraphRaisesValueError(tf: Ops) -> None:
    with Graph() as other:
        foreign = Ops.create(other).constant([True])
        with pytest.raises(ValueError, match=rf"All 'All' \(created at {HERE}:\d+\)"):
            tf.all(foreign, 0)


def test_nonConstantAxisOutOfRangeRaisesInvalidArgumentErrorAtRunTime(
    tf: Ops, run: Run
) -> None:
    axis = tf.placeholder(TInt32)
    a = tf.withName("a").all(tf.constant([[True, False]]), axis)
    with pytest.raises(InvalidArgumentError, match=rf"'a'.*created at {HERE}:\d+") as info:
        run(a, feeds={axis: np.array(-3, np.int32)})
    assert info.value.op == a.op()


def test_duplicateAxesRaiseInvalidArgumentErrorAtRunTime(tf: Ops, run: Run) -> None:
    a = tf.all(tf.constant([[True, False]]), [0, -2])
    with pytest.raises(InvalidArgumentError, match="twice.*'All'"):
        run(a)


def test_failedCreateLeavesTheGraphUnchanged(graph: Graph, tf: Ops) -> None:
    b, x = tf.constant([True, False]), tf.constant([1.0])
    before = list(graph.operations())
    with pytest.raises(ValueError):
        tf.all(b, 1)
    with pytest.raises(TypeError):
        tf.all(x, 0)
    assert list(graph.operations()) == before
    assert tf.all(b, 0).op().name() == "All"
