"""Losses (TensorFlow Java's ``org.tensorflow.framework.losses``), with Keras 3's numbers.

``Loss(tf, **options).call(labels, predictions, sampleWeights=None)`` adds the ops computing
the loss to ``tf``'s graph: one value per sample, weighted by ``sampleWeights`` and reduced
as :class:`Reduction` says (by default their mean, a scalar to minimize).

Example:
    >>> g = Graph(); tf = Ops.create(g)
    >>> mse = MeanSquaredError(tf, reduction=Reduction.NONE)
    >>> labels = tf.constant([[0.0, 1.0], [2.0, 2.0]])
    >>> loss = mse.call(labels, tf.constant([[1.0, 1.0], [2.0, 0.0]]))
    >>> Session(g).runner().fetch(loss).run()[0]
    array([0.5, 2. ], dtype=float32)
"""

from tfops.framework.losses._base import Loss
from tfops.framework.losses._crossentropy import (
    BinaryCrossentropy,
    CategoricalCrossentropy,
    SparseCategoricalCrossentropy,
)
from tfops.framework.losses._hinge import CategoricalHinge, Hinge, SquaredHinge
from tfops.framework.losses._reduction import Reduction
from tfops.framework.losses._regression import (
    CosineSimilarity,
    Huber,
    KLDivergence,
    LogCosh,
    MeanAbsoluteError,
    MeanAbsolutePercentageError,
    MeanSquaredError,
    MeanSquaredLogarithmicError,
    Poisson,
)

__all__ = [
    "BinaryCrossentropy",
    "CategoricalCrossentropy",
    "CategoricalHinge",
    "CosineSimilarity",
    "Hinge",
    "Huber",
    "KLDivergence",
    "LogCosh",
    "Loss",
    "MeanAbsoluteError",
    "MeanAbsolutePercentageError",
    "MeanSquaredError",
    "MeanSquaredLogarithmicError",
    "Poisson",
    "Reduction",
    "SparseCategoricalCrossentropy",
    "SquaredHinge",
]
