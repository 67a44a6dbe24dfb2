"""The mean metrics: Mean, and the means of a per-sample value of labels and predictions
(Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy, MeanSquaredError)."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any

from tfops.framework.initializers._base import building, checkReal
from tfops.framework.metrics._base import MeanBase, squeezeOrExpand
from tfops.op.core import NoOp
from tfops.ops import Ops
from tfops.output import Output, PrimitiveOp
from tfops.types import TFloat32, TFloating, TInt64

__all__ = [
    "Accuracy",
    "BinaryAccuracy",
    "CategoricalAccuracy",
    "Mean",
    "MeanMetricWrapper",
    "MeanSquaredError",
    "SparseCategoricalAccuracy",
]


class Mean(MeanBase):
    """The (weighted) mean of the values given (TF Java's and Keras' ``Mean``).

    Example:
        >>> from tfops.framework.metrics import Mean
        >>> g = Graph(); tf = Ops.create(g)
        >>> m = Mean(tf)
        >>> x = tf.placeholder(TFloat32, shape=Shape.of(-1))
        >>> update, result = m.updateState(x), m.result()
        >>> s = Session(g)
        >>> for batch in ([1.0, 2.0], [3.0, 4.0, 5.0]):
        ...     _ = s.runner().feed(x, np.array(batch, np.float32)).addTarget(update).run()
        >>> float(s.runner().fetch(result).run()[0])
        3.0
    """

    def __init__(self, tf: Ops, name: str | None = None, dtype: type[TFloating] = TFloat32) -> None:
        super().__init__(tf, name, dtype)

    def updateStateList(self, values: Any, sampleWeights: Any = None) -> list[PrimitiveOp]:
        """The ops that add ``values`` (weighted by ``sampleWeights``) to the mean.

        Args:
            values: numbers of any shape; each sample (along the first axis) counts once, by
                the mean of its values.
            sampleWeights: optional weights, a scalar or one per sample (or per value).

        Returns:
            the updates of the ``total`` and ``count`` variables.

        Raises:
            TypeError: an argument is not numbers.
            ValueError: ``sampleWeights`` does not broadcast to ``values``, or an operand's rank
                is unknown or it belongs to another graph.
        """
        with building(self._graph):
            tf = self._tf.withSubScope(self._name)
            v = self._operand("updateState", "values", values, tf)
            w = (
                None
                if sampleWeights is None
                else self._operand("updateState", "sampleWeights", sampleWeights, tf)
            )
            return self._accumulate("updateState", tf, v, w)

    def updateState(self, values: Any, sampleWeights: Any = None) -> NoOp:
        """One op running :meth:`updateStateList`'s updates (TF Java's ``updateState``)."""
        with building(self._graph):
            updates = self.updateStateList(values, sampleWeights)
            return _gather(self._tf, self._name, updates)


def _gather(tf: Ops, name: str, updates: list[PrimitiveOp]) -> NoOp:
    return tf.withSubScope(name).withName("updateState").withControlDependencies(updates).noOp()


class MeanMetricWrapper(MeanBase):
    """The mean of a value computed per sample from labels and predictions (Keras'
    ``MeanMetricWrapper``): the subclasses say how (:meth:`call`)."""

    def __init__(self, tf: Ops, name: str | None = None, dtype: type[TFloating] = TFloat32) -> None:
        super().__init__(tf, name, dtype)

    @abstractmethod
    def call(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        """The per-sample values of ``labels`` and ``predictions`` (the operands given, cast
        to the metric's data type after their shapes are checked), as Keras' function of the
        same name computes them."""

    def updateStateList(
        self, labels: Any, predictions: Any, sampleWeights: Any = None
    ) -> list[PrimitiveOp]:
        """The ops that add a batch of ``labels`` and ``predictions`` to the metric.

        Args:
            labels: the true values.
            predictions: the predicted values, of a shape matching ``labels`` (see the class).
            sampleWeights: optional weights, a scalar or one per sample.

        Returns:
            the updates of the ``total`` and ``count`` variables.

        Raises:
            TypeError: an argument is not numbers.
            ValueError: the shapes of ``labels`` and ``predictions`` do not match,
                ``sampleWeights`` does not broadcast, or an operand's rank is unknown or it
                belongs to another graph.
        """
        with building(self._graph):
            tf = self._tf.withSubScope(self._name)
            y = self._operand("updateState", "labels", labels, tf)
            p = self._operand("updateState", "predictions", predictions, tf)
            w = (
                None
                if sampleWeights is None
                else self._operand("updateState", "sampleWeights", sampleWeights, tf)
            )
            values = self.call(tf, y, p)
            return self._accumulate("updateState", tf, values, w)

    def updateState(self, labels: Any, predictions: Any, sampleWeights: Any = None) -> NoOp:
        """One op running :meth:`updateStateList`'s updates (TF Java's ``updateState``)."""
        with building(self._graph):
            updates = self.updateStateList(labels, predictions, sampleWeights)
            return _gather(self._tf, self._name, updates)

    def _sameShapes(
        self, tf: Ops, labels: Output[Any], predictions: Output[Any]
    ) -> tuple[Output[Any], Output[Any]]:
        y, p = squeezeOrExpand(tf, labels, predictions)
        if not y.shape().isCompatibleWith(p.shape()):
            raise self._shapesError(
                "updateState", labels, predictions, "give labels and predictions of the same shape"
            )
        return y, p


class Accuracy(MeanMetricWrapper):
    """How often predictions equal labels (TF Java's and Keras' ``Accuracy``): the mean of
    ``labels == predictions``, compared after a trailing dimension of 1 is squeezed.

    Example:
        >>> from tfops.framework.metrics import Accuracy
        >>> g = Graph(); tf = Ops.create(g)
        >>> m = Accuracy(tf)
        >>> update = m.updateState([[1], [2], [3], [4]], [[0], [2], [3], [4]])
        >>> s = Session(g); s.run(update)
        >>> float(s.runner().fetch(m.result()).run()[0])
        0.75
    """

    def call(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        y, p = self._sameShapes(tf, labels, predictions)
        return self._cast(tf, tf.math.equal(self._cast(tf, y), self._cast(tf, p)).asOutput())


class BinaryAccuracy(MeanMetricWrapper):
    """How often predictions match binary labels (TF Java's and Keras' ``BinaryAccuracy``): a
    prediction greater than ``threshold`` counts as 1, else 0.

    Example:
        >>> from tfops.framework.metrics import BinaryAccuracy
        >>> g = Graph(); tf = Ops.create(g)
        >>> m = BinaryAccuracy(tf)
        >>> s = Session(g); s.run(m.updateState([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]]))
        >>> float(s.runner().fetch(m.result()).run()[0])
        0.75
    """

    DEFAULT_THRESHOLD = 0.5

    def __init__(
        self,
        tf: Ops,
        name: str | None = None,
        threshold: float = DEFAULT_THRESHOLD,
        dtype: type[TFloating] = TFloat32,
    ) -> None:
        self._threshold = checkReal(type(self).__name__, "threshold", threshold)
        super().__init__(tf, name, dtype)

    def getThreshold(self) -> float:
        """The threshold above which a prediction is 1."""
        return self._threshold

    def call(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        y, p = (self._cast(tf, x) for x in self._sameShapes(tf, labels, predictions))
        threshold = self._scalar(tf, self._threshold)
        positive = self._cast(tf, tf.math.greater(p, threshold).asOutput())
        return self._cast(tf, tf.math.equal(y, positive).asOutput())


class CategoricalAccuracy(MeanMetricWrapper):
    """How often the predicted class (the largest prediction) is the class of the one-hot
    labels (TF Java's and Keras' ``CategoricalAccuracy``). Labels and predictions have the same
    shape, ``[samples, classes]``.

    Example:
        >>> from tfops.framework.metrics import CategoricalAccuracy
        >>> g = Graph(); tf = Ops.create(g)
        >>> m = CategoricalAccuracy(tf)
        >>> s = Session(g); s.run(m.updateState([[0, 0, 1], [0, 1, 0]],
        ...                                     [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]))
        >>> float(s.runner().fetch(m.result()).run()[0])
        0.5
    """

    def call(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        if labels.shape().numDimensions() == 0 or not labels.shape().isCompatibleWith(
            predictions.shape()
        ):
            raise self._shapesError(
                "updateState",
                labels,
                predictions,
                "give one-hot labels of the predictions' shape [samples, classes] (for class "
                "indices use SparseCategoricalAccuracy)",
            )
        axis = tf.constant(-1)
        same = tf.math.equal(
            tf.math.argMax(self._cast(tf, labels), axis, outputType=TInt64),
            tf.math.argMax(self._cast(tf, predictions), axis, outputType=TInt64),
        )
        return self._cast(tf, same.asOutput())


class SparseCategoricalAccuracy(MeanMetricWrapper):
    """How often the predicted class (the largest prediction) is the integer label (TF Java's
    and Keras' ``SparseCategoricalAccuracy``). Labels have the predictions' shape without its
    last axis (or with it of size 1): ``[samples]`` or ``[samples, 1]`` for predictions
    ``[samples, classes]``.

    Example:
        >>> from tfops.framework.metrics import SparseCategoricalAccuracy
        >>> g = Graph(); tf = Ops.create(g)
        >>> m = SparseCategoricalAccuracy(tf)
        >>> s = Session(g); s.run(m.updateState([2, 1], [[0.1, 0.6, 0.3], [0.05, 0.95, 0]]))
        >>> float(s.runner().fetch(m.result()).run()[0])
        0.5
    """

    def call(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        y = labels
        lShape, pShape = labels.shape(), predictions.shape()
        if lShape.numDimensions() == pShape.numDimensions() and lShape.size(-1) == 1:
            y = tf.squeeze(labels, axis=[-1]).asOutput()
        pDims = pShape.asArray() or ()
        if not pDims or not y.shape().isCompatibleWith(type(pShape).of(*pDims[:-1])):
            raise self._shapesError(
                "updateState",
                labels,
                predictions,
                "give one class index per sample: labels [samples] (or [samples, 1]) for "
                "predictions [samples, classes]",
            )
        predicted = tf.math.argMax(self._cast(tf, predictions), tf.constant(-1), outputType=TInt64)
        same = tf.math.equal(self._cast(tf, y), self._cast(tf, predicted.asOutput()))
        return self._cast(tf, same.asOutput())


class MeanSquaredError(MeanMetricWrapper):
    """The mean squared error between labels and predictions (TF Java's and Keras'
    ``MeanSquaredError`` metric): per sample, the mean over the last axis of
    ``(labels - predictions)^2``, averaged over the samples of every update.

    Example:
        >>> from tfops.framework.metrics import MeanSquaredError
        >>> g = Graph(); tf = Ops.create(g)
        >>> m = MeanSquaredError(tf)
        >>> s = Session(g); s.run(m.updateState([[0, 1], [0, 0]], [[1, 1], [0, 0]]))
        >>> float(s.runner().fetch(m.result()).run()[0])
        0.25
    """

    def call(self, tf: Ops, labels: Output[Any], predictions: Output[Any]) -> Output[Any]:
        y, p = self._sameShapes(tf, labels, predictions)
        if p.shape().numDimensions() == 0:
            raise self._shapesError(
                "updateState",
                labels,
                predictions,
                "the error is a mean over the last axis: give vectors",
            )
        error = tf.math.squaredDifference(self._cast(tf, y), self._cast(tf, p))
        return tf.math.mean(error, tf.constant(-1)).asOutput()
