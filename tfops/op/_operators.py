"""What the Python operators build (``tfops._operators``): each operator's op, made with its
class's ``create`` in the root scope of the operand's graph."""

from __future__ import annotations

from typing import Any

import numpy as np

from scope import Scope
from tfops._operators import installOperators
from tfops.errors import DataTypeError
from tfops.op.core import Constant, StridedSlice
from tfops.op.dtypes import Cast
from tfops.op.linalg import BatchMatMul, MatMul
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
from tfops.output import Output
from tfops.types import TFloat32, TFloat64, TFloating, TInt32, TInt64, TType, TUint8

__all__: list[str] = []

_CLASSES: dict[str, Any] = {
    "Add": Add, "Sub": Sub, "Mul": Mul, "FloorDiv": FloorDiv, "FloorMod": FloorMod, "Pow": Pow,
    "Neg": Neg, "Abs": Abs, "Less": Less, "LessEqual": LessEqual, "Greater": Greater,
    "GreaterEqual": GreaterEqual,
}

# TF Python's truediv: the float type each integer type is divided in
_TRUEDIV: dict[type[TType], type[TFloating]] = {TInt32: TFloat64, TInt64: TFloat64,
                                                 TUint8: TFloat32}


def _outputOf(value: object) -> Output[TType] | None:
    asOutput = getattr(value, "asOutput", None)
    if asOutput is None:
        return None
    out = asOutput()
    return out if isinstance(out, Output) else None


def _scopeOf(operands: tuple[object, ...]) -> Scope:
    """The root scope of the graph of the first operand that is an Operand."""
    for v in operands:
        out = _outputOf(v)
        if out is not None:
            return Scope(out.op().graph())
    raise DataTypeError(f"no operand among {operands!r}")  # pragma: no cover - Python's dispatch


def _apply(name: str, *operands: object) -> Any:
    scope = _scopeOf(operands)
    if name == "truediv":
        return _truediv(scope, operands[0], operands[1])
    if name == "matmul":
        return _matmul(scope, operands[0], operands[1])
    if name == "getitem":
        return _getitem(scope, operands[0], operands[1])
    return _CLASSES[name].create(scope, *operands)


def _truediv(scope: Scope, x: object, y: object) -> RealDiv[TFloating]:
    types = [o.dataType() for o in map(_outputOf, (x, y)) if o is not None]
    dtype = types[0]
    if any(t is not dtype for t in types):  # as TF Python, before any cast
        raise DataTypeError(
            f"{x!r} / {y!r}: x and y must have the same data type, got {dtype.NAME} != "
            f"{types[1].NAME}; cast one of them first (tf.dtypes.cast(y, {dtype.__name__}))"
        )
    target = _TRUEDIV.get(dtype)
    if target is None:  # a float type divides as it is; bool is refused by RealDiv
        return RealDiv.create(scope, x, y)  # type: ignore[arg-type]
    xs = Cast.create(scope, _asOperand(scope, x, dtype), target)
    ys = Cast.create(scope, _asOperand(scope, y, dtype), target)
    return RealDiv.create(scope, xs, ys)


def _asOperand(scope: Scope, value: object, dtype: type[TType]) -> Any:
    """``value`` itself when it is an operand, else a constant of ``dtype`` (converted as
    ``Constant`` converts, so ``x_int32 / 2.5`` is refused as TF refuses it)."""
    if _outputOf(value) is not None:
        return value
    return Constant.tensorOf(scope, value, dtype)  # type: ignore[call-overload]


def _matmul(scope: Scope, x: object, y: object) -> Any:
    ranks = [o.shape().numDimensions() for o in map(_outputOf, (x, y)) if o is not None]
    ranks += [np.ndim(v) for v in (x, y) if _outputOf(v) is None]  # type: ignore[arg-type]
    if all(0 <= r <= 2 for r in ranks):
        return MatMul.create(scope, x, y)  # type: ignore[arg-type]
    return BatchMatMul.create(scope, x, y)  # type: ignore[arg-type]


def _getitem(scope: Scope, x: object, index: object) -> StridedSlice[TType]:
    """``x[index]`` as TF Python's ``_slice_helper`` builds it: one StridedSlice."""
    spec = index if isinstance(index, tuple) else (index,)
    begin: list[int] = []
    end: list[int] = []
    strides: list[int] = []
    masks = {"begin": 0, "end": 0, "ellipsis": 0, "newAxis": 0, "shrink": 0}
    for i, s in enumerate(spec):
        bit = 1 << i
        if isinstance(s, slice):
            for part in (s.start, s.stop, s.step):
                _checkIndex(part, x, index, allowNone=True)
            if s.step == 0:
                raise _indexError(x, index, "a slice's step cannot be 0")
            begin.append(0 if s.start is None else int(s.start))
            end.append(0 if s.stop is None else int(s.stop))
            strides.append(1 if s.step is None else int(s.step))
            if s.start is None:
                masks["begin"] |= bit
            if s.stop is None:
                masks["end"] |= bit
        elif s is Ellipsis:
            if masks["ellipsis"]:
                raise _indexError(x, index, "an index can only have a single ellipsis ('...')")
            begin.append(0)
            end.append(0)
            strides.append(1)
            masks["ellipsis"] |= bit
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            masks["newAxis"] |= bit
        else:
            _checkIndex(s, x, index, allowNone=False)
            k = int(s)  # type: ignore[call-overload, unused-ignore]
            begin.append(k)
            end.append(k + 1)
            strides.append(1)
            masks["shrink"] |= bit
    return StridedSlice.create(
        scope, x, np.array(begin, np.int32), np.array(end, np.int32),  # type: ignore[arg-type]
        np.array(strides, np.int32), beginMask=masks["begin"], endMask=masks["end"],
        ellipsisMask=masks["ellipsis"], newAxisMask=masks["newAxis"],
        shrinkAxisMask=masks["shrink"],
    )


def _checkIndex(part: object, x: object, index: object, allowNone: bool) -> None:
    if part is None and allowNone:
        return
    if isinstance(part, bool) or not isinstance(part, (int, np.integer)):
        raise _indexError(
            x, index, f"{part!r} is not a valid index: only integers, slices (a:b:c), "
            "ellipsis (...) and None (a new axis) are; for a list or a tensor of indices use "
            "tf.gather"
        )


def _indexError(x: object, index: object, why: str) -> DataTypeError:
    return DataTypeError(f"StridedSlice of {x!r}[{index!r}]: {why}")


installOperators(_apply)
