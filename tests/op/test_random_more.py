"""RandomShuffle and Multinomial (seeded by seed/seed2 as the other random ops: repeatable,
the right distribution), and the stateless ops against TensorFlow's numbers
(tests/fixtures/tf/make_random_more.py): uniform values bit for bit, normal values bit for bit
but for the last bit of the few whose logarithm, sine or cosine the C library rounds the other
way (a unit or two in the last place; see the ops' docs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import assertRejected, placeholder

from tfops import Graph, Ops, Session, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.random import Multinomial
from tfops.types import TFloat16, TFloat32, TFloat64, TInt32, TInt64

HERE = f"created at {__file__}:"
FIXTURES = np.load(Path(__file__).parent.parent / "fixtures" / "tf" / "random_more.npz")
CASES = sorted({int(k.split("/")[0]) for k in FIXTURES.files})
TYPES = {"float16": TFloat16, "float32": TFloat32, "float64": TFloat64}
LAST_BIT_SHARE = {"float16": 0.01, "float32": 0.03, "float64": 0.005}
"""The largest share of normal values that may differ from TensorFlow's in the last place."""


def inNewSession(y: Any, backend: str) -> Any:
    """``y`` computed in a session of its own (a seeded op starts its sequence again)."""
    with Session(y.op().graph(), backend=backend) as session:
        return np.asarray(session.runner().fetch(y).run()[0])


def caseId(case: int) -> str:
    return (f"{case}-{FIXTURES[f'{case}/op']}-{FIXTURES[f'{case}/out'].dtype}-"
            f"{FIXTURES[f'{case}/seed'].tolist()}")


def stateless(tf: Ops, case: int, seed: Any = None) -> Any:
    op = str(FIXTURES[f"{case}/op"])
    method = getattr(tf.random, op[0].lower() + op[1:])
    dtype = TYPES[FIXTURES[f"{case}/out"].dtype.name]
    given = tf.constant(FIXTURES[f"{case}/seed"]) if seed is None else seed
    return method(tf.constant(FIXTURES[f"{case}/shape"]), given, dtype=dtype)


def assertMatchesTensorFlow(got: Any, case: int) -> None:
    expected = FIXTURES[f"{case}/out"]
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if str(FIXTURES[f"{case}/op"]) == "StatelessRandomUniform":
        np.testing.assert_array_equal(got, expected)
        return
    assert np.all(np.sign(got) == np.sign(expected))
    ints = {2: np.int16, 4: np.int32, 8: np.int64}[expected.dtype.itemsize]
    ulps = np.abs(got.view(ints).astype(np.int64) - expected.view(ints).astype(np.int64))
    assert ulps.max(initial=0) <= 2, "more than two units in the last place off"
    differing = np.count_nonzero(got != expected)
    assert differing <= LAST_BIT_SHARE[expected.dtype.name] * max(expected.size, 100)


@pytest.mark.parametrize("case", CASES, ids=caseId)
def test_statelessMatchesTensorFlow(tf: Ops, run: Any, case: int) -> None:
    y = stateless(tf, case)
    assert y.asOutput().shape() == Shape.of(*FIXTURES[f"{case}/out"].shape)
    assertMatchesTensorFlow(run(y), case)


@pytest.mark.parametrize("case", CASES[::5], ids=caseId)
def test_statelessSeedFedAtRunTime(tf: Ops, run: Any, case: int) -> None:
    seed = tf.placeholder(TInt64 if FIXTURES[f"{case}/seed"].dtype == np.int64 else TInt32)
    y = stateless(tf, case, seed)
    assertMatchesTensorFlow(run(y, feeds={seed: FIXTURES[f"{case}/seed"]}), case)


def test_statelessDefaultsAndRepeatability(tf: Ops, run: Any, backend: str) -> None:
    u = tf.random.statelessRandomUniform([2, 3], np.array([5, 6], np.int64))
    assert u.asOutput().dataType() is TFloat32 and u.op().attr("Tseed") is TInt64
    first = run(u)
    np.testing.assert_array_equal(first, run(u))
    np.testing.assert_array_equal(first, inNewSession(u, backend))
    assert ((0 <= first) & (first < 1)).all()


@pytest.mark.parametrize(
    ("make", "error", "fragment"),
    [(lambda tf: tf.random.statelessRandomNormal([2], np.array([1, 2, 3], np.int64)),
      ValueError, "seed must have shape [2], got [3]"),
     (lambda tf: tf.random.statelessRandomUniform([[2]], np.array([1, 2], np.int64)),
      ValueError, "shape must be a vector"),
     (lambda tf: tf.random.statelessTruncatedNormal([-1], np.array([1, 2], np.int64)),
      ValueError, "shape [-1] has a negative dimension"),
     (lambda tf: tf.random.statelessRandomUniform([2], np.array([1.0, 2.0])), TypeError,
      "float64 is not allowed for 'Tseed'")],
    ids=["seedLength", "matrixShape", "negativeShape", "floatSeed"],
)
def test_statelessBadArgumentsAreRejected(graph: Graph, tf: Ops, make: Any,
                                          error: type[Exception], fragment: str) -> None:
    assertRejected(graph, lambda: make(tf), error, HERE, fragment)


def test_statelessBadShapeAtRunTime(tf: Ops, run: Any) -> None:
    shape = tf.placeholder(TInt32)
    y = tf.random.statelessRandomNormal(shape, np.array([1, 2], np.int64))
    assert y.asOutput().shape() == Shape.unknown()
    with pytest.raises(InvalidArgumentError) as info:
        run(y, feeds={shape: np.array([2, -3], np.int32)})
    assert info.value.op == y.op() and "shape [2, -3] has a negative dimension" in str(info.value)


# -- RandomShuffle ---------------------------------------------------------------------------
def test_shuffleIsARepeatablePermutationOfRows(tf: Ops, run: Any, backend: str) -> None:
    value = np.arange(40).reshape(20, 2)
    s = tf.random.randomShuffle(tf.constant(value), seed=4, seed2=1)
    assert s.asOutput().shape() == Shape.of(20, 2)
    first, again = run(s), inNewSession(s, backend)
    assert sorted(first[:, 0].tolist()) == list(range(0, 40, 2))
    assert (first[:, 1] == first[:, 0] + 1).all()  # rows move whole
    assert first[:, 0].tolist() != list(range(0, 40, 2))
    np.testing.assert_array_equal(first, again)  # a new session repeats the sequence


def test_shuffleOrdersAreEquallyLikely(tf: Ops, backend: str) -> None:
    s = tf.random.randomShuffle(tf.constant([0, 1, 2]), seed=9)
    with Session(s.op().graph(), backend=backend) as session:
        orders = [tuple(np.asarray(session.runner().fetch(s).run()[0]).tolist())
                  for _ in range(600)]
    counts = [orders.count(o) for o in set(orders)]
    assert len(counts) == 6 and min(counts) > 60  # 100 expected each


@pytest.mark.parametrize("value", [np.float32(3.0), np.zeros((0, 2)), np.array([[1, 2]])],
                         ids=["scalar", "empty", "oneRow"])
def test_shuffleOfNothingToShuffleIsTheValue(tf: Ops, run: Any, value: Any) -> None:
    got = run(tf.random.randomShuffle(tf.constant(value)))
    np.testing.assert_array_equal(got, value)


# -- Multinomial -----------------------------------------------------------------------------
def test_multinomialDrawsFromTheSoftmax(tf: Ops, run: Any, backend: str) -> None:
    p = np.array([[0.1, 0.6, 0.3], [0.5, 0.0, 0.5]])
    logits = tf.constant(np.log(np.where(p > 0, p, 1.0)).astype(np.float32)
                         + np.where(p > 0, 0, -np.inf).astype(np.float32))
    m = tf.random.multinomial(logits, 6000, TInt64, seed=11)
    assert m.asOutput().shape() == Shape.of(2, 6000) and m.asOutput().dataType() is TInt64
    got = run(m)
    for row in range(2):
        share = np.bincount(got[row], minlength=3) / 6000
        np.testing.assert_allclose(share, p[row], atol=0.03)
    assert not (got[1] == 1).any()  # a -inf logit is never drawn
    np.testing.assert_array_equal(got, inNewSession(m, backend))


def test_multinomialOptionsAndFedCount(tf: Ops, run: Any) -> None:
    count = tf.placeholder(TInt32)
    m = tf.random.multinomial(tf.constant([[0.0, 0.0]]), count, TInt32, Multinomial.seed2(3))
    assert m.asOutput().shape() == Shape.of(1, -1)
    got = run(m, feeds={count: np.array(5, np.int32)})
    assert got.dtype == np.int32 and got.shape == (1, 5) and set(got.ravel()) <= {0, 1}
    assert run(tf.random.multinomial(tf.constant([[0.0, 1.0]]), 0, TInt64)).shape == (1, 0)


@pytest.mark.parametrize(
    ("logits", "count", "fragment"),
    [([0.0, 1.0], 2, "logits must be a matrix [batch, classes], got shape [2]"),
     (np.zeros((2, 0), np.float32), 2, "logits must have at least one class"),
     ([[0.0, 1.0]], -1, "num_samples must not be negative, got -1"),
     ([[0.0, 1.0]], [2], "num_samples must be a scalar")],
    ids=["vector", "noClass", "negativeCount", "vectorCount"],
)
def test_multinomialBadArgumentsAreRejected(graph: Graph, tf: Ops, logits: Any, count: Any,
                                            fragment: str) -> None:
    assertRejected(graph, lambda: tf.random.multinomial(logits, count, TInt64), ValueError,
                   f"Multinomial 'Multinomial' ({HERE}", fragment)


def test_multinomialBadLogitsAtRunTime(tf: Ops, run: Any) -> None:
    logits = placeholder(tf, TFloat32)
    m = tf.random.multinomial(logits, 3, TInt32)
    with pytest.raises(InvalidArgumentError) as info:
        run(m, feeds={logits: np.zeros(3, np.float32)})
    assert "logits must be a matrix [batch, classes], got shape [3]" in str(info.value)
