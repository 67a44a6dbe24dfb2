"""The machine of the contrastive divergence example (:mod:`tfops.examples.rbm_cd`): the
bars-and-stripes data set, the binary RBM's free energy, Gibbs and mean-field chains, CD loss,
gradients and exact log-likelihood built in the graph, and the same quantities in numpy (the
classic CD update and the exact log-likelihood) that the graph is checked against.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from tfops import Ops
from tfops.op.linalg import MatMul
from tfops.op.random import RandomUniform
from tfops.output import Operand
from tfops.types import TFloat64

__all__ = [
    "F64",
    "HIDDEN",
    "SIDE",
    "VISIBLE",
    "Array",
    "allStates",
    "barsAndStripes",
    "bernoulli",
    "cdLoss",
    "cdUpdate",
    "exactLogLikelihood",
    "freeEnergy",
    "gibbsChain",
    "hiddenProbabilities",
    "meanFieldChain",
    "numpyFreeEnergy",
    "numpyLogLikelihood",
    "parameterGradients",
    "sigmoid",
    "visibleProbabilities",
]

Array = np.ndarray[Any, Any]
F64 = Operand[TFloat64]

SIDE = 4
VISIBLE = SIDE * SIDE
HIDDEN = 8


# --- the data set ------------------------------------------------------------------------------


def barsAndStripes(side: int = SIDE) -> Array:
    """The ``2^(side+1) - 2`` distinct bars-and-stripes images, flattened: every image whose rows
    are all equal (vertical bars) or whose columns are all equal (horizontal stripes)."""
    images: set[tuple[float, ...]] = set()
    for bits in itertools.product((0.0, 1.0), repeat=side):
        line = np.array(bits)
        images.add(tuple(np.repeat(line, side)))  # row i is all bits[i]: horizontal stripes
        images.add(tuple(np.tile(line, side)))  # column j is all bits[j]: vertical bars
    patterns: Array = np.array(sorted(images))
    return patterns


def allStates(n: int = VISIBLE) -> Array:
    """Every binary vector of length ``n``, one a row (``2^n`` rows)."""
    codes = np.arange(1 << n)[:, None]  # 2^n: 1 << n is an int to the checkers, 2**n is not
    states: Array = ((codes >> np.arange(n - 1, -1, -1)) & 1).astype(np.float64)
    return states


# --- the model in the graph --------------------------------------------------------------------


def freeEnergy(tf: Ops, v: F64, W: F64, b: F64, c: F64) -> F64:
    """``F(v) = -v.b - sum_j softplus(c_j + (v W)_j)``, one value per row of ``v``."""
    visibleTerm = tf.sum(tf.math.mul(v, b), 1)
    hiddenTerm = tf.sum(tf.math.softplus(tf.math.add(tf.linalg.matMul(v, W), c)), 1)
    return tf.math.neg(tf.math.add(visibleTerm, hiddenTerm))


def hiddenProbabilities(tf: Ops, v: F64, W: F64, c: F64) -> F64:
    """``p(h_j = 1 | v) = sigmoid(c_j + (v W)_j)``."""
    return tf.math.sigmoid(tf.math.add(tf.linalg.matMul(v, W), c))


def visibleProbabilities(tf: Ops, h: F64, W: F64, b: F64) -> F64:
    """``p(v_i = 1 | h) = sigmoid(b_i + (h W^T)_i)``."""
    return tf.math.sigmoid(tf.math.add(tf.linalg.matMul(h, W, MatMul.transposeB(True)), b))


def bernoulli(tf: Ops, p: F64, seed: int, seed2: int) -> F64:
    """A 0/1 sample with ``P(1) = p``: ``uniform < p``, drawn by a seeded ``RandomUniform``."""
    u = tf.random.randomUniform(
        tf.shape(p), TFloat64, RandomUniform.seed(seed), RandomUniform.seed2(seed2)
    )
    return tf.dtypes.cast(tf.math.less(u, p), TFloat64)


def gibbsChain(tf: Ops, v: F64, W: F64, b: F64, c: F64, k: int, seed: int) -> F64:
    """``k`` steps of block Gibbs sampling from ``v``: sample ``h ~ p(h|v)``, then
    ``v ~ p(v|h)``. Each random op has its own ``seed2``, so the draws are independent."""
    for step in range(k):
        h = bernoulli(tf, hiddenProbabilities(tf, v, W, c), seed, 2 * step + 1)
        v = bernoulli(tf, visibleProbabilities(tf, h, W, b), seed, 2 * step + 2)
    return v


def meanFieldChain(tf: Ops, v: F64, W: F64, b: F64, c: F64, k: int) -> F64:
    """``k`` mean-field steps from ``v``: the probabilities in place of the samples, a smooth
    function of ``W, b, c``, so without StopGradient the gradient flows through it."""
    for _ in range(k):
        v = visibleProbabilities(tf, hiddenProbabilities(tf, v, W, c), W, b)
    return v


def cdLoss(tf: Ops, vData: F64, vModel: F64, W: F64, b: F64, c: F64) -> F64:
    """``mean F(v_data) - mean F(v_model)``: its gradient is minus the CD update when
    ``v_model`` is behind ``tf.stopGradient``."""
    return tf.math.sub(
        tf.math.mean(freeEnergy(tf, vData, W, b, c), 0),
        tf.math.mean(freeEnergy(tf, vModel, W, b, c), 0),
    )


def parameterGradients(tf: Ops, loss: F64, W: F64, b: F64, c: F64) -> tuple[F64, F64, F64]:
    """``tf.gradients(loss, [W, b, c])``; each is connected to the loss."""
    dW, db, dc = tf.gradients(loss, [W, b, c])
    return dW, db, dc


def exactLogLikelihood(tf: Ops, v: F64, W: F64, b: F64, c: F64, states: Array) -> F64:
    """``mean log p(v) = -mean F(v) - log Z`` with ``log Z = logsumexp(-F(s))`` over ``states``
    (every visible vector); the logsumexp is shifted by ``stopGradient(max)`` as the seed's
    stable softmax."""
    negF = tf.math.neg(freeEnergy(tf, tf.constant(states, TFloat64), W, b, c))
    shift = tf.stopGradient(tf.max(negF, 0))
    logZ = tf.math.add(shift, tf.math.log(tf.sum(tf.math.exp(tf.math.sub(negF, shift)), 0)))
    return tf.math.sub(tf.math.neg(tf.math.mean(freeEnergy(tf, v, W, b, c), 0)), logZ)


# --- the classic formulas, in numpy ------------------------------------------------------------


def sigmoid(x: Array) -> Array:
    result: Array = 1.0 / (1.0 + np.exp(-x))
    return result


def cdUpdate(
    vData: Array, vModel: Array, W: Array, b: Array, c: Array
) -> tuple[Array, Array, Array]:
    """The CD update ``(<v h>_data - <v h>_model, <v>_data - <v>_model, <h>_data - <h>_model)``
    with ``h = p(h = 1 | v)``, the direction that gradient ascent on the likelihood takes."""
    hData, hModel = sigmoid(vData @ W + c), sigmoid(vModel @ W + c)
    dW: Array = np.transpose(vData) @ hData / len(vData) - np.transpose(vModel) @ hModel / len(
        vModel
    )
    db: Array = vData.mean(0) - vModel.mean(0)
    dc: Array = hData.mean(0) - hModel.mean(0)
    return dW, db, dc


def numpyFreeEnergy(v: Array, W: Array, b: Array, c: Array) -> Array:
    energy: Array = -(v @ b) - np.logaddexp(0.0, v @ W + c).sum(1)
    return energy


def numpyLogLikelihood(v: Array, W: Array, b: Array, c: Array) -> float:
    """The exact mean log-likelihood of the rows of ``v``, by enumerating all visible states."""
    negF = -numpyFreeEnergy(allStates(len(b)), W, b, c)
    shift = negF.max()
    logZ = shift + np.log(np.exp(negF - shift).sum())
    return float(-numpyFreeEnergy(v, W, b, c).mean() - logZ)
