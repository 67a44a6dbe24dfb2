"""Specification of ``tfops.op.random.RandomUniform``: uniform values in [0, 1).

Seeded (``seed`` or ``seed2`` non-zero) the numbers are reproducible: the same graph in two
sessions, and two graphs built the same way, give the same sequence; successive runs of the op
continue that sequence. Without seeds every session draws different numbers.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Session, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import Placeholder
from tfops.op.random import RandomUniform
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType

Array = np.ndarray[Any, Any]
FLOAT_TYPES: list[type[TType]] = [TFloat16, TFloat32, TFloat64]
HERE = re.escape(__file__)


def fetch(session: Session, operand: Any) -> Array:
    return np.asarray(session.runner().fetch(operand).run()[0])


def build(seed: int = 7, seed2: int = 0, shape: tuple[int, ...] = (4, 5),
          dtype: type[TType] = TFloat32) -> tuple[Graph, RandomUniform[Any]]:
    graph = Graph()
    tf = Ops.create(graph)
    tf.constant(0.0)  # something before it, as in a real model
    r = tf.random.randomUniform(np.array(shape, np.int32), dtype, RandomUniform.seed(seed),
                                RandomUniform.seed2(seed2))
    return graph, r


# -- construction --------------------------------------------------------------------------
def test_opNameIsRandomUniform() -> None:
    assert RandomUniform.OP_NAME == "RandomUniform"


def test_defaultNamesAreRandomUniformThenNumbered(tf: Ops) -> None:
    assert tf.random.randomUniform([2], TFloat32).op().name() == "RandomUniform"
    assert tf.random.randomUniform([2], TFloat32).op().name() == "RandomUniform_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    assert tf.withName("noise").random.randomUniform([2], TFloat32).op().name() == "noise"


def test_createOnAScope(tf: Ops) -> None:
    shape = tf.constant([2, 3])
    r = RandomUniform.create(tf.scope(), shape, TFloat64)
    assert isinstance(r, RandomUniform)
    assert r.op().type() == "RandomUniform"
    assert r.op().input(0) == shape.asOutput()
    assert r.output() == r.asOutput() == r.op().output(0)


def test_attributesHaveTensorFlowsDefaults(tf: Ops) -> None:
    r = tf.random.randomUniform([2], TFloat32)
    assert r.op().attr("dtype") is TFloat32
    assert r.op().attr("seed") == 0
    assert r.op().attr("seed2") == 0
    assert r.op().attr("T") is TInt32


def test_seedOptions(tf: Ops) -> None:
    r = tf.random.randomUniform([2], TFloat32, RandomUniform.seed(7), RandomUniform.seed2(3))
    assert r.op().attr("seed") == 7
    assert r.op().attr("seed2") == 3


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda t: t.NAME)
def test_outputHasTheRequestedDataType(tf: Ops, dtype: type[TType]) -> None:
    assert tf.random.randomUniform([2], dtype).asOutput().dataType() is dtype


@pytest.mark.parametrize("shapeType", [TInt32, TInt64], ids=lambda t: t.NAME)
def test_shapeMayBeInt32OrInt64(tf: Ops, shapeType: type[TType]) -> None:
    r = tf.random.randomUniform(np.array([2, 3], shapeType.DTYPE), TFloat32)
    assert r.op().attr("T") is shapeType
    assert r.asOutput().shape() == Shape.of(2, 3)


@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (2, 0, 4)], ids=str)
def test_staticShapeFromAConstant(tf: Ops, shape: tuple[int, ...]) -> None:
    r = tf.random.randomUniform(np.array(shape, np.int32), TFloat32)
    assert r.asOutput().shape() == Shape.of(*shape)


def test_staticShapeFromAPlaceholderOfKnownLength(tf: Ops) -> None:
    shape = tf.placeholder(TInt32, Placeholder.shape(Shape.of(3)))
    assert tf.random.randomUniform(shape, TFloat32).asOutput().shape() == Shape.of(-1, -1, -1)


def test_staticShapeFromAPlaceholderOfUnknownLength(tf: Ops) -> None:
    shape = tf.placeholder(TInt32)
    assert tf.random.randomUniform(shape, TFloat32).asOutput().shape() == Shape.unknown()


def test_staticShapeFromTheShapeOfATensor(tf: Ops) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(-1, 4)))
    r = tf.random.randomUniform(tf.shape(x), TFloat32)
    assert r.asOutput().shape() == Shape.of(-1, 4)


def test_docstringCarriesTheSummary() -> None:
    assert RandomUniform.__doc__ is not None
    assert "Outputs random values from a uniform distribution." in RandomUniform.__doc__


# -- values --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda t: t.NAME)
def test_valuesAreInTheHalfOpenUnitInterval(tf: Ops, session: Session, dtype: type[TType]) -> None:
    r = tf.random.randomUniform([200_000], dtype, RandomUniform.seed(1))
    values = fetch(session, r)
    assert values.dtype == dtype.DTYPE
    assert values.shape == (200_000,)
    assert values.min() >= 0
    assert values.max() < 1


@pytest.mark.parametrize("dtype", FLOAT_TYPES, ids=lambda t: t.NAME)
def test_momentsAreThoseOfTheUniformDistribution(
    tf: Ops, session: Session, dtype: type[TType]
) -> None:
    values = fetch(session, tf.random.randomUniform([100_000], dtype, RandomUniform.seed(2)))
    values = values.astype(np.float64)
    assert abs(values.mean() - 0.5) < 0.005
    assert abs(values.var() - 1 / 12) < 0.002
    assert values.min() < 0.001
    assert values.max() > 0.999


def test_histogramIsFlat(tf: Ops, session: Session) -> None:
    values = fetch(session, tf.random.randomUniform([100_000], TFloat64, RandomUniform.seed(3)))
    counts, _ = np.histogram(values, bins=10, range=(0.0, 1.0))
    assert counts.sum() == 100_000
    assert np.all(np.abs(counts - 10_000) < 500)


def test_elementsAreUncorrelated(tf: Ops, session: Session) -> None:
    values = fetch(session, tf.random.randomUniform([50_000], TFloat64, RandomUniform.seed(4)))
    assert abs(np.corrcoef(values[:-1], values[1:])[0, 1]) < 0.02
    assert len(np.unique(values)) == 50_000


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (2, 0, 4)], ids=str)
def test_valueHasTheRequestedShape(tf: Ops, session: Session, shape: tuple[int, ...]) -> None:
    values = fetch(session, tf.random.randomUniform(np.array(shape, np.int32), TFloat32))
    assert values.shape == shape
    assert values.dtype == np.float32


def test_shapeFedAtRunTime(tf: Ops, session: Session) -> None:
    shape = tf.placeholder(TInt64)
    r = tf.random.randomUniform(shape, TFloat64, RandomUniform.seed(5))
    for fed in ([2, 5], [3], [], [1, 0, 2]):
        values = session.runner().feed(shape, np.array(fed, np.int64)).fetch(r).run()[0]
        assert values.shape == tuple(fed)
        assert np.all((values >= 0) & (values < 1))


def test_shapeOfATensorAtRunTime(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(-1, 4)))
    r = tf.random.randomUniform(tf.shape(x), TFloat32)
    values = session.runner().feed(x, np.zeros((3, 4), np.float32)).fetch(r).run()[0]
    assert values.shape == (3, 4)


def test_oneRunDrawsOnceForAllConsumers(tf: Ops, session: Session) -> None:
    r = tf.random.randomUniform([5], TFloat64)
    doubled = tf.math.add(r, r)
    first, second, total = session.runner().fetch(r).fetch(r).fetch(doubled).run()
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(total, 2 * first)


# -- seeds ---------------------------------------------------------------------------------
def test_seededOpGivesTheSameValuesInTwoSessions() -> None:
    graph, r = build(seed=7)
    with Session(graph) as first, Session(graph) as second:
        a, b = fetch(first, r), fetch(second, r)
    np.testing.assert_array_equal(a, b)
    graph.close()


def test_seededOpGivesTheSameSequenceInTwoSessions() -> None:
    graph, r = build(seed=7)
    with Session(graph) as first, Session(graph) as second:
        a = [fetch(first, r) for _ in range(3)]
        b = [fetch(second, r) for _ in range(3)]
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    graph.close()


def test_twoGraphsBuiltTheSameWayGiveTheSameValues() -> None:
    g1, r1 = build(seed=11, seed2=4)
    g2, r2 = build(seed=11, seed2=4)
    with Session(g1) as s1, Session(g2) as s2:
        np.testing.assert_array_equal(fetch(s1, r1), fetch(s2, r2))
        np.testing.assert_array_equal(fetch(s1, r1), fetch(s2, r2))
    g1.close()
    g2.close()


def test_successiveRunsGiveDifferentValues() -> None:
    graph, r = build(seed=7)
    with Session(graph) as session:
        a, b = fetch(session, r), fetch(session, r)
    assert not np.any(a == b)
    graph.close()


def test_seed2AloneAlsoSeeds() -> None:
    g1, r1 = build(seed=0, seed2=9)
    g2, r2 = build(seed=0, seed2=9)
    with Session(g1) as s1, Session(g2) as s2:
        np.testing.assert_array_equal(fetch(s1, r1), fetch(s2, r2))
    g1.close()
    g2.close()


@pytest.mark.parametrize(("other", "other2"), [(8, 0), (7, 1), (0, 7)])
def test_differentSeedsGiveDifferentValues(other: int, other2: int) -> None:
    g1, r1 = build(seed=7, seed2=0)
    g2, r2 = build(seed=other, seed2=other2)
    with Session(g1) as s1, Session(g2) as s2:
        assert not np.any(fetch(s1, r1) == fetch(s2, r2))
    g1.close()
    g2.close()


def test_twoOpsWithTheSameSeedsGiveTheSameValues(tf: Ops, session: Session) -> None:
    a = tf.random.randomUniform([6], TFloat32, RandomUniform.seed(3))
    b = tf.random.randomUniform([6], TFloat32, RandomUniform.seed(3))
    first, second = session.runner().fetch(a).fetch(b).run()
    np.testing.assert_array_equal(first, second)


def test_withoutSeedsTwoSessionsGiveDifferentValues() -> None:
    graph, r = build(seed=0, seed2=0)
    with Session(graph) as first, Session(graph) as second:
        assert not np.any(fetch(first, r) == fetch(second, r))
    graph.close()


def test_withoutSeedsSuccessiveRunsGiveDifferentValues(tf: Ops, session: Session) -> None:
    r = tf.random.randomUniform([20], TFloat64)
    assert not np.any(fetch(session, r) == fetch(session, r))


def test_seededValuesDoNotDependOnTheShapeFeedOrder(tf: Ops, graph: Graph) -> None:
    shape = tf.placeholder(TInt32)
    r = tf.random.randomUniform(shape, TFloat64, RandomUniform.seed(12))
    with Session(graph) as first, Session(graph) as second:
        a = first.runner().feed(shape, np.array([4], np.int32)).fetch(r).run()[0]
        b = second.runner().feed(shape, np.array([4], np.int32)).fetch(r).run()[0]
    np.testing.assert_array_equal(a, b)


# -- errors --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [TInt32, TInt64, TBool], ids=lambda t: t.NAME)
def test_nonFloatingDataTypeRaisesTypeError(tf: Ops, graph: Graph, dtype: type[TType]) -> None:
    shape = tf.constant([2])
    before = list(graph.operations())
    with pytest.raises(TypeError, match="RandomUniform") as info:
        tf.random.randomUniform(shape, dtype)
    assert dtype.NAME in str(info.value)
    assert list(graph.operations()) == before


@pytest.mark.parametrize("shape", [np.array([2.0]), np.array([True])], ids=["float", "bool"])
def test_nonIntegerShapeRaisesTypeError(tf: Ops, graph: Graph, shape: Array) -> None:
    with pytest.raises(TypeError, match="RandomUniform"):
        tf.random.randomUniform(shape, TFloat32)
    assert list(graph.operations()) == []


def test_negativeConstantDimensionRaisesValueError(tf: Ops, graph: Graph) -> None:
    with pytest.raises(ValueError, match="RandomUniform 'RandomUniform'") as info:
        tf.random.randomUniform([2, -1], TFloat32)
    assert re.search(f"created at {HERE}:", str(info.value))
    assert list(graph.operations()) == []


def test_matrixShapeRaisesValueError(tf: Ops, graph: Graph) -> None:
    with pytest.raises(ValueError, match="RandomUniform"):
        tf.random.randomUniform([[2, 3]], TFloat32)
    assert list(graph.operations()) == []


def test_negativeFedDimensionRaisesInvalidArgumentError(tf: Ops, session: Session) -> None:
    shape = tf.placeholder(TInt32)
    r = tf.withName("noise").random.randomUniform(shape, TFloat32)
    with pytest.raises(InvalidArgumentError, match="negative") as info:
        session.runner().feed(shape, np.array([3, -2], np.int32)).fetch(r).run()
    assert info.value.op is not None and info.value.op.name() == "noise"


def test_shapeFromAnotherGraphRaisesValueError(tf: Ops, graph: Graph) -> None:
    with Graph() as other:
        foreign = Ops.create(other).constant([2])
        with pytest.raises(ValueError, match="RandomUniform"):
            tf.random.randomUniform(foreign, TFloat32)
    assert list(graph.operations()) == []


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredNotDifferentiable() -> None:
    assert lookupGradient("RandomUniform") == (True, None)


def test_randomValuesAreConstantsForTheGradient(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(4)))
    r = tf.random.randomUniform([4], TFloat32, RandomUniform.seed(6))
    dx = tf.gradients(tf.sum(tf.math.mul(r, x), 0), [x]).dy(0)
    assert dx is not None
    values = session.runner().feed(x, np.ones(4, np.float32)).fetch(r).fetch(dx).run()
    np.testing.assert_array_equal(values[1], values[0])


def test_gradientWithRespectToTheShapeIsNone(tf: Ops) -> None:
    shape = tf.placeholder(TInt32, Placeholder.shape(Shape.of(1)))
    r = tf.random.randomUniform(shape, TFloat32)
    assert tf.gradients(r, [shape]).dy(0) is None
