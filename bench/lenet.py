"""One LeNet training step on tfops' numpy backend against the same step written by hand in numpy.

Run: ``python bench/lenet.py`` (``--quick`` for fewer repeats). The network is the example's
(``tfops/examples/lenet.py``, TF Java's ``CnnMnist``: two 5x5 SAME convolutions of 32 and 64
filters with ReLU and 2x2 max pooling, fully connected layers of 512 and 10, softmax cross
entropy plus 5e-4 L2, Adam) on a minibatch of 64 of scikit-learn's 8x8 digits. The hand-written
step is what one would write in numpy: im2col by ``sliding_window_view`` and one matrix product
per convolution, pooling by reshaping, the backward pass by hand, Adam in place. Both start
from the same weights (the tfops session's), and their first losses are checked to agree.

How it is measured, in the manner of ``bench/run.py``: both contenders in this process, each
warmed up, then called in alternation ``--reps`` times (so that the machine's changing load
reaches both alike); a contender's time is the median of its calls. This is repeated three
times (once with ``--quick``) and each keeps the best of its medians (the machine's other work
only ever slows a contender down). The ratio tfops / numpy of the best medians is printed, and
that of each turn; the target is 1.5 at most.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # runnable from a checkout

from tfops import Graph, Ops, Session  # noqa: E402
from tfops.examples.lenet import LeNet, build, loadDigits  # noqa: E402

Array = np.ndarray[Any, Any]
BATCH = 64
TARGET = 1.5


# -- the hand-written step ---------------------------------------------------------------------
def im2col(x: Array, k: int) -> Array:
    """The SAME windows of NHWC ``x`` (stride 1), ``[n * h * w, k * k * c]`` in the filter's
    ``[k, k, c]`` order."""
    p = k // 2
    padded = np.pad(x, ((0, 0), (p, k - 1 - p), (p, k - 1 - p), (0, 0)))
    view = sliding_window_view(padded, (k, k), axis=(1, 2))  # n h w c kh kw
    n, h, w, c = x.shape
    return np.ascontiguousarray(view.transpose(0, 1, 2, 4, 5, 3)).reshape(n * h * w, k * k * c)


def col2im(cols: Array, shape: tuple[int, ...], k: int) -> Array:
    """The adjoint of :func:`im2col`: each window's column added back onto the input."""
    n, h, w, c = shape
    p = k // 2
    parts = cols.reshape(n, h, w, k, k, c)
    total = np.zeros((n, h + k - 1, w + k - 1, c), cols.dtype)
    for i in range(k):
        for j in range(k):
            total[:, i:i + h, j:j + w, :] += parts[:, :, :, i, j, :]
    return total[:, p:p + h, p:p + w, :]


def pool(x: Array) -> tuple[Array, Array]:
    """2x2 max pooling of NHWC ``x`` (even sizes) and the mask of the maxima."""
    n, h, w, c = x.shape
    blocks = x.reshape(n, h // 2, 2, w // 2, 2, c)
    pooled = blocks.max(axis=(2, 4))
    mask = blocks == pooled[:, :, None, :, None, :]
    return pooled, mask


def unpool(g: Array, mask: Array) -> Array:
    n, h, _, w, _, c = mask.shape
    result: Array = (mask * g[:, :, None, :, None, :]).reshape(n, 2 * h, 2 * w, c)
    return result


class HandLeNet:
    """LeNet's training step in numpy, with Adam (lr 0.001), from given weights."""

    def __init__(self, params: list[Array]) -> None:
        self.params = [p.astype(np.float32).copy() for p in params]
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0

    def step(self, images: Array, labels: Array) -> float:
        w1, b1, w2, b2, f1, c1, f2, c2 = self.params
        n = images.shape[0]
        x = ((images.astype(np.float32) - np.float32(8.0)) / np.float32(16.0))[..., None]
        cols1 = im2col(x, 5)
        z1 = (cols1 @ w1.reshape(-1, 32)).reshape(n, 8, 8, 32) + b1
        a1 = np.maximum(z1, 0)
        p1, mask1 = pool(a1)
        cols2 = im2col(p1, 5)
        z2 = (cols2 @ w2.reshape(-1, 64)).reshape(n, 4, 4, 64) + b2
        a2 = np.maximum(z2, 0)
        p2, mask2 = pool(a2)
        flat = p2.reshape(n, -1)
        h = np.maximum(flat @ f1 + c1, 0)
        logits = h @ f2 + c2
        shifted = logits - logits.max(axis=1, keepdims=True)
        probs = np.exp(shifted)
        probs /= probs.sum(axis=1, keepdims=True)
        onehot = np.eye(10, dtype=np.float32)[labels]
        l2 = sum(float(np.sum(p * p)) / 2 for p in (f1, c1, f2, c2))
        loss = float(-np.mean(np.sum(onehot * np.log(probs), axis=1))) + 5e-4 * l2
        # backward
        dlogits = (probs - onehot) / np.float32(n)
        df2 = h.T @ dlogits + np.float32(5e-4) * f2
        dc2 = dlogits.sum(0) + np.float32(5e-4) * c2
        dh = (dlogits @ f2.T) * (h > 0)
        df1 = flat.T @ dh + np.float32(5e-4) * f1
        dc1 = dh.sum(0) + np.float32(5e-4) * c1
        dp2 = (dh @ f1.T).reshape(p2.shape)
        dz2 = unpool(dp2, mask2) * (z2 > 0)
        dz2flat = dz2.reshape(-1, 64)
        dw2 = (cols2.T @ dz2flat).reshape(w2.shape)
        db2 = dz2flat.sum(0)
        dp1 = col2im(dz2flat @ w2.reshape(-1, 64).T, p1.shape, 5)
        dz1 = unpool(dp1, mask1) * (z1 > 0)
        dz1flat = dz1.reshape(-1, 32)
        dw1 = (cols1.T @ dz1flat).reshape(w1.shape)
        db1 = dz1flat.sum(0)
        self.adam([dw1, db1, dw2, db2, df1, dc1, df2, dc2])
        return loss

    def adam(self, grads: list[Array], lr: float = 0.001, beta1: float = 0.9,
             beta2: float = 0.999, eps: float = 1e-8) -> None:
        self.t += 1
        rate = np.float32(lr * np.sqrt(1 - beta2 ** self.t) / (1 - beta1 ** self.t))
        for p, m, v, g in zip(self.params, self.m, self.v, grads, strict=True):
            m += (1 - beta1) * (g - m)
            v += (1 - beta2) * (g * g - v)
            p -= rate * m / (np.sqrt(v) + np.float32(eps))


# -- the harness -------------------------------------------------------------------------------
def medians(contenders: dict[str, Callable[[], object]], reps: int,
            warm: int = 3) -> dict[str, float]:
    """Each contender's median time over ``reps`` calls, the contenders called in alternation
    (so that a change in the machine's load reaches all of them alike), after ``warm`` calls
    each."""
    for fn in contenders.values():
        for _ in range(warm):
            fn()
    times: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(reps):
        for name, fn in contenders.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="one turn of fewer repeats")
    parser.add_argument("--reps", type=int, default=None, help="timed calls per turn")
    args = parser.parse_args(argv)
    reps = args.reps or (10 if args.quick else 30)
    turns = 1 if args.quick else 3
    data = loadDigits()
    images, labels = data.xTrain[:BATCH], data.yTrain[:BATCH]
    with Graph() as g, Session(g) as session:
        net: LeNet = build(Ops.create(g))
        session.initialize()
        start = [np.asarray(session.runner().fetch(p).run()[0]) for p in net.params]
        hand = HandLeNet(start)

        def tfopsStep() -> float:
            value = (session.runner().feed(net.input, images).feed(net.labels, labels)
                     .addTarget(net.train).fetch(net.loss).run()[0])
            return float(np.asarray(value))

        def handStep() -> float:
            return hand.step(images, labels)

        first = (tfopsStep(), handStep())
        assert abs(first[0] - first[1]) <= 1e-4 * max(1.0, abs(first[1])), first
        best = {"tfops": float("inf"), "numpy": float("inf")}
        ratios = []
        for _ in range(turns):
            turn = medians({"tfops": tfopsStep, "numpy": handStep}, reps)
            ratios.append(turn["tfops"] / turn["numpy"])
            best = {name: min(best[name], turn[name]) for name in best}
    ratio = best["tfops"] / best["numpy"]
    print(f"LeNet training step, batch {BATCH} of 8x8 digits (first losses: tfops "
          f"{first[0]:.6f}, numpy {first[1]:.6f})")
    print(f"{'contender':<28} | median ms")
    print(f"{'tfops, numpy backend':<28} | {1000 * best['tfops']:9.2f}")
    print(f"{'hand-written numpy (im2col)':<28} | {1000 * best['numpy']:9.2f}")
    print(f"ratio tfops / numpy: {ratio:.2f} of the best medians (target <= {TARGET}); by turn: "
          + ", ".join(f"{r:.2f}" for r in ratios))


if __name__ == "__main__":
    main()
