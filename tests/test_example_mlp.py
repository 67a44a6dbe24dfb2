"""The MLP of the "Training a model" guide (``tfops/examples/mlp.py``): it learns the digits
with ``Adam.minimize`` on each backend, and the guide's code is the module's."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np
import pytest

from tfops import Graph, Ops, Session
from tfops.backend import backendNames
from tfops.examples import mlp
from tfops.examples.mlp import Mlp, experiment, loadDigits, main
from tfops.framework.optimizers import Adam

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "concepts" / "training.md"


@pytest.fixture(scope="module", params=backendNames())
def backend(request: pytest.FixtureRequest) -> str:
    """Every backend in turn (overrides conftest's ``TFOPS_TEST_BACKEND`` one)."""
    name: str = request.param
    return name


def test_digitsAreFlatFloat32ImagesAndInt64Labels() -> None:
    data = loadDigits()
    assert data.xTrain.shape == (mlp.TRAIN_SIZE, 64) and data.xTest.shape == (450, 64)
    assert data.xTrain.dtype == np.float32 and data.yTrain.dtype == np.int64
    assert data.xTrain.min() == 0.0 and data.xTrain.max() == 1.0
    assert set(np.unique(data.yTest)) == set(range(10))


def test_theStepIsAdamMinimizeOverEveryLayer() -> None:
    with Graph() as g:
        model = Mlp.create(Ops.create(g))
        adam = Adam(g, 0.01)
        step = adam.minimize(model.loss)
        types = [op.type() for op in g.operations()]
        assert types.count("ApplyAdam") == 6 and step.op().type() == "NoOp"
        assert [p.op().name() for p in model.params] == ["w1", "b1", "w2", "b2", "w3", "b3"]
        for p in model.params:
            m = adam.getSlot(p, "m")
            assert m is not None and m.op().name() == f"{p.op().name()}-m"
        shapes = [p.asOutput().shape().asArray() for p in model.params]
        assert shapes == [(64, 128), (128,), (128, 64), (64,), (64, 10), (10,)]


def test_trainingLowersTheLossAndLearnsTheDigits(backend: str) -> None:
    outcome = experiment(100, backend=backend)
    assert len(outcome.losses) == 100
    assert outcome.losses[0] > 2.0  # about log(10) from Glorot weights
    assert np.mean(outcome.losses[-10:]) < 0.1 * outcome.losses[0]
    assert outcome.accuracy > 0.93  # 96.4 % with the fixed seeds


def test_bothBackendsTrainTheSameNetwork() -> None:
    numpy, xla = (experiment(30, backend=b) for b in ("numpy", "xla"))
    np.testing.assert_allclose(numpy.losses, xla.losses, rtol=1e-4, atol=1e-5)
    assert abs(numpy.accuracy - xla.accuracy) <= 1 / 450  # one test image at most


def test_noInitializationIsCalled() -> None:
    """The session runs the variables' and the slots' initializers by itself."""
    source = inspect.getsource(mlp)
    assert "initialize" not in source.replace("initializes", "")
    with Graph() as g, Session(g, autoInit=False) as session:
        model = Mlp.create(Ops.create(g))
        step = Adam(g, 0.01).minimize(model.loss)
        with pytest.raises(Exception, match="initializ"):
            mlp.train(session, model, step, loadDigits(), 1, progress=False)


def test_theGuideQuotesTheModulesLossAndAccuracy() -> None:
    guide = GUIDE.read_text()
    for function in (mlp.crossEntropy, mlp.accuracy):
        assert inspect.getsource(function) in guide, (
            f"docs/concepts/training.md must show {function.__name__} as the module has it"
        )


def test_theGuideReachesTheModulesAccuracy() -> None:
    """The guide's script and ``experiment`` start from the same weights and draw the same
    minibatches: after the guide's 50 steps, the same test accuracy."""
    found = re.search(r"# test accuracy (\d\.\d+)", GUIDE.read_text())
    assert found, "the guide prints the test accuracy"
    assert f"{experiment(50).accuracy:.3f}" == found.group(1)


def test_mainPrintsTheAccuracy(capsys: pytest.CaptureFixture[str]) -> None:
    outcome = main(["--steps", "40", "--batch", "32"])
    out = capsys.readouterr().out
    assert "on the numpy backend: Adam(0.01), 40 steps of 32 images" in out
    assert f"test accuracy: {100 * outcome.accuracy:.1f} %" in out
    assert outcome.accuracy > 0.85


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--steps", "0"], "--steps must be positive"), (["--batch", "2000"], "from 1 to 1347")],
)
def test_mainRejectsBadSizes(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(argv)
    assert message in capsys.readouterr().err


def test_withALogdirTensorBoardReadsTheGraphTheLossAndTheWeights(tmp_path: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import (
        STORE_EVERYTHING_SIZE_GUIDANCE,
        EventAccumulator,
    )

    outcome = experiment(12, logdir=str(tmp_path))
    events = EventAccumulator(str(tmp_path), size_guidance=STORE_EVERYTHING_SIZE_GUIDANCE)
    events.Reload()
    tags = events.Tags()
    assert tags["graph"] is True
    assert sorted(tags["scalars"]) == ["loss", "test_accuracy"]
    loss = events.Scalars("loss")
    assert [e.step for e in loss] == list(range(1, 13))
    np.testing.assert_allclose([e.value for e in loss], outcome.losses, rtol=1e-6)
    (accuracy,) = events.Scalars("test_accuracy")
    assert accuracy.step == 12 and accuracy.value == pytest.approx(outcome.accuracy)
    assert sorted(tags["histograms"]) == ["b1", "b2", "b3", "w1", "w2", "w3"]
    names = {node.name for node in events.Graph().node}
    assert {"images", "labels", "w1", "Adam-minimize"} <= names
