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
from collections.abc import Sequence

import numpy as np

from tfops.examples import addBackendOption
from tfops.examples._plotting import Axes, save
from tfops.examples.em_gmm_graph import OBJECTIVES, EmIteration, fitWithoutStopGradient, runEm
from tfops.examples.em_gmm_mixture import (
    TRUE_MIXTURE,
    Array,
    Mixture,
    closedFormEm,
    closedFormFixedPoint,
    initialGuess,
    sample,
)

# The program: the tables, the plot and main. The mixture, its data and closed-form EM (numpy)
# are tfops.examples.em_gmm_mixture; EM in tfops (the graph and its loops) is em_gmm_graph.

NAMES = ("mean", "variance", "weight")


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
    rows = [
        [
            name,
            f"{reference[i]:.8f}",
            f"{stopped[i]:.8f}",
            f"{abs(stopped[i] - reference[i]):.1e}",
            f"{unstopped[i]:.8f}",
            f"{abs(unstopped[i] - reference[i]):.1e}",
            f"{-entropy[i]:.8f}",
        ]
        for i, name in enumerate(_parameterNames(len(it.theta.means)))
    ]
    return _table(
        ["θ", "d log p(x|θ)", "dQ", "|diff|", "dQ unstopped", "|diff|", "-d ΣH(r)"],
        rows,
        [11, 16, 16, 7, 16, 7, 14],
    )


def iterationTable(x: Array, trace: list[EmIteration], numpy: list[Mixture]) -> str:
    """Some iterations: log p by tfops and by numpy, its increase, the parameters' difference."""
    last = len(trace) - 1
    shown = sorted({*range(min(5, last)), *range(10, last, 10 if last < 100 else 50), last})
    rows: list[list[str]] = []
    for i in shown:
        it = trace[i]
        rows.append(
            [
                str(i),
                f"{it.logLikelihood:.10f}",
                f"{numpy[i].logLikelihood(x):.10f}",
                f"{it.logLikelihood - trace[i - 1].logLikelihood:.2e}" if i else "",
                f"{np.max(np.abs(it.theta.vector() - numpy[i].vector())):.1e}",
                str(it.mSteps),
            ]
        )
    return _table(
        [
            "iter",
            "log p(x|θ) tfops",
            "log p(x|θ) numpy",
            "increase",
            "|θ tfops - θ numpy|",
            "M steps",
        ],
        rows,
        [5, 18, 18, 10, 19, 7],
    )


def fixedPointTable(final: Mixture, reference: Mixture, unstopped: Mixture) -> str:
    """The true parameters and the three fits, side by side."""
    rows: list[list[str]] = []
    for i, name in enumerate(_parameterNames(len(final.means))):
        a, b = final.vector()[i], reference.vector()[i]
        rows.append(
            [
                name,
                f"{TRUE_MIXTURE.vector()[i]:.4f}",
                f"{a:.10f}",
                f"{b:.10f}",
                f"{abs(a - b):.1e}",
                f"{unstopped.vector()[i]:.6f}",
            ]
        )
    return _table(
        ["θ", "true", "tfops EM", "closed-form EM", "|diff|", "no stopGradient"],
        rows,
        [11, 7, 14, 14, 7, 15],
    )


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


def plot(
    path: str, x: Array, trace: Sequence[EmIteration], numpy: Sequence[Mixture], unstopped: Mixture
) -> None:
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
    climb.semilogy(
        steps, [best - it.logLikelihood for it in trace], color="tab:blue", lw=2, label="tfops EM"
    )
    climb.semilogy(
        steps,
        [best - t.logLikelihood(x) for t in numpy],
        "--",
        color="tab:orange",
        label="closed-form EM",
    )
    climb.axhline(
        float(np.spacing(abs(best))), color="0.5", ls=":", lw=1, label="1 ulp of log p(x|θ)"
    )
    climb.set(
        title="log p(x|θ) never decreases",
        xlabel="EM iteration",
        ylabel="max log p(x|θ) − log p(x|θ)",
    )
    climb.legend(fontsize=8)

    for name, label, color in (
        ("q", "Q with stopGradient", "tab:green"),
        ("qUnstopped", "Q without stopGradient", "tab:red"),
    ):
        gaps = [np.max(np.abs(it.scores[name] - it.scores["logLikelihood"])) for it in trace]
        gap.semilogy(steps, np.maximum(gaps, 1e-17), color=color, label=label)
    gap.set(
        title="Fisher's identity: max |∇Q − ∇log p(x|θ)|",
        xlabel="EM iteration",
        ylabel="largest difference over θ",
    )
    gap.legend(fontsize=8)
    fig.tight_layout()
    save(fig, path, dpi=80)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> None:
    """Fits the mixture three ways, prints the tables and writes the plot."""
    parser = argparse.ArgumentParser(
        prog="python -m tfops.examples.em_gmm",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
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

    print(
        f"EM for a mixture of 3 Gaussians on n = {len(x)} points (numpy seed 0), tfops on the"
        f" {backend} backend\n"
    )
    print("Fisher's identity at the start: r = stopGradient(softmax(ℓ)) makes dQ = d log p(x|θ);")
    print("without stopGradient, dQ = d log p(x|θ) - d ΣH(r)\n")
    print(scoreTable(trace[0]))
    print(
        "\nEM iterations: tfops (Fisher scoring on Q, responsibilities fed) vs closed-form EM"
        " (numpy)\n"
    )
    print(iterationTable(x, trace, numpy))
    print(
        f"\nfixed point: iteration {iterations} moved no parameter by 1e-10; closed-form EM"
        f" after as many iterations;\nthe fit without stopGradient took {unstoppedSteps} steps"
        f" (half Fisher scoring steps on Q without stopGradient)\n"
    )
    print(fixedPointTable(trace[-1].theta, numpy[-1], unstopped))
    alone, aloneIterations = closedFormFixedPoint(x, start)
    print(
        f"\nclosed-form EM run on its own until it moves nothing ({aloneIterations} iterations)"
        f" is {np.max(np.abs(alone.vector() - trace[-1].theta.vector())):.1e} from the tfops"
        " fixed point"
    )
    print(
        f"log p(x|θ) at the fixed point: tfops EM {trace[-1].logLikelihood:.10f}, closed-form"
        f" EM {alone.logLikelihood(x):.10f}, without stopGradient"
        f" {unstopped.logLikelihood(x):.10f}"
    )
    increasing, noise = monotonicity(trace)
    ulp = float(np.spacing(abs(trace[-1].logLikelihood)))
    moved = np.max(np.abs(trace[increasing + 1].theta.vector() - trace[increasing].theta.vector()))
    print(
        f"\nlog p(x|θ) increased at each of the first {increasing} iterations. Then, with the"
        f" parameters moving by {moved:.0e}, the increase is below\nthe rounding of log p(x|θ)"
        f" ({ulp:.1e}, 1 ulp): from there on it goes up and down by at most {noise:.1e}"
        f" ({noise / ulp:.0f} ulp)"
    )
    plot(args.plot, x, trace, numpy, unstopped)
    print(f"plot written to {args.plot}")


if __name__ == "__main__":
    main()
