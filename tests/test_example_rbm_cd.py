"""The seed's contrastive divergence use case: an RBM trained by CD-k, StopGradient on samples.

A small version of ``python -m tfops.examples.rbm_cd``: the exact log-likelihood rises, the
StopGradient gradient is the classic CD update, and without StopGradient a differentiable
(mean-field) negative phase gets differentiated through. On each backend: XLA's random ops draw
from ``jax.random``, not numpy's generators, so its samples and training curve differ and the
checks there are the conclusions, not numpy's numbers.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Session
from tfops.backend import backendNames
from tfops.examples.rbm_cd import main
from tfops.examples.rbm_cd_model import (
    HIDDEN,
    VISIBLE,
    allStates,
    barsAndStripes,
    freeEnergy,
    numpyFreeEnergy,
    numpyLogLikelihood,
    sigmoid,
)
from tfops.examples.rbm_cd_training import (
    Config,
    GradientComparison,
    build,
    compareGradients,
    train,
)
from tfops.types import TFloat64

Array = np.ndarray[Any, Any]


@pytest.fixture(scope="module", params=backendNames())
def backend(request: pytest.FixtureRequest) -> str:
    """Every backend in turn (overrides conftest's ``TFOPS_TEST_BACKEND`` one)."""
    name: str = request.param
    return name


def randomParameters(seed: int, scale: float) -> tuple[Array, Array, Array]:
    rng = np.random.RandomState(seed)
    return (scale * rng.randn(VISIBLE, HIDDEN), scale * rng.randn(VISIBLE),
            scale * rng.randn(HIDDEN))


def byName(comparisons: list[GradientComparison]) -> dict[tuple[str, bool], GradientComparison]:
    return {(c.negative.split(" ")[0].rstrip(","), c.stopGradient): c for c in comparisons}


def test_barsAndStripesAreThe30DistinctStripedImages() -> None:
    data = barsAndStripes()
    assert data.shape == (30, 16)
    assert len({tuple(row) for row in data}) == 30
    for image in data.reshape(-1, 4, 4):
        rowsEqual = (image == image[:, :1]).all()
        columnsEqual = (image == image[:1, :]).all()
        assert rowsEqual or columnsEqual


def test_freeEnergyIsMinusTheLogOfTheSumOverThe256HiddenStates(backend: str) -> None:
    W, b, c = randomParameters(0, 1.0)
    v = barsAndStripes()[::5]
    with Graph() as g, Session(g, backend=backend) as session:
        tf = Ops.create(g)
        energy = freeEnergy(tf, *(tf.constant(x, TFloat64) for x in (v, W, b, c)))
        graphF = np.asarray(session.runner().fetch(energy).run()[0])
    hidden = np.array(list(itertools.product((0.0, 1.0), repeat=HIDDEN)))  # 256 x 8
    negE = (v @ b)[:, None] + (hidden @ c)[None, :] + v @ W @ hidden.T  # -E(v, h), all pairs
    bruteF = -np.log(np.exp(negE).sum(1))
    np.testing.assert_allclose(graphF, bruteF, rtol=0, atol=1e-10)
    np.testing.assert_allclose(numpyFreeEnergy(v, W, b, c), bruteF, rtol=0, atol=1e-10)


def test_exactLogLikelihoodMatchesAPartitionFunctionSummedOverHiddenStates(backend: str) -> None:
    W, b, c = params = randomParameters(1, 0.5)
    data = barsAndStripes()
    rbm = build(Config(), params)
    with rbm.graph, Session(rbm.graph, backend=backend) as session:
        session.initialize()
        graphValue = float(session.runner().feed(rbm.v, data).fetch(rbm.logLikelihood).run()[0])
    # Z = sum_h exp(c.h) prod_i (1 + exp(b_i + (W h)_i)): the visible units summed analytically
    hidden = np.array(list(itertools.product((0.0, 1.0), repeat=HIDDEN)))
    logTerms = hidden @ c + np.logaddexp(0.0, b + hidden @ W.T).sum(1)
    logZ = logTerms.max() + np.log(np.exp(logTerms - logTerms.max()).sum())
    expected = float(-numpyFreeEnergy(data, W, b, c).mean() - logZ)
    assert graphValue == pytest.approx(expected, abs=1e-10)
    assert numpyLogLikelihood(data, *params) == pytest.approx(expected, abs=1e-10)
    assert len(allStates()) == 2**VISIBLE


@pytest.mark.parametrize("k", [1, 3])
def test_stopGradientGradientIsTheCdUpdateForTheSameSamples(backend: str, k: int) -> None:
    comparisons = byName(compareGradients(randomParameters(2, 0.5), barsAndStripes(), k, seed=3,
                                          backend=backend))
    for negative in ("Gibbs", "mean-field"):
        c = comparisons[(negative, True)]
        for grad, expected in zip(c.gradients, c.cdGradient, strict=True):
            np.testing.assert_allclose(grad, expected, rtol=0, atol=1e-10)
        assert max(np.abs(g).max() for g in c.gradients) > 1e-2  # not trivially zero
    samples = comparisons[("Gibbs", True)].vModel
    assert set(np.unique(samples)) <= {0.0, 1.0}
    assert 0.1 < samples.mean() < 0.9


@pytest.fixture(scope="module")
def twoSteps(backend: str) -> dict[tuple[str, bool], GradientComparison]:
    """The comparisons for k = 2 Gibbs or mean-field steps, at ``randomParameters(2, 0.5)``."""
    return byName(compareGradients(randomParameters(2, 0.5), barsAndStripes(), 2, seed=3,
                                   backend=backend))


def test_gibbsSamplesPassNoGradientEvenWithoutStopGradient(
    twoSteps: dict[tuple[str, bool], GradientComparison],
) -> None:
    comparisons = twoSteps
    with_, without = comparisons[("Gibbs", True)], comparisons[("Gibbs", False)]
    np.testing.assert_array_equal(with_.vModel, without.vModel)  # one run: the same samples
    for grad, expected in zip(without.gradients, without.cdGradient, strict=True):
        np.testing.assert_allclose(grad, expected, rtol=0, atol=1e-10)


def test_withoutStopGradientTheMeanFieldChainIsDifferentiatedThrough(
    twoSteps: dict[tuple[str, bool], GradientComparison],
) -> None:
    params = randomParameters(2, 0.5)  # twoSteps's
    data = barsAndStripes()
    k = 2
    c = twoSteps[("mean-field", False)]
    assert max(c.differences()) > 1e-2  # not the CD update

    def loss(W: Array, b: Array, cc: Array) -> float:
        vModel = data
        for _ in range(k):
            vModel = sigmoid(sigmoid(vModel @ W + cc) @ W.T + b)
        return float(numpyFreeEnergy(data, W, b, cc).mean()
                     - numpyFreeEnergy(vModel, W, b, cc).mean())

    # it is the derivative of the whole loss, the chain included: central finite differences
    delta = 1e-6
    for index, grad in enumerate(c.gradients):
        numerical = np.zeros_like(params[index])
        for position in np.ndindex(numerical.shape):
            plus = [p.copy() for p in params]
            minus = [p.copy() for p in params]
            plus[index][position] += delta
            minus[index][position] -= delta
            numerical[position] = (loss(*plus) - loss(*minus)) / (2 * delta)
        np.testing.assert_allclose(grad, numerical, rtol=0, atol=1e-7)


def test_cdTrainingRaisesTheExactLogLikelihood(backend: str) -> None:
    data = barsAndStripes()
    config = Config(epochs=300, batchSize=10, k=1, learningRate=0.3, seed=1, backend=backend)
    history = train(config, data, evalEvery=100)
    assert history.epochs == [0, 100, 200, 300]
    initial, final = history.logLikelihood[0], history.logLikelihood[-1]
    assert initial == pytest.approx(-VISIBLE * np.log(2.0), abs=0.01)  # nearly uniform
    assert final > initial + 3.0  # on XLA too, with jax.random's samples
    assert final == pytest.approx(numpyLogLikelihood(data, *history.parameters), abs=1e-10)
    again = train(config, data, evalEvery=300)
    assert again.logLikelihood[-1] == final  # seeded: the same run again, on either backend


def test_mainPrintsTheTablesAndWritesThePlot(tmp_path: Path, backend: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    plot = tmp_path / "rbm.png"
    main(["--plot", str(plot), "--epochs", "100", "--every", "50", "--backend", backend])
    out = capsys.readouterr().out
    assert f"on the {backend} backend" in out
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = {line.split("|")[0].strip(): line for line in out.splitlines() if "|" in line}
    assert {"0", "50", "100"} <= set(rows)
    start = [float(x) for x in rows["0"].split("|")[1:]]
    assert start == [pytest.approx(-11.09, abs=0.01)] * 2
    gibbs = [line for line in out.splitlines() if "Gibbs samples, CD-5" in line]
    meanField = [line for line in out.splitlines() if "mean-field, 5 steps" in line]
    assert len(gibbs) == len(meanField) == 2
    for line in gibbs + meanField[:1]:
        assert all(float(x) < 1e-10 for x in line.split("|")[2:])
    assert all(float(x) > 1e-4 for x in meanField[1].split("|")[2:])
