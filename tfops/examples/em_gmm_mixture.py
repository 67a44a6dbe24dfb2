"""The mixture of the EM example (:mod:`tfops.examples.em_gmm`), in numpy: its parameters
(:class:`Mixture`, with the log joint, the log-likelihood and the density), the data drawn
from the true mixture, the deterministic start, and textbook closed-form EM, the reference the
tfops EM of :mod:`tfops.examples.em_gmm_graph` is compared with.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from attrs import frozen

__all__ = [
    "TRUE_MEANS",
    "TRUE_MIXTURE",
    "TRUE_STDS",
    "TRUE_WEIGHTS",
    "Array",
    "Mixture",
    "closedFormEm",
    "closedFormEmStep",
    "closedFormFixedPoint",
    "initialGuess",
    "sample",
]

Array = np.ndarray[Any, Any]

TRUE_MEANS = np.array([-2.5, 0.5, 3.5])
TRUE_STDS = np.array([0.6, 1.0, 0.7])
TRUE_WEIGHTS = np.array([0.3, 0.45, 0.25])


@frozen
class Mixture:
    """The parameters of a 1-D Gaussian mixture, one entry per component."""

    means: Array
    variances: Array
    weights: Array

    def vector(self) -> Array:
        """Means, variances and weights, one after the other."""
        return np.concatenate([self.means, self.variances, self.weights])

    def logJoint(self, x: Array) -> Array:
        """``log π_k + log N(x_n | μ_k, v_k)``, an ``[n, k]`` array (numpy)."""
        d = x[:, None] - self.means[None, :]
        result: Array = np.log(self.weights) - 0.5 * (
            np.log(2.0 * np.pi * self.variances) + d * d / self.variances
        )
        return result

    def logLikelihood(self, x: Array) -> float:
        """``Σ_n log Σ_k π_k N(x_n | μ_k, v_k)`` (numpy)."""
        joint = self.logJoint(x)
        top = joint.max(axis=1, keepdims=True)
        return float(np.sum(top[:, 0] + np.log(np.exp(joint - top).sum(axis=1))))

    def density(self, grid: Array) -> Array:
        """The mixture's probability density at each point of ``grid``."""
        result: Array = np.exp(self.logJoint(grid)).sum(axis=1)
        return result


TRUE_MIXTURE = Mixture(TRUE_MEANS, TRUE_STDS**2, TRUE_WEIGHTS)


def sample(n: int, seed: int = 0) -> Array:
    """``n`` points drawn from :data:`TRUE_MIXTURE` with a fixed numpy seed."""
    rng = np.random.RandomState(seed)
    component = rng.choice(len(TRUE_WEIGHTS), size=n, p=TRUE_WEIGHTS)
    x: Array = rng.normal(TRUE_MEANS[component], TRUE_STDS[component])
    return x


def initialGuess(x: Array, k: int = 3) -> Mixture:
    """Means at the quantiles ``1/(k+1) ... k/(k+1)`` of the data, the data's variance for every
    component, equal weights: a deterministic start, the same for every method."""
    means = np.quantile(x, np.arange(1, k + 1) / (k + 1))
    return Mixture(means, np.full(k, np.var(x)), np.full(k, 1.0 / k))


def closedFormEmStep(x: Array, theta: Mixture) -> Mixture:
    """One iteration of textbook EM in numpy: the responsibilities, then each component's share,
    weighted mean and weighted variance."""
    joint = theta.logJoint(x)
    r = np.exp(joint - joint.max(axis=1, keepdims=True))
    r /= r.sum(axis=1, keepdims=True)
    counts = r.sum(axis=0)
    means = (r * x[:, None]).sum(axis=0) / counts
    variances = (r * (x[:, None] - means[None, :]) ** 2).sum(axis=0) / counts
    return Mixture(means, variances, counts / len(x))


def closedFormEm(x: Array, start: Mixture, iterations: int) -> list[Mixture]:
    """``start`` and the parameters after each of ``iterations`` closed-form EM iterations."""
    thetas = [start]
    for _ in range(iterations):
        thetas.append(closedFormEmStep(x, thetas[-1]))
    return thetas


def closedFormFixedPoint(
    x: Array, start: Mixture, tolerance: float = 1e-14, maxIterations: int = 10000
) -> tuple[Mixture, int]:
    """Closed-form EM from ``start`` until an iteration moves no parameter by ``tolerance``: the
    fixed point and the number of iterations."""
    theta = start
    for iterations in range(1, maxIterations + 1):
        following = closedFormEmStep(x, theta)
        if np.max(np.abs(following.vector() - theta.vector())) < tolerance:
            return following, iterations
        theta = following
    raise RuntimeError(f"no fixed point within {maxIterations} iterations")
