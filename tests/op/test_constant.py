"""Specification of the ``Constant`` op class (op type ``Const``): the data type a value gives,
conversions to an explicit data type, and the values that are rejected."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import ALL, assertRejected

from tfops import Graph, Ops, Shape
from tfops.op.core import Constant
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]
SITE = f"created at {__file__}:"
EVERY_TYPE = pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)


def sample(dtype: type[TType], shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    values: np.ndarray[Any, Any] = np.arange(int(np.prod(shape))).reshape(shape)
    return (values % 2 == 0) if dtype is TBool else values.astype(dtype.DTYPE)


# -- construction --------------------------------------------------------------------------
def test_createOnABaseScope(graph: Graph) -> None:
    c = Constant.create(graph.baseScope(), [1, 2])
    assert graph.operation("Const") == c.op()
    assert c.op().attr("dtype") is TInt32
    np.testing.assert_array_equal(np.asarray(c.op().attr("value")), [1, 2])


@pytest.mark.parametrize(
    ("value", "dtype", "shape"),
    [
        (1.5, TFloat32, Shape.scalar()),
        (3, TInt32, Shape.scalar()),
        (True, TBool, Shape.scalar()),
        ([[1, 2], [3, 4]], TInt32, Shape.of(2, 2)),
        ([1.0, 2], TFloat32, Shape.of(2)),
        ([[True], [False]], TBool, Shape.of(2, 1)),
        ([], TFloat32, Shape.of(0)),
        (2**40, TInt64, Shape.scalar()),
        ([1, -(2**40)], TInt64, Shape.of(2)),
        (np.float64(0.5), TFloat64, Shape.scalar()),
        (np.float16(1.5), TFloat16, Shape.scalar()),
        (np.int64(3), TInt64, Shape.scalar()),
        (np.uint8(7), TUint8, Shape.scalar()),
        (np.bool_(True), TBool, Shape.scalar()),
    ],
    ids=["float", "int", "bool", "intMatrix", "mixedNumbers", "boolMatrix", "empty", "bigInt",
         "bigIntList", "npFloat64", "npFloat16", "npInt64", "npUint8", "npBool"],
)
def test_valuesInferDataTypeAndShape(tf: Ops, value: Any, dtype: type[TType], shape: Shape) -> None:
    out = tf.constant(value).asOutput()
    assert (out.dataType(), out.shape()) == (dtype, shape)


@pytest.mark.parametrize(
    ("value", "dtype", "expected"),
    [
        ([1, 2], TFloat64, np.array([1.0, 2.0])),
        (1, TFloat16, np.float16(1.0)),
        (7, TUint8, np.uint8(7)),
        (5, TInt64, np.int64(5)),
        (np.array([1, 2], np.int32), TInt64, np.array([1, 2], np.int64)),
        (np.array([0.5], np.float32), TFloat64, np.array([0.5])),
        ([], TInt32, np.zeros(0, np.int32)),  # tf.constant([], dtype=tf.int32)
    ],
    ids=["intsToFloat64", "intToFloat16", "intToUint8", "intToInt64", "int32ToInt64",
         "float32ToFloat64", "emptyInt32"],
)
def test_explicitDataTypeConvertsTheValue(
    tf: Ops, run: Run, value: Any, dtype: type[TType], expected: np.ndarray[Any, Any]
) -> None:
    c = tf.constant(value, dtype)
    assert c.asOutput().dataType() is dtype
    assert c.asOutput().shape() == Shape.of(*np.shape(expected))
    result = run(c)
    assert result.dtype == dtype.DTYPE
    np.testing.assert_array_equal(result, expected)


def test_scalarOfVectorOfAndTensorOfGiveTheirRank(tf: Ops, run: Run) -> None:
    scalar = Constant.scalarOf(tf.scope(), 3)
    vector = Constant.vectorOf(tf.scope(), [1.0, 2.5], TFloat64)
    tensor = Constant.tensorOf(tf.scope(), [[[1], [2]]])
    assert [c.asOutput().shape() for c in (scalar, vector, tensor)] == [
        Shape.scalar(), Shape.of(2), Shape.of(1, 2, 1)]
    assert (scalar.asOutput().dataType(), vector.asOutput().dataType()) == (TInt32, TFloat64)
    assert [r.tolist() for r in run(scalar, vector, tensor)] == [3, [1.0, 2.5], [[[1], [2]]]]


# -- kernel --------------------------------------------------------------------------------
@EVERY_TYPE
@pytest.mark.parametrize("shape", [(), (0,), (2, 3), (1, 0, 2)], ids=str)
def test_runReturnsTheValue(tf: Ops, run: Run, dtype: type[TType], shape: tuple[int, ...]) -> None:
    value = sample(dtype, shape)
    c = tf.constant(value)
    assert c.asOutput().dataType() is dtype  # a numpy array keeps its data type
    result = run(c)
    assert (result.dtype, result.shape) == (dtype.DTYPE, shape)
    np.testing.assert_array_equal(result, value)


def test_valueIsCopiedWhenCreatedAndFetchedAsAWritableCopy(tf: Ops, run: Run) -> None:
    value = np.array([1.0, 2.0])
    c = tf.constant(value)
    value[0] = 9.0
    first = run(c)
    first[1] = 5.0
    assert run(c).tolist() == [1.0, 2.0]


@pytest.mark.parametrize(
    ("value", "dtype"),
    [(np.finfo(np.float16).max, TFloat16), (np.iinfo(np.int64).min, TInt64),
     (np.iinfo(np.uint8).max, TUint8), (np.inf, TFloat32)],
    ids=["float16Max", "int64Min", "uint8Max", "inf"],
)
def test_extremeValuesAreKeptExactly(
    tf: Ops, run: Run, value: float | int, dtype: type[TType]
) -> None:
    result = run(tf.constant(np.array(value, dtype.DTYPE)))
    assert result.dtype == dtype.DTYPE
    assert result == np.array(value, dtype.DTYPE)


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "dtype"),
    [
        (1.5, TInt32),
        (True, TInt32),
        (1, TBool),
        (300, TUint8),
        (-1, TUint8),
        (np.array([1.0]), TInt32),
        (np.array([1]), TBool),
        ([[1.0]], TBool),
        (2**63, None),  # fits no tfops integer type: it must not wrap around to -2**63
        ("a", None),
        (np.array([1j]), None),
        (np.array([1], np.int8), None),
        ([object()], None),
    ],
    ids=["floatToInt", "boolToInt", "intToBool", "uint8Overflow", "uint8Negative",
         "numpyFloatToInt", "numpyIntToBool", "floatToBool", "beyondInt64", "string", "complex",
         "int8", "object"],
)
def test_valueThatDoesNotFitRaisesTypeError(
    tf: Ops, graph: Graph, value: Any, dtype: Any
) -> None:
    tf.constant(1.0)
    assertRejected(graph, lambda: tf.constant(value, dtype), TypeError, "Const", SITE)
    assert tf.constant(2.0).op().name() == "Const_1"


def test_dataTypeThatIsNotATfopsTypeRaisesTypeError(tf: Ops, graph: Graph) -> None:
    assertRejected(graph, lambda: tf.constant(1.0, np.float32), TypeError, "Const", "float32")


def test_raggedValueRaisesValueError(tf: Ops, graph: Graph) -> None:
    assertRejected(graph, lambda: tf.constant([[1], [2, 3]]), ValueError, "Const", SITE)


def test_invalidNameRaisesValueError(tf: Ops, graph: Graph) -> None:
    assertRejected(graph, lambda: tf.withName("a$").constant(1.0), ValueError, "a$")
