"""The soak test: 8 threads, for 10 minutes, mixed building, running, gradients and variable
updates; no error, and the process's resident memory flat once warmed up.

Not in the default run (``@pytest.mark.slow``): ``python -m pytest -m slow -s tests/test_soak.py``
runs it; ``TFOPS_SOAK_SECONDS`` sets how long (600 by default), ``TFOPS_TEST_BACKEND`` the backend.
The summary line (``soak: ...``) gives the RSS after warm-up, at the end and at its highest.

Each thread, in turn:

- builds a small model in a new graph (a logistic regression), derives its gradients, trains it
  a few steps with ``ApplyGradientDescent`` in a new session, checks that the loss went down and
  the gradients match their closed form, then closes both;
- runs a request of one shared session (one of a few row counts) and checks its values;
- adds to a shared variable (``AssignAdd``), counting how often: no update may be lost;
- tries constructions in the shared graph that must fail (shape and type errors, a value out
  of range, an operand that is not one): the shared graph never grows.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Session
from tfops.errors import TfopsError
from tfops.types import TFloat64, TInt32

THREADS = 8
SECONDS = float(os.environ.get("TFOPS_SOAK_SECONDS", "600"))
WARM_UP = 0.25  # the share of the run that warms up (caches, allocator arenas)
ROWS = (1, 2, 3, 5, 8, 16, 32, 64)  # the row counts the shared request is fed

Array = np.ndarray[Any, Any]


def _rss() -> int:
    """The process's resident set size in bytes (Linux)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class _Impostor:
    def asOutput(self) -> object:
        return 5


def _train(rng: np.random.Generator, backend: str) -> None:
    """A logistic regression in a graph of its own: gradients, a few descent steps."""
    x = rng.uniform(-1.0, 1.0, size=(32, 3))
    labels = (x @ np.array([1.0, -2.0, 0.5]) > 0.1).astype(np.float64).reshape(32, 1)
    with Graph() as graph:
        tf = Ops.create(graph)
        w = tf.withName("w").variable(tf.constant(np.zeros((3, 1))))
        b = tf.withName("b").variable(tf.constant(np.zeros(1)))
        features, y = tf.placeholder(TFloat64), tf.constant(labels)
        p = tf.math.sigmoid(tf.math.add(tf.linalg.matMul(features, w), b))
        one = tf.constant(np.float64(1.0))
        loss = tf.math.neg(tf.math.mean(tf.math.add(
            tf.math.mul(y, tf.math.log(p)),
            tf.math.mul(tf.math.sub(one, y), tf.math.log(tf.math.sub(one, p))),
        ), [0, 1]))
        dw, db = tf.gradients(loss, [w, b])
        assert dw is not None and db is not None
        step = tf.withControlDependencies([
            tf.train.applyGradientDescent(w, np.float64(0.5), dw),
            tf.train.applyGradientDescent(b, np.float64(0.5), db),
        ]).noOp()
        with Session(graph, backend=backend) as session:
            session.initialize()
            first, grad, prob = session.runner().feed(features, x).fetch(loss).fetch(dw).fetch(
                p).run()
            expected = x.T @ (prob - labels) / len(x)  # d(mean cross-entropy)/dw
            np.testing.assert_allclose(grad, expected, rtol=1e-9, atol=1e-12)
            for _ in range(5):
                session.runner().feed(features, x).addTarget(step).run()
            last = session.runner().feed(features, x).fetch(loss).run()[0]
            assert last < first, (first, last)


class Shared:
    """One graph and one session all threads use: a request, a counter, failing builds."""

    def __init__(self, backend: str) -> None:
        self.graph = Graph()
        self.tf = tf = Ops.create(self.graph)
        self.weights = np.linspace(-1.0, 1.0, 12).reshape(4, 3)
        self.x = tf.withName("x").placeholder(TFloat64)
        self.y = tf.nn.softmax(tf.math.tanh(tf.linalg.matMul(self.x, tf.constant(self.weights))))
        self.counter = tf.withName("counter").variable(tf.constant(np.float64(0.0)))
        self.add = tf.assignAdd(self.counter, np.float64(1.0))
        self.session = Session(self.graph, backend=backend)
        self.session.initialize()
        self.size = self.graph.size()
        self.adds = [0] * THREADS

    def run(self, rng: np.random.Generator) -> None:
        x = rng.standard_normal((ROWS[rng.integers(len(ROWS))], 4))
        got = self.session.runner().feed(self.x, x).fetch(self.y).run()[0]
        z = np.exp(np.tanh(x @ self.weights))
        np.testing.assert_allclose(got, z / z.sum(axis=1, keepdims=True), rtol=1e-12)

    def update(self, thread: int) -> None:
        self.session.run(self.add)
        self.adds[thread] += 1

    def fail(self, rng: np.random.Generator) -> None:
        tf = self.tf
        attempts: list[Callable[[], object]] = [
            lambda: tf.linalg.matMul(np.ones((2, 3)), np.ones((2, 3))),
            lambda: tf.math.add(np.ones(3), np.ones(2)),
            lambda: tf.constant(2**40, TInt32),
            lambda: tf.math.neg(_Impostor()),  # type: ignore[arg-type]
            lambda: tf.math.exp(np.array([1, 2], np.int32)),
            lambda: tf.math.add(np.array([1], np.int8), 1),
        ]
        with pytest.raises(TfopsError):
            attempts[rng.integers(len(attempts))]()

    def close(self) -> None:
        self.session.close()
        self.graph.close()


@pytest.mark.slow
def test_soak8ThreadsBuildRunDeriveAndUpdateWithoutErrorOrGrowth(backend: str) -> None:
    shared = Shared(backend)
    deadline = time.monotonic() + SECONDS
    errors: list[BaseException] = []
    iterations = [0] * THREADS

    def work(thread: int) -> None:
        rng = np.random.default_rng(thread)
        try:
            while time.monotonic() < deadline and not errors:
                _train(rng, backend)
                for _ in range(10):
                    shared.run(rng)
                    shared.update(thread)
                shared.fail(rng)
                iterations[thread] += 1
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    start = time.monotonic()
    for t in threads:
        t.start()
    samples: list[tuple[float, int]] = []
    while any(t.is_alive() for t in threads):
        time.sleep(min(1.0, max(SECONDS / 200, 0.05)))
        gc.collect()
        samples.append((time.monotonic() - start, _rss()))
    for t in threads:
        t.join()
    if errors:
        raise errors[0]

    value = shared.session.runner().fetch(shared.counter).run()[0]
    assert value == sum(shared.adds), "an AssignAdd from some thread was lost"
    assert shared.graph.size() == shared.size, "a failed construction left an op behind"
    shared.close()

    warm = [rss for t, rss in samples if t >= WARM_UP * SECONDS]
    assert len(warm) >= 4, "too short a run to tell"
    quarter = max(1, len(warm) // 4)
    early, late = np.median(warm[:quarter]), np.median(warm[-quarter:])
    mib = 2**20
    summary = (
        f"soak: {THREADS} threads x {SECONDS:.0f} s, {sum(iterations)} iterations, "
        f"{sum(shared.adds)} updates; RSS after warm-up {early / mib:.1f} MiB, at the end "
        f"{late / mib:.1f} MiB, highest {max(warm) / mib:.1f} MiB "
        f"(at start {samples[0][1] / mib:.1f} MiB)"
    )
    print(summary, file=sys.stderr)
    assert late - early < max(16 * mib, 0.05 * early), f"RSS grew after warm-up: {summary}"
