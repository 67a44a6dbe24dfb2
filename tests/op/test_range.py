"""Specification of the ``Range`` op class (a sequence of numbers)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import Placeholder, Range
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
RANGE_TYPES: list[type[TType]] = [TInt32, TInt64, TFloat32, TFloat64]
HERE = re.escape(__file__)


def scalars(dtype: type[TType], *values: float) -> list[np.ndarray[Any, Any]]:
    return [np.array(v, dtype.DTYPE) for v in values]


# -- construction --------------------------------------------------------------------------
def test_opNameIsRange() -> None:
    assert Range.OP_NAME == "Range"


def test_defaultNamesAreRangeThenRange_1(tf: Ops) -> None:
    assert tf.range(0, 3, 1).op().name() == "Range"
    assert tf.range(0, 3, 1).op().name() == "Range_1"


def test_opTypeIsRange(tf: Ops) -> None:
    assert tf.range(0, 3, 1).op().type() == "Range"


def test_withNameNamesTheOp(tf: Ops) -> None:
    assert tf.withName("steps").range(0, 3, 1).op().name() == "steps"


def test_subScopePrefixesTheName(tf: Ops) -> None:
    assert tf.withSubScope("axes").range(0, 3, 1).op().name() == "axes/Range"


def test_createOnAScope(tf: Ops) -> None:
    start, limit, delta = tf.constant(0), tf.constant(4), tf.constant(2)
    r = Range.create(tf.scope(), start, limit, delta)
    assert isinstance(r, Range)
    assert [r.op().input(i) for i in range(3)] == [
        start.asOutput(), limit.asOutput(), delta.asOutput()]
    assert r.output() == r.asOutput() == r.op().output(0)


@pytest.mark.parametrize(
    ("args", "dtype"), [((0, 3, 1), TInt32), ((0.0, 1.0, 0.5), TFloat32)], ids=str
)
def test_pythonNumbersGiveInt32OrFloat32(
    tf: Ops, args: tuple[float, ...], dtype: type[TType]
) -> None:
    r = tf.range(*args)
    assert r.op().attr("Tidx") is dtype
    assert r.asOutput().dataType() is dtype


@pytest.mark.parametrize("dtype", RANGE_TYPES, ids=lambda t: t.NAME)
def test_outputHasTheDataTypeOfTheInputs(tf: Ops, dtype: type[TType]) -> None:
    r = tf.range(*scalars(dtype, 1, 7, 2))
    assert r.op().attr("Tidx") is dtype
    assert r.asOutput().dataType() is dtype


@pytest.mark.parametrize(
    ("args", "length"),
    [
        ((0, 5, 1), 5),
        ((3, 18, 3), 5),
        ((3, 19, 3), 6),
        ((10, 0, -3), 4),
        ((-2, -2, 1), 0),
        ((0.0, 1.0, 0.25), 4),
        ((0.0, 1.0, 0.3), 4),
        ((1.5, -1.5, -1.0), 3),
    ],
    ids=str,
)
def test_constantInputsGiveTheStaticLength(
    tf: Ops, args: tuple[float, ...], length: int
) -> None:
    assert tf.range(*args).asOutput().shape() == Shape.of(length)


def test_nonConstantInputsGiveAVectorOfUnknownLength(tf: Ops) -> None:
    limit = tf.placeholder(TInt32, Placeholder.shape(Shape.scalar()))
    assert tf.range(0, limit, 1).asOutput().shape() == Shape.of(-1)


def test_inputsOfUnknownShapeGiveAVectorOfUnknownLength(tf: Ops) -> None:
    delta = tf.placeholder(TFloat64)
    assert tf.range(np.float64(0), np.float64(1), delta).asOutput().shape() == Shape.of(-1)


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", RANGE_TYPES, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((0, 5, 1), [0, 1, 2, 3, 4]),
        ((3, 18, 3), [3, 6, 9, 12, 15]),
        ((3, 19, 3), [3, 6, 9, 12, 15, 18]),
        ((10, 0, -3), [10, 7, 4, 1]),
        ((-4, 4, 4), [-4, 0]),
        ((2, 2, 1), []),
        ((2, 2, -1), []),
        ((7, 8, 5), [7]),
    ],
    ids=str,
)
def test_runMatchesTheExpectedSequence(
    tf: Ops, run: Run, dtype: type[TType], args: tuple[int, ...], expected: list[int]
) -> None:
    result = run(tf.range(*scalars(dtype, *args)))
    assert result.dtype == dtype.DTYPE
    assert result.shape == (len(expected),)
    assert result.tolist() == expected


@pytest.mark.parametrize("dtype", [TFloat32, TFloat64], ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((0.0, 1.0, 0.25), [0.0, 0.25, 0.5, 0.75]),
        ((0.5, 2.0, 0.5), [0.5, 1.0, 1.5]),
        ((0.5, 2.1, 0.5), [0.5, 1.0, 1.5, 2.0]),
        ((1.5, -1.5, -1.0), [1.5, 0.5, -0.5]),
    ],
    ids=str,
)
def test_runOfFractionalSteps(
    tf: Ops, run: Run, dtype: type[TType], args: tuple[float, ...], expected: list[float]
) -> None:
    result = run(tf.range(*scalars(dtype, *args)))
    assert result.dtype == dtype.DTYPE
    assert result.tolist() == expected


def test_runMatchesNumpyArangeForAnInexactStep(tf: Ops, run: Run) -> None:
    result = run(tf.range(*scalars(TFloat64, 0.0, 1.0, 0.1)))
    np.testing.assert_array_equal(result, np.arange(10) * 0.1)


def test_runOfInt64BeyondTheInt32Range(tf: Ops, run: Run) -> None:
    r = tf.range(*scalars(TInt64, 2**40, 2**40 + 6, 2))
    assert run(r).tolist() == [2**40, 2**40 + 2, 2**40 + 4]


def test_runWithInputsKnownOnlyAtRunTime(tf: Ops, run: Run) -> None:
    limit = tf.placeholder(TInt32)
    r = tf.range(1, limit, 2)
    assert run(r, feeds={limit: np.array(8, np.int32)}).tolist() == [1, 3, 5, 7]
    assert run(r, feeds={limit: np.array(1, np.int32)}).tolist() == []


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("Range") == (True, None)


def test_passesNoGradient(tf: Ops) -> None:
    start = tf.placeholder(TFloat64, Placeholder.shape(Shape.scalar()))
    limit = tf.placeholder(TFloat64, Placeholder.shape(Shape.scalar()))
    y = tf.sum(tf.range(start, limit, np.float64(0.5)), 0)
    assert tf.gradients(y, [start, limit]).dy() == [None, None]


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [TFloat16, TUint8, TBool], ids=lambda t: t.NAME)
def test_disallowedDataTypesRaiseTypeError(tf: Ops, dtype: type[TType]) -> None:
    start, limit, delta = (tf.placeholder(dtype, Placeholder.shape(Shape.scalar()))
                           for _ in range(3))
    with pytest.raises(TypeError, match=rf"Range 'Range' \(created at {HERE}:\d+\)"):
        tf.range(start, limit, delta)


def test_inputsOfDifferentDataTypesRaiseTypeError(tf: Ops) -> None:
    start, limit = tf.constant(0), tf.constant(2.5)
    with pytest.raises(TypeError, match=rf"Range 'Range' \(created at {HERE}:\d+\)"):
        tf.range(start, limit, limit)


def test_pythonNumbersOfDifferentKindsRaiseTypeError(tf: Ops) -> None:
    with pytest.raises(TypeError, match=rf"Range input 'limit' \(created at {HERE}:\d+\)"):
        tf.range(0, 2.5, 0.5)


@pytest.mark.parametrize("position", [0, 1, 2])
def test_nonScalarInputRaisesValueError(tf: Ops, position: int) -> None:
    args: list[Any] = [0, 4, 1]
    args[position] = tf.placeholder(TInt32, Placeholder.shape(Shape.of(1)))
    name = ["start", "limit", "delta"][position]
    with pytest.raises(ValueError, match=rf"Range 'Range' \(created at {HERE}:\d+\): {name} "
                                         "must be a scalar"):
        tf.range(*args)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, 5, 0), "delta must not be 0"),
        ((0.0, 1.0, 0.0), "delta must not be 0"),
        ((5, 0, 1), r"start \(5\) must be at most limit \(0\) when delta > 0"),
        ((0, 5, -1), r"start \(0\) must be at least limit \(5\) when delta < 0"),
        ((0.0, np.inf, 1.0), "a range from 0.0 to inf by 1.0 has no finite number of elements"),
    ],
    ids=str,
)
def test_badConstantInputsRaiseValueError(tf: Ops, args: tuple[float, ...], message: str) -> None:
    with pytest.raises(ValueError, match=rf"Range 'Range' \(created at {HERE}:\d+\): {message}"):
        tf.range(*args)


@pytest.mark.parametrize(
    ("delta", "message"),
    [(0, "delta must not be 0"), (-1, "must be at least limit")],
    ids=str,
)
def test_badInputsRaiseInvalidArgumentErrorAtRunTime(
    tf: Ops, run: Run, delta: int, message: str
) -> None:
    step = tf.placeholder(TInt32)
    r = tf.withName("r").range(0, 5, step)
    with pytest.raises(InvalidArgumentError, match=rf"{message}.*'r'.*created at {HERE}:\d+"):
        run(r, feeds={step: np.array(delta, np.int32)})


def test_nonScalarFedInputRaisesInvalidArgumentErrorAtRunTime(tf: Ops, run: Run) -> None:
    limit = tf.placeholder(TInt32)
    r = tf.range(0, limit, 1)
    with pytest.raises(InvalidArgumentError, match="limit must be a scalar") as info:
        run(r, feeds={limit: np.array([3], np.int32)})
    assert info.value.op == r.op()


def test_operandFromAnotherGraphRaisesValueError(tf: Ops) -> None:
    with Graph() as other:
        foreign = Ops.create(other).constant(3)
        with pytest.raises(ValueError, match=rf"Range 'Range' \(created at {HERE}:\d+\)"):
            tf.range(0, foreign, 1)


def test_failedCreateLeavesTheGraphUnchanged(graph: Graph, tf: Ops) -> None:
    zero, five, one = tf.constant(0), tf.constant(5), tf.constant(1)
    half = tf.constant(0.5)
    before = list(graph.operations())
    with pytest.raises(ValueError):
        tf.range(five, zero, one)
    with pytest.raises(TypeError):
        tf.range(zero, five, half)
    assert list(graph.operations()) == before
    assert tf.range(zero, five, one).op().name() == "Range"
