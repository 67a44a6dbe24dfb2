"""Specification of ``tfops.op.random.RandomUniformInt``: uniform integers in [minval, maxval).

As TensorFlow's op: ``minval`` and ``maxval`` are scalars of one type, int32 or int64, which is
the output's; ``minval < maxval`` is required (checked when the op is created for constants,
when it runs otherwise). Seeds behave as for the other random ops.
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
from tfops.op.random import RandomUniformInt
from tfops.types import TFloat32, TInt32, TInt64, TType, TUint8

Array = np.ndarray[Any, Any]
INDEX_TYPES: list[type[TType]] = [TInt32, TInt64]
HERE = re.escape(__file__)


def fetch(session: Session, operand: Any) -> Array:
    return np.asarray(session.runner().fetch(operand).run()[0])


def build(seed: int = 7, seed2: int = 0) -> tuple[Graph, RandomUniformInt[Any]]:
    graph = Graph()
    tf = Ops.create(graph)
    r = tf.random.randomUniformInt([50], -1000, 1000, RandomUniformInt.seed(seed),
                                   RandomUniformInt.seed2(seed2))
    return graph, r


# -- construction --------------------------------------------------------------------------
def test_opNameIsRandomUniformInt() -> None:
    assert RandomUniformInt.OP_NAME == "RandomUniformInt"


def test_defaultNamesAreRandomUniformIntThenNumbered(tf: Ops) -> None:
    assert tf.random.randomUniformInt([2], 0, 5).op().name() == "RandomUniformInt"
    assert tf.random.randomUniformInt([2], 0, 5).op().name() == "RandomUniformInt_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    assert tf.withName("dice").random.randomUniformInt([2], 1, 7).op().name() == "dice"


def test_createOnAScope(tf: Ops) -> None:
    shape, low, high = tf.constant([2, 3]), tf.constant(0), tf.constant(10)
    r = RandomUniformInt.create(tf.scope(), shape, low, high)
    assert isinstance(r, RandomUniformInt)
    assert r.op().type() == "RandomUniformInt"
    assert [r.op().input(i) for i in range(3)] == [
        shape.asOutput(), low.asOutput(), high.asOutput()
    ]
    assert r.output() == r.asOutput() == r.op().output(0)


def test_attributesHaveTensorFlowsDefaults(tf: Ops) -> None:
    r = tf.random.randomUniformInt([2], 0, 5)
    assert r.op().attr("seed") == 0
    assert r.op().attr("seed2") == 0
    assert r.op().attr("Tout") is TInt32
    assert r.op().attr("T") is TInt32


def test_seedOptions(tf: Ops) -> None:
    r = tf.random.randomUniformInt([2], 0, 5, RandomUniformInt.seed(4), RandomUniformInt.seed2(2))
    assert r.op().attr("seed") == 4
    assert r.op().attr("seed2") == 2


@pytest.mark.parametrize("dtype", INDEX_TYPES, ids=lambda t: t.NAME)
def test_outputHasTheBoundsDataType(tf: Ops, dtype: type[TType]) -> None:
    low, high = np.array(0, dtype.DTYPE), np.array(9, dtype.DTYPE)
    r = tf.random.randomUniformInt(np.array([2], np.int64), low, high)
    assert r.asOutput().dataType() is dtype
    assert r.op().attr("Tout") is dtype
    assert r.op().attr("T") is TInt64


def test_pythonIntBoundsTakeTheOtherBoundsType(tf: Ops) -> None:
    r = tf.random.randomUniformInt([2], 0, np.int64(9))
    assert r.asOutput().dataType() is TInt64
    assert r.op().input(1).dataType() is TInt64


@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3)], ids=str)
def test_staticShapeFromAConstant(tf: Ops, shape: tuple[int, ...]) -> None:
    r = tf.random.randomUniformInt(np.array(shape, np.int32), 0, 3)
    assert r.asOutput().shape() == Shape.of(*shape)


def test_staticShapeFromAPlaceholder(tf: Ops) -> None:
    known = tf.placeholder(TInt32, Placeholder.shape(Shape.of(2)))
    assert tf.random.randomUniformInt(known, 0, 3).asOutput().shape() == Shape.of(-1, -1)
    unknown = tf.placeholder(TInt32)
    assert tf.random.randomUniformInt(unknown, 0, 3).asOutput().shape() == Shape.unknown()


def test_docstringCarriesTheSummary() -> None:
    assert RandomUniformInt.__doc__ is not None
    assert "Outputs random integers from a uniform distribution." in RandomUniformInt.__doc__


# -- values --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", INDEX_TYPES, ids=lambda t: t.NAME)
@pytest.mark.parametrize(("low", "high"), [(0, 10), (-5, 3), (-20, -17), (7, 8)], ids=str)
def test_valuesAreInTheHalfOpenRangeAndCoverIt(
    tf: Ops, session: Session, dtype: type[TType], low: int, high: int
) -> None:
    r = tf.random.randomUniformInt(
        [10_000], np.array(low, dtype.DTYPE), np.array(high, dtype.DTYPE),
        RandomUniformInt.seed(1),
    )
    values = fetch(session, r)
    assert values.dtype == dtype.DTYPE
    assert values.shape == (10_000,)
    assert sorted(np.unique(values).tolist()) == list(range(low, high))


def test_frequenciesAreUniform(tf: Ops, session: Session) -> None:
    values = fetch(session, tf.random.randomUniformInt([120_000], 0, 6, RandomUniformInt.seed(2)))
    counts = np.bincount(values, minlength=6)
    assert len(counts) == 6
    assert np.all(np.abs(counts - 20_000) < 600)


def test_wideInt64Range(tf: Ops, session: Session) -> None:
    low, high = np.int64(-(2**40)), np.int64(2**40)
    values = fetch(session, tf.random.randomUniformInt([10_000], low, high,
                                                       RandomUniformInt.seed(3)))
    assert values.dtype == np.int64
    assert values.min() >= -(2**40) and values.max() < 2**40
    assert values.max() > 2**39 and values.min() < -(2**39)
    assert abs(values.mean()) < 2**40 * 0.05


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3)], ids=str)
def test_valueHasTheRequestedShape(tf: Ops, session: Session, shape: tuple[int, ...]) -> None:
    values = fetch(session, tf.random.randomUniformInt(np.array(shape, np.int32), 0, 4))
    assert values.shape == shape
    assert values.dtype == np.int32


def test_shapeAndBoundsFedAtRunTime(tf: Ops, session: Session) -> None:
    shape = tf.placeholder(TInt32)
    low = tf.placeholder(TInt64, Placeholder.shape(Shape.scalar()))
    high = tf.placeholder(TInt64, Placeholder.shape(Shape.scalar()))
    r = tf.random.randomUniformInt(shape, low, high, RandomUniformInt.seed(4))
    for dims, lo, hi in [([3, 4], 0, 2), ([100], -3, 0), ([], 10, 11)]:
        values = (session.runner().feed(shape, np.array(dims, np.int32))
                  .feed(low, np.int64(lo)).feed(high, np.int64(hi)).fetch(r).run()[0])
        assert values.shape == tuple(dims)
        assert values.dtype == np.int64
        assert np.all((values >= lo) & (values < hi))


# -- seeds ---------------------------------------------------------------------------------
def test_seededOpGivesTheSameSequenceInTwoSessions() -> None:
    graph, r = build(seed=7)
    with Session(graph) as first, Session(graph) as second:
        a = [fetch(first, r) for _ in range(3)]
        b = [fetch(second, r) for _ in range(3)]
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    graph.close()


def test_twoGraphsBuiltTheSameWayGiveTheSameValues() -> None:
    g1, r1 = build(seed=3, seed2=8)
    g2, r2 = build(seed=3, seed2=8)
    with Session(g1) as s1, Session(g2) as s2:
        np.testing.assert_array_equal(fetch(s1, r1), fetch(s2, r2))
    g1.close()
    g2.close()


def test_successiveRunsGiveDifferentValues() -> None:
    graph, r = build(seed=7)
    with Session(graph) as session:
        assert not np.array_equal(fetch(session, r), fetch(session, r))
    graph.close()


def test_differentSeedsGiveDifferentValues() -> None:
    g1, r1 = build(seed=7)
    g2, r2 = build(seed=8)
    with Session(g1) as s1, Session(g2) as s2:
        assert not np.array_equal(fetch(s1, r1), fetch(s2, r2))
    g1.close()
    g2.close()


def test_withoutSeedsTwoSessionsGiveDifferentValues() -> None:
    graph, r = build(seed=0, seed2=0)
    with Session(graph) as first, Session(graph) as second:
        assert not np.array_equal(fetch(first, r), fetch(second, r))
    graph.close()


# -- errors --------------------------------------------------------------------------------
@pytest.mark.parametrize(("low", "high"), [(5, 5), (6, 5), (0, -1)], ids=str)
def test_constantMinvalNotBelowMaxvalRaisesValueError(
    tf: Ops, graph: Graph, low: int, high: int
) -> None:
    with pytest.raises(ValueError, match="RandomUniformInt 'RandomUniformInt'") as info:
        tf.random.randomUniformInt([3], low, high)
    assert "minval" in str(info.value)
    assert re.search(f"created at {HERE}:", str(info.value))
    assert list(graph.operations()) == []


@pytest.mark.parametrize(("low", "high"), [(5, 5), (6, 5)], ids=str)
def test_fedMinvalNotBelowMaxvalRaisesInvalidArgumentError(
    tf: Ops, session: Session, low: int, high: int
) -> None:
    lo = tf.placeholder(TInt32, Placeholder.shape(Shape.scalar()))
    hi = tf.placeholder(TInt32, Placeholder.shape(Shape.scalar()))
    r = tf.withName("dice").random.randomUniformInt([3], lo, hi)
    with pytest.raises(InvalidArgumentError, match="minval") as info:
        session.runner().feed(lo, np.int32(low)).feed(hi, np.int32(high)).fetch(r).run()
    assert info.value.op is not None and info.value.op.name() == "dice"


@pytest.mark.parametrize("which", ["minval", "maxval"])
def test_nonScalarConstantBoundRaisesValueError(tf: Ops, graph: Graph, which: str) -> None:
    low: Any = [0, 0] if which == "minval" else 0
    high: Any = [5, 5] if which == "maxval" else 5
    with pytest.raises(ValueError, match=f"RandomUniformInt.*{which}"):
        tf.random.randomUniformInt([2], low, high)
    assert list(graph.operations()) == []


@pytest.mark.parametrize("fed", [(1,), (3,)], ids=str)
def test_nonScalarFedBoundRaisesInvalidArgumentError(
    tf: Ops, session: Session, fed: tuple[int, ...]
) -> None:
    low = tf.placeholder(TInt32)
    r = tf.random.randomUniformInt([2], low, 5)
    with pytest.raises(InvalidArgumentError):
        session.runner().feed(low, np.zeros(fed, np.int32)).fetch(r).run()


def test_boundsOfDifferentTypesRaiseTypeError(tf: Ops, graph: Graph) -> None:
    with pytest.raises(TypeError, match="RandomUniformInt"):
        tf.random.randomUniformInt([2], np.int32(0), np.int64(5))
    assert list(graph.operations()) == []


@pytest.mark.parametrize(
    ("low", "high"),
    [(0.0, 5.0), (np.uint8(0), np.uint8(5)), (np.float32(0), np.float32(1)), (False, True)],
    ids=["python floats", "uint8", "float32", "bool"],
)
def test_boundsOfANonIndexTypeRaiseTypeError(
    tf: Ops, graph: Graph, low: Any, high: Any
) -> None:
    with pytest.raises(TypeError, match="RandomUniformInt"):
        tf.random.randomUniformInt([2], low, high)
    assert list(graph.operations()) == []


def test_placeholderBoundsOfANonIndexTypeRaiseTypeError(tf: Ops, graph: Graph) -> None:
    low, high = tf.placeholder(TUint8), tf.placeholder(TUint8)
    before = list(graph.operations())
    with pytest.raises(TypeError, match="RandomUniformInt") as info:
        tf.random.randomUniformInt([2], low, high)
    assert "uint8" in str(info.value)
    assert list(graph.operations()) == before


def test_nonIntegerShapeRaisesTypeError(tf: Ops, graph: Graph) -> None:
    with pytest.raises(TypeError, match="RandomUniformInt"):
        tf.random.randomUniformInt(np.array([2.0]), 0, 5)
    assert list(graph.operations()) == []


def test_negativeConstantDimensionRaisesValueError(tf: Ops, graph: Graph) -> None:
    with pytest.raises(ValueError, match="RandomUniformInt"):
        tf.random.randomUniformInt([-3], 0, 5)
    assert list(graph.operations()) == []


def test_negativeFedDimensionRaisesInvalidArgumentError(tf: Ops, session: Session) -> None:
    shape = tf.placeholder(TInt32)
    r = tf.random.randomUniformInt(shape, 0, 5)
    with pytest.raises(InvalidArgumentError, match="negative"):
        session.runner().feed(shape, np.array([-1], np.int32)).fetch(r).run()


# -- gradient ------------------------------------------------------------------------------
def test_isRegisteredNotDifferentiable() -> None:
    assert lookupGradient("RandomUniformInt") == (True, None)


def test_integerOutputPassesNoGradient(tf: Ops) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(3)))
    r = tf.random.randomUniformInt([3], 0, 5)
    y = tf.math.mul(x, tf.dtypes.cast(r, TFloat32))
    assert tf.gradients(y, [r]).dy(0) is None


def test_boolShapeRaisesTypeError(tf: Ops, graph: Graph) -> None:
    with pytest.raises(TypeError, match="RandomUniformInt"):
        tf.random.randomUniformInt(np.array([True]), 0, 5)
    assert list(graph.operations()) == []
