"""Specification of the ``Fill`` op class: a tensor of shape ``dims`` (an int32 or int64 vector)
whose elements are all the scalar ``value``, of any data type; the gradient of the value is the
sum of the incoming gradient."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import ALL, assertGradient, assertGradientsClose, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.core import Gradients
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType

Run = Callable[..., Any]
SITE = f"created at {__file__}:"


def edge(dtype: type[TType]) -> Any:
    """The largest value of the type (true for bools)."""
    if dtype is TBool:
        return True
    return (np.finfo if dtype.DTYPE.kind == "f" else np.iinfo)(dtype.DTYPE).max


# -- construction --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("dims", "indexType"), [([2, 3], TInt32), (np.array([2, 3], np.int64), TInt64)],
    ids=["python", "int64"],
)
def test_dimsAreInt32OrInt64(tf: Ops, dims: Any, indexType: type[TType]) -> None:
    f = tf.fill(dims, 0.0)
    assert f.op().input(0).op().type() == "Const"
    assert f.op().attr("index_type") is indexType
    assert f.asOutput().shape() == Shape.of(2, 3)


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
def test_outputHasTheValueDataType(tf: Ops, dtype: type[TType]) -> None:
    f = tf.fill([2], placeholder(tf, dtype, ()))
    assert f.asOutput().dataType() is f.op().attr("T") is dtype


@pytest.mark.parametrize(
    ("dims", "expected"),
    [([2, 3], Shape.of(2, 3)), ([], Shape.scalar()), ([0, 4], Shape.of(0, 4)), ([7], Shape.of(7)),
     ((3,), Shape.of(-1, -1, -1)), ((-1,), Shape.unknown()), ("shape of [?, 3]", Shape.of(-1, 3))],
    ids=str,
)
def test_staticShape(tf: Ops, dims: Any, expected: Shape) -> None:
    if isinstance(dims, list):
        dims = np.array(dims, np.int32)  # constant dims
    elif isinstance(dims, tuple):
        dims = placeholder(tf, TInt32, dims)  # dims known at run time, of known or unknown length
    else:
        dims = tf.shape(placeholder(tf, TFloat32, (-1, 3)))
    assert tf.fill(dims, 1.0).asOutput().shape() == expected


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize("dims", [(), (3,), (2, 3), (0, 2), (2, 1, 2)], ids=str)
def test_runFillsEveryElement(tf: Ops, run: Run, dtype: type[TType], dims: tuple[int, ...]) -> None:
    value = np.array(edge(dtype), dtype.DTYPE)
    result = run(tf.fill(np.array(dims, np.int32), value))
    assert (result.dtype, result.shape) == (dtype.DTYPE, dims)
    np.testing.assert_array_equal(result, np.full(dims, value, dtype.DTYPE))


@pytest.mark.parametrize("value", [np.nan, -np.inf], ids=str)
def test_runFillsNonFiniteValues(tf: Ops, run: Run, value: float) -> None:
    np.testing.assert_array_equal(run(tf.fill([2], np.float64(value))), [value, value])


def test_runWithDimsAndValueKnownOnlyAtRunTime(tf: Ops, run: Run) -> None:
    dims, value = tf.placeholder(TInt64), placeholder(tf, TFloat32, ())
    result = run(tf.fill(dims, 7), feeds={dims: np.array([2, 2], np.int64)})
    assert result.dtype == np.int32
    assert result.tolist() == [[7, 7], [7, 7]]
    assert run(tf.fill([3], value), feeds={value: np.float32(-0.5)}).tolist() == [-0.5] * 3


# -- gradient ------------------------------------------------------------------------------
@pytest.mark.parametrize("dims", [(), (4,), (2, 3), (2, 0), (1, 2, 2)], ids=str)
def test_gradientMatchesFiniteDifferences(tf: Ops, dims: tuple[int, ...]) -> None:
    c = tf.constant(np.ones(dims) * 1.5)
    assertGradient(tf, lambda v: tf.math.mul(tf.fill(np.array(dims, np.int32), v), c),
                   [np.array(0.75)])


def test_gradientMatchesFiniteDifferencesWithDimsKnownOnlyAtRunTime(tf: Ops) -> None:
    value = placeholder(tf, TFloat64, ())
    dims = tf.placeholder(TInt32)
    assertGradientsClose(tf.math.square(tf.fill(dims, value)), [value], {value: np.array(-2.0)},
                         feeds={dims: np.array([3, 2], np.int32)})


def test_gradientMatchesFiniteDifferencesWithBroadcasting(tf: Ops) -> None:
    assertGradient(tf, lambda x, v: tf.math.mul(x, tf.fill([3], v)),
                   [np.arange(6.0).reshape(2, 3), np.array(1.5)])


def test_gradientOfTheValueIsTheSumOfTheIncomingGradient(tf: Ops, run: Run) -> None:
    value = tf.constant(np.float64(3.0))
    seed = tf.constant(np.array([[1.0, -2.0, 0.5], [4.0, 0.25, 1.0]]))
    d = tf.gradients(tf.fill([2, 3], value), [value], Gradients.dx([seed])).dy(0)
    assert d is not None
    assert d.shape() == Shape.scalar()
    assert run(d).tolist() == 4.75


def test_gradientKeepsTheValueDataTypeAndDimsGetNone(tf: Ops, run: Run) -> None:
    value = tf.constant(np.float16(1.0))
    dims = placeholder(tf, TInt32, (1,))
    d = tf.gradients(tf.fill([2, 2], value), [value]).dy(0)
    assert d is not None
    assert d.dataType() is TFloat16
    assert run(d).tolist() == 4.0
    assert tf.gradients(tf.fill(dims, np.float64(1.0)), [dims]).dy() == [None]


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("dims", "value", "fragment"),
    [([2], [1.0, 2.0], "scalar"), ([[2, 3]], 1.0, "vector"),
     ([2, -1], 1.0, "non-negative, got [2, -1]")],
    ids=["nonScalarValue", "dimsOfRankTwo", "negativeDims"],
)
def test_badConstantInputsRaiseValueError(
    tf: Ops, graph: Graph, dims: Any, value: Any, fragment: str
) -> None:
    assertRejected(graph, lambda: tf.fill(dims, value), ValueError, f"Fill 'Fill' ({SITE}",
                   fragment)


@pytest.mark.parametrize("dims", [np.array([2.0]), np.array([True]), np.array([2], np.uint8)],
                         ids=lambda d: str(d.dtype))
def test_dimsOtherThanInt32OrInt64RaiseTypeError(
    tf: Ops, graph: Graph, dims: np.ndarray[Any, Any]
) -> None:
    assertRejected(graph, lambda: tf.fill(dims, 1.0), TypeError, f"Fill 'Fill' ({SITE}")


def test_badInputsRaiseInvalidArgumentErrorAtRunTime(tf: Ops, run: Run) -> None:
    dims, value = tf.placeholder(TInt32), tf.placeholder(TFloat32)
    f = tf.withName("f").fill(dims, 1.0)
    with pytest.raises(InvalidArgumentError, match=f"non-negative.*'f'.*{SITE}"):
        run(f, feeds={dims: np.array([-2], np.int32)})
    g = tf.fill([2], value)
    with pytest.raises(InvalidArgumentError, match="scalar.*'Fill'") as info:
        run(g, feeds={value: np.array([1.0, 2.0], np.float32)})
    assert info.value.op == g.op()
