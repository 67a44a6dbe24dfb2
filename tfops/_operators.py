"""Python operators on operands (``x + y``, ``-x``, ``x < y``, ``x[1:, ::2]``), as TF Python's.

``Output`` and every single-output op class inherit :class:`Operators`: each operator builds
the op TF Python's operator builds (``Add``, ``Sub``, ``Mul``, ``RealDiv`` or ``Div``,
``FloorDiv``, ``FloorMod``, ``Pow``, ``MatMul``/``BatchMatMulV2``, ``Neg``, ``Abs``, ``Less``,
``LessEqual``, ``Greater``, ``GreaterEqual``, ``StridedSlice``) with the op class's own
``create``, in the root scope of the operand's graph. Python numbers and numpy arrays on either
side are converted as ``Constant`` converts them, a Python number taking the other operand's
data type. ``==``, ``!=`` and ``hash`` keep identity semantics; ``bool(x)``, ``iter(x)`` and
``np.asarray(x)`` raise a ``TypeError`` that says how to get a value.

This module imports nothing of the op classes (they import it, through ``tfops.output``): the
operators build through the table that ``tfops.op._operators`` installs when ``tfops`` is
imported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from types import EllipsisType
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from tfops.types import TFloat32, TFloat64, TFloating, TInt32, TInt64, TNumber, TType, TUint8

if TYPE_CHECKING:
    import numpy as np

    from tfops.op.core import StridedSlice
    from tfops.op.linalg import MatMul
    from tfops.op.math import (
        Abs,
        Add,
        FloorDiv,
        FloorMod,
        Greater,
        GreaterEqual,
        Less,
        LessEqual,
        Mul,
        Neg,
        Pow,
        RealDiv,
        Sub,
    )
    from tfops.output import Operand, Output

    Array = np.ndarray[Any, Any]

__all__ = ["Operators", "installOperators"]

T_co = TypeVar("T_co", bound=TType)  # invariant, despite the name: see tfops.op._typevars
T = TypeVar("T", bound=TType)
TN = TypeVar("TN", bound=TNumber)
TF = TypeVar("TF", bound=TFloating)

_Apply = Callable[..., Any]
_apply: _Apply | None = None


def installOperators(apply: _Apply) -> None:
    """Installs what builds an operator's op: ``apply(name, *operands)`` (``tfops.op``)."""
    global _apply
    _apply = apply


def _build(name: str, *operands: object) -> Any:
    apply = _apply
    if apply is None:  # pragma: no cover - tfops/__init__ installs it
        raise RuntimeError("tfops operators are not installed: import tfops first")
    return apply(name, *operands)


def _eagerValue(x: object) -> Array | None:
    """The value of ``x`` if it is a tensor of an ``EagerSession``, else None (a graph's)."""
    out = x.asOutput()  # type: ignore[attr-defined]
    if not out.op().graph().isEager():
        return None
    value: Array = out.asTensor()
    return value


_NO_VALUE = (
    "is a symbolic tensor of a graph, without a value until a session runs it; run it "
    "(Session(graph).runner().fetch(x).run()) and use the fetched numpy array"
)


class Operators(Generic[T_co]):
    """The Python operators of an operand whose data type is ``T_co`` (see the module)."""

    __slots__ = ()

    if TYPE_CHECKING:  # every operand has it (``Output`` and the op classes define it)

        def asOutput(self) -> Output[T_co]:
            """Returns the symbolic handle of the tensor."""
            ...

    # numpy defers to the reflected operators below (``np.ones(3) + x`` is ``x.__radd__``; type
    # checkers read it as numpy's own operator, so the reflected ones declare Python numbers)
    __array_ufunc__ = None

    # -- arithmetic --------------------------------------------------------------------------
    def __add__(self: Operators[TN], other: Operand[TN] | float | Array) -> Add[TN]:
        result: Add[TN] = _build("Add", self, other)
        return result

    def __radd__(self: Operators[TN], other: float) -> Add[TN]:
        result: Add[TN] = _build("Add", other, self)
        return result

    def __sub__(self: Operators[TN], other: Operand[TN] | float | Array) -> Sub[TN]:
        result: Sub[TN] = _build("Sub", self, other)
        return result

    def __rsub__(self: Operators[TN], other: float) -> Sub[TN]:
        result: Sub[TN] = _build("Sub", other, self)
        return result

    def __mul__(self: Operators[TN], other: Operand[TN] | float | Array) -> Mul[TN]:
        result: Mul[TN] = _build("Mul", self, other)
        return result

    def __rmul__(self: Operators[TN], other: float) -> Mul[TN]:
        result: Mul[TN] = _build("Mul", other, self)
        return result

    @overload
    def __truediv__(
        self: Operators[TInt32], other: Operand[TInt32] | int | Array
    ) -> RealDiv[TFloat64]: ...
    @overload
    def __truediv__(
        self: Operators[TInt64], other: Operand[TInt64] | int | Array
    ) -> RealDiv[TFloat64]: ...
    @overload
    def __truediv__(
        self: Operators[TUint8], other: Operand[TUint8] | int | Array
    ) -> RealDiv[TFloat32]: ...
    @overload
    def __truediv__(self: Operators[TF], other: Operand[TF] | float | Array) -> RealDiv[TF]: ...
    def __truediv__(self, other: Any) -> Any:
        """TF Python's true division: floats divide as they are (``RealDiv``); integers are
        cast to float64 (int32, int64) or float32 (uint8) first."""
        return _build("truediv", self, other)

    @overload
    def __rtruediv__(
        self: Operators[TInt32] | Operators[TInt64], other: int
    ) -> RealDiv[TFloat64]: ...
    @overload
    def __rtruediv__(self: Operators[TUint8], other: int) -> RealDiv[TFloat32]: ...
    @overload
    def __rtruediv__(self: Operators[TF], other: float) -> RealDiv[TF]: ...
    def __rtruediv__(self, other: Any) -> Any:
        return _build("truediv", other, self)

    def __floordiv__(self: Operators[TN], other: Operand[TN] | float | Array) -> FloorDiv[TN]:
        result: FloorDiv[TN] = _build("FloorDiv", self, other)
        return result

    def __rfloordiv__(self: Operators[TN], other: float) -> FloorDiv[TN]:
        result: FloorDiv[TN] = _build("FloorDiv", other, self)
        return result

    def __mod__(self: Operators[TN], other: Operand[TN] | float | Array) -> FloorMod[TN]:
        result: FloorMod[TN] = _build("FloorMod", self, other)
        return result

    def __rmod__(self: Operators[TN], other: float) -> FloorMod[TN]:
        result: FloorMod[TN] = _build("FloorMod", other, self)
        return result

    def __pow__(self: Operators[TN], other: Operand[TN] | float | Array) -> Pow[TN]:
        result: Pow[TN] = _build("Pow", self, other)
        return result

    def __rpow__(self: Operators[TN], other: float) -> Pow[TN]:
        result: Pow[TN] = _build("Pow", other, self)
        return result

    def __matmul__(self: Operators[TN], other: Operand[TN] | Array) -> MatMul[TN]:
        """``MatMul`` of two matrices; of batches of them (rank 3 or more), ``BatchMatMulV2``
        (as ``tf.matmul``), whose class is ``BatchMatMul``."""
        result: MatMul[TN] = _build("matmul", self, other)
        return result

    def __rmatmul__(self: Operators[TN], other: Sequence[Sequence[float]]) -> MatMul[TN]:
        result: MatMul[TN] = _build("matmul", other, self)
        return result

    def __neg__(self: Operators[TN]) -> Neg[TN]:
        result: Neg[TN] = _build("Neg", self)
        return result

    def __abs__(self: Operators[TN]) -> Abs[TN]:
        result: Abs[TN] = _build("Abs", self)
        return result

    # -- comparisons (== and != stay identity, as in TF Python's graph mode) -----------------
    def __lt__(self: Operators[TN], other: Operand[TN] | float | Array) -> Less:
        result: Less = _build("Less", self, other)
        return result

    def __le__(self: Operators[TN], other: Operand[TN] | float | Array) -> LessEqual:
        result: LessEqual = _build("LessEqual", self, other)
        return result

    def __gt__(self: Operators[TN], other: Operand[TN] | float | Array) -> Greater:
        result: Greater = _build("Greater", self, other)
        return result

    def __ge__(self: Operators[TN], other: Operand[TN] | float | Array) -> GreaterEqual:
        result: GreaterEqual = _build("GreaterEqual", self, other)
        return result

    # -- slicing -----------------------------------------------------------------------------
    def __getitem__(
        self: Operators[T],
        index: int | slice | None | EllipsisType | tuple[int | slice | None | EllipsisType, ...],
    ) -> StridedSlice[T]:
        """TF Python's slicing: ints, slices with steps, ``...``, ``None`` (a new axis),
        negative indices, as one ``StridedSlice``."""
        result: StridedSlice[T] = _build("getitem", self, index)
        return result

    # -- values: an eager tensor has one, a graph's symbolic tensor has none -----------------
    def __bool__(self) -> bool:
        """In eager mode, the truth value of the tensor's value (numpy's: one element only);
        a graph's tensor raises ``TypeError``."""
        value = _eagerValue(self)
        if value is None:
            raise TypeError(
                f"the truth value of {self!r} is unknown: it {_NO_VALUE}; in the graph, compare "
                "with tf.math.less/equal... and choose with tf.select"
            )
        return bool(value)

    def __iter__(self) -> Iterator[Any]:
        """In eager mode, ``x[0], x[1], ...`` along the first axis (as TF Python's eager
        tensors); a graph's tensor raises ``TypeError``."""
        value = _eagerValue(self)
        if value is None:
            raise TypeError(
                f"{self!r} is not iterable: it {_NO_VALUE}; in the graph, take parts with x[i] "
                "or tf.unstack"
            )
        if value.ndim == 0:
            raise TypeError(f"{self!r} is a scalar (shape []): it has no parts to iterate over")
        return (self[i] for i in range(len(value)))

    def __array__(self, dtype: object = None, copy: object = None) -> Array:
        """In eager mode, the tensor's value (``np.asarray(x)``); a graph's tensor raises
        ``TypeError``."""
        value = _eagerValue(self)
        if value is None:
            raise TypeError(f"{self!r} cannot be converted to a numpy array: it {_NO_VALUE}")
        if dtype is not None:
            return value.astype(dtype)  # type: ignore[call-overload, no-any-return]
        return value.copy() if copy else value

