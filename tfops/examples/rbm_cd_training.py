"""Training in the contrastive divergence example (:mod:`tfops.examples.rbm_cd`): the CD-k
training graph (:func:`build`) and loop (:func:`train`), and the StopGradient check that
compares ``tf.gradients`` of the CD loss with the classic CD update
(:func:`compareGradients`).
"""

from __future__ import annotations

import numpy as np
from attrs import frozen

from tfops import Graph, Ops, Session
from tfops.backend import Backend
from tfops.examples.rbm_cd_model import (
    F64,
    HIDDEN,
    VISIBLE,
    Array,
    allStates,
    cdLoss,
    cdUpdate,
    exactLogLikelihood,
    gibbsChain,
    meanFieldChain,
    parameterGradients,
)
from tfops.op.core import NoOp, Placeholder, Variable
from tfops.shape import Shape
from tfops.types import TFloat64

__all__ = [
    "Config",
    "GradientComparison",
    "History",
    "Rbm",
    "build",
    "compareGradients",
    "initialParameters",
    "train",
]


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
    step = (
        tf.withControlDependencies(
            [
                tf.train.applyGradientDescent(W, lr, dW),
                tf.train.applyGradientDescent(b, lr, db),
                tf.train.applyGradientDescent(c, lr, dc),
            ]
        )
        .withName("step")
        .noOp()
    )
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
        for epoch in tqdm(
            range(1, config.epochs + 1),
            desc=f"CD-{config.k}",
            unit="epoch",
            disable=not progress,
            leave=False,
        ):
            order = rng.permutation(len(data))
            for start in range(0, len(data), config.batchSize):
                batch = data[order[start : start + config.batchSize]]
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
    parameters: tuple[Array, Array, Array],
    data: Array,
    k: int,
    seed: int,
    *,
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
        samples, dW, db, dc = values[4 * i : 4 * i + 4]
        update = cdUpdate(data, samples, *parameters)
        cdGradient = (-update[0], -update[1], -update[2])
        comparisons.append(GradientComparison(name, stop, samples, (dW, db, dc), cdGradient))
    return comparisons
