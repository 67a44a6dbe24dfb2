"""The seed's third use case: contrastive divergence training of a Boltzmann machine.

``python -m tfops.examples.rbm_cd`` trains a binary restricted Boltzmann machine (16 visible
units, a 4x4 image, and 8 hidden units) on the 30 bars-and-stripes patterns with CD-k. The loss
is the free-energy difference ``mean F(v_data) - mean F(v_model)`` with
``F(v) = -b.v - sum_j softplus(c_j + (v W)_j)``; the model samples ``v_model`` come from k steps
of block Gibbs sampling, built in the graph with seeded random ops, and sit behind
``tf.stopGradient``: the training must not backpropagate through the graph that generated them.

The machine is small enough to compute its exact log-likelihood (the partition function sums
the free energies of all 2^16 visible states), so the example prints and plots it rising, and
checks ``tf.gradients`` of the loss against the classic CD update, with and without the
StopGradient.

Every session runs on ``Config.backend`` (``--backend {numpy,xla}``: the numpy executor, or XLA;
the random ops draw numpy's numbers on the one and ``jax.random``'s on the other).
"""

from __future__ import annotations

import argparse
import itertools
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
from attrs import frozen

from tfops import Graph, Ops, Session
from tfops.backend import Backend
from tfops.examples import addBackendOption
from tfops.examples._plotting import GridFigure, GridSpecLike, SubplotPlace, save
from tfops.op.core import NoOp, Placeholder, Variable
from tfops.op.linalg import MatMul
from tfops.op.random import RandomUniform
from tfops.output import Operand
from tfops.shape import Shape
from tfops.types import TFloat64

Array = np.ndarray[Any, Any]
F64 = Operand[TFloat64]

SIDE = 4
VISIBLE = SIDE * SIDE
HIDDEN = 8


# --- the data set ------------------------------------------------------------------------------

def barsAndStripes(side: int = SIDE) -> Array:
    """The ``2^(side+1) - 2`` distinct bars-and-stripes images, flattened: every image whose rows
    are all equal (vertical bars) or whose columns are all equal (horizontal stripes)."""
    images: set[tuple[float, ...]] = set()
    for bits in itertools.product((0.0, 1.0), repeat=side):
        line = np.array(bits)
        images.add(tuple(np.repeat(line, side)))  # row i is all bits[i]: horizontal stripes
        images.add(tuple(np.tile(line, side)))    # column j is all bits[j]: vertical bars
    patterns: Array = np.array(sorted(images))
    return patterns


def allStates(n: int = VISIBLE) -> Array:
    """Every binary vector of length ``n``, one a row (``2^n`` rows)."""
    codes = np.arange(1 << n)[:, None]  # 2^n: 1 << n is an int to the checkers, 2**n is not
    states: Array = ((codes >> np.arange(n - 1, -1, -1)) & 1).astype(np.float64)
    return states


# --- the model in the graph --------------------------------------------------------------------

def freeEnergy(tf: Ops, v: F64, W: F64, b: F64, c: F64) -> F64:
    """``F(v) = -v.b - sum_j softplus(c_j + (v W)_j)``, one value per row of ``v``."""
    visibleTerm = tf.sum(tf.math.mul(v, b), 1)
    hiddenTerm = tf.sum(tf.math.softplus(tf.math.add(tf.linalg.matMul(v, W), c)), 1)
    return tf.math.neg(tf.math.add(visibleTerm, hiddenTerm))


def hiddenProbabilities(tf: Ops, v: F64, W: F64, c: F64) -> F64:
    """``p(h_j = 1 | v) = sigmoid(c_j + (v W)_j)``."""
    return tf.math.sigmoid(tf.math.add(tf.linalg.matMul(v, W), c))


def visibleProbabilities(tf: Ops, h: F64, W: F64, b: F64) -> F64:
    """``p(v_i = 1 | h) = sigmoid(b_i + (h W^T)_i)``."""
    return tf.math.sigmoid(tf.math.add(tf.linalg.matMul(h, W, MatMul.transposeB(True)), b))


def bernoulli(tf: Ops, p: F64, seed: int, seed2: int) -> F64:
    """A 0/1 sample with ``P(1) = p``: ``uniform < p``, drawn by a seeded ``RandomUniform``."""
    u = tf.random.randomUniform(
        tf.shape(p), TFloat64, RandomUniform.seed(seed), RandomUniform.seed2(seed2)
    )
    return tf.dtypes.cast(tf.math.less(u, p), TFloat64)


def gibbsChain(tf: Ops, v: F64, W: F64, b: F64, c: F64, k: int, seed: int) -> F64:
    """``k`` steps of block Gibbs sampling from ``v``: sample ``h ~ p(h|v)``, then
    ``v ~ p(v|h)``. Each random op has its own ``seed2``, so the draws are independent."""
    for step in range(k):
        h = bernoulli(tf, hiddenProbabilities(tf, v, W, c), seed, 2 * step + 1)
        v = bernoulli(tf, visibleProbabilities(tf, h, W, b), seed, 2 * step + 2)
    return v


def meanFieldChain(tf: Ops, v: F64, W: F64, b: F64, c: F64, k: int) -> F64:
    """``k`` mean-field steps from ``v``: the probabilities in place of the samples, a smooth
    function of ``W, b, c``, so without StopGradient the gradient flows through it."""
    for _ in range(k):
        v = visibleProbabilities(tf, hiddenProbabilities(tf, v, W, c), W, b)
    return v


def cdLoss(tf: Ops, vData: F64, vModel: F64, W: F64, b: F64, c: F64) -> F64:
    """``mean F(v_data) - mean F(v_model)``: its gradient is minus the CD update when
    ``v_model`` is behind ``tf.stopGradient``."""
    return tf.math.sub(
        tf.math.mean(freeEnergy(tf, vData, W, b, c), 0),
        tf.math.mean(freeEnergy(tf, vModel, W, b, c), 0),
    )


def parameterGradients(tf: Ops, loss: F64, W: F64, b: F64, c: F64) -> tuple[F64, F64, F64]:
    """``tf.gradients(loss, [W, b, c])``; each is connected to the loss."""
    dW, db, dc = tf.gradients(loss, [W, b, c])
    return dW, db, dc


def exactLogLikelihood(tf: Ops, v: F64, W: F64, b: F64, c: F64, states: Array) -> F64:
    """``mean log p(v) = -mean F(v) - log Z`` with ``log Z = logsumexp(-F(s))`` over ``states``
    (every visible vector); the logsumexp is shifted by ``stopGradient(max)`` as the seed's
    stable softmax."""
    negF = tf.math.neg(freeEnergy(tf, tf.constant(states, TFloat64), W, b, c))
    shift = tf.stopGradient(tf.max(negF, 0))
    logZ = tf.math.add(shift, tf.math.log(tf.sum(tf.math.exp(tf.math.sub(negF, shift)), 0)))
    return tf.math.sub(tf.math.neg(tf.math.mean(freeEnergy(tf, v, W, b, c), 0)), logZ)


# --- the classic formulas, in numpy ------------------------------------------------------------

def sigmoid(x: Array) -> Array:
    result: Array = 1.0 / (1.0 + np.exp(-x))
    return result


def cdUpdate(vData: Array, vModel: Array, W: Array, b: Array, c: Array) -> tuple[
    Array, Array, Array
]:
    """The CD update ``(<v h>_data - <v h>_model, <v>_data - <v>_model, <h>_data - <h>_model)``
    with ``h = p(h = 1 | v)``, the direction that gradient ascent on the likelihood takes."""
    hData, hModel = sigmoid(vData @ W + c), sigmoid(vModel @ W + c)
    dW: Array = (np.transpose(vData) @ hData / len(vData)
                 - np.transpose(vModel) @ hModel / len(vModel))
    db: Array = vData.mean(0) - vModel.mean(0)
    dc: Array = hData.mean(0) - hModel.mean(0)
    return dW, db, dc


def numpyFreeEnergy(v: Array, W: Array, b: Array, c: Array) -> Array:
    energy: Array = -(v @ b) - np.logaddexp(0.0, v @ W + c).sum(1)
    return energy


def numpyLogLikelihood(v: Array, W: Array, b: Array, c: Array) -> float:
    """The exact mean log-likelihood of the rows of ``v``, by enumerating all visible states."""
    negF = -numpyFreeEnergy(allStates(len(b)), W, b, c)
    shift = negF.max()
    logZ = shift + np.log(np.exp(negF - shift).sum())
    return float(-numpyFreeEnergy(v, W, b, c).mean() - logZ)


# --- training ----------------------------------------------------------------------------------

@frozen
class Config:
    """A training run: ``epochs`` passes over the data in shuffled mini-batches of ``batchSize``,
    CD-``k`` with learning rate ``learningRate``; every random number comes from ``seed``; the
    session runs on ``backend``."""

    epochs: int = 2000
    batchSize: int = 10
    k: int = 1
    learningRate: float = 0.1
    seed: int = 1
    backend: str | Backend = "numpy"


@frozen
class Rbm:
    """The training graph: the batch placeholder, the parameters, the CD loss, its gradients,
    the update step, and the exact mean log-likelihood of the batch."""

    graph: Graph
    v: Placeholder[TFloat64]
    W: Variable[TFloat64]
    b: Variable[TFloat64]
    c: Variable[TFloat64]
    vModel: F64
    loss: F64
    gradients: tuple[F64, F64, F64]
    step: NoOp
    logLikelihood: F64


def initialParameters(seed: int) -> tuple[Array, Array, Array]:
    """Small random weights, zero biases: the model starts close to uniform."""
    rng = np.random.RandomState(seed)
    return 0.01 * rng.randn(VISIBLE, HIDDEN), np.zeros(VISIBLE), np.zeros(HIDDEN)


def build(config: Config, parameters: tuple[Array, Array, Array] | None = None) -> Rbm:
    """The RBM's graph; ``step`` runs one CD-k update on the batch fed to ``v``."""
    graph = Graph()
    tf = Ops.create(graph)
    W0, b0, c0 = parameters if parameters is not None else initialParameters(config.seed)
    W = tf.withName("W").variable(tf.constant(W0, TFloat64))
    b = tf.withName("b").variable(tf.constant(b0, TFloat64))
    c = tf.withName("c").variable(tf.constant(c0, TFloat64))
    v = tf.withName("v").placeholder(TFloat64, Placeholder.shape(Shape.of(-1, VISIBLE)))
    vModel = gibbsChain(tf.withSubScope("gibbs"), v, W, b, c, config.k, config.seed)
    loss = cdLoss(tf.withSubScope("loss"), v, tf.stopGradient(vModel), W, b, c)
    dW, db, dc = parameterGradients(tf, loss, W, b, c)
    lr = np.float64(config.learningRate)
    step = tf.withControlDependencies([
        tf.train.applyGradientDescent(W, lr, dW),
        tf.train.applyGradientDescent(b, lr, db),
        tf.train.applyGradientDescent(c, lr, dc),
    ]).withName("step").noOp()
    logLikelihood = exactLogLikelihood(tf.withSubScope("likelihood"), v, W, b, c, allStates())
    return Rbm(graph, v, W, b, c, vModel, loss, (dW, db, dc), step, logLikelihood)


@frozen
class History:
    """The exact mean log-likelihood of the data after each listed epoch, and the final
    parameters ``(W, b, c)``."""

    epochs: list[int]
    logLikelihood: list[float]
    parameters: tuple[Array, Array, Array]


def train(config: Config, data: Array, evalEvery: int = 50, progress: bool = False) -> History:
    """Trains an RBM on ``data`` with CD-k, computing the exact log-likelihood before training
    and every ``evalEvery`` epochs (and after the last one)."""
    from tqdm import tqdm  # type: ignore[import-untyped]

    rbm = build(config)
    rng = np.random.RandomState(config.seed)
    epochs: list[int] = []
    values: list[float] = []
    with Session(rbm.graph, backend=config.backend) as session:
        session.initialize()

        def record(epoch: int) -> None:
            runner = session.runner().feed(rbm.v, data).fetch(rbm.logLikelihood)
            epochs.append(epoch)
            values.append(float(runner.run()[0]))

        record(0)
        for epoch in tqdm(range(1, config.epochs + 1), desc=f"CD-{config.k}", unit="epoch",
                          disable=not progress, leave=False):
            order = rng.permutation(len(data))
            for start in range(0, len(data), config.batchSize):
                batch = data[order[start:start + config.batchSize]]
                session.runner().feed(rbm.v, batch).addTarget(rbm.step).run()
            if epoch % evalEvery == 0 or epoch == config.epochs:
                record(epoch)
        W, b, c = session.runner().fetch(rbm.W).fetch(rbm.b).fetch(rbm.c).run()
    return History(epochs, values, (np.asarray(W), np.asarray(b), np.asarray(c)))


# --- StopGradient: the gradient against the CD update ------------------------------------------

@frozen
class GradientComparison:
    """``tf.gradients(loss, [W, b, c])`` for one negative phase, with or without StopGradient,
    beside minus the CD update computed in numpy from the same ``vModel``."""

    negative: str
    stopGradient: bool
    vModel: Array
    gradients: tuple[Array, Array, Array]
    cdGradient: tuple[Array, Array, Array]

    def differences(self) -> tuple[float, float, float]:
        """``max |gradient - (-update)|`` for ``W``, ``b`` and ``c``."""
        pairs = zip(self.gradients, self.cdGradient, strict=True)
        d = [float(np.max(np.abs(g - r))) for g, r in pairs]
        return d[0], d[1], d[2]


def compareGradients(
    parameters: tuple[Array, Array, Array], data: Array, k: int, seed: int, *,
    backend: str | Backend = "numpy",
) -> list[GradientComparison]:
    """Gradients of the CD loss for Gibbs and mean-field negative phases, each with and without
    ``tf.stopGradient``; one run on ``backend``, so each pair sees the same ``vModel``."""
    graph = Graph()
    tf = Ops.create(graph)
    W = tf.withName("W").variable(tf.constant(parameters[0], TFloat64))
    b = tf.withName("b").variable(tf.constant(parameters[1], TFloat64))
    c = tf.withName("c").variable(tf.constant(parameters[2], TFloat64))
    v = tf.withName("v").placeholder(TFloat64, Placeholder.shape(Shape.of(-1, VISIBLE)))
    chains: list[tuple[str, F64]] = [
        (f"Gibbs samples, CD-{k}", gibbsChain(tf.withSubScope("gibbs"), v, W, b, c, k, seed)),
        (f"mean-field, {k} steps", meanFieldChain(tf.withSubScope("meanField"), v, W, b, c, k)),
    ]
    cases: list[tuple[str, bool, F64, tuple[F64, F64, F64]]] = []
    for name, vModel in chains:
        for stop in (True, False):
            negative = tf.stopGradient(vModel) if stop else vModel
            loss = cdLoss(tf.withSubScope("loss"), v, negative, W, b, c)
            cases.append((name, stop, vModel, parameterGradients(tf, loss, W, b, c)))
    with Session(graph, backend=backend) as session:
        session.initialize()
        runner = session.runner().feed(v, data)
        for _, _, vModel, grads in cases:
            runner.fetch(vModel)
            for g in grads:
                runner.fetch(g)
        values = [np.asarray(x) for x in runner.run()]
    comparisons: list[GradientComparison] = []
    for i, (name, stop, _, _) in enumerate(cases):
        samples, dW, db, dc = values[4 * i:4 * i + 4]
        update = cdUpdate(data, samples, *parameters)
        cdGradient = (-update[0], -update[1], -update[2])
        comparisons.append(GradientComparison(name, stop, samples, (dW, db, dc), cdGradient))
    return comparisons


# --- the command line --------------------------------------------------------------------------

def plot(histories: Sequence[tuple[str, History]], comparisons: Sequence[GradientComparison],
         path: str) -> None:
    """Log-likelihood curves, the gradient differences, and the learned weights, to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # the one call of matplotlib's whose type is partly unknown (pyplot.figure's **kwargs have
    # none); the figure it returns is typed, and _draw checks every call on it
    figure = plt.figure(figsize=(12, 3.6), dpi=72)  # pyright: ignore[reportUnknownMemberType]
    _draw(figure, histories, comparisons)
    save(figure, path)
    plt.close(figure)


def _weightCells(place: SubplotPlace) -> GridSpecLike:
    return place.subgridspec(4, 4, height_ratios=[0.9, 1, 1, 0.9], wspace=0.1, hspace=0.1)


def _draw(figure: GridFigure, histories: Sequence[tuple[str, History]],
          comparisons: Sequence[GradientComparison]) -> None:
    outer = figure.add_gridspec(1, 3, width_ratios=[1.2, 1.1, 1], wspace=0.7)
    curves = figure.add_subplot(outer[0])
    for label, history in histories:
        curves.plot(history.epochs, history.logLikelihood, label=label)
    n = len(barsAndStripes())
    curves.axhline(-VISIBLE * np.log(2.0), color="gray", linestyle=":", label="uniform model")
    curves.axhline(-np.log(n), color="black", linestyle="--", label=f"best: log(1/{n})")
    curves.set_xlabel("epoch")
    curves.set_ylabel("mean log-likelihood")
    curves.set_title("exact log-likelihood during training", fontsize=10)
    curves.legend(fontsize=8, loc="lower right")

    bars = figure.add_subplot(outer[1])
    labels = [c.negative.split(",")[0].replace(" samples", "")
              + ("\n+ stopGradient" if c.stopGradient else "\nno stopGradient")
              for c in comparisons]
    worst = [max(max(c.differences()), 1e-18) for c in comparisons]
    colors = ["tab:green" if w < 1e-10 else "tab:red" for w in worst]
    bars.barh(range(len(worst)), worst, color=colors)
    bars.set_xscale("log")
    bars.set_xlim(1e-18, 1.0)
    bars.axvline(1e-10, color="gray", linestyle=":")
    bars.set_yticks(range(len(worst)), labels, fontsize=8)
    bars.invert_yaxis()
    bars.set_xlabel("max |tf.gradients + CD update| over W, b, c")
    bars.set_title("gradient vs the CD formula, same samples", fontsize=10)

    W = histories[-1][1].parameters[0]
    scale = float(np.abs(W).max())
    cells = _weightCells(outer[2])
    for j in range(HIDDEN):
        ax = figure.add_subplot(cells[1 + j // 4, j % 4])
        ax.imshow(np.reshape(W[:, j], (SIDE, SIDE)), cmap="RdBu", vmin=-scale, vmax=scale)
        ax.set_xticks([])
        ax.set_yticks([])
        if j == 1:
            ax.set_title(f"{histories[-1][0]} weights of the {HIDDEN} hidden units", fontsize=10,
                         x=1.05)
    figure.subplots_adjust(left=0.05, right=0.99, bottom=0.15, top=0.9)


def main(argv: Sequence[str] | None = None) -> None:
    """Trains CD-1 and CD-5 machines, prints the log-likelihood and gradient tables, plots."""
    parser = argparse.ArgumentParser(prog="python -m tfops.examples.rbm_cd",
                                     description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--plot", default="rbm_cd.png", help="where to write the PNG plot")
    parser.add_argument("--epochs", type=int, default=Config().epochs, help="training epochs")
    parser.add_argument("--every", type=int, default=50, help="epochs between evaluations")
    addBackendOption(parser)
    args = parser.parse_args(argv)
    backend: str = args.backend

    data = barsAndStripes()
    n = len(data)
    started = time.perf_counter()
    print(f"CD-k training of a {VISIBLE}-{HIDDEN} RBM on the {n} bars-and-stripes "
          f"{SIDE}x{SIDE} patterns, {args.epochs} epochs, on the {backend} backend")
    print(f"exact mean log-likelihood of the data set (uniform model: "
          f"{-VISIBLE * np.log(2.0):.3f}, best: log(1/{n}) = {-np.log(n):.3f})\n", flush=True)
    histories = [(f"CD-{k}", train(Config(epochs=args.epochs, k=k, backend=backend), data,
                                   args.every, True))
                 for k in (1, 5)]
    header = f"{'epoch':>6} | " + " | ".join(f"{label:>8}" for label, _ in histories)
    print(header)
    print("-" * len(header))
    epochs = histories[0][1].epochs
    stride = max(1, (len(epochs) - 1) // 10)
    for i, epoch in enumerate(epochs):
        if i % stride == 0 or i == len(epochs) - 1:
            cells = " | ".join(f"{h.logLikelihood[i]:8.3f}" for _, h in histories)
            print(f"{epoch:>6} | {cells}")

    label, trained = histories[-1]
    k = 5
    comparisons = compareGradients(trained.parameters, data, k, seed=7, backend=backend)
    print(f"\ntf.gradients(loss, [W, b, c]) at the trained {label} parameters, in float64,")
    print("against minus the CD update (<v h>_data - <v h>_model, <v>_data - <v>_model,")
    print("<h>_data - <h>_model) computed in numpy from the same v_model\n")
    header = (f"{'negative phase':>22} | {'stopGradient':>12} | {'max|dW - CD|':>12} | "
              f"{'max|db - CD|':>12} | {'max|dc - CD|':>12}")
    print(header)
    print("-" * len(header))
    for comparison in comparisons:
        dW, db, dc = comparison.differences()
        print(f"{comparison.negative:>22} | {'yes' if comparison.stopGradient else 'no':>12} | "
              f"{dW:12.3g} | {db:12.3g} | {dc:12.3g}")
    print("\nGibbs samples are `uniform < p`: Less passes no gradient, so the samples are")
    print("constants to tf.gradients with or without stopGradient. The mean-field chain is")
    print("smooth in W, b, c: without stopGradient the gradient flows back through it.")
    plot(histories, comparisons, args.plot)
    print(f"\nplot written to {args.plot} ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
