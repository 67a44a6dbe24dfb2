"""Variance scaling, and its named cases Glorot, He and LeCun."""

from __future__ import annotations

import math
from enum import Enum
from typing import Any, TypeVar, cast

from tfops.errors import DataTypeError, IllegalArgumentError
from tfops.framework.initializers._base import Initializer, checkReal, checkSeed
from tfops.framework.initializers._random import uniform
from tfops.ops import Ops
from tfops.output import Operand, Output
from tfops.shape import Shape
from tfops.types import TType

__all__ = ["Glorot", "He", "LeCun", "VarianceScaling", "computeFans"]

T = TypeVar("T", bound=TType)
E = TypeVar("E", bound=Enum)

_TRUNCATED_STDDEV = 0.87962566103423978
"""The standard deviation of a standard normal truncated to (-2, 2)."""


def computeFans(sizes: tuple[int, ...]) -> tuple[float, float]:
    """(fan in, fan out) of a weight tensor, as Keras computes them: a scalar has 1 and 1, a
    vector its length twice, a matrix ``[in, out]``; a convolution kernel
    ``[*window, in, out]`` multiplies both by the window's size."""
    if not sizes:
        return 1.0, 1.0
    if len(sizes) == 1:
        return float(sizes[0]), float(sizes[0])
    receptiveField = math.prod(sizes[:-2])
    return float(sizes[-2] * receptiveField), float(sizes[-1] * receptiveField)


class VarianceScaling(Initializer):
    """Initializes to random values whose variance is ``scale / n`` (TF Java's and Keras'
    ``VarianceScaling``), ``n`` the fan in, fan out or their mean (``mode``, see
    :func:`computeFans`; at least 1). ``distribution``: ``TRUNCATED_NORMAL`` (a truncated
    normal, its standard deviation ``sqrt(scale / n) / 0.8796...`` so that the truncated
    values have the variance), ``NORMAL`` (standard deviation ``sqrt(scale / n)``) or
    ``UNIFORM`` (in ``[-limit, limit)``, ``limit = sqrt(3 scale / n)``). ``dims`` must be known
    when the graph is built.

    Example:
        >>> from tfops.framework.initializers import VarianceScaling
        >>> g = Graph(); tf = Ops.create(g)
        >>> init = VarianceScaling(2.0, VarianceScaling.Mode.FAN_IN,
        ...                        VarianceScaling.Distribution.NORMAL, seed=1)
        >>> k = tf.variable(init.call(tf.withInitScope(), [3, 3, 64, 8], TFloat32))
        >>> v = Session(g).runner().fetch(k).run()[0]      # fan in: 3 * 3 * 64
        >>> bool(abs(v.std() - (2.0 / 576) ** 0.5) < 0.003)
        True
    """

    class Mode(Enum):
        """Which fan divides the scale."""

        FAN_IN = "FAN_IN"
        FAN_OUT = "FAN_OUT"
        FAN_AVG = "FAN_AVG"

    class Distribution(Enum):
        """The distribution the values are drawn from."""

        TRUNCATED_NORMAL = "TRUNCATED_NORMAL"
        NORMAL = "NORMAL"
        UNIFORM = "UNIFORM"

    SCALE_DEFAULT = 1.0
    MODE_DEFAULT = Mode.FAN_IN
    DISTRIBUTION_DEFAULT = Distribution.TRUNCATED_NORMAL

    def __init__(
        self,
        scale: float = SCALE_DEFAULT,
        mode: Mode = MODE_DEFAULT,
        distribution: Distribution = DISTRIBUTION_DEFAULT,
        *,
        seed: int,
    ) -> None:
        kind = type(self).__name__
        self._scale = checkReal(kind, "scale", scale)
        if not self._scale > 0.0:
            raise IllegalArgumentError(f"{kind}: scale must be greater than 0, got {scale!r}")
        self._mode = _member(kind, "mode", mode, VarianceScaling.Mode)
        self._distribution = _member(
            kind, "distribution", distribution, VarianceScaling.Distribution
        )
        self._seed = checkSeed(kind, seed)

    def getScale(self) -> float:
        """The scale of the variance."""
        return self._scale

    def getMode(self) -> VarianceScaling.Mode:
        """Which fan divides the scale."""
        return self._mode

    def getDistribution(self) -> VarianceScaling.Distribution:
        """The distribution of the values."""
        return self._distribution

    def _call(self, tf: Ops, dims: Output[Any], shape: Shape, dtype: type[T]) -> Operand[T]:
        fanIn, fanOut = computeFans(self.fullShape(shape, "the fans are computed from it"))
        fan = {
            VarianceScaling.Mode.FAN_IN: fanIn,
            VarianceScaling.Mode.FAN_OUT: fanOut,
            VarianceScaling.Mode.FAN_AVG: (fanIn + fanOut) / 2.0,
        }[self._mode]
        scale = self._scale / max(1.0, fan)
        seed = self.seedOf(tf, self._seed)
        dist = VarianceScaling.Distribution
        values: Any
        if self._distribution is dist.UNIFORM:
            limit = math.sqrt(3.0 * scale)
            return uniform(self, tf, dims, dtype, self._seed, -limit, limit)
        if self._distribution is dist.TRUNCATED_NORMAL:
            values = tf.random.statelessTruncatedNormal(dims, seed, dtype=cast(Any, dtype))
            stddev = math.sqrt(scale) / _TRUNCATED_STDDEV
        else:
            values = tf.random.statelessRandomNormal(dims, seed, dtype=cast(Any, dtype))
            stddev = math.sqrt(scale)
        return cast("Operand[T]", tf.math.mul(values, self.scalar(tf, stddev, dtype)))

    def __repr__(self) -> str:
        if type(self) is not VarianceScaling:  # Glorot, He, LeCun: scale and mode are fixed
            return (
                f"{type(self).__name__}(VarianceScaling.Distribution.{self._distribution.name}, "
                f"seed={self._seed})"
            )
        return (
            f"VarianceScaling(scale={self._scale!r}, mode=VarianceScaling.Mode.{self._mode.name}, "
            f"distribution=VarianceScaling.Distribution.{self._distribution.name}, "
            f"seed={self._seed})"
        )


def _member(owner: str, what: str, value: object, enum: type[E]) -> E:
    if isinstance(value, enum):
        return value
    choices = ", ".join(f"VarianceScaling.{enum.__name__}.{m.name}" for m in enum)
    error = IllegalArgumentError if isinstance(value, str) else DataTypeError
    raise error(f"{owner}: unknown {what} {value!r}; give one of {choices}")


class Glorot(VarianceScaling):
    """Glorot (Xavier) initialization: variance scaling with scale 1 over the mean of the fans
    (Keras' ``GlorotUniform`` with ``UNIFORM``, ``GlorotNormal`` with ``TRUNCATED_NORMAL``).

    Example:
        >>> from tfops.framework.initializers import Glorot, VarianceScaling
        >>> g = Graph(); tf = Ops.create(g)
        >>> init = Glorot(VarianceScaling.Distribution.UNIFORM, seed=2)
        >>> v = Session(g).runner().fetch(init.call(tf, [20, 30], TFloat32)).run()[0]
        >>> bool(np.abs(v).max() < (6 / 50) ** 0.5)
        True
    """

    def __init__(
        self,
        distribution: VarianceScaling.Distribution = VarianceScaling.DISTRIBUTION_DEFAULT,
        *,
        seed: int,
    ) -> None:
        super().__init__(1.0, VarianceScaling.Mode.FAN_AVG, distribution, seed=seed)


class He(VarianceScaling):
    """He initialization: variance scaling with scale 2 over the fan in (Keras' ``HeUniform``
    with ``UNIFORM``, ``HeNormal`` with ``TRUNCATED_NORMAL``), for ReLU layers.

    Example:
        >>> from tfops.framework.initializers import He
        >>> g = Graph(); tf = Ops.create(g)
        >>> v = Session(g).runner().fetch(He(seed=4).call(tf, [800, 10], TFloat32)).run()[0]
        >>> bool(abs(v.std() - (2 / 800) ** 0.5) < 0.003)
        True
    """

    def __init__(
        self,
        distribution: VarianceScaling.Distribution = VarianceScaling.DISTRIBUTION_DEFAULT,
        *,
        seed: int,
    ) -> None:
        super().__init__(2.0, VarianceScaling.Mode.FAN_IN, distribution, seed=seed)


class LeCun(VarianceScaling):
    """LeCun initialization: variance scaling with scale 1 over the fan in (Keras'
    ``LecunUniform`` with ``UNIFORM``, ``LecunNormal`` with ``TRUNCATED_NORMAL``), for SELU.

    Example:
        >>> from tfops.framework.initializers import LeCun, VarianceScaling
        >>> g = Graph(); tf = Ops.create(g)
        >>> init = LeCun(VarianceScaling.Distribution.NORMAL, seed=9)
        >>> v = Session(g).runner().fetch(init.call(tf, [400, 25], TFloat64)).run()[0]
        >>> bool(abs(v.std() - (1 / 400) ** 0.5) < 0.002)
        True
    """

    def __init__(
        self,
        distribution: VarianceScaling.Distribution = VarianceScaling.DISTRIBUTION_DEFAULT,
        *,
        seed: int,
    ) -> None:
        super().__init__(1.0, VarianceScaling.Mode.FAN_IN, distribution, seed=seed)
