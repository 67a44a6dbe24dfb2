"""Hinge losses, for maximum-margin classifiers."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfops.framework.losses._base import Loss
from tfops.ops import Ops
from tfops.output import Output

__all__ = ["CategoricalHinge", "Hinge", "SquaredHinge"]


def _margins(tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Any:
    """``max(1 - labels * predictions, 0)``, labels of 0 and 1 taken as -1 and 1 (when every
    label is 0 or 1, as Keras decides at run time)."""
    dtype = labels.dataType().DTYPE
    zero, one = np.asarray(0, dtype), np.asarray(1, dtype)
    rank = labels.shape().numDimensions()
    axes: Any = list(range(rank)) if rank >= 0 else tf.range(0, tf.rank(labels), 1)
    binary = tf.reduceAll(
        tf.math.logicalOr(tf.math.equal(labels, zero), tf.math.equal(labels, one)), axes
    )
    signs = tf.select(binary, tf.math.sub(tf.math.mul(labels, np.asarray(2, dtype)), one), labels)
    return tf.math.maximum(tf.math.sub(one, tf.math.mul(signs, predictions)), zero)


class Hinge(Loss):
    """The hinge loss ``mean(max(1 - labels * predictions, 0), -1)``.

    Labels are -1 or 1; labels that are all 0 or 1 are taken as -1 and 1.
    """

    def _losses(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        return tf.math.mean(_margins(tf, labels, predictions), -1).asOutput()


class SquaredHinge(Loss):
    """The squared hinge loss ``mean(square(max(1 - labels * predictions, 0)), -1)``.

    Labels are -1 or 1; labels that are all 0 or 1 are taken as -1 and 1.
    """

    def _losses(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        return tf.math.mean(tf.math.square(_margins(tf, labels, predictions)), -1).asOutput()


class CategoricalHinge(Loss):
    """The categorical hinge loss ``max(neg - pos + 1, 0)``, with
    ``pos = sum(labels * predictions, -1)`` and ``neg = max((1 - labels) * predictions, -1)``;
    labels are one-hot."""

    def _losses(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        dtype = labels.dataType().DTYPE
        one = np.asarray(1, dtype)
        pos = tf.reduceSum(tf.math.mul(labels, predictions), -1)
        neg = tf.reduceMax(tf.math.mul(tf.math.sub(one, labels), predictions), -1)
        margin = tf.math.add(tf.math.sub(neg, pos), one)
        return tf.math.maximum(margin, np.asarray(0, dtype)).asOutput()
