"""The experiments of the adversarial training example (:mod:`tfops.examples.adversarial`):
:func:`experiment` trains a normal and an adversarially trained network on the same
minibatches and measures their clean and FGSM test accuracy; :func:`gradientCheck` compares
the adversarial-training gradient with and without ``stopGradient`` against the gradient with
the adversarial images given as constants.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from attrs import frozen

from tfops import Graph, Ops, Session
from tfops.backend import Backend
from tfops.examples.adversarial_fgsm import (
    F64,
    Array,
    Inputs,
    Mlp,
    Network,
    crossEntropy,
    gradientsOf,
    inputGradient,
    l2Step,
    mix,
    network,
    signStep,
)
from tfops.examples.digits import loadDigits
from tfops.output import AnyOperand, Output
from tfops.types import TFloat64

__all__ = ["EPS", "Check", "Config", "Outcome", "Step", "accuracy", "experiment", "gradientCheck"]

EPS = 0.1
"""The FGSM step used for training and for the table (pixels are in [0, 1])."""


@frozen
class Config:
    """The experiment's sizes and hyperparameters, and the backend its sessions run on; the
    defaults are the full example."""

    trainSize: int | None = None
    testSize: int | None = None
    epochs: int = 40
    batch: int = 64
    hidden: int = 64
    lr: float = 0.01
    eps: float = EPS
    alpha: float = 0.5
    seed: int = 0
    epsGrid: tuple[float, ...] = (0.0, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3)
    backend: str | Backend = "numpy"


@frozen
class Outcome:
    """What the experiment measured, by network name (``normal``, ``adversarial``)."""

    clean: dict[str, float]
    """Test accuracy on clean images."""
    adversarial: dict[str, float]
    """Test accuracy on FGSM images at ``Config.eps``, each made against the network itself."""
    byEps: dict[str, list[float]]
    """Test accuracy under FGSM at each ``Config.epsGrid`` value."""
    history: dict[str, list[tuple[float, float]]]
    """(clean, adversarial) test accuracy after each epoch."""


def accuracy(
    session: Session, net: Network, inputs: Inputs, x: Array, y: Array, eps: float
) -> tuple[float, float]:
    """The clean accuracy and the accuracy under FGSM at ``eps`` (against ``net`` itself)."""
    r = (
        session.runner()
        .feed(inputs.x, x)
        .feed(inputs.labels, y)
        .feed(inputs.eps, np.float64(eps))
        .fetch(net.logits)
        .fetch(net.advLogits)
        .run()
    )
    cleanCorrect: Array = np.argmax(r[0], axis=1) == y
    advCorrect: Array = np.argmax(r[1], axis=1) == y
    return float(np.mean(cleanCorrect)), float(np.mean(advCorrect))


def experiment(config: Config, progress: bool = False) -> Outcome:
    """Trains a normal and an adversarially trained network on the same minibatches."""
    from tqdm import tqdm  # type: ignore[import-untyped]

    data = loadDigits(config.trainSize, config.testSize)
    with Graph() as g, Session(g, backend=config.backend) as session:
        tf = Ops.create(g)
        inputs = Inputs.create(tf)
        nets = [
            network(g, inputs, name, alpha, config.hidden, config.seed, config.lr)
            for name, alpha in (("normal", 0.0), ("adversarial", config.alpha))
        ]
        rng = np.random.RandomState(config.seed)
        history: dict[str, list[tuple[float, float]]] = {net.name: [] for net in nets}
        epochs = tqdm(
            range(config.epochs),
            desc="training",
            unit="epoch",
            delay=1.0,
            disable=not progress,
            leave=False,
        )
        for _ in epochs:
            order = rng.permutation(len(data.yTrain))
            for start in range(0, len(order), config.batch):
                batch = order[start : start + config.batch]
                runner = (
                    session.runner()
                    .feed(inputs.x, data.xTrain[batch])
                    .feed(inputs.labels, data.yTrain[batch])
                    .feed(inputs.eps, np.float64(config.eps))
                )
                for net in nets:
                    runner.addTarget(net.step)
                runner.run()
            for net in nets:
                history[net.name].append(
                    accuracy(session, net, inputs, data.xTest, data.yTest, config.eps)
                )
        clean: dict[str, float] = {}
        adversarial: dict[str, float] = {}
        for net in nets:
            clean[net.name], adversarial[net.name] = history[net.name][-1]
        byEps = {
            net.name: [
                accuracy(session, net, inputs, data.xTest, data.yTest, eps)[1]
                for eps in config.epsGrid
            ]
            for net in nets
        }
    return Outcome(clean, adversarial, byEps, history)


Step = Callable[[Ops, F64, F64, F64], F64]
"""``signStep`` or ``l2Step``: ``(tf, x, d loss / d x, eps) -> xAdv``."""


@frozen
class Check:
    """How the adversarial-training gradient compares with and without ``stopGradient``.

    Differences are the largest absolute difference over every parameter's gradient, against
    the gradient computed with ``xAdv`` given as a constant (its numpy value).
    """

    method: str
    size: int
    """The number of images the loss is the mean over."""
    scale: float
    """The largest absolute parameter gradient (the constant-``xAdv`` one), for scale."""
    stopped: float
    """With ``stopGradient(xAdv)``."""
    unstopped: float
    """With ``xAdv`` as it is built, through the gradient of the loss w.r.t. the input."""
    stoppedOps: int
    """Ops the gradient generator added for the parameters' gradient with ``stopGradient``."""
    unstoppedOps: int
    """The same without ``stopGradient``: the extra ones differentiate the generation."""
    construction: dict[str, tuple[float | None, float | None]]
    """For the inputs of the generation, ``x``, ``g = d loss / d x`` and ``eps``: the largest
    absolute gradient of the adversarial loss ``loss(xAdv)`` with respect to them, with and
    without ``stopGradient`` (``None``: the generator found no path)."""


def gradientCheck(config: Config, size: int = 64) -> list[Check]:
    """Compares the training gradient on the first ``size`` training images, for FGSM's
    ``signStep`` and for the smooth ``l2Step``, with fresh network weights."""
    data = loadDigits(size, 0)
    with Graph() as g, Session(g, backend=config.backend) as session:
        tf = Ops.create(g)
        inputs = Inputs.create(tf)
        mlp = Mlp.create(tf, 64, config.hidden, 10, config.seed)
        params = mlp.params()
        clean = crossEntropy(tf, mlp.logits(tf, inputs.x), inputs.labels)
        grad = inputGradient(tf, clean, inputs.x)
        feeds: dict[AnyOperand, object] = {
            inputs.x: data.xTrain,
            inputs.labels: data.yTrain,
            inputs.eps: np.float64(config.eps),
        }

        def run(*fetches: AnyOperand) -> list[Array]:
            runner = session.runner()
            for key, value in feeds.items():
                runner.feed(key, value)
            for fetch in fetches:
                runner.fetch(fetch)
            return [np.asarray(v) for v in runner.run()]

        def advLoss(xAdv: F64) -> F64:
            return crossEntropy(tf, mlp.logits(tf, xAdv), inputs.labels)

        def paramGradients(xAdv: F64) -> tuple[list[Output[TFloat64]], int]:
            loss = mix(tf, clean, advLoss(xAdv), config.alpha)
            before = g.size()
            grads = gradientsOf(tf, loss, params)
            after = g.size()
            return [grad for grad in grads if grad is not None], after - before

        def largest(values: Sequence[Array]) -> float:
            return max(float(np.max(np.abs(v))) for v in values)

        def constructionGradients(xAdv: F64) -> list[Output[TFloat64] | None]:
            return gradientsOf(tf, advLoss(xAdv), [inputs.x, grad, inputs.eps])

        checks: list[Check] = []
        steps: list[tuple[str, Step]] = [("FGSM, sign", signStep), ("FGM, L2", l2Step)]
        for method, step in steps:
            xAdv = step(tf, inputs.x, grad, inputs.eps)
            stopped = tf.stopGradient(xAdv)
            reference, _ = paramGradients(tf.constant(run(xAdv)[0], TFloat64))
            viaStop, stoppedOps = paramGradients(stopped)
            viaGraph, unstoppedOps = paramGradients(xAdv)
            assert len(reference) == len(viaStop) == len(viaGraph) == len(params)
            construction = [*constructionGradients(stopped), *constructionGradients(xAdv)]
            # one run for all of them: one compilation on XLA
            values = iter(
                run(*reference, *viaStop, *viaGraph, *(d for d in construction if d is not None))
            )
            referenceValues, stopValues, graphValues = (
                [next(values) for _ in params] for _ in range(3)
            )
            largestGradients = [
                None if d is None else largest([next(values)]) for d in construction
            ]
            checks.append(
                Check(
                    method,
                    size,
                    largest(referenceValues),
                    largest([a - b for a, b in zip(stopValues, referenceValues, strict=True)]),
                    largest([a - b for a, b in zip(graphValues, referenceValues, strict=True)]),
                    stoppedOps,
                    unstoppedOps,
                    dict(
                        zip(
                            ("x", "g", "eps"),
                            zip(largestGradients[:3], largestGradients[3:], strict=True),
                            strict=True,
                        )
                    ),
                )
            )
    return checks
