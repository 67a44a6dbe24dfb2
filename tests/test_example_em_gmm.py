"""The seed's EM use case: with the E-step behind StopGradient, gradient steps on Q are EM.

A small version of ``python -m tfops.examples.em_gmm``: 200 points from three Gaussians, on
each backend. The graph has no random ops, so XLA goes through the same parameters as numpy, to
rounding: the checks are the same, with tolerances for XLA's rounding where numpy is exact.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tfops.backend import backendNames
from tfops.examples.em_gmm import main
from tfops.examples.em_gmm_graph import EmIteration, fitWithoutStopGradient, runEm, scoresAt
from tfops.examples.em_gmm_mixture import (
    Mixture,
    closedFormEm,
    closedFormFixedPoint,
    initialGuess,
    sample,
)

N = 200


@pytest.fixture(scope="module")
def x() -> np.ndarray:
    return sample(N)


@pytest.fixture(scope="module", params=backendNames())
def backend(request: pytest.FixtureRequest) -> str:
    """Every backend in turn (overrides conftest's ``TFOPS_TEST_BACKEND`` one)."""
    name: str = request.param
    return name


@pytest.fixture(scope="module")
def trace(x: np.ndarray, backend: str) -> list[EmIteration]:
    return runEm(x, initialGuess(x), backend=backend)


def _moves(trace: list[EmIteration]) -> np.ndarray:
    thetas = np.array([it.theta.vector() for it in trace])
    return np.abs(np.diff(thetas, axis=0)).max(axis=1)


def test_tfopsEmGoesThroughTheClosedFormEmParametersAtEveryIteration(
    x: np.ndarray, trace: list[EmIteration], backend: str
) -> None:
    numpy = closedFormEm(x, initialGuess(x), len(trace) - 1)
    assert len(trace) > 100
    atol, rel = (1e-12, 1e-13) if backend == "numpy" else (1e-11, 1e-12)
    for it, theta in zip(trace, numpy, strict=True):
        np.testing.assert_allclose(it.theta.vector(), theta.vector(), rtol=0, atol=atol)
        assert it.logLikelihood == pytest.approx(theta.logLikelihood(x), rel=rel)


def test_theFixedPointIsClosedFormEmsFixedPoint(x: np.ndarray, trace: list[EmIteration]) -> None:
    assert _moves(trace)[-1] < 1e-10  # runEm stopped at its fixed point
    theta, iterations = closedFormFixedPoint(x, initialGuess(x))  # on its own, to 1e-14
    assert iterations > len(trace) - 1
    np.testing.assert_allclose(trace[-1].theta.vector(), theta.vector(), rtol=0, atol=1e-8)
    np.testing.assert_allclose(theta.weights.sum(), 1.0, rtol=0, atol=1e-15)


def test_theMStepLandsOnTheMaximumOfQInAtMostThreeFisherScoringSteps(
    trace: list[EmIteration],
) -> None:
    # two steps to land (means and weights on the first, variances on the second), one to see
    # that nothing moves any more; late in the run the second step already moves nothing
    assert {it.mSteps for it in trace} <= {2, 3}
    assert trace[0].mSteps == 3


def _randomMixture(x: np.ndarray) -> Mixture:
    rng = np.random.RandomState(7)
    weights = rng.uniform(0.2, 1.0, size=3)
    return Mixture(rng.normal(0.0, 2.0, size=3), rng.uniform(0.3, 3.0, size=3),
                   weights / weights.sum())


@pytest.mark.parametrize("where", ["start", "random", "iteration 5", "fixed point"])
def test_fishersIdentityHoldsWithStopGradientAndFailsWithout(
    x: np.ndarray, trace: list[EmIteration], backend: str, where: str
) -> None:
    theta = {"start": trace[0].theta, "random": _randomMixture(x), "iteration 5": trace[5].theta,
             "fixed point": trace[-1].theta}[where]
    scores = scoresAt(x, theta, backend=backend)
    logLikelihood, q = scores["logLikelihood"], scores["q"]
    # the weights' score is N = 200 at the maximum too: the weights stay on the plane Σπ = 1
    assert np.max(np.abs(logLikelihood)) > 100
    np.testing.assert_allclose(q, logLikelihood, rtol=0, atol=1e-10)
    # without stopGradient Q = log p - Σ H(r): the gradient is off by the entropy's
    np.testing.assert_allclose(scores["qUnstopped"], logLikelihood - scores["entropy"], rtol=0,
                               atol=1e-10)
    assert np.max(np.abs(scores["qUnstopped"] - logLikelihood)) > 10


def test_theScoresThatEmIterationRecordsAreScoresAt(
    x: np.ndarray, trace: list[EmIteration], backend: str
) -> None:
    for name, score in scoresAt(x, trace[3].theta, backend=backend).items():
        if backend == "numpy":
            np.testing.assert_array_equal(trace[3].scores[name], score)
        else:  # another request, compiled on its own: XLA may fuse and round it differently
            np.testing.assert_allclose(trace[3].scores[name], score, rtol=0, atol=1e-10)


def test_logLikelihoodNeverDecreases(trace: list[EmIteration], backend: str) -> None:
    logLikelihoods = np.array([it.logLikelihood for it in trace])
    increases, moves = np.diff(logLikelihoods), _moves(trace)
    # while EM still moves the parameters, log p(x|θ) strictly increases at every iteration
    moving = int(np.argmax(moves < 1e-6))
    assert moving > 100
    assert (increases[:moving] > 0).all()
    # near the fixed point the true increase falls below the rounding of a sum of N logs; the
    # computed log p(x|θ) then goes up and down by an ulp or two (XLA sums in another order, a few
    # more), never more
    ulp = np.spacing(np.abs(logLikelihoods[-1]))
    assert (increases >= -(4 if backend == "numpy" else 16) * ulp).all()


def _onTheSimplex(score: np.ndarray) -> np.ndarray:
    """The score without its component across the plane Σπ = 1 that the weights stay on."""
    weights = score[6:]
    return np.concatenate([score[:6], weights - weights.mean()])


def test_withoutStopGradientTheFitIsAnotherPointAndWorse(
    x: np.ndarray, trace: list[EmIteration], backend: str
) -> None:
    unstopped, steps = fitWithoutStopGradient(x, initialGuess(x), backend=backend)
    assert steps < 500
    assert unstopped.logLikelihood(x) < trace[-1].logLikelihood - 1.0
    assert np.max(np.abs(unstopped.vector() - trace[-1].theta.vector())) > 0.1
    # it is where the unstopped Q is stationary, not log p(x|θ)
    scores = scoresAt(x, unstopped, backend=backend)
    assert np.max(np.abs(_onTheSimplex(scores["qUnstopped"]))) < 1e-6
    assert np.max(np.abs(_onTheSimplex(scores["logLikelihood"]))) > 1.0
    # while at the EM fixed point log p(x|θ) is stationary
    assert np.max(np.abs(_onTheSimplex(trace[-1].scores["logLikelihood"]))) < 1e-6


def test_mainPrintsTheTablesAndWritesThePlot(tmp_path: Path, backend: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    png = tmp_path / "em.png"
    main(["--plot", str(png), "--n", str(N), "--backend", backend])
    out = capsys.readouterr().out
    assert f"tfops on the {backend} backend" in out
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    fixedPoint = [line.split("|") for line in out.splitlines()
                  if line.strip().startswith(("mean[", "variance[", "weight["))]
    assert len(fixedPoint) == 2 * 9  # the scores at the start, then the fixed point
    for row in fixedPoint[:9]:  # d log p(x|θ) and dQ print the same
        assert row[1].strip() == row[2].strip()
    for row in fixedPoint[9:]:  # tfops EM and closed-form EM print the same
        assert row[2].strip() == row[3].strip()
    assert "log p(x|θ) increased at each of the first" in out
