"""Shape helpers (``tf.shape``): TF Java's ``Shapes``, small graphs on the shape vectors that a
``Shape`` op gives (``tf.shape(x)``), and on tensors through their shapes."""

from __future__ import annotations

import builtins
from typing import cast, final, overload

from scope import Scope
from tfops.composite._endpoint import composite
from tfops.errors import DataTypeError
from tfops.op._typevars import TI, TI2, T
from tfops.op.core import (
    Concat,
    Constant,
    ExpandDims,
    Gather,
    Prod,
    Range,
    Reshape,
    Shape,
    Size,
    Slice,
    Sum,
)
from tfops.op.dtypes import Cast
from tfops.op.math import FloorMod, Mul, NotEqual, Sub
from tfops.op.nn import TopK
from tfops.output import Operand, Output
from tfops.types import TInt32, TIntegral

__all__ = ["Shapes"]

_HELPERS = ("flatten", "size", "numDimensions", "reduceDims", "squeeze", "head", "take", "tail",
            "takeLast", "prepend", "append")


def _vector(scope: Scope, value: int, dtype: type[TI]) -> Constant[TI]:
    return Constant.vectorOf(scope, [value], dtype)


def _integral(what: str, t: Operand[T]) -> Output[TIntegral]:
    out = t.asOutput()
    if not issubclass(out.dataType(), TIntegral):
        raise DataTypeError(f"Shapes.{what}: a shape must be an integer vector, got "
                            f"{out.dataType().NAME}")
    return cast("Output[TIntegral]", out)


def _dims(
    scope: Scope, shape: Output[TI], begin: Operand[TI], end: Operand[TI] | None
) -> Slice[TI]:
    """``shape[begin:end]`` (to the end when ``end`` is ``None``) for scalar ``begin``/``end``."""
    dtype = shape.dataType()
    start = ExpandDims.create(scope, begin, -1)
    if end is None:
        size: Operand[TI] = _vector(scope, -1, dtype)
    else:
        size = ExpandDims.create(scope, Sub.create(scope, end, begin), -1)
    return Slice.create(scope, shape, start, size)


def _scalar(scope: Scope, value: int | Operand[TI], dtype: type[TI]) -> Operand[TI]:
    if isinstance(value, int):
        return Constant.scalarOf(scope, value, dtype)
    return value


@composite("shape", **{name: name for name in _HELPERS})
@final
class Shapes:
    """TF Java's ``Shapes`` (``tf.shape.<helper>``): operations on shape vectors.

    A *shape* is the integer vector a ``Shape`` op gives (``tf.shape(x)``, the group itself is
    callable); a helper given a tensor instead works on the tensor's shape (``flatten(x)``
    reshapes ``x``). Results are vectors of the shape's integer type unless said otherwise;
    everything is computed in the graph, so it works for shapes known only at run time. Each
    helper names its ops under a sub-scope of its own name.

    Example:
        >>> g = Graph(); tf = Ops.create(g)
        >>> x = tf.zeros([2, 3, 4], TFloat32)
        >>> s = tf.shape(x)
        >>> parts = [tf.shape.size(s), tf.shape.numDimensions(s), tf.shape.tail(s),
        ...          tf.shape.reduceDims(s, tf.constant(1)), tf.shape.prepend(s, 5)]
        >>> [v.tolist() for v in Session(g).runner().fetch(parts[0]).fetch(parts[1])
        ...  .fetch(parts[2]).fetch(parts[3]).fetch(parts[4]).run()]
        [24, 3, [4], [2, 12], [5, 2, 3, 4]]
    """

    @overload
    @staticmethod
    def flatten(  # type: ignore[overload-overlap, unused-ignore]
        scope: Scope, operand: Shape[TI], type: None = None
    ) -> Operand[TI]: ...

    @overload
    @staticmethod
    def flatten(scope: Scope, operand: Operand[T], type: type[TIntegral] | None = None
                ) -> Operand[T]: ...

    @staticmethod
    def flatten(
        scope: Scope, operand: Operand[T], type: type[TIntegral] | None = None
    ) -> Operand[T]:
        """Flattens a tensor to a vector, or gives a shape's flattened shape.

        Given a ``Shape`` op's result, the one-element vector ``[size]`` (the shape of the
        tensor flattened); given any other tensor, the tensor reshaped to a vector.

        Args:
            scope: current scope.
            operand: a tensor, or a shape (the result of ``tf.shape``).
            type: the integer type of the shape computed for a tensor (``TInt32`` by default).

        Returns:
            the flattened tensor, or the flattened shape.
        """
        inner = scope.withSubScope("flatten")
        if isinstance(operand, Shape):
            shape = cast("Output[TIntegral]", operand.asOutput())
            return cast("Operand[T]", ExpandDims.create(inner, Shapes._size(inner, shape), -1))
        shapeOf = Shape.create(inner, operand, outType=type or TInt32)
        flat = ExpandDims.create(inner, Shapes._size(inner, shapeOf.asOutput()), -1)
        return Reshape.create(inner, operand, flat)

    @staticmethod
    def _size(scope: Scope, shape: Output[TI]) -> Operand[TI]:
        """The product of the dimensions, a scalar."""
        return Prod.create(scope, shape, 0)

    @staticmethod
    def size(
        scope: Scope,
        shape: Operand[TI],
        dim: Operand[TI2] | int | None = None,
        type: type[TI] | None = None,
    ) -> Operand[TI]:
        """The number of elements of a shape, or the size of one of its dimensions.

        Without ``dim``, the product of the dimensions of ``shape`` (a scalar); with ``dim``,
        the one-element vector ``[shape[dim]]``. Given a tensor that is not a shape with a
        ``dim``, the size of that dimension of the tensor (its shape of type ``type``).

        Args:
            scope: current scope.
            shape: a shape (the result of ``tf.shape``), or a tensor when ``dim`` is given.
            dim: the dimension, a scalar in ``[0, rank)`` (as TF Java, no negative one).
            type: the integer type of the shape computed for a tensor (``TInt32`` by default).

        Returns:
            the size.
        """
        inner = scope.withSubScope("size")
        if dim is not None and not isinstance(shape, Shape):
            shape = Shape.create(inner, shape, outType=cast("builtins.type[TI]", type or TInt32))
        vector = _integral("size", shape)
        if dim is None:
            return cast("Operand[TI]", Shapes._size(inner, vector))
        dtype = vector.dataType()
        at = Cast.create(inner, dim, dtype)
        return cast("Operand[TI]", Slice.create(inner, vector, ExpandDims.create(inner, at, -1),
                                                _vector(inner, 1, dtype)))

    @staticmethod
    def numDimensions(scope: Scope, shape: Operand[TI2], type: type[TI] | None = None
                      ) -> Size[TI]:
        """The number of dimensions of a shape: its length.

        A scalar of ``type``, ``TInt32`` by default.

        Args:
            scope: current scope.
            shape: a shape (the result of ``tf.shape``).
            type: the integer type of the result.

        Returns:
            the rank.
        """
        inner = scope.withSubScope("numDimensions")
        return cast("Size[TI]", Size.create(inner, _integral("numDimensions", shape),
                                            outType=type or TInt32))

    @staticmethod
    def reduceDims(
        scope: Scope,
        operand: Operand[T],
        axis: Operand[TI2] | int,
        type: type[TIntegral] | None = None,
    ) -> Operand[T]:
        """Folds the dimensions from ``axis`` on into one.

        Given a shape, the shape with ``shape[axis:]`` replaced by their product (``axis``
        may be negative); given any other tensor, the tensor reshaped so.

        Args:
            scope: current scope.
            operand: a shape (the result of ``tf.shape``), or a tensor.
            axis: the first dimension folded, a scalar.
            type: the integer type of the shape computed for a tensor (``TInt32`` by default).

        Returns:
            the folded shape, or the reshaped tensor.
        """
        inner = scope.withSubScope("reduceDims")
        if isinstance(operand, Shape):
            return cast("Operand[T]", Shapes._reduceDims(inner, operand.asOutput(), axis))
        shape = Shape.create(inner, operand, outType=type or TInt32)
        return Reshape.create(inner, operand, Shapes._reduceDims(inner, shape.asOutput(), axis))

    @staticmethod
    def _reduceDims(scope: Scope, shape: Output[TI], axis: Operand[TI2] | int
                    ) -> Concat[TI]:
        dtype = shape.dataType()
        rank = Size.create(scope, shape, outType=dtype)
        at = FloorMod.create(scope, Cast.create(scope, axis, dtype), rank)
        head = _dims(scope, shape, Constant.scalarOf(scope, 0, dtype), at)
        folded = Prod.create(scope, _dims(scope, shape, at, None), 0, keepDims=True)
        return Concat.create(scope, [head, folded], 0)

    @staticmethod
    def squeeze(scope: Scope, shape: Operand[TI]) -> Operand[TI]:
        """The shape without its dimensions of size 1, in order.

        Args:
            scope: current scope.
            shape: a shape (the result of ``tf.shape``).

        Returns:
            the squeezed shape.
        """
        inner = scope.withSubScope("squeeze")
        vector = _integral("squeeze", shape)
        dtype = vector.dataType()
        keep = Cast.create(inner, NotEqual.create(inner, vector, Constant.scalarOf(inner, 1,
                                                                                   dtype)), TInt32)
        # the kept positions in order: the top `count` of keep * (rank - position)
        rank = Size.create(inner, vector, outType=TInt32)
        positions = Sub.create(inner, rank, Range.create(inner, 0, rank, 1))
        count = Sum.create(inner, keep, 0)
        top = TopK.create(inner, Mul.create(inner, keep, positions), count)
        return cast("Operand[TI]", Gather.create(inner, vector, top.indices(), 0))

    @staticmethod
    def head(scope: Scope, shape: Operand[TI]) -> Operand[TI]:
        """The first dimension of a shape, as a one-element vector.

        Args:
            scope: current scope.
            shape: a shape (the result of ``tf.shape``).

        Returns:
            ``shape[:1]``.
        """
        return Shapes._take(scope.withSubScope("head"), shape, 1)

    @staticmethod
    def take(scope: Scope, shape: Operand[TI], n: Operand[TI2] | int) -> Operand[TI]:
        """The first ``n`` dimensions of a shape.

        Args:
            scope: current scope.
            shape: a shape (the result of ``tf.shape``).
            n: how many dimensions, a scalar.

        Returns:
            ``shape[:n]``.
        """
        return Shapes._take(scope.withSubScope("take"), shape, n)

    @staticmethod
    def _take(scope: Scope, shape: Operand[TI], n: Operand[TI2] | int) -> Operand[TI]:
        vector = _integral("take", shape)
        dtype = vector.dataType()
        count = Cast.create(scope, _scalar(scope, n, TInt32), dtype)
        return cast("Operand[TI]", _dims(scope, vector, Constant.scalarOf(scope, 0, dtype), count))

    @staticmethod
    def tail(scope: Scope, shape: Operand[TI]) -> Operand[TI]:
        """The last dimension of a shape, as a one-element vector.

        Args:
            scope: current scope.
            shape: a shape (the result of ``tf.shape``).

        Returns:
            ``shape[-1:]``.
        """
        return Shapes._takeLast(scope.withSubScope("tail"), shape, 1)

    @staticmethod
    def takeLast(scope: Scope, shape: Operand[TI], n: Operand[TI2] | int) -> Operand[TI]:
        """The last ``n`` dimensions of a shape.

        Args:
            scope: current scope.
            shape: a shape (the result of ``tf.shape``).
            n: how many dimensions, a scalar.

        Returns:
            ``shape[rank - n:]``.
        """
        return Shapes._takeLast(scope.withSubScope("takeLast"), shape, n)

    @staticmethod
    def _takeLast(scope: Scope, shape: Operand[TI], n: Operand[TI2] | int) -> Operand[TI]:
        vector = _integral("takeLast", shape)
        dtype = vector.dataType()
        rank = Size.create(scope, vector, outType=dtype)
        start = Sub.create(scope, rank, Cast.create(scope, _scalar(scope, n, TInt32), dtype))
        return cast("Operand[TI]", _dims(scope, vector, start, None))

    @staticmethod
    def prepend(scope: Scope, shape: Operand[TI], firstDimension: int | Operand[TI]
                ) -> Concat[TI]:
        """A shape with a dimension (or a shape) put before it.

        Args:
            scope: current scope.
            shape: a shape (the result of ``tf.shape``), or any integer vector.
            firstDimension: the new first dimension, or a vector to put first (of the
                shape's type).

        Returns:
            the longer shape.
        """
        inner = scope.withSubScope("prepend")
        first = Shapes._part(inner, "prepend", shape, firstDimension)
        return Concat.create(inner, [first, shape], 0)

    @staticmethod
    def append(scope: Scope, shape: Operand[TI], lastDimension: int | Operand[TI]) -> Concat[TI]:
        """A shape with a dimension (or a shape) put after it.

        Args:
            scope: current scope.
            shape: a shape (the result of ``tf.shape``), or any integer vector.
            lastDimension: the new last dimension, or a vector to put last (of the shape's
                type).

        Returns:
            the longer shape.
        """
        inner = scope.withSubScope("append")
        last = Shapes._part(inner, "append", shape, lastDimension)
        return Concat.create(inner, [shape, last], 0)

    @staticmethod
    def _part(scope: Scope, what: str, shape: Operand[TI], part: int | Operand[TI]
              ) -> Operand[TI]:
        dtype = _integral(what, shape).dataType()
        if isinstance(part, int):
            return cast("Operand[TI]", _vector(scope, part, dtype))
        return part

