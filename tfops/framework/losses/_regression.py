"""Losses between real values: mean errors, Huber, log-cosh, Poisson, KL divergence, cosine."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfops.errors import IllegalArgumentError
from tfops.framework.losses._base import EPSILON, Loss, checkInt, checkReal
from tfops.framework.losses._reduction import Reduction
from tfops.ops import Ops
from tfops.output import Output

__all__ = [
    "CosineSimilarity",
    "Huber",
    "KLDivergence",
    "LogCosh",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "Poisson",
]


def _const(x: Output[Any], value: float) -> Any:
    """``value`` as a scalar of ``x``'s type (rounded once, from the Python float)."""
    return np.asarray(value, x.dataType().DTYPE)


class MeanSquaredError(Loss):
    """The mean of the squares of the errors: ``mean(square(labels - predictions), -1)``.

    Example:
        >>> g = Graph(); tf = Ops.create(g)
        >>> loss = MeanSquaredError(tf).call(tf.constant([[0.0, 1.0]]), tf.constant([[1.0, 3.0]]))
        >>> Session(g).runner().fetch(loss).run()[0]
        array(2.5, dtype=float32)
    """

    def _losses(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        return tf.math.mean(tf.math.square(tf.math.sub(labels, predictions)), -1).asOutput()


class MeanAbsoluteError(Loss):
    """The mean of the absolute errors: ``mean(abs(labels - predictions), -1)``."""

    def _losses(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        return tf.math.mean(tf.math.abs(tf.math.sub(labels, predictions)), -1).asOutput()


class MeanAbsolutePercentageError(Loss):
    """The mean absolute error in percent of the labels:
    ``100 * mean(abs((labels - predictions) / max(abs(labels), 1e-7)), -1)``."""

    def _losses(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        scale = tf.math.maximum(tf.math.abs(labels), _const(labels, EPSILON))
        diff = tf.math.abs(tf.math.div(tf.math.sub(labels, predictions), scale))
        return tf.math.mul(tf.math.mean(diff, -1), _const(labels, 100.0)).asOutput()


class MeanSquaredLogarithmicError(Loss):
    """The mean squared error of the logarithms:
    ``mean(square(log(max(predictions, 1e-7) + 1) - log(max(labels, 1e-7) + 1)), -1)``."""

    def _losses(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        eps, one = _const(labels, EPSILON), _const(labels, 1.0)
        first = tf.math.log(tf.math.add(tf.math.maximum(predictions, eps), one))
        second = tf.math.log(tf.math.add(tf.math.maximum(labels, eps), one))
        return tf.math.mean(tf.math.square(tf.math.sub(first, second)), -1).asOutput()


class Huber(Loss):
    """The Huber loss: the mean of ``0.5 * e^2`` where ``|e| <= delta``, else
    ``delta * |e| - 0.5 * delta^2``, with ``e = predictions - labels``.

    Args:
        tf: the facade the loss builds with.
        delta: where the loss turns from quadratic to linear (non-negative).
        reduction: how the per-sample values are reduced.
        name: the name of the sub-scope each call builds in.
    """

    def __init__(
        self,
        tf: Ops,
        *,
        delta: float = 1.0,
        reduction: Reduction | str = Reduction.SUM_OVER_BATCH_SIZE,
        name: str | None = None,
    ) -> None:
        super().__init__(tf, reduction=reduction, name=name)
        self._delta = checkReal("Huber", "delta", delta)
        if not self._delta >= 0:
            raise IllegalArgumentError(f"Huber: delta must be >= 0, got {delta!r}")

    def getDelta(self) -> float:
        """Where the loss turns from quadratic to linear."""
        return self._delta

    def _losses(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        error = tf.math.sub(predictions, labels)
        absError = tf.math.abs(error)
        delta, half = _const(labels, self._delta), _const(labels, 0.5)
        quadratic = tf.math.mul(half, tf.math.square(error))
        linear = tf.math.sub(tf.math.mul(delta, absError), tf.math.mul(half, np.square(delta)))
        chosen = tf.select(tf.math.lessEqual(absError, delta), quadratic, linear)
        return tf.math.mean(chosen, -1).asOutput()


class LogCosh(Loss):
    """The mean of ``log(cosh(predictions - labels))``, computed as
    ``x + softplus(-2x) - log(2)`` (no overflow)."""

    def _losses(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        x = tf.math.sub(predictions, labels)
        softplus = tf.math.softplus(tf.math.mul(x, _const(labels, -2.0)))
        value = tf.math.sub(tf.math.add(x, softplus), _const(labels, np.log(2.0)))
        return tf.math.mean(value, -1).asOutput()


class Poisson(Loss):
    """The Poisson loss: ``mean(predictions - labels * log(predictions + 1e-7), -1)``."""

    def _losses(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        logs = tf.math.log(tf.math.add(predictions, _const(labels, EPSILON)))
        return tf.math.mean(tf.math.sub(predictions, tf.math.mul(labels, logs)), -1).asOutput()


class KLDivergence(Loss):
    """The Kullback-Leibler divergence ``sum(labels * log(labels / predictions), -1)``, both
    clipped to ``[1e-7, 1]``."""

    def _losses(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        eps, one = _const(labels, EPSILON), _const(labels, 1.0)
        y = tf.clipByValue(labels, eps, one)
        p = tf.clipByValue(predictions, eps, one)
        return tf.reduceSum(tf.math.mul(y, tf.math.log(tf.math.div(y, p))), -1).asOutput()


class CosineSimilarity(Loss):
    """The negated cosine similarity of labels and predictions along ``axis``:
    ``-sum(l2normalize(labels) * l2normalize(predictions), axis)``; -1 where they point the
    same way, 1 where opposite, 0 where either is zero.

    Args:
        tf: the facade the loss builds with.
        axis: the axis (or axes) along which the similarity is computed.
        reduction: how the per-sample values are reduced.
        name: the name of the sub-scope each call builds in.
    """

    def __init__(
        self,
        tf: Ops,
        *,
        axis: int | Sequence[int] = -1,
        reduction: Reduction | str = Reduction.SUM_OVER_BATCH_SIZE,
        name: str | None = None,
    ) -> None:
        super().__init__(tf, reduction=reduction, name=name)
        if isinstance(axis, Sequence) and not isinstance(axis, str):
            self._axis: list[int] = [checkInt("CosineSimilarity", "axis", a) for a in axis]
        else:
            self._axis = [checkInt("CosineSimilarity", "axis", axis)]

    def getAxis(self) -> list[int]:
        """The axes along which the similarity is computed."""
        return list(self._axis)

    def _normalize(self, tf: Ops, x: Output[Any]) -> Any:
        squares = tf.reduceSum(tf.math.square(x), self._axis, keepDims=True)
        inverse = tf.math.minimum(tf.math.rsqrt(squares), _const(x, 1.0 / EPSILON))
        return tf.math.mul(x, inverse)

    def _losses(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        rank = predictions.shape().numDimensions()
        bad = [a for a in self._axis if rank >= 0 and not -rank <= a < rank]
        if bad:
            raise IllegalArgumentError(
                f"CosineSimilarity: axis {bad[0]} is out of range for predictions of rank {rank}"
            )
        product = tf.math.mul(self._normalize(tf, labels), self._normalize(tf, predictions))
        return tf.math.neg(tf.reduceSum(product, self._axis)).asOutput()
