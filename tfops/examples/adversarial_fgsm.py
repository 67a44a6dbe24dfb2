"""The networks of the adversarial training example (:mod:`tfops.examples.adversarial`), in
the graph: the one hidden layer network (:class:`Mlp`), its loss, FGSM and its smooth variant
(the image moved uphill along ``d loss / d x`` from ``tf.gradients``), and :func:`network`, a
network trained on the mix of its clean loss and its loss on its own FGSM images behind
``stopGradient``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from attrs import frozen

from tfops import Graph, Ops, Shape
from tfops.framework.optimizers import Adam
from tfops.op.core import NoOp, Placeholder, Sum, Variable
from tfops.output import Operand, Output
from tfops.types import TFloat64, TInt64

__all__ = [
    "F64",
    "Array",
    "Inputs",
    "Mlp",
    "Network",
    "clip",
    "crossEntropy",
    "fgsm",
    "gradientsOf",
    "inputGradient",
    "l2Step",
    "mix",
    "network",
    "signStep",
]

Array = np.ndarray[Any, Any]
F64 = Operand[TFloat64]


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


def gradientsOf(tf: Ops, y: F64, xs: Sequence[Operand[TFloat64]]) -> list[Output[TFloat64] | None]:
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
