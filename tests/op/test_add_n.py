"""Specification of ``tfops.op.math.AddN``: the element-wise sum of a list of tensors.

All inputs must have the same data type and the same shape: AddN does not broadcast, neither at
construction (static shapes are merged) nor at run time. Naming, graphs and docs are in
``tests/test_every_op.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import NUMBERS, assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TInt64, TType

Run = Callable[..., Any]  # the conftest fixture: fetches in the test's session
U = -1  # an unknown dimension


def values(shape: tuple[int, ...], seed: int) -> np.ndarray[Any, Any]:
    return np.random.default_rng(seed).uniform(-2.0, 2.0, size=shape)


# -- construction ---------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 5])
def test_inputsAreTheListInOrderAndNIsTheirCount(tf: Ops, n: int) -> None:
    xs = [tf.constant(float(i)) for i in range(n)]
    s = tf.math.addN(xs)
    assert s.op().numInputs() == n
    assert list(s.op().inputs()) == [x.asOutput() for x in xs]
    assert s.op().attr("N") == n
    assert s.sum() == s.asOutput() == s.op().output(0) and s.op().numOutputs() == 1


def test_acceptsATuple(tf: Ops) -> None:
    x = tf.constant(1.0)
    assert tf.math.addN((x, x, x)).op().attr("N") == 3


@pytest.mark.parametrize("dtype", NUMBERS, ids=lambda t: t.NAME)
def test_outputDataTypeIsTheInputDataType(tf: Ops, dtype: type[TType]) -> None:
    s = tf.math.addN([tf.placeholder(dtype), tf.placeholder(dtype)])
    assert s.asOutput().dataType() is dtype
    assert s.op().attr("T") is dtype


@pytest.mark.parametrize(
    ("shapes", "merged"),
    [
        ([Shape.scalar()] * 3, Shape.scalar()),
        ([Shape.of(2, 3)] * 3, Shape.of(2, 3)),
        ([Shape.of(0, 2)] * 3, Shape.of(0, 2)),
        ([Shape.of(U, 3)] * 3, Shape.of(U, 3)),
        ([Shape.unknown(), Shape.unknown()], Shape.unknown()),
        ([Shape.unknown(), Shape.of(2, 3)], Shape.of(2, 3)),
        ([Shape.of(2, 3), Shape.unknown()], Shape.of(2, 3)),
        ([Shape.of(U, 3), Shape.of(2, 3)], Shape.of(2, 3)),
        ([Shape.of(2, 3), Shape.of(U, 3)], Shape.of(2, 3)),
        ([Shape.of(U, 3), Shape.unknown()], Shape.of(U, 3)),
        ([Shape.of(U, 3), Shape.of(2, U)], Shape.of(2, 3)),
        ([Shape.of(U, U, 4), Shape.of(1, U, U), Shape.of(U, 5, U)], Shape.of(1, 5, 4)),
    ],
    ids=str,
)
def test_outputShapeMergesWhatEachInputKnows(tf: Ops, shapes: list[Shape], merged: Shape) -> None:
    xs = [placeholder(tf, TFloat32, s) for s in shapes]
    assert tf.math.addN(xs).asOutput().shape() == merged


def test_pythonValuesBecomeConstants(tf: Ops, run: Run) -> None:
    s = tf.math.addN([1.0, 2.0, 0.5])
    assert s.asOutput().dataType() is TFloat32
    assert run(s) == np.float32(3.5)


def test_pythonValuesTakeTheTypeOfAnOperandInTheList(tf: Ops, run: Run) -> None:
    s = tf.math.addN([1.0, tf.constant(np.float64(0.25)), 2])
    assert s.asOutput().dataType() is TFloat64
    assert run(s) == 3.25


# -- kernel ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", NUMBERS, ids=lambda t: t.NAME)
def test_kernelSumsTheInputs(tf: Ops, run: Run, dtype: type[TType]) -> None:
    a = np.array([[0, 1, 2], [3, 4, 5]], dtype.DTYPE)
    b = np.array([[10, 20, 30], [40, 50, 60]], dtype.DTYPE)
    c = np.array([[1, 1, 1], [2, 2, 2]], dtype.DTYPE)
    result = run(tf.math.addN([a, b, c]))
    assert result.dtype == dtype.DTYPE
    np.testing.assert_array_equal(result, [[11, 22, 33], [45, 56, 67]])


def test_kernelOfASingleInputIsThatInput(tf: Ops, run: Run) -> None:
    x = np.array([1.5, -2.0, 7.0])
    np.testing.assert_array_equal(run(tf.math.addN([x])), x)


def test_kernelOfManyFedInputs(tf: Ops, run: Run) -> None:
    xs = [placeholder(tf, TFloat64, (U, 2)) for _ in range(4)]
    vs = [values((3, 2), i) for i in range(4)]
    result = run(tf.math.addN(xs), feeds=dict(zip(xs, vs, strict=True)))
    np.testing.assert_allclose(result, vs[0] + vs[1] + vs[2] + vs[3], rtol=1e-15)


def test_kernelOfTheSameInputTwice(tf: Ops, run: Run) -> None:
    x = tf.constant(np.array([1, -4], np.int64))
    assert run(tf.math.addN([x, x, x])).tolist() == [3, -12]


def test_kernelOfScalarsAndEmptyTensors(tf: Ops, run: Run) -> None:
    scalar, empty = run(
        tf.math.addN([np.int32(2), np.int32(3)]),
        tf.math.addN([np.zeros((0, 4), np.float32), np.zeros((0, 4), np.float32)]),
    )
    assert scalar.shape == () and scalar.dtype == np.int32 and scalar == 5
    assert empty.shape == (0, 4) and empty.dtype == np.float32


def test_integerOverflowWrapsAround(tf: Ops, run: Run) -> None:
    x = np.array([200], np.uint8)
    assert run(tf.math.addN([x, x])).tolist() == [144]


# -- gradient -------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=str)
def test_gradientMatchesFiniteDifferences(tf: Ops, shape: tuple[int, ...]) -> None:
    assertGradient(tf, lambda *xs: tf.math.addN(list(xs)), [values(shape, i) for i in range(3)])


def test_gradientWithPartiallyKnownShapes(tf: Ops) -> None:
    assertGradient(tf, lambda x, y: tf.math.addN([x, y]), [values((3, 2), 1), values((3, 2), 2)],
                   [Shape.of(U, 2), Shape.of(3, U)])


def test_gradientIsTheUpstreamGradientForEachInput(tf: Ops, run: Run) -> None:
    x, y = placeholder(tf, TFloat32, (2,)), placeholder(tf, TFloat32, (2,))
    dx, dy = tf.gradients(tf.math.addN([tf.math.square(x), y]), [x, y])
    assert dx is not None and dy is not None
    assert dx.dataType() is TFloat32 and dy.dataType() is TFloat32
    feeds = {x: np.array([1.0, -3.0], np.float32), y: np.zeros(2, np.float32)}
    gx, gy = run(dx, dy, feeds=feeds)
    np.testing.assert_array_equal(gx, [2.0, -6.0])
    np.testing.assert_array_equal(gy, [1.0, 1.0])


def test_gradientCountsAnInputListedTwice(tf: Ops, run: Run) -> None:
    x, y = placeholder(tf, TFloat64, (2,)), placeholder(tf, TFloat64, (2,))
    dx, dy = tf.gradients(tf.math.addN([x, y, x]), [x, y])
    assert dx is not None and dy is not None
    gx, gy = run(dx, dy, feeds={x: np.zeros(2), y: np.zeros(2)})
    np.testing.assert_array_equal(gx, [2.0, 2.0])
    np.testing.assert_array_equal(gy, [1.0, 1.0])


def test_secondOrderGradientThroughAddN(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, ())
    dx = tf.gradients(tf.math.addN([tf.math.square(x), tf.math.exp(x), x]), [x]).dy(0)
    assert dx is not None
    d2x = tf.gradients(dx, [x]).dy(0)
    assert d2x is not None
    assert run(dx, d2x, feeds={x: 0.0}) == [2.0, 3.0]


# -- bad inputs -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("first", "second"), [((2, 3), (3,)), ((2, 3), (3, 2)), ((), (1,)), ((U, 3), (2, 4))], ids=str
)
def test_rejectsInputsOfDifferentShapes(
    tf: Ops, graph: Graph, first: tuple[int, ...], second: tuple[int, ...]
) -> None:
    x, y = placeholder(tf, TFloat32, first), placeholder(tf, TFloat32, second)
    assertRejected(graph, lambda: tf.math.addN([x, y]), ValueError, "AddN 'AddN'",
                   f"created at {__file__}:")


def test_rejectsAnEmptyList(tf: Ops, graph: Graph) -> None:
    assertRejected(graph, lambda: tf.math.addN([]), ValueError, "AddN")


def test_rejectsASingleOperandInsteadOfAList(tf: Ops, graph: Graph) -> None:
    x = tf.constant([1.0, 2.0])
    assertRejected(graph, lambda: tf.math.addN(x), TypeError, "AddN")  # type: ignore[arg-type]


def test_rejectsBool(tf: Ops, graph: Graph) -> None:
    x = tf.placeholder(TBool)
    assertRejected(graph, lambda: tf.math.addN([x, x]), TypeError, "AddN 'AddN'")


@pytest.mark.parametrize(
    ("xType", "yType"), [(TFloat32, TFloat64), (TInt32, TInt64), (TInt32, TFloat32)], ids=str
)
def test_rejectsMixedDataTypes(
    tf: Ops, graph: Graph, xType: type[TType], yType: type[TType]
) -> None:
    x, y = tf.placeholder(xType), tf.placeholder(yType)
    assertRejected(graph, lambda: tf.math.addN([x, x, y]), TypeError, "AddN 'AddN'",
                   xType.NAME, yType.NAME)


def test_rejectsAPythonIntAndAPythonFloatInOneList(tf: Ops, graph: Graph) -> None:
    assertRejected(graph, lambda: tf.math.addN([1, 2.5]), TypeError, "AddN")


@pytest.mark.parametrize(
    "second",
    [np.ones(3, np.float32), np.ones((), np.float32), np.ones((1, 3), np.float32)],
    ids=["vector", "scalar", "row"],
)
def test_inputsOfDifferentShapesAtRunTimeRaiseInvalidArgument(
    tf: Ops, run: Run, second: np.ndarray[Any, Any]
) -> None:
    x, y = placeholder(tf, TFloat32, (U, 3)), tf.placeholder(TFloat32)
    s = tf.math.addN([x, y])
    with pytest.raises(InvalidArgumentError) as info:
        run(s, feeds={x: np.ones((2, 3), np.float32), y: second})
    assert info.value.op == s.op()
    assert "'AddN'" in str(info.value)
