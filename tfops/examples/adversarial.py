"""The seed's fourth use case: adversarial training, with no backprop through example generation.

``python -m tfops.examples.adversarial [--plot PATH] [--backend {numpy,xla}]`` trains two small
networks on scikit-learn's bundled digits (8x8 images, pixels scaled to [0, 1]): one on clean
images, one adversarially.
The adversarial examples are made in the graph by the fast gradient sign method (FGSM),

    xAdv = stopGradient(clip(x + eps * sign(d loss / d x), 0, 1))

with ``d loss / d x`` from ``tf.gradients``, and the adversarially trained network minimizes
``(1 - alpha) * loss(x) + alpha * loss(xAdv)``. ``stopGradient`` makes ``xAdv`` a constant to the
gradient generator: the parameters' gradient is the one a numpy ``xAdv`` would give. The example
prints the clean and adversarial test accuracy of both networks and that gradient check, and
plots accuracy against ``eps``. Every session runs on ``Config.backend`` (``--backend``: the
numpy executor, or XLA).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np
from attrs import evolve

from tfops.backend import Backend
from tfops.examples import addBackendOption
from tfops.examples._plotting import Axes, save
from tfops.examples.adversarial_experiment import (
    Check,
    Config,
    Outcome,
    experiment,
    gradientCheck,
)
from tfops.examples.digits import loadDigits

# The program: the report, the plot and main. The networks and FGSM are
# tfops.examples.adversarial_fgsm; the training and the gradient check, adversarial_experiment.


def _backendName(backend: str | Backend) -> str:
    return backend if isinstance(backend, str) else backend.name


def percent(value: float) -> str:
    return f"{100 * value:5.1f} %"


def report(config: Config, outcome: Outcome, checks: Sequence[Check]) -> str:
    """The printed tables: accuracies, accuracy by ``eps``, and the gradient check."""
    data = loadDigits(config.trainSize, config.testSize)
    lines = [
        f"adversarial training on scikit-learn's digits, on the {_backendName(config.backend)}"
        f" backend: {len(data.yTrain)} training and {len(data.yTest)} test images,",
        f"network 64-{config.hidden}-10 (relu), Adam, {config.epochs} epochs of minibatches of "
        f"{config.batch}; FGSM at eps = {config.eps} against each network",
        "",
    ]
    rows = [
        ("normal", "normal: loss(x)"),
        (
            "adversarial",
            f"adversarial: {1 - config.alpha:g} loss(x) + {config.alpha:g} "
            "loss(stopGradient(xAdv))",
        ),
    ]
    width = max(len(label) for _, label in rows)
    header = f"{'training':<{width}} | clean test accuracy | FGSM test accuracy"
    lines += [header, "-" * len(header)]
    for name, label in rows:
        lines.append(
            f"{label:<{width}} | {percent(outcome.clean[name]):>19} | "
            f"{percent(outcome.adversarial[name]):>18}"
        )
    lines += ["", "test accuracy under FGSM by eps", ""]
    header = f"{'eps':<11} |" + "".join(f"{eps:>7.3f}" for eps in config.epsGrid)
    lines += [header, "-" * len(header)]
    for name, _ in rows:
        lines.append(f"{name:<11} |" + "".join(f"{100 * a:>7.1f}" for a in outcome.byEps[name]))
    lines += [
        "",
        "gradient of the adversarial-training loss w.r.t. the parameters (fresh weights, "
        f"{checks[0].size} images):",
        "largest difference from the gradient with xAdv given as a constant (its numpy value);",
        "then the gradient of lossAdv = loss(xAdv) w.r.t. what built xAdv, g = d loss(x) / d x",
        "",
    ]

    def either(pair: tuple[float | None, float | None]) -> str:
        return " / ".join("None" if v is None else f"{v:.3g}" for v in pair)

    cells: list[tuple[str, list[str]]] = [
        ("", [check.method for check in checks]),
        ("largest |gradient|", [f"{check.scale:.3e}" for check in checks]),
        ("difference with stopGradient", [f"{check.stopped:.3e}" for check in checks]),
        ("difference without stopGradient", [f"{check.unstopped:.3e}" for check in checks]),
        (
            "gradient ops with / without",
            [f"{check.stoppedOps} / {check.unstoppedOps}" for check in checks],
        ),
    ]
    for name in checks[0].construction:
        cells.append(
            (
                f"|d lossAdv / d {name}| with / without",
                [either(check.construction[name]) for check in checks],
            )
        )
    width = max(len(label) for label, _ in cells)
    for label, values in cells:
        lines.append(f"{label:<{width}} |" + "".join(f"{v:>18}" for v in values))
    return "\n".join(lines)


def plot(config: Config, outcome: Outcome, path: str) -> None:
    """Accuracy under FGSM against eps, and test accuracy by epoch, for both networks."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"normal": "tab:blue", "adversarial": "tab:red"}
    left: Axes  # plt.subplots gives Any: declared, so each call is checked
    right: Axes
    fig, (left, right) = plt.subplots(1, 2, figsize=(9.0, 3.4))
    for name, accuracies in outcome.byEps.items():
        left.plot(config.epsGrid, accuracies, "o-", color=colors[name], label=f"{name} training")
    left.axvline(config.eps, color="gray", linestyle=":", label=f"training eps = {config.eps}")
    left.set(xlabel="FGSM eps", ylabel="test accuracy", ylim=(0, 1), title="accuracy under FGSM")
    left.legend(fontsize=8)
    epochs = np.arange(1, config.epochs + 1)
    for name, history in outcome.history.items():
        clean, adversarial = zip(*history, strict=True)
        right.plot(epochs, clean, "--", color=colors[name], label=f"{name}: clean")
        right.plot(
            epochs, adversarial, "-", color=colors[name], label=f"{name}: FGSM eps = {config.eps}"
        )
    right.set(xlabel="epoch", ylabel="test accuracy", ylim=(0, 1), title="during training")
    right.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    save(fig, path, dpi=80)
    plt.close(fig)


def main(argv: Sequence[str] | None = None, config: Config | None = None) -> None:
    """Trains both networks, prints the tables and writes the plot (``config``: a smaller
    experiment, for the tests; ``--backend`` replaces its backend)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--plot", default="adversarial.png", help="where to write the PNG plot")
    addBackendOption(parser)
    args = parser.parse_args(argv)
    config = evolve(config or Config(), backend=args.backend)
    outcome = experiment(config, progress=True)
    print(report(config, outcome, gradientCheck(config)))
    plot(config, outcome, args.plot)
    print(f"\nplot written to {args.plot}")


if __name__ == "__main__":
    main()
