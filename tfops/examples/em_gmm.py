"""The seed's EM use case: the M-step must not backpropagate through the E-step.

``python -m tfops.examples.em_gmm [--plot PATH] [--n N] [--backend {numpy,xla}]`` fits a mixture
of three 1-D Gaussians to generated data by EM written in tfops. For the parameters
θ = (means μ, variances v, weights π), held in variables, the graph computes

- the log joint ``ℓ[n, k] = log π_k + log N(x_n | μ_k, v_k)``, an ``[n, k]`` tensor;
- the marginal log-likelihood ``log p(x | θ) = Σ_n log Σ_k exp ℓ[n, k]``, a log-sum-exp that
  subtracts ``stopGradient(max_k ℓ)`` (the seed's first use case);
- the E-step, the responsibilities ``r = stopGradient(softmax(ℓ))``;
- the expected complete-data log-likelihood ``Q(θ) = Σ_n Σ_k r[n, k] ℓ[n, k]``.

The M-step climbs Q with the responsibilities held fixed: the session feeds the E-step's
``StopGradient`` output with the responsibilities computed at the start of the iteration, the
gradient is ``tf.gradients(Q, [μ, v, π])``, scaled by the inverse Fisher information of the
complete-data model (Fisher scoring, a preconditioned gradient step) and applied with
``tf.train.applyGradientDescent``, until a step moves nothing (two or three steps).

It prints and plots three facts:

1. tfops EM and textbook closed-form EM (numpy) go through the same parameters at every
   iteration and reach the same fixed point;
2. Fisher's identity: the gradient of Q equals the gradient of log p(x | θ), both by tfops. Without
   ``stopGradient``, Q is ``log p(x | θ) - Σ_n H(r_n)`` and its gradient is off by the gradient of
   the responsibilities' entropy; climbing it gives a different, worse fit;
3. log p(x | θ) never decreases over the EM iterations.

Every session runs on ``backend`` (``--backend``: the numpy executor, or XLA).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

import numpy as np
from attrs import frozen

from tfops import Graph, Ops, Session
from tfops.backend import Backend
from tfops.examples import addBackendOption
from tfops.examples._plotting import Axes, save
from tfops.op.core import Max, NoOp, StopGradient, Sum, Variable
from tfops.output import Operand, Output
from tfops.types import TFloat64

Array = np.ndarray[Any, Any]
Parameters = tuple[Variable[TFloat64], Variable[TFloat64], Variable[TFloat64]]

TRUE_MEANS = np.array([-2.5, 0.5, 3.5])
TRUE_STDS = np.array([0.6, 1.0, 0.7])
TRUE_WEIGHTS = np.array([0.3, 0.45, 0.25])
NAMES = ("mean", "variance", "weight")
# the scores (gradients w.r.t. the means, variances and weights) the graph computes
OBJECTIVES = ("logLikelihood", "q", "qUnstopped", "entropy")


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


def closedFormFixedPoint(x: Array, start: Mixture, tolerance: float = 1e-14,
                        maxIterations: int = 10000) -> tuple[Mixture, int]:
    """Closed-form EM from ``start`` until an iteration moves no parameter by ``tolerance``: the
    fixed point and the number of iterations."""
    theta = start
    for iterations in range(1, maxIterations + 1):
        following = closedFormEmStep(x, theta)
        if np.max(np.abs(following.vector() - theta.vector())) < tolerance:
            return following, iterations
        theta = following
    raise RuntimeError(f"no fixed point within {maxIterations} iterations")


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
    tf: Ops, parameters: Parameters, score: Sequence[Output[TFloat64]],
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
        tf.math.mul(tf.math.div(tf.math.mul(np.float64(2.0), tf.math.square(variances)), counts),
                    dVariances).asOutput(),
        tf.math.div(tf.math.sub(weighted, tf.math.mul(weights, tf.sum(weighted, 0))),
                    tf.sum(counts, 0)).asOutput(),
    ]


def ascend(tf: Ops, parameters: Parameters, steps: Sequence[Output[TFloat64]],
           rate: float) -> NoOp:
    """One op that adds ``rate * step`` to each parameter (``applyGradientDescent`` subtracts
    ``alpha * delta``, so ``alpha = -rate`` climbs)."""
    alpha = np.float64(-rate)
    return tf.withControlDependencies([
        tf.train.applyGradientDescent(variable, alpha, step)
        for variable, step in zip(parameters, steps, strict=True)
    ]).noOp()


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
    logNormal = j.math.mul(np.float64(-0.5), j.math.add(
        j.math.log(j.math.mul(np.float64(2.0 * np.pi), variances)),
        j.math.div(j.math.squaredDifference(data, means), variances),
    ))
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
        zip(OBJECTIVES, (logLikelihood, q, qUnstopped, entropy), strict=True))
    # every parameter reaches every objective: no gradient is None
    scores = {name: list(tf.withSubScope(name).gradients(y, xs))
              for name, y in objectives.items()}

    s = tf.withSubScope("mStep")
    steps = fisherScoring(s, parameters, scores["q"], responsibilities)
    # Without stopGradient the full step diverges (the preconditioner is Q's, not this
    # objective's); half a step converges, to the other objective's maximum.
    w = tf.withSubScope("mStepUnstopped")
    stepsUnstopped = fisherScoring(w, parameters, scores["qUnstopped"], responsibilities)
    return EmGraph(graph, parameters, logLikelihood.asOutput(), responsibilities, scores, steps,
                   ascend(s, parameters, steps, 1.0), stepsUnstopped,
                   ascend(w, parameters, stepsUnstopped, 0.5))


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
    scores = {name: np.concatenate(out[5 + 3 * i: 8 + 3 * i]) for i, name in enumerate(OBJECTIVES)}
    return out[0], float(out[1]), Mixture(out[2], out[3], out[4]), scores


def scoresAt(x: Array, theta: Mixture, *,
             backend: str | Backend = "numpy") -> dict[str, Array]:
    """The scores at ``theta`` of each objective: its gradient w.r.t. (means, variances,
    weights), flat, by tfops on ``backend``."""
    em = buildEm(x, theta)
    with em.graph, Session(em.graph, backend=backend) as session:
        session.initialize()
        return _fetchState(session, em)[3]


def emIterations(x: Array, start: Mixture, stepTolerance: float = 1e-12,
                 maxMSteps: int = 10, *,
                 backend: str | Backend = "numpy") -> Iterator[EmIteration]:
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


def runEm(x: Array, start: Mixture, tolerance: float = 1e-10, maxIterations: int = 2000,
          progress: bool = False, *, backend: str | Backend = "numpy") -> list[EmIteration]:
    """EM iterations on ``backend`` until one moves no parameter by ``tolerance``, the fixed
    point (at most ``maxIterations``). The last entry holds the fixed point; ``len - 1``
    iterations ran."""
    trace: list[EmIteration] = []
    with _progress(maxIterations, "EM iterations", progress) as bar:
        for it in emIterations(x, start, backend=backend):
            trace.append(it)
            bar.update(1)
            if len(trace) > maxIterations or (len(trace) > 1 and np.max(
                    np.abs(it.theta.vector() - trace[-2].theta.vector())) < tolerance):
                return trace
    raise AssertionError("emIterations never ends")


def fitWithoutStopGradient(x: Array, start: Mixture, tolerance: float = 1e-10,
                           maxSteps: int = 2000, progress: bool = False, *,
                           backend: str | Backend = "numpy") -> tuple[Mixture, int]:
    """Climbs Q with the responsibilities not stopped (``Σ softmax(ℓ) ℓ``, recomputed at every
    step) on ``backend`` until a step moves no parameter by ``tolerance``: the fit and the
    number of steps."""
    em = buildEm(x, start)
    with em.graph, Session(em.graph, backend=backend) as session, \
            _progress(maxSteps, "without stopGradient", progress) as bar:
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
        total=total, desc=description, unit="it", delay=1.0, leave=False)
    return bar  # (typed here: mypy knows tqdm as Any, it ships no types)


def _row(cells: Sequence[str], widths: Sequence[int]) -> str:
    return " | ".join(f"{c:>{w}}" for c, w in zip(cells, widths, strict=True))


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], widths: Sequence[int]) -> str:
    first = _row(header, widths)
    return "\n".join([first, "-" * len(first), *(_row(r, widths) for r in rows)])


def _parameterNames(k: int) -> list[str]:
    return [f"{name}[{i}]" for name in NAMES for i in range(k)]


def scoreTable(it: EmIteration) -> str:
    """Fisher's identity at one θ: the gradients of log p, of Q, of Q without stopGradient, and
    of the responsibilities' entropy (what the unstopped Q adds)."""
    reference, stopped, unstopped, entropy = (it.scores[name] for name in OBJECTIVES)
    rows = [[name, f"{reference[i]:.8f}", f"{stopped[i]:.8f}",
             f"{abs(stopped[i] - reference[i]):.1e}", f"{unstopped[i]:.8f}",
             f"{abs(unstopped[i] - reference[i]):.1e}", f"{-entropy[i]:.8f}"]
            for i, name in enumerate(_parameterNames(len(it.theta.means)))]
    return _table(["θ", "d log p(x|θ)", "dQ", "|diff|", "dQ unstopped", "|diff|", "-d ΣH(r)"],
                  rows, [11, 16, 16, 7, 16, 7, 14])


def iterationTable(x: Array, trace: list[EmIteration], numpy: list[Mixture]) -> str:
    """Some iterations: log p by tfops and by numpy, its increase, the parameters' difference."""
    last = len(trace) - 1
    shown = sorted({*range(min(5, last)), *range(10, last, 10 if last < 100 else 50), last})
    rows: list[list[str]] = []
    for i in shown:
        it = trace[i]
        rows.append([
            str(i), f"{it.logLikelihood:.10f}", f"{numpy[i].logLikelihood(x):.10f}",
            f"{it.logLikelihood - trace[i - 1].logLikelihood:.2e}" if i else "",
            f"{np.max(np.abs(it.theta.vector() - numpy[i].vector())):.1e}", str(it.mSteps),
        ])
    return _table(["iter", "log p(x|θ) tfops", "log p(x|θ) numpy", "increase",
                   "|θ tfops - θ numpy|", "M steps"], rows, [5, 18, 18, 10, 19, 7])


def fixedPointTable(final: Mixture, reference: Mixture, unstopped: Mixture) -> str:
    """The true parameters and the three fits, side by side."""
    rows: list[list[str]] = []
    for i, name in enumerate(_parameterNames(len(final.means))):
        a, b = final.vector()[i], reference.vector()[i]
        rows.append([name, f"{TRUE_MIXTURE.vector()[i]:.4f}", f"{a:.10f}", f"{b:.10f}",
                     f"{abs(a - b):.1e}", f"{unstopped.vector()[i]:.6f}"])
    return _table(["θ", "true", "tfops EM", "closed-form EM", "|diff|", "no stopGradient"],
                  rows, [11, 7, 14, 14, 7, 15])


def monotonicity(trace: Sequence[EmIteration]) -> tuple[int, float]:
    """How many iterations increased log p(x|θ) before its first non-increase (all of them if
    none), and the largest change, up or down, from there on."""
    logLikelihoods = np.array([it.logLikelihood for it in trace])
    increases = np.diff(logLikelihoods)
    stalled = np.flatnonzero(increases <= 0)
    if stalled.size == 0:
        return len(increases), 0.0
    first = int(stalled[0])
    return first, float(np.max(np.abs(increases[first:])))


def plot(path: str, x: Array, trace: Sequence[EmIteration], numpy: Sequence[Mixture],
         unstopped: Mixture) -> None:
    """Three panels: the data and the fits; log p(x|θ) climbing to its maximum; the gap between
    the gradient of Q and of log p, with and without stopGradient."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data: Axes  # plt.subplots gives Any: declared, so each call is checked
    climb: Axes
    gap: Axes
    fig, (data, climb, gap) = plt.subplots(1, 3, figsize=(15, 4.2))
    grid = np.linspace(float(x.min()) - 0.5, float(x.max()) + 0.5, 400)
    data.hist(x, bins=50, density=True, color="0.85", label=f"data (n = {len(x)})")
    data.plot(grid, TRUE_MIXTURE.density(grid), "k:", label="true mixture")
    data.plot(grid, trace[0].theta.density(grid), color="tab:gray", label="start")
    data.plot(grid, trace[-1].theta.density(grid), color="tab:blue", lw=2, label="tfops EM")
    data.plot(grid, numpy[-1].density(grid), "--", color="tab:orange", label="closed-form EM")
    data.plot(grid, unstopped.density(grid), color="tab:red", label="without stopGradient")
    data.set(title="fitted mixtures", xlabel="x", ylabel="density")
    data.legend(fontsize=8)

    best = max(it.logLikelihood for it in trace)
    steps = np.arange(len(trace))
    climb.semilogy(steps, [best - it.logLikelihood for it in trace], color="tab:blue", lw=2,
                   label="tfops EM")
    climb.semilogy(steps, [best - t.logLikelihood(x) for t in numpy], "--", color="tab:orange",
                   label="closed-form EM")
    climb.axhline(float(np.spacing(abs(best))), color="0.5", ls=":", lw=1,
                  label="1 ulp of log p(x|θ)")
    climb.set(title="log p(x|θ) never decreases", xlabel="EM iteration",
              ylabel="max log p(x|θ) − log p(x|θ)")
    climb.legend(fontsize=8)

    for name, label, color in (("q", "Q with stopGradient", "tab:green"),
                               ("qUnstopped", "Q without stopGradient", "tab:red")):
        gaps = [np.max(np.abs(it.scores[name] - it.scores["logLikelihood"])) for it in trace]
        gap.semilogy(steps, np.maximum(gaps, 1e-17), color=color, label=label)
    gap.set(title="Fisher's identity: max |∇Q − ∇log p(x|θ)|", xlabel="EM iteration",
            ylabel="largest difference over θ")
    gap.legend(fontsize=8)
    fig.tight_layout()
    save(fig, path, dpi=80)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> None:
    """Fits the mixture three ways, prints the tables and writes the plot."""
    parser = argparse.ArgumentParser(prog="python -m tfops.examples.em_gmm", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plot", default="em_gmm.png", help="where to write the PNG plot")
    parser.add_argument("--n", type=int, default=1000, help="how many points to fit")
    addBackendOption(parser)
    args = parser.parse_args(argv)
    backend: str = args.backend

    x = sample(args.n)
    start = initialGuess(x)
    trace = runEm(x, start, progress=True, backend=backend)
    iterations = len(trace) - 1
    numpy = closedFormEm(x, start, iterations)
    unstopped, unstoppedSteps = fitWithoutStopGradient(x, start, progress=True, backend=backend)

    print(f"EM for a mixture of 3 Gaussians on n = {len(x)} points (numpy seed 0), tfops on the"
          f" {backend} backend\n")
    print("Fisher's identity at the start: r = stopGradient(softmax(ℓ)) makes dQ = d log p(x|θ);")
    print("without stopGradient, dQ = d log p(x|θ) - d ΣH(r)\n")
    print(scoreTable(trace[0]))
    print("\nEM iterations: tfops (Fisher scoring on Q, responsibilities fed) vs closed-form EM"
          " (numpy)\n")
    print(iterationTable(x, trace, numpy))
    print(f"\nfixed point: iteration {iterations} moved no parameter by 1e-10; closed-form EM"
          f" after as many iterations;\nthe fit without stopGradient took {unstoppedSteps} steps"
          f" (half Fisher scoring steps on Q without stopGradient)\n")
    print(fixedPointTable(trace[-1].theta, numpy[-1], unstopped))
    alone, aloneIterations = closedFormFixedPoint(x, start)
    print(f"\nclosed-form EM run on its own until it moves nothing ({aloneIterations} iterations)"
          f" is {np.max(np.abs(alone.vector() - trace[-1].theta.vector())):.1e} from the tfops"
          " fixed point")
    print(f"log p(x|θ) at the fixed point: tfops EM {trace[-1].logLikelihood:.10f}, closed-form"
          f" EM {alone.logLikelihood(x):.10f}, without stopGradient"
          f" {unstopped.logLikelihood(x):.10f}")
    increasing, noise = monotonicity(trace)
    ulp = float(np.spacing(abs(trace[-1].logLikelihood)))
    moved = np.max(np.abs(trace[increasing + 1].theta.vector() - trace[increasing].theta.vector()))
    print(f"\nlog p(x|θ) increased at each of the first {increasing} iterations. Then, with the"
          f" parameters moving by {moved:.0e}, the increase is below\nthe rounding of log p(x|θ)"
          f" ({ulp:.1e}, 1 ulp): from there on it goes up and down by at most {noise:.1e}"
          f" ({noise / ulp:.0f} ulp)")
    plot(args.plot, x, trace, numpy, unstopped)
    print(f"plot written to {args.plot}")


if __name__ == "__main__":
    main()
