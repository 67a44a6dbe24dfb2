"""Activation functions (TensorFlow Java's ``org.tensorflow.framework.activations``).

An activation is built with its options and applied with ``call(tf, input)``, which adds its
ops to ``tf``'s graph; the numbers are Keras' (``keras.activations``), but for
:class:`HardSigmoid`, TF Java's and Keras 2's ``clip(0.2 x + 0.5, 0, 1)``.

Example:
    >>> g = Graph(); tf = Ops.create(g)
    >>> x = tf.constant([-2.0, 0.5, 8.0])
    >>> y = ReLU(alpha=0.1, maxValue=6.0).call(tf, x)
    >>> Session(g).runner().fetch(y).run()[0]
    array([-0.2,  0.5,  6. ], dtype=float32)
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from typing import Any, cast, overload

import numpy as np

from tfops.errors import DataTypeError, IllegalArgumentError
from tfops.framework.losses._base import checkBool, checkInt, checkReal
from tfops.graph import Graph
from tfops.op._typevars import TF
from tfops.ops import Ops
from tfops.output import Operand, Output
from tfops.types import TensorValue, TFloating

__all__ = [
    "ELU",
    "GELU",
    "SELU",
    "Activation",
    "Exponential",
    "HardSigmoid",
    "Linear",
    "ReLU",
    "Sigmoid",
    "Softmax",
    "Softplus",
    "Softsign",
    "Swish",
    "Tanh",
]


def _const(x: Output[Any], value: float) -> Any:
    """``value`` as a scalar of ``x``'s type."""
    return np.asarray(value, x.dataType().DTYPE)


class Activation(ABC):
    """Base of the activations: ``call(tf, input)`` adds the ops applying it to ``input``, a
    floating point operand (or array), and returns an output of its type and shape."""

    @overload
    def call(self, tf: Ops, input: Operand[TF]) -> Output[TF]: ...

    @overload
    def call(self, tf: Ops, input: TensorValue) -> Output[Any]: ...

    def call(self, tf: Ops, input: Operand[Any] | TensorValue) -> Output[Any]:
        """Applies the activation to ``input`` (element-wise, or along an axis for Softmax).

        Raises:
            TypeError: ``input`` is not of a floating point type, or ``tf`` is no ``Ops``.
            ValueError: ``input`` belongs to another graph than ``tf``.
        """
        kind = type(self).__name__
        if not isinstance(cast(object, tf), Ops):
            raise DataTypeError(
                f"{kind}.call: the first argument is the Ops facade to build "
                f"with (tf = Ops.create(graph)), got {type(tf).__name__}"
            )
        graph = tf.scope().env()
        if not isinstance(graph, Graph):
            raise IllegalArgumentError(f"{kind}: activations build into a tfops Graph")
        with graph._transaction() as site:  # pyright: ignore[reportPrivateUsage]
            asOutput = getattr(input, "asOutput", None)
            x: Output[Any] = (
                tf.constant(np.asarray(input)).asOutput() if asOutput is None else asOutput()
            )
            if x.op().graph() is not graph:
                raise IllegalArgumentError(
                    f"{kind} (called at {site}): input '{x.name()}' "
                    "belongs to another graph than tf"
                )
            if not issubclass(x.dataType(), TFloating):
                raise DataTypeError(
                    f"{kind} (called at {site}): input '{x.name()}' has data type "
                    f"{x.dataType().NAME}; activations need floating point input (cast it: "
                    "tf.dtypes.cast(x, TFloat32))"
                )
            result: Output[Any] = self._apply(tf, x).asOutput()
            return result

    @abstractmethod
    def _apply(self, tf: Ops, x: Output[Any]) -> Any:
        """The activation of a floating point ``x``."""


class ReLU(Activation):
    """The rectified linear unit, with TF Java's (and Keras') options: ``x`` above
    ``threshold`` (else 0), clipped to ``maxValue``, and ``alpha * (x - threshold)`` below the
    threshold.

    Args:
        alpha: the slope below the threshold (0: plain ReLU).
        maxValue: the largest output, or None (or NaN) for no bound.
        threshold: where the unit turns on.

    Example:
        >>> g = Graph(); tf = Ops.create(g)
        >>> y = ReLU(threshold=1.0).call(tf, tf.constant([0.5, 1.0, 2.0]))
        >>> Session(g).runner().fetch(y).run()[0]
        array([0., 0., 2.], dtype=float32)
    """

    def __init__(
        self, alpha: float = 0.0, maxValue: float | None = None, threshold: float = 0.0
    ) -> None:
        self._alpha = checkReal("ReLU", "alpha", alpha)
        bound = None if maxValue is None else checkReal("ReLU", "maxValue", maxValue)
        self._maxValue = None if bound is None or math.isnan(bound) else bound
        self._threshold = checkReal("ReLU", "threshold", threshold)

    def getAlpha(self) -> float:
        """The slope below the threshold."""
        return self._alpha

    def getMaxValue(self) -> float | None:
        """The largest output, or None."""
        return self._maxValue

    def getThreshold(self) -> float:
        """Where the unit turns on."""
        return self._threshold

    def _apply(self, tf: Ops, x: Output[Any]) -> Any:
        alpha, maxValue, threshold = self._alpha, self._maxValue, self._threshold
        negative: Any = None
        if alpha != 0:
            if maxValue is None and threshold == 0:
                return tf.nn.leakyRelu(x, alpha=alpha)
            shifted = (
                tf.math.neg(x)
                if threshold == 0
                else tf.math.add(tf.math.neg(x), _const(x, threshold))
            )
            negative = tf.nn.relu(shifted)
        clip = maxValue is not None
        y: Any
        if threshold != 0:
            y = tf.select(tf.math.greater(x, _const(x, threshold)), x, tf.zerosLike(x))
        elif maxValue == 6:
            y, clip = tf.nn.relu6(x), False
        else:
            y = tf.nn.relu(x)
        if clip:
            assert maxValue is not None
            y = tf.clipByValue(y, _const(x, 0.0), _const(x, maxValue))
        if negative is not None:
            y = tf.math.sub(y, tf.math.mul(_const(x, alpha), negative))
        return y


class ELU(Activation):
    """The exponential linear unit: ``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)``.

    Args:
        alpha: the scale of the negative part.
    """

    def __init__(self, alpha: float = 1.0) -> None:
        self._alpha = checkReal("ELU", "alpha", alpha)

    def getAlpha(self) -> float:
        """The scale of the negative part."""
        return self._alpha

    def _apply(self, tf: Ops, x: Output[Any]) -> Any:
        y = tf.nn.elu(x)
        if self._alpha == 1.0:
            return y
        scaled = tf.math.mul(y, _const(x, self._alpha))
        return tf.select(tf.math.greater(x, _const(x, 0.0)), y, scaled)


class GELU(Activation):
    """The Gaussian error linear unit ``x * P(X <= x)``, ``X ~ N(0, 1)``:
    ``0.5 x (1 + erf(x / sqrt(2)))``, or with ``approximate`` TensorFlow's tanh form
    ``0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))``.

    Args:
        approximate: whether to use the tanh approximation.
    """

    def __init__(self, approximate: bool = False) -> None:
        self._approximate = checkBool("GELU", "approximate", approximate)

    def isApproximate(self) -> bool:
        """Whether the tanh approximation is used."""
        return self._approximate

    def _apply(self, tf: Ops, x: Output[Any]) -> Any:
        half = tf.math.mul(_const(x, 0.5), x)
        if self._approximate:
            cube = tf.math.mul(tf.math.mul(x, x), x)
            inner = tf.math.add(x, tf.math.mul(_const(x, 0.044715), cube))
            t: Any = tf.math.tanh(tf.math.mul(_const(x, 0.7978845608028654), inner))
        else:
            t = tf.math.erf(tf.math.div(x, _const(x, 1.4142135623730951)))
        return tf.math.mul(half, tf.math.add(_const(x, 1.0), t))


class Softmax(Activation):
    """The softmax along ``axis``: ``exp(x) / sum(exp(x), axis)``, computed stably.

    Args:
        axis: the axis the outputs sum to 1 along.
    """

    def __init__(self, axis: int = -1) -> None:
        self._axis = checkInt("Softmax", "axis", axis)

    def getAxis(self) -> int:
        """The axis the outputs sum to 1 along."""
        return self._axis

    def _apply(self, tf: Ops, x: Output[Any]) -> Any:
        rank, axis = x.shape().numDimensions(), self._axis
        if rank >= 0 and not -rank <= axis < max(rank, 1):
            raise IllegalArgumentError(
                f"Softmax: axis {axis} is out of range for input '{x.name()}' of rank {rank}"
            )
        if axis == -1 or axis == rank - 1:
            return tf.nn.softmax(x)
        e = tf.math.exp(tf.math.sub(x, tf.reduceMax(x, axis, keepDims=True)))
        return tf.math.div(e, tf.reduceSum(e, axis, keepDims=True))


class Sigmoid(Activation):
    """The logistic function ``1 / (1 + exp(-x))``."""

    def _apply(self, tf: Ops, x: Output[Any]) -> Any:
        return tf.math.sigmoid(x)


class Tanh(Activation):
    """The hyperbolic tangent."""

    def _apply(self, tf: Ops, x: Output[Any]) -> Any:
        return tf.math.tanh(x)


class Softplus(Activation):
    """``log(exp(x) + 1)``."""

    def _apply(self, tf: Ops, x: Output[Any]) -> Any:
        return tf.math.softplus(x)


class Softsign(Activation):
    """``x / (abs(x) + 1)``."""

    def _apply(self, tf: Ops, x: Output[Any]) -> Any:
        return tf.nn.softsign(x)


class Swish(Activation):
    """``x * sigmoid(x)`` (SiLU)."""

    def _apply(self, tf: Ops, x: Output[Any]) -> Any:
        return tf.math.mul(x, tf.math.sigmoid(x))


class SELU(Activation):
    """The scaled exponential linear unit: ``scale * elu(x, alpha)`` with Klambauer et al.'s
    ``alpha = 1.67326324`` and ``scale = 1.05070098``."""

    def _apply(self, tf: Ops, x: Output[Any]) -> Any:
        return tf.nn.selu(x)


class HardSigmoid(Activation):
    """A piecewise linear sigmoid, ``clip(0.2 x + 0.5, 0, 1)`` (TF Java's and Keras 2's; Keras 3
    uses ``x / 6 + 0.5``)."""

    def _apply(self, tf: Ops, x: Output[Any]) -> Any:
        y = tf.math.add(tf.math.mul(x, _const(x, 0.2)), _const(x, 0.5))
        return tf.clipByValue(y, _const(x, 0.0), _const(x, 1.0))


class Linear(Activation):
    """The identity: returns ``input`` itself (no op is added)."""

    def _apply(self, tf: Ops, x: Output[Any]) -> Any:
        return x


class Exponential(Activation):
    """``exp(x)``."""

    def _apply(self, tf: Ops, x: Output[Any]) -> Any:
        return tf.math.exp(x)
