"""The base of every initializer: the checks of ``call``'s arguments, done before any op."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from typing import Any, TypeAlias, TypeVar, cast

import numpy as np

from tfops.errors import DataTypeError, IllegalArgumentError, TfopsError
from tfops.graph import Graph
from tfops.ops import Ops
from tfops.output import Operand, Output
from tfops.partial import partialValue
from tfops.shape import Shape
from tfops.types import TFloating, TInt32, TInt64, TType

__all__ = ["Dims", "Initializer", "building", "checkReal", "checkSeed", "const"]

T = TypeVar("T", bound=TType)

Dims: TypeAlias = "Operand[TInt64] | Operand[TInt32] | Shape | Sequence[int]"
"""The shape to initialize: an integer vector operand, a fully known ``Shape``, or a list of
non-negative ints."""

_INT64 = np.iinfo(np.int64)


@contextmanager
def building(graph: Graph) -> Generator[None, None, None]:
    """A construction step of the framework: on an error, the graph is left as it was, and a
    construction error's message ends with where the user's code made the call."""
    with graph._transaction() as site:  # pyright: ignore[reportPrivateUsage]
        try:
            yield
        except TfopsError as e:
            if e.args and isinstance(e.args[0], str) and f"(called at {site})" not in e.args[0]:
                e.args = (f"{e.args[0]} (called at {site})", *e.args[1:])
            raise


def const(tf: Ops, value: np.ndarray[Any, Any] | np.generic) -> Output[Any]:
    """A constant of ``value``, its data type ``value``'s (typed loosely for generic code)."""
    out: Output[Any] = tf.constant(np.asarray(value)).asOutput()
    return out


def checkReal(owner: str, name: str, value: object) -> float:
    """``value`` as a Python float, or a ``TypeError`` naming ``owner``'s argument ``name``."""
    got = f"{type(value).__name__} {value!r}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise DataTypeError(f"{owner}: {name} must be a real number (a Python float), got {got}")
    return float(cast("float", value))


def checkSeed(owner: str, seed: object) -> int:
    """``seed`` as a Python int in int64's range, or an error naming ``owner``."""
    got = f"{type(seed).__name__} {seed!r}"
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise DataTypeError(f"{owner}: seed must be an int (e.g. seed=42), got {got}")
    value = int(cast("int", seed))
    if not _INT64.min <= value <= _INT64.max:
        raise IllegalArgumentError(f"{owner}: seed {seed} does not fit in 64 bits")
    return value


class Initializer(ABC):
    """Base of the initializers (TensorFlow Java's ``framework.initializers.Initializer``).

    ``call(tf, dims, dtype)`` adds ops to ``tf``'s graph, under a sub-scope named after the
    class, that compute a tensor of shape ``dims`` and data type ``dtype``; use it as a
    variable's initial value. With ``tf.withInitScope()`` the ops are the graph's initializers,
    run once by a session before its first run. The arguments are checked before any op is
    added: on an error the graph is left as it was.
    """

    floatOnly: bool = True
    """Whether ``call`` needs a floating point ``dtype`` (the random initializers)."""

    def call(self, tf: Ops, dims: Dims, dtype: type[T]) -> Operand[T]:
        """A tensor of shape ``dims`` and data type ``dtype``, initialized by this initializer.

        Args:
            tf: the ``Ops`` to build with (``tf.withInitScope()`` for a variable's initializer).
            dims: the shape: an int64 (or int32) vector operand, a ``Shape``, or a list of ints.
            dtype: the data type (``TFloat32``...).

        Returns:
            the initial value.

        Raises:
            TypeError: ``dtype`` is not a data type this initializer makes, or ``dims`` is not
                a vector of integers.
            ValueError: ``dims`` has a negative size, belongs to another graph, or is not known
                at construction where this initializer needs it (fans, matrix shapes).
        """
        kind = type(self).__name__
        if not isinstance(tf, Ops):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise DataTypeError(
                f"{kind}.call: tf must be the Ops facade (Ops.create(graph)), "
                f"got {type(tf).__name__}"
            )
        graph = tf.scope().env()
        if not isinstance(graph, Graph):
            raise IllegalArgumentError(
                f"{kind}.call: initializers build into a Graph, got {type(graph).__name__}"
            )
        with building(graph):
            self._checkType(dtype)
            sub = tf.withSubScope(kind)
            dimsOut, shape = self._dims(sub, graph, dims)
            return self._call(sub, dimsOut, shape, dtype)

    @abstractmethod
    def _call(self, tf: Ops, dims: Output[Any], shape: Shape, dtype: type[T]) -> Operand[T]:
        """The ops of the initial value: ``dims`` the shape as an operand, ``shape`` what is
        known of it at construction."""

    # -- helpers for subclasses ------------------------------------------------------------
    @staticmethod
    def scalar(tf: Ops, value: float | bool, dtype: type[T]) -> Output[T]:
        """A constant scalar ``value`` of ``dtype`` (rounded once, from the double)."""
        return const(tf, np.asarray(value).astype(dtype.DTYPE))

    @staticmethod
    def seedOf(tf: Ops, seed: int) -> Output[TInt64]:
        """The stateless random ops' seed ``[seed, 0]``, as TF Java and Keras feed it."""
        return const(tf, np.array([seed, 0], np.int64))

    def fullShape(self, shape: Shape, need: str) -> tuple[int, ...]:
        """``shape``'s sizes, or an error saying why this initializer needs them all known."""
        if not shape.isFullyKnown():
            raise IllegalArgumentError(
                f"{type(self).__name__}.call: dims {shape} is not fully known when the graph is "
                f"built; {need}: give dims as a list of ints or a constant"
            )
        return tuple(shape.asArray() or ())

    # -- checks ------------------------------------------------------------------------------
    def _checkType(self, dtype: object) -> None:
        kind = type(self).__name__
        if not (isinstance(dtype, type) and issubclass(dtype, TType)) or dtype is TType:
            raise DataTypeError(
                f"{kind}.call: dtype must be a data type class (TFloat32...), got {dtype!r}"
            )
        if self.floatOnly and not issubclass(dtype, TFloating):
            raise DataTypeError(
                f"{kind}.call: {kind} makes floating point values, got dtype {dtype.NAME}; "
                f"use TFloat32 (or TFloat64, TFloat16), and cast the result if an integer "
                f"tensor is needed"
            )

    def _dims(self, tf: Ops, graph: Graph, dims: object) -> tuple[Output[Any], Shape]:
        kind = type(self).__name__
        asOutput = getattr(dims, "asOutput", None)
        if asOutput is not None:
            out: Output[Any] = asOutput()
            if out.op().graph() is not graph:
                raise IllegalArgumentError(
                    f"{kind}.call: dims '{out.name()}' belongs to another graph"
                )
            if out.dataType() not in (TInt64, TInt32):
                raise DataTypeError(
                    f"{kind}.call: dims '{out.name()}' has data type {out.dataType().NAME}; it "
                    "must be an int64 (or int32) vector of sizes, e.g. tf.constant([3, 4])"
                )
            if not out.shape().isCompatibleWith(Shape.of(-1)):
                raise IllegalArgumentError(
                    f"{kind}.call: dims '{out.name()}' has shape {out.shape()}; it must be a "
                    "vector of sizes (1-D), e.g. [3, 4]"
                )
            known = partialValue(out)
            if known is None or known.scalar:
                return out, Shape.unknown()
            if any(e is not None and e < 0 for e in known.entries):
                raise IllegalArgumentError(
                    f"{kind}.call: dims '{out.name()}' has a negative size: {list(known.entries)}"
                )
            return out, Shape.of(*(-1 if e is None else e for e in known.entries))
        if isinstance(dims, Shape):
            if not dims.isFullyKnown():
                raise IllegalArgumentError(
                    f"{kind}.call: dims {dims} has unknown sizes; give the shape's every size"
                )
            sizes = np.asarray(dims.asArray() or [], np.int64)
        else:
            sizes = self._sizes(dims)
        return const(tf, sizes), Shape.of(*sizes.tolist())

    def _sizes(self, dims: object) -> np.ndarray[Any, Any]:
        kind = type(self).__name__
        how = "a list of non-negative ints such as [3, 4], a Shape, or an int64 vector operand"
        if isinstance(dims, (str, bytes)) or not isinstance(dims, (Sequence, np.ndarray)):
            raise DataTypeError(
                f"{kind}.call: dims must be {how}, got {type(dims).__name__} {dims!r}"
            )
        array: np.ndarray[Any, Any] = np.asarray(cast("Sequence[Any]", dims))
        if array.ndim != 1 or not (
            array.size == 0 or np.issubdtype(cast("np.dtype[Any]", array.dtype), np.integer)
        ):
            raise DataTypeError(f"{kind}.call: dims must be {how}, got {dims!r}")
        if (array < 0).any():
            raise IllegalArgumentError(f"{kind}.call: dims {array.tolist()} has a negative size")
        return array.astype(np.int64)
