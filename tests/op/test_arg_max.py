"""Specification of ``tfops.op.math.ArgMax``: the index of the largest value along a dimension."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import Gradients, Placeholder
from tfops.op.math import ArgMax
from tfops.testing import assertGradientsClose
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]

ALL_TYPES = [TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8, TBool]
NUMBER_TYPES = [TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8]
HERE = re.escape(__file__)


def sample(dtype: type[TType], shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """Distinct values in a scrambled order (negative ones too for signed types)."""
    n = int(np.prod(shape))
    values = np.random.default_rng(5).permutation(n)
    if dtype is not TUint8:
        values = values - n // 2
    return values.reshape(shape).astype(dtype.DTYPE)


# -- construction ---------------------------------------------------------------------------
def test_defaultNameIsTheOpTypeThenNumbered(tf: Ops) -> None:
    x = tf.constant([1.0, 2.0])
    assert tf.math.argMax(x, 0).op().name() == "ArgMax"
    assert tf.math.argMax(x, 0).op().name() == "ArgMax_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    x = tf.constant([1.0, 2.0])
    assert tf.withName("best").math.argMax(x, 0).op().name() == "best"
    assert tf.withName("best").math.argMax(x, 0).op().name() == "best_1"


def test_subScopePrefixesTheName(tf: Ops) -> None:
    assert tf.withSubScope("eval").math.argMax(tf.constant([1.0]), 0).op().name() == "eval/ArgMax"


def test_createAddsTheOpWithItsInputAndDimension(tf: Ops, graph: Graph) -> None:
    x = tf.constant([[1.0, 2.0]])
    m = ArgMax.create(tf.scope(), x, 1)
    assert isinstance(m, ArgMax)
    assert ArgMax.OP_NAME == "ArgMax"
    assert m.op().type() == "ArgMax"
    assert [op.name() for op in graph.operations()] == ["Const", "Const_1", "ArgMax"]
    assert m.op().numInputs() == 2
    assert m.op().input(0) == x.asOutput()
    dimension = m.op().input(1)
    assert dimension.op().type() == "Const"
    assert dimension.dataType() is TInt32
    assert m.op().attr("Tidx") is TInt32


def test_outputIsTheOnlyOutput(tf: Ops) -> None:
    m = tf.math.argMax(tf.constant([1.0, 2.0]), 0)
    assert m.op().numOutputs() == 1
    assert m.output() == m.asOutput() == m.op().output(0)
    assert m.output().name() == "ArgMax:0"


def test_outputTypeIsInt64ByDefault(tf: Ops) -> None:
    m = tf.math.argMax(tf.constant([1.0, 2.0]), 0)
    assert m.asOutput().dataType() is TInt64
    assert m.op().attr("output_type") is TInt64


def test_outputTypeOptionSelectsInt32(tf: Ops) -> None:
    m = tf.math.argMax(tf.constant([1.0, 2.0]), 0, ArgMax.outputType(TInt32))
    assert m.asOutput().dataType() is TInt32
    assert m.op().attr("output_type") is TInt32


def test_int64DimensionIsAccepted(tf: Ops) -> None:
    m = tf.math.argMax(tf.constant([[1.0, 2.0]]), np.int64(1))
    assert m.op().attr("Tidx") is TInt64
    assert m.asOutput().shape() == Shape.of(1)


@pytest.mark.parametrize("dtype", ALL_TYPES, ids=lambda t: t.NAME)
def test_acceptsEveryDataType(tf: Ops, dtype: type[TType]) -> None:
    m = tf.math.argMax(tf.placeholder(dtype, Placeholder.shape(Shape.of(2))), 0)
    assert m.op().attr("T") is dtype
    assert m.asOutput().dataType() is TInt64


@pytest.mark.parametrize(
    ("shape", "dimension", "expected"),
    [
        (Shape.of(2, 3), 0, Shape.of(3)),
        (Shape.of(2, 3), 1, Shape.of(2)),
        (Shape.of(2, 3), -1, Shape.of(2)),
        (Shape.of(2, 3), -2, Shape.of(3)),
        (Shape.of(2, 3, 4), 1, Shape.of(2, 4)),
        (Shape.of(5), 0, Shape.scalar()),
        (Shape.of(0, 3), 1, Shape.of(0)),
        (Shape.of(-1, 3), 0, Shape.of(3)),
        (Shape.of(-1, 3), 1, Shape.of(-1)),
        (Shape.of(2, -1, 4), -2, Shape.of(2, 4)),
        (Shape.unknown(), 0, Shape.unknown()),
    ],
    ids=str,
)
def test_staticShapeInference(tf: Ops, shape: Shape, dimension: int, expected: Shape) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(shape))
    assert tf.math.argMax(x, dimension).asOutput().shape() == expected


@pytest.mark.parametrize(
    ("shape", "expected"),
    [
        (Shape.of(2, 3, 4), Shape.of(-1, -1)),
        (Shape.of(5), Shape.scalar()),
        (Shape.unknown(), Shape.unknown()),
    ],
    ids=str,
)
def test_nonConstantDimensionKeepsTheRankLessOne(tf: Ops, shape: Shape, expected: Shape) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(shape))
    assert tf.math.argMax(x, tf.placeholder(TInt32)).asOutput().shape() == expected


# -- kernel ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", NUMBER_TYPES, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("shape", "dimension"),
    [((6,), 0), ((3, 4), 0), ((3, 4), 1), ((3, 4), -1), ((2, 3, 4), 1), ((2, 3, 4), -3)],
    ids=str,
)
def test_kernelMatchesNumpy(
    tf: Ops, run: Run, dtype: type[TType], shape: tuple[int, ...], dimension: int
) -> None:
    value = sample(dtype, shape)
    result = run(tf.math.argMax(value, dimension))
    expected = np.argmax(value, axis=dimension)
    assert result.dtype == np.int64
    assert result.shape == expected.shape
    np.testing.assert_array_equal(result, expected)


def test_kernelReturnsTheIndexAlongTheDimension(tf: Ops, run: Run) -> None:
    x = tf.constant(np.array([[1, 9, 4], [7, 2, 8]], np.int32))
    assert run(tf.math.argMax(x, 0)).tolist() == [1, 0, 1]
    assert run(tf.math.argMax(x, 1)).tolist() == [1, 2]


def test_tiesGiveTheSmallestIndex(tf: Ops, run: Run) -> None:
    x = tf.constant(np.array([[3.0, 1.0, 3.0], [2.0, 2.0, 2.0], [0.0, 5.0, 5.0]]))
    assert run(tf.math.argMax(x, 1)).tolist() == [0, 0, 1]
    assert run(tf.math.argMax(x, 0)).tolist() == [0, 2, 2]


def test_boolInputFindsTheFirstTrue(tf: Ops, run: Run) -> None:
    x = tf.constant(np.array([[False, True, True], [False, False, False]]))
    assert run(tf.math.argMax(x, 1)).tolist() == [1, 0]


def test_infinitiesAreOrdered(tf: Ops, run: Run) -> None:
    x = np.array([-np.inf, 1e308, np.inf, 0.0])
    assert run(tf.math.argMax(x, 0)).tolist() == 2


def test_int32OutputType(tf: Ops, run: Run) -> None:
    m = tf.math.argMax(np.array([[0.5, 2.5], [3.5, -1.0]], np.float32), 1,
                       ArgMax.outputType(TInt32))
    result = run(m)
    assert result.dtype == np.int32
    assert result.tolist() == [1, 0]


def test_vectorGivesAScalar(tf: Ops, run: Run) -> None:
    result = run(tf.math.argMax(np.array([4, 8, 1], np.int64), 0))
    assert result.shape == ()
    assert result == 1


def test_emptyOtherDimensionGivesAnEmptyResult(tf: Ops, run: Run) -> None:
    result = run(tf.math.argMax(np.zeros((0, 3), np.float32), 1))
    assert result.shape == (0,)
    assert result.dtype == np.int64


def test_runWithANonConstantDimension(tf: Ops, run: Run) -> None:
    x = tf.constant(np.array([[1, 5, 2], [7, 3, 4]], np.int32))
    dimension = tf.placeholder(TInt32)
    m = tf.math.argMax(x, dimension)
    assert run(m, feeds={dimension: np.array(-1, np.int32)}).tolist() == [1, 0]
    assert run(m, feeds={dimension: np.array(0, np.int32)}).tolist() == [1, 0, 1]


def test_runOfAPartiallyKnownInput(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(-1, 2)))
    value = np.array([[1.0, -1.0], [-3.0, -2.0], [0.5, 0.75]])
    assert run(tf.math.argMax(x, 1), feeds={x: value}).tolist() == [0, 1, 1]


# -- gradient -------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("ArgMax") == (True, None)


def test_noGradientFlowsThroughArgMax(tf: Ops) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2, 3)))
    y = tf.dtypes.cast(tf.math.argMax(x, 1), TFloat64)
    assert tf.gradients(y, [x]).dy(0) is None


def test_unconnectedGradientIsZeros(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(3)))
    y = tf.dtypes.cast(tf.math.argMax(x, 0), TFloat64)
    dx = tf.gradients(y, [x], Gradients.unconnectedGradients("zero")).dy(0)
    assert dx is not None
    assert run(dx, feeds={x: np.array([1.0, 3.0, 2.0])}).tolist() == [0.0, 0.0, 0.0]


def test_gradientFlowsOnlyThroughTheOtherPath(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(2, 3)))
    index = tf.dtypes.cast(tf.math.argMax(x, 1), TFloat64)
    y = tf.math.mul(x, tf.expandDims(index, 1))
    value = np.array([[0.5, 2.0, 1.0], [3.0, 0.25, -1.0]])
    assertGradientsClose(y, [x], {x: value})
    dx = tf.gradients(y, [x]).dy(0)
    assert dx is not None
    assert run(dx, feeds={x: value}).tolist() == [[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]


# -- bad inputs -----------------------------------------------------------------------------
@pytest.mark.parametrize("dimension", [2, -3], ids=str)
def test_dimensionOutOfRangeRaisesValueError(tf: Ops, graph: Graph, dimension: int) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(-1, 3)))
    before = list(graph.operations())
    with pytest.raises(
        ValueError, match=rf"ArgMax 'ArgMax' \(created at {HERE}:\d+\).*out of range"
    ):
        tf.math.argMax(x, dimension)
    assert list(graph.operations()) == before


def test_scalarInputHasNoDimension(tf: Ops) -> None:
    with pytest.raises(ValueError, match="ArgMax 'ArgMax'.*out of range for a tensor of rank 0"):
        tf.math.argMax(tf.constant(1.0), 0)


def test_dimensionMustBeAScalar(tf: Ops) -> None:
    with pytest.raises(ValueError, match="ArgMax 'ArgMax'.*dimension must be a scalar"):
        tf.math.argMax(tf.constant([[1.0, 2.0]]), [1])


def test_emptyDimensionRaisesValueError(tf: Ops) -> None:
    with pytest.raises(ValueError, match="ArgMax 'ArgMax'.*empty"):
        tf.math.argMax(tf.constant(np.zeros((0, 3), np.float32)), 0)


def test_floatDimensionRaisesTypeError(tf: Ops) -> None:
    with pytest.raises(TypeError, match="ArgMax"):
        tf.math.argMax(tf.constant([1.0]), tf.constant(0.0))


@pytest.mark.parametrize("dtype", [TFloat32, TUint8, TBool], ids=lambda t: t.NAME)
def test_outputTypeMustBeInt32OrInt64(tf: Ops, dtype: type[TType]) -> None:
    with pytest.raises(TypeError, match=rf"ArgMax 'ArgMax'.*{dtype.NAME}.*output_type"):
        tf.math.argMax(tf.constant([1.0]), 0, ArgMax.outputType(dtype))


def test_operandFromAnotherGraphRaisesValueError(tf: Ops) -> None:
    with Graph() as other:
        foreign = Ops.create(other).constant([1.0])
        with pytest.raises(ValueError, match=rf"ArgMax 'ArgMax' \(created at {HERE}:\d+\)"):
            tf.math.argMax(foreign, 0)


def test_nonConstantDimensionOutOfRangeRaisesAtRunTime(tf: Ops, run: Run) -> None:
    dimension = tf.placeholder(TInt32)
    m = tf.withName("m").math.argMax(tf.constant([[1.0, 2.0]]), dimension)
    with pytest.raises(InvalidArgumentError, match=rf"'m'.*created at {HERE}:\d+") as info:
        run(m, feeds={dimension: np.array(2, np.int32)})
    assert info.value.op == m.op()
    assert "out of range" in str(info.value)


def test_nonScalarDimensionRaisesAtRunTime(tf: Ops, run: Run) -> None:
    dimension = tf.placeholder(TInt32)
    m = tf.math.argMax(tf.constant([[1.0, 2.0]]), dimension)
    with pytest.raises(InvalidArgumentError, match="must be a scalar.*op 'ArgMax'"):
        run(m, feeds={dimension: np.array([1], np.int32)})


def test_emptyDimensionRaisesAtRunTime(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat32)
    m = tf.math.argMax(x, 0)
    with pytest.raises(InvalidArgumentError, match="empty.*op 'ArgMax'"):
        run(m, feeds={x: np.zeros((0, 2), np.float32)})


def test_failedCreateLeavesTheGraphUnchanged(graph: Graph, tf: Ops) -> None:
    x = tf.constant([1.0, 2.0])
    before = list(graph.operations())
    with pytest.raises(ValueError):
        tf.math.argMax(x, 1)
    with pytest.raises(TypeError):
        tf.math.argMax(x, 0, ArgMax.outputType(TFloat64))
    assert list(graph.operations()) == before
    assert tf.math.argMax(x, 0).op().name() == "ArgMax"
