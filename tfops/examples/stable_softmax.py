"""The seed's first use case: a softmax that does not overflow, thanks to StopGradient.

``python -m tfops.examples.stable_softmax [--plot PATH] [--backend {numpy,xla}]`` builds three
graphs for a vector ``x``:

- naive:     ``exp(x) / sum(exp(x))``, which overflows to ``inf / inf = nan`` for x around 1000;
- stable:    ``z = x - stopGradient(max(x))``, then ``exp(z) / sum(exp(z))``;
- unstopped: ``z = x - max(x)``, the stable form with the gradient allowed through the max;

and prints, as tables, their probabilities, the gradient of ``sum(w * softmax(x))``, the rows of
the Jacobian at tied maxima, and how each behaves as the input is shifted from 0 to 1000, all
against the analytic softmax and its Jacobian ``diag(p) - p pᵀ`` in numpy. The plot shows the
probabilities and the Jacobian error along the shift, and the Jacobian at tied maxima. Every
session runs on ``backend`` (``--backend``: the numpy executor, or XLA).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from attrs import frozen

from tfops import Graph, Ops, Session
from tfops.backend import Backend
from tfops.examples import addBackendOption
from tfops.examples._plotting import Axes, save
from tfops.op.core import Gradients
from tfops.op.math import Div
from tfops.output import Operand, Output
from tfops.types import TFloat64

Array = np.ndarray[Any, Any]
Softmax = Callable[[Ops, Operand[TFloat64]], Div[TFloat64]]

WEIGHTS = np.array([1.0, 2.0, 3.0])
TIED = np.array([1000.0, 1002.0, 1002.0])


def naiveSoftmax(tf: Ops, x: Operand[TFloat64]) -> Div[TFloat64]:
    """``exp(x) / sum(exp(x))``, as the seed's first listing."""
    numerator = tf.math.exp(x)
    return tf.math.div(numerator, tf.sum(numerator, 0))


def stableSoftmax(tf: Ops, x: Operand[TFloat64]) -> Div[TFloat64]:
    """``z = x - stopGradient(max(x))``, then the softmax of ``z``, as the seed's last listing."""
    z = tf.math.sub(x, tf.stopGradient(tf.max(x, 0)))
    numerator = tf.math.exp(z)
    return tf.math.div(numerator, tf.sum(numerator, 0))


def unstoppedSoftmax(tf: Ops, x: Operand[TFloat64]) -> Div[TFloat64]:
    """``z = x - max(x)``, then the softmax of ``z``: the seed's second listing, whose gradient
    also flows through ``max(x)``, split equally between tied maxima."""
    z = tf.math.sub(x, tf.max(x, 0))
    numerator = tf.math.exp(z)
    return tf.math.div(numerator, tf.sum(numerator, 0))


SOFTMAXES: dict[str, Softmax] = {
    "naive": naiveSoftmax, "stable": stableSoftmax, "unstopped": unstoppedSoftmax,
}


def analyticSoftmax(x: Array) -> Array:
    """The softmax computed in numpy, shifted by the maximum."""
    e = np.exp(x - np.max(x))
    result: Array = e / e.sum()
    return result


def analyticJacobian(x: Array) -> Array:
    """``d softmax(x)_i / d x_j = p_i (δ_ij - p_j)``: ``diag(p) - p pᵀ``."""
    p = analyticSoftmax(x)
    result: Array = np.diagflat(p) - np.outer(p, p)  # p is 1-D: diagflat(p) is diag(p)
    return result


def compare(values: Array, weights: Array, *,
            backend: str | Backend = "numpy") -> dict[str, Array]:
    """Probabilities and gradients of ``sum(w * softmax(x))`` by each graph at ``values``, run on
    ``backend``: keys ``naive``, ``stable``, ``unstopped``, each also with ``_grad``, and
    ``analytic``."""
    with Graph() as g, Session(g, backend=backend) as session:
        tf = Ops.create(g)
        x = tf.withName("x").placeholder(TFloat64)
        w: Operand[TFloat64] = tf.constant(weights, TFloat64)
        results: dict[str, Array] = {}
        for name, build in SOFTMAXES.items():
            softmax = build(tf.withSubScope(name), x)
            loss = tf.sum(tf.math.mul(w, softmax), 0)
            grad = tf.gradients(loss, [x]).dy(0)
            assert grad is not None
            out = session.runner().feed(x, values).fetch(softmax).fetch(grad).run()
            results[name], results[name + "_grad"] = out[0], out[1]
        p = analyticSoftmax(values)
        results["analytic"] = p
        results["analytic_grad"] = p * (weights - np.dot(p, weights))
        return results


@frozen
class JacobianGraphs:
    """For each softmax graph, its output and the rows of its Jacobian w.r.t. one placeholder
    ``x`` of ``size`` entries (row ``i`` is the gradient of ``softmax_i``, by ``Gradients.dx``);
    ``gradientOps`` counts the ops the gradient generator added for one row."""

    graph: Graph
    x: Operand[TFloat64]
    softmax: dict[str, Output[TFloat64]]
    rows: dict[str, list[Output[TFloat64]]]
    gradientOps: dict[str, int]
    maxGradient: Output[TFloat64]  # d max(x) / dx: how the unstopped graph splits the gradient
    atMax: list[Output[TFloat64]]  # per row, the gradient reaching max(x) (an unstopped copy)


def _gradient(grads: Gradients[TFloat64]) -> Output[TFloat64]:
    return grads.dy(0)  # x reaches every softmax output


def buildJacobians(size: int) -> JacobianGraphs:
    """The three softmax graphs of one placeholder, with their Jacobian rows."""
    g = Graph()
    tf = Ops.create(g)
    x = tf.withName("x").placeholder(TFloat64)
    softmax: dict[str, Output[TFloat64]] = {}
    rows: dict[str, list[Output[TFloat64]]] = {}
    counts: dict[str, int] = {}
    eye: Array = np.eye(size)
    oneHot = [tf.constant(eye[i], TFloat64) for i in range(size)]
    for name, build in SOFTMAXES.items():
        scoped = tf.withSubScope(name)
        p = build(scoped, x)
        softmax[name] = p.asOutput()
        rows[name] = []
        for i in range(size):
            before = sum(1 for _ in g.operations())
            rows[name].append(_gradient(scoped.gradients(p, [x], Gradients.dx([oneHot[i]]))))
            counts[name] = sum(1 for _ in g.operations()) - before
    u = tf.withSubScope("split")
    top = u.max(x, 0)
    z = u.math.sub(x, top)
    e = u.math.exp(z)
    p = u.math.div(e, u.sum(e, 0))
    atMax = [_gradient(u.gradients(p, [top], Gradients.dx([oneHot[i]]))) for i in range(size)]
    return JacobianGraphs(g, x, softmax, rows, counts, _gradient(u.gradients(top, [x])), atMax)


def jacobians(graphs: JacobianGraphs, session: Session, values: Array) -> dict[str, Array]:
    """Each graph's softmax (key ``name``) and Jacobian (key ``name + "_jacobian"``) at
    ``values``."""
    runner = session.runner().feed(graphs.x, values)
    for name in SOFTMAXES:
        runner.fetch(graphs.softmax[name])
        for row in graphs.rows[name]:
            runner.fetch(row)
    out = runner.run()
    results: dict[str, Array] = {}
    size = len(values)
    for k, name in enumerate(SOFTMAXES):
        base = k * (size + 1)
        results[name] = out[base]
        results[name + "_jacobian"] = np.stack(out[base + 1: base + 1 + size])
    return results


def shiftSweep(shifts: Array, progress: bool = False, *,
               backend: str | Backend = "numpy") -> dict[str, Array]:
    """For ``x = c + [0, 1, 2]`` at each shift ``c``, run on ``backend``: each graph's
    probabilities (key ``name``, ``[shifts, 3]``) and its largest Jacobian error against the
    analytic one (key ``name + "_error"``, nan when the graph gives nan)."""
    graphs = buildJacobians(3)
    results: dict[str, list[Array]] = {key: [] for name in SOFTMAXES
                                       for key in (name, name + "_error")}
    with graphs.graph, Session(graphs.graph, backend=backend) as session:
        for c in _progress(shifts, "shift", progress):
            values = c + np.array([0.0, 1.0, 2.0])
            r = jacobians(graphs, session, values)
            exact = analyticJacobian(values)
            for name in SOFTMAXES:
                results[name].append(r[name])
                results[name + "_error"].append(np.max(np.abs(r[name + "_jacobian"] - exact)))
    return {key: np.array(v) for key, v in results.items()}


def _progress(items: Array, description: str, show: bool) -> Iterable[float]:
    """``items``, with a tqdm bar on stderr if ``show`` and the loop runs longer than a second."""
    if not show:
        return items
    try:
        from tqdm import tqdm  # type: ignore[import-untyped]
    except ImportError:  # the examples extra is not installed: no progress bar
        return items

    bar: Iterable[float] = tqdm(items, desc=description, delay=1.0, leave=False)
    return bar  # (typed here: mypy knows tqdm as Any, it ships no types)


def _vector(v: Array) -> str:
    return np.array2string(v, precision=4, separator=", ")


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], widths: Sequence[int]) -> str:
    def line(cells: Sequence[str]) -> str:
        return " | ".join(f"{c:>{w}}" for c, w in zip(cells, widths, strict=True))

    first = line(header)
    return "\n".join([first, "-" * len(first), *(line(r) for r in rows)])


def comparisonTables(cases: Sequence[Array], weights: Array, *,
                     backend: str | Backend = "numpy") -> str:
    """The probabilities, then the gradients of ``sum(w * softmax(x))``, of each case."""
    header = ["x", "naive", "stable", "numpy"]
    widths = [24, 26, 26, 26]
    results = [compare(values, weights, backend=backend) for values in cases]
    probabilities = [[_vector(v) for v in (values, r["naive"], r["stable"], r["analytic"])]
                     for values, r in zip(cases, results, strict=True)]
    gradients = [[_vector(v) for v in
                  (values, r["naive_grad"], r["stable_grad"], r["analytic_grad"])]
                 for values, r in zip(cases, results, strict=True)]
    return "\n".join([
        "softmax of x: naive exp(x)/sum(exp(x)) vs stable x - stopGradient(max(x))\n",
        _table(header, probabilities, widths),
        f"\ngradient of sum(w * softmax(x)), w = {_vector(weights)}\n",
        _table(header, gradients, widths),
    ])


def tiedMaximaTable(values: Array, *, backend: str | Backend = "numpy") -> str:
    """The Jacobian rows of each graph at ``values`` (which has tied maxima), and where the
    unstopped graph sends the gradient that reaches ``max(x)``."""
    graphs = buildJacobians(len(values))
    with graphs.graph, Session(graphs.graph, backend=backend) as session:
        r = jacobians(graphs, session, values)
        runner = session.runner().feed(graphs.x, values).fetch(graphs.maxGradient)
        for out in graphs.atMax:
            runner.fetch(out)
        split, *atMax = runner.run()
    exact = analyticJacobian(values)
    rows = [[f"d p{i} / dx", *(_vector(r[n + "_jacobian"][i]) for n in SOFTMAXES),
             _vector(exact[i]), f"{float(atMax[i]):.1e}"] for i in range(len(values))]
    errors = {n: np.max(np.abs(r[n + "_jacobian"] - exact)) for n in ("stable", "unstopped")}
    return "\n".join([
        f"Jacobian rows at tied maxima, x = {_vector(values)}\n",
        _table(["row", "naive", "stable", "unstopped", "numpy diag(p)-ppᵀ", "at max(x)"], rows,
               [10, 18, 28, 28, 28, 9]),
        f"\nlargest error: stable {errors['stable']:.1e}, unstopped {errors['unstopped']:.1e}."
        f" Without stopGradient, row i sends Σ_j dp_i/dz_j (0 up to rounding: 'at max(x)')\n"
        f"into max(x), which passes it on split between the tied maxima as {_vector(split)}.",
        "gradient ops for one row: " + ", ".join(
            f"{n} {graphs.gradientOps[n]}" for n in SOFTMAXES),
    ])


def sweepTable(shifts: Array, sweep: dict[str, Array], shown: Sequence[float]) -> str:
    """Some rows of :func:`shiftSweep`: the probabilities and the Jacobian errors."""
    rows: list[list[str]] = []
    for c in shown:
        i = int(np.argmin(np.abs(shifts - c)))
        rows.append([f"{shifts[i]:g}", _vector(sweep["naive"][i]), _vector(sweep["stable"][i]),
                     *(f"{sweep[n + '_error'][i]:.1e}" for n in SOFTMAXES)])
    return _table(["shift c", "naive", "stable", "naive err", "stable err", "unstop. err"],
                  rows, [7, 26, 26, 9, 10, 11])


def plot(path: str, shifts: Array, sweep: dict[str, Array], tied: Array, *,
         backend: str | Backend = "numpy") -> None:
    """Three panels: probabilities along the shift, the Jacobian error along the shift, and the
    Jacobian at tied maxima (computed on ``backend``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    probs: Axes  # plt.subplots gives Any: declared, so each call is checked
    errors: Axes
    rows: Axes
    fig, (probs, errors, rows) = plt.subplots(1, 3, figsize=(15, 4.2))
    nan = np.flatnonzero(np.isnan(sweep["naive"]).any(axis=1))
    for axes in (probs, errors):
        if nan.size:
            axes.axvspan(float(shifts[nan[0]]), float(shifts[-1]), color="tab:red", alpha=0.08,
                         label=f"naive: nan from c = {shifts[nan[0]]:g}")
    every = slice(None, None, max(1, len(shifts) // 40))
    for i, color in enumerate(("tab:blue", "tab:orange", "tab:green")):
        probs.plot(shifts, sweep["stable"][:, i], color=color, lw=2, label=f"stable p{i}")
        probs.plot(shifts[every], sweep["naive"][every, i], "o", ms=3, color="black",
                   label="naive" if i == 0 else None)
    if nan.size:  # the last finite and the first nan shifts: p = finite / inf = 0 in between
        near = slice(max(0, nan[0] - 1), nan[0] + 2)
        probs.plot(shifts[near], sweep["naive"][near], "o", ms=3, color="black")
    probs.set(title="softmax(c + [0, 1, 2])", xlabel="shift c", ylabel="probability",
              ylim=(-0.03, 0.75))
    probs.legend(fontsize=8, loc="center left")

    for name, color, marker in (("naive", "black", "o"), ("stable", "tab:blue", "s"),
                                ("unstopped", "tab:purple", "^")):
        errors.semilogy(shifts[every], np.maximum(sweep[name + "_error"][every], 1e-19), marker,
                        ms=3, color=color, label=name)
    finite = np.concatenate([e[np.isfinite(e)] for e in
                             (sweep[name + "_error"] for name in SOFTMAXES)])
    top = max(1e-14, 10.0 * float(finite.max(initial=0.0)))  # XLA: the naive one goes far off
    errors.set(title="max |Jacobian − (diag(p) − ppᵀ)|", xlabel="shift c",
               ylabel="absolute error", ylim=(1e-19, top))
    errors.legend(fontsize=8, loc="upper left" if top == 1e-14 else "center left")

    graphs = buildJacobians(len(tied))
    with graphs.graph, Session(graphs.graph, backend=backend) as session:
        r = jacobians(graphs, session, tied)
    exact = analyticJacobian(tied).ravel()
    positions = np.arange(exact.size)
    rows.bar(positions - 0.2, r["stable_jacobian"].ravel(), 0.4, color="tab:blue",
             label="stable (tfops)")
    rows.bar(positions + 0.2, r["unstopped_jacobian"].ravel(), 0.4, color="tab:purple",
             label="unstopped (tfops)")
    rows.plot(positions, exact, "kx", label="diag(p) − ppᵀ (numpy)")
    rows.set_xticks(positions, [f"{i}{j}" for i in range(len(tied)) for j in range(len(tied))])
    rows.set(title=f"Jacobian at tied maxima x = {_vector(tied)}", xlabel="entry ij",
             ylabel="d p_i / d x_j")
    rows.legend(fontsize=8)
    fig.tight_layout()
    save(fig, path, dpi=80)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> None:
    """Prints the tables for inputs around 0 and around 1000 and writes the plot."""
    parser = argparse.ArgumentParser(prog="python -m tfops.examples.stable_softmax",
                                     description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--plot", default="stable_softmax.png", help="where to write the PNG")
    addBackendOption(parser)
    args = parser.parse_args(argv)
    backend: str = args.backend

    cases = [np.array([1.0, 2.0, 3.0]), np.array([1000.0, 1001.0, 1002.0]), TIED]
    print(f"on the {backend} backend\n")
    print(comparisonTables(cases, WEIGHTS, backend=backend))
    print()
    print(tiedMaximaTable(TIED, backend=backend))
    shifts = np.arange(0.0, 1001.0)
    sweep = shiftSweep(shifts, progress=True, backend=backend)
    print("\nx = c + [0, 1, 2] as the shift c grows: probabilities and largest Jacobian error\n")
    print(sweepTable(shifts, sweep, [0, 100, 500, 700, 707, 708, 709, 710, 1000]))
    try:
        plot(args.plot, shifts, sweep, TIED, backend=backend)
    except ImportError:
        print("\nno plot: matplotlib is not installed (pip install 'tfops[examples]')")
    else:
        print(f"\nplot written to {args.plot}")


if __name__ == "__main__":
    main()
