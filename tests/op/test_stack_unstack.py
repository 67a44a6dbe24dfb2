"""Stack's and Unstack's own behaviour (TensorFlow's ``Pack`` and ``Unpack``): Stack joins values
of one shape along a new dimension at axis; Unstack cuts dimension axis into num tensors (one
output each); each one's gradient is the other."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from opchecks import ALL, assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.core import Gradients, Stack, Unstack
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TType

HERE = f"created at {__file__}:"


def sample(dtype: type[TType], shape: tuple[int, ...], start: int = 0) -> Any:
    values = np.arange(start, start + int(np.prod(shape))).reshape(shape)
    return values % 3 == 1 if dtype is TBool else values.astype(dtype.DTYPE)


def point(shape: tuple[int, ...], offset: float = 0.0) -> Any:
    return (np.arange(int(np.prod(shape))) * 0.75 - 2.0 + offset).reshape(shape)


# -- Stack ---------------------------------------------------------------------------------
def test_stackSetsNAndAxis(tf: Ops) -> None:
    a, b = tf.constant([1.0]), tf.constant([2.0])
    s = tf.stack([a, b], Stack.axis(1))
    assert s.op().attr("N") == 2 and s.op().attr("axis") == 1
    assert tf.stack([a]).op().attr("axis") == 0  # the default


def test_pythonValuesTakeTheDataTypeOfAnOperand(tf: Ops) -> None:
    assert tf.stack([tf.constant(np.array([1.0])), [2]]).asOutput().dataType() is TFloat64


@pytest.mark.parametrize(
    ("shapes", "axis", "expected"),
    [
        ([Shape.of(2, 3)] * 4, 0, Shape.of(4, 2, 3)),
        ([Shape.of(2, 3)] * 4, 1, Shape.of(2, 4, 3)),
        ([Shape.of(2, 3)] * 4, 2, Shape.of(2, 3, 4)),
        ([Shape.of(2, 3)] * 4, -1, Shape.of(2, 3, 4)),
        ([Shape.of(2, 3)] * 4, -3, Shape.of(4, 2, 3)),
        ([Shape.scalar()] * 3, 0, Shape.of(3)),
        ([Shape.of(0)] * 2, 1, Shape.of(0, 2)),
        ([Shape.of(-1, 3), Shape.of(2, -1)], 0, Shape.of(2, 2, 3)),
        ([Shape.unknown(), Shape.of(-1, 3)], -1, Shape.of(-1, 3, 2)),
        ([Shape.unknown(), Shape.unknown()], 0, Shape.unknown()),
    ],
    ids=str,
)
def test_stackStaticShape(tf: Ops, shapes: list[Shape], axis: int, expected: Shape) -> None:
    s = tf.stack([placeholder(tf, TFloat32, s) for s in shapes], Stack.axis(axis))
    assert s.asOutput().shape() == expected


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("shape", "count", "axis"),
    [((2, 3), 3, 0), ((2, 3), 2, 1), ((2, 3), 2, -1), ((), 4, 0), ((3,), 1, 0), ((0, 2), 2, 1)],
    ids=str,
)
def test_stackKernelMatchesNumpy(
    tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...], count: int, axis: int
) -> None:
    values = [sample(dtype, shape, start=10 * i) for i in range(count)]
    s = tf.stack([tf.constant(v) for v in values], Stack.axis(axis))
    assert s.asOutput().dataType() is dtype
    np.testing.assert_array_equal(run(s), np.stack(values, axis=axis), strict=True)


@pytest.mark.parametrize(
    ("shape", "count", "axis"),
    [((2, 3), 2, 0), ((2, 3), 3, 1), ((2, 2), 2, -1), ((2, 2), 2, -2), ((), 3, 0)],
    ids=str,
)
def test_stackGradientMatchesFiniteDifferences(
    tf: Ops, shape: tuple[int, ...], count: int, axis: int
) -> None:
    assertGradient(tf, lambda *xs: tf.stack(list(xs), Stack.axis(axis)),
                   [point(shape, offset=i) for i in range(count)])


@pytest.mark.parametrize("axis", [1, -1], ids=str)
@pytest.mark.parametrize("declared", [Shape.of(-1, 3), Shape.unknown()], ids=str)
def test_stackGradientWithoutAStaticShape(tf: Ops, declared: Shape, axis: int) -> None:
    assertGradient(tf, lambda x: tf.stack([x, tf.math.square(x)], Stack.axis(axis)),
                   [point((2, 3))], [declared])


def test_stackGradientOfEachValueIsItsSliceOfTheIncomingGradient(tf: Ops, run: Any) -> None:
    a, b = tf.constant(np.zeros(2)), tf.constant(np.zeros(2))
    seed = Gradients.dx([tf.constant(np.array([[1.0, 2.0], [3.0, 4.0]]))])
    grads = tf.gradients(tf.stack([a, b], Stack.axis(1)), [a, b], seed)
    da, db = grads.dy(0), grads.dy(1)
    assert da is not None and db is not None
    assert da.shape() == Shape.of(2) and db.shape() == Shape.of(2)
    assert run(da).tolist() == [1.0, 3.0] and run(db).tolist() == [2.0, 4.0]
    twice = tf.gradients(tf.stack([a, a]), [a], seed).dy(0)  # the sum of its two slices
    assert twice is not None and run(twice).tolist() == [4.0, 6.0]


@pytest.mark.parametrize(
    ("values", "axis", "error", "fragment"),
    [
        ([np.zeros((2, 3))] * 2, 3, ValueError, "axis 3 is out of range [-3, 3)"),
        ([np.zeros((2, 3))] * 2, -4, ValueError, "axis -4 is out of range [-3, 3)"),
        ([[1, 2], [1, 2, 3]], 0, ValueError, "values must have the same shape, got [2] and [3]"),
        ([], 0, ValueError, "input list 'values' must not be empty"),
        ([np.zeros(1, np.float32), np.zeros(1, np.int32)], 0, TypeError,
         "input 'values' has data type int32"),
    ],
    ids=["axisTooLarge", "axisTooSmall", "shapes", "empty", "mixedTypes"],
)
def test_stackRejectsBadValues(
    graph: Graph, tf: Ops, values: list[Any], axis: int, error: type[Exception], fragment: str
) -> None:
    assertRejected(graph, lambda: tf.stack(values, Stack.axis(axis)), error,
                   f"Pack 'Stack' ({HERE}", fragment)


# -- Unstack -------------------------------------------------------------------------------
def test_unstackHasOneOutputPerSliceAndIsIterable(tf: Ops) -> None:
    pieces = tf.unstack(tf.constant(np.zeros((3, 4), np.float32)), 3)
    assert pieces.op().numOutputs() == 3
    assert [o.index() for o in pieces] == [0, 1, 2]
    assert pieces.output() == list(pieces)
    assert tf.unstack(tf.constant(np.zeros((0, 3), np.float32)), 0).output() == []


@pytest.mark.parametrize(
    ("shape", "num", "axis", "expected"),
    [(Shape.of(3, 4), 3, 0, Shape.of(4)), (Shape.of(3, 4), 4, 1, Shape.of(3)),
     (Shape.of(2, 3, 4), 4, -1, Shape.of(2, 3)), (Shape.of(-1, 3), 3, 1, Shape.of(-1)),
     (Shape.unknown(), 2, 0, Shape.unknown())],
    ids=str,
)
def test_unstackStaticShape(tf: Ops, shape: Shape, num: int, axis: int, expected: Shape) -> None:
    pieces = tf.unstack(placeholder(tf, TFloat32, shape), num, Unstack.axis(axis))
    assert [o.shape() for o in pieces] == [expected] * num


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_unstackKernelMatchesNumpy(tf: Ops, run: Any, dtype: type[TType], axis: int) -> None:
    value = (np.arange(24).reshape(2, 3, 4) % 5).astype(dtype.DTYPE)
    pieces = tf.unstack(tf.constant(value), value.shape[axis], Unstack.axis(axis))
    assert all(o.dataType() is dtype for o in pieces)
    for i, r in enumerate(run(*pieces)):
        np.testing.assert_array_equal(r, np.take(value, i, axis=axis), strict=True)


def test_unstackGradientMatchesFiniteDifferences(tf: Ops) -> None:
    def unusedMiddle(x: Any) -> Any:  # b unused: its gradient is zero
        a, b, c = tf.unstack(x, 3)
        return tf.math.add(tf.math.mul(a, 2.0), tf.math.square(c))

    def alongTheLastAxis(x: Any) -> Any:
        first, second = tf.unstack(x, 2, Unstack.axis(-1))
        return tf.math.mul(first, tf.math.exp(second))

    assertGradient(tf, unusedMiddle, [np.array([[1.0, -2.0], [0.5, 3.0], [0.2, -0.7]])])
    assertGradient(tf, alongTheLastAxis, [np.array([[0.1, 0.2], [0.3, -0.4], [1.0, 0.5]])],
                   [None])


@pytest.mark.parametrize(
    ("num", "axis", "fragment"),
    [(2, 0, "num is 2 but dimension 0 of the value has size 3"),
     (3, 2, "axis 2 is out of range [-2, 2)")],
    ids=["num", "axis"],
)
def test_unstackRejectsBadNumOrAxis(
    graph: Graph, tf: Ops, num: int, axis: int, fragment: str
) -> None:
    x = tf.constant(np.zeros((3, 2), np.float32))
    assertRejected(graph, lambda: tf.unstack(x, num, Unstack.axis(axis)), ValueError,
                   f"Unpack 'Unstack' ({HERE}", fragment)


# -- run-time errors -----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("build", "fed", "fragment"),
    [(lambda tf, x: tf.stack([x, [1, 2]]), [1, 2, 3],
      "all values must have the same shape, got [3] and [2] [op 'Stack' of type Pack"),
     (lambda tf, x: tf.stack([x], Stack.axis(2)), [1, 2],
      "axis 2 is out of range [-2, 2) [op 'Stack' of type Pack"),
     (lambda tf, x: tf.unstack(x, 2).output()[0], [[1], [2], [3]],
      "num is 2 but dimension 0 of the value has size 3 [op 'Unstack' of type Unpack")],
    ids=["stackShapes", "stackAxis", "unstackNum"],
)
def test_badShapesAtRunTimeRaiseInvalidArgumentError(
    tf: Ops, run: Any, build: Any, fed: Any, fragment: str
) -> None:
    x = tf.placeholder(TInt32)
    y = build(tf, x)
    with pytest.raises(InvalidArgumentError) as info:
        run(y, feeds={x: np.array(fed, np.int32)})
    assert info.value.op == y.op()
    assert fragment in str(info.value) and HERE in str(info.value)
