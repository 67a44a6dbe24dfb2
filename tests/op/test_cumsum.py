"""Specification of ``tfops.op.math.Cumsum``: the cumulative sum along an axis, optionally
exclusive and/or reversed. (Names, ``OP_NAME``, foreign operands and docstrings: see
``tests/test_every_op.py``.)"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import (
    NUMBERS,
    assertGradient,
    assertGradientsClose,
    assertMatches,
    assertRejected,
    placeholder,
)

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.core import Gradients
from tfops.op.math import Cumsum
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]
Array = np.ndarray[Any, Any]
OPTIONS = [(False, False), (True, False), (False, True), (True, True)]
OPTION_IDS = ["inclusive", "exclusive", "reverse", "exclusiveReverse"]
CREATED = f"created at {__file__}:"


def cumsum(tf: Ops, x: Any, axis: Any, exclusive: bool = False, reverse: bool = False) -> Any:
    return tf.math.cumsum(x, axis, Cumsum.exclusive(exclusive), Cumsum.reverse(reverse))


def reference(x: Array, axis: int, exclusive: bool, reverse: bool) -> Array:
    """The cumulative sum by explicit loops over the axis, in float64."""
    moved = np.moveaxis(x.astype(np.float64), axis, 0)
    out = np.zeros_like(moved)
    n = moved.shape[0]
    for i in range(n):
        for j in range(i, n) if reverse else range(i + 1):
            if not (exclusive and j == i):
                out[i] += moved[j]
    return np.moveaxis(out, 0, axis)


# -- construction ---------------------------------------------------------------------------
def test_createTakesItsInputAxisAndOptions(graph: Graph, tf: Ops) -> None:
    x = tf.constant([[1.0, 2.0]])
    c = Cumsum.create(tf.scope(), x, 1)
    assert isinstance(c, Cumsum)
    assert [op.name() for op in graph.operations()] == ["Const", "Const_1", "Cumsum"]
    assert c.op().input(0) == x.asOutput()
    assert c.op().input(1).dataType() is TInt32
    assert c.op().attr("Tidx") is TInt32
    assert c.op().numOutputs() == 1
    assert c.out() == c.asOutput() == c.op().output(0)
    assert (c.op().attr("exclusive"), c.op().attr("reverse")) == (False, False)
    both = tf.math.cumsum(x, np.int64(1), Cumsum.exclusive(True), Cumsum.reverse(True))
    assert (both.op().attr("exclusive"), both.op().attr("reverse")) == (True, True)
    assert both.op().attr("Tidx") is TInt64
    keywords = tf.math.cumsum(x, 1, exclusive=True, reverse=False)
    assert (keywords.op().attr("exclusive"), keywords.op().attr("reverse")) == (True, False)


@pytest.mark.parametrize("dtype", NUMBERS, ids=lambda t: t.NAME)
def test_outputHasTheInputDataType(tf: Ops, dtype: type[TType]) -> None:
    c = tf.math.cumsum(placeholder(tf, dtype, (2,)), 0)
    assert c.asOutput().dataType() is dtype
    assert c.op().attr("T") is dtype


@pytest.mark.parametrize(
    ("shape", "axis"),
    [(Shape.of(5), 0), (Shape.of(2, 3), -1), (Shape.of(0, 3), 0), (Shape.of(-1, 3), 0),
     (Shape.of(2, -1, 4), 2), (Shape.unknown(), 3), (Shape.of(-1, 3), "fed")],
    ids=str,
)
def test_outputShapeIsTheInputShape(tf: Ops, shape: Shape, axis: Any) -> None:
    a = tf.placeholder(TInt32) if axis == "fed" else axis
    assert tf.math.cumsum(placeholder(tf, TFloat32, shape), a).asOutput().shape() == shape


# -- kernel ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", NUMBERS, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("exclusive", "reverse", "expected"),
    [
        (False, False, [[1, 3, 6], [4, 9, 15]]),
        (True, False, [[0, 1, 3], [0, 4, 9]]),
        (False, True, [[6, 5, 3], [15, 11, 6]]),
        (True, True, [[5, 3, 0], [11, 6, 0]]),
    ],
    ids=OPTION_IDS,
)
def test_kernelAlongTheLastAxis(
    tf: Ops, run: Run, dtype: type[TType], exclusive: bool, reverse: bool, expected: Any
) -> None:
    x = np.array([[1, 2, 3], [4, 5, 6]], dtype.DTYPE)
    assertMatches(run(cumsum(tf, x, 1, exclusive, reverse)), np.array(expected), dtype)


@pytest.mark.parametrize(("exclusive", "reverse"), OPTIONS, ids=OPTION_IDS)
@pytest.mark.parametrize(
    ("shape", "axis"), [((6,), 0), ((3, 4), 0), ((3, 4), -2), ((2, 3, 4), 1), ((2, 3, 4), -1)],
    ids=str,
)
def test_kernelMatchesAnExplicitSum(
    tf: Ops, run: Run, shape: tuple[int, ...], axis: int, exclusive: bool, reverse: bool
) -> None:
    x = (np.random.default_rng(11).permutation(int(np.prod(shape))) - 5).reshape(shape)
    result = run(cumsum(tf, x.astype(np.int64), axis, exclusive, reverse))
    assertMatches(result, reference(x, axis, exclusive, reverse), TInt64)
    floats = np.array([[0.1, 0.2, 0.3, 0.4], [1e10, 1.0, -1e10, 0.5]])
    result = run(cumsum(tf, floats, 1, exclusive, reverse))
    np.testing.assert_allclose(result, reference(floats, 1, exclusive, reverse), rtol=1e-15)
    empty = run(cumsum(tf, np.zeros((2, 0), np.float32), 1, exclusive, reverse))
    assertMatches(empty, np.zeros((2, 0)), TFloat32)


@pytest.mark.parametrize(
    ("value", "exclusive", "expected"),
    [
        (np.array([2**31 - 1, 1, 1], np.int32), False, [2**31 - 1, -(2**31), -(2**31) + 1]),
        (np.array([200, 100, 10], np.uint8), False, [200, 44, 54]),
        (np.array([1.0, np.inf, 2.0, np.nan, 3.0]), False, [1.0, np.inf, np.inf, np.nan, np.nan]),
        (np.array([[7], [9]], np.int32), True, [[0], [0]]),
    ],
    ids=["int32 wraps", "uint8 wraps", "nan and inf", "exclusive of one element"],
)
def test_specialValues(
    tf: Ops, run: Run, value: Array, exclusive: bool, expected: Any
) -> None:
    result = run(cumsum(tf, value, -1, exclusive))
    assert result.dtype == value.dtype
    np.testing.assert_array_equal(result, np.array(expected, value.dtype))


def test_kernelWithAxisAndShapeKnownAtRunTime(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, (-1, 2))
    axis = tf.placeholder(TInt32)
    c = tf.math.cumsum(x, axis)
    value = np.array([[1.0, -1.0], [-3.0, -2.0], [0.5, 0.25]])
    for fed, expected in [(0, [[1.0, -1.0], [-2.0, -3.0], [-1.5, -2.75]]),
                          (-1, [[1.0, 0.0], [-3.0, -5.0], [0.5, 0.75]])]:
        assert run(c, feeds={x: value, axis: np.array(fed, np.int32)}).tolist() == expected


# -- gradient -------------------------------------------------------------------------------
@pytest.mark.parametrize(("exclusive", "reverse"), OPTIONS, ids=OPTION_IDS)
@pytest.mark.parametrize(
    ("shape", "axis"), [((5,), 0), ((2, 3), 0), ((2, 3), -1), ((2, 3, 4), 1)], ids=str
)
def test_gradientMatchesFiniteDifferences(
    tf: Ops, shape: tuple[int, ...], axis: int, exclusive: bool, reverse: bool
) -> None:
    value = np.linspace(-1.0, 2.0, num=int(np.prod(shape))).reshape(shape)
    assertGradient(tf, lambda x: cumsum(tf, x, axis, exclusive, reverse), [value])


@pytest.mark.parametrize(
    ("exclusive", "reverse", "expected"),
    [
        (False, False, [3.0, 2.0, 1.0]),
        (True, False, [2.0, 1.0, 0.0]),
        (False, True, [1.0, 2.0, 3.0]),
        (True, True, [0.0, 1.0, 2.0]),
    ],
    ids=OPTION_IDS,
)
def test_gradientIsTheCumulativeSumTheOtherWay(
    tf: Ops, run: Run, exclusive: bool, reverse: bool, expected: list[float]
) -> None:
    x = tf.constant(np.array([5.0, -1.0, 2.0]))
    dx = tf.gradients(cumsum(tf, x, 0, exclusive, reverse), [x]).dy(0)
    assert dx is not None
    assert dx.op().type() == "Cumsum"
    assert dx.op().attr("exclusive") is exclusive
    assert dx.op().attr("reverse") is not reverse
    assert run(dx).tolist() == expected


def test_gradientScalesTheIncomingGradientInTheInputDataType(tf: Ops, run: Run) -> None:
    x = tf.constant(np.array([[1.0, 2.0, 3.0]], np.float32))
    upstream = tf.constant(np.array([[1.0, 10.0, 100.0]], np.float32))
    dx = tf.gradients(tf.math.cumsum(x, 1), [x], Gradients.dx([upstream])).dy(0)
    assert dx is not None
    assert dx.dataType() is TFloat32
    assertMatches(run(dx), np.array([[111.0, 110.0, 100.0]]), TFloat32)


@pytest.mark.parametrize("shape", [Shape.of(-1, 3), Shape.unknown()], ids=str)
def test_gradientWithoutAStaticShape(tf: Ops, shape: Shape) -> None:
    value = np.array([[0.1, -0.2, 0.3], [1.0, 2.0, -3.0]])
    assertGradient(tf, lambda x: tf.math.cumsum(x, 1, Cumsum.reverse(True)), [value], [shape])


def test_gradientWithAnAxisFedAtRunTimeFlowsNotToTheAxis(tf: Ops) -> None:
    x = placeholder(tf, TFloat64, (3, 4))
    axis = tf.placeholder(TInt32)
    y = tf.math.cumsum(x, axis, Cumsum.exclusive(True))
    assertGradientsClose(y, [x], {x: np.arange(12.0).reshape(3, 4)},
                         feeds={axis: np.array(0, np.int32)})
    assert tf.gradients(y, [axis]).dy(0) is None


def test_gradientThroughABroadcastAndOfSecondOrder(tf: Ops) -> None:
    row = tf.constant(np.array([[0.5, -1.0, 2.0, 3.0]]))
    assertGradient(tf, lambda x: tf.math.cumsum(tf.math.mul(x, row), 1),
                   [np.array([[0.3], [-1.0], [0.8]])])

    def gradient(x: Any) -> Any:
        return tf.gradients(tf.math.square(tf.math.cumsum(x, 0, exclusive=True)), [x]).dy(0)

    assertGradient(tf, gradient, [np.array([0.5, -1.0, 2.0, 1.5])])


# -- bad arguments --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("dtype", "shape", "args", "error", "fragment"),
    [
        pytest.param(TBool, (2,), (0,), TypeError, "data type bool is not allowed for 'T'",
                     id="bool input"),
        pytest.param(TFloat32, (1,), (np.float32(0.0),), TypeError,
                     "float32 is not allowed for 'Tidx'", id="float32 axis"),
        pytest.param(TFloat32, (-1, 3), (2,), ValueError,
                     "axis 2 is out of range for a tensor of rank 2", id="2 out of range"),
        pytest.param(TFloat32, (-1, 3), (-3,), ValueError, "axis -3 is out of range",
                     id="-3 out of range"),
        pytest.param(TFloat32, (), (0,), ValueError, "out of range for a tensor of rank 0",
                     id="scalar input"),
        pytest.param(TFloat32, (1, 2), ([1],), ValueError, "axis must be a scalar",
                     id="vector axis"),
        pytest.param(TUint8, (2,), (0, Cumsum.exclusive(1)),  # type: ignore[arg-type]
                     TypeError, "attribute 'exclusive' must be a bool, got 1",
                     id="non-bool exclusive"),
    ],
)
def test_rejectsBadArguments(
    graph: Graph, tf: Ops, dtype: type[TType], shape: tuple[int, ...], args: tuple[Any, ...],
    error: type[Exception], fragment: str,
) -> None:
    x = placeholder(tf, dtype, shape)
    assertRejected(graph, lambda: tf.math.cumsum(x, *args), error, "Cumsum 'Cumsum'", CREATED,
                   fragment)


@pytest.mark.parametrize(
    ("value", "axis", "fragment"),
    [
        pytest.param(np.ones((1, 2)), -3, "axis -3 is out of range for a tensor of rank 2",
                     id="-3 out of range"),
        pytest.param(np.ones((1, 2)), [0], "axis must be a scalar, got shape [1]",
                     id="vector axis"),
        pytest.param(np.float64(1.0), 0, "axis 0 is out of range for a tensor of rank 0",
                     id="scalar input"),
    ],
)
def test_rejectsBadArgumentsAtRunTime(tf: Ops, run: Run, value: Array, axis: Any,
                                      fragment: str) -> None:
    x, a = tf.placeholder(TFloat64), tf.placeholder(TInt32)
    c = tf.withName("c").math.cumsum(x, a)
    with pytest.raises(InvalidArgumentError) as info:
        run(c, feeds={x: value, a: np.array(axis, np.int32)})
    assert info.value.op == c.op()
    assert fragment in str(info.value) and "'c'" in str(info.value) and CREATED in str(info.value)
