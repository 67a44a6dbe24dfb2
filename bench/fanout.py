"""Gradient construction time when one tensor has N consumers, N = 1,000, 10,000 and 100,000.

``x`` (a float64 placeholder) is read by N ``mul(x, c_i)`` ops whose results are summed by one
``addN``; ``tf.gradients(y, [x])`` must then aggregate N gradients into x's. Done naively
(adding each new gradient to the running sum, or re-summing at each consumer) that is
quadratic in N; TensorFlow (and tfops) aggregate once per tensor, with one ``AddN``. For each N
the forward graph is built in a fresh graph (not timed), then the gradient construction is timed
with ``time.perf_counter`` over several repeats, each on a fresh graph (median), and reported as
microseconds per consumer. Linear means the cost per consumer at 100,000 is at most 1.5 times
that at 1,000 (the issue's target). TensorFlow's ``tf.gradients`` in graph mode is measured the
same way, in a child process, at 1,000 and 10,000 consumers when TensorFlow is installed
(``--no-tf`` leaves it out; 100,000 takes it minutes). The 10,000 gradient is run once and
checked: d/dx sum_i c_i x = sum_i c_i.

Run: ``python bench/fanout.py`` (``--quick``: fewer repeats).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # runnable from a checkout

from tfops import Graph, Ops, Session  # noqa: E402
from tfops.types import TFloat64  # noqa: E402

SIZES = (1_000, 10_000, 100_000)
TF_SIZES = (1_000, 10_000)
LINEAR_RATIO = 1.5


def tfopsGradientSeconds(n: int, repeats: int) -> float:
    """The median time to build the gradient of a graph where x has ``n`` consumers."""
    times = []
    for _ in range(repeats):
        g = Graph()
        tf = Ops.create(g)
        x = tf.placeholder(TFloat64)
        y = tf.math.addN([tf.math.mul(x, float(i % 7 + 1)) for i in range(n)])
        start = time.perf_counter()
        tf.gradients(y, [x])
        times.append(time.perf_counter() - start)
        g.close()
    return statistics.median(times)


def check(n: int) -> None:
    g = Graph()
    tf = Ops.create(g)
    x = tf.placeholder(TFloat64)
    coefficients = [float(i % 7 + 1) for i in range(n)]
    y = tf.math.addN([tf.math.mul(x, c) for c in coefficients])
    dx = tf.gradients(y, [x]).dy(0)
    assert dx is not None
    with Session(g) as s:
        got = s.runner().feed(x, np.float64(2.0)).fetch(dx).run().get(0)
    assert float(got) == sum(coefficients), (float(got), sum(coefficients))


TF_CHILD = """
import statistics, sys, time
import tensorflow as tf
n, repeats = int(sys.argv[1]), int(sys.argv[2])
times = []
for _ in range(repeats):
    g = tf.Graph()
    with g.as_default():
        x = tf.compat.v1.placeholder(tf.float64)
        y = tf.math.add_n([tf.multiply(x, float(i % 7 + 1)) for i in range(n)])
        start = time.perf_counter()
        tf.compat.v1.gradients(y, [x])
        times.append(time.perf_counter() - start)
print(statistics.median(times))
"""


def tfGradientSeconds(n: int, repeats: int) -> float:
    out = subprocess.run([sys.executable, "-c", TF_CHILD, str(n), str(repeats)],
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (noisier)")
    parser.add_argument("--no-tf", action="store_true", help="leave TensorFlow out")
    parser.add_argument("--json", type=Path, help="also write the numbers to this file")
    args = parser.parse_args()
    repeats = {1_000: 7, 10_000: 5, 100_000: 3}
    if args.quick:
        repeats = {1_000: 3, 10_000: 2, 100_000: 1}
    check(10_000)
    tfopsWarm = tfopsGradientSeconds(1_000, 1)  # imports, caches
    del tfopsWarm
    perConsumer = {n: tfopsGradientSeconds(n, repeats[n]) / n * 1e6 for n in SIZES}
    withTf = not args.no_tf and importlib.util.find_spec("tensorflow") is not None
    tfPer = {n: tfGradientSeconds(n, repeats[n]) / n * 1e6 for n in TF_SIZES} if withTf else {}
    print("| consumers | tfops us/consumer | TF graph mode us/consumer | tfops / TF |")
    print("|---|---|---|---|")
    for n in SIZES:
        t = tfPer.get(n)
        print(f"| {n:,} | {perConsumer[n]:.2f} | {f'{t:.2f}' if t else 'n/a'} | "
              f"{f'{perConsumer[n] / t:.3f}' if t else 'n/a'} |")
    ratio = perConsumer[100_000] / perConsumer[1_000]
    holds = "holds" if ratio <= LINEAR_RATIO else "MISSED"
    print(f"\nper-consumer cost at 100,000 / at 1,000: {ratio:.2f} (target <= {LINEAR_RATIO}: "
          f"{holds}); the 10,000-consumer gradient was run and checked")
    if args.json:
        args.json.write_text(json.dumps({"tfops": perConsumer, "tf": tfPer, "ratio": ratio}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
