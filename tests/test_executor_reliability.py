"""What a run gives back and what it may allocate, on both backends: fetched values never share
memory with what the user fed, constants or variables; no tensor past the session's memory
limit is made, whatever the op; memory a session keeps between runs is bounded and goes with
it."""

from __future__ import annotations

import gc
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Session
from tfops.errors import ResourceExhaustedError
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TUint8

BACKENDS = ["numpy", "xla"]


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


# -- aliasing: a fetched value is the caller's own memory --------------------------------------
@pytest.mark.parametrize("size", [3, 100_000], ids=["small", "large"])
def test_identityOfAFeedIsACopyOfTheFedArray(backend: str, size: int) -> None:
    g = Graph()
    tf = Ops.create(g)
    p = tf.placeholder(TFloat32)
    i = tf.identity(p)
    fed = np.arange(size, dtype=np.float32)
    with Session(g, backend=backend) as s:
        for _ in range(3):  # the first run, and the generated function of later ones
            got = s.runner().feed(p, fed).fetch(i).fetch(p).run()
            for k in range(2):
                assert not np.shares_memory(got.get(k), fed)
                np.testing.assert_array_equal(got.get(k), fed)
    got.get(0)[0] = 42.0  # writing into what was fetched leaves the user's array as it was
    assert fed[0] == 0.0


def test_fetchedConstantsAndVariablesAreCopiesEachRun(backend: str) -> None:
    g = Graph()
    tf = Ops.create(g)
    c = tf.constant(np.ones(4, np.float32))
    v = tf.variable(tf.constant(np.zeros(4, np.float32)))
    with Session(g, backend=backend) as s:
        s.run(tf.init())
        first = s.runner().fetch(c).fetch(v).run()
        second = s.runner().fetch(c).fetch(v).run()
        for k in range(2):
            assert not np.shares_memory(first.get(k), second.get(k))
            assert first.get(k).flags.writeable
        first.get(0)[:] = 7.0
        first.get(1)[:] = 7.0
        again = s.runner().fetch(c).fetch(v).run()
        np.testing.assert_array_equal(again.get(0), np.ones(4, np.float32))
        np.testing.assert_array_equal(again.get(1), np.zeros(4, np.float32))


# -- the memory limit holds for ops whose result shape is known only when they run ------------
LIMIT = 1000


def _cast(tf: Ops) -> tuple[Any, list[Any], list[Any]]:
    p = tf.placeholder(TUint8)  # 600 bytes in, 4,800 out
    return tf.dtypes.cast(p, TFloat64), [p], [np.ones(600, np.uint8)]


def _broadcastAdd(tf: Ops) -> tuple[Any, list[Any], list[Any]]:
    p, q = tf.placeholder(TFloat32), tf.placeholder(TFloat32)  # 80 + 80 bytes in, 1,600 out
    return tf.math.add(p, q), [p, q], [np.ones((20, 1), np.float32), np.ones((1, 20), np.float32)]


def _negOfABigFeed(tf: Ops) -> tuple[Any, list[Any], list[Any]]:
    p = tf.placeholder(TFloat32)
    return tf.math.neg(p), [p], [np.ones(1000, np.float32)]


def _argMaxToInt64(tf: Ops) -> tuple[Any, list[Any], list[Any]]:
    p = tf.placeholder(TFloat16)  # 400 bytes in, 1,600 out
    return tf.math.argMax(p, tf.constant(1)), [p], [np.ones((200, 1), np.float16)]


def _select(tf: Ops) -> tuple[Any, list[Any], list[Any]]:
    c, p = tf.placeholder(TBool), tf.placeholder(TFloat64)
    return tf.select(c, p, p), [c, p], [np.ones((200, 1), bool), np.ones((1, 100))]


def _comparison(tf: Ops) -> tuple[Any, list[Any], list[Any]]:
    p, q = tf.placeholder(TFloat32), tf.placeholder(TFloat32)  # bool result, 40 x 40
    return tf.math.less(p, q), [p, q], [np.ones((40, 1), np.float32), np.ones((1, 40), np.float32)]


@pytest.mark.parametrize(
    "make", [_cast, _broadcastAdd, _negOfABigFeed, _argMaxToInt64, _select, _comparison],
    ids=lambda f: f.__name__.lstrip("_"),
)
def test_aResultPastTheMemoryLimitIsResourceExhaustedNamingTheOp(
    backend: str, make: Callable[[Ops], tuple[Any, list[Any], list[Any]]]
) -> None:
    g = Graph()
    tf = Ops.create(g)
    out, placeholders, values = make(tf)
    with Session(g, backend=backend, memoryLimit=LIMIT) as s:
        for _ in range(3):  # the first run, and the generated function of later ones
            runner = s.runner()
            for p, v in zip(placeholders, values, strict=True):
                runner = runner.feed(p, v)
            with pytest.raises(ResourceExhaustedError) as raised:
                runner.fetch(out).run()
            assert raised.value.op is not None
            assert raised.value.op.name() == out.op().name()
            assert "memory limit" in str(raised.value)


def test_aResultWithinTheMemoryLimitRuns(backend: str) -> None:
    g = Graph()
    tf = Ops.create(g)
    p = tf.placeholder(TUint8)
    out = tf.dtypes.cast(p, TFloat64)
    with Session(g, backend=backend, memoryLimit=LIMIT) as s:
        got = s.runner().feed(p, np.ones(125, np.uint8)).fetch(out).run().get(0)  # 1,000 bytes
    np.testing.assert_array_equal(got, np.ones(125))


# -- memory kept between runs is bounded, and goes with the session ---------------------------
def _traced() -> int:
    gc.collect()
    return tracemalloc.get_traced_memory()[0]


def test_runsOverManyShapesKeepBoundedMemoryFreedWithTheSession() -> None:
    # a large elementwise group keeps scratch buffers per input layout: one set per distinct
    # row width would grow without bound (1,500 widths held 90 MiB)
    def run(session: Session, p: Any, out: Any, widths: range) -> None:
        for w in widths:
            x = np.ones((64, w), np.float32)  # 32,768 elements and up: the fused path
            session.runner().feed(p, x).fetch(out).run()

    tracemalloc.start()
    try:
        before = _traced()
        g = Graph()
        tf = Ops.create(g)
        p = tf.placeholder(TFloat32)
        out = tf.math.mul(tf.math.exp(tf.math.neg(p)), tf.math.add(p, tf.constant(1.0, TFloat32)))
        s = Session(g)
        run(s, p, out, range(512, 552))
        early = _traced()
        run(s, p, out, range(552, 952))
        late = _traced()
        # 400 more widths, each of 130 KiB and up per buffer: at most a few layouts' worth more
        assert late - early < 4 << 20, f"grew by {(late - early) >> 10} KiB over 400 shapes"
        s.close()
        g.close()
        del s, g, tf, p, out
        after = _traced()
        assert after - before < 1 << 20, f"{(after - before) >> 10} KiB kept after closing"
    finally:
        tracemalloc.stop()
