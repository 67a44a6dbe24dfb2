"""Array composites: ``Zeros`` and ``Ones`` (TensorFlow Java's ``org.tensorflow.op.core``)."""

from __future__ import annotations

from typing import Generic, final

from scope import Scope
from tfops.composite._endpoint import composite
from tfops.op._typevars import TI2, T, T_co
from tfops.op.core import Constant, Fill
from tfops.op.dtypes import Cast
from tfops.output import Operand, Output, PrimitiveOp
from tfops.types import TensorValue, TType

__all__ = ["Ones", "Zeros"]


def _filled(
    scope: Scope, name: str, dims: Operand[TI2] | TensorValue, value: int, dtype: type[T]
) -> Fill[T]:
    """``Fill(dims, Cast(value, dtype))`` under the sub-scope ``name``, as TF Java builds it."""
    if not (isinstance(dtype, type) and issubclass(dtype, TType)) or dtype is TType:
        raise TypeError(f"{name}: type must be a data type class such as TFloat32, got {dtype!r}")
    inner = scope.withSubScope(name)
    element = Cast.create(
        inner.withName("Zero" if value == 0 else "One"), Constant.scalarOf(inner, value), dtype
    )
    return Fill.create(inner.withName("Fill"), dims, element)


class _Filled(PrimitiveOp, Generic[T_co]):
    """A composite whose result is a ``Fill``: ``op()`` is the ``Fill``, ``asOutput()`` its
    output."""

    __slots__ = ("_output",)

    def __init__(self, fill: Fill[T_co]) -> None:
        super().__init__(fill.op())
        self._output = fill.asOutput()

    def asOutput(self) -> Output[T_co]:
        """Returns the symbolic handle of the tensor (the ``Fill``'s output)."""
        return self._output


@composite("core")
@final
class Zeros(_Filled[T_co]):
    """Creates a tensor of zeros of a given shape and data type (TF Java's ``Zeros``).

    The graph holds ``Zeros/Fill`` of ``Zeros/Zero``, a ``Cast`` of the constant 0 to ``type``,
    so ``dims`` may be known only when the graph runs. The result is an operand; ``op()`` is
    the ``Fill``.

    Example:
        >>> g = Graph(); tf = Ops.create(g)
        >>> z = tf.zeros([2, 3], TInt32)
        >>> z.op().name(), Session(g).runner().fetch(z).run()[0].tolist()
        ('Zeros/Fill', [[0, 0, 0], [0, 0, 0]])
    """

    @staticmethod
    def create(scope: Scope, dims: Operand[TI2] | TensorValue, type: type[T]) -> Zeros[T]:
        """Creates a zeroed tensor given its type and shape.

        Args:
            scope: current scope.
            dims: the shape of the result, a vector of non-negative sizes.
            type: the data type of the result (``TFloat32``...).

        Returns:
            a new instance of Zeros.

        Raises:
            TypeError: ``type`` is not a data type class.
            ValueError: ``dims`` is not a vector of sizes.
        """
        return Zeros(_filled(scope, "Zeros", dims, 0, type))


@composite("core")
@final
class Ones(_Filled[T_co]):
    """Creates a tensor of ones of a given shape and data type (TF Java's ``Ones``).

    The graph holds ``Ones/Fill`` of ``Ones/One``, a ``Cast`` of the constant 1 to ``type``;
    for ``TBool`` every element is ``True``. The result is an operand; ``op()`` is the
    ``Fill``.

    Example:
        >>> g = Graph(); tf = Ops.create(g)
        >>> o = tf.ones(tf.constant([2], dtype=TInt64), TFloat64)
        >>> Session(g).runner().fetch(o).run()[0].tolist()
        [1.0, 1.0]
    """

    @staticmethod
    def create(scope: Scope, dims: Operand[TI2] | TensorValue, type: type[T]) -> Ones[T]:
        """Creates a tensor of ones given its type and shape.

        Args:
            scope: current scope.
            dims: the shape of the result, a vector of non-negative sizes.
            type: the data type of the result (``TFloat32``...).

        Returns:
            a new instance of Ones.

        Raises:
            TypeError: ``type`` is not a data type class.
            ValueError: ``dims`` is not a vector of sizes.
        """
        return Ones(_filled(scope, "Ones", dims, 1, type))
