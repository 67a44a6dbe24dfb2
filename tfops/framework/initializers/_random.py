"""The seeded random initializers: RandomNormal, RandomUniform, TruncatedNormal, Orthogonal.

Each draws from TensorFlow's stateless random ops with the seed ``[seed, 0]`` (what TF Java and
Keras feed them), so a seed gives the same tensor in every session, and TensorFlow's numbers.
"""

from __future__ import annotations

from typing import Any, TypeVar, cast

import numpy as np

from tfops.errors import IllegalArgumentError
from tfops.framework.initializers._base import Initializer, checkReal, checkSeed, const
from tfops.ops import Ops
from tfops.output import Operand, Output
from tfops.shape import Shape
from tfops.types import TType

__all__ = ["Orthogonal", "RandomNormal", "RandomUniform", "TruncatedNormal"]

T = TypeVar("T", bound=TType)


class RandomNormal(Initializer):
    """Initializes to normal values: ``StatelessRandomNormal * stddev + mean`` (TF Java's
    ``RandomNormal``; the same numbers as Keras' ``RandomNormal`` of the same seed).

    Example:
        >>> from tfops.framework.initializers import RandomNormal
        >>> g = Graph(); tf = Ops.create(g)
        >>> w = tf.variable(RandomNormal(0.0, 0.1, seed=7).call(tf.withInitScope(), [500, 4],
        ...                                                     TFloat32))
        >>> v = Session(g).runner().fetch(w).run()[0]
        >>> bool(abs(v.mean()) < 0.01 and abs(v.std() - 0.1) < 0.01)
        True
    """

    MEAN_DEFAULT = 0.0
    STDDEV_DEFAULT = 1.0

    def __init__(
        self, mean: float = MEAN_DEFAULT, stddev: float = STDDEV_DEFAULT, *, seed: int
    ) -> None:
        self._mean = checkReal("RandomNormal", "mean", mean)
        self._stddev = checkReal("RandomNormal", "stddev", stddev)
        self._seed = checkSeed("RandomNormal", seed)

    def _call(self, tf: Ops, dims: Output[Any], shape: Shape, dtype: type[T]) -> Operand[T]:
        return normal(self, tf, dims, dtype, self._seed, self._mean, self._stddev, False)

    def __repr__(self) -> str:
        return f"RandomNormal(mean={self._mean!r}, stddev={self._stddev!r}, seed={self._seed})"


class TruncatedNormal(Initializer):
    """Initializes to normal values redrawn beyond two standard deviations:
    ``StatelessTruncatedNormal * stddev + mean`` (TF Java's ``TruncatedNormal``; the same
    numbers as Keras' ``TruncatedNormal`` of the same seed).

    Example:
        >>> from tfops.framework.initializers import TruncatedNormal
        >>> g = Graph(); tf = Ops.create(g)
        >>> t = TruncatedNormal(1.0, 0.5, seed=3).call(tf, [1000], TFloat32)
        >>> v = Session(g).runner().fetch(t).run()[0]
        >>> bool(v.min() > 0.0 and v.max() < 2.0)
        True
    """

    MEAN_DEFAULT = 0.0
    STDDEV_DEFAULT = 0.05

    def __init__(
        self, mean: float = MEAN_DEFAULT, stddev: float = STDDEV_DEFAULT, *, seed: int
    ) -> None:
        self._mean = checkReal("TruncatedNormal", "mean", mean)
        self._stddev = checkReal("TruncatedNormal", "stddev", stddev)
        self._seed = checkSeed("TruncatedNormal", seed)

    def _call(self, tf: Ops, dims: Output[Any], shape: Shape, dtype: type[T]) -> Operand[T]:
        return normal(self, tf, dims, dtype, self._seed, self._mean, self._stddev, True)

    def __repr__(self) -> str:
        return f"TruncatedNormal(mean={self._mean!r}, stddev={self._stddev!r}, seed={self._seed})"


class RandomUniform(Initializer):
    """Initializes to uniform values in ``[minval, maxval)``:
    ``StatelessRandomUniform * (maxval - minval) + minval``, the difference taken in the data
    type (as TensorFlow's ``stateless_uniform``: the same numbers as Keras' ``RandomUniform`` of
    the same seed). Floating point types only (TF Java also draws integers, from a stateful op).

    Example:
        >>> from tfops.framework.initializers import RandomUniform
        >>> g = Graph(); tf = Ops.create(g)
        >>> u = RandomUniform(-1.0, 1.0, seed=1).call(tf, [1000], TFloat64)
        >>> v = Session(g).runner().fetch(u).run()[0]
        >>> bool(-1.0 <= v.min() and v.max() < 1.0 and abs(v.mean()) < 0.1)
        True
    """

    MINVAL_DEFAULT = -0.05
    MAXVAL_DEFAULT = 0.05

    def __init__(
        self, minval: float = MINVAL_DEFAULT, maxval: float = MAXVAL_DEFAULT, *, seed: int
    ) -> None:
        self._minval = checkReal("RandomUniform", "minval", minval)
        self._maxval = checkReal("RandomUniform", "maxval", maxval)
        if not self._minval < self._maxval:
            raise IllegalArgumentError(
                f"RandomUniform: minval ({minval}) must be less than maxval ({maxval})"
            )
        self._seed = checkSeed("RandomUniform", seed)

    def _call(self, tf: Ops, dims: Output[Any], shape: Shape, dtype: type[T]) -> Operand[T]:
        return uniform(self, tf, dims, dtype, self._seed, self._minval, self._maxval)

    def __repr__(self) -> str:
        return f"RandomUniform(minval={self._minval!r}, maxval={self._maxval!r}, seed={self._seed})"


def normal(
    init: Initializer,
    tf: Ops,
    dims: Output[Any],
    dtype: type[T],
    seed: int,
    mean: float,
    stddev: float,
    truncated: bool,
) -> Operand[T]:
    """``StatelessRandomNormal * stddev + mean`` (``StatelessTruncatedNormal`` if
    ``truncated``)."""
    draw = tf.random.statelessTruncatedNormal if truncated else tf.random.statelessRandomNormal
    values: Any = draw(dims, init.seedOf(tf, seed), dtype=cast(Any, dtype))
    scaled = tf.math.mul(values, init.scalar(tf, stddev, dtype))
    return cast("Operand[T]", tf.math.add(scaled, init.scalar(tf, mean, dtype)))


def uniform(
    init: Initializer,
    tf: Ops,
    dims: Output[Any],
    dtype: type[T],
    seed: int,
    minval: float,
    maxval: float,
) -> Operand[T]:
    """``StatelessRandomUniform * (maxval - minval) + minval``, as TensorFlow computes it."""
    low: Any = np.asarray(minval, dtype.DTYPE)
    high: Any = np.asarray(maxval, dtype.DTYPE)
    values: Any = tf.random.statelessRandomUniform(
        dims, init.seedOf(tf, seed), dtype=cast(Any, dtype)
    )
    scaled = tf.math.mul(values, const(tf, np.asarray(high - low, dtype.DTYPE)))
    return cast("Operand[T]", tf.math.add(scaled, const(tf, low)))


class Orthogonal(Initializer):
    """Initializes to an orthogonal matrix (Saxe et al., 2014), times ``gain``, as TF Java's
    and Keras' ``Orthogonal``: the Q factor of a normal matrix
    (``StatelessRandomNormal`` of shape ``[max(rows, cols), min(rows, cols)]``, ``rows`` the
    product of every size but the last), its columns' signs those of R's diagonal, transposed
    when ``rows < cols``, reshaped to ``dims`` (which must be known, of rank 2 or more). Its
    rows (or columns, whichever are fewer) are orthonormal.

    Example:
        >>> from tfops.framework.initializers import Orthogonal
        >>> g = Graph(); tf = Ops.create(g)
        >>> q = Orthogonal(seed=5).call(tf, [4, 3], TFloat64)
        >>> v = Session(g).runner().fetch(q).run()[0]
        >>> bool(np.allclose(v.T @ v, np.eye(3)))
        True
    """

    GAIN_DEFAULT = 1.0

    def __init__(self, gain: float = GAIN_DEFAULT, *, seed: int) -> None:
        self._gain = checkReal("Orthogonal", "gain", gain)
        self._seed = checkSeed("Orthogonal", seed)

    def _call(self, tf: Ops, dims: Output[Any], shape: Shape, dtype: type[T]) -> Operand[T]:
        if 0 <= shape.numDimensions() < 2:
            raise IllegalArgumentError(
                f"Orthogonal.call: the tensor to initialize must be at least two-dimensional, "
                f"got dims {shape}; give e.g. [rows, columns] or a kernel's shape"
            )
        sizes = self.fullShape(shape, "Orthogonal flattens the shape to a matrix")
        rows, cols = int(np.prod(sizes[:-1])), sizes[-1]
        flat = np.array([max(rows, cols), min(rows, cols)], np.int64)
        a: Any = tf.random.statelessRandomNormal(
            const(tf, flat), self.seedOf(tf, self._seed), dtype=cast(Any, dtype)
        )
        qr = tf.linalg.qr(a, fullMatrices=False)
        zero = self.scalar(tf, 0, dtype)
        diagonal: Any = tf.linalg.matrixDiagPartV3(qr.r(), const(tf, np.int32(0)), zero)
        q: Any = tf.math.mul(qr.q(), tf.math.sign(diagonal))
        if rows < cols:
            q = tf.linalg.transpose(q, const(tf, np.array([1, 0], np.int32)))
        q = tf.reshape(q, dims)
        return cast("Operand[T]", tf.math.mul(q, self.scalar(tf, self._gain, dtype)))

    def __repr__(self) -> str:
        return f"Orthogonal(gain={self._gain!r}, seed={self._seed})"
