"""EM for the Gaussian mixture in tfops (:mod:`tfops.examples.em_gmm`): the graph of one data
set (:func:`buildEm`: the log joint, log p(x | θ), the E-step behind ``StopGradient``, Q with
and without it, their scores by ``tf.gradients`` and the Fisher scoring M-step) and the loops
that run it in a session (:func:`runEm`, :func:`fitWithoutStopGradient`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

import numpy as np
from attrs import frozen

from tfops import Graph, Ops, Session
from tfops.backend import Backend
from tfops.examples.em_gmm_mixture import Array, Mixture
from tfops.op.core import Max, NoOp, StopGradient, Sum, Variable
from tfops.output import Operand, Output
from tfops.types import TFloat64

__all__ = [
    "OBJECTIVES",
    "EmGraph",
    "EmIteration",
    "Parameters",
    "ascend",
    "buildEm",
    "emIterations",
    "fisherScoring",
    "fitWithoutStopGradient",
    "runEm",
    "scoresAt",
]

Parameters = tuple[Variable[TFloat64], Variable[TFloat64], Variable[TFloat64]]

# the scores (gradients w.r.t. the means, variances and weights) the graph computes
OBJECTIVES = ("logLikelihood", "q", "qUnstopped", "entropy")


@frozen
class EmGraph:
    """The EM graph of one data set: the parameters, the objectives' scores, the M-step."""

    graph: Graph
    parameters: Parameters
    logLikelihood: Output[TFloat64]
    responsibilities: StopGradient[TFloat64]
    scores: dict[str, list[Output[TFloat64]]]  # objective -> d/d(means, variances, weights)
    steps: list[Output[TFloat64]]  # the Fisher scoring step on Q
    update: NoOp  # applies ``steps``
    stepsUnstopped: list[Output[TFloat64]]  # the same for Q without stopGradient
    updateUnstopped: NoOp  # applies half of ``stepsUnstopped``


def fisherScoring(
    tf: Ops,
    parameters: Parameters,
    score: Sequence[Output[TFloat64]],
    responsibilities: Operand[TFloat64],
) -> list[Output[TFloat64]]:
    """The score scaled by the inverse Fisher information of the complete-data model.

    With ``N_k = Σ_n r[n, k]`` that information is ``N_k / v_k`` for a mean, ``N_k / 2 v_k²`` for a
    variance and ``N diag(1/π)`` on the plane ``Σ π = 1`` for the weights. For Q, one step puts
    the means and the weights at its maximum, and the variances at the maximum for the old means;
    the second step finishes the variances.
    """
    _, variances, weights = parameters
    dMeans, dVariances, dWeights = score
    counts = tf.sum(responsibilities, 0)
    weighted = tf.math.mul(weights, dWeights)
    return [
        tf.math.mul(tf.math.div(variances, counts), dMeans).asOutput(),
        tf.math.mul(
            tf.math.div(tf.math.mul(np.float64(2.0), tf.math.square(variances)), counts), dVariances
        ).asOutput(),
        tf.math.div(
            tf.math.sub(weighted, tf.math.mul(weights, tf.sum(weighted, 0))), tf.sum(counts, 0)
        ).asOutput(),
    ]


def ascend(tf: Ops, parameters: Parameters, steps: Sequence[Output[TFloat64]], rate: float) -> NoOp:
    """One op that adds ``rate * step`` to each parameter (``applyGradientDescent`` subtracts
    ``alpha * delta``, so ``alpha = -rate`` climbs)."""
    alpha = np.float64(-rate)
    return tf.withControlDependencies(
        [
            tf.train.applyGradientDescent(variable, alpha, step)
            for variable, step in zip(parameters, steps, strict=True)
        ]
    ).noOp()


def buildEm(x: Array, start: Mixture) -> EmGraph:
    """Builds the EM graph for the data ``x``, its variables initialized to ``start``."""
    graph = Graph()
    tf = Ops.create(graph)
    data = tf.withName("x").constant(np.reshape(x, (-1, 1)))  # [n, 1], broadcasts against [k]
    parameters: Parameters = (
        tf.withName("means").variable(tf.constant(start.means, TFloat64)),
        tf.withName("variances").variable(tf.constant(start.variances, TFloat64)),
        tf.withName("weights").variable(tf.constant(start.weights, TFloat64)),
    )
    means, variances, weights = parameters

    j = tf.withSubScope("logJoint")
    logNormal = j.math.mul(
        np.float64(-0.5),
        j.math.add(
            j.math.log(j.math.mul(np.float64(2.0 * np.pi), variances)),
            j.math.div(j.math.squaredDifference(data, means), variances),
        ),
    )
    logJoint = j.math.add(j.math.log(weights), logNormal)

    m = tf.withSubScope("logLikelihood")
    top = m.stopGradient(m.max(logJoint, 1, Max.keepDims(True)))
    shifted = m.sum(m.math.exp(m.math.sub(logJoint, top)), 1, Sum.keepDims(True))
    logLikelihood = m.sum(m.math.add(top, m.math.log(shifted)), [0, 1])

    responsibilities = tf.withSubScope("eStep").stopGradient(tf.nn.softmax(logJoint))
    q = tf.withSubScope("q").sum(tf.math.mul(responsibilities, logJoint), [0, 1])
    u = tf.withSubScope("qUnstopped")
    unstopped = u.nn.softmax(logJoint)
    qUnstopped = u.sum(u.math.mul(unstopped, logJoint), [0, 1])
    h = tf.withSubScope("entropy")
    entropy = h.math.neg(h.sum(h.math.mul(unstopped, h.nn.logSoftmax(logJoint)), [0, 1]))

    xs = list(parameters)
    objectives: dict[str, Operand[TFloat64]] = dict(
        zip(OBJECTIVES, (logLikelihood, q, qUnstopped, entropy), strict=True)
    )
    # every parameter reaches every objective: no gradient is None
    scores = {name: list(tf.withSubScope(name).gradients(y, xs)) for name, y in objectives.items()}

    s = tf.withSubScope("mStep")
    steps = fisherScoring(s, parameters, scores["q"], responsibilities)
    # Without stopGradient the full step diverges (the preconditioner is Q's, not this
    # objective's); half a step converges, to the other objective's maximum.
    w = tf.withSubScope("mStepUnstopped")
    stepsUnstopped = fisherScoring(w, parameters, scores["qUnstopped"], responsibilities)
    return EmGraph(
        graph,
        parameters,
        logLikelihood.asOutput(),
        responsibilities,
        scores,
        steps,
        ascend(s, parameters, steps, 1.0),
        stepsUnstopped,
        ascend(w, parameters, stepsUnstopped, 0.5),
    )


@frozen
class EmIteration:
    """One EM iteration: the state at its start (θ, log p, the scores) and its M-step."""

    theta: Mixture
    logLikelihood: float
    scores: dict[str, Array]  # objective -> the gradient w.r.t. (means, variances, weights)
    mSteps: int  # Fisher scoring steps until a step moved nothing


def _fetchState(session: Session, em: EmGraph) -> tuple[Array, float, Mixture, dict[str, Array]]:
    runner = session.runner().fetch(em.responsibilities).fetch(em.logLikelihood)
    for p in em.parameters:
        runner.fetch(p)
    for name in OBJECTIVES:
        for d in em.scores[name]:
            runner.fetch(d)
    out = runner.run()
    scores = {name: np.concatenate(out[5 + 3 * i : 8 + 3 * i]) for i, name in enumerate(OBJECTIVES)}
    return out[0], float(out[1]), Mixture(out[2], out[3], out[4]), scores


def scoresAt(x: Array, theta: Mixture, *, backend: str | Backend = "numpy") -> dict[str, Array]:
    """The scores at ``theta`` of each objective: its gradient w.r.t. (means, variances,
    weights), flat, by tfops on ``backend``."""
    em = buildEm(x, theta)
    with em.graph, Session(em.graph, backend=backend) as session:
        session.initialize()
        return _fetchState(session, em)[3]


def emIterations(
    x: Array,
    start: Mixture,
    stepTolerance: float = 1e-12,
    maxMSteps: int = 10,
    *,
    backend: str | Backend = "numpy",
) -> Iterator[EmIteration]:
    """EM in tfops from ``start``, on ``backend``, without end: the caller stops it.

    Each iteration runs the E-step (the responsibilities, log p(x | θ) and the scores at the
    current θ), then Fisher scoring steps on Q with the responsibilities fed, until no parameter
    moves by ``stepTolerance`` (at most ``maxMSteps`` steps).
    """
    em = buildEm(x, start)
    with em.graph, Session(em.graph, backend=backend) as session:
        session.initialize()
        while True:
            r, logLikelihood, theta, scores = _fetchState(session, em)
            mSteps, moved = 0, np.inf
            while moved >= stepTolerance and mSteps < maxMSteps:
                runner = session.runner().feed(em.responsibilities, r).addTarget(em.update)
                for step in em.steps:
                    runner.fetch(step)
                moved = max(float(np.max(np.abs(d))) for d in runner.run())
                mSteps += 1
            yield EmIteration(theta, logLikelihood, scores, mSteps)


def runEm(
    x: Array,
    start: Mixture,
    tolerance: float = 1e-10,
    maxIterations: int = 2000,
    progress: bool = False,
    *,
    backend: str | Backend = "numpy",
) -> list[EmIteration]:
    """EM iterations on ``backend`` until one moves no parameter by ``tolerance``, the fixed
    point (at most ``maxIterations``). The last entry holds the fixed point; ``len - 1``
    iterations ran."""
    trace: list[EmIteration] = []
    with _progress(maxIterations, "EM iterations", progress) as bar:
        for it in emIterations(x, start, backend=backend):
            trace.append(it)
            bar.update(1)
            if len(trace) > maxIterations or (
                len(trace) > 1
                and np.max(np.abs(it.theta.vector() - trace[-2].theta.vector())) < tolerance
            ):
                return trace
    raise AssertionError("emIterations never ends")


def fitWithoutStopGradient(
    x: Array,
    start: Mixture,
    tolerance: float = 1e-10,
    maxSteps: int = 2000,
    progress: bool = False,
    *,
    backend: str | Backend = "numpy",
) -> tuple[Mixture, int]:
    """Climbs Q with the responsibilities not stopped (``Σ softmax(ℓ) ℓ``, recomputed at every
    step) on ``backend`` until a step moves no parameter by ``tolerance``: the fit and the
    number of steps."""
    em = buildEm(x, start)
    with (
        em.graph,
        Session(em.graph, backend=backend) as session,
        _progress(maxSteps, "without stopGradient", progress) as bar,
    ):
        session.initialize()
        for steps in range(1, maxSteps + 1):
            runner = session.runner().addTarget(em.updateUnstopped)
            for step in em.stepsUnstopped:
                runner.fetch(step)
            moved = 0.5 * max(float(np.max(np.abs(d))) for d in runner.run())
            bar.update(1)
            if moved < tolerance:
                out = [session.runner().fetch(p).run()[0] for p in em.parameters]
                return Mixture(out[0], out[1], out[2]), steps
    raise RuntimeError(f"no fixed point within {maxSteps} steps")


class _Bar(Protocol):
    """What the loops use of a progress bar (tqdm's, or :class:`_NoBar`)."""

    def update(self, n: int, /) -> object: ...


class _NoBar:
    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def update(self, n: int) -> None:
        pass


def _progress(total: int, description: str, show: bool) -> AbstractContextManager[_Bar]:
    """A tqdm bar on stderr that appears only if the loop runs longer than a second."""
    if not show:
        return _NoBar()
    from tqdm import tqdm  # type: ignore[import-untyped]

    bar: AbstractContextManager[_Bar] = tqdm(
        total=total, desc=description, unit="it", delay=1.0, leave=False
    )
    return bar  # (typed here: mypy knows tqdm as Any, it ships no types)
