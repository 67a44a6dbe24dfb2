"""Symbolic handles of tensors: ``Output``, the ``Operand`` protocol and ``PrimitiveOp``."""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Any,
    Generic,
    Protocol,
    TypeAlias,
    TypeVar,
    Union,
    runtime_checkable,
)

from attrs import frozen

from tfops._operators import Operators
from tfops.errors import IllegalStateError
from tfops.shape import Shape
from tfops.types import (
    TBool,
    TFloat16,
    TFloat32,
    TFloat64,
    TFloating,
    TInt32,
    TInt64,
    TIntegral,
    TNumber,
    TType,
    TUint8,
)

if TYPE_CHECKING:
    import numpy as np

    from tfops.operation import Operation

__all__ = ["Output", "Operand", "PrimitiveOp"]

T_co = TypeVar("T_co", bound=TType)  # invariant, despite the name: see tfops.op._typevars


@frozen(repr=False, eq=False)
class Output(Operators[T_co], Generic[T_co]):
    """A symbolic handle to the ``index``-th tensor produced by an operation, with the data
    type and static shape the op was created with.

    Outputs are values: two handles to the same output of the same operation are equal.

    Example:
        >>> from tfops import Graph, Ops
        >>> from tfops.types import TFloat32
        >>> with Graph() as g:
        ...     x = Ops.create(g).constant([1.0, 2.0]).asOutput()
        ...     x.name(), x.dataType() is TFloat32, x.shape()
        ('Const:0', True, Shape.of(2))
    """

    _op: Operation
    _index: int
    _dtype: type[T_co]
    _shape: Shape

    def op(self) -> Operation:
        """Returns the operation that produces this output."""
        return self._op

    def index(self) -> int:
        """Returns the position of this output among its operation's outputs."""
        return self._index

    def shape(self) -> Shape:
        """Returns the static shape, as inferred at construction."""
        return self._shape

    def dataType(self) -> type[T_co]:
        """Returns the data type class (``TFloat32``...)."""
        return self._dtype

    def asOutput(self) -> Output[T_co]:
        """Returns this output (every ``Operand`` has ``asOutput``)."""
        return self

    def name(self) -> str:
        """Returns ``"op_name:index"``."""
        return f"{self._op.name()}:{self._index}"

    def consumers(self) -> list[Operation]:
        """Returns the operations that take this output as an input."""
        return [c for c in self._op.consumers() if self in c.inputs()]

    def asTensor(self) -> np.ndarray[Any, Any]:
        """Returns the value of this tensor, in eager mode (a read-only numpy array).

        Raises:
            IllegalStateError: this is a tensor of a graph (run it in a ``Session``), or its
                ``EagerSession`` is closed.

        Example:
            >>> from tfops import EagerSession, Ops
            >>> with EagerSession() as s:
            ...     Ops.create(s).constant([1.0, 2.0]).asOutput().asTensor().tolist()
            [1.0, 2.0]
        """
        return self._op._tensor(self._index)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Output) and self._index == other._index and self._op == other._op
        )

    def __hash__(self) -> int:
        return self._op._hash + self._index

    def __repr__(self) -> str:
        return f"<Output '{self.name()}' shape={self.shape()} dtype={self.dataType().NAME}>"


@runtime_checkable
class Operand(Protocol[T_co]):
    """Anything that can be an op's input: an ``Output``, or an op class with one output."""

    def asOutput(self) -> Output[T_co]:
        """Returns the symbolic handle of the tensor."""
        ...


AnyOperand: TypeAlias = Union[
    "Operand[TFloat16]", "Operand[TFloat32]", "Operand[TFloat64]", "Operand[TInt32]",
    "Operand[TInt64]", "Operand[TUint8]", "Operand[TBool]", "Operand[TFloating]",
    "Operand[TIntegral]", "Operand[TNumber]", "Operand[TType]",
]
"""An operand of some one data type (Java's ``Operand<?>``): what a list or dict of operands of
several data types holds. ``Operand`` is invariant in its type, so no one ``Operand[X]`` is."""


class PrimitiveOp:
    """Base of every op class: wraps one :class:`~tfops.Operation`.

    Op classes are compared and hashed by their operation; ``repr`` shows type and name.

    Args:
        operation: the operation this instance wraps.
    """

    __slots__ = ("_operation",)

    def __init__(self, operation: Operation) -> None:
        self._operation = operation

    def op(self) -> Operation:
        """Returns the underlying operation."""
        return self._operation

    def asTensor(self) -> np.ndarray[Any, Any]:
        """Returns the value of the op's output, in eager mode (a read-only numpy array); an op
        with several outputs names the one to read (``op.y().asTensor()``).

        Raises:
            IllegalStateError: the op is in a graph (run it in a ``Session``), or its
                ``EagerSession`` is closed.
        """
        op = self._operation
        if op.numOutputs() == 0:
            raise IllegalStateError(f"{self!r} has no outputs, so no value to give")
        if op.numOutputs() != 1:
            raise IllegalStateError(
                f"{self!r} has {op.numOutputs()} outputs: take the value of one of them "
                "(op.output(i).asTensor(), or the op class's accessor's asTensor())"
            )
        return op._tensor(0)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PrimitiveOp) and self._operation == other._operation

    def __hash__(self) -> int:
        return hash(self._operation)

    def __repr__(self) -> str:
        return f"<{self._operation.type()} '{self._operation.name()}'>"
