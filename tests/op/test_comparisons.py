"""Specification of the comparisons of ``tfops.op.math``, ``z = (x op y)``: a ``TBool`` tensor of
the broadcast shape, and no gradient. One row per op (as JAX's ``LAX_OPS``), each test over the
rows.

A row gives the facade call, the numpy reference the kernel must match, the data types the op
takes (Equal and NotEqual every one, the order comparisons every number type) and rejects, and
literal cases (``nan``, signed zeros, extremes). NotEqual's ``incompatibleShapeError`` is in
``test_not_equal.py``; naming, graphs and docs in ``tests/test_every_op.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from opchecks import ALL, FLOATS, NUMBERS, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import Gradients
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]  # the conftest fixture: fetches in the test's session
Array = np.ndarray[Any, Any]
U = -1  # an unknown dimension
INF, NAN = np.inf, np.nan
MIN, MAX = np.iinfo(np.int64).min, np.iinfo(np.int64).max


@dataclass(frozen=True)
class Case:
    """``op(x, y)`` is exactly ``expected`` for each of ``dtypes``."""

    dtypes: tuple[type[TType], ...]
    x: Any
    y: Any
    expected: list[bool]


@dataclass(frozen=True)
class Row:
    name: str
    call: Callable[[Ops], Callable[..., Any]]
    reference: Callable[[Array, Array], Array]
    dtypes: tuple[type[TType], ...]
    rejected: tuple[type[TType], ...]
    cases: tuple[Case, ...]

    def __str__(self) -> str:
        return self.name


F, T = False, True
ROWS = [
    Row("Equal", lambda tf: tf.math.equal, np.equal, ALL, (), (
        Case((TFloat64,), [NAN, 0.0, INF, -INF, 1.0], [NAN, -0.0, INF, INF, 1.0 + 2e-16],
             [F, T, T, F, F]),  # nan equals nothing; 0 and -0 are equal
        Case((TBool,), [T, T, F, F], [T, F, T, F], [T, F, F, T]),
    )),
    Row("NotEqual", lambda tf: tf.math.notEqual, np.not_equal, ALL, (), (
        Case((TFloat64,), [NAN, 1.0, NAN, -0.0, INF], [1.0, NAN, NAN, 0.0, INF], [T, T, T, F, F]),
        Case((TBool,), [T, F, T, F], [T, T, F, F], [F, T, T, F]),
    )),
    Row("Less", lambda tf: tf.math.less, np.less, NUMBERS, (TBool,), (
        Case((TFloat64,), [NAN, 1.0, NAN, -INF, INF, -0.0], [1.0, NAN, NAN, -INF, 1e308, 0.0],
             [F, F, F, F, F, F]),  # every comparison with nan is false
        Case((TUint8,), [0, 255], [255, 0], [T, F]),
        Case((TInt64,), [MIN, MAX], 0, [T, F]),
    )),
    Row("LessEqual", lambda tf: tf.math.lessEqual, np.less_equal, NUMBERS, (TBool,), (
        Case((TFloat64,), [NAN, 1.0, NAN, -INF, INF, -0.0], [1.0, NAN, NAN, -INF, 1e308, 0.0],
             [F, F, F, T, F, T]),
        Case((TUint8,), [0, 255], [255, 0], [T, F]),
        Case((TInt64,), [MIN, MAX], 0, [T, F]),
    )),
    Row("Greater", lambda tf: tf.math.greater, np.greater, NUMBERS, (TBool,), (
        Case((TFloat64,), [NAN, 1.0, NAN, -INF, INF, -0.0], [1.0, NAN, NAN, -INF, 1e308, 0.0],
             [F, F, F, F, T, F]),
        Case((TUint8,), [0, 255], [255, 0], [F, T]),
        Case((TInt64,), [MIN, MAX], 0, [F, T]),
    )),
    Row("GreaterEqual", lambda tf: tf.math.greaterEqual, np.greater_equal, NUMBERS, (TBool,), (
        Case((TFloat64,), [NAN, 1.0, NAN, -INF, INF, -0.0], [1.0, NAN, NAN, -INF, 1e308, 0.0],
             [F, F, F, T, T, T]),
        Case((TUint8,), [0, 255], [255, 0], [F, T]),
        Case((TInt64,), [MIN, MAX], 0, [F, T]),
    )),
]

BROADCASTS = [  # x, y and the broadcast shape
    ((2, 3), (2, 3), (2, 3)),
    ((2, 3), (3,), (2, 3)),
    ((2, 3), (), (2, 3)),
    ((2, 1), (1, 3), (2, 3)),
    ((), (4,), (4,)),
    ((0, 3), (1, 3), (0, 3)),
    ((), (), ()),
    ((U, 3), (2, 1), (2, 3)),
    ((U, 3), (4, 1), (4, 3)),
    ((U, 1), (U,), (U, U)),
    ((1,), (U,), (U,)),
]
KNOWN_BROADCASTS = [b for b in BROADCASTS if U not in b[0] + b[1]]
# x, y and the data type T of operands that are not tensors, as TensorFlow Python converts them
CONVERSIONS = [(0.1, 0.1, TFloat32), (-7, 2, TInt32), (True, False, TBool),
               (2**40, 1, TInt64), (np.float64(1.0), 2.0, TFloat64)]
# an operand (of a data type, or a numpy value) and a value that cannot take its type
FOREIGN: list[tuple[Any, Any]] = [
    (TInt32, 1.5), (TInt64, 0.5), (TFloat32, True), (TBool, 1),
    (np.ones(2, np.float32), np.ones(2, np.float64)),
]
MISMATCHED = [(TFloat32, TFloat64), (TInt32, TInt64), (TInt32, TFloat32), (TInt32, TUint8),
              (TBool, TInt32)]


def anywhere(rng: np.random.Generator, shape: tuple[int, ...], dtype: type[TType]) -> Array:
    """Floats in [-2, 2], integers in [-3, 3] ([0, 3] unsigned, so ties are common), bools."""
    if dtype is TBool:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype in FLOATS:
        return rng.uniform(-2.0, 2.0, shape).astype(dtype.DTYPE)
    return rng.integers(0 if dtype is TUint8 else -3, 4, shape).astype(dtype.DTYPE)


def typeOf(value: Any) -> type[TType]:
    if isinstance(value, type):
        return value
    return next(t for t in ALL if np.asarray(value).dtype == t.DTYPE)


def assertBools(got: Array, expected: Any) -> None:
    expected = np.asarray(expected, np.bool_)
    assert got.dtype == np.bool_ and got.shape == expected.shape, (got, expected)
    np.testing.assert_array_equal(got, expected)


def idOf(arg: Any) -> str:
    if isinstance(arg, type):
        return arg.NAME
    if isinstance(arg, tuple) and all(isinstance(d, int) for d in arg):
        return "[" + ",".join("?" if d == U else str(d) for d in arg) + "]"
    if isinstance(arg, np.generic):
        return f"{arg.dtype}({arg})"
    if isinstance(arg, np.ndarray):
        return f"{arg.dtype}{list(arg.shape)}"
    if isinstance(arg, tuple):
        return ",".join(idOf(a) for a in arg if not isinstance(a, Case))
    return str(arg)


def overRows(of: Callable[[Row], list[Any]] | None = None) -> Any:
    """Parametrizes ``row`` (and ``arg``: each of ``of(row)``) with readable ids."""
    if of is None:
        return pytest.mark.parametrize("row", ROWS, ids=str)
    params = [pytest.param(row, arg, id=f"{row}-{idOf(arg)}") for row in ROWS for arg in of(row)]
    return pytest.mark.parametrize(("row", "arg"), params)


# -- construction -------------------------------------------------------------------------------
@overRows(lambda row: list(row.dtypes))
def test_outputIsBoolAndTIsTheInputDataType(tf: Ops, row: Row, arg: type[TType]) -> None:
    x, y = tf.placeholder(arg), tf.placeholder(arg)
    z = row.call(tf)(x, y)
    assert z.asOutput().dataType() is TBool
    assert z.op().attr("T") is arg
    assert z.z() == z.asOutput() == z.op().output(0)
    assert z.op().inputs() == (x.asOutput(), y.asOutput())


@overRows(lambda row: BROADCASTS)
def test_outputShapeIsTheBroadcastShape(tf: Ops, row: Row, arg: Any) -> None:
    x, y = placeholder(tf, TInt32, arg[0]), placeholder(tf, TInt32, arg[1])
    assert row.call(tf)(x, y).asOutput().shape() == Shape.of(*arg[2])
    assert row.call(tf)(y, x).asOutput().shape() == Shape.of(*arg[2])


@overRows()
@pytest.mark.parametrize("known", [Shape.scalar(), Shape.of(2), Shape.unknown()], ids=str)
def test_outputShapeIsUnknownWhenARankIsUnknown(tf: Ops, row: Row, known: Shape) -> None:
    x, y = placeholder(tf, TInt32), placeholder(tf, TInt32, known)
    assert row.call(tf)(x, y).asOutput().shape() == Shape.unknown()
    assert row.call(tf)(y, x).asOutput().shape() == Shape.unknown()


@overRows(lambda row: [c for c in CONVERSIONS if c[2] in row.dtypes])
def test_valuesThatAreNotTensorsTakeTensorFlowPythonsDataType(
    tf: Ops, run: Run, row: Row, arg: Any
) -> None:
    x, y, dtype = arg
    z = row.call(tf)(x, y)
    assert z.op().attr("T") is dtype
    expected = row.reference(np.array([x], dtype.DTYPE), np.array([y], dtype.DTYPE))
    assertBools(run(z), expected[0])


@overRows(lambda row: list(row.dtypes))
def test_aPythonNumberTakesTheDataTypeOfTheOtherOperand(
    tf: Ops, row: Row, arg: type[TType]
) -> None:
    x = tf.placeholder(arg)
    for value in (True,) if arg is TBool else (1, 0.5) if arg in FLOATS else (1, 200):
        for z in (row.call(tf)(x, value), row.call(tf)(value, x)):
            assert [i.dataType() for i in z.op().inputs()] == [arg, arg]
            assert z.op().attr("T") is arg


@overRows(lambda row: [t for t in row.dtypes if t in FLOATS])
def test_aPythonIntComparesAsTheFloatTypeOfTheOtherOperand(
    tf: Ops, run: Run, row: Row, arg: type[TType]
) -> None:
    x = np.array([1.5, 2.0, 2.5], arg.DTYPE)
    expected = row.reference(x, np.asarray(2, arg.DTYPE))
    assertBools(run(row.call(tf)(tf.constant(x), 2)), expected)


@overRows(lambda row: [f for f in FOREIGN if typeOf(f[0]) in row.dtypes])
def test_rejectsAValueThatCannotTakeTheOperandsType(
    tf: Ops, graph: Graph, row: Row, arg: Any
) -> None:
    x = tf.placeholder(arg[0]) if isinstance(arg[0], type) else arg[0]
    assertRejected(graph, lambda: row.call(tf)(x, arg[1]), TypeError, row.name)


@overRows(lambda row: list(row.rejected))
def test_rejectsDataTypesItDoesNotTake(tf: Ops, graph: Graph, row: Row, arg: type[TType]) -> None:
    x = tf.placeholder(arg)
    assertRejected(graph, lambda: row.call(tf)(x, x), TypeError, f"{row.name} '{row.name}'",
                   arg.NAME, f"created at {__file__}:")


@overRows(lambda row: [m for m in MISMATCHED if m[0] in row.dtypes])
def test_rejectsOperandsOfDifferentDataTypes(tf: Ops, graph: Graph, row: Row, arg: Any) -> None:
    x, y = tf.placeholder(arg[0]), tf.placeholder(arg[1])
    assertRejected(graph, lambda: row.call(tf)(x, y), TypeError, f"{row.name} '{row.name}'",
                   arg[0].NAME, arg[1].NAME, f"created at {__file__}:")


@overRows()
def test_rejectsShapesThatDoNotBroadcast(tf: Ops, graph: Graph, row: Row) -> None:
    x, y = placeholder(tf, TInt32, (2, 3)), placeholder(tf, TInt32, (2,))
    assertRejected(graph, lambda: row.call(tf)(x, y), ValueError, f"{row.name} '{row.name}'",
                   "[2, 3]", "[2]", f"created at {__file__}:")


# -- kernel -------------------------------------------------------------------------------------
@overRows(lambda row: list(row.dtypes))
def test_kernelMatchesNumpy(tf: Ops, run: Run, row: Row, arg: type[TType]) -> None:
    rng = np.random.default_rng(0)
    x, y = anywhere(rng, (2, 3), arg), anywhere(rng, (3,), arg)
    assertBools(run(row.call(tf)(x, y)), row.reference(x, y))


@overRows(lambda row: KNOWN_BROADCASTS)
def test_kernelBroadcastsLikeNumpy(tf: Ops, run: Run, row: Row, arg: Any) -> None:
    rng = np.random.default_rng(0)
    x, y = anywhere(rng, arg[0], TInt64), anywhere(rng, arg[1], TInt64)
    result = run(row.call(tf)(x, y))
    assert result.shape == arg[2]
    assertBools(result, row.reference(x, y))


@overRows()
def test_kernelOfPartiallyKnownShapesFed(tf: Ops, run: Run, row: Row) -> None:
    x, y = placeholder(tf, TFloat64, (U, 3)), placeholder(tf, TFloat64, (U, 1))
    rng = np.random.default_rng(1)
    xv, yv = anywhere(rng, (4, 3), TFloat64), anywhere(rng, (4, 1), TFloat64)
    assertBools(run(row.call(tf)(x, y), feeds={x: xv, y: yv}), row.reference(xv, yv))


@overRows(lambda row: [(f"case{i}", c, t) for i, c in enumerate(row.cases) for t in c.dtypes])
def test_literalCases(tf: Ops, run: Run, row: Row, arg: Any) -> None:
    _, case, dtype = arg
    z = row.call(tf)(np.asarray(case.x, dtype.DTYPE), np.asarray(case.y, dtype.DTYPE))
    assertBools(run(z), case.expected)


@overRows()
def test_shapesThatDoNotBroadcastAtRunTimeRaiseInvalidArgument(
    tf: Ops, run: Run, row: Row
) -> None:
    x, y = placeholder(tf, TInt32, (U,)), placeholder(tf, TInt32, (U,))
    z = row.call(tf)(x, y)
    with pytest.raises(InvalidArgumentError) as info:
        run(z, feeds={x: np.ones(2, np.int32), y: np.ones(3, np.int32)})
    assert info.value.op == z.op()
    assert f"'{row.name}'" in str(info.value) and f"created at {__file__}:" in str(info.value)


# -- gradient -----------------------------------------------------------------------------------
@overRows()
def test_isRegisteredAsNotDifferentiable(row: Row) -> None:
    assert lookupGradient(row.name) == (True, None)


@overRows()
def test_passesNoGradient(tf: Ops, run: Run, row: Row) -> None:
    x = placeholder(tf, TFloat64, (3,))
    z = tf.dtypes.cast(row.call(tf)(x, 0.5), TFloat64)
    assert tf.gradients(z, [x]).dy(0) is None
    zero = tf.gradients(z, [x], Gradients.unconnectedGradients("zero")).dy(0)
    assert zero is not None
    np.testing.assert_array_equal(run(zero, feeds={x: np.array([0.5, 1.0, 2.0])}), [0] * 3)


@overRows()
def test_contributesNothingToAGradientThatFlowsElsewhere(tf: Ops, run: Run, row: Row) -> None:
    x = placeholder(tf, TFloat64, (3,))
    dx = tf.gradients(tf.math.mul(x, tf.dtypes.cast(row.call(tf)(x, 1.0), TFloat64)), [x]).dy(0)
    assert dx is not None
    xv = np.array([0.5, 1.0, 2.0])
    np.testing.assert_array_equal(run(dx, feeds={x: xv}), row.reference(xv, 1.0))
