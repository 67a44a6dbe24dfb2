"""Specification of the ``Placeholder`` op class: a value fed at run time, of the requested data
type and a static shape that is unknown unless the ``shape`` option gives it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import ALL, assertRejected

from tfops import Graph, Ops, Session, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.core import Placeholder
from tfops.types import TBool, TFloat32, TFloat64, TFloating, TInt32, TInt64, TNumber, TType, TUint8

Run = Callable[..., Any]
SITE = f"created at {__file__}:"


def test_createOnABaseScope(graph: Graph) -> None:
    p = Placeholder.create(graph.baseScope(), TInt64)
    assert graph.operation("Placeholder") == p.op()
    assert p.asOutput().dataType() is TInt64


@pytest.mark.parametrize(
    "shape",
    [Shape.unknown(), Shape.of(-1, 3), Shape.of(2, 3), Shape.scalar(), Shape.of(0),
     Shape.of(-1, -1, 1)],
    ids=str,
)
def test_shapeOptionSetsTheStaticShapeUnknownByDefault(tf: Ops, shape: Shape) -> None:
    p = tf.placeholder(TFloat32) if shape == Shape.unknown() else tf.placeholder(
        TFloat32, Placeholder.shape(shape))
    assert p.asOutput().shape() == shape
    if shape != Shape.unknown():
        assert p.op().attr("shape") == shape


# -- kernel (the fed value) ----------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(), (0,), (2, 3)], ids=str)
def test_runReturnsTheFedValue(
    tf: Ops, run: Run, dtype: type[TType], shape: tuple[int, ...]
) -> None:
    p = tf.placeholder(dtype)
    assert p.asOutput().dataType() is p.op().attr("dtype") is dtype
    value = (np.arange(int(np.prod(shape))).reshape(shape) % 2).astype(dtype.DTYPE)
    result = run(p, feeds={p: value})
    assert (result.dtype, result.shape) == (dtype.DTYPE, shape)
    np.testing.assert_array_equal(result, value)


@pytest.mark.parametrize("rows", [0, 1, 5])
def test_partiallyKnownShapeAcceptsAnySizeInTheUnknownDimension(
    tf: Ops, run: Run, rows: int
) -> None:
    p = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(-1, 3)))
    assert run(p, feeds={p: np.ones((rows, 3), np.float32)}).shape == (rows, 3)


@pytest.mark.parametrize(
    ("dtype", "value", "expected"),
    [(TFloat32, np.array([0.5, 1.5]), np.array([0.5, 1.5], np.float32)),
     (TInt64, [[1, 2], [3, 4]], np.array([[1, 2], [3, 4]], np.int64))],
    ids=["float64ToFloat32", "pythonList"],
)
def test_feedOfTheSameKindIsConvertedToTheDataType(
    tf: Ops, run: Run, dtype: type[TType], value: Any, expected: np.ndarray[Any, Any]
) -> None:
    p = tf.placeholder(dtype)
    result = run(p, feeds={p: value})
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)


def test_feedingAndFetchingByName(tf: Ops, session: Session) -> None:
    tf.withName("x").placeholder(TFloat64)
    assert session.runner().feed("x", np.array([2.0])).fetch("x:0").run()[0].tolist() == [2.0]


def test_unfedPlaceholderThatIsNotNeededIsFine(tf: Ops, run: Run) -> None:
    tf.placeholder(TFloat32)
    assert run(tf.constant(1.0)).tolist() == 1.0


def test_placeholderPassesGradientsToItsConsumers(tf: Ops, run: Run) -> None:
    p = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2)))
    d = tf.gradients(tf.math.square(p), [p]).dy(0)
    assert d is not None
    assert run(d, feeds={p: np.array([1.5, -2.0])}).tolist() == [3.0, -4.0]


# -- bad inputs ----------------------------------------------------------------------------
def test_unfedPlaceholderRaisesInvalidArgumentErrorNamingIt(tf: Ops, run: Run) -> None:
    p = tf.withName("x").placeholder(TFloat32)
    with pytest.raises(InvalidArgumentError, match=f"'x'.*{SITE}") as info:
        run(tf.identity(p))
    assert info.value.op == p.op()


@pytest.mark.parametrize(
    ("shape", "value"),
    [(Shape.of(-1, 3), np.zeros((2, 2))), (Shape.of(-1, 3), np.zeros(3)),
     (Shape.of(-1, 3), np.zeros((1, 1, 3))), (Shape.scalar(), np.zeros(1))],
    ids=["wrongDimension", "lowerRank", "higherRank", "vectorForAScalar"],
)
def test_feedOfTheWrongShapeRaisesInvalidArgumentError(
    tf: Ops, run: Run, shape: Shape, value: np.ndarray[Any, Any]
) -> None:
    p = tf.withName("x").placeholder(TFloat32, Placeholder.shape(shape))
    with pytest.raises(InvalidArgumentError, match=f"'x'.*{SITE}") as info:
        run(p, feeds={p: value.astype(np.float32)})
    assert info.value.op == p.op()


@pytest.mark.parametrize(
    ("dtype", "value"), [(TInt32, 1.5), (TBool, 1.0), (TUint8, 1.0)],
    ids=["int32", "bool", "uint8"],
)
def test_floatFedToANonFloatingPlaceholderRaisesInvalidArgumentError(
    tf: Ops, run: Run, dtype: type[TType], value: float
) -> None:
    p = tf.placeholder(dtype)
    with pytest.raises(InvalidArgumentError, match="Placeholder"):
        run(p, feeds={p: np.array([value])})


@pytest.mark.parametrize(
    "dtype", [np.float32, float, "float32", TType, TNumber, TFloating], ids=str
)
def test_dataTypeThatIsNotAConcreteTfopsTypeRaisesTypeError(
    tf: Ops, graph: Graph, dtype: object
) -> None:
    tf.placeholder(TFloat32)
    assertRejected(graph, lambda: tf.placeholder(dtype), TypeError,  # type: ignore[arg-type]
                   f"Placeholder 'Placeholder_1' ({SITE}")
    assert tf.placeholder(TFloat32).op().name() == "Placeholder_1"
