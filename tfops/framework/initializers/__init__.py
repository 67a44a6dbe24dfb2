"""Initializers: the initial values of variables (TensorFlow Java's
``org.tensorflow.framework.initializers``).

An initializer's ``call(tf, dims, dtype)`` adds the ops computing a tensor of shape ``dims``;
build it with ``tf.withInitScope()`` and give it to ``tf.variable``:

Example:
    >>> from tfops.framework.initializers import Glorot, Zeros, VarianceScaling
    >>> g = Graph(); tf = Ops.create(g); init = tf.withInitScope()
    >>> w = tf.variable(Glorot(VarianceScaling.Distribution.UNIFORM, seed=1).call(
    ...     init, [784, 10], TFloat32))
    >>> b = tf.variable(Zeros().call(init, [10], TFloat32))
    >>> values = Session(g).runner().fetch(w).fetch(b).run()     # initialized by the session
    >>> values[0].shape, bool(abs(values[0]).max() < (6 / 794) ** 0.5), values[1].sum()
    ((784, 10), True, np.float32(0.0))
"""

from tfops.framework.initializers._base import Dims, Initializer
from tfops.framework.initializers._constant import Constant, Identity, Ones, Zeros
from tfops.framework.initializers._random import (
    Orthogonal,
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
)
from tfops.framework.initializers._variance import Glorot, He, LeCun, VarianceScaling, computeFans

__all__ = [
    "Constant",
    "Dims",
    "Glorot",
    "He",
    "Identity",
    "Initializer",
    "LeCun",
    "Ones",
    "Orthogonal",
    "RandomNormal",
    "RandomUniform",
    "TruncatedNormal",
    "VarianceScaling",
    "Zeros",
    "computeFans",
]
