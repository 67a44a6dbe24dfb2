"""Specification of the ``Select`` op class (op type ``SelectV2``): ``t`` where ``condition``
is true, ``e`` elsewhere, all three broadcast against each other as numpy's ``where``; the
gradient flows to the branch each element was taken from."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import ALL, assertGradient, assertGradientsClose, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.core import Gradients
from tfops.types import TBool, TFloat32, TFloat64, TType

Run = Callable[..., Any]
SITE = f"created at {__file__}:"
NAME = f"SelectV2 'Select' ({SITE}"  # as TensorFlow Java, the class name names the op
Dims = tuple[int, ...]


def sample(dtype: type[TType], shape: Dims, seed: int) -> np.ndarray[Any, Any]:
    values = np.random.default_rng(seed).integers(0, 100, size=shape)
    return (values % 2 == 0 if dtype is TBool else values).astype(dtype.DTYPE)


def mask(shape: Dims) -> np.ndarray[Any, Any]:
    return np.random.default_rng(11).integers(0, 2, size=shape).astype(np.bool_)


def point(shape: Dims, offset: float) -> np.ndarray[Any, Any]:
    return (np.arange(int(np.prod(shape))) * 0.5 + offset).reshape(shape)


# -- construction --------------------------------------------------------------------------
def test_pythonValueTakesTheDataTypeOfTheOtherBranch(tf: Ops) -> None:
    s = tf.select(tf.constant([True]), tf.constant(np.array([1.0])), 0.0)
    assert s.op().input(2).dataType() is TFloat64


@pytest.mark.parametrize(
    ("condition", "t", "e", "expected"),
    [
        (Shape.of(2, 3), Shape.of(2, 3), Shape.of(2, 3), Shape.of(2, 3)),
        (Shape.scalar(), Shape.of(2, 3), Shape.of(2, 3), Shape.of(2, 3)),
        (Shape.of(2, 1), Shape.of(3), Shape.scalar(), Shape.of(2, 3)),
        (Shape.of(4, 1, 1), Shape.of(1, 2), Shape.of(3, 1), Shape.of(4, 3, 2)),
        (Shape.of(0, 1), Shape.of(2), Shape.of(2), Shape.of(0, 2)),
        (Shape.of(-1, 3), Shape.of(2, 1), Shape.of(3), Shape.of(2, 3)),
        (Shape.of(-1, 1), Shape.of(3), Shape.scalar(), Shape.of(-1, 3)),
        (Shape.unknown(), Shape.of(3), Shape.of(3), Shape.unknown()),
    ],
    ids=str,
)
def test_staticShapeIsTheBroadcastShape(
    tf: Ops, condition: Shape, t: Shape, e: Shape, expected: Shape
) -> None:
    s = tf.select(placeholder(tf, TBool, condition), placeholder(tf, TFloat32, t),
                  placeholder(tf, TFloat32, e))
    assert s.asOutput().shape() == expected


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("condition", "t", "e"),
    [
        ((5,), (5,), (5,)),
        ((2, 3), (2, 3), (2, 3)),
        ((), (2, 3), (2, 3)),
        ((2, 1), (3,), ()),
        ((3,), (2, 1), (1, 3)),
        ((4, 1, 1), (1, 2), (3, 1)),
        ((0, 2), (2,), (0, 1)),
        ((), (), ()),
    ],
    ids=str,
)
def test_runMatchesNumpyWhere(
    tf: Ops, run: Run, dtype: type[TType], condition: Dims, t: Dims, e: Dims
) -> None:
    c, tv, ev = mask(condition), sample(dtype, t, 1), sample(dtype, e, 2)
    s = tf.select(tf.constant(c), tf.constant(tv), tf.constant(ev))
    assert s.asOutput().dataType() is s.op().attr("T") is dtype
    result, expected = run(s), np.where(c, tv, ev)
    assert (result.dtype, result.shape) == (dtype.DTYPE, expected.shape)
    np.testing.assert_array_equal(result, expected)


def test_runKeepsNonFiniteValues(tf: Ops, run: Run) -> None:
    s = tf.select(tf.constant([True, False, True]), [np.nan, 1.0, -np.inf], [0.0, np.inf, 2.0])
    np.testing.assert_array_equal(run(s), [np.nan, np.inf, -np.inf])


def test_runOfAPartiallyKnownCondition(tf: Ops, run: Run) -> None:
    c = placeholder(tf, TBool, (-1, 1))
    s = tf.select(c, tf.constant([1, 2]), tf.constant(0))
    result = run(s, feeds={c: np.array([[True], [False], [True]])})
    assert result.tolist() == [[1, 2], [0, 0], [1, 2]]


# -- gradient ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("condition", "t", "e"),
    [
        ((5,), (5,), (5,)),
        ((2, 3), (2, 3), (2, 3)),
        ((), (2, 3), (2, 3)),
        ((2, 1), (3,), ()),
        ((3,), (2, 1), (1, 3)),
        ((2, 2, 1), (1, 3), (2, 1, 3)),
    ],
    ids=str,
)
def test_gradientMatchesFiniteDifferences(tf: Ops, condition: Dims, t: Dims, e: Dims) -> None:
    c = tf.constant(mask(condition))
    assertGradient(tf, lambda tp, ep: tf.math.square(tf.select(c, tp, ep)),
                   [point(t, -1.25), point(e, 0.5)])


@pytest.mark.parametrize(
    "shape", [Shape.of(-1, 3), Shape.unknown()], ids=["partial", "unknown"]
)
def test_gradientMatchesFiniteDifferencesWithoutAStaticShape(tf: Ops, shape: Shape) -> None:
    c, tp = placeholder(tf, TBool, shape), placeholder(tf, TFloat64, shape)
    ep = placeholder(tf, TFloat64, (3,))
    y = tf.math.mul(tf.select(c, tp, ep), tf.constant(np.array([1.0, -2.0, 3.0])))
    assertGradientsClose(
        y, [tp, ep], {tp: point((2, 3), 1.0), ep: point((3,), -1.0)},
        feeds={c: np.array([[True, False, False], [True, True, False]])},
    )


def test_gradientFlowsWhereTheConditionChoosesEachBranch(tf: Ops, run: Run) -> None:
    t, e = tf.constant(np.zeros((2, 2))), tf.constant(np.zeros((2, 2)))
    seed = tf.constant(np.array([[1.0, 2.0], [3.0, 4.0]]))
    s = tf.select(tf.constant([[True, False], [False, True]]), t, e)
    dt, de = tf.gradients(s, [t, e], Gradients.dx([seed])).dy()
    assert dt is not None and de is not None
    assert run(dt).tolist() == [[1.0, 0.0], [0.0, 4.0]]
    assert run(de).tolist() == [[0.0, 2.0], [3.0, 0.0]]


def test_gradientOfABroadcastBranchIsSummedBackToItsShape(tf: Ops, run: Run) -> None:
    t, e = tf.constant(np.float64(0.0)), tf.constant(np.zeros(3))
    s = tf.select(tf.constant([[True, False, True], [True, True, False]]), t, e)
    dt, de = tf.gradients(s, [t, e]).dy()
    assert dt is not None and de is not None
    assert dt.shape() == Shape.scalar() and de.shape() == Shape.of(3)
    assert run(dt).tolist() == 4.0
    assert run(de).tolist() == [0.0, 1.0, 1.0]


def test_conditionGetsNoGradient(tf: Ops) -> None:
    c = placeholder(tf, TBool, (2,))
    s = tf.select(c, tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]))
    assert tf.gradients(s, [c]).dy() == [None]


def test_gradientKeepsTheBranchDataType(tf: Ops, run: Run) -> None:
    t = tf.constant(np.array([1.0, 2.0], np.float32))
    d = tf.gradients(tf.select(tf.constant([False, True]), t, 5.0), [t]).dy(0)
    assert d is not None
    assert d.dataType() is TFloat32
    result = run(d)
    assert result.dtype == np.float32
    assert result.tolist() == [0.0, 1.0]


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("condition", "t", "e", "fragment"),
    [([1.0], [1.0], [2.0], "bool"), ([True], [1.0], [1], "")],
    ids=["floatCondition", "branchesOfTwoTypes"],
)
def test_inputOfAnotherDataTypeRaisesTypeError(
    tf: Ops, graph: Graph, condition: Any, t: Any, e: Any, fragment: str
) -> None:
    operands = [tf.constant(v) for v in (condition, t, e)]
    assertRejected(graph, lambda: tf.select(*operands), TypeError, NAME, fragment)


@pytest.mark.parametrize(
    ("condition", "t", "e"),
    [((2,), (3,), (3,)), ((3,), (2, 3), (4, 1)), ((2, 3), (3, 2), ())],
    ids=str,
)
def test_incompatibleShapesRaiseValueError(
    tf: Ops, graph: Graph, condition: Dims, t: Dims, e: Dims
) -> None:
    c, tp, ep = (placeholder(tf, d, s) for d, s in ((TBool, condition), (TFloat32, t),
                                                    (TFloat32, e)))
    assertRejected(graph, lambda: tf.select(c, tp, ep), ValueError, NAME, "incompat")


def test_incompatibleFedShapesRaiseInvalidArgumentErrorAtRunTime(tf: Ops, run: Run) -> None:
    c = tf.placeholder(TBool)
    s = tf.withName("pick").select(c, tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]))
    with pytest.raises(InvalidArgumentError, match=f"'pick'.*{SITE}") as info:
        run(s, feeds={c: np.array([True, False, True])})
    assert info.value.op == s.op()
