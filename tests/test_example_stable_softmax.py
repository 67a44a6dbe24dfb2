"""The README's demo: naive softmax overflows at x ≈ 1000, the StopGradient form does not.

Each check runs on both backends: the exact numbers on numpy, the same conclusions (to rounding)
on XLA, whose fused kernels round differently.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tfops import Session
from tfops.backend import backendNames
from tfops.examples.stable_softmax import (
    TIED,
    analyticJacobian,
    analyticSoftmax,
    buildJacobians,
    compare,
    jacobians,
    shiftSweep,
)

WEIGHTS = np.array([1.0, 2.0, 3.0])


@pytest.fixture(scope="module", params=backendNames())
def backend(request: pytest.FixtureRequest) -> str:
    """Every backend in turn (overrides conftest's ``TFOPS_TEST_BACKEND`` one)."""
    name: str = request.param
    return name


def _rounding(backend: str) -> float:
    """How far a value that numpy computes exactly (to 1e-16) may be on ``backend``."""
    return 1e-16 if backend == "numpy" else 1e-15


def test_naiveSoftmaxIsNanNear1000(backend: str) -> None:
    r = compare(np.array([1000.0, 1001.0, 1002.0]), WEIGHTS, backend=backend)
    assert np.isnan(r["naive"]).all()
    assert np.isnan(r["naive_grad"]).all()


@pytest.mark.parametrize(
    "x", [[1.0, 2.0, 3.0], [1000.0, 1001.0, 1002.0], [1000.0, 1002.0, 1002.0], [-5.0, 0.0, 5.0]]
)
def test_stableSoftmaxMatchesTheAnalyticValuesAndGradient(backend: str, x: list[float]) -> None:
    values = np.array(x)
    r = compare(values, WEIGHTS, backend=backend)
    np.testing.assert_allclose(r["stable"], analyticSoftmax(values), rtol=0, atol=1e-12)
    np.testing.assert_allclose(r["stable_grad"], r["analytic_grad"], rtol=0, atol=1e-10)


def test_tiedMaximaJacobianRowsAreTheAnalyticOnes(backend: str) -> None:
    graphs = buildJacobians(3)
    with graphs.graph, Session(graphs.graph, backend=backend) as session:
        r = jacobians(graphs, session, TIED)
    exact = analyticJacobian(TIED)
    assert np.isnan(r["naive_jacobian"]).all()
    atol = _rounding(backend)
    np.testing.assert_allclose(r["stable_jacobian"], exact, rtol=0, atol=atol)
    np.testing.assert_allclose(r["unstopped_jacobian"], exact, rtol=0, atol=atol)
    # the tied inputs get mirror-image rows: d p1/dx1 = d p2/dx2 and d p1/dx2 = d p2/dx1
    stable = r["stable_jacobian"]
    assert stable[1, 1] == stable[2, 2] and stable[1, 2] == stable[2, 1]
    assert stable[0, 1] == stable[0, 2]


def test_withoutStopGradientMaxSplitsAGradientThatIsZeroUpToRounding(backend: str) -> None:
    graphs = buildJacobians(3)
    with graphs.graph, Session(graphs.graph, backend=backend) as session:
        runner = session.runner().feed(graphs.x, TIED).fetch(graphs.maxGradient)
        for out in graphs.atMax:
            runner.fetch(out)
        split, *atMax = runner.run()
    np.testing.assert_array_equal(split, [0.0, 0.5, 0.5])
    # Σ_j d p_i / d z_j = p_i - p_i Σ_j p_j: zero, up to the rounding of a sum of three terms
    assert all(abs(float(v)) <= 4 * np.finfo(np.float64).eps * 0.25 for v in atMax)


def test_stopGradientLeavesMaxOutOfTheGradientGraph() -> None:
    counts = buildJacobians(3).gradientOps
    assert counts["naive"] < counts["stable"] < counts["unstopped"]


def test_naiveSoftmaxFailsPast707AndTheStableOneNever(backend: str) -> None:
    shifts = np.array([0.0, 500.0, 707.0, 708.0, 709.0, 710.0, 1000.0])
    sweep = shiftSweep(shifts, backend=backend)
    p = analyticSoftmax(np.array([0.0, 1.0, 2.0]))
    atol = _rounding(backend)
    np.testing.assert_allclose(sweep["stable"], np.tile(p, (len(shifts), 1)), rtol=0, atol=atol)
    assert (sweep["stable_error"] <= atol).all() and (sweep["unstopped_error"] <= atol).all()
    np.testing.assert_allclose(sweep["naive"][:3], np.tile(p, (3, 1)), rtol=0, atol=1e-15)
    if backend == "numpy":
        assert (sweep["naive_error"][:3] <= 1e-15).all()
    else:
        # XLA's simplifier rewrites the Div gradient's (-x / y) / y as -x / (y * y), and y * y
        # overflows from c = 353: there the naive Jacobian is already wrong, not yet nan
        assert sweep["naive_error"][0] <= 1e-15
    # exp(708), exp(709) are finite but their sum with exp(710) = inf is not: finite/inf = 0
    np.testing.assert_array_equal(sweep["naive"][3], [0.0, 0.0, np.nan])
    np.testing.assert_array_equal(sweep["naive"][4], [0.0, np.nan, np.nan])
    assert np.isnan(sweep["naive"][5:]).all() and np.isnan(sweep["naive_error"][3:]).all()


def test_demoPrintsTheTableAndWritesThePlot(tmp_path: Path, backend: str) -> None:
    png = tmp_path / "softmax.png"
    out = subprocess.run(
        [sys.executable, "-m", "tfops.examples.stable_softmax", "--plot", str(png),
         "--backend", backend],
        capture_output=True, text=True, check=True, timeout=120,
    ).stdout
    assert f"on the {backend} backend" in out
    lines = [line for line in out.splitlines() if "[1000., 1001., 1002.]" in line]
    assert len(lines) == 2  # probabilities, then gradients
    naive, stable, numpy = (cell.strip() for cell in lines[0].split("|")[1:])
    assert naive == "[nan, nan, nan]"
    assert stable == numpy == "[0.09  , 0.2447, 0.6652]"
    rows = [line.split("|") for line in out.splitlines() if line.strip().startswith("d p")]
    assert len(rows) == 3  # the Jacobian rows at tied maxima
    for row in rows:
        naive, stable, unstopped, numpy = (cell.strip() for cell in row[1:5])
        assert naive == "[nan, nan, nan]" and stable == unstopped == numpy
    assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
