"""Specification of the ``Range`` op class: the sequence start, start + delta, ... up to
(excluding) limit, of int32, int64, float32 or float64 scalars; a constant range has a static
length, and a range that cannot end is rejected."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]
RANGE_TYPES: list[type[TType]] = [TInt32, TInt64, TFloat32, TFloat64]
SITE = f"created at {__file__}:"


def scalars(dtype: type[TType], *values: float) -> list[np.ndarray[Any, Any]]:
    return [np.array(v, dtype.DTYPE) for v in values]


# -- construction --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "dtype"),
    [((0, 3, 1), TInt32), ((0.0, 1.0, 0.5), TFloat32),
     *[(tuple(scalars(t, 1, 7, 2)), t) for t in RANGE_TYPES]],
    ids=["pythonInts", "pythonFloats", *[t.NAME for t in RANGE_TYPES]],
)
def test_outputHasTheDataTypeOfTheInputs(
    tf: Ops, args: tuple[Any, ...], dtype: type[TType]
) -> None:
    r = tf.range(*args)
    assert r.asOutput().dataType() is r.op().attr("Tidx") is dtype


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
    limit = placeholder(tf, TInt32, ())
    assert tf.range(0, limit, 1).asOutput().shape() == Shape.of(-1)
    delta = tf.placeholder(TFloat64)  # of unknown shape
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
    assert (result.dtype, result.shape) == (dtype.DTYPE, (len(expected),))
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


def test_runMatchesNumpyArangeForAnInexactStepAndBeyondTheInt32Range(tf: Ops, run: Run) -> None:
    inexact = run(tf.range(*scalars(TFloat64, 0.0, 1.0, 0.1)))
    np.testing.assert_array_equal(inexact, np.arange(10) * 0.1)
    r = tf.range(*scalars(TInt64, 2**40, 2**40 + 6, 2))
    assert run(r).tolist() == [2**40, 2**40 + 2, 2**40 + 4]


def test_runWithInputsKnownOnlyAtRunTime(tf: Ops, run: Run) -> None:
    limit = tf.placeholder(TInt32)
    r = tf.range(1, limit, 2)
    assert run(r, feeds={limit: np.array(8, np.int32)}).tolist() == [1, 3, 5, 7]
    assert run(r, feeds={limit: np.array(1, np.int32)}).tolist() == []


# -- gradient ------------------------------------------------------------------------------
def test_isNotDifferentiableAndPassesNoGradient(tf: Ops) -> None:
    assert lookupGradient("Range") == (True, None)
    start, limit = placeholder(tf, TFloat64, ()), placeholder(tf, TFloat64, ())
    y = tf.sum(tf.range(start, limit, np.float64(0.5)), 0)
    assert tf.gradients(y, [start, limit]).dy() == [None, None]


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ((TFloat16,) * 3, "Range 'Range'"),
        ((TUint8,) * 3, "Range 'Range'"),
        ((TBool,) * 3, "Range 'Range'"),
        ((0, 2.5, 2.5), "Range 'Range'"),  # operands of two data types
        ((0, 2.5, 0.5), "Range input 'limit'"),  # Python numbers of two kinds
    ],
    ids=["float16", "uint8", "bool", "mixedOperands", "mixedPythonNumbers"],
)
def test_disallowedOrMixedDataTypesRaiseTypeError(
    tf: Ops, graph: Graph, args: tuple[Any, ...], fragment: str
) -> None:
    if isinstance(args[0], type):
        operands = [placeholder(tf, t, ()) for t in args]
    elif fragment == "Range 'Range'":
        operands = [tf.constant(a) for a in args]
    else:
        operands = list(args)
    assertRejected(graph, lambda: tf.range(*operands), TypeError, f"{fragment} ({SITE}")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("vector", 4, 1), "start must be a scalar"),
        ((0, "vector", 1), "limit must be a scalar"),
        ((0, 4, "vector"), "delta must be a scalar"),
        ((0, 5, 0), "delta must not be 0"),
        ((0.0, 1.0, 0.0), "delta must not be 0"),
        ((5, 0, 1), "start (5) must be at most limit (0) when delta > 0"),
        ((0, 5, -1), "start (0) must be at least limit (5) when delta < 0"),
        ((0.0, np.inf, 1.0), "a range from 0.0 to inf by 1.0 has no finite number of elements"),
    ],
    ids=str,
)
def test_badConstantInputsRaiseValueError(
    tf: Ops, graph: Graph, args: tuple[Any, ...], message: str
) -> None:
    operands = [placeholder(tf, TInt32, (1,)) if a == "vector" else a for a in args]
    assertRejected(graph, lambda: tf.range(*operands), ValueError,
                   f"Range 'Range' ({SITE}", f"): {message}")


@pytest.mark.parametrize(
    ("fed", "message"),
    [({"delta": 0}, "delta must not be 0"), ({"delta": -1}, "must be at least limit"),
     ({"limit": [3]}, "limit must be a scalar")],
    ids=str,
)
def test_badInputsRaiseInvalidArgumentErrorAtRunTime(
    tf: Ops, run: Run, fed: dict[str, Any], message: str
) -> None:
    inputs: dict[str, Any] = {"start": 0, "limit": 5, "delta": 1}
    (name, value), = fed.items()
    inputs[name] = tf.placeholder(TInt32)
    r = tf.withName("r").range(*inputs.values())
    with pytest.raises(InvalidArgumentError, match=f"{message}.*'r'.*{SITE}") as info:
        run(r, feeds={inputs[name]: np.array(value, np.int32)})
    assert info.value.op == r.op()
