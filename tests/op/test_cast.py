"""Specification of ``tfops.op.dtypes.Cast``: x converted from SrcT to DstT, any type to any type.

Conversions are C++ static casts, as TensorFlow's: floating point to integer truncates towards
zero, integer to a narrower integer wraps around, anything non-zero (NaN included) to bool is
true. The gradient flows only from a floating point result back to a floating point input.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import ALL, FLOATS, INTEGERS, assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.op.dtypes import Cast
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TNumber, TType, TUint8

Run = Callable[..., Any]
U = -1  # an unknown dimension


# -- construction ---------------------------------------------------------------------------
@pytest.mark.parametrize("src", ALL)
@pytest.mark.parametrize("dst", ALL)
def test_outputDataTypeIsDstT(tf: Ops, src: type[TType], dst: type[TType]) -> None:
    y = tf.dtypes.cast(tf.placeholder(src), dst)
    assert y.asOutput().dataType() is dst
    assert y.op().attr("SrcT") is src
    assert y.op().attr("DstT") is dst


def test_truncateOptionDefaultsToFalse(tf: Ops) -> None:
    x = tf.constant(1.5)
    assert tf.dtypes.cast(x, TInt32).op().attr("Truncate") is False
    assert tf.dtypes.cast(x, TInt32, Cast.Truncate(True)).op().attr("Truncate") is True


@pytest.mark.parametrize(
    "shape",
    [Shape.scalar(), Shape.of(3), Shape.of(2, 0), Shape.of(U, 3), Shape.unknown()],
    ids=str,
)
def test_outputShapeIsTheInputShape(tf: Ops, shape: Shape) -> None:
    y = tf.dtypes.cast(placeholder(tf, TFloat32, shape), TInt64)
    assert y.asOutput().shape() == shape


@pytest.mark.parametrize(
    ("value", "src"),
    [
        (1.7, TFloat32),
        ([1, 2], TInt32),
        (True, TBool),
        (np.float64(0.5), TFloat64),
        (np.array([1], np.uint8), TUint8),
    ],
    ids=repr,
)
def test_pythonAndNumpyValuesKeepTheirOwnSourceType(
    tf: Ops, value: object, src: type[TType]
) -> None:
    y = tf.dtypes.cast(value, TFloat16)  # type: ignore[arg-type]
    assert y.op().attr("SrcT") is src
    assert y.op().input(0).dataType() is src


# -- kernel ---------------------------------------------------------------------------------
TRUNCATED = [1.75, -1.75, 2.5, -2.5, 0.875, -0.875, 0.0, 100.0]
NARROWED = [0.1, 1.0 / 3.0, 70000.0, -70000.0, 1e-10]
CONVERSIONS = [
    # (src, dst, x, the result): floating point to integer truncates towards zero
    *[(src, dst, TRUNCATED, [1, -1, 2, -2, 0, 0, 0, 100]) for src in FLOATS
      for dst in (TInt32, TInt64)],
    (TFloat64, TUint8, [0.9, 1.5, 254.99, 255.0], [0, 1, 254, 255]),
    # integer to floating point is exact
    *[(src, dst, [0, 1, 7, 200], [0.0, 1.0, 7.0, 200.0]) for src in INTEGERS for dst in FLOATS],
    # bool to a number is one or zero, anything non-zero to bool is true
    *[(TBool, dst, [True, False, True], [1, 0, 1]) for dst in ALL if dst is not TBool],
    (TFloat64, TBool, [0.0, -0.0, 0.5, -2.0, np.inf, np.nan, 1e-300],
     [False, False, True, True, True, True, True]),
    *[(src, TBool, [0, 1, 2, 255], [False, True, True, True]) for src in INTEGERS],
    # integer to a narrower integer wraps around
    (TInt32, TUint8, [256, -1, 300, 255], [0, 255, 44, 255]),
    (TInt64, TInt32, [2**32 + 5, -(2**31) - 1, 2**31 - 1], [5, 2**31 - 1, 2**31 - 1]),
    (TUint8, TInt32, [255, 0], [255, 0]),
    # narrowing floating point rounds to nearest and overflows to infinity; widening is exact
    (TFloat64, TFloat16, NARROWED, [np.float16(0.1), np.float16(1.0 / 3.0), np.inf, -np.inf, 0]),
    (TFloat64, TFloat32, NARROWED, np.array(NARROWED).astype(np.float32)),
    (TFloat32, TFloat64, [0.1, -2.5, np.inf, np.nan],
     np.array([0.1, -2.5, np.inf, np.nan], np.float32).astype(np.float64)),
    # a cast to the same type keeps the values
    *[(dtype, dtype, [[0, 1], [1, 0]], [[0, 1], [1, 0]]) for dtype in ALL],
]


@pytest.mark.parametrize(
    ("src", "dst", "x", "expected"), CONVERSIONS,
    ids=[f"{src.NAME}-{dst.NAME}" for src, dst, _, _ in CONVERSIONS],
)
def test_kernelIsAStaticCast(
    tf: Ops, run: Run, src: type[TType], dst: type[TType], x: Any, expected: Any
) -> None:
    result = run(tf.dtypes.cast(np.array(x, src.DTYPE), dst))
    assert result.dtype == dst.DTYPE
    np.testing.assert_array_equal(result, np.array(expected, dst.DTYPE))


def test_kernelOfAScalarAndAnEmptyTensor(tf: Ops, run: Run) -> None:
    scalar, empty = run(
        tf.dtypes.cast(np.float64(-3.99), TInt32),
        tf.dtypes.cast(np.zeros((0, 2), np.int32), TFloat16),
    )
    assert scalar.shape == () and scalar.dtype == np.int32 and scalar == -3
    assert empty.shape == (0, 2) and empty.dtype == np.float16


def test_kernelOfAFedPlaceholder(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, Shape.of(U))
    y = tf.dtypes.cast(x, TInt64)
    assert run(y, feeds={x: np.array([9.99, -9.99])}).tolist() == [9, -9]


# -- gradient -------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_gradientMatchesFiniteDifferences(tf: Ops, shape: tuple[int, ...]) -> None:
    value = np.linspace(-1.0, 1.0, num=int(np.prod(shape))).reshape(shape)
    assertGradient(tf, lambda x: tf.math.square(tf.dtypes.cast(x, TFloat64)), [value])


def test_gradientWithUnknownShape(tf: Ops) -> None:
    assertGradient(tf, lambda x: tf.math.exp(tf.dtypes.cast(x, TFloat64)),
                   [np.array([[0.5, -1.0]])], shapes=[Shape.unknown()])


@pytest.mark.parametrize(
    ("src", "dst"),
    [(TFloat32, TFloat64), (TFloat64, TFloat32), (TFloat16, TFloat32), (TFloat32, TFloat16)],
    ids=str,
)
def test_gradientIsCastBackToTheSourceType(
    tf: Ops, run: Run, src: type[TType], dst: type[TType]
) -> None:
    x = placeholder(tf, src, Shape.of(3))
    dx = tf.gradients(tf.math.square(tf.dtypes.cast(x, dst)), [x]).dy(0)
    assert dx is not None
    assert dx.dataType() is src
    result = run(dx, feeds={x: np.array([1.5, -2.0, 0.25], src.DTYPE)})
    assert result.dtype == src.DTYPE
    np.testing.assert_array_equal(result, np.array([3.0, -4.0, 0.5], src.DTYPE))


@pytest.mark.parametrize("dst", [TInt32, TInt64, TUint8, TBool])
def test_noGradientThroughACastToANonFloatingType(tf: Ops, dst: type[TType]) -> None:
    x = placeholder(tf, TFloat64, Shape.of(3))
    y = tf.dtypes.cast(x, dst)
    assert tf.gradients(y, [x]).dy(0) is None


@pytest.mark.parametrize("via", [TInt32, TBool])
def test_noGradientThroughARoundTripViaANonFloatingType(tf: Ops, via: type[TType]) -> None:
    x = placeholder(tf, TFloat64, Shape.of(3))
    y = tf.dtypes.cast(tf.dtypes.cast(x, via), TFloat64)
    assert tf.gradients(y, [x]).dy(0) is None


def test_noGradientWithRespectToAnIntegerSource(tf: Ops) -> None:
    x = placeholder(tf, TInt32, Shape.of(3))
    y = tf.math.square(tf.dtypes.cast(x, TFloat64))
    assert tf.gradients(y, [x]).dy(0) is None


def test_secondOrderGradientThroughCast(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, Shape.scalar())
    y = tf.math.mul(tf.math.square(tf.dtypes.cast(x, TFloat32)), tf.dtypes.cast(x, TFloat32))
    dx = tf.gradients(y, [x]).dy(0)
    assert dx is not None
    d2x = tf.gradients(dx, [x]).dy(0)
    assert d2x is not None
    assert d2x.dataType() is TFloat64
    first, second = run(dx, d2x, feeds={x: 2.0})
    assert first == 12.0
    assert second == 12.0


# -- bad inputs -----------------------------------------------------------------------------
@pytest.mark.parametrize("dst", [np.float32, "float32", TNumber, TType, 3], ids=repr)
def test_rejectsADstTThatIsNotADataType(tf: Ops, graph: Graph, dst: object) -> None:
    x = tf.constant(1.0)
    message = assertRejected(graph, lambda: tf.dtypes.cast(x, dst), TypeError, "Cast")
    if dst is np.float32:
        assert "Cast 'Cast'" in message and f"created at {__file__}:" in message


def test_rejectsATruncateOptionThatIsNotABool(tf: Ops, graph: Graph) -> None:
    x = tf.constant(1.0)
    assertRejected(graph, lambda: tf.dtypes.cast(x, TInt32, Cast.Truncate("yes")), TypeError,
                   "Cast")
