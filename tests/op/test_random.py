"""Specification of the random ops, one row per op: RandomUniform, RandomStandardNormal,
TruncatedNormal and RandomUniformInt (here drawing from [0, 6)).

A row gives the facade call, the data types it takes (every other one is rejected) and the
distribution its values must follow: their support, mean, standard deviation, kurtosis and the
probability of a few intervals. Seeded (``seed`` or ``seed2`` non-zero) the numbers are
reproducible: the same graph in two sessions, and two graphs built the same way, give the same
sequence; successive runs of the op continue that sequence. Without seeds every session draws
different numbers. None passes a gradient. RandomUniformInt's bounds are its own
(``test_random_uniform_int.py``); names, ``OP_NAME``, foreign operands, closed graphs and
docstrings are checked for every op by ``tests/test_every_op.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from opchecks import ALL, FLOATS, assertRejected, placeholder

from tfops import Graph, Ops, Session, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.random import RandomStandardNormal, RandomUniform, RandomUniformInt, TruncatedNormal
from tfops.types import TFloat32, TFloat64, TInt32, TInt64, TType

Array = np.ndarray[Any, Any]
CREATED = f"created at {__file__}:"
SAMPLES = 200_000


@dataclass(frozen=True)
class Sampler:
    op: type[Any]  # the op class; its OP_NAME names the row
    call: Callable[..., Any]  # call(tf, shape, dtype, *options, **keywords)
    dtypes: tuple[type[TType], ...]  # the output data types taken; every other one is rejected
    support: tuple[float, float, bool]  # every value in [low, high], high excluded when True
    extremes: tuple[float, float]  # of SAMPLES values, some are below the first, some above
    mean: float
    std: float
    kurtosis: float  # E[(x - mean)^4] / std^4
    tolerance: float  # of the mean and the standard deviation
    mass: tuple[tuple[float, float, float], ...]  # P(low <= x < high) = p, within 0.005

    def __str__(self) -> str:
        return str(self.op.OP_NAME)


def uniformInt(tf: Ops, shape: Any, dtype: type[TType], *options: Any, **keywords: Any) -> Any:
    low, high = np.array(0, dtype.DTYPE), np.array(6, dtype.DTYPE)
    return tf.random.randomUniformInt(shape, low, high, *options, **keywords)


SAMPLERS = [
    Sampler(RandomUniform, lambda tf, *a, **k: tf.random.randomUniform(*a, **k), FLOATS,
            support=(0.0, 1.0, True), extremes=(0.001, 0.999), mean=0.5, std=0.288675,
            kurtosis=1.8, tolerance=0.003,
            mass=((0.0, 0.1, 0.1), (0.4, 0.5, 0.1), (0.9, 1.0, 0.1), (0.0, 0.5, 0.5))),
    Sampler(RandomStandardNormal, lambda tf, *a, **k: tf.random.randomStandardNormal(*a, **k),
            FLOATS, support=(-np.inf, np.inf, False), extremes=(-3.5, 3.5), mean=0.0, std=1.0,
            kurtosis=3.0, tolerance=0.01,
            mass=((-1.0, 1.0, 0.6827), (-2.0, 2.0, 0.9545), (-np.inf, 0.0, 0.5))),
    Sampler(TruncatedNormal, lambda tf, *a, **k: tf.random.truncatedNormal(*a, **k), FLOATS,
            support=(-2.0, 2.0, False), extremes=(-1.99, 1.99), mean=0.0, std=0.879626,
            kurtosis=2.3655, tolerance=0.01,
            mass=((-1.0, 1.0, 0.7153), (-0.5, 0.5, 0.4012), (-np.inf, 0.0, 0.5))),
    Sampler(RandomUniformInt, uniformInt, (TInt32, TInt64),
            support=(0, 6, True), extremes=(0.5, 4.5), mean=2.5, std=1.707825,
            kurtosis=1.7314, tolerance=0.01, mass=tuple((k, k + 1, 1 / 6) for k in range(6))),
]
ids = str


def typeIds(v: object) -> str:
    return str(getattr(v, "NAME", v))


def fetch(session: Session, operand: Any, feeds: dict[Any, Any] | None = None) -> Array:
    runner = session.runner()
    for k, v in (feeds or {}).items():
        runner.feed(k, v)
    return np.asarray(runner.fetch(operand).run()[0])


def assertDiffer(a: Array, b: Array) -> None:
    """float64 values differ everywhere; integers from [0, 6) somewhere."""
    if a.dtype.kind == "f":
        assert not np.any(a == b)
    else:
        assert not np.array_equal(a, b)


def build(row: Sampler, seed: int, seed2: int) -> tuple[Graph, Any]:
    graph = Graph()
    tf = Ops.create(graph)
    tf.constant(0.0)  # something before it, as in a real model
    r = row.call(tf, np.array([40], np.int32), row.dtypes[-1], row.op.seed(seed),
                 row.op.seed2(seed2))
    return graph, r


# -- construction -----------------------------------------------------------------------------
@pytest.mark.parametrize("row", SAMPLERS, ids=ids)
def test_createTakesTheShapeAndSeeds(tf: Ops, row: Sampler) -> None:
    shape = tf.constant([2, 3])
    r = row.call(tf, shape, row.dtypes[0])
    assert isinstance(r, row.op)
    assert r.op().input(0) == shape.asOutput()
    assert r.output() == r.asOutput() == r.op().output(0)
    assert (r.op().attr("seed"), r.op().attr("seed2"), r.op().attr("T")) == (0, 0, TInt32)
    seeded = row.call(tf, shape, row.dtypes[0], row.op.seed(7), row.op.seed2(3))
    assert (seeded.op().attr("seed"), seeded.op().attr("seed2")) == (7, 3)
    keywords = row.call(tf, shape, row.dtypes[0], seed=4, seed2=2)
    assert (keywords.op().attr("seed"), keywords.op().attr("seed2")) == (4, 2)


@pytest.mark.parametrize(("row", "dtype"), [(r, t) for r in SAMPLERS for t in r.dtypes],
                         ids=typeIds)
def test_outputHasTheRequestedDataType(tf: Ops, row: Sampler, dtype: type[TType]) -> None:
    assert row.call(tf, tf.constant([2]), dtype).asOutput().dataType() is dtype


@pytest.mark.parametrize(
    ("row", "dtype"), [(r, t) for r in SAMPLERS for t in ALL if t not in r.dtypes], ids=typeIds
)
def test_rejectsOtherDataTypes(graph: Graph, tf: Ops, row: Sampler, dtype: type[TType]) -> None:
    shape = tf.constant([2])
    assertRejected(graph, lambda: row.call(tf, shape, dtype), TypeError, f"{row} '{row}'",
                   CREATED, f"data type {dtype.NAME} is not allowed")


@pytest.mark.parametrize("shapeType", [TInt32, TInt64], ids=typeIds)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (2, 0, 4)], ids=str)
@pytest.mark.parametrize("row", SAMPLERS, ids=ids)
def test_valueHasTheRequestedShape(
    tf: Ops, session: Session, row: Sampler, shapeType: type[TType], shape: tuple[int, ...]
) -> None:
    r = row.call(tf, np.array(shape, shapeType.DTYPE), row.dtypes[0])
    assert r.op().attr("T") is shapeType
    assert r.asOutput().shape() == Shape.of(*shape)
    values = fetch(session, r)
    assert values.shape == shape
    assert values.dtype == row.dtypes[0].DTYPE


@pytest.mark.parametrize("row", SAMPLERS, ids=ids)
def test_shapeKnownAtRunTime(tf: Ops, graph: Graph, row: Sampler, backend: str) -> None:
    fed = tf.placeholder(TInt64)
    ofKnownLength = placeholder(tf, TInt32, (3,))
    x = placeholder(tf, TFloat32, (-1, 4))
    r = row.call(tf, fed, row.dtypes[0], row.op.seed(5))
    assert r.asOutput().shape() == Shape.unknown()
    assert row.call(tf, ofKnownLength, row.dtypes[0]).asOutput().shape() == Shape.of(-1, -1, -1)
    ofTensor = row.call(tf, tf.shape(x), row.dtypes[0])
    assert ofTensor.asOutput().shape() == Shape.of(-1, 4)
    with Session(graph, backend=backend) as first, Session(graph, backend=backend) as second:
        for dims in ([2, 5], [3], [], [1, 0, 2]):
            values = fetch(first, r, {fed: np.array(dims, np.int64)})
            assert values.shape == tuple(dims)
            again = fetch(second, r, {fed: np.array(dims, np.int64)})
            np.testing.assert_array_equal(values, again)
        assert fetch(first, ofTensor, {x: np.zeros((3, 4), np.float32)}).shape == (3, 4)


# -- values -----------------------------------------------------------------------------------
@pytest.mark.parametrize(("row", "dtype"), [(r, t) for r in SAMPLERS for t in r.dtypes],
                         ids=typeIds)
def test_valuesFollowTheDistribution(
    tf: Ops, session: Session, row: Sampler, dtype: type[TType]
) -> None:
    values = fetch(session, row.call(tf, [SAMPLES], dtype, row.op.seed(2)))
    assert values.dtype == dtype.DTYPE
    x = values.astype(np.float64)
    low, high, excluded = row.support
    assert np.all((low <= x) & ((x < high) if excluded else (x <= high)))
    assert x.min() < row.extremes[0] and x.max() > row.extremes[1]
    assert abs(x.mean() - row.mean) < row.tolerance
    assert abs(x.std() - row.std) < row.tolerance
    assert abs(np.mean(((x - row.mean) / row.std) ** 3)) < 0.03  # symmetric
    assert abs(np.mean(((x - row.mean) / row.std) ** 4) - row.kurtosis) < 0.06
    for a, b, p in row.mass:
        assert abs(np.mean((a <= x) & (x < b)) - p) < 0.005, (a, b)
    assert abs(np.corrcoef(x[:-1], x[1:])[0, 1]) < 0.01  # successive values are independent
    if dtype is TFloat64:
        assert len(np.unique(x)) == SAMPLES


@pytest.mark.parametrize("row", SAMPLERS, ids=ids)
def test_oneRunDrawsOnceForAllConsumers(tf: Ops, session: Session, row: Sampler) -> None:
    r = row.call(tf, [5], row.dtypes[-1])
    doubled = tf.math.add(r, r)
    first, second, total = session.runner().fetch(r).fetch(r).fetch(doubled).run()
    np.testing.assert_array_equal(first, second)
    np.testing.assert_array_equal(total, 2 * first)


# -- seeds ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("seed", "seed2"), [(7, 0), (11, 4), (0, 9)], ids=str)
@pytest.mark.parametrize("row", SAMPLERS, ids=ids)
def test_seededOpGivesTheSameSequenceInEverySession(
    row: Sampler, seed: int, seed2: int, backend: str
) -> None:
    g1, r1 = build(row, seed, seed2)
    g2, r2 = build(row, seed, seed2)
    with (g1, g2, Session(g1, backend=backend) as s1, Session(g1, backend=backend) as again,
          Session(g2, backend=backend) as s2):
        first = [fetch(s1, r1) for _ in range(3)]
        for values, other, built in zip(first, [fetch(again, r1) for _ in range(3)],
                                        [fetch(s2, r2) for _ in range(3)], strict=True):
            np.testing.assert_array_equal(values, other)
            np.testing.assert_array_equal(values, built)
        assertDiffer(first[0], first[1])


@pytest.mark.parametrize(("seed", "seed2"), [(8, 0), (7, 1), (0, 7), (0, 0)], ids=str)
@pytest.mark.parametrize("row", SAMPLERS, ids=ids)
def test_otherSeedsGiveOtherValues(row: Sampler, seed: int, seed2: int, backend: str) -> None:
    g1, r1 = build(row, 7, 0)
    g2, r2 = build(row, seed, seed2)
    with g1, g2, Session(g1, backend=backend) as s1, Session(g2, backend=backend) as s2:
        assertDiffer(fetch(s1, r1), fetch(s2, r2))


@pytest.mark.parametrize("row", SAMPLERS, ids=ids)
def test_withoutSeedsEverySessionAndRunDiffers(row: Sampler, backend: str) -> None:
    graph, r = build(row, 0, 0)
    with graph, Session(graph, backend=backend) as first, Session(graph, backend=backend) as second:
        a = fetch(first, r)
        assertDiffer(a, fetch(second, r))
        assertDiffer(a, fetch(first, r))


@pytest.mark.parametrize("row", SAMPLERS, ids=ids)
def test_twoOpsWithTheSameSeedsGiveTheSameValues(tf: Ops, session: Session, row: Sampler) -> None:
    a = row.call(tf, [6], row.dtypes[0], row.op.seed(3))
    b = row.call(tf, [6], row.dtypes[0], seed=3)
    first, second = session.runner().fetch(a).fetch(b).run()
    np.testing.assert_array_equal(first, second)


# -- bad shapes -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("shape", "error", "fragment"),
    [
        pytest.param(np.array([2.0]), TypeError, "data type float64 is not allowed for 'T'",
                     id="float64 shape"),
        pytest.param(np.array([True]), TypeError, "data type bool is not allowed for 'T'",
                     id="bool shape"),
        pytest.param([2, -1], ValueError, "shape [2, -1] has a negative dimension",
                     id="negative dimension"),
        pytest.param([[2, 3]], ValueError, "shape must be a vector, got a tensor of shape [1, 2]",
                     id="matrix shape"),
    ],
)
@pytest.mark.parametrize("row", SAMPLERS, ids=ids)
def test_rejectsBadShapes(
    graph: Graph, tf: Ops, row: Sampler, shape: Any, error: type[Exception], fragment: str
) -> None:
    assertRejected(graph, lambda: row.call(tf, shape, row.dtypes[0]), error, f"{row} '{row}'",
                   CREATED, fragment)


@pytest.mark.parametrize("row", SAMPLERS, ids=ids)
def test_rejectsANegativeDimensionAtRunTime(tf: Ops, session: Session, row: Sampler) -> None:
    shape = tf.placeholder(TInt32)
    r = row.call(tf.withName("noise"), shape, row.dtypes[0])
    with pytest.raises(InvalidArgumentError, match=r"shape \[3, -2\] has a negative") as info:
        fetch(session, r, {shape: np.array([3, -2], np.int32)})
    assert info.value.op == r.op()
    assert "'noise'" in str(info.value) and CREATED in str(info.value)


# -- gradient ---------------------------------------------------------------------------------
@pytest.mark.parametrize("row", SAMPLERS, ids=ids)
def test_passesNoGradient(tf: Ops, session: Session, row: Sampler) -> None:
    """The values are constants to the gradient; the shape gets none."""
    assert lookupGradient(str(row)) == (True, None)
    x = placeholder(tf, TFloat32, (4,))
    shape = placeholder(tf, TInt32, (1,))
    r = row.call(tf, shape, row.dtypes[0], row.op.seed(6))
    dx = tf.gradients(tf.sum(tf.math.mul(tf.dtypes.cast(r, TFloat32), x), 0), [x]).dy(0)
    assert dx is not None
    assert tf.gradients(r, [shape]).dy(0) is None
    feeds = {x: np.ones(4, np.float32), shape: np.array([4], np.int32)}
    values, gradient = session.runner().feed(x, feeds[x]).feed(shape, feeds[shape]).fetch(
        r).fetch(dx).run()
    np.testing.assert_array_equal(gradient, values.astype(np.float32))
