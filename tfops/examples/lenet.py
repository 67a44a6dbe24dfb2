"""TF Java's LeNet (``CnnMnist`` in tensorflow/java-models), on scikit-learn's digits.

``python -m tfops.examples.lenet [--plot PATH] [--epochs N] [--backend {numpy,xla}]`` builds the
graph of TF Java's ``CnnMnist.build``, op for op through the same endpoints (``tf.nn.conv2d``,
``tf.nn.biasAdd``, ``tf.nn.relu``, ``tf.nn.maxPool`` with its window as int32 tensors,
``tf.reshape``, ``tf.linalg.matMul``, ``tf.nn.softmaxCrossEntropyWithLogits``, ``tf.nn.l2Loss``):
two 5x5 SAME convolutions of 32 and 64 filters, each followed by a ReLU and a 2x2 max pooling,
a fully connected layer of 512 and a softmax layer of 10, the weights drawn by
``tf.random.truncatedNormal`` with TF Java's seed and scaled by 0.1, the loss the mean cross
entropy plus 5e-4 times the L2 norms of the fully connected layers, minimized by Adam (TF Java's
``Adam(graph, 0.001, 0.9, 0.999, 1e-8)``, ``tfops.framework.optimizers.Adam``).

MNIST's 28x28 images need a download; scikit-learn's bundled digits (1797 images of 8x8 pixels
valued 0 to 16) do not, so they stand in: the input is 8x8 (the first fully connected layer then
has ``8 * 8 * 4`` inputs, TF Java's ``IMAGE_SIZE * IMAGE_SIZE * 4``) and the pixels are centered
and scaled by 16 instead of 255. The example prints the test accuracy and TF Java's confusion
matrix, and plots the training loss and the test accuracy by epoch.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

import numpy as np
from attrs import evolve, frozen

from tfops import Graph, Ops, Session, Shape
from tfops.backend import Backend
from tfops.examples import addBackendOption, digits
from tfops.examples._plotting import Axes, save
from tfops.examples.digits import Digits
from tfops.framework.optimizers import Adam
from tfops.op.core import NoOp, Placeholder, Variable
from tfops.output import Operand
from tfops.types import TFloat32, TInt32, TUint8

Array = np.ndarray[Any, Any]
F32 = Operand[TFloat32]

IMAGE_SIZE = 8
NUM_CHANNELS = 1
NUM_LABELS = 10
PIXEL_DEPTH = 16
"""The digits' pixels are 0 to 16 (MNIST's, 0 to 255)."""
SEED = 123456789
PADDING_TYPE = "SAME"


def loadDigits(trainSize: int | None = None, testSize: int | None = None) -> Digits:
    """The digits' split of :func:`tfops.examples.digits.loadDigits`: uint8 images
    ``[n, 8, 8]`` valued 0 to 16, uint8 labels."""
    return digits.loadDigits(trainSize, testSize, pixels=np.uint8, labels=np.uint8, flat=False)


@frozen
class LeNet:
    """The graph of TF Java's ``CnnMnist.build``: its inputs, outputs and training op."""

    input: Placeholder[TUint8]
    labels: Placeholder[TUint8]
    logits: F32
    prediction: F32
    loss: F32
    train: NoOp
    params: tuple[Variable[TFloat32], ...]


def weights(tf: Ops, *dims: int) -> Variable[TFloat32]:
    """``tf.variable(truncatedNormal(dims, seed) * 0.1)``, as TF Java draws every weight."""
    return tf.variable(tf.math.mul(tf.random.truncatedNormal(tf.constant(list(dims)), TFloat32,
                                                             seed=SEED), np.float32(0.1)))


def biases(tf: Ops, size: int, value: float) -> Variable[TFloat32]:
    """``tf.variable(fill([size], value))``."""
    return tf.variable(tf.fill(tf.constant([size]), tf.constant(np.float32(value))))


def build(tf: Ops) -> LeNet:
    """TF Java's ``CnnMnist.build`` with the Adam optimizer, for 8x8 images."""
    # inputs
    input = tf.withName("input").placeholder(
        TUint8, Placeholder.shape(Shape.of(-1, IMAGE_SIZE, IMAGE_SIZE)))
    reshaped = tf.reshape(input, tf.constant([-1, IMAGE_SIZE, IMAGE_SIZE, NUM_CHANNELS]))
    labels = tf.withName("target").placeholder(TUint8)
    # scaling the features
    centering, scaling = np.float32(PIXEL_DEPTH / 2.0), np.float32(PIXEL_DEPTH)
    scaled = tf.math.div(tf.math.sub(tf.dtypes.cast(reshaped, TFloat32), centering), scaling)
    window = tf.constant([1, 2, 2, 1], TInt32)
    ones = [1, 1, 1, 1]
    # first conv layer and pooling
    conv1Weights = weights(tf, 5, 5, NUM_CHANNELS, 32)
    conv1 = tf.nn.conv2d(scaled, conv1Weights, ones, PADDING_TYPE)
    conv1Biases = biases(tf, 32, 0.0)
    relu1 = tf.nn.relu(tf.nn.biasAdd(conv1, conv1Biases))
    pool1 = tf.nn.maxPool(relu1, window, window, PADDING_TYPE)
    # second conv layer and pooling
    conv2Weights = weights(tf, 5, 5, 32, 64)
    conv2 = tf.nn.conv2d(pool1, conv2Weights, ones, PADDING_TYPE)
    conv2Biases = biases(tf, 64, 0.1)
    relu2 = tf.nn.relu(tf.nn.biasAdd(conv2, conv2Biases))
    pool2 = tf.nn.maxPool(relu2, window, window, PADDING_TYPE)
    # flatten: [batch, -1], the batch read from the tensor's shape
    batch = tf.slice(tf.shape(pool2), tf.constant([0]), tf.constant([1]))
    flatten = tf.reshape(pool2, tf.concat([batch, tf.constant([-1])], tf.constant(0)))
    # fully connected layer
    fc1Weights = weights(tf, IMAGE_SIZE * IMAGE_SIZE * 4, 512)
    fc1Biases = biases(tf, 512, 0.1)
    relu3 = tf.nn.relu(tf.math.add(tf.linalg.matMul(flatten, fc1Weights), fc1Biases))
    # softmax layer
    fc2Weights = weights(tf, 512, NUM_LABELS)
    fc2Biases = biases(tf, NUM_LABELS, 0.1)
    logits = tf.math.add(tf.linalg.matMul(relu3, fc2Weights), fc2Biases)
    prediction = tf.withName("output").nn.softmax(logits)
    # loss and regularization
    oneHot = tf.oneHot(labels, tf.constant(NUM_LABELS), tf.constant(np.float32(1.0)),
                       tf.constant(np.float32(0.0)))
    batchLoss = tf.nn.softmaxCrossEntropyWithLogits(logits, oneHot)
    labelLoss = tf.math.mean(batchLoss.loss(), tf.constant(0))
    regularizers = tf.math.add(tf.nn.l2Loss(fc1Weights), tf.math.add(
        tf.nn.l2Loss(fc1Biases), tf.math.add(tf.nn.l2Loss(fc2Weights), tf.nn.l2Loss(fc2Biases))))
    loss = tf.withName("training_loss").math.add(labelLoss,
                                                 tf.math.mul(regularizers, np.float32(5e-4)))
    params = (conv1Weights, conv1Biases, conv2Weights, conv2Biases, fc1Weights, fc1Biases,
              fc2Weights, fc2Biases)
    graph = tf.scope().env()
    assert isinstance(graph, Graph)
    train = Adam(graph, 0.001, betaOne=0.9, betaTwo=0.999, epsilon=1e-8).minimize(loss, "train")
    return LeNet(input, labels, logits, prediction, loss, train, params)


@frozen
class Config:
    """The experiment's sizes and the backend its session runs on; the defaults are the full
    example."""

    trainSize: int | None = None
    testSize: int | None = None
    epochs: int = 10
    batch: int = 64
    seed: int = 0
    backend: str | Backend = "numpy"


@frozen
class Outcome:
    """What training measured."""

    losses: list[float]
    """The training loss of every minibatch step."""
    accuracy: list[float]
    """The test accuracy after each epoch."""
    trainAccuracy: float
    confusion: Array
    """``confusion[label, predicted]``, over the test images, after training."""


def predict(session: Session, net: LeNet, images: Array, batch: int = 256) -> Array:
    """The predicted class of each image."""
    predicted: list[Array] = []
    for start in range(0, len(images), batch):
        value = session.runner().feed(net.input, images[start:start + batch]).fetch(
            net.prediction).run()[0]
        predicted.append(np.argmax(np.asarray(value), axis=1))
    return np.concatenate(predicted) if predicted else np.zeros(0, np.int64)


def experiment(config: Config, progress: bool = False) -> Outcome:
    """Builds LeNet and trains it on minibatches of the digits, shuffled each epoch."""
    from tqdm import tqdm  # type: ignore[import-untyped]

    data = loadDigits(config.trainSize, config.testSize)
    with Graph() as g, Session(g, backend=config.backend) as session:
        net = build(Ops.create(g))
        session.initialize()
        rng = np.random.RandomState(config.seed)
        losses: list[float] = []
        accuracy: list[float] = []
        epochs = tqdm(range(config.epochs), desc="training", unit="epoch", delay=1.0,
                      disable=not progress, leave=False)
        for _ in epochs:
            order = rng.permutation(len(data.yTrain))
            for start in range(0, len(order), config.batch):
                batch = order[start:start + config.batch]
                value = (session.runner().feed(net.input, data.xTrain[batch])
                         .feed(net.labels, data.yTrain[batch]).addTarget(net.train)
                         .fetch(net.loss).run()[0])
                losses.append(float(np.asarray(value)))
            correct: Array = predict(session, net, data.xTest) == data.yTest
            accuracy.append(float(np.mean(correct)))
        predicted = predict(session, net, data.xTest)
        confusion = np.zeros((NUM_LABELS, NUM_LABELS), np.int64)
        np.add.at(confusion, (data.yTest.astype(np.int64), predicted), 1)
        correct = predict(session, net, data.xTrain) == data.yTrain
        trainAccuracy = float(np.mean(correct))
    return Outcome(losses, accuracy, trainAccuracy, confusion)


def _backendName(backend: str | Backend) -> str:
    return backend if isinstance(backend, str) else backend.name


def report(config: Config, outcome: Outcome) -> str:
    """The printed tables: accuracy by epoch, and TF Java's confusion matrix."""
    data = loadDigits(config.trainSize, config.testSize)
    steps = len(outcome.losses)
    lines = [
        f"LeNet (TF Java's CnnMnist) on scikit-learn's digits, on the "
        f"{_backendName(config.backend)} backend: {len(data.yTrain)} training and "
        f"{len(data.yTest)} test images of 8x8,",
        f"Adam (lr 0.001), {config.epochs} epochs of minibatches of {config.batch} ({steps} "
        "steps)",
        "",
    ]
    header = "epoch | training loss (last step) | test accuracy"
    lines += [header, "-" * len(header)]
    perEpoch = max(steps // max(config.epochs, 1), 1)
    for epoch, acc in enumerate(outcome.accuracy, 1):
        loss = outcome.losses[min(epoch * perEpoch, steps) - 1]
        lines.append(f"{epoch:>5} | {loss:>25.4f} | {100 * acc:>11.1f} %")
    lines += ["", f"training accuracy {100 * outcome.trainAccuracy:.1f} %, test accuracy "
              f"{100 * outcome.accuracy[-1]:.1f} %", "",
              "confusion matrix (rows: label, columns: prediction)", ""]
    lines.append("      " + "".join(f"{k:>5}" for k in range(NUM_LABELS)))
    for label, row in enumerate(outcome.confusion):
        lines.append(f"{label:>5} " + "".join(f"{n:>5}" for n in row))
    return "\n".join(lines)


def plot(config: Config, outcome: Outcome, path: str) -> None:
    """The training loss by step and the test accuracy by epoch."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    left: Axes  # plt.subplots gives Any: declared, so each call is checked
    right: Axes
    fig, (left, right) = plt.subplots(1, 2, figsize=(9.0, 3.4))
    left.plot(np.arange(1, len(outcome.losses) + 1), outcome.losses, color="tab:blue")
    left.set(xlabel="step", ylabel="training loss", yscale="log",
             title="loss (cross entropy + 5e-4 L2)")
    epochs = np.arange(1, len(outcome.accuracy) + 1)
    right.plot(epochs, outcome.accuracy, "o-", color="tab:red")
    right.set(xlabel="epoch", ylabel="test accuracy", ylim=(0, 1), title="test accuracy")
    fig.tight_layout()
    save(fig, path, dpi=80)
    plt.close(fig)


def main(argv: Sequence[str] | None = None, config: Config | None = None) -> None:
    """Trains LeNet, prints the tables and writes the plot (``config``: a smaller experiment,
    for the tests; ``--backend`` and ``--epochs`` replace its fields)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--plot", default="lenet.png", help="where to write the PNG plot")
    parser.add_argument("--epochs", type=int, default=None, help="epochs of training")
    addBackendOption(parser)
    args = parser.parse_args(argv)
    config = evolve(config or Config(), backend=args.backend)
    if args.epochs is not None:
        config = evolve(config, epochs=args.epochs)
    outcome = experiment(config, progress=True)
    print(report(config, outcome))
    plot(config, outcome, args.plot)
    print(f"\nplot written to {args.plot}")


if __name__ == "__main__":
    main()
