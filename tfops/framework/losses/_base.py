"""The base of every loss: checked inputs, labels aligned with predictions, sample weights and
the reduction (as Keras 3's ``Loss.__call__`` and TF Java's ``LossesHelper``)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, cast, overload

import numpy as np

from tfops.errors import DataTypeError, IllegalArgumentError
from tfops.framework.losses._reduction import Reduction, checkReduction
from tfops.graph import Graph
from tfops.op._typevars import TF
from tfops.ops import Ops
from tfops.output import Operand, Output
from tfops.shape import Shape
from tfops.types import TBool, TensorValue, TFloating, TNumber, TType

__all__ = [
    "EPSILON",
    "Loss",
    "checkBool",
    "checkFraction",
    "checkInt",
    "checkReal",
    "squeezeOrExpand",
]

EPSILON = 1e-7
"""Keras' ``backend.epsilon()``: the clip of probabilities and the floor of divisors."""


def checkReal(owner: str, name: str, value: object) -> float:
    """``value`` as a Python float, or a ``TypeError`` naming ``owner``'s option ``name``."""
    described = f"{type(value).__name__} {value!r}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise DataTypeError(
            f"{owner}: {name} must be a real number (a Python float), got {described}"
        )
    return float(cast(float, value))


def checkFraction(owner: str, name: str, value: object) -> float:
    """``value`` as a float in [0, 1], or an error naming ``owner``'s option ``name``."""
    number = checkReal(owner, name, value)
    if not 0.0 <= number <= 1.0:
        raise IllegalArgumentError(f"{owner}: {name} must be in [0, 1] (0: none), got {value!r}")
    return number


def checkInt(owner: str, name: str, value: object) -> int:
    """``value`` as a Python int, or a ``TypeError`` naming ``owner``'s option ``name``."""
    described = f"{type(value).__name__} {value!r}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise DataTypeError(f"{owner}: {name} must be an int, got {described}")
    return int(cast(int, value))


def checkBool(owner: str, name: str, value: object) -> bool:
    """``value`` as a Python bool, or a ``TypeError`` naming ``owner``'s option ``name``."""
    described = f"{type(value).__name__} {value!r}"
    if not isinstance(value, (bool, np.bool_)):
        raise DataTypeError(f"{owner}: {name} must be a bool, got {described}")
    return bool(cast(object, value))


def squeezeOrExpand(tf: Ops, x1: Output[Any], x2: Output[Any]) -> tuple[Output[Any], Output[Any]]:
    """``x1`` and ``x2`` brought to the same rank when their static ranks differ by one and the
    longer one ends in a dimension of 1: the shorter is given a trailing 1 if it is a vector,
    else the longer loses it (Keras' ``squeeze_or_expand_to_same_rank``)."""
    r1, r2 = x1.shape().numDimensions(), x2.shape().numDimensions()
    if r1 < 0 or r2 < 0 or r1 == r2:
        return x1, x2
    if r1 == r2 + 1 and x1.shape().size(-1) == 1:
        if r2 == 1:
            return x1, tf.expandDims(x2, -1).asOutput()
        return tf.squeeze(x1, axis=[-1]).asOutput(), x2
    if r2 == r1 + 1 and x2.shape().size(-1) == 1:
        if r1 == 1:
            return tf.expandDims(x1, -1).asOutput(), x2
        return x1, tf.squeeze(x2, axis=[-1]).asOutput()
    return x1, x2


def _broadcastable(a: Shape, b: Shape) -> bool:
    """Whether shapes ``a`` and ``b`` may broadcast together (unknown sizes may)."""
    dimsA, dimsB = a.asArray(), b.asArray()
    if dimsA is None or dimsB is None:
        return True
    return all(
        x == y or x in (1, -1) or y in (1, -1)
        for x, y in zip(reversed(dimsA), reversed(dimsB), strict=False)
    )


class Loss(ABC):
    """Base of the losses (TensorFlow Java's ``framework.losses``, Keras' numbers).

    A loss is built once with the ``Ops`` facade it adds its ops with and its options;
    :meth:`call` adds the ops computing it for given labels and predictions, under a sub-scope
    named after the loss (``MeanSquaredError/...``, then ``MeanSquaredError_1/...``). Each
    loss computes one value per sample (reducing the last axis, or the one given), multiplies
    them by the sample weights and reduces them as :class:`Reduction` says.

    Args:
        tf: the facade the loss builds with.
        reduction: how the weighted per-sample values are reduced (a :class:`Reduction` or its
            name).
        name: the name of the sub-scope each call builds in (default: the class name).
    """

    def __init__(
        self,
        tf: Ops,
        *,
        reduction: Reduction | str = Reduction.SUM_OVER_BATCH_SIZE,
        name: str | None = None,
    ) -> None:
        kind = type(self).__name__
        if not isinstance(cast(object, tf), Ops):
            raise DataTypeError(
                f"{kind}: the first argument is the Ops facade the loss builds "
                f"with (tf = Ops.create(graph)), got {type(tf).__name__}"
            )
        self._tf = tf
        self._reduction = checkReduction(kind, reduction)
        self._name = kind if name is None else name
        try:
            tf.scope().withName(self._name)  # rejects an invalid name now
        except ValueError as e:
            raise IllegalArgumentError(f"{kind}: name {name!r} is not a valid op name ({e})") from e

    def getReduction(self) -> Reduction:
        """The reduction of the weighted per-sample values."""
        return self._reduction

    def getName(self) -> str:
        """The name of the sub-scope each call builds in."""
        return self._name

    @overload
    def call(
        self,
        labels: Operand[Any] | TensorValue,
        predictions: Operand[TF],
        sampleWeights: Operand[Any] | TensorValue | None = None,
    ) -> Output[TF]: ...

    @overload
    def call(
        self,
        labels: Operand[Any] | TensorValue,
        predictions: TensorValue,
        sampleWeights: Operand[Any] | TensorValue | None = None,
    ) -> Output[Any]: ...

    def call(
        self,
        labels: Operand[Any] | TensorValue,
        predictions: Operand[Any] | TensorValue,
        sampleWeights: Operand[Any] | TensorValue | None = None,
    ) -> Output[Any]:
        """Adds the ops computing the loss of ``predictions`` against ``labels``.

        Args:
            labels: the true values, of any number type (cast to the predictions' type); for
                most losses of the predictions' shape (a trailing dimension of 1 on either is
                dropped, or added to a vector).
            predictions: the predicted values, a floating point operand (or array).
            sampleWeights: a coefficient of each per-sample loss: a scalar scales the loss, a
                vector of one weight per sample weighs each, or any shape that broadcasts to
                the per-sample losses (cast to the predictions' type).

        Returns:
            the loss, of the predictions' type: a scalar, or the weighted per-sample losses
            with ``Reduction.NONE``.

        Raises:
            TypeError: the predictions are not floating point, or an input is no number.
            ValueError: the shapes of the labels, predictions or weights do not fit, or an
                operand belongs to another graph.
        """
        kind = type(self).__name__
        graph = self._tf.scope().env()
        if not isinstance(graph, Graph):
            raise IllegalArgumentError(f"{kind}: losses build into a tfops Graph")
        with graph._transaction() as site:  # pyright: ignore[reportPrivateUsage]
            where = f"{kind} (called at {site})"
            tf = self._tf.withSubScope(self._name)
            p = self._operand(tf, predictions, "predictions", where, graph)
            if not issubclass(p.dataType(), TFloating):
                raise DataTypeError(
                    f"{where}: predictions '{p.name()}' have data type {p.dataType().NAME}; a "
                    "loss needs floating point predictions (cast them: "
                    "tf.dtypes.cast(predictions, TFloat32))"
                )
            y = self._labels(tf, self._operand(tf, labels, "labels", where, graph), p, where)
            w = None
            if sampleWeights is not None:
                w = self._cast(
                    tf,
                    self._operand(tf, sampleWeights, "sampleWeights", where, graph),
                    p.dataType(),
                )
            y, p = self._align(tf, y, p, where)
            losses = self._losses(tf, y, p)
            return self._reduce(tf, losses, w, where)

    # -- for subclasses ---------------------------------------------------------------------
    @abstractmethod
    def _losses(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        """The per-sample losses of aligned labels (of the predictions' type) and predictions."""

    def _labels(
        self, tf: Ops, labels: Output[Any], predictions: Output[Any], where: str
    ) -> Output[Any]:
        """The labels as the loss computes with them: cast to the predictions' type."""
        return self._cast(tf, labels, predictions.dataType())

    def _align(
        self, tf: Ops, labels: Output[Any], predictions: Output[Any], where: str
    ) -> tuple[Output[Any], Output[Any]]:
        """Labels and predictions of the same shape, or an error naming both shapes."""
        labels, predictions = squeezeOrExpand(tf, labels, predictions)
        if not labels.shape().isCompatibleWith(predictions.shape()):
            raise IllegalArgumentError(
                f"{where}: labels '{labels.name()}' of shape {labels.shape()} and predictions "
                f"'{predictions.name()}' of shape {predictions.shape()} are not compatible: "
                "give them the same shape (a trailing dimension of 1 on either is dropped)"
            )
        return labels, predictions

    # -- shared steps -----------------------------------------------------------------------
    @staticmethod
    def _operand(tf: Ops, value: object, what: str, where: str, graph: Graph) -> Output[Any]:
        asOutput = getattr(value, "asOutput", None)
        if asOutput is None:
            array = np.asarray(value)
            if array.dtype.kind not in "biuf":
                raise DataTypeError(
                    f"{where}: {what} must be an operand or an array of numbers, got "
                    f"{type(value).__name__}"
                )
            return tf.constant(array).asOutput()
        out: Output[Any] = asOutput()
        if out.op().graph() is not graph:
            raise IllegalArgumentError(
                f"{where}: {what} '{out.name()}' belong to another graph than the loss's Ops"
            )
        if not issubclass(out.dataType(), (TNumber, TBool)):
            raise DataTypeError(
                f"{where}: {what} '{out.name()}' have data type "
                f"{out.dataType().NAME}; a loss needs numbers"
            )
        return out

    @staticmethod
    def _cast(tf: Ops, x: Output[Any], dtype: type[TType]) -> Output[Any]:
        if x.dataType() is dtype:
            return x
        return tf.dtypes.cast(x, dtype).asOutput()

    def _reduce(
        self, tf: Ops, losses: Output[Any], weights: Output[Any] | None, where: str
    ) -> Output[Any]:
        """The per-sample ``losses`` weighted by ``weights`` and reduced (Keras'
        ``reduce_weighted_values``)."""
        if weights is not None:
            losses, weights = squeezeOrExpand(tf, losses, weights)
            if not _broadcastable(losses.shape(), weights.shape()):
                raise IllegalArgumentError(
                    f"{where}: sampleWeights '{weights.name()}' of shape {weights.shape()} do "
                    f"not fit the per-sample losses of shape {losses.shape()}: give a scalar, "
                    "one weight per sample, or a shape that broadcasts to the losses"
                )
            losses = tf.math.mul(losses, weights).asOutput()
        rank = losses.shape().numDimensions()
        if self._reduction is Reduction.NONE or rank == 0:
            return losses
        axes: Any = list(range(rank)) if rank > 0 else tf.range(0, tf.rank(losses), 1)
        total = tf.reduceSum(losses, axes).asOutput()
        if self._reduction is Reduction.SUM:
            return total
        count = tf.dtypes.cast(tf.size(losses), losses.dataType())
        return tf.math.divNoNan(total, count).asOutput()
