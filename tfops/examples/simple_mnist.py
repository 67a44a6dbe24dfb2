"""TF Java's ``SimpleMnist`` (tensorflow/java-models, ``examples/dense/SimpleMnist.java``), ported.

``python -m tfops.examples.simple_mnist [--epochs N] [--backend {numpy,xla}]`` builds the graph
of TF Java's ``SimpleMnist.run`` op for op: softmax regression, ``softmax(images weights +
biases)`` with ``weights`` and ``biases`` variables starting at zeros, the cross entropy written
out as ``mean(-reduceSum(labels * log(softmax), 1), 0)``, minimized by
``GradientDescent(graph, 0.2).minimize(crossEntropy)``, and the accuracy as the mean of
``argMax(softmax, 1) == argMax(labels, 1)``. It trains on minibatches of 100 training images in
order, then prints the test accuracy. As in TF Java, nothing is initialized by hand: the
session runs the variables' initializers before its first run.

Two departures, both forced:

- MNIST is a download (TF Java's example reads it from its resources) and none is possible
  here, so scikit-learn's bundled digits stand in: 1797 images of 8x8 pixels valued 0 to 16,
  split once (shuffled with seed 0) into 1347 training and 450 test images. The pixels are
  divided by 16 where TF Java divides by 255, and an image has 64 pixels instead of 784.
  :class:`DigitsDataset` has the methods of TF Java's ``MnistDataset`` the example calls.
- TF Java preprocesses each batch with eager ops (``Ops.create()`` with no graph: cast, reshape,
  divide; ``oneHot``). tfops has no eager mode, so :func:`preprocessImages` and
  :func:`preprocessLabels` compute the same values with numpy.

TF Java's program makes one pass over MNIST's 60000 images, 600 steps; one pass over the 1347
digits is 14 steps, so ``--epochs`` (default 10) repeats the pass.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any

import numpy as np
from attrs import frozen

from tfops import Graph, Ops, Session
from tfops.backend import Backend
from tfops.examples import addBackendOption
from tfops.examples.lenet import loadDigits
from tfops.framework.optimizers import GradientDescent, Optimizer
from tfops.output import Operand
from tfops.types import TFloat32, TInt64

Array = np.ndarray[Any, Any]


@frozen
class ImageBatch:
    """A batch of raw images (uint8 ``[n, 8, 8]``) and their labels (uint8 ``[n]``)."""

    images: Array
    labels: Array


@frozen
class DigitsDataset:
    """scikit-learn's digits with the part of TF Java's ``MnistDataset`` that SimpleMnist uses."""

    NUM_CLASSES = 10

    trainingImages: Array
    trainingLabels: Array
    testImages: Array
    testLabels: Array

    @staticmethod
    def create() -> DigitsDataset:
        """The bundled digits as bytes, as ``MnistDataset.create`` reads MNIST's archives."""
        data = loadDigits()
        return DigitsDataset(data.xTrain, data.yTrain, data.xTest, data.yTest)

    def trainingBatches(self, batchSize: int) -> Iterator[ImageBatch]:
        """The training images in order, ``batchSize`` at a time (the last batch smaller)."""
        for start in range(0, len(self.trainingLabels), batchSize):
            end = start + batchSize
            yield ImageBatch(self.trainingImages[start:end], self.trainingLabels[start:end])

    def testBatch(self) -> ImageBatch:
        """Every test image."""
        return ImageBatch(self.testImages, self.testLabels)

    def imageSize(self) -> int:
        """The pixels of an image: 64."""
        return int(self.trainingImages[0].size)


VALIDATION_SIZE = 0
"""TF Java's; the digits have no validation part either."""
TRAINING_BATCH_SIZE = 100
LEARNING_RATE = 0.2
PIXEL_DEPTH = 16.0
"""The digits' largest pixel value (MNIST's: 255)."""


def preprocessImages(rawImages: Array) -> Array:
    """Flattens the images and scales their pixels to [0, 1], as float32."""
    imageSize = int(rawImages[0].size)
    scaled: Array = np.reshape(rawImages.astype(np.float32), (-1, imageSize)) / np.float32(
        PIXEL_DEPTH)
    return scaled


def preprocessLabels(rawLabels: Array) -> Array:
    """One-hot vectors: 1.0 at the label, 0.0 elsewhere (float32)."""
    oneHot: Array = np.eye(DigitsDataset.NUM_CLASSES, dtype=np.float32)[rawLabels]
    return oneHot


class SimpleMnist:
    """The program: ``SimpleMnist(graph, dataset).run()`` builds, trains and tests the model."""

    def __init__(
        self,
        graph: Graph,
        dataset: DigitsDataset,
        epochs: int = 10,
        backend: str | Backend = "numpy",
    ) -> None:
        self.graph = graph
        self.dataset = dataset
        self.epochs = epochs
        self.backend = backend

    def run(self) -> float:
        """Trains the model and returns (and prints) its test accuracy."""
        tf = Ops.create(self.graph)

        # Placeholders for batches of an unknown number of images and their one-hot labels
        images = tf.placeholder(TFloat32)
        labels = tf.placeholder(TFloat32)

        # Weights and biases, starting at zeros
        weightShape = [self.dataset.imageSize(), DigitsDataset.NUM_CLASSES]
        weights = tf.variable(tf.zeros(tf.constant(weightShape), TFloat32))
        biasShape = [DigitsDataset.NUM_CLASSES]
        biases = tf.variable(tf.zeros(tf.constant(biasShape), TFloat32))

        # The class probabilities of each image, and the loss
        softmax = tf.nn.softmax(tf.math.add(tf.linalg.matMul(images, weights), biases))
        crossEntropy = tf.math.mean(
            tf.math.neg(tf.reduceSum(tf.math.mul(labels, tf.math.log(softmax)), tf.array(1))),
            tf.array(0),
        )

        # The training step: the gradients of the loss, one descent step of every variable
        optimizer: Optimizer = GradientDescent(self.graph, LEARNING_RATE)
        minimize = optimizer.minimize(crossEntropy)

        # The accuracy of the model
        predicted: Operand[TInt64] = tf.math.argMax(softmax, tf.constant(1))
        expected: Operand[TInt64] = tf.math.argMax(labels, tf.constant(1))
        accuracy: Operand[TFloat32] = tf.math.mean(
            tf.dtypes.cast(tf.math.equal(predicted, expected), TFloat32), tf.array(0)
        )

        # Run the graph (no initialization to call: the session does it)
        with Session(self.graph, backend=self.backend) as session:
            # Train the model
            for _ in range(self.epochs):
                for trainingBatch in self.dataset.trainingBatches(TRAINING_BATCH_SIZE):
                    batchImages = preprocessImages(trainingBatch.images)
                    batchLabels = preprocessLabels(trainingBatch.labels)
                    (
                        session.runner()
                        .addTarget(minimize)
                        .feed(images.asOutput(), batchImages)
                        .feed(labels.asOutput(), batchLabels)
                        .run()
                    )

            # Test the model
            testBatch = self.dataset.testBatch()
            testImages = preprocessImages(testBatch.images)
            testLabels = preprocessLabels(testBatch.labels)
            result = (
                session.runner()
                .fetch(accuracy)
                .feed(images.asOutput(), testImages)
                .feed(labels.asOutput(), testLabels)
                .run()
            )
            accuracyValue = float(result.get(0))
            print(f"Accuracy: {accuracyValue}")
            return accuracyValue


def main(argv: list[str] | None = None) -> float:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--epochs", type=int, default=10, help="passes over the training images (default 10)"
    )
    addBackendOption(parser)
    args = parser.parse_args(argv)
    if args.epochs < 1:
        parser.error(f"--epochs must be positive, got {args.epochs}")
    dataset = DigitsDataset.create()
    with Graph() as graph:
        mnist = SimpleMnist(graph, dataset, args.epochs, args.backend)
        return mnist.run()


if __name__ == "__main__":
    main()
