"""The training step of the guide's MLP built by ``Adam.minimize`` against Adam written by hand.

Run: ``python bench/mlp.py`` (``--quick`` for fewer repeats, ``--backend xla`` for XLA). The
network is ``tfops/examples/mlp.py``'s (64-128-64-10, ReLU, float32, mean softmax cross entropy)
on a minibatch of 64 of scikit-learn's digits. Both graphs are built the same way up to the
loss; then one adds ``Adam(graph, 0.01).minimize(loss)`` (``tfops.framework.optimizers``), the
other the step as the examples wrote it before the framework existed: ``tf.gradients`` of the
loss, two float32 beta-power variables, an ``m`` and a ``v`` variable per parameter, one
``tf.train.applyAdam`` per parameter, and the beta powers multiplied after the updates (control
dependencies). Both start from the same weights and are checked to stay equal over a few steps
(so the two steps compute the same thing), then timed.

How it is measured, as ``bench/lenet.py`` does: both contenders in this process, each warmed
up, then called in alternation ``--reps`` times (so that the machine's changing load reaches
both alike); a contender's time is the median of its calls. This is repeated three times (once
with ``--quick``) and each keeps the best of its medians. A call is one ``session.runner()``
run of the step with the minibatch fed (the loss not fetched). The ratio minimize / hand-written
of the best medians is printed, and that of each turn; the target is 1.05 at most. The graphs'
sizes are printed too: the hand-written one has 22 more ``Const`` ops (each ``applyAdam`` call
makes its own learning rate, betas and epsilon; the optimizer makes each once per step), and
otherwise the same ops.

Measured on 2026-11-24 on the loaded 2-core machine, three runs each: numpy backend 0.999,
1.024, 1.002 (about 0.36 to 0.46 ms a step); XLA 0.996, 1.001, 1.004 (0.54 to 0.71 ms); numpy
again under a heavier load (load average 8, single turns from 0.84 to 1.14): 1.001, 0.973, 0.943.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # runnable from a checkout
sys.path.insert(0, str(ROOT / "bench"))

from lenet import medians  # noqa: E402

from tfops import Graph, Ops, Session  # noqa: E402
from tfops.backend import backendNames  # noqa: E402
from tfops.examples.mlp import Mlp, loadDigits  # noqa: E402
from tfops.framework.optimizers import Adam  # noqa: E402
from tfops.op.core import NoOp, Variable  # noqa: E402
from tfops.op.train import ApplyAdam  # noqa: E402
from tfops.output import Operand, Output  # noqa: E402
from tfops.types import TFloat32  # noqa: E402

Array = np.ndarray[Any, Any]
BATCH = 64
LEARNING_RATE = 0.01
TARGET = 1.05


def handAdam(
    tf: Ops,
    params: Sequence[Variable[TFloat32]],
    loss: Operand[TFloat32],
    lr: float = LEARNING_RATE,
    beta1: float = 0.9,
    beta2: float = 0.999,
    epsilon: float = 1e-8,
) -> NoOp:
    """One Adam step minimizing ``loss``, written with ``tf.train.applyAdam`` as the examples
    did before ``tfops.framework.optimizers``."""
    grads = tf.gradients(loss, list(params))
    b1, b2 = np.float32(beta1), np.float32(beta2)
    beta1Power = tf.variable(tf.constant(b1))
    beta2Power = tf.variable(tf.constant(b2))
    updates: list[ApplyAdam[TFloat32]] = []
    for var, grad in zip(params, grads, strict=True):
        assert grad is not None
        dims = var.asOutput().shape().asArray()
        assert dims is not None
        m = tf.variable(tf.constant(np.zeros(dims, np.float32), TFloat32))
        v = tf.variable(tf.constant(np.zeros(dims, np.float32), TFloat32))
        updates.append(
            tf.train.applyAdam(
                var,
                m,
                v,
                beta1Power,
                beta2Power,
                np.float32(lr),
                b1,
                b2,
                np.float32(epsilon),
                cast("Output[TFloat32]", grad),
            )
        )
    after = tf.withControlDependencies(updates)
    return (
        tf.withControlDependencies(
            [
                after.assign(beta1Power, tf.math.mul(beta1Power, b1)),
                after.assign(beta2Power, tf.math.mul(beta2Power, b2)),
            ]
        )
        .withName("train")
        .noOp()
    )


class Contender:
    """One graph and session: the guide's MLP and a training step built by ``build``."""

    def __init__(self, backend: str, useMinimize: bool, images: Array, labels: Array) -> None:
        self.graph = Graph()
        tf = Ops.create(self.graph)
        self.mlp = Mlp.create(tf, seed=0)
        if useMinimize:
            self.step = Adam(self.graph, LEARNING_RATE).minimize(self.mlp.loss)
        else:
            self.step = handAdam(tf, self.mlp.params, self.mlp.loss)
        self.session = Session(self.graph, backend=backend)
        self.images, self.labels = images, labels

    def __call__(self) -> None:
        (
            self.session.runner()
            .feed(self.mlp.images, self.images)
            .feed(self.mlp.labels, self.labels)
            .addTarget(self.step)
            .run()
        )

    def params(self) -> list[Array]:
        runner = self.session.runner()
        for p in self.mlp.params:
            runner.fetch(p)
        return [np.asarray(v) for v in runner.run()]

    def ops(self) -> int:
        """The ops of the graph (the step runs all but the initializers and the accuracy)."""
        return self.graph.size()

    def close(self) -> None:
        self.session.close()
        self.graph.close()


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="one turn of fewer repeats")
    parser.add_argument("--reps", type=int, default=None, help="timed calls per turn")
    parser.add_argument("--backend", choices=backendNames(), default="numpy")
    args = parser.parse_args(argv)
    reps = args.reps or (100 if args.quick else 400)
    turns = 1 if args.quick else 3
    data = loadDigits()
    images, labels = data.xTrain[:BATCH], data.yTrain[:BATCH]
    minimize = Contender(args.backend, True, images, labels)
    hand = Contender(args.backend, False, images, labels)
    try:
        for _ in range(5):  # the same five steps: the two steps compute the same update
            minimize()
            hand()
        for a, b in zip(minimize.params(), hand.params(), strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        best = {"minimize": float("inf"), "hand": float("inf")}
        ratios: list[float] = []
        for _ in range(turns):
            turn = medians({"minimize": minimize, "hand": hand}, reps, warm=20)
            ratios.append(turn["minimize"] / turn["hand"])
            best = {name: min(best[name], turn[name]) for name in best}
        ops = (minimize.ops(), hand.ops())
    finally:
        minimize.close()
        hand.close()
    ratio = best["minimize"] / best["hand"]
    print(
        f"MLP 64-128-64-10 training step, batch {BATCH} of 8x8 digits, Adam({LEARNING_RATE}), "
        f"{args.backend} backend; {reps} calls a turn, {turns} turn(s)"
    )
    print(f"{'contender':<34} | median us | graph ops")
    print(f"{'Adam(graph, lr).minimize(loss)':<34} | {1e6 * best['minimize']:9.1f} | {ops[0]:9d}")
    print(f"{'hand-written tf.train.applyAdam':<34} | {1e6 * best['hand']:9.1f} | {ops[1]:9d}")
    print(
        f"ratio minimize / hand-written: {ratio:.3f} of the best medians (target <= {TARGET}); "
        "by turn: " + ", ".join(f"{r:.3f}" for r in ratios)
    )
    return ratio


if __name__ == "__main__":
    main()
