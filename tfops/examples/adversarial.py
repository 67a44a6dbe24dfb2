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
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from attrs import evolve, frozen

from tfops import Graph, Ops, Session, Shape
from tfops.backend import Backend
from tfops.examples import addBackendOption
from tfops.examples._plotting import Axes, save
from tfops.examples.digits import loadDigits
from tfops.framework.optimizers import Adam
from tfops.op.core import NoOp, Placeholder, Sum, Variable
from tfops.output import AnyOperand, Operand, Output
from tfops.types import TFloat64, TInt64

Array = np.ndarray[Any, Any]
F64 = Operand[TFloat64]

EPS = 0.1
"""The FGSM step used for training and for the table (pixels are in [0, 1])."""


@frozen
class Mlp:
    """A one hidden layer network ``relu(x w1 + b1) w2 + b2`` on tfops variables."""

    w1: Variable[TFloat64]
    b1: Variable[TFloat64]
    w2: Variable[TFloat64]
    b2: Variable[TFloat64]

    @staticmethod
    def create(tf: Ops, inputs: int, hidden: int, classes: int, seed: int, prefix: str = "") -> Mlp:
        """Glorot-uniform weights drawn from ``seed``, zero biases; the variables are named
        ``<prefix>w1``, ``<prefix>b1``, ``<prefix>w2``, ``<prefix>b2``."""
        rng = np.random.RandomState(seed)

        def glorot(fanIn: int, fanOut: int) -> Array:
            limit = np.sqrt(6.0 / (fanIn + fanOut))
            return rng.uniform(-limit, limit, size=(fanIn, fanOut))

        return Mlp(
            tf.withName(f"{prefix}w1").variable(tf.constant(glorot(inputs, hidden), TFloat64)),
            tf.withName(f"{prefix}b1").variable(tf.constant(np.zeros(hidden), TFloat64)),
            tf.withName(f"{prefix}w2").variable(tf.constant(glorot(hidden, classes), TFloat64)),
            tf.withName(f"{prefix}b2").variable(tf.constant(np.zeros(classes), TFloat64)),
        )

    def params(self) -> list[Variable[TFloat64]]:
        return [self.w1, self.b1, self.w2, self.b2]

    def logits(self, tf: Ops, x: F64) -> F64:
        hidden = tf.nn.relu(tf.nn.biasAdd(tf.linalg.matMul(x, self.w1), self.b1))
        return tf.nn.biasAdd(tf.linalg.matMul(hidden, self.w2), self.b2)


def crossEntropy(tf: Ops, logits: F64, labels: Operand[TInt64]) -> F64:
    """The mean cross entropy of the logits against integer labels."""
    return tf.math.mean(tf.nn.sparseSoftmaxCrossEntropyWithLogits(logits, labels).loss(), 0)


def inputGradient(tf: Ops, loss: F64, x: F64) -> F64:
    """``d loss / d x`` from ``tf.gradients``: the direction that increases the loss fastest."""
    return tf.gradients(loss, [x]).dy(0)


def clip(tf: Ops, x: F64) -> F64:
    """``x`` clipped to the pixel range [0, 1]."""
    return tf.math.minimum(tf.math.maximum(x, np.float64(0.0)), np.float64(1.0))


def signStep(tf: Ops, x: F64, grad: F64, eps: F64) -> F64:
    """FGSM's image: ``clip(x + eps * sign(grad))``, each pixel moved by ``eps`` uphill."""
    return clip(tf, tf.math.add(x, tf.math.mul(eps, tf.math.sign(grad))))


def l2Step(tf: Ops, x: F64, grad: F64, eps: F64) -> F64:
    """The smooth variant (FGM): ``clip(x + eps * grad / |grad|)``, per image, L2 norm."""
    norm = tf.math.sqrt(
        tf.math.add(tf.sum(tf.math.square(grad), 1, Sum.keepDims(True)), np.float64(1e-30))
    )
    return clip(tf, tf.math.add(x, tf.math.mul(eps, tf.math.div(grad, norm))))


def fgsm(tf: Ops, loss: F64, x: F64, eps: F64) -> F64:
    """The fast gradient sign method in the graph: ``signStep(x, d loss / d x, eps)``.

    Not masked: the caller puts it behind ``tf.stopGradient`` (or, to see why, does not).
    """
    return signStep(tf, x, inputGradient(tf, loss, x), eps)


def mix(tf: Ops, clean: F64, adversarial: F64, alpha: float) -> F64:
    """``(1 - alpha) * clean + alpha * adversarial``."""
    return tf.math.add(
        tf.math.mul(np.float64(1.0 - alpha), clean), tf.math.mul(np.float64(alpha), adversarial)
    )


def gradientsOf(
    tf: Ops, y: F64, xs: Sequence[Operand[TFloat64]]
) -> list[Output[TFloat64] | None]:
    """``tf.gradients(y, xs)``, ``None`` where no gradient flows."""
    return tf.gradients(y, list(xs)).dy()


@frozen
class Network:
    """A network in a shared graph: its training step and its clean and FGSM test tensors."""

    name: str
    mlp: Mlp
    logits: F64
    xAdv: F64
    advLogits: F64
    loss: F64
    step: NoOp


@frozen
class Inputs:
    """The placeholders every network of a graph reads: images, labels and the FGSM step."""

    x: Operand[TFloat64]
    labels: Operand[TInt64]
    eps: Operand[TFloat64]

    @staticmethod
    def create(tf: Ops) -> Inputs:
        return Inputs(
            tf.withName("x").placeholder(TFloat64, Placeholder.shape(Shape.of(-1, 64))),
            tf.withName("labels").placeholder(TInt64, Placeholder.shape(Shape.of(-1))),
            tf.withName("eps").placeholder(TFloat64, Placeholder.shape(Shape.scalar())),
        )


def network(
    graph: Graph, inputs: Inputs, name: str, alpha: float, hidden: int, seed: int, lr: float
) -> Network:
    """A network under sub-scope ``name``, trained on ``mix(loss(x), loss(xAdv), alpha)``.

    ``xAdv`` is FGSM against this very network at ``inputs.eps``, behind ``stopGradient``;
    with ``alpha == 0`` the loss is the clean one (normal training).
    """
    # the variables at the top level, named <name>_w1...: the optimizer names its slots
    # <variable>-m, <variable>-v, which it cannot do for a variable in a sub-scope ("normal/w1")
    mlp = Mlp.create(Ops.create(graph), 64, hidden, 10, seed, prefix=f"{name}_")
    tf = Ops.create(graph).withSubScope(name)
    logits = mlp.logits(tf, inputs.x)
    clean = crossEntropy(tf, logits, inputs.labels)
    xAdv = tf.withName("xAdv").stopGradient(fgsm(tf, clean, inputs.x, inputs.eps))
    advLogits = mlp.logits(tf, xAdv)
    loss = (
        clean if alpha == 0 else mix(tf, clean, crossEntropy(tf, advLogits, inputs.labels), alpha)
    )
    step = Adam(graph, lr, name=f"{name}_Adam").minimize(loss)
    return Network(name, mlp, logits, xAdv, advLogits, loss, step)


@frozen
class Config:
    """The experiment's sizes and hyperparameters, and the backend its sessions run on; the
    defaults are the full example."""

    trainSize: int | None = None
    testSize: int | None = None
    epochs: int = 40
    batch: int = 64
    hidden: int = 64
    lr: float = 0.01
    eps: float = EPS
    alpha: float = 0.5
    seed: int = 0
    epsGrid: tuple[float, ...] = (0.0, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3)
    backend: str | Backend = "numpy"


@frozen
class Outcome:
    """What the experiment measured, by network name (``normal``, ``adversarial``)."""

    clean: dict[str, float]
    """Test accuracy on clean images."""
    adversarial: dict[str, float]
    """Test accuracy on FGSM images at ``Config.eps``, each made against the network itself."""
    byEps: dict[str, list[float]]
    """Test accuracy under FGSM at each ``Config.epsGrid`` value."""
    history: dict[str, list[tuple[float, float]]]
    """(clean, adversarial) test accuracy after each epoch."""


def accuracy(
    session: Session, net: Network, inputs: Inputs, x: Array, y: Array, eps: float
) -> tuple[float, float]:
    """The clean accuracy and the accuracy under FGSM at ``eps`` (against ``net`` itself)."""
    r = (
        session.runner()
        .feed(inputs.x, x)
        .feed(inputs.labels, y)
        .feed(inputs.eps, np.float64(eps))
        .fetch(net.logits)
        .fetch(net.advLogits)
        .run()
    )
    cleanCorrect: Array = np.argmax(r[0], axis=1) == y
    advCorrect: Array = np.argmax(r[1], axis=1) == y
    return float(np.mean(cleanCorrect)), float(np.mean(advCorrect))


def experiment(config: Config, progress: bool = False) -> Outcome:
    """Trains a normal and an adversarially trained network on the same minibatches."""
    from tqdm import tqdm  # type: ignore[import-untyped]

    data = loadDigits(config.trainSize, config.testSize)
    with Graph() as g, Session(g, backend=config.backend) as session:
        tf = Ops.create(g)
        inputs = Inputs.create(tf)
        nets = [
            network(g, inputs, name, alpha, config.hidden, config.seed, config.lr)
            for name, alpha in (("normal", 0.0), ("adversarial", config.alpha))
        ]
        rng = np.random.RandomState(config.seed)
        history: dict[str, list[tuple[float, float]]] = {net.name: [] for net in nets}
        epochs = tqdm(
            range(config.epochs),
            desc="training",
            unit="epoch",
            delay=1.0,
            disable=not progress,
            leave=False,
        )
        for _ in epochs:
            order = rng.permutation(len(data.yTrain))
            for start in range(0, len(order), config.batch):
                batch = order[start : start + config.batch]
                runner = (
                    session.runner()
                    .feed(inputs.x, data.xTrain[batch])
                    .feed(inputs.labels, data.yTrain[batch])
                    .feed(inputs.eps, np.float64(config.eps))
                )
                for net in nets:
                    runner.addTarget(net.step)
                runner.run()
            for net in nets:
                history[net.name].append(
                    accuracy(session, net, inputs, data.xTest, data.yTest, config.eps)
                )
        clean: dict[str, float] = {}
        adversarial: dict[str, float] = {}
        for net in nets:
            clean[net.name], adversarial[net.name] = history[net.name][-1]
        byEps = {
            net.name: [
                accuracy(session, net, inputs, data.xTest, data.yTest, eps)[1]
                for eps in config.epsGrid
            ]
            for net in nets
        }
    return Outcome(clean, adversarial, byEps, history)


Step = Callable[[Ops, F64, F64, F64], F64]
"""``signStep`` or ``l2Step``: ``(tf, x, d loss / d x, eps) -> xAdv``."""


@frozen
class Check:
    """How the adversarial-training gradient compares with and without ``stopGradient``.

    Differences are the largest absolute difference over every parameter's gradient, against
    the gradient computed with ``xAdv`` given as a constant (its numpy value).
    """

    method: str
    size: int
    """The number of images the loss is the mean over."""
    scale: float
    """The largest absolute parameter gradient (the constant-``xAdv`` one), for scale."""
    stopped: float
    """With ``stopGradient(xAdv)``."""
    unstopped: float
    """With ``xAdv`` as it is built, through the gradient of the loss w.r.t. the input."""
    stoppedOps: int
    """Ops the gradient generator added for the parameters' gradient with ``stopGradient``."""
    unstoppedOps: int
    """The same without ``stopGradient``: the extra ones differentiate the generation."""
    construction: dict[str, tuple[float | None, float | None]]
    """For the inputs of the generation, ``x``, ``g = d loss / d x`` and ``eps``: the largest
    absolute gradient of the adversarial loss ``loss(xAdv)`` with respect to them, with and
    without ``stopGradient`` (``None``: the generator found no path)."""


def gradientCheck(config: Config, size: int = 64) -> list[Check]:
    """Compares the training gradient on the first ``size`` training images, for FGSM's
    ``signStep`` and for the smooth ``l2Step``, with fresh network weights."""
    data = loadDigits(size, 0)
    with Graph() as g, Session(g, backend=config.backend) as session:
        tf = Ops.create(g)
        inputs = Inputs.create(tf)
        mlp = Mlp.create(tf, 64, config.hidden, 10, config.seed)
        params = mlp.params()
        clean = crossEntropy(tf, mlp.logits(tf, inputs.x), inputs.labels)
        grad = inputGradient(tf, clean, inputs.x)
        feeds: dict[AnyOperand, object] = {
            inputs.x: data.xTrain,
            inputs.labels: data.yTrain,
            inputs.eps: np.float64(config.eps),
        }

        def run(*fetches: AnyOperand) -> list[Array]:
            runner = session.runner()
            for key, value in feeds.items():
                runner.feed(key, value)
            for fetch in fetches:
                runner.fetch(fetch)
            return [np.asarray(v) for v in runner.run()]

        def advLoss(xAdv: F64) -> F64:
            return crossEntropy(tf, mlp.logits(tf, xAdv), inputs.labels)

        def paramGradients(xAdv: F64) -> tuple[list[Output[TFloat64]], int]:
            loss = mix(tf, clean, advLoss(xAdv), config.alpha)
            before = g.size()
            grads = gradientsOf(tf, loss, params)
            after = g.size()
            return [grad for grad in grads if grad is not None], after - before

        def largest(values: Sequence[Array]) -> float:
            return max(float(np.max(np.abs(v))) for v in values)

        def constructionGradients(xAdv: F64) -> list[Output[TFloat64] | None]:
            return gradientsOf(tf, advLoss(xAdv), [inputs.x, grad, inputs.eps])

        checks: list[Check] = []
        steps: list[tuple[str, Step]] = [("FGSM, sign", signStep), ("FGM, L2", l2Step)]
        for method, step in steps:
            xAdv = step(tf, inputs.x, grad, inputs.eps)
            stopped = tf.stopGradient(xAdv)
            reference, _ = paramGradients(tf.constant(run(xAdv)[0], TFloat64))
            viaStop, stoppedOps = paramGradients(stopped)
            viaGraph, unstoppedOps = paramGradients(xAdv)
            assert len(reference) == len(viaStop) == len(viaGraph) == len(params)
            construction = [*constructionGradients(stopped), *constructionGradients(xAdv)]
            # one run for all of them: one compilation on XLA
            values = iter(
                run(*reference, *viaStop, *viaGraph, *(d for d in construction if d is not None))
            )
            referenceValues, stopValues, graphValues = (
                [next(values) for _ in params] for _ in range(3)
            )
            largestGradients = [
                None if d is None else largest([next(values)]) for d in construction
            ]
            checks.append(
                Check(
                    method,
                    size,
                    largest(referenceValues),
                    largest([a - b for a, b in zip(stopValues, referenceValues, strict=True)]),
                    largest([a - b for a, b in zip(graphValues, referenceValues, strict=True)]),
                    stoppedOps,
                    unstoppedOps,
                    dict(
                        zip(
                            ("x", "g", "eps"),
                            zip(largestGradients[:3], largestGradients[3:], strict=True),
                            strict=True,
                        )
                    ),
                )
            )
    return checks


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
