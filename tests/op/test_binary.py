"""Specification of the broadcasting binary ops of ``tfops.op.math``, ``z = f(x, y)``: one row
per op (as JAX's ``LAX_OPS``), each test over the rows.

A row gives the facade call, the numpy reference the kernel must match bit for bit, the data
types the op takes and those it rejects, where its operands are drawn from (a domain away from
poles and kinks), literal cases (special values, overflow, sign rules), the values that raise
``InvalidArgumentError`` at run time, and how its gradient is checked against finite differences
in float64 (0: not differentiable, 1: first order, 2: second order too). The comparisons are in
``test_comparisons.py``; naming, graphs and docs in ``tests/test_every_op.py``.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from opchecks import (
    ALL,
    FLOATS,
    INTEGERS,
    NUMBERS,
    assertGradient,
    assertRejected,
    placeholder,
)

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import Gradients
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Array = np.ndarray[Any, Any]
Run = Callable[..., Any]  # the conftest fixture: fetches in the test's session
Domain = Callable[[np.random.Generator, tuple[int, ...], type[TType]], Array]
U = -1  # an unknown dimension
SIGNED_NUMBERS = FLOATS + (TInt32, TInt64)
INF, NAN = np.inf, np.nan


# -- input domains ----------------------------------------------------------------------------
def anywhere(rng: np.random.Generator, shape: tuple[int, ...], dtype: type[TType]) -> Array:
    """Floats in [-2, 2], integers in [-5, 5] ([0, 5] unsigned), bools either."""
    if dtype is TBool:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype in FLOATS:
        return rng.uniform(-2.0, 2.0, shape).astype(dtype.DTYPE)
    return rng.integers(0 if dtype is TUint8 else -5, 6, shape).astype(dtype.DTYPE)


def nonzero(rng: np.random.Generator, shape: tuple[int, ...], dtype: type[TType]) -> Array:
    """Away from zero (a pole or a jump): floats in [-2.5, -0.5] or [0.5, 2.5], no integer 0."""
    v = anywhere(rng, shape, dtype)
    if dtype in FLOATS:
        return np.where(v < 0, v - 0.5, v + 0.5).astype(dtype.DTYPE)
    return np.where(v == 0, 1, v).astype(dtype.DTYPE)


def positive(rng: np.random.Generator, shape: tuple[int, ...], dtype: type[TType]) -> Array:
    """Floats in [0.5, 2.5], integers in [1, 5]: every real power of them is defined."""
    return np.abs(nonzero(rng, shape, dtype))


def exponents(rng: np.random.Generator, shape: tuple[int, ...], dtype: type[TType]) -> Array:
    """Floats in [-2, 2], integers in [0, 5]: no negative integer power."""
    v = anywhere(rng, shape, dtype)
    return v if dtype in FLOATS else np.abs(v)


# -- numpy references where numpy's own differs from TensorFlow's -----------------------------
def truncatingDivide(x: Array, y: Array) -> Array:
    """TensorFlow's Div: integer division truncates towards zero (numpy's floors)."""
    if x.dtype.kind == "f":
        return np.true_divide(x, y)
    return np.fix(np.true_divide(x, y)).astype(x.dtype)


def floorDivide(x: Array, y: Array) -> Array:
    """TensorFlow's FloorDiv: a float result is the floor of the rounded quotient."""
    return np.floor(np.true_divide(x, y)) if x.dtype.kind == "f" else np.floor_divide(x, y)


def divideNoNan(x: Array, y: Array) -> Array:
    return np.where(y == 0, np.zeros((), x.dtype), np.true_divide(x, np.where(y == 0, 1, y)))


# -- the table ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    """``op(x, y)`` is exactly ``expected`` (nan where nan, signed zeros by sign) for each of
    ``dtypes``."""

    dtypes: tuple[type[TType], ...]
    x: Any
    y: Any
    expected: Any


@dataclass(frozen=True)
class Raises:
    """``op(x, y)`` raises ``InvalidArgumentError`` with ``message`` when run, whether ``x`` and
    ``y`` are fed or constants, for each of ``dtypes``."""

    dtypes: tuple[type[TType], ...]
    x: Any
    y: Any
    message: str


@dataclass(frozen=True)
class Row:
    """An op: its type, facade method, numpy reference, the data types it takes and rejects, the
    domains of x and y, its literal cases and run-time errors, and its gradient check."""

    name: str
    call: Callable[[Ops], Callable[..., Any]]
    reference: Callable[[Array, Array], Array]
    dtypes: tuple[type[TType], ...]
    rejected: tuple[type[TType], ...]
    x: Domain = anywhere
    y: Domain = anywhere
    cases: tuple[Case, ...] = ()
    raises: tuple[Raises, ...] = ()
    grad: int = 1  # 0: registered as not differentiable; 2: second order checked too
    tolerance: float = 1e-6  # of the gradient checks

    def __str__(self) -> str:
        return self.name


def dividesByZero(*dtypes: type[TType]) -> tuple[Raises, ...]:
    return (Raises(dtypes, [4, 6], [2, 0], "Integer division by zero"),)


ROWS = [
    Row("Add", lambda tf: tf.math.add, np.add, NUMBERS, (TBool,), grad=2, cases=(
        Case((TFloat64,), [INF, INF, 1.0], [-INF, 1.0, NAN], [NAN, INF, NAN]),
        Case((TInt32,), [2**31 - 1], [1], [-(2**31)]),  # integers wrap around
        Case((TInt64,), [2**63 - 1], [1], [-(2**63)]),
        Case((TUint8,), [250], [10], [4]),
    )),
    Row("AddV2", lambda tf: tf.math.addV2, np.add, NUMBERS, (TBool,), grad=2, cases=(
        Case((TFloat64,), [INF, INF, 1.0], [-INF, 1.0, NAN], [NAN, INF, NAN]),
        Case((TInt32,), [2**31 - 1], [1], [-(2**31)]),
    )),
    Row("Sub", lambda tf: tf.math.sub, np.subtract, NUMBERS, (TBool,), grad=2, cases=(
        Case((TFloat64,), [INF, INF, 1.0], [INF, 1.0, NAN], [NAN, INF, NAN]),
        Case((TInt32,), [-(2**31)], [1], [2**31 - 1]),
        Case((TInt64,), [-(2**63)], [1], [2**63 - 1]),
        Case((TUint8,), [3], [5], [254]),
    )),
    Row("Mul", lambda tf: tf.math.mul, np.multiply, NUMBERS, (TBool,), grad=2, cases=(
        Case((TFloat64,), [INF, INF, 1.0, -0.0], [0.0, -2.0, NAN, 5.0], [NAN, -INF, NAN, -0.0]),
        Case((TInt32,), [2**16], [2**16 + 1], [2**16]),
        Case((TInt64,), [2**62], [2], [-(2**63)]),
        Case((TUint8,), [16], [17], [16]),
    )),
    Row("Div", lambda tf: tf.math.div, truncatingDivide, NUMBERS, (TBool,), y=nonzero, grad=2,
        cases=(
            Case((TInt32, TInt64), [7, -7, 7, -7, 6, -6, 0, 1, -1], [2, 2, -2, -2, 3, 4, -5, 3, 3],
                 [3, -3, -3, 3, 2, -1, 0, 0, 0]),  # truncates towards zero
            Case((TUint8,), [255, 7, 0, 200], [2, 7, 3, 201], [127, 1, 0, 0]),
            Case(FLOATS, [[1, 3, 9], [-6, 5, 0]], [2, 4, -8],
                 [[0.5, 0.75, -1.125], [-3, 1.25, -0.0]]),
            Case((TFloat64,), [1.0, -1.0, 0.0, 1.0, INF, 1.0], [0.0, 0.0, 0.0, -0.0, INF, NAN],
                 [INF, -INF, NAN, -INF, NAN, NAN]),
            Case((TInt32,), np.zeros((0, 3)), [1, 0, 2], np.zeros((0, 3))),  # nothing divided
        ),
        raises=dividesByZero(TInt32, TInt64, TUint8)
        + (Raises((TInt64,), [[1, 2], [3, 4]], 0, "Integer division by zero"),)),
    Row("RealDiv", lambda tf: tf.math.realDiv, np.true_divide, FLOATS, INTEGERS + (TBool,),
        y=nonzero, grad=2, cases=(
            Case((TFloat64,), [1.0, -1.0, 0.0, 1.0, INF, 1.0], [0.0, 0.0, 0.0, -0.0, INF, NAN],
                 [INF, -INF, NAN, -INF, NAN, NAN]),
        )),
    Row("DivNoNan", lambda tf: tf.math.divNoNan, divideNoNan, FLOATS, INTEGERS + (TBool,),
        y=nonzero, grad=2, cases=(
            Case(FLOATS, [[1, 3, 9], [-6, 5, 0]], [2, 0, -8], [[0.5, 0, -1.125], [-3, 0, -0.0]]),
            # 0 where y is zero, whatever x holds
            Case((TFloat64,), [NAN, INF, -INF, 0.0, 1.0], [0.0, 0.0, -0.0, 0.0, -0.0], [0.0] * 5),
            Case((TFloat64,), [1.0, 1.0, NAN, INF], [INF, NAN, 2.0, INF], [0.0, NAN, NAN, NAN]),
        )),
    Row("FloorDiv", lambda tf: tf.math.floorDiv, floorDivide, NUMBERS, (TBool,), y=nonzero,
        grad=0, cases=(
            Case((TInt32, TInt64), [7, -7, 7, -7, 6, -6, 0, 1, -1], [2, 2, -2, -2, 3, 4, -5, 3, 3],
                 [3, -4, -4, 3, 2, -2, 0, 0, -1]),  # rounds towards -inf
            Case((TUint8,), [255, 7, 0, 200], [2, 7, 3, 201], [127, 1, 0, 0]),
            Case(FLOATS, [[7.5, -7.5, 1.0], [-0.5, 6.0, 0.0]], [2.0, 2.0, -4.0],
                 [[3.0, -4.0, -1.0], [-1.0, 3.0, -0.0]]),
            Case((TFloat64,), 1.0, 0.1, 10.0),  # the floor of the rounded quotient; Python's is 9
            Case((TFloat64,), [1.0, -1.0, 0.0, INF, 1.0], [0.0, 0.0, 0.0, 2.0, NAN],
                 [INF, -INF, NAN, INF, NAN]),
            Case((TInt32,), np.zeros((0, 3)), [1, 0, 2], np.zeros((0, 3))),
        ),
        raises=dividesByZero(TInt32, TInt64, TUint8)),
    Row("FloorMod", lambda tf: tf.math.floorMod, np.remainder, NUMBERS, (TBool,), y=nonzero,
        cases=(
            Case((TInt32, TInt64), [7, -7, 7, -7, 6, 0, 1, -1], [3, 3, -3, -3, 3, -5, 3, 3],
                 [1, 2, -2, -1, 0, 0, 1, 2]),  # the sign of y
            Case((TUint8,), [255, 7, 0, 200], [2, 7, 3, 201], [1, 0, 0, 200]),
            Case(FLOATS, [[7.5, -7.5], [7.5, -7.5]], [[2.0], [-2.0]], [[1.5, 0.5], [-0.5, -1.5]]),
            Case((TFloat64,), [-4.0, 4.0, 0.0], [2.0, -2.0, -3.0], [-0.0, 0.0, 0.0]),  # fmod's zero
            Case((TFloat64,), [1.0, 1.0, -1.0, INF, NAN, -1.0], [0.0, INF, INF, 2.0, 2.0, -INF],
                 [NAN, 1.0, INF, NAN, NAN, -1.0]),
            Case((TInt64,), [[9, -9], [4, -4]], -4, [[-3, -1], [0, 0]]),
            Case((TInt64,), np.zeros((2, 0)), 0, np.zeros((2, 0))),
        ),
        raises=dividesByZero(TInt32, TInt64, TUint8)),
    Row("Pow", lambda tf: tf.math.pow, np.power, SIGNED_NUMBERS, (TUint8, TBool), x=positive,
        y=exponents, grad=2, cases=(
            Case((TInt32, TInt64), [2, 3, -2, 0, 5, -1], [3, 2, 3, 0, 0, 7], [8, 9, -8, 1, 1, -1]),
            Case((TInt32,), [2, 3], [31, 21], [-(2**31), 3**21 - 2 * 2**32]),  # wraps around
            Case((TInt64,), [2], [63], [-(2**63)]),
            Case(FLOATS, [[4.0], [0.25]], [0.5, -1.0, 2.0],
                 [[2.0, 0.25, 16.0], [0.5, 4.0, 0.0625]]),
            # 0^0 is 1; a negative base to a non-integral power is nan
            Case((TFloat64,), [0.0, 0.0, -8.0, -2.0, NAN, 1.0, INF],
                 [0.0, -1.0, 1.0 / 3.0, 3.0, 0.0, NAN, -1.0], [1.0, INF, NAN, -8.0, 1.0, 1.0, 0.0]),
            Case((TInt32,), np.zeros(0), -1, np.zeros(0)),  # no element raised to a negative power
        ),
        raises=(Raises((TInt32, TInt64), [2, 3], [1, -1],
                       "Integers to negative integer powers are not allowed"),)),
    Row("Maximum", lambda tf: tf.math.maximum, np.maximum, NUMBERS, (TBool,), grad=2, cases=(
        Case((TInt64,), [-(2**63), 2**63 - 1, -1], 0, [0, 2**63 - 1, 0]),
        Case((TFloat64,), [NAN, 1.0, NAN], [1.0, NAN, NAN], [NAN, NAN, NAN]),
        Case((TFloat64,), [-INF, INF, 2.0], 3.0, [3.0, INF, 3.0]),
    )),
    Row("Minimum", lambda tf: tf.math.minimum, np.minimum, NUMBERS, (TBool,), grad=2, cases=(
        Case((TInt64,), [-(2**63), 2**63 - 1, 1], 0, [-(2**63), 0, 0]),
        Case((TFloat64,), [NAN, 1.0, NAN], [1.0, NAN, NAN], [NAN, NAN, NAN]),
        Case((TFloat64,), [-INF, INF, 4.0], 3.0, [-INF, 3.0, 3.0]),
    )),
    Row("SquaredDifference", lambda tf: tf.math.squaredDifference,
        lambda x, y: np.square(np.subtract(x, y)), SIGNED_NUMBERS, (TUint8, TBool), grad=2,
        cases=(
            Case((TFloat64,), [INF, INF, 1.0, -INF], [INF, 1.0, NAN, 0.0], [NAN, INF, NAN, INF]),
            Case((TInt32,), [46341], [0], [46341 * 46341 - 2**32]),
            Case((TInt64,), [2**32], [0], [0]),
        )),
    Row("LogicalAnd", lambda tf: tf.math.logicalAnd, np.logical_and, (TBool,),
        (TFloat32, TInt32, TUint8), grad=0, cases=(
            Case((TBool,), [False, False, True, True], [False, True, False, True],
                 [False, False, False, True]),
        )),
    Row("LogicalOr", lambda tf: tf.math.logicalOr, np.logical_or, (TBool,),
        (TFloat32, TInt32, TUint8), grad=0, cases=(
            Case((TBool,), [False, False, True, True], [False, True, False, True],
                 [False, True, True, True]),
        )),
    # math: the remainder and quotient of truncated division
    Row("Mod", lambda tf: tf.math.mod, np.fmod, SIGNED_NUMBERS, (TUint8, TBool), y=nonzero,
        grad=0, cases=(
            Case((TInt32, TInt64), [7, -7, 7, -7, 6, 0, 1, -1], [3, 3, -3, -3, 3, -5, 3, 3],
                 [1, -1, 1, -1, 0, 0, 1, -1]),  # the sign of x
            Case((TInt32,), [-(2**31), -(2**31), 2**31 - 1], [-1, 2**31 - 1, -(2**31)],
                 [0, -1, 2**31 - 1]),
            Case((TInt64,), [-(2**63)], [-1], [0]),
            Case(FLOATS, [[7.5, -7.5], [7.5, -7.5]], [[2.0], [-2.0]], [[1.5, -1.5], [1.5, -1.5]]),
            Case((TFloat64,), [-4.0, 4.0, 0.0, -0.0, -6.0], [2.0, -2.0, -3.0, 3.0, 3.0],
                 [-0.0, 0.0, 0.0, -0.0, -0.0]),
            Case((TFloat64,), [1.0, INF, 5.0, -5.0, NAN, 1.0], [0.0, 2.0, INF, -INF, 2.0, NAN],
                 [NAN, NAN, 5.0, -5.0, NAN, NAN]),
            Case((TInt32,), np.zeros((0, 3)), [1, 0, 2], np.zeros((0, 3))),  # nothing divided
        ),
        raises=dividesByZero(TInt32, TInt64)),
    Row("TruncateMod", lambda tf: tf.math.truncateMod, np.fmod, SIGNED_NUMBERS, (TUint8, TBool),
        y=nonzero, grad=0, cases=(
            Case((TInt32, TInt64), [7, -7, 7, -7, 6, 0, 1, -1], [3, 3, -3, -3, 3, -5, 3, 3],
                 [1, -1, 1, -1, 0, 0, 1, -1]),
            Case((TInt32,), [-(2**31)], [-1], [0]),
            Case((TFloat64,), [-7.5, 7.5, -0.0, 1.0, INF, 5.0], [2.0, -2.0, 3.0, 0.0, 2.0, INF],
                 [-1.5, 1.5, -0.0, NAN, NAN, 5.0]),
        ),
        raises=dividesByZero(TInt32, TInt64)),
    Row("TruncateDiv", lambda tf: tf.math.truncateDiv,
        lambda x, y: np.trunc(np.true_divide(x, y)) if x.dtype.kind == "f"
        else truncatingDivide(x, y), NUMBERS, (TBool,), y=nonzero, grad=0, cases=(
            Case((TInt32, TInt64), [7, -7, 7, -7, 6, -6, 0, 1, -1], [2, 2, -2, -2, 3, 4, -5, 3, 3],
                 [3, -3, -3, 3, 2, -1, 0, 0, 0]),  # towards zero
            Case((TInt32,), [-(2**31), -(2**31), 2**31 - 1], [-1, 1, -(2**31)],
                 [-(2**31), -(2**31), 0]),  # INT_MIN / -1 wraps around
            Case((TInt64,), [-(2**63), 2**63 - 1], [-1, 2], [-(2**63), 2**62 - 1]),
            Case((TUint8,), [255, 7, 0, 200], [2, 7, 3, 201], [127, 1, 0, 0]),
            Case(FLOATS, [[7.5, -7.5, 1.0], [-0.5, 6.0, 0.0]], [2.0, 2.0, -4.0],
                 [[3.0, -3.0, -0.0], [-0.0, 3.0, -0.0]]),  # floats are truncated too
            Case((TFloat64,), [1.0, -1.0, 0.0, INF, 5.0, NAN], [0.0, 0.0, 0.0, 2.0, INF, 1.0],
                 [INF, -INF, NAN, INF, 0.0, NAN]),
        ),
        raises=dividesByZero(TInt32, TInt64, TUint8)),
]
DIFFERENTIABLE = [row for row in ROWS if row.grad]
NOT_DIFFERENTIABLE = [row for row in ROWS if not row.grad]

BROADCASTS = [  # x, y and the broadcast shape
    ((2, 3), (2, 3), (2, 3)),
    ((2, 3), (3,), (2, 3)),
    ((2, 3), (1, 3), (2, 3)),
    ((2, 3), (2, 1), (2, 3)),
    ((2, 3), (), (2, 3)),
    ((), (2, 3), (2, 3)),
    ((2, 1), (1, 3), (2, 3)),
    ((4, 1, 3), (2, 1), (4, 2, 3)),
    ((0, 3), (1, 3), (0, 3)),
    ((0,), (1,), (0,)),
    ((), (0,), (0,)),
    ((), (), ()),
    ((U, 3), (3,), (U, 3)),
    ((U, 3), (4, 1), (4, 3)),
    ((U, 1), (1, U), (U, U)),
    ((3,), (U,), (3,)),
    ((1,), (U,), (U,)),
    ((U,), (U,), (U,)),
]
KNOWN_BROADCASTS = [b for b in BROADCASTS if U not in b[0] + b[1]]
GRADIENT_SHAPES = [
    ((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 3), (1, 3)), ((2, 3), (2, 1)), ((2, 3), ()),
    ((3,), (2, 3)), ((1, 3), (2, 3)), ((2, 1), (2, 3)), ((), (2, 3)), ((2, 1), (1, 3)),
]
# (static shapes of x and y, the shapes of the values fed)
UNKNOWN_SHAPES = [
    (((U, 3), (3,)), ((2, 3), (3,))),
    ((None, None), ((2, 3), (2, 1))),
    ((None, (U, 1)), ((2, 3), (2, 1))),
    ((None, (U,)), ((2, 3), (3,))),
]
# x, y and the data type T of operands that are not tensors, as TensorFlow Python converts them
CONVERSIONS = [
    (1.5, -4.0, TFloat32),  # Python floats alone are float32
    (-7, 2, TInt32),  # Python ints alone are int32
    (True, False, TBool),
    (1.5, 2, TFloat32),  # the first value fixes T; the second is converted to it
    (2**40, 1, TInt64),  # too large for int32
    (np.float64(1.0), 2.0, TFloat64),  # a numpy scalar keeps its type, a Python value follows
    (2.0, np.float64(1.0), TFloat64),
]
# an operand (of a data type, or a numpy value) and a value that cannot take its type
FOREIGN: list[tuple[Any, Any]] = [
    (TInt32, 1.5),
    (TInt64, 0.5),
    (TFloat32, True),
    (TFloat32, np.ones(3)),  # float64
    (np.ones(3, np.float32), np.ones(3, np.float64)),
    (TBool, 1),
    (TBool, 0.5),
    (TBool, np.array([1, 0], np.int32)),
]
MISMATCHED = [
    (TFloat32, TFloat64), (TFloat16, TFloat32), (TInt32, TInt64), (TInt64, TInt32),
    (TInt32, TFloat32), (TFloat32, TInt32), (TUint8, TInt32), (TBool, TInt32), (TBool, TFloat32),
]


def widest(row: Row) -> type[TType]:
    return TFloat64 if TFloat64 in row.dtypes else row.dtypes[0]


def values(row: Row, dtype: type[TType], xShape: Any, yShape: Any, seed: int = 0) -> Any:
    rng = np.random.default_rng(seed)
    return row.x(rng, tuple(xShape), dtype), row.y(rng, tuple(yShape), dtype)


def typeOf(value: Any) -> type[TType]:
    """``value`` if a data type, else the data type of the numpy ``value``."""
    return value if isinstance(value, type) else next(
        t for t in ALL if np.asarray(value).dtype == t.DTYPE)


def lineOfCaller() -> int:
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    return frame.f_back.f_lineno


def assertExactly(got: Array, expected: Array) -> None:
    """Equal values of one data type and shape; nan where nan, and zeros of the same sign."""
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got, expected)
    np.testing.assert_array_equal(got, expected)
    zeros = expected == 0
    assert np.array_equal(np.signbit(got[zeros]), np.signbit(expected[zeros])), (got, expected)


def overRows(rows: list[Row], of: Callable[[Row], list[Any]] | None = None) -> Any:
    """Parametrizes ``row`` (and ``arg``: each of ``of(row)``) with readable ids."""
    if of is None:
        return pytest.mark.parametrize("row", rows, ids=str)
    params = [pytest.param(row, arg, id=f"{row}-{idOf(arg)}") for row in rows for arg in of(row)]
    return pytest.mark.parametrize(("row", "arg"), params)


def idOf(arg: Any) -> str:
    if isinstance(arg, type):
        return arg.NAME
    if arg is None:
        return "unknown"
    if isinstance(arg, tuple) and all(isinstance(d, int) for d in arg):
        return "[" + ",".join("?" if d == U else str(d) for d in arg) + "]"
    if isinstance(arg, np.generic):
        return f"{arg.dtype}({arg})"
    if isinstance(arg, tuple):
        return ",".join(idOf(a) for a in arg if not isinstance(a, (Case, Raises)))
    if isinstance(arg, np.ndarray):
        return f"{arg.dtype}{list(arg.shape)}"
    return str(arg)


# -- construction -------------------------------------------------------------------------------
@overRows(ROWS, lambda row: list(row.dtypes))
def test_outputDataTypeIsTheInputDataType(tf: Ops, row: Row, arg: type[TType]) -> None:
    x, y = tf.placeholder(arg), tf.placeholder(arg)
    z = row.call(tf)(x, y)
    assert z.asOutput().dataType() is arg
    assert z.z() == z.asOutput() == z.op().output(0)
    assert z.op().inputs() == (x.asOutput(), y.asOutput()) and z.op().input(1) == y.asOutput()
    if row.dtypes == (TBool,):
        assert "T" not in z.op().attrs()  # a fixed data type
    else:
        assert z.op().attr("T") is arg


@overRows(ROWS, lambda row: BROADCASTS)
def test_outputShapeIsTheBroadcastShape(tf: Ops, row: Row, arg: Any) -> None:
    xShape, yShape, zShape = arg
    x, y = placeholder(tf, widest(row), xShape), placeholder(tf, widest(row), yShape)
    assert row.call(tf)(x, y).asOutput().shape() == Shape.of(*zShape)
    assert row.call(tf)(y, x).asOutput().shape() == Shape.of(*zShape)


@overRows(ROWS)
@pytest.mark.parametrize("known", [Shape.scalar(), Shape.of(2, 3), Shape.unknown()], ids=str)
def test_outputShapeIsUnknownWhenARankIsUnknown(tf: Ops, row: Row, known: Shape) -> None:
    x, y = placeholder(tf, widest(row)), placeholder(tf, widest(row), known)
    assert row.call(tf)(x, y).asOutput().shape() == Shape.unknown()
    assert row.call(tf)(y, x).asOutput().shape() == Shape.unknown()


@overRows(ROWS, lambda row: [c for c in CONVERSIONS if c[2] in row.dtypes])
def test_valuesThatAreNotTensorsTakeTensorFlowPythonsDataType(
    tf: Ops, run: Run, row: Row, arg: Any
) -> None:
    x, y, dtype = arg
    z = row.call(tf)(x, y)
    assert [i.dataType() for i in z.op().inputs()] == [dtype, dtype]
    expected = row.reference(np.array([x], dtype.DTYPE), np.array([y], dtype.DTYPE))
    assertExactly(run(z), np.asarray(expected[0]))


@overRows(ROWS, lambda row: list(row.dtypes))
def test_aPythonNumberTakesTheDataTypeOfTheOtherOperand(
    tf: Ops, row: Row, arg: type[TType]
) -> None:
    x = tf.placeholder(arg)
    for value in (True,) if arg is TBool else (1, 2.0) if arg in FLOATS else (1,):
        for z in (row.call(tf)(x, value), row.call(tf)(value, x)):
            assert [i.dataType() for i in z.op().inputs()] == [arg, arg]


@overRows(ROWS, lambda row: [f for f in FOREIGN if typeOf(f[0]) in row.dtypes])
def test_rejectsAValueThatCannotTakeTheOperandsType(
    tf: Ops, graph: Graph, row: Row, arg: Any
) -> None:
    x = tf.placeholder(arg[0]) if isinstance(arg[0], type) else arg[0]
    assertRejected(graph, lambda: row.call(tf)(x, arg[1]), TypeError, row.name)


@overRows(ROWS, lambda row: list(row.rejected))
def test_rejectsDataTypesItDoesNotTake(tf: Ops, graph: Graph, row: Row, arg: type[TType]) -> None:
    bad, good = tf.placeholder(arg), tf.placeholder(row.dtypes[0])
    for x, y in [(bad, bad), (bad, good), (good, bad)]:
        assertRejected(graph, lambda x=x, y=y: row.call(tf)(x, y), TypeError,
                       f"{row.name} '{row.name}'", arg.NAME, f"created at {__file__}:")


@overRows(ROWS, lambda row: [m for m in MISMATCHED if m[0] in row.dtypes])
def test_rejectsOperandsOfDifferentDataTypes(tf: Ops, graph: Graph, row: Row, arg: Any) -> None:
    x, y = tf.placeholder(arg[0]), tf.placeholder(arg[1])
    assertRejected(graph, lambda: row.call(tf)(x, y), TypeError,
                   f"{row.name} '{row.name}'", arg[0].NAME, arg[1].NAME)


@overRows(ROWS, lambda row: [((2, 3), (4,)), ((U, 3), (U, 2)), ((2, 3), (3, 2))])
def test_rejectsShapesThatDoNotBroadcast(tf: Ops, graph: Graph, row: Row, arg: Any) -> None:
    x, y = (placeholder(tf, widest(row), shape) for shape in arg)
    assertRejected(graph, lambda: row.call(tf)(x, y), ValueError, f"{row.name} '{row.name}'",
                   str(Shape.of(*arg[0])), str(Shape.of(*arg[1])), f"created at {__file__}:")


# -- kernel -------------------------------------------------------------------------------------
@overRows(ROWS, lambda row: list(row.dtypes))
def test_kernelMatchesNumpy(tf: Ops, run: Run, row: Row, arg: type[TType]) -> None:
    x, y = values(row, arg, (2, 3), (3,))
    assertExactly(run(row.call(tf)(x, y)), np.asarray(row.reference(x, y)))


@overRows(ROWS, lambda row: KNOWN_BROADCASTS)
def test_kernelBroadcastsLikeNumpy(tf: Ops, run: Run, row: Row, arg: Any) -> None:
    x, y = values(row, widest(row), arg[0], arg[1])
    result = run(row.call(tf)(x, y))
    assert result.shape == arg[2]
    assertExactly(result, np.asarray(row.reference(x, y)))


@overRows(ROWS)
def test_kernelOfPartiallyKnownShapesFed(tf: Ops, run: Run, row: Row) -> None:
    x, y = placeholder(tf, widest(row), (U, 3)), placeholder(tf, widest(row), (U, 1))
    xv, yv = values(row, widest(row), (4, 3), (4, 1))
    assertExactly(run(row.call(tf)(x, y), feeds={x: xv, y: yv}),
                  np.asarray(row.reference(xv, yv)))


@overRows(ROWS, lambda row: [(f"case{i}", c, t) for i, c in enumerate(row.cases) for t in c.dtypes])
def test_literalCases(tf: Ops, run: Run, row: Row, arg: Any) -> None:
    _, case, dtype = arg
    z = row.call(tf)(np.asarray(case.x, dtype.DTYPE), np.asarray(case.y, dtype.DTYPE))
    assertExactly(run(z), np.asarray(case.expected, dtype.DTYPE))


@overRows(ROWS, lambda row: [(f"case{i}", r, t, fed) for i, r in enumerate(row.raises)
                             for t in r.dtypes for fed in ("x,y fed", "y fed", "constants")])
def test_invalidValuesRaiseAtRunTime(tf: Ops, run: Run, row: Row, arg: Any) -> None:
    _, raises, dtype, fed = arg
    xv, yv = np.asarray(raises.x, dtype.DTYPE), np.asarray(raises.y, dtype.DTYPE)
    x = placeholder(tf, dtype) if fed == "x,y fed" else xv
    y = yv if fed == "constants" else placeholder(tf, dtype)
    z, line = row.call(tf)(x, y), lineOfCaller()
    feeds = {p: v for p, v in ((x, xv), (y, yv)) if p is not v}
    if feeds:  # valid values first: the failing run reuses the session's plan
        ones = np.ones_like(yv)
        valid = {p: ones if p is y else v for p, v in feeds.items()}
        assertExactly(run(z, feeds=valid), np.asarray(row.reference(xv, ones)))
    with pytest.raises(InvalidArgumentError) as info:
        run(z, feeds=feeds)
    assert info.value.op == z.op()
    for fragment in (raises.message, f"'{row.name}'", f"created at {__file__}:{line}"):
        assert fragment in str(info.value)


@overRows(ROWS)
def test_shapesThatDoNotBroadcastAtRunTimeRaiseInvalidArgument(
    tf: Ops, run: Run, row: Row
) -> None:
    dtype = TFloat32 if TFloat32 in row.dtypes else TBool  # fed float64 values, converted
    x, y = placeholder(tf, dtype, (U, 3)), placeholder(tf, dtype, (U, 3))
    z = row.call(tf)(x, y)
    xv, yv = values(row, widest(row), (2, 3), (4, 3))
    with pytest.raises(InvalidArgumentError) as info:
        run(z, feeds={x: xv, y: yv})
    assert info.value.op == z.op()
    assert f"'{row.name}'" in str(info.value) and f"created at {__file__}:" in str(info.value)


# -- gradient -----------------------------------------------------------------------------------
@overRows(DIFFERENTIABLE, lambda row: GRADIENT_SHAPES)
def test_gradientMatchesFiniteDifferences(tf: Ops, row: Row, arg: Any) -> None:
    # each input's gradient is summed back to its shape over the dimensions it broadcasts in
    assertGradient(tf, row.call(tf), values(row, TFloat64, *arg), tolerance=row.tolerance)


@overRows(DIFFERENTIABLE, lambda row: UNKNOWN_SHAPES)
def test_gradientWithoutStaticShapes(tf: Ops, row: Row, arg: Any) -> None:
    static, fed = arg
    shapes = [None if s is None else Shape.of(*s) for s in static]
    assertGradient(tf, row.call(tf), values(row, TFloat64, *fed), shapes, row.tolerance)


@overRows(DIFFERENTIABLE)
def test_gradientOfTheSameTensorAsBothInputs(tf: Ops, row: Row) -> None:
    x = row.x(np.random.default_rng(0), (2, 3), TFloat64)
    assertGradient(tf, lambda x: row.call(tf)(x, x), [x], tolerance=row.tolerance)


@overRows([row for row in ROWS if row.grad == 2], lambda row: ["dx", "dy"])
def test_secondOrderGradientMatchesFiniteDifferences(tf: Ops, row: Row, arg: str) -> None:
    def firstOrder(x: Any, y: Any) -> Any:  # of z^2: the upstream gradient depends on x and y
        return tf.gradients(tf.math.square(row.call(tf)(x, y)), [x, y]).dy(["dx", "dy"].index(arg))

    assertGradient(tf, firstOrder, values(row, TFloat64, (2, 3), (2, 3)), tolerance=row.tolerance)


@overRows(DIFFERENTIABLE)
def test_gradientHasTheDataTypeAndShapeOfEachInput(tf: Ops, run: Run, row: Row) -> None:
    x, y = placeholder(tf, TFloat32, (2, 3)), placeholder(tf, TFloat32, (3,))
    dx, dy = tf.gradients(row.call(tf)(x, y), [x, y])
    assert dx is not None and dy is not None
    assert dx.dataType() is TFloat32 and dy.dataType() is TFloat32
    assert dx.shape() == Shape.of(2, 3) and dy.shape() == Shape.of(3)
    xv, yv = values(row, TFloat32, (2, 3), (3,))
    gx, gy = run(dx, dy, feeds={x: xv, y: yv})
    assert (gx.dtype, gx.shape, gy.dtype, gy.shape) == (np.float32, (2, 3), np.float32, (3,))


def operands(tf: Ops, row: Row, x: Any) -> tuple[Any, Any]:
    """Operands of the row's data type computed from the float64 tensor ``x``."""
    if row.dtypes == (TBool,):
        return tf.math.greater(x, 0.0), tf.math.less(x, 1.0)
    return x, 2.0


@overRows(NOT_DIFFERENTIABLE)
def test_isRegisteredAsNotDifferentiable(row: Row) -> None:
    assert lookupGradient(row.name) == (True, None)


@overRows(NOT_DIFFERENTIABLE)
def test_passesNoGradient(tf: Ops, run: Run, row: Row) -> None:
    x = placeholder(tf, TFloat64, (3,))
    z = tf.dtypes.cast(row.call(tf)(*operands(tf, row, x)), TFloat64)
    assert tf.gradients(z, [x]).dy(0) is None
    zero = tf.gradients(z, [x], Gradients.unconnectedGradients("zero")).dy(0)
    assert zero is not None
    assertExactly(run(zero, feeds={x: np.array([3.0, 0.5, -5.0])}), np.zeros(3))


@overRows(NOT_DIFFERENTIABLE)
def test_contributesNothingToAGradientThatFlowsElsewhere(tf: Ops, run: Run, row: Row) -> None:
    x = placeholder(tf, TFloat64, (3,))
    z = tf.math.add(x, tf.dtypes.cast(row.call(tf)(*operands(tf, row, x)), TFloat64))
    dx = tf.gradients(z, [x]).dy(0)
    assert dx is not None
    assertExactly(run(dx, feeds={x: np.array([3.0, 0.5, -5.0])}), np.ones(3))


# -- Maximum and Minimum: the gradient goes to the input that is the result ---------------------
MAXIMUM, MINIMUM = (next(r for r in ROWS if r.name == n) for n in ("Maximum", "Minimum"))


@pytest.mark.parametrize(("row", "gx", "gy"), [
    (MAXIMUM, [[0, 1, 1], [0, 1, 0]], [2, 0, 1]),
    (MINIMUM, [[1, 1, 0], [1, 1, 1]], [0, 0, 1]),
], ids=str)
def test_gradientGoesToTheInputThatIsTheResultAndTiesGoToX(
    tf: Ops, run: Run, row: Row, gx: Any, gy: Any
) -> None:
    x, y = placeholder(tf, TFloat32, (2, 3)), placeholder(tf, TFloat32, (3,))
    dx, dy = tf.gradients(row.call(tf)(x, y), [x, y])
    assert dx is not None and dy is not None
    xv = np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 1.0]], np.float32)
    got = run(dx, dy, feeds={x: xv, y: np.array([2.0, 2.0, 2.0], np.float32)})
    assertExactly(got[0], np.array(gx, np.float32))
    assertExactly(got[1], np.array(gy, np.float32))


@pytest.mark.parametrize(("row", "x"), [(MAXIMUM, 5.0), (MINIMUM, -5.0)], ids=str)
def test_gradientWhereXIsNanGoesToY(tf: Ops, run: Run, row: Row, x: float) -> None:
    xp, yp = placeholder(tf, TFloat64, (2,)), placeholder(tf, TFloat64, (2,))
    dx, dy = tf.gradients(row.call(tf)(xp, yp), [xp, yp])
    assert dx is not None and dy is not None
    gx, gy = run(dx, dy, feeds={xp: np.array([NAN, x]), yp: np.array([1.0, 1.0])})
    assert gx.tolist() == [0.0, 1.0] and gy.tolist() == [1.0, 0.0]


@pytest.mark.parametrize(("row", "x"), [(MAXIMUM, [3.0, 0.0]), (MINIMUM, [0.0, 3.0])], ids=str)
def test_anInfiniteUpstreamGradientLeavesTheOtherInputExactlyZero(
    tf: Ops, run: Run, row: Row, x: list[float]
) -> None:
    # as TensorFlow's select; a product with a 0/1 mask would give inf * 0 = nan
    xp, yp, seed = (placeholder(tf, TFloat64, (2,)) for _ in range(3))
    dx, dy = tf.gradients(row.call(tf)(xp, yp), [xp, yp], Gradients.dx([seed]))
    assert dx is not None and dy is not None
    feeds = {xp: np.array(x), yp: np.array([1.0, 1.0]), seed: np.array([INF, NAN])}
    gx, gy = run(dx, dy, feeds=feeds)
    assert gx[0] == INF and gx[1] == 0.0
    assert gy[0] == 0.0 and np.isnan(gy[1])
