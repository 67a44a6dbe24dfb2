"""The static shape of a tensor, as in TensorFlow Java's ``org.tensorflow.ndarray.Shape``."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from attrs import frozen

from tfops.errors import IllegalArgumentError

__all__ = ["Shape"]

UNKNOWN_SIZE = -1
_INT64_MAX = 2**63 - 1


@frozen
class Shape:
    """The static shape of a tensor: known, partly known (``-1`` dimensions) or of unknown rank.

    Shapes are values: two shapes with the same dimensions are equal.

    Example:
        >>> from tfops import Shape
        >>> s = Shape.of(2, 3)
        >>> s.numDimensions(), s.size(1), s.size()
        (2, 3, 6)
        >>> Shape.of(-1, 3).isCompatibleWith(s), Shape.unknown().numDimensions()
        (True, -1)
    """

    _dims: tuple[int, ...] | None

    @staticmethod
    def of(*dimensions: int) -> Shape:
        """Returns the shape with the given dimension sizes; ``-1`` is an unknown size."""
        if not dimensions:
            return _SCALAR
        converted = False
        for d in dimensions:
            if type(d) is not int:
                if not isinstance(d, (int, np.integer)) or isinstance(d, bool):
                    raise Shape._invalid(d, dimensions)
                converted = True
            if d < UNKNOWN_SIZE or d > _INT64_MAX:
                raise Shape._invalid(d, dimensions)
        return Shape(tuple(int(d) for d in dimensions) if converted else dimensions)

    @staticmethod
    def _invalid(d: object, dimensions: tuple[object, ...]) -> IllegalArgumentError:
        return IllegalArgumentError(
            f"invalid dimension size {d!r} in Shape.of{dimensions}: sizes are ints from 0 to "
            "2**63 - 1, -1 for unknown"
        )

    @staticmethod
    def scalar() -> Shape:
        """Returns the shape of a scalar (rank 0)."""
        return _SCALAR

    @staticmethod
    def unknown() -> Shape:
        """Returns the shape of unknown rank."""
        return _UNKNOWN

    @staticmethod
    def fromIterable(dimensions: Iterable[int] | None) -> Shape:
        """Returns the shape with the given sizes, or the unknown shape for ``None``."""
        if dimensions is None:
            return _UNKNOWN
        return Shape.of(*(d.item() if isinstance(d, np.integer) else d for d in dimensions))

    def numDimensions(self) -> int:
        """Returns the rank, or -1 when the rank is unknown."""
        return -1 if self._dims is None else len(self._dims)

    def size(self, i: int | None = None) -> int:
        """Returns the size of dimension ``i`` (negative counts from the end), or with no
        argument the number of elements; -1 where unknown."""
        if i is None:
            if self._dims is None or UNKNOWN_SIZE in self._dims:
                return UNKNOWN_SIZE
            n = 1
            for d in self._dims:
                n *= d
            return n
        if self._dims is None:
            return UNKNOWN_SIZE
        return self._dims[i]

    def asArray(self) -> tuple[int, ...] | None:
        """Returns the dimension sizes, or ``None`` when the rank is unknown."""
        return self._dims

    def isUnknown(self) -> bool:
        """Whether the rank is unknown."""
        return self._dims is None

    def hasUnknownDimension(self) -> bool:
        """Whether the rank or any dimension size is unknown."""
        return self._dims is None or UNKNOWN_SIZE in self._dims

    def isFullyKnown(self) -> bool:
        """Whether the rank and every dimension size are known."""
        return not self.hasUnknownDimension()

    def isCompatibleWith(self, other: Shape) -> bool:
        """Whether some tensor could have both shapes."""
        if self._dims is None or other._dims is None:
            return True
        if len(self._dims) != len(other._dims):
            return False
        return all(
            a == b or UNKNOWN_SIZE in (a, b) for a, b in zip(self._dims, other._dims, strict=True)
        )

    def isCompatibleWithArray(self, dims: tuple[int, ...]) -> bool:
        """Whether an array of the given (concrete) shape has this shape."""
        if self._dims is None:
            return True
        if len(self._dims) != len(dims):
            return False
        return all(a == UNKNOWN_SIZE or a == b for a, b in zip(self._dims, dims, strict=True))

    def __repr__(self) -> str:
        if self._dims is None:
            return "Shape.unknown()"
        return "Shape.of(" + ", ".join(map(str, self._dims)) + ")"

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        return "[" + ", ".join("?" if d == UNKNOWN_SIZE else str(d) for d in self._dims) + "]"


_SCALAR = Shape(())
_UNKNOWN = Shape(None)
