"""Where a numpy-backend run spends its time: each line of the plan's generated function (a
kernel or a fused group) timed inside real runs, next to the same for numpy by hand.

Run: ``python bench/profile.py softmax 1e5`` or ``python bench/profile.py mlp``. Times are
medians over many runs, in microseconds; wrapping each call adds about a microsecond to it.
Run it with ``bench/run.py``'s allocator settings (``MALLOC_MMAP_THRESHOLD_=1073741824
MALLOC_TRIM_THRESHOLD_=1073741824``) to see what the benchmark sees.
"""

from __future__ import annotations

import gc
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from workloads import (  # noqa: E402
    BATCH,
    LEARNING_RATE,
    makeMlp,
    makeSoftmax,
    mlpData,
    softmaxInputs,
)

from tfops.backend.numpy.base import _Step  # noqa: E402
from tfops.backend.numpy.fusion import _fuse, _Fused  # noqa: E402
from tfops.backend.numpy.plan import _Plan  # noqa: E402


def label(step: _Step) -> str:
    """What a line of the generated function runs: a fused group's op types, or an op."""
    if isinstance(step.kernel, _Fused):
        return "group " + "+".join(op.type() for op in step.kernel.ops)
    return f"{step.op.type()} ({step.op.name()})"


def profileTfops(run: Callable[[], object], calls: int) -> list[tuple[str, float]]:
    """The median time of each line of the plan's generated function, in run order."""
    for _ in range(3):
        run()
    plans = [o for o in gc.get_objects() if isinstance(o, _Plan)]
    plan = max(plans, key=lambda p: p.numSteps)
    function = plan._large or plan._small
    assert function is not None
    context = plan._context
    units = _fuse(plan._steps, plan._fetchIds, context.options, context.config.memoryLimit,
                  context.pool) if plan._large is not None else plan._steps
    namespace = function.__globals__
    times: dict[int, list[float]] = {}
    names: dict[int, str] = {}
    for key, kernel in list(namespace.items()):
        if not key.startswith("_k"):
            continue
        n = int(key[2:])
        names[n] = label(units[n])

        def timed(*args: Any, _kernel: Any = kernel, _n: int = n) -> Any:
            start = time.perf_counter()
            result = _kernel(*args)
            times.setdefault(_n, []).append(time.perf_counter() - start)
            return result

        namespace[key] = timed
    for _ in range(calls):
        run()
    return [(names[n], statistics.median(times[n]) * 1e6) for n in sorted(times)]


class Clock:
    """Times the blocks run under ``with clock("name"):``, by name."""

    def __init__(self) -> None:
        self.times: dict[str, list[float]] = {}
        self.name = ""
        self.start = 0.0

    def __call__(self, name: str) -> Clock:
        self.name = name
        return self

    def __enter__(self) -> None:
        self.start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        self.times.setdefault(self.name, []).append(time.perf_counter() - self.start)

    def medians(self) -> list[tuple[str, float]]:
        return [(k, statistics.median(v) * 1e6) for k, v in self.times.items()]


def profileHandSoftmax(n: int, calls: int) -> list[tuple[str, float]]:
    x, w = softmaxInputs(n)
    clock = Clock()
    for _ in range(calls):
        with clock("max"):
            m = x.max()
        with clock("x - m"):
            z = x - m
        with clock("exp"):
            e = np.exp(z)
        with clock("sum e"):
            s = e.sum()
        with clock("e / s"):
            p = e / s
        with clock("w * p"):
            wp = w * p
        with clock("sum wp"):
            total = wp.sum()
        with clock("p * S"):
            tp = p * total
        with clock("wp - pS"):
            dx = wp - tp
        del z, e, p, wp, tp, dx
    return clock.medians()


def profileHandMlp(calls: int) -> list[tuple[str, float]]:
    x, labels, params = mlpData()
    w1, b1, w2, b2, w3, b3 = params
    scale = np.float32(1 / BATCH)
    clock = Clock()
    for _ in range(calls):
        with clock("x @ w1 + b1"):
            h1 = x @ w1 + b1
        with clock("relu"):
            a1 = np.maximum(h1, 0)
        with clock("a1 @ w2 + b2"):
            h2 = a1 @ w2 + b2
        with clock("relu "):
            a2 = np.maximum(h2, 0)
        with clock("a2 @ w3 + b3"):
            logits = a2 @ w3 + b3
        with clock("softmax cross-entropy and its gradient"):
            z = logits - logits.max(axis=1, keepdims=True)
            e = np.exp(z)
            s = e.sum(axis=1, keepdims=True)
            np.mean(np.log(s[:, 0]) - (labels * z).sum(axis=1))
            d3 = (e / s - labels) * scale
        with clock("d3 @ w3.T * (h2 > 0)"):
            d2 = (d3 @ w3.T) * (h2 > 0)
        with clock("d2 @ w2.T * (h1 > 0)"):
            d1 = (d2 @ w2.T) * (h1 > 0)
        with clock("x.T @ d1"):
            g1 = x.T @ d1
        with clock("a1.T @ d2"):
            g2 = a1.T @ d2
        with clock("a2.T @ d3, bias sums"):
            grads = (g1, d1.sum(axis=0), g2, d2.sum(axis=0), a2.T @ d3, d3.sum(axis=0))
        with clock("updates"):
            for p, g in zip(params, grads, strict=True):
                p -= LEARNING_RATE * g
    return clock.medians()


def show(title: str, rows: list[tuple[str, float]]) -> None:
    print(f"\n{title}")
    for name, us in rows:
        print(f"  {us:9.1f} us  {name}")
    print(f"  {sum(us for _, us in rows):9.1f} us  in all")


def main() -> int:
    workload = sys.argv[1] if len(sys.argv) > 1 else "softmax"
    if workload == "softmax":
        n = int(float(sys.argv[2])) if len(sys.argv) > 2 else 100_000
        calls = max(30, int(3e7 // n))
        show(f"numpy backend, softmax fwd+grad, {n:,} elements",
             profileTfops(makeSoftmax("numpy", n), calls))
        show("numpy by hand", profileHandSoftmax(n, calls))
    else:
        show("numpy backend, MLP step", profileTfops(makeMlp("numpy"), 40))
        show("numpy by hand", profileHandMlp(40))
    return 0


if __name__ == "__main__":
    sys.exit(main())
