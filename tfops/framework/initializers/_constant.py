"""The deterministic initializers: Zeros, Ones, Constant, Identity."""

from __future__ import annotations

from typing import Any, TypeVar, cast

import numpy as np

from tfops.errors import IllegalArgumentError
from tfops.framework.initializers._base import Initializer, checkReal, const
from tfops.ops import Ops
from tfops.output import Operand, Output
from tfops.shape import Shape
from tfops.types import TInt32, TType

__all__ = ["Constant", "Identity", "Ones", "Zeros"]

T = TypeVar("T", bound=TType)


class Zeros(Initializer):
    """Initializes to zeros, of any data type (TF Java's ``Zeros``, Keras' ``Zeros``).

    Example:
        >>> from tfops.framework.initializers import Zeros
        >>> g = Graph(); tf = Ops.create(g)
        >>> w = tf.variable(Zeros().call(tf.withInitScope(), [2, 3], TFloat32))
        >>> Session(g).runner().fetch(w).run()[0].tolist()
        [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """

    floatOnly = False

    def _call(self, tf: Ops, dims: Output[Any], shape: Shape, dtype: type[T]) -> Operand[T]:
        return tf.zeros(dims, dtype)

    def __repr__(self) -> str:
        return "Zeros()"


class Ones(Initializer):
    """Initializes to ones, of any data type (TF Java's ``Ones``, Keras' ``Ones``).

    Example:
        >>> from tfops.framework.initializers import Ones
        >>> g = Graph(); tf = Ops.create(g)
        >>> b = Ones().call(tf, [3], TInt32)
        >>> Session(g).runner().fetch(b).run()[0].tolist()
        [1, 1, 1]
    """

    floatOnly = False

    def _call(self, tf: Ops, dims: Output[Any], shape: Shape, dtype: type[T]) -> Operand[T]:
        return tf.ones(dims, dtype)

    def __repr__(self) -> str:
        return "Ones()"


class Constant(Initializer):
    """Initializes every element to ``value``, cast to the data type asked for (TF Java's
    ``Constant``: a float value cast to an integer type is truncated toward zero).

    Example:
        >>> from tfops.framework.initializers import Constant
        >>> g = Graph(); tf = Ops.create(g)
        >>> c = Constant(0.5).call(tf, [2, 2], TFloat64)
        >>> Session(g).runner().fetch(c).run()[0].tolist()
        [[0.5, 0.5], [0.5, 0.5]]
    """

    floatOnly = False

    def __init__(self, value: float | bool) -> None:
        if isinstance(value, (bool, np.bool_)):
            self._value: float | bool = bool(value)
        else:
            number = checkReal("Constant", "value", value)
            self._value = int(value) if isinstance(value, (int, np.integer)) else number

    def getValue(self) -> float | bool:
        """The value every element gets."""
        return self._value

    def _call(self, tf: Ops, dims: Output[Any], shape: Shape, dtype: type[T]) -> Operand[T]:
        return tf.fill(dims, self.scalar(tf, self._value, dtype))

    def __repr__(self) -> str:
        return f"Constant({self._value!r})"


class Identity(Initializer):
    """Initializes a matrix to ``gain`` times the identity (ones on the main diagonal, also for a
    rectangular matrix), as TF Java's and Keras' ``Identity``. ``dims`` must be a known 2-D
    shape.

    Example:
        >>> from tfops.framework.initializers import Identity
        >>> g = Graph(); tf = Ops.create(g)
        >>> i = Identity(2.0).call(tf, [2, 3], TFloat32)
        >>> Session(g).runner().fetch(i).run()[0].tolist()
        [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]
    """

    GAIN_DEFAULT = 1.0

    def __init__(self, gain: float = GAIN_DEFAULT) -> None:
        self._gain = checkReal("Identity", "gain", gain)

    def getGain(self) -> float:
        """The value of the diagonal."""
        return self._gain

    def _call(self, tf: Ops, dims: Output[Any], shape: Shape, dtype: type[T]) -> Operand[T]:
        if shape.numDimensions() not in (-1, 2):
            raise IllegalArgumentError(
                f"Identity.call: Identity initializes a matrix (2-D dims), got dims {shape} of "
                f"rank {shape.numDimensions()}; give [rows, columns]"
            )
        rows, cols = self.fullShape(shape, "Identity needs the matrix's size")
        diagonal = tf.fill(
            const(tf, np.array([min(rows, cols)], np.int64)), self.scalar(tf, self._gain, dtype)
        )
        i32 = TInt32.DTYPE
        matrix = tf.linalg.matrixDiagV3(
            diagonal,
            const(tf, np.int32(0)),
            const(tf, np.asarray(rows, i32)),
            const(tf, np.asarray(cols, i32)),
            self.scalar(tf, 0, dtype),
        )
        return cast("Operand[T]", matrix)

    def __repr__(self) -> str:
        return f"Identity(gain={self._gain!r})"
