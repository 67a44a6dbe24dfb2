"""The LeNet example: TF Java's CnnMnist graph trained on scikit-learn's digits, on each backend."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from attrs import evolve

from tfops import Graph, Ops, Session, Shape
from tfops.backend import backendNames
from tfops.examples.lenet import Config, build, experiment, loadDigits, main

SMALL = Config(trainSize=320, testSize=160, epochs=4)


@pytest.fixture(scope="module", params=backendNames())
def backend(request: pytest.FixtureRequest) -> str:
    """Every backend in turn (overrides conftest's ``TFOPS_TEST_BACKEND`` one)."""
    name: str = request.param
    return name


def test_digitsAreUint8ImagesAndLabels() -> None:
    data = loadDigits()
    assert data.xTrain.shape == (1347, 8, 8) and data.xTest.shape == (450, 8, 8)
    assert data.xTrain.dtype == np.uint8 and data.yTrain.dtype == np.uint8
    assert data.xTrain.max() == 16 and set(np.unique(data.yTest)) == set(range(10))


def test_theGraphIsTfJavasCnnMnist() -> None:
    with Graph() as g:
        net = build(Ops.create(g))
        types = [op.type() for op in g.operations()]
        assert types.count("Conv2D") == 2 and types.count("MaxPoolV2") == 2
        assert types.count("Conv2DBackpropFilter") == 2  # the gradients of both filters
        assert types.count("Conv2DBackpropInput") == 1  # the input of conv1 needs none
        assert types.count("MaxPoolGradV2") == 2 and types.count("ApplyAdam") == 8
        assert net.logits.asOutput().shape() == Shape.of(-1, 10)
        shapes = [p.asOutput().shape() for p in net.params]
        assert shapes == [Shape.of(5, 5, 1, 32), Shape.of(32), Shape.of(5, 5, 32, 64),
                          Shape.of(64), Shape.of(256, 512), Shape.of(512), Shape.of(512, 10),
                          Shape.of(10)]


def test_trainingLowersTheLossAndLearnsTheDigits(backend: str) -> None:
    outcome = experiment(evolve(SMALL, backend=backend))
    steps = len(outcome.losses)
    assert steps == SMALL.epochs * 5  # 320 images in minibatches of 64
    assert np.mean(outcome.losses[-5:]) < 0.6 * np.mean(outcome.losses[:5])
    assert outcome.accuracy[-1] > 0.75 and outcome.trainAccuracy > 0.75
    tests = 160
    assert outcome.confusion.sum() == tests
    assert np.trace(outcome.confusion) == round(outcome.accuracy[-1] * tests)


def test_bothBackendsComputeTheSameLossFromTheSameWeights() -> None:
    data = loadDigits(64, 0)
    weights: list[np.ndarray] = []
    losses = []
    for backend in backendNames():
        with Graph() as g, Session(g, backend=backend) as session:
            net = build(Ops.create(g))
            session.initialize()
            if not weights:  # the first backend's draws (each backend draws its own)
                weights = [np.asarray(session.runner().fetch(p).run()[0]) for p in net.params]
            runner = session.runner().feed(net.input, data.xTrain).feed(net.labels, data.yTrain)
            for param, value in zip(net.params, weights, strict=True):
                runner.feed(param, value)
            losses.append(float(np.asarray(runner.fetch(net.loss).run()[0])))
    np.testing.assert_allclose(losses[1:], losses[0], rtol=1e-5)  # float32 rounding


def test_mainPrintsTheTablesAndWritesThePlot(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "lenet.png"
    main(["--plot", str(path), "--epochs", "2"], SMALL)
    out = capsys.readouterr().out
    assert "on the numpy backend" in out and "confusion matrix" in out
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = [line for line in out.splitlines() if line.endswith("%") and "|" in line]
    assert [int(row.split("|")[0]) for row in rows] == [1, 2]
