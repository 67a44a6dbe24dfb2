"""The model of the "Training a model" guide: a multilayer perceptron on scikit-learn's digits.

``python -m tfops.examples.mlp [--steps N] [--batch B] [--lr RATE] [--logdir DIR]
[--backend {numpy,xla}]``
trains a 64-128-64-10 perceptron (two ReLU hidden layers, float32) on the bundled 8x8 digits
(no download; pixels scaled to [0, 1], a fixed 3/4 : 1/4 split) with
``Adam(graph, lr).minimize(loss)``, one minibatch per step and a tqdm progress bar, then prints
the test accuracy. The loss and the accuracy are each one small function (:func:`crossEntropy`,
:func:`accuracy`). The session initializes the weights and Adam's slots by itself before the
first step. ``docs/concepts/training.md`` walks through this module; ``bench/mlp.py`` times its
training step against the same step with Adam written by hand.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from contextlib import ExitStack
from typing import Any

import numpy as np
from attrs import frozen

from tfops import Graph, Ops, Session, Shape
from tfops.backend import Backend
from tfops.examples import addBackendOption, digits
from tfops.examples.digits import Digits
from tfops.framework.losses import SparseCategoricalCrossentropy
from tfops.framework.metrics import SparseCategoricalAccuracy
from tfops.framework.optimizers import Adam
from tfops.op.core import NoOp, Placeholder, Variable
from tfops.output import Operand, Output
from tfops.summary import SummaryWriter
from tfops.types import TFloat32, TInt64

Array = np.ndarray[Any, Any]
F32 = Operand[TFloat32]

NUM_CLASSES = 10
IMAGE_SIZE = 64
"""8x8 pixels, flattened."""
HIDDEN = (128, 64)
TRAIN_SIZE = 1347
"""The training images of the split :func:`loadDigits` makes (3/4 of 1797)."""


def loadDigits() -> Digits:
    """The digits' split of :func:`tfops.examples.digits.loadDigits`: rows of 64 float32
    pixels in [0, 1], int64 labels."""
    return digits.loadDigits(pixels=np.float32)


def crossEntropy(tf: Ops, logits: F32, labels: Operand[TInt64]) -> F32:
    """The loss: the softmax cross entropy of ``logits`` against integer ``labels``, averaged
    over the minibatch (Keras' sparse categorical cross entropy)."""
    return SparseCategoricalCrossentropy(tf, fromLogits=True).call(labels, logits)


def accuracy(tf: Ops, logits: F32, labels: Operand[TInt64]) -> Accuracy:
    """The fraction of images whose largest logit is their label's, as Keras' sparse categorical
    accuracy metric: ``update`` counts a batch, ``value`` is the fraction so far."""
    metric = SparseCategoricalAccuracy(tf, "accuracy")
    return Accuracy(metric.updateState(labels, logits), metric.result(), metric.resetStates())


@frozen
class Accuracy:
    """The ops of the accuracy metric: run ``update`` on batches, then fetch ``value``;
    ``reset`` starts the count again."""

    update: NoOp
    value: Output[TFloat32]
    reset: NoOp


@frozen
class Mlp:
    """The perceptron's graph: its inputs, parameters, outputs; no training op."""

    images: Placeholder[TFloat32]
    labels: Placeholder[TInt64]
    params: tuple[Variable[TFloat32], ...]
    """``w1, b1, w2, b2, ...``: each layer's weights and biases."""
    logits: F32
    loss: F32
    accuracy: Accuracy

    @staticmethod
    def create(tf: Ops, hidden: Sequence[int] = HIDDEN, seed: int = 0) -> Mlp:
        """Layers of ``hidden`` ReLU units then ``NUM_CLASSES`` logits; Glorot-uniform weights
        drawn by numpy from ``seed``, zero biases."""
        images = tf.withName("images").placeholder(
            TFloat32, Placeholder.shape(Shape.of(-1, IMAGE_SIZE))
        )
        labels = tf.withName("labels").placeholder(TInt64, Placeholder.shape(Shape.of(-1)))
        rng = np.random.RandomState(seed)
        sizes = [IMAGE_SIZE, *hidden, NUM_CLASSES]
        params: list[Variable[TFloat32]] = []
        x: F32 = images
        for layer, (fanIn, fanOut) in enumerate(zip(sizes[:-1], sizes[1:], strict=True), 1):
            limit = np.sqrt(6.0 / (fanIn + fanOut))
            w0 = rng.uniform(-limit, limit, size=(fanIn, fanOut)).astype(np.float32)
            w = tf.withName(f"w{layer}").variable(tf.constant(w0, TFloat32))
            b = tf.withName(f"b{layer}").variable(
                tf.constant(np.zeros(fanOut, np.float32), TFloat32)
            )
            params += [w, b]
            x = tf.nn.biasAdd(tf.linalg.matMul(x, w), b)
            if layer < len(sizes) - 1:
                x = tf.nn.relu(x)
        return Mlp(
            images,
            labels,
            tuple(params),
            x,
            crossEntropy(tf, x, labels),
            accuracy(tf, x, labels),
        )


def train(
    session: Session,
    mlp: Mlp,
    step: NoOp,
    data: Digits,
    steps: int,
    batch: int = 64,
    seed: int = 0,
    progress: bool = True,
    writer: SummaryWriter | None = None,
) -> list[float]:
    """Runs ``step`` on ``steps`` minibatches of ``batch`` training images drawn with ``seed``,
    with a progress bar showing the loss; returns the loss of each step (also written to
    ``writer`` as the scalar ``loss``, when given)."""
    from tqdm import tqdm  # type: ignore[import-untyped]

    rng = np.random.RandomState(seed)
    losses: list[float] = []
    bar = tqdm(range(steps), desc="training", unit="step", disable=not progress, leave=False)
    for _ in bar:
        pick = rng.choice(len(data.yTrain), batch, replace=False)
        result = (
            session.runner()
            .feed(mlp.images, data.xTrain[pick])
            .feed(mlp.labels, data.yTrain[pick])
            .addTarget(step)
            .fetch(mlp.loss)
            .run()
        )
        losses.append(float(result[0]))
        if writer is not None:
            writer.scalar("loss", losses[-1], len(losses))
        bar.set_postfix_str(f"loss={losses[-1]:.3f}", refresh=False)  # as set_postfix(loss=)
    return losses


def evaluate(session: Session, mlp: Mlp, x: Array, y: Array) -> float:
    """The accuracy of the model on images ``x`` with labels ``y``."""
    session.runner().addTarget(mlp.accuracy.reset).run()
    session.runner().feed(mlp.images, x).feed(mlp.labels, y).addTarget(mlp.accuracy.update).run()
    return float(session.runner().fetch(mlp.accuracy.value).run()[0])


@frozen
class Outcome:
    """What a run measured."""

    losses: list[float]
    """The training loss at each step."""
    accuracy: float
    """The test accuracy after the last step."""


def experiment(
    steps: int,
    batch: int = 64,
    learningRate: float = 0.01,
    backend: str | Backend = "numpy",
    seed: int = 0,
    progress: bool = False,
    logdir: str | None = None,
) -> Outcome:
    """Builds the perceptron, trains it with ``Adam(graph, learningRate).minimize`` for
    ``steps`` steps and measures its test accuracy. With ``logdir``, TensorBoard event files
    go there: the graph, the loss at each step, the test accuracy and the final weights'
    histograms."""
    data = loadDigits()
    with Graph() as g, Session(g, backend=backend) as session, ExitStack() as stack:
        mlp = Mlp.create(Ops.create(g), seed=seed)
        step = Adam(g, learningRate).minimize(mlp.loss)
        writer = None if logdir is None else stack.enter_context(SummaryWriter(logdir))
        if writer is not None:
            writer.addGraph(g)
        losses = train(session, mlp, step, data, steps, batch, seed, progress, writer)
        accuracy = evaluate(session, mlp, data.xTest, data.yTest)
        if writer is not None:
            writer.scalar("test_accuracy", accuracy, steps)
            for param in mlp.params:
                value = session.runner().fetch(param).run()[0]
                writer.histogram(param.op().name(), value, steps)
        return Outcome(losses, accuracy)


def main(argv: list[str] | None = None) -> Outcome:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--steps", type=int, default=300, help="training steps (default 300)")
    parser.add_argument("--batch", type=int, default=64, help="images a step (default 64)")
    parser.add_argument("--lr", type=float, default=0.01, help="Adam's learning rate (0.01)")
    parser.add_argument("--seed", type=int, default=0, help="weights and minibatches (0)")
    parser.add_argument(
        "--logdir",
        default=None,
        help="write TensorBoard event files there (the graph, the loss, the accuracy, the "
        "weights); needs the extra tfops-java[summary]",
    )
    addBackendOption(parser)
    args = parser.parse_args(argv)
    if args.steps < 1:
        parser.error(f"--steps must be positive, got {args.steps}")
    if not 1 <= args.batch <= TRAIN_SIZE:
        parser.error(
            f"--batch must be from 1 to {TRAIN_SIZE} (the training images), got {args.batch}"
        )
    outcome = experiment(
        args.steps, args.batch, args.lr, args.backend, args.seed, progress=True, logdir=args.logdir
    )
    sizes = "-".join(str(n) for n in (IMAGE_SIZE, *HIDDEN, NUM_CLASSES))
    print(
        f"MLP {sizes} on scikit-learn's digits, on the {args.backend} backend: Adam({args.lr}), "
        f"{args.steps} steps of {args.batch} images"
    )
    print(
        f"training loss: {outcome.losses[0]:.3f} at the first step, {outcome.losses[-1]:.3f} "
        "at the last"
    )
    print(f"test accuracy: {100 * outcome.accuracy:.1f} %")
    return outcome


if __name__ == "__main__":
    main()
