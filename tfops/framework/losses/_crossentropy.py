"""Cross-entropy losses: binary, categorical (one-hot or soft labels) and sparse (class
indices), from probabilities or from logits."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfops.errors import DataTypeError, IllegalArgumentError
from tfops.framework.losses._base import EPSILON, Loss, checkBool, checkFraction, checkInt
from tfops.framework.losses._reduction import Reduction
from tfops.ops import Ops
from tfops.output import Output
from tfops.types import TInt32, TInt64, TNumber

__all__ = ["BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy"]


def _clipped(tf: Ops, p: Output[Any]) -> Any:
    """``p`` clipped to ``[1e-7, 1 - 1e-7]`` (no log of 0)."""
    dtype = p.dataType().DTYPE
    return tf.clipByValue(p, np.asarray(EPSILON, dtype), np.asarray(1.0 - EPSILON, dtype))


def _checkAxis(owner: str, axis: int, rank: int) -> int:
    """``axis`` made non-negative for a known ``rank`` (-1 stays -1 when the rank is unknown)."""
    if rank < 0:
        if axis != -1:
            raise IllegalArgumentError(f"{owner}: axis {axis} needs predictions of known rank")
        return axis
    if not -rank <= axis < rank:
        raise IllegalArgumentError(
            f"{owner}: axis {axis} is out of range for predictions of rank {rank}"
        )
    return axis % rank


class _SmoothedCrossentropy(Loss):
    """What the binary and the categorical cross-entropy share: their constructor (the
    predictions' kind, the label smoothing and the axis, checked) and its accessors."""

    def __init__(
        self,
        tf: Ops,
        *,
        fromLogits: bool = False,
        labelSmoothing: float = 0.0,
        axis: int = -1,
        reduction: Reduction | str = Reduction.SUM_OVER_BATCH_SIZE,
        name: str | None = None,
    ) -> None:
        super().__init__(tf, reduction=reduction, name=name)
        kind = type(self).__name__
        self._fromLogits = checkBool(kind, "fromLogits", fromLogits)
        self._labelSmoothing = checkFraction(kind, "labelSmoothing", labelSmoothing)
        self._axis = checkInt(kind, "axis", axis)

    def isFromLogits(self) -> bool:
        """Whether the predictions are logits."""
        return self._fromLogits

    def getLabelSmoothing(self) -> float:
        """How far the labels are squeezed towards 0.5 (binary) or towards the uniform
        distribution (categorical)."""
        return self._labelSmoothing


class BinaryCrossentropy(_SmoothedCrossentropy):
    """The binary cross-entropy of labels (0 or 1, or probabilities) and predicted
    probabilities, averaged over ``axis``:
    ``-mean(labels * log(p) + (1 - labels) * log(1 - p), axis)``, with ``p`` the predictions
    clipped to ``[1e-7, 1 - 1e-7]`` (or ``sigmoid(predictions)`` computed stably, from logits).

    Args:
        tf: the facade the loss builds with.
        fromLogits: whether the predictions are logits (else probabilities).
        labelSmoothing: in [0, 1]: labels are squeezed towards 0.5,
            ``labels * (1 - labelSmoothing) + 0.5 * labelSmoothing``.
        axis: the axis the mean is taken over.
        reduction: how the per-sample values are reduced.
        name: the name of the sub-scope each call builds in.

    Example:
        >>> g = Graph(); tf = Ops.create(g)
        >>> bce = BinaryCrossentropy(tf, fromLogits=True)
        >>> loss = bce.call(tf.constant([[1.0, 0.0]]), tf.constant([[2.0, -1.0]]))
        >>> round(float(Session(g).runner().fetch(loss).run()[0]), 4)
        0.2201
    """

    def _losses(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        axis = _checkAxis(type(self).__name__, self._axis, predictions.shape().numDimensions())
        dtype = labels.dataType().DTYPE
        y: Any = labels
        if self._labelSmoothing:
            y = tf.math.add(
                tf.math.mul(y, np.asarray(1.0 - self._labelSmoothing, dtype)),
                np.asarray(0.5 * self._labelSmoothing, dtype),
            )
        if self._fromLogits:
            # TensorFlow's sigmoid_cross_entropy_with_logits: max(x, 0) - x * y + log1p(e^-|x|)
            x = predictions
            softplus = tf.math.log1p(tf.math.exp(tf.math.neg(tf.math.abs(x))))
            values: Any = tf.math.add(tf.math.sub(tf.nn.relu(x), tf.math.mul(x, y)), softplus)
        else:
            p = _clipped(tf, predictions)
            one = np.asarray(1.0, dtype)
            positive = tf.math.mul(y, tf.math.log(p))
            negative = tf.math.mul(tf.math.sub(one, y), tf.math.log(tf.math.sub(one, p)))
            values = tf.math.neg(tf.math.add(positive, negative))
        return tf.math.mean(values, axis).asOutput()


class CategoricalCrossentropy(_SmoothedCrossentropy):
    """The cross-entropy of one-hot (or probability) labels and predicted class probabilities
    along ``axis``: ``-sum(labels * log(p), axis)``, with ``p`` the predictions scaled to sum
    to 1 and clipped to ``[1e-7, 1 - 1e-7]`` (or ``softmax(predictions)``, from logits).

    Args:
        tf: the facade the loss builds with.
        fromLogits: whether the predictions are logits (else probabilities).
        labelSmoothing: in [0, 1]: labels are squeezed towards uniform,
            ``labels * (1 - labelSmoothing) + labelSmoothing / numClasses``.
        axis: the class axis.
        reduction: how the per-sample values are reduced.
        name: the name of the sub-scope each call builds in.
    """

    def _losses(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        rank = predictions.shape().numDimensions()
        axis = _checkAxis(type(self).__name__, self._axis, rank)
        dtype = labels.dataType().DTYPE
        y: Any = labels
        if self._labelSmoothing:
            classes: Any = predictions.shape().size(axis) if rank >= 0 else -1
            if classes >= 0:
                classes = np.asarray(classes, dtype)
            else:  # known when the loss runs
                shape = tf.shape(predictions)
                dim: Any = axis if rank >= 0 else tf.math.sub(tf.rank(predictions), 1)
                classes = tf.dtypes.cast(tf.shape.size(shape, dim), labels.dataType())
            y = tf.math.add(
                tf.math.mul(y, np.asarray(1.0 - self._labelSmoothing, dtype)),
                tf.math.div(np.asarray(self._labelSmoothing, dtype), classes),
            )
        if self._fromLogits:
            if rank == 2 and axis == 1:
                return tf.nn.softmaxCrossEntropyWithLogits(predictions, y).loss()
            x = predictions
            shifted = tf.math.sub(x, tf.reduceMax(x, axis, keepDims=True))
            logSum = tf.math.log(tf.reduceSum(tf.math.exp(shifted), axis, keepDims=True))
            logProbabilities: Any = tf.math.sub(shifted, logSum)
        else:
            p = tf.math.div(predictions, tf.reduceSum(predictions, axis, keepDims=True))
            logProbabilities = tf.math.log(_clipped(tf, p.asOutput()))
        return tf.math.neg(tf.reduceSum(tf.math.mul(y, logProbabilities), axis)).asOutput()


class SparseCategoricalCrossentropy(Loss):
    """The cross-entropy of class indices and predicted class probabilities (last axis):
    ``-log(p[label])``, with ``p`` the predictions clipped to ``[1e-7, 1 - 1e-7]`` and scaled
    to sum to 1 (or ``softmax(predictions)``, from logits).

    Labels hold one class index per sample (any number type; a trailing dimension of 1 is
    dropped); an index outside ``[0, classes)`` is an error when the loss runs.

    Args:
        tf: the facade the loss builds with.
        fromLogits: whether the predictions are logits (else probabilities).
        reduction: how the per-sample values are reduced.
        name: the name of the sub-scope each call builds in.
    """

    def __init__(
        self,
        tf: Ops,
        *,
        fromLogits: bool = False,
        reduction: Reduction | str = Reduction.SUM_OVER_BATCH_SIZE,
        name: str | None = None,
    ) -> None:
        super().__init__(tf, reduction=reduction, name=name)
        self._fromLogits = checkBool(type(self).__name__, "fromLogits", fromLogits)

    def isFromLogits(self) -> bool:
        """Whether the predictions are logits."""
        return self._fromLogits

    def _labels(
        self, tf: Ops, labels: Output[Any], predictions: Output[Any], where: str
    ) -> Output[Any]:
        if not issubclass(labels.dataType(), TNumber):
            raise DataTypeError(
                f"{where}: labels '{labels.name()}' have data type "
                f"{labels.dataType().NAME}; give class indices (integers)"
            )
        if labels.dataType() in (TInt32, TInt64):
            return labels
        return self._cast(tf, labels, TInt64)

    def _align(
        self, tf: Ops, labels: Output[Any], predictions: Output[Any], where: str
    ) -> tuple[Output[Any], Output[Any]]:
        labelsShape, shape = labels.shape(), predictions.shape()
        if shape.numDimensions() == 0:
            raise IllegalArgumentError(
                f"{where}: predictions '{predictions.name()}' must have "
                "a class axis (last), got a scalar"
            )
        if labelsShape.numDimensions() == shape.numDimensions() >= 1 and labelsShape.size(-1) == 1:
            labels = tf.squeeze(labels, axis=[-1]).asOutput()
            labelsShape = labels.shape()
        dims = shape.asArray()
        if dims is not None and not labelsShape.isCompatibleWith(type(shape).of(*dims[:-1])):
            raise IllegalArgumentError(
                f"{where}: labels '{labels.name()}' of shape {labelsShape} do not fit "
                f"predictions '{predictions.name()}' of shape {shape}: give one class index "
                f"per sample, of shape {list(dims[:-1])} (or with a trailing 1)"
            )
        return labels, predictions

    def _losses(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        logits: Output[Any] = predictions
        if not self._fromLogits:
            logits = tf.math.log(_clipped(tf, predictions)).asOutput()
        rank = logits.shape().numDimensions()
        if rank in (2, -1):
            return tf.nn.sparseSoftmaxCrossEntropyWithLogits(logits, labels).loss()
        classes = logits.shape().size(-1)
        if classes < 0:
            raise IllegalArgumentError(
                f"{type(self).__name__}: predictions '{predictions.name()}' of rank {rank} "
                "need a known number of classes (their last dimension)"
            )
        flat = tf.reshape(logits, [-1, classes])
        loss = tf.nn.sparseSoftmaxCrossEntropyWithLogits(flat, tf.reshape(labels, [-1])).loss()
        return tf.reshape(loss, tf.shape(labels)).asOutput()
