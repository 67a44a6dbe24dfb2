"""Specification of the ``OneHot`` op class: for each index, a vector of ``depth`` values that is
``on_value`` at the index and ``off_value`` elsewhere (everywhere for an index outside
[0, depth)), inserted at ``axis`` (last by default)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import ALL, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import OneHot
from tfops.types import TBool, TFloat64, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]
INDEX_TYPES: list[type[TType]] = [TUint8, TInt32, TInt64]
SITE = f"created at {__file__}:"
NAME = f"OneHot 'OneHot' ({SITE}"


def reference(indices: np.ndarray[Any, Any], depth: int, on: Any, off: Any, axis: int) -> Any:
    """Rows of an identity matrix, with an all-zero row for indices outside [0, depth)."""
    inRange = (indices >= 0) & (indices < depth)
    rows = np.eye(depth + 1, dtype=np.bool_)[np.where(inRange, indices, depth)][..., :depth]
    values = np.where(rows, on, off)
    return np.moveaxis(values, -1, indices.ndim if axis == -1 else axis)


def onOff(dtype: type[TType]) -> tuple[Any, Any]:
    if dtype is TBool:
        return np.bool_(True), np.bool_(False)
    return np.array(5, dtype.DTYPE)[()], np.array(2, dtype.DTYPE)[()]


# -- construction --------------------------------------------------------------------------
def test_axisIsMinusOneByDefaultAndPythonIndicesAreInt64(tf: Ops) -> None:
    h = tf.oneHot([0, 1], 2, 1.0, 0.0)
    assert h.op().attr("axis") == -1
    assert h.op().input(0).dataType() is h.op().attr("TI") is TInt64
    assert OneHot.create(tf.scope(), [0], 2, 1.0, 0.0, OneHot.axis(0)).op().attr("axis") == 0


@pytest.mark.parametrize(
    ("indices", "axis", "expected"),
    [
        (Shape.of(4), -1, Shape.of(4, 3)),
        (Shape.of(4), 0, Shape.of(3, 4)),
        (Shape.of(4), 1, Shape.of(4, 3)),
        (Shape.scalar(), -1, Shape.of(3)),
        (Shape.scalar(), 0, Shape.of(3)),
        (Shape.of(2, 5), 1, Shape.of(2, 3, 5)),
        (Shape.of(0, 5), -1, Shape.of(0, 5, 3)),
        (Shape.of(-1, 5), 0, Shape.of(3, -1, 5)),
        (Shape.unknown(), -1, Shape.unknown()),
        (Shape.unknown(), 4, Shape.unknown()),
    ],
    ids=str,
)
def test_staticShapeInsertsTheDepthAtTheAxis(
    tf: Ops, indices: Shape, axis: int, expected: Shape
) -> None:
    x = placeholder(tf, TInt32, indices)
    assert tf.oneHot(x, 3, 1.0, 0.0, OneHot.axis(axis)).asOutput().shape() == expected


def test_nonConstantDepthGivesAnUnknownDimension(tf: Ops) -> None:
    x, depth = placeholder(tf, TInt32, (2, 4)), placeholder(tf, TInt32, ())
    assert tf.oneHot(x, depth, 1.0, 0.0, OneHot.axis(1)).asOutput().shape() == Shape.of(2, -1, 4)


# -- kernel --------------------------------------------------------------------------------
def test_runOfAVectorOfIndices(tf: Ops, run: Run) -> None:
    h = tf.oneHot([0, 2, -1, 1], 3, 5.0, 0.0)
    assert run(h).tolist() == [[5.0, 0, 0], [0, 0, 5.0], [0, 0, 0], [0, 5.0, 0]]


def test_runAlongTheFirstAxis(tf: Ops, run: Run) -> None:
    h = tf.oneHot([0, 2, 3], 3, 1, 0, OneHot.axis(0))
    assert run(h).tolist() == [[1, 0, 0], [0, 0, 0], [0, 1, 0]]


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize("indexType", INDEX_TYPES, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("shape", "depth", "axis"),
    [
        ((6,), 4, -1),
        ((6,), 4, 0),
        ((2, 3), 5, -1),
        ((2, 3), 5, 1),
        ((2, 3), 5, 0),
        ((), 3, -1),
        ((0, 2), 3, 1),
        ((4,), 0, -1),
    ],
    ids=str,
)
def test_runMatchesTheReference(
    tf: Ops, run: Run, dtype: type[TType], indexType: type[TType], shape: tuple[int, ...],
    depth: int, axis: int,
) -> None:
    low = 0 if indexType is TUint8 else -2
    indices = np.random.default_rng(2).integers(low, depth + 2, size=shape).astype(
        indexType.DTYPE)
    on, off = onOff(dtype)
    h = tf.oneHot(tf.constant(indices), depth, on, off, OneHot.axis(axis))
    assert (h.op().attr("TI"), h.op().attr("T"), h.asOutput().dataType()) == (
        indexType, dtype, dtype)
    result = run(h)
    expected = reference(indices, depth, on, off, axis)
    assert result.dtype == dtype.DTYPE
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result, expected)


def test_runWithEverythingKnownOnlyAtRunTime(tf: Ops, run: Run) -> None:
    indices, depth = tf.placeholder(TInt32), tf.placeholder(TInt32)
    on, off = tf.placeholder(TFloat64), tf.placeholder(TFloat64)
    h = tf.oneHot(indices, depth, on, off, OneHot.axis(1))
    result = run(h, feeds={indices: np.array([[1, 0]], np.int32), depth: np.array(2, np.int32),
                           on: np.array(-1.0), off: np.array(np.nan)})
    np.testing.assert_array_equal(result, [[[np.nan, -1.0], [-1.0, np.nan]]])


# -- gradient ------------------------------------------------------------------------------
def test_isNotDifferentiableAndOnAndOffValuesGetNoGradient(tf: Ops) -> None:
    assert lookupGradient("OneHot") == (True, None)
    on, off = placeholder(tf, TFloat64, ()), placeholder(tf, TFloat64, ())
    y = tf.oneHot([0, 1], 2, on, off)
    assert tf.gradients(y, [on, off]).dy() == [None, None]


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("indices", "depth", "on", "off", "fragment"),
    [
        (np.array([0.0]), 2, 1.0, 0.0, ""),
        (np.array([True]), 2, 1.0, 0.0, ""),
        ([0], np.int64(2), 1.0, 0.0, "int32"),
        ([0], 2, 1.0, 0, ""),  # on and off values of two data types
    ],
    ids=["floatIndices", "boolIndices", "int64Depth", "mixedValues"],
)
def test_inputOfAnotherDataTypeRaisesTypeError(
    tf: Ops, graph: Graph, indices: Any, depth: Any, on: Any, off: Any, fragment: str
) -> None:
    operands = [tf.constant(v) for v in (indices, depth, on, off)]
    assertRejected(graph, lambda: tf.oneHot(*operands), TypeError, NAME, fragment)


@pytest.mark.parametrize(
    ("depth", "on", "off", "axis", "message"),
    [
        ([2], 1.0, 0.0, -1, "depth must be a scalar"),
        (2, [1.0], 0.0, -1, "on_value must be a scalar"),
        (2, 1.0, [[0.0]], -1, "off_value must be a scalar"),
        (-1, 1.0, 0.0, -1, "depth must be non-negative, got -1"),
        (2, 1.0, 0.0, -2, "axis"),
        (2, 1.0, 0.0, 2, "axis"),
        (2, 1.0, 0.0, 5, "axis"),
    ],
    ids=["depthVector", "onVector", "offMatrix", "negativeDepth", "axis-2", "axis2", "axis5"],
)
def test_badConstantInputsRaiseValueError(
    tf: Ops, graph: Graph, depth: Any, on: Any, off: Any, axis: int, message: str
) -> None:
    assertRejected(graph, lambda: tf.oneHot([0, 1], depth, on, off, OneHot.axis(axis)),
                   ValueError, NAME, f"): {message}")


def test_nonIntAxisRaisesTypeError(tf: Ops, graph: Graph) -> None:
    assertRejected(graph, lambda: tf.oneHot([0], 2, 1.0, 0.0, OneHot.axis(0.5)),  # type: ignore
                   TypeError, "OneHot 'OneHot'")


def test_badInputsRaiseInvalidArgumentErrorAtRunTime(tf: Ops, run: Run) -> None:
    depth, indices = tf.placeholder(TInt32), tf.placeholder(TInt32)
    h = tf.withName("h").oneHot([0], depth, 1.0, 0.0)
    with pytest.raises(InvalidArgumentError, match=f"non-negative.*'h'.*{SITE}"):
        run(h, feeds={depth: np.array(-3, np.int32)})
    g = tf.oneHot(indices, 2, 1.0, 0.0, OneHot.axis(2))
    with pytest.raises(InvalidArgumentError, match="axis 2 is out of range.*'OneHot'") as info:
        run(g, feeds={indices: np.array([0, 1], np.int32)})
    assert info.value.op == g.op()
