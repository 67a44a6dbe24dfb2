"""The seed's third use case: contrastive divergence training of a Boltzmann machine.

``python -m tfops.examples.rbm_cd`` trains a binary restricted Boltzmann machine (16 visible
units, a 4x4 image, and 8 hidden units) on the 30 bars-and-stripes patterns with CD-k. The loss
is the free-energy difference ``mean F(v_data) - mean F(v_model)`` with
``F(v) = -b.v - sum_j softplus(c_j + (v W)_j)``; the model samples ``v_model`` come from k steps
of block Gibbs sampling, built in the graph with seeded random ops, and sit behind
``tf.stopGradient``: the training must not backpropagate through the graph that generated them.

The machine is small enough to compute its exact log-likelihood (the partition function sums
the free energies of all 2^16 visible states), so the example prints and plots it rising, and
checks ``tf.gradients`` of the loss against the classic CD update, with and without the
StopGradient.

Every session runs on ``Config.backend`` (``--backend {numpy,xla}``: the numpy executor, or XLA;
the random ops draw numpy's numbers on the one and ``jax.random``'s on the other).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

import numpy as np

from tfops.examples import addBackendOption
from tfops.examples._plotting import GridFigure, GridSpecLike, SubplotPlace, save
from tfops.examples.rbm_cd_model import HIDDEN, SIDE, VISIBLE, barsAndStripes
from tfops.examples.rbm_cd_training import (
    Config,
    GradientComparison,
    History,
    compareGradients,
    train,
)

# The program: the tables, the plot and main. The data set and the machine (in the graph and in
# numpy) are tfops.examples.rbm_cd_model; training and the gradient check, rbm_cd_training.


# --- the command line --------------------------------------------------------------------------


def plot(
    histories: Sequence[tuple[str, History]], comparisons: Sequence[GradientComparison], path: str
) -> None:
    """Log-likelihood curves, the gradient differences, and the learned weights, to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # the one call of matplotlib's whose type is partly unknown (pyplot.figure's **kwargs have
    # none); the figure it returns is typed, and _draw checks every call on it
    figure = plt.figure(figsize=(12, 3.6), dpi=72)  # pyright: ignore[reportUnknownMemberType]
    _draw(figure, histories, comparisons)
    save(figure, path)
    plt.close(figure)


def _weightCells(place: SubplotPlace) -> GridSpecLike:
    return place.subgridspec(4, 4, height_ratios=[0.9, 1, 1, 0.9], wspace=0.1, hspace=0.1)


def _draw(
    figure: GridFigure,
    histories: Sequence[tuple[str, History]],
    comparisons: Sequence[GradientComparison],
) -> None:
    outer = figure.add_gridspec(1, 3, width_ratios=[1.2, 1.1, 1], wspace=0.7)
    curves = figure.add_subplot(outer[0])
    for label, history in histories:
        curves.plot(history.epochs, history.logLikelihood, label=label)
    n = len(barsAndStripes())
    curves.axhline(-VISIBLE * np.log(2.0), color="gray", linestyle=":", label="uniform model")
    curves.axhline(-np.log(n), color="black", linestyle="--", label=f"best: log(1/{n})")
    curves.set_xlabel("epoch")
    curves.set_ylabel("mean log-likelihood")
    curves.set_title("exact log-likelihood during training", fontsize=10)
    curves.legend(fontsize=8, loc="lower right")

    bars = figure.add_subplot(outer[1])
    labels = [
        c.negative.split(",")[0].replace(" samples", "")
        + ("\n+ stopGradient" if c.stopGradient else "\nno stopGradient")
        for c in comparisons
    ]
    worst = [max(max(c.differences()), 1e-18) for c in comparisons]
    colors = ["tab:green" if w < 1e-10 else "tab:red" for w in worst]
    bars.barh(range(len(worst)), worst, color=colors)
    bars.set_xscale("log")
    bars.set_xlim(1e-18, 1.0)
    bars.axvline(1e-10, color="gray", linestyle=":")
    bars.set_yticks(range(len(worst)), labels, fontsize=8)
    bars.invert_yaxis()
    bars.set_xlabel("max |tf.gradients + CD update| over W, b, c")
    bars.set_title("gradient vs the CD formula, same samples", fontsize=10)

    W = histories[-1][1].parameters[0]
    scale = float(np.abs(W).max())
    cells = _weightCells(outer[2])
    for j in range(HIDDEN):
        ax = figure.add_subplot(cells[1 + j // 4, j % 4])
        ax.imshow(np.reshape(W[:, j], (SIDE, SIDE)), cmap="RdBu", vmin=-scale, vmax=scale)
        ax.set_xticks([])
        ax.set_yticks([])
        if j == 1:
            ax.set_title(
                f"{histories[-1][0]} weights of the {HIDDEN} hidden units", fontsize=10, x=1.05
            )
    figure.subplots_adjust(left=0.05, right=0.99, bottom=0.15, top=0.9)


def main(argv: Sequence[str] | None = None) -> None:
    """Trains CD-1 and CD-5 machines, prints the log-likelihood and gradient tables, plots."""
    parser = argparse.ArgumentParser(
        prog="python -m tfops.examples.rbm_cd",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    parser.add_argument("--plot", default="rbm_cd.png", help="where to write the PNG plot")
    parser.add_argument("--epochs", type=int, default=Config().epochs, help="training epochs")
    parser.add_argument("--every", type=int, default=50, help="epochs between evaluations")
    addBackendOption(parser)
    args = parser.parse_args(argv)
    backend: str = args.backend

    data = barsAndStripes()
    n = len(data)
    started = time.perf_counter()
    print(
        f"CD-k training of a {VISIBLE}-{HIDDEN} RBM on the {n} bars-and-stripes "
        f"{SIDE}x{SIDE} patterns, {args.epochs} epochs, on the {backend} backend"
    )
    print(
        f"exact mean log-likelihood of the data set (uniform model: "
        f"{-VISIBLE * np.log(2.0):.3f}, best: log(1/{n}) = {-np.log(n):.3f})\n",
        flush=True,
    )
    histories = [
        (f"CD-{k}", train(Config(epochs=args.epochs, k=k, backend=backend), data, args.every, True))
        for k in (1, 5)
    ]
    header = f"{'epoch':>6} | " + " | ".join(f"{label:>8}" for label, _ in histories)
    print(header)
    print("-" * len(header))
    epochs = histories[0][1].epochs
    stride = max(1, (len(epochs) - 1) // 10)
    for i, epoch in enumerate(epochs):
        if i % stride == 0 or i == len(epochs) - 1:
            cells = " | ".join(f"{h.logLikelihood[i]:8.3f}" for _, h in histories)
            print(f"{epoch:>6} | {cells}")

    label, trained = histories[-1]
    k = 5
    comparisons = compareGradients(trained.parameters, data, k, seed=7, backend=backend)
    print(f"\ntf.gradients(loss, [W, b, c]) at the trained {label} parameters, in float64,")
    print("against minus the CD update (<v h>_data - <v h>_model, <v>_data - <v>_model,")
    print("<h>_data - <h>_model) computed in numpy from the same v_model\n")
    header = (
        f"{'negative phase':>22} | {'stopGradient':>12} | {'max|dW - CD|':>12} | "
        f"{'max|db - CD|':>12} | {'max|dc - CD|':>12}"
    )
    print(header)
    print("-" * len(header))
    for comparison in comparisons:
        dW, db, dc = comparison.differences()
        print(
            f"{comparison.negative:>22} | {'yes' if comparison.stopGradient else 'no':>12} | "
            f"{dW:12.3g} | {db:12.3g} | {dc:12.3g}"
        )
    print("\nGibbs samples are `uniform < p`: Less passes no gradient, so the samples are")
    print("constants to tf.gradients with or without stopGradient. The mean-field chain is")
    print("smooth in W, b, c: without stopGradient the gradient flows back through it.")
    plot(histories, comparisons, args.plot)
    print(f"\nplot written to {args.plot} ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
