"""Specification of the ops that give their input a new shape: ``Reshape`` (to ``shape``, one
dimension may be -1), ``ExpandDims`` (a dimension of 1 at ``axis``) and ``BroadcastTo`` (numpy's
broadcast to ``shape``). Each keeps any data type; its static shape comes from a constant (or
``Shape`` op) argument; its gradient gives the incoming gradient the input's shape (summed over
the broadcast dimensions)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest
from opchecks import ALL, assertGradient, assertGradientsClose, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.core import Gradients
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TInt64, TType

Run = Callable[..., Any]
Array = np.ndarray[Any, Any]
SITE = f"created at {__file__}:"
U = -1  # an unknown dimension


class Row(NamedTuple):
    op: str
    method: str
    reference: Callable[[Array, Any], Array]
    indexAttr: str  # the type attribute of the shape (or axis) argument


RESHAPE = Row("Reshape", "reshape", np.reshape, "Tshape")
EXPAND_DIMS = Row("ExpandDims", "expandDims",
                  lambda x, axis: np.expand_dims(x, int(np.reshape(axis, -1)[0])), "Tdim")
BROADCAST_TO = Row("BroadcastTo", "broadcastTo", np.broadcast_to, "Tidx")
ROWS = [RESHAPE, EXPAND_DIMS, BROADCAST_TO]
rows = pytest.mark.parametrize("row", ROWS, ids=lambda row: row.op)


def case(row: Row, *values: Any) -> Any:
    return pytest.param(row, *values, id=f"{row.op}-{'-'.join(map(str, values))}")


def build(tf: Ops, row: Row, x: Any, arg: Any) -> Any:
    if isinstance(arg, list) and row is not EXPAND_DIMS:
        arg = np.array(arg, np.int32).reshape(-1)  # an empty list is an int32 vector
    return getattr(tf, row.method)(x, arg)


def sample(dtype: type[TType], shape: tuple[int, ...]) -> Array:
    values: Array = np.arange(int(np.prod(shape))).reshape(shape) + 1
    return (values % 3 == 1) if dtype is TBool else values.astype(dtype.DTYPE)


def point(shape: tuple[int, ...]) -> Array:
    return (np.arange(int(np.prod(shape))) * 0.75 - 2.0).reshape(shape)


# -- construction --------------------------------------------------------------------------
@rows
@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
def test_outputHasTheInputDataType(tf: Ops, row: Row, dtype: type[TType]) -> None:
    assert build(tf, row, placeholder(tf, dtype, (1,)), [1]).asOutput().dataType() is dtype


@pytest.mark.parametrize(
    ("row", "x", "arg", "expected"),
    [case(RESHAPE, [1, 2], [1, 2], Shape.of(1, 2)),
     case(RESHAPE, [1, 2, 3, 4], np.array([2, 2], np.int64), Shape.of(2, 2)),
     case(EXPAND_DIMS, [1.0], -1, Shape.of(1, 1)),
     case(EXPAND_DIMS, [1.0, 2.0], np.int64(1), Shape.of(2, 1)),
     case(BROADCAST_TO, [1.0, 2.0], [3, 2], Shape.of(3, 2)),
     case(BROADCAST_TO, [1.0], np.array([2, 3], np.int64), Shape.of(2, 3))],
)
def test_pythonIndicesAreInt32AndInt64IsAccepted(
    tf: Ops, row: Row, x: Any, arg: Any, expected: Shape
) -> None:
    y = getattr(tf, row.method)(tf.constant(x), arg)
    dtype = TInt64 if getattr(arg, "dtype", None) == np.int64 else TInt32
    assert y.op().attr(row.indexAttr) is y.op().input(1).dataType() is dtype
    assert y.asOutput().shape() == expected


@pytest.mark.parametrize(
    ("row", "shape", "arg", "expected"),
    [
        case(RESHAPE, Shape.of(6), [2, 3], Shape.of(2, 3)),
        case(RESHAPE, Shape.of(6), [2, -1], Shape.of(2, 3)),
        case(RESHAPE, Shape.of(2, 3), [-1], Shape.of(6)),
        case(RESHAPE, Shape.of(2, 3, 4), [-1, 4], Shape.of(6, 4)),
        case(RESHAPE, Shape.scalar(), [1, 1], Shape.of(1, 1)),
        case(RESHAPE, Shape.of(1, 1), [], Shape.scalar()),
        case(RESHAPE, Shape.of(0, 3), [3, 0], Shape.of(3, 0)),
        case(RESHAPE, Shape.of(0, 3), [-1, 3], Shape.of(0, 3)),
        case(RESHAPE, Shape.of(U, 3), [-1], Shape.of(U)),
        case(RESHAPE, Shape.of(U, 3), [3, -1], Shape.of(3, U)),
        case(RESHAPE, Shape.of(U, 3), [3, 2], Shape.of(3, 2)),
        case(RESHAPE, Shape.unknown(), [2, -1], Shape.of(2, U)),
        case(RESHAPE, Shape.unknown(), [4], Shape.of(4)),
        case(EXPAND_DIMS, Shape.of(2, 3), 0, Shape.of(1, 2, 3)),
        case(EXPAND_DIMS, Shape.of(2, 3), 1, Shape.of(2, 1, 3)),
        case(EXPAND_DIMS, Shape.of(2, 3), 2, Shape.of(2, 3, 1)),
        case(EXPAND_DIMS, Shape.of(2, 3), -1, Shape.of(2, 3, 1)),
        case(EXPAND_DIMS, Shape.of(2, 3), -2, Shape.of(2, 1, 3)),
        case(EXPAND_DIMS, Shape.of(2, 3), -3, Shape.of(1, 2, 3)),
        case(EXPAND_DIMS, Shape.of(2, 3), [1], Shape.of(2, 1, 3)),
        case(EXPAND_DIMS, Shape.scalar(), 0, Shape.of(1)),
        case(EXPAND_DIMS, Shape.scalar(), -1, Shape.of(1)),
        case(EXPAND_DIMS, Shape.of(0), 0, Shape.of(1, 0)),
        case(EXPAND_DIMS, Shape.of(U, 3), 1, Shape.of(U, 1, 3)),
        case(EXPAND_DIMS, Shape.of(U, 3), -1, Shape.of(U, 3, 1)),
        case(EXPAND_DIMS, Shape.unknown(), 0, Shape.unknown()),
        case(BROADCAST_TO, Shape.of(2), [3, 2], Shape.of(3, 2)),
        case(BROADCAST_TO, Shape.of(2, 1), [2, 3], Shape.of(2, 3)),
        case(BROADCAST_TO, Shape.scalar(), [2, 3], Shape.of(2, 3)),
        case(BROADCAST_TO, Shape.of(2, 3), [2, 3], Shape.of(2, 3)),
        case(BROADCAST_TO, Shape.of(1), [0], Shape.of(0)),
        case(BROADCAST_TO, Shape.of(1, 3), [4, 0, 3], Shape.of(4, 0, 3)),
        case(BROADCAST_TO, Shape.scalar(), [], Shape.scalar()),
        case(BROADCAST_TO, Shape.of(U, 1), [4, 3], Shape.of(4, 3)),
        case(BROADCAST_TO, Shape.of(U, 3), [5, 3], Shape.of(5, 3)),
        case(BROADCAST_TO, Shape.of(U), [2, 4], Shape.of(2, 4)),
        case(BROADCAST_TO, Shape.unknown(), [3, 2, 4], Shape.of(3, 2, 4)),
    ],
)
def test_staticShapeFromAConstantArgument(
    tf: Ops, row: Row, shape: Shape, arg: Any, expected: Shape
) -> None:
    assert build(tf, row, placeholder(tf, TFloat32, shape), arg).asOutput().shape() == expected


@pytest.mark.parametrize(
    ("row", "x", "like", "expected"),
    [case(RESHAPE, [1, 2, 3, 4, 5, 6], (2, 3), Shape.of(2, 3)),
     case(RESHAPE, None, (U, 3), Shape.of(U, 3)),
     case(BROADCAST_TO, [[1.0], [2.0]], (U, 3), Shape.of(2, 3))],
)
def test_staticShapeFromAShapeOp(tf: Ops, row: Row, x: Any, like: Any, expected: Shape) -> None:
    x = tf.placeholder(TFloat32) if x is None else tf.constant(x)
    y = build(tf, row, x, tf.shape(placeholder(tf, TFloat32, like)))
    assert y.asOutput().shape() == expected


@pytest.mark.parametrize(
    ("row", "x", "argShape", "expected"),
    [case(RESHAPE, np.zeros(6), (3,), Shape.of(U, U, U)),
     case(RESHAPE, np.zeros(6), None, Shape.unknown()),
     case(EXPAND_DIMS, np.zeros((2, 3)), None, Shape.of(U, U, U)),
     case(BROADCAST_TO, [1.0], (2,), Shape.of(U, U)),
     case(BROADCAST_TO, [1.0], None, Shape.unknown())],
)
def test_nonConstantArgumentGivesTheRankWhenItsLengthIsKnown(
    tf: Ops, row: Row, x: Any, argShape: Any, expected: Shape
) -> None:
    y = build(tf, row, tf.constant(x), placeholder(tf, TInt32, argShape))
    assert y.asOutput().shape() == expected


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("row", "shape", "arg"),
    [
        case(RESHAPE, (6,), [2, 3]),
        case(RESHAPE, (2, 3), [-1]),
        case(RESHAPE, (2, 3), [3, -1]),
        case(RESHAPE, (2, 3, 2), [2, -1, 3]),
        case(RESHAPE, (), [1, 1, 1]),
        case(RESHAPE, (1, 1), []),
        case(RESHAPE, (0, 3), [3, 0]),
        case(RESHAPE, (0, 3), [-1, 3]),
        case(EXPAND_DIMS, (2, 3), 0),
        case(EXPAND_DIMS, (2, 3), 2),
        case(EXPAND_DIMS, (2, 3), -1),
        case(EXPAND_DIMS, (2, 3), -3),
        case(EXPAND_DIMS, (), 0),
        case(EXPAND_DIMS, (0, 2), 1),
        case(EXPAND_DIMS, (4,), [0]),
        case(BROADCAST_TO, (3,), [2, 3]),
        case(BROADCAST_TO, (2, 1), [2, 4]),
        case(BROADCAST_TO, (1, 3, 1), [2, 3, 2]),
        case(BROADCAST_TO, (), [2, 2]),
        case(BROADCAST_TO, (2, 3), [2, 3]),
        case(BROADCAST_TO, (1,), [0]),
        case(BROADCAST_TO, (), []),
        case(BROADCAST_TO, (1, 2), [3, 0, 2]),
    ],
)
def test_runMatchesNumpy(
    tf: Ops, run: Run, dtype: type[TType], row: Row, shape: tuple[int, ...], arg: Any
) -> None:
    value = sample(dtype, shape)
    result = run(build(tf, row, tf.constant(value), arg))
    expected = row.reference(value, arg)
    assert (result.dtype, result.shape) == (dtype.DTYPE, expected.shape)
    np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize(
    ("shape", "target", "expected"),
    [((0, 3), [0, -1], (0, 3)), ((2, 0), [-1, 0], (2, 0)), ((4, 0, 5), [-1, 0, 5], (4, 0, 5))],
    ids=str,
)
def test_reshapesUnknownDimensionNextToAZeroDimension(
    tf: Ops, run: Run, shape: tuple[int, ...], target: list[int], expected: tuple[int, ...]
) -> None:
    # TensorFlow leaves zero dimensions out when it computes the -1 dimension.
    r = build(tf, RESHAPE, tf.constant(np.zeros(shape, np.float32)), target)
    assert r.asOutput().shape().isCompatibleWith(Shape.of(*expected))
    assert run(r).shape == expected


def test_reshapeToAnEmptyPythonListGivesAScalar(tf: Ops, run: Run) -> None:
    r = tf.reshape(tf.constant([5.0]), [])  # as tf.reshape(x, [])
    assert r.asOutput().shape() == Shape.scalar()
    assert run(r).tolist() == 5.0


@pytest.mark.parametrize(
    ("row", "x", "feeds"),
    [case(RESHAPE, [1, 2, 3, 4, 5, 6], [([3, -1], [[1, 2], [3, 4], [5, 6]]),
                                        ([1, 6], [[1, 2, 3, 4, 5, 6]])]),
     case(EXPAND_DIMS, [[1, 2]], [(-1, [[[1], [2]]]), (0, [[[1, 2]]])]),
     case(BROADCAST_TO, [1, 2], [([2, 2], [[1, 2], [1, 2]]), ([1, 1, 2], [[[1, 2]]])])],
)
def test_runWithANonConstantArgument(tf: Ops, run: Run, row: Row, x: Any, feeds: Any) -> None:
    arg = tf.placeholder(TInt64 if row is not EXPAND_DIMS else TInt32)
    y = build(tf, row, tf.constant(x), arg)
    for value, expected in feeds:
        fed = np.array(value, np.int64 if row is not EXPAND_DIMS else np.int32)
        assert run(y, feeds={arg: fed}).tolist() == expected


@pytest.mark.parametrize(
    ("row", "shape", "arg", "value", "expected"),
    [case(RESHAPE, (U, 2), [-1], [[1, 2], [3, 4]], [1, 2, 3, 4]),
     case(EXPAND_DIMS, (U, 2), 1, [[1, 2], [3, 4], [5, 6]], [[[1, 2]], [[3, 4]], [[5, 6]]]),
     case(BROADCAST_TO, None, [2, 3], [[1], [2]], [[1, 1, 1], [2, 2, 2]])],
)
def test_runOfAnInputWithoutAStaticShape(
    tf: Ops, run: Run, row: Row, shape: Any, arg: Any, value: Any, expected: Any
) -> None:
    x = placeholder(tf, TInt32, shape)
    assert run(build(tf, row, x, arg), feeds={x: np.array(value, np.int32)}).tolist() == expected


def test_broadcastResultIsAWritableArrayOfItsOwn(tf: Ops, run: Run) -> None:
    b = tf.broadcastTo(tf.constant([1, 2]), [2, 2])
    first = run(b)
    first[0, 0] = 9
    assert run(b).tolist() == [[1, 2], [1, 2]]


# -- gradient ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("row", "shape", "arg"),
    [
        case(RESHAPE, (6,), [2, 3]),
        case(RESHAPE, (2, 3), [-1]),
        case(RESHAPE, (2, 3, 2), [3, -1]),
        case(RESHAPE, (), [1, 1]),
        case(RESHAPE, (1, 1), []),
        case(EXPAND_DIMS, (3,), 0),
        case(EXPAND_DIMS, (2, 3), 1),
        case(EXPAND_DIMS, (2, 3), -1),
        case(EXPAND_DIMS, (), 0),
        case(EXPAND_DIMS, (2, 2, 2), -4),
        case(BROADCAST_TO, (3,), [2, 3]),
        case(BROADCAST_TO, (2, 1), [2, 3]),
        case(BROADCAST_TO, (), [2, 3]),
        case(BROADCAST_TO, (2, 1), [3, 2, 4]),
        case(BROADCAST_TO, (1, 3, 1), [2, 3, 2]),
        case(BROADCAST_TO, (2, 3), [2, 3]),
    ],
)
def test_gradientMatchesFiniteDifferences(
    tf: Ops, row: Row, shape: tuple[int, ...], arg: Any
) -> None:
    assertGradient(tf, lambda x: build(tf, row, x, arg), [point(shape)])


@pytest.mark.parametrize(
    ("row", "shape", "value", "arg"),
    [case(RESHAPE, (U, 3), (2, 3), [3, -1]), case(RESHAPE, None, (2, 3), [3, -1]),
     case(EXPAND_DIMS, (U, 3), (2, 3), 1), case(EXPAND_DIMS, None, (2, 3), 1),
     case(BROADCAST_TO, (U, 1), (2, 1), [3, 2, 4]), case(BROADCAST_TO, None, (2, 1), [3, 2, 4])],
)
def test_gradientWithoutAStaticShapeMatchesFiniteDifferences(
    tf: Ops, row: Row, shape: Any, value: tuple[int, ...], arg: Any
) -> None:
    assertGradient(tf, lambda x: build(tf, row, x, arg), [point(value)],
                   shapes=[Shape.unknown() if shape is None else Shape.of(*shape)])


@pytest.mark.parametrize(
    ("row", "shape", "arg"),
    [case(RESHAPE, (2, 3), [3, 1, 2]), case(EXPAND_DIMS, (2, 3), 1),
     case(BROADCAST_TO, (2, 1), [3, 2, 4])],
)
def test_gradientWithANonConstantArgumentMatchesFiniteDifferences(
    tf: Ops, row: Row, shape: tuple[int, ...], arg: Any
) -> None:
    x = placeholder(tf, TFloat64, shape)
    a = tf.placeholder(TInt32)
    assertGradientsClose(build(tf, row, x, a), [x], {x: point(shape)},
                         feeds={a: np.array(arg, np.int32)})


@pytest.mark.parametrize(
    ("row", "shape", "arg", "factor"),
    [case(RESHAPE, (6,), [3, 2], [[[1.0], [2.0], [-1.0]], [[0.5], [3.0], [4.0]]]),
     # [2, 3] -> [2, 1, 3], broadcast against [4, 1] to [2, 4, 3]
     case(EXPAND_DIMS, (2, 3), 1, [[1.0], [-2.0], [0.5], [3.0]])],
)
def test_gradientWithBroadcastingMatchesFiniteDifferences(
    tf: Ops, row: Row, shape: tuple[int, ...], arg: Any, factor: Any
) -> None:
    c = tf.constant(np.array(factor))
    assertGradient(tf, lambda x: tf.math.mul(build(tf, row, x, arg), c), [point(shape)])


@pytest.mark.parametrize(
    ("row", "shape", "arg", "seed", "expected"),
    [case(RESHAPE, (2, 2), [-1], [1.0, 2.0, 3.0, 4.0], [[1.0, 2.0], [3.0, 4.0]]),
     case(EXPAND_DIMS, (3,), 1, [[1.0], [2.0], [3.0]], [1.0, 2.0, 3.0]),
     case(BROADCAST_TO, (2, 1), [2, 2, 2],
          [[[1.0, 2.0], [3.0, 4.0]], [[10.0, 20.0], [30.0, 40.0]]], [[33.0], [77.0]])],
)
def test_gradientIsTheIncomingGradientInTheInputShape(
    tf: Ops, run: Run, row: Row, shape: tuple[int, ...], arg: Any, seed: Any, expected: Any
) -> None:
    x = tf.constant(np.zeros(shape))
    d = tf.gradients(build(tf, row, x, arg), [x], Gradients.dx([tf.constant(np.array(seed))]))
    dx = d.dy(0)
    assert dx is not None
    assert dx.shape() == Shape.of(*shape)
    assert run(dx).tolist() == expected


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("row", "shape", "arg", "fragment"),
    [
        case(RESHAPE, (5,), [2, 3], ""),
        case(RESHAPE, (2, 3), [4], ""),
        case(RESHAPE, (5,), [2, -1], ""),
        case(RESHAPE, (6,), [0, -1], ""),
        case(RESHAPE, (6,), [4, -1], ""),
        case(RESHAPE, (6,), [-1, -1], ""),
        case(RESHAPE, (4,), [[2, 2]], ""),
        case(EXPAND_DIMS, (U, 3), 3, "out of range"),
        case(EXPAND_DIMS, (U, 3), -4, "out of range"),
        case(EXPAND_DIMS, (U, 3), 10, "out of range"),
        case(EXPAND_DIMS, (1,), [0, 1], ""),
        case(EXPAND_DIMS, (1,), np.array([], np.int32), ""),
        case(BROADCAST_TO, (3,), [2, 2], ""),
        case(BROADCAST_TO, (2, 3), [3, 3], ""),
        case(BROADCAST_TO, (2,), [0], ""),
        case(BROADCAST_TO, (1, 2), [2], ""),
        case(BROADCAST_TO, (2,), [], ""),
    ],
)
def test_argumentThatDoesNotFitRaisesValueError(
    tf: Ops, graph: Graph, row: Row, shape: tuple[int, ...], arg: Any, fragment: str
) -> None:
    x = placeholder(tf, TFloat32, shape)
    arg = np.array(arg, np.int32) if isinstance(arg, list) and row is RESHAPE else arg
    assertRejected(graph, lambda: build(tf, row, x, arg), ValueError,
                   f"{row.op} '{row.op}' ({SITE}", fragment)


@pytest.mark.parametrize(
    ("row", "like"), [case(RESHAPE, (2, 3)), case(RESHAPE, (2, 2)), case(BROADCAST_TO, (2, 2))]
)
def test_argumentOfAnotherShapeThanAVectorRaisesValueError(
    tf: Ops, graph: Graph, row: Row, like: tuple[int, ...]
) -> None:
    # a Shape op of 6 elements for 5; a non-constant shape of rank 2 (TensorFlow's shape
    # functions require the shape input to be a vector)
    x = tf.constant([1, 2, 3, 4, 5])
    arg = tf.shape(placeholder(tf, TFloat32, like)) if like == (2, 3) else placeholder(
        tf, TInt32, like)
    assertRejected(graph, lambda: build(tf, row, x, arg), ValueError, f"{row.op} '{row.op}'")


@pytest.mark.parametrize(
    ("row", "arg"),
    [case(RESHAPE, [2.0, 2.0]), case(RESHAPE, np.array([2.0, 2.0], np.float32)),
     case(RESHAPE, np.array([2, 2], np.uint8)), case(EXPAND_DIMS, 0.0),
     case(BROADCAST_TO, np.array([2.0]))],
)
def test_argumentOfANonIndexDataTypeRaisesTypeError(
    tf: Ops, graph: Graph, row: Row, arg: Any
) -> None:
    x = tf.constant(np.zeros(4))
    assertRejected(graph, lambda: getattr(tf, row.method)(x, arg), TypeError, row.op)


@pytest.mark.parametrize(
    ("row", "arg", "fed", "shape"),
    [case(RESHAPE, [2, 2], None, (5,)), case(EXPAND_DIMS, None, 2, (1,)),
     # an axis of several values, or none: one integer, as the shape rule asks of a constant
     case(EXPAND_DIMS, None, [1, 1], (1,)), case(EXPAND_DIMS, None, [], (1,)),
     case(BROADCAST_TO, [2, 2], None, (3,))],
)
def test_argumentThatDoesNotFitAtRunTimeRaisesInvalidArgumentError(
    tf: Ops, run: Run, row: Row, arg: Any, fed: Any, shape: tuple[int, ...]
) -> None:
    x = placeholder(tf, TFloat32, (U,))
    a = tf.placeholder(TInt32) if arg is None else arg
    y = getattr(tf.withName("y"), row.method)(x, a)
    feeds = {x: np.zeros(shape, np.float32)}
    if arg is None:
        feeds[a] = np.array(fed, np.int32)
    with pytest.raises(InvalidArgumentError, match=f"'y'.*{SITE}") as info:
        run(y, feeds=feeds)
    assert info.value.op == y.op()
