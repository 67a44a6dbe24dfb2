"""Metrics: stateful measures of a model's quality accumulated over batches (TensorFlow Java's
``org.tensorflow.framework.metrics``, with Keras 3's numbers).

A metric is built once, with the ``Ops`` it builds into; its variables go to the init scope.
``updateState(labels, predictions, sampleWeights=None)`` returns the op to run per batch,
``result()`` the metric's value, ``resetStates()`` the op that starts it over.

Example:
    >>> from tfops.framework.metrics import SparseCategoricalAccuracy
    >>> g = Graph(); tf = Ops.create(g)
    >>> labels = tf.placeholder(TInt32, shape=Shape.of(-1))
    >>> logits = tf.placeholder(TFloat32, shape=Shape.of(-1, 3))
    >>> acc = SparseCategoricalAccuracy(tf)
    >>> update, result, reset = acc.updateState(labels, logits), acc.result(), acc.resetStates()
    >>> s = Session(g)
    >>> _ = s.runner().feed(labels, np.array([0, 2], np.int32)).feed(
    ...     logits, np.array([[3, 1, 0], [0, 5, 1]], np.float32)).addTarget(update).run()
    >>> float(s.runner().fetch(result).run()[0])
    0.5
    >>> s.run(reset); float(s.runner().fetch(result).run()[0])
    0.0
"""

from tfops.framework.metrics._auc import AUC, AUCCurve, AUCSummationMethod
from tfops.framework.metrics._base import MeanBase, Metric
from tfops.framework.metrics._mean import (
    Accuracy,
    BinaryAccuracy,
    CategoricalAccuracy,
    Mean,
    MeanMetricWrapper,
    MeanSquaredError,
    SparseCategoricalAccuracy,
)

__all__ = [
    "AUC",
    "AUCCurve",
    "AUCSummationMethod",
    "Accuracy",
    "BinaryAccuracy",
    "CategoricalAccuracy",
    "Mean",
    "MeanBase",
    "MeanMetricWrapper",
    "MeanSquaredError",
    "Metric",
    "SparseCategoricalAccuracy",
]
