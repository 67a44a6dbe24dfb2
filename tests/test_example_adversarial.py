"""The adversarial training example: FGSM made in the graph, no gradient into its generation.

On each backend. The graph has no random ops (the weights and minibatches come from numpy), so XLA
trains the same networks up to rounding; where numpy gives exact zeros, XLA's differently fused
kernels may leave a rounding error, and the checks there allow for it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from attrs import evolve

from tfops import Graph, Ops, Session
from tfops.backend import backendNames
from tfops.examples.adversarial import main
from tfops.examples.adversarial_experiment import Check, Config, experiment, gradientCheck
from tfops.examples.adversarial_fgsm import (
    Array,
    Inputs,
    Mlp,
    crossEntropy,
    gradientsOf,
    inputGradient,
    l2Step,
    mix,
)
from tfops.examples.digits import loadDigits

SMALL = Config(trainSize=500, testSize=300, epochs=15, hidden=32)


@pytest.fixture(scope="module", params=backendNames())
def backend(request: pytest.FixtureRequest) -> str:
    """Every backend in turn (overrides conftest's ``TFOPS_TEST_BACKEND`` one)."""
    name: str = request.param
    return name


@pytest.fixture(scope="module")
def small(backend: str) -> Config:
    """:data:`SMALL` on ``backend``."""
    return evolve(SMALL, backend=backend)


@pytest.fixture(scope="module")
def checks(small: Config) -> dict[str, Check]:
    return {check.method: check for check in gradientCheck(small, size=32)}


def test_digitsAreASplitOfTheBundledDataSetScaledToTheUnitInterval() -> None:
    data = loadDigits()
    assert data.xTrain.shape == (1347, 64) and data.xTest.shape == (450, 64)
    assert data.xTrain.min() == 0.0 and data.xTrain.max() == 1.0
    assert set(np.unique(data.yTest)) == set(range(10))
    small = loadDigits(100, 50)
    np.testing.assert_array_equal(small.xTrain, data.xTrain[:100])
    np.testing.assert_array_equal(small.yTest, data.yTest[:50])


@pytest.mark.parametrize("method", ["FGSM, sign", "FGM, L2"])
def test_withStopGradientTheParameterGradientIsTheOneOfAConstantXAdv(
    checks: dict[str, Check], method: str
) -> None:
    check = checks[method]
    assert check.scale > 1e-2
    assert check.stopped <= 1e-12
    # and nothing that built xAdv gets a gradient from the adversarial loss
    assert [stopped for stopped, _ in check.construction.values()] == [None, None, None]


def test_withoutStopGradientFgsmGivesTheSameParameterGradientThroughMoreOps(
    checks: dict[str, Check], backend: str
) -> None:
    check = checks["FGSM, sign"]
    # sign() has a zero gradient, so the second-order path through d loss / d x adds zeros
    # (exactly on numpy; XLA fuses the two graphs differently and may round them apart)...
    assert check.unstopped == 0.0 if backend == "numpy" else check.unstopped <= 1e-12
    assert check.construction["g"][1] == 0.0
    # ...that the generator still builds; x and eps are connected to the loss for real
    assert check.unstoppedOps > 2 * check.stoppedOps
    unstoppedX, unstoppedEps = check.construction["x"][1], check.construction["eps"][1]
    assert unstoppedX is not None and unstoppedX > 1e-4
    assert unstoppedEps is not None and unstoppedEps > 1e-2


def test_withoutStopGradientASmoothPerturbationChangesTheParameterGradient(
    checks: dict[str, Check],
) -> None:
    check = checks["FGM, L2"]
    assert check.unstopped > 1e-3 * check.scale  # not rounding: a difference of over 0.1 %
    unstoppedG = check.construction["g"][1]
    assert unstoppedG is not None and unstoppedG > 1e-4


def test_withoutStopGradientTheGradientIsTheTotalDerivativeThroughTheGeneration(
    backend: str,
) -> None:
    """Central differences of the loss, xAdv rebuilt from the moved weights, agree with the
    unstopped gradient and not with the stopped one: the difference is second-order backprop."""
    data = loadDigits(32, 0)
    direction = np.random.RandomState(1).normal(size=(64, SMALL.hidden))
    with Graph() as g, Session(g, backend=backend) as session:
        tf = Ops.create(g)
        inputs = Inputs.create(tf)
        mlp = Mlp.create(tf, 64, SMALL.hidden, 10, SMALL.seed)
        clean = crossEntropy(tf, mlp.logits(tf, inputs.x), inputs.labels)
        xAdv = l2Step(tf, inputs.x, inputGradient(tf, clean, inputs.x), inputs.eps)

        free = mix(tf, clean, crossEntropy(tf, mlp.logits(tf, xAdv), inputs.labels), SMALL.alpha)
        stopped = mix(
            tf,
            clean,
            crossEntropy(tf, mlp.logits(tf, tf.stopGradient(xAdv)), inputs.labels),
            SMALL.alpha,
        )
        gFree, gStopped = (gradientsOf(tf, y, [mlp.w1])[0] for y in (free, stopped))
        assert gFree is not None and gStopped is not None

        def run(w1Shift: float) -> list[Array]:
            runner = (
                session.runner()
                .feed(inputs.x, data.xTrain)
                .feed(inputs.labels, data.yTrain)
                .feed(inputs.eps, np.float64(SMALL.eps))
            )
            w1 = np.asarray(session.runner().fetch(mlp.w1).run()[0])
            runner.feed(mlp.w1, w1 + w1Shift * direction)
            return [np.asarray(v) for v in runner.fetch(free).fetch(gFree).fetch(gStopped).run()]

        _, dFree, dStopped = run(0.0)
        h = 1e-6
        numeric = (float(run(h)[0]) - float(run(-h)[0])) / (2 * h)
    analyticFree = float(np.sum(dFree * direction))
    analyticStopped = float(np.sum(dStopped * direction))
    assert abs(analyticFree - numeric) < 1e-8
    assert abs(analyticStopped - numeric) > 100 * abs(analyticFree - numeric)


def test_adversarialTrainingResistsFgsmAndKeepsCleanAccuracy(small: Config) -> None:
    outcome = experiment(small)
    assert outcome.clean["normal"] > 0.9 and outcome.clean["adversarial"] > 0.9
    assert outcome.adversarial["adversarial"] > outcome.adversarial["normal"] + 0.15
    # FGSM at eps = 0 changes nothing; a larger eps hurts more
    for name in ("normal", "adversarial"):
        assert outcome.byEps[name][0] == outcome.clean[name]
        assert outcome.byEps[name][-1] < outcome.byEps[name][4] < outcome.byEps[name][0]
        assert len(outcome.history[name]) == SMALL.epochs


def test_mainPrintsTheTablesAndWritesThePlot(
    tmp_path: Path, backend: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "adversarial.png"
    main(["--plot", str(path), "--backend", backend], SMALL)
    out = capsys.readouterr().out
    assert f"on the {backend} backend" in out
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = [line for line in out.splitlines() if line.endswith("%")]
    assert [row.split(":")[0] for row in rows] == ["normal", "adversarial"]
    for row in rows:
        clean, adversarial = (float(cell.strip(" %")) for cell in row.split("|")[1:])
        assert 0 <= adversarial < clean <= 100
    stopped = [line for line in out.splitlines() if line.startswith("difference with stopGradi")]
    assert len(stopped) == 1
    differences = [float(cell) for cell in stopped[0].split("|")[1].split()]
    assert len(differences) == 2  # FGSM and FGM
    if backend == "numpy":
        assert differences == [0.0, 0.0]
    else:
        assert all(d <= 1e-12 for d in differences)
