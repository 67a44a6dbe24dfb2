"""Specification of the ``OneHot`` op class."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import OneHot, Placeholder
from tfops.types import (
    TBool,
    TFloat16,
    TFloat32,
    TFloat64,
    TInt32,
    TInt64,
    TType,
    TUint8,
)

Run = Callable[..., Any]
ALL_TYPES: list[type[TType]] = [TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8, TBool]
INDEX_TYPES: list[type[TType]] = [TUint8, TInt32, TInt64]
HERE = re.escape(__file__)


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
def test_opNameIsOneHot() -> None:
    assert OneHot.OP_NAME == "OneHot"


def test_defaultNamesAreOneHotThenOneHot_1(tf: Ops) -> None:
    assert tf.oneHot([0, 1], 2, 1.0, 0.0).op().name() == "OneHot"
    assert tf.oneHot([0, 1], 2, 1.0, 0.0).op().name() == "OneHot_1"


def test_opTypeIsOneHot(tf: Ops) -> None:
    assert tf.oneHot([0], 2, 1.0, 0.0).op().type() == "OneHot"


def test_withNameNamesTheOp(tf: Ops) -> None:
    assert tf.withName("labels").oneHot([0], 2, 1.0, 0.0).op().name() == "labels"


def test_subScopePrefixesTheName(tf: Ops) -> None:
    assert tf.withSubScope("loss").oneHot([0], 2, 1.0, 0.0).op().name() == "loss/OneHot"


def test_createWithAxisOption(tf: Ops) -> None:
    indices, depth = tf.constant([0, 1]), tf.constant(3)
    on, off = tf.constant(1.0), tf.constant(0.0)
    h = OneHot.create(tf.scope(), indices, depth, on, off, OneHot.axis(0))
    assert isinstance(h, OneHot)
    assert h.op().attr("axis") == 0
    assert [h.op().input(i) for i in range(4)] == [
        indices.asOutput(), depth.asOutput(), on.asOutput(), off.asOutput()]
    assert h.output() == h.asOutput() == h.op().output(0)


def test_axisIsMinusOneByDefault(tf: Ops) -> None:
    assert tf.oneHot([0], 2, 1.0, 0.0).op().attr("axis") == -1


def test_pythonIndicesBecomeInt64AsTheDefaultIndexType(tf: Ops) -> None:
    h = tf.oneHot([0, 1], 2, 1.0, 0.0)
    assert h.op().input(0).dataType() is TInt64
    assert h.op().attr("TI") is TInt64


@pytest.mark.parametrize("indexType", INDEX_TYPES, ids=lambda t: t.NAME)
def test_indicesOfEachIndexTypeAreAccepted(tf: Ops, indexType: type[TType]) -> None:
    h = tf.oneHot(np.array([0, 1], indexType.DTYPE), 2, 1.0, 0.0)
    assert h.op().attr("TI") is indexType


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
def test_outputHasTheDataTypeOfOnAndOffValues(tf: Ops, dtype: type[TType]) -> None:
    on, off = onOff(dtype)
    h = tf.oneHot([0, 1], 2, on, off)
    assert h.op().attr("T") is dtype
    assert h.asOutput().dataType() is dtype


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
    x = tf.placeholder(TInt32, Placeholder.shape(indices))
    assert tf.oneHot(x, 3, 1.0, 0.0, OneHot.axis(axis)).asOutput().shape() == expected


def test_nonConstantDepthGivesAnUnknownDimension(tf: Ops) -> None:
    x = tf.placeholder(TInt32, Placeholder.shape(Shape.of(2, 4)))
    depth = tf.placeholder(TInt32, Placeholder.shape(Shape.scalar()))
    assert tf.oneHot(x, depth, 1.0, 0.0, OneHot.axis(1)).asOutput().shape() == Shape.of(2, -1, 4)


# -- kernel --------------------------------------------------------------------------------
def test_runOfAVectorOfIndices(tf: Ops, run: Run) -> None:
    h = tf.oneHot([0, 2, -1, 1], 3, 5.0, 0.0)
    assert run(h).tolist() == [[5.0, 0, 0], [0, 0, 5.0], [0, 0, 0], [0, 5.0, 0]]


def test_runAlongTheFirstAxis(tf: Ops, run: Run) -> None:
    h = tf.oneHot([0, 2, 3], 3, 1, 0, OneHot.axis(0))
    assert run(h).tolist() == [[1, 0, 0], [0, 0, 0], [0, 1, 0]]


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
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
    result = run(tf.oneHot(tf.constant(indices), depth, on, off, OneHot.axis(axis)))
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
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("OneHot") == (True, None)


def test_onAndOffValuesGetNoGradient(tf: Ops) -> None:
    on = tf.placeholder(TFloat64, Placeholder.shape(Shape.scalar()))
    off = tf.placeholder(TFloat64, Placeholder.shape(Shape.scalar()))
    y = tf.oneHot([0, 1], 2, on, off)
    assert tf.gradients(y, [on, off]).dy() == [None, None]


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize("indices", [np.array([0.0]), np.array([True])], ids=str)
def test_indicesOfANonIndexTypeRaiseTypeError(tf: Ops, indices: np.ndarray[Any, Any]) -> None:
    with pytest.raises(TypeError, match=rf"OneHot 'OneHot' \(created at {HERE}:\d+\)"):
        tf.oneHot(indices, 2, 1.0, 0.0)


def test_depthOtherThanInt32RaisesTypeError(tf: Ops) -> None:
    with pytest.raises(TypeError, match=rf"OneHot 'OneHot' \(created at {HERE}:\d+\).*int32"):
        tf.oneHot([0], tf.constant(np.int64(2)), 1.0, 0.0)


def test_onAndOffValuesOfDifferentTypesRaiseTypeError(tf: Ops) -> None:
    with pytest.raises(TypeError, match=rf"OneHot 'OneHot' \(created at {HERE}:\d+\)"):
        tf.oneHot([0], 2, tf.constant(1.0), tf.constant(0))


@pytest.mark.parametrize(
    ("depth", "on", "off", "name"),
    [([2], 1.0, 0.0, "depth"), (2, [1.0], 0.0, "on_value"), (2, 1.0, [[0.0]], "off_value")],
    ids=lambda v: str(v),
)
def test_nonScalarDepthOrValueRaisesValueError(
    tf: Ops, depth: Any, on: Any, off: Any, name: str
) -> None:
    with pytest.raises(ValueError, match=rf"OneHot 'OneHot' \(created at {HERE}:\d+\): {name} "
                                         "must be a scalar"):
        tf.oneHot([0], depth, on, off)


def test_negativeConstantDepthRaisesValueError(tf: Ops) -> None:
    with pytest.raises(ValueError, match=r"OneHot 'OneHot'.*depth must be non-negative, got -1"):
        tf.oneHot([0], -1, 1.0, 0.0)


@pytest.mark.parametrize("axis", [-2, 2, 5], ids=str)
def test_axisOutOfRangeRaisesValueError(tf: Ops, axis: int) -> None:
    with pytest.raises(ValueError, match=rf"OneHot 'OneHot' \(created at {HERE}:\d+\): axis"):
        tf.oneHot([0, 1], 2, 1.0, 0.0, OneHot.axis(axis))


def test_nonIntAxisRaisesTypeError(tf: Ops) -> None:
    with pytest.raises(TypeError, match="OneHot 'OneHot'"):
        tf.oneHot([0], 2, 1.0, 0.0, OneHot.axis(0.5))  # type: ignore[arg-type]


def test_negativeDepthRaisesInvalidArgumentErrorAtRunTime(tf: Ops, run: Run) -> None:
    depth = tf.placeholder(TInt32)
    h = tf.withName("h").oneHot([0], depth, 1.0, 0.0)
    with pytest.raises(InvalidArgumentError, match=rf"non-negative.*'h'.*created at {HERE}:\d+"):
        run(h, feeds={depth: np.array(-3, np.int32)})


def test_axisOutOfRangeForTheFedIndicesRaisesInvalidArgumentErrorAtRunTime(
    tf: Ops, run: Run
) -> None:
    indices = tf.placeholder(TInt32)
    h = tf.oneHot(indices, 2, 1.0, 0.0, OneHot.axis(2))
    with pytest.raises(InvalidArgumentError, match="axis 2 is out of range.*'OneHot'") as info:
        run(h, feeds={indices: np.array([0, 1], np.int32)})
    assert info.value.op == h.op()


def test_failedCreateLeavesTheGraphUnchanged(graph: Graph, tf: Ops) -> None:
    indices, depth = tf.constant([0, 1]), tf.constant(2)
    on, off, offInt = tf.constant(1.0), tf.constant(0.0), tf.constant(0)
    before = list(graph.operations())
    with pytest.raises(ValueError):
        tf.oneHot(indices, depth, on, off, OneHot.axis(3))
    with pytest.raises(TypeError):
        tf.oneHot(indices, depth, on, offInt)
    assert list(graph.operations()) == before
    assert tf.oneHot(indices, depth, on, off).op().name() == "OneHot"
