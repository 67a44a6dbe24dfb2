"""The port of TF Java's SimpleMnist: its graph, its preprocessing, and what it learns."""

from __future__ import annotations

import inspect
from collections import Counter

import numpy as np
import pytest

from tfops import Graph, Ops, Session
from tfops.backend import backendNames
from tfops.examples import simple_mnist
from tfops.examples.simple_mnist import (
    DigitsDataset,
    SimpleMnist,
    main,
    preprocessImages,
    preprocessLabels,
)
from tfops.types import TFloat32


@pytest.fixture(scope="module")
def dataset() -> DigitsDataset:
    return DigitsDataset.create()


@pytest.fixture(scope="module", params=backendNames())
def backend(request: pytest.FixtureRequest) -> str:
    """Every backend in turn (overrides conftest's ``TFOPS_TEST_BACKEND`` one)."""
    name: str = request.param
    return name


def test_theDatasetHasMnistDatasetsMethods(dataset: DigitsDataset) -> None:
    assert dataset.imageSize() == 64
    batches = list(dataset.trainingBatches(100))
    assert [len(b.labels) for b in batches] == [100] * 13 + [47]  # 1347 images, in order
    np.testing.assert_array_equal(batches[1].images, dataset.trainingImages[100:200])
    assert batches[0].images.dtype == np.uint8 and batches[0].images.shape == (100, 8, 8)
    assert len(dataset.testBatch().labels) == 450


def test_preprocessingGivesWhatTfJavasEagerOpsGive(dataset: DigitsDataset) -> None:
    """TF Java: div(reshape(cast(images), [-1, size]), 255) and oneHot(labels, 10, 1, 0); here
    numpy, checked against the same ops run in a graph (with 16 for 255)."""
    batch = next(iter(dataset.trainingBatches(100)))
    with Graph() as g, Session(g) as session:
        tf = Ops.create(g)
        images = tf.math.div(
            tf.reshape(tf.dtypes.cast(tf.constant(batch.images), TFloat32), tf.array(-1, 64)),
            tf.constant(np.float32(16.0)),
        )
        labels = tf.oneHot(
            tf.constant(batch.labels),
            tf.constant(10),
            tf.constant(np.float32(1.0)),
            tf.constant(np.float32(0.0)),
        )
        expected = session.runner().fetch(images).fetch(labels).run()
    gotImages, gotLabels = preprocessImages(batch.images), preprocessLabels(batch.labels)
    assert gotImages.dtype == np.float32 and gotLabels.dtype == np.float32
    np.testing.assert_array_equal(gotImages, expected[0])
    np.testing.assert_array_equal(gotLabels, expected[1])


def test_theGraphIsTfJavasSimpleMnist(dataset: DigitsDataset) -> None:
    with Graph() as g:
        SimpleMnist(g, dataset, epochs=1).run()
        types = Counter(op.type() for op in g.operations())
    for op in ("Softmax", "Log", "Neg", "Sum", "MatMul", "Equal", "Cast"):
        assert types[op] >= 1, op
    assert types["VariableV2"] == 2 and types["ApplyGradientDescent"] == 2
    assert types["ArgMax"] == 2 and types["Mean"] == 2  # the loss and the accuracy
    assert types["Placeholder"] == 2


def test_noInitializationIsCalled() -> None:
    source = inspect.getsource(simple_mnist.SimpleMnist)
    assert ".initialize(" not in source and ".init(" not in source


def test_softmaxRegressionLearnsTheDigits(dataset: DigitsDataset, backend: str) -> None:
    """Ten passes of 14 steps: 92.0 % test accuracy with this split, on either backend."""
    with Graph() as g:
        accuracy = SimpleMnist(g, dataset, epochs=10, backend=backend).run()
    assert accuracy > 0.9


def test_mainPrintsTheAccuracyAsTfJavaDoes(capsys: pytest.CaptureFixture[str]) -> None:
    accuracy = main(["--epochs", "3"])
    assert capsys.readouterr().out == f"Accuracy: {accuracy}\n"
    assert accuracy > 0.8  # 87.3 % after three passes
    with pytest.raises(SystemExit):
        main(["--epochs", "0"])
    assert "--epochs must be positive, got 0" in capsys.readouterr().err
