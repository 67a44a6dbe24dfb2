"""Values where operands are expected: how a Python number, a (nested) list or a numpy value
becomes a ``Const`` (``toTensor``, ``toOperand``), with the data type TensorFlow gives it, and
the short way a scalar whose data type an operand fixes becomes one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias, Union, cast

import numpy as np

from scope import Scope
from tfops.errors import DataTypeError, IllegalArgumentError
from tfops.graph import Graph
from tfops.opdef import InputDef, OpDef
from tfops.operation import Operation, userSite
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.core import CONST
from tfops.types import (
    ALL_TYPES,
    TBool,
    TFloat32,
    TFloat64,
    TFloating,
    TInt32,
    TInt64,
    TIntegral,
    TType,
    dataTypeOf,
)

__all__ = [
    "TensorValue",
    "checkedOutput",
    "graphOf",
    "newConstant",
    "operandOf",
    "preferredTypes",
    "scalarValue",
    "toOperand",
    "toTensor",
]

TensorValue: TypeAlias = Union[
    float, int, bool, "np.ndarray[Any, Any]", "np.generic", "Sequence[Any]"
]
"""A value that becomes a ``Const`` where an operand is expected."""

_INT32 = np.iinfo(np.int32)
_INT64 = np.iinfo(np.int64)

_SUPPORTED = frozenset(t.DTYPE for t in ALL_TYPES)


def graphOf(scope: Scope, opType: str) -> Graph:
    env = scope.env()
    if not isinstance(env, Graph):
        raise IllegalArgumentError(
            f"{opType} (created at {userSite()}): the scope's environment is not a tfops Graph"
        )
    return env


def toTensor(
    value: object, dtype: type[TType] | None, *, what: str = "value"
) -> tuple[np.ndarray[Any, Any], type[TType]]:
    """Returns ``value`` as a read-only numpy array and its data type.

    Python floats become ``TFloat32``, ints ``TInt32`` (``TInt64`` when too large), bools
    ``TBool``; numpy arrays and scalars keep their dtype. With ``dtype`` given, Python values are
    converted to it when that loses nothing (an int to a float type, not a float to an int type),
    numpy values when numpy's ``same_kind`` casting allows it.
    """
    if isinstance(value, (np.ndarray, np.generic)):
        arr = np.asarray(value)
        owned = not isinstance(value, np.ndarray)  # a scalar's array is new memory
        if arr.dtype.kind not in "biuf" or arr.dtype not in _SUPPORTED:
            names = ", ".join(t.NAME for t in ALL_TYPES)
            raise DataTypeError(
                f"{what} has numpy dtype {arr.dtype}, which tfops does not support ({names})"
            )
        if dtype is not None and arr.dtype != dtype.DTYPE:
            if not np.can_cast(arr.dtype, dtype.DTYPE, casting="same_kind"):
                raise DataTypeError(
                    f"{what} of numpy dtype {arr.dtype} cannot be converted to {dtype.NAME}"
                )
            arr = arr.astype(dtype.DTYPE)
            owned = True
        # always memory of its own: a user's array, even a read-only one, can be written (or
        # made writeable) after the op is built
        result = arr if owned else arr.copy()
        result.flags.writeable = False
        return result, dtype if dtype is not None else dataTypeOf(arr.dtype)
    try:
        raw = np.asarray(value)
    except ValueError as e:  # ragged nested lists
        raise IllegalArgumentError(f"{what} is not a rectangular array: {e}") from None
    kind = raw.dtype.kind
    if raw.size == 0:  # an empty list has no element type of its own: take the one asked for
        dtype = dtype if dtype is not None else TFloat32
        empty = np.zeros(raw.shape, dtype.DTYPE)
        empty.flags.writeable = False
        return empty, dtype
    if kind == "u" and raw.dtype.itemsize == 8 and dtype is None:  # beyond int64: numpy made it
        raise DataTypeError(f"{what} {value!r} is out of range for int64")  # uint64
    if kind not in "biuf":
        if kind == "O" and all(isinstance(v, int) for v in raw.flat):  # ints beyond uint64
            target = dtype.NAME if dtype is not None else "int64"
            raise DataTypeError(f"{what} {value!r} is out of range for {target}")
        raise DataTypeError(
            f"{what} {value!r} is not a number, a bool or a (nested) sequence of them"
        )
    if dtype is None:
        if kind == "b":
            dtype = TBool
        elif kind == "f":
            dtype = TFloat32
        else:
            fits = raw.size == 0 or (_INT32.min <= raw.min() and raw.max() <= _INT32.max)
            dtype = TInt32 if fits else TInt64
    elif kind == "b" and dtype is not TBool or kind != "b" and dtype is TBool:
        raise DataTypeError(f"{what} {value!r} cannot be converted to {dtype.NAME}")
    elif kind == "f" and not issubclass(dtype, TFloating):
        raise DataTypeError(f"{what} {value!r} is not an integer and cannot be {dtype.NAME}")
    elif kind in "iu" and issubclass(dtype, TIntegral):
        info = np.iinfo(dtype.DTYPE.name)
        if raw.size and (raw.min() < info.min or raw.max() > info.max):
            raise DataTypeError(f"{what} {value!r} is out of range for {dtype.NAME}")
    with np.errstate(over="ignore"):  # a value beyond a float type's range is inf, as in TF
        arr = raw.astype(dtype.DTYPE)
    arr.flags.writeable = False
    return arr, dtype


def toOperand(
    scope: Scope, value: object, preferred: type[TType] | None = None, what: str = "value"
) -> Output[TType]:
    """``value`` as an output: an operand's own, or a new ``Const`` in ``scope`` for a value
    (call inside a transaction of the scope's graph)."""
    return operandOf(scope, value, preferred, what)


def operandOf(
    scope: Scope, value: object, preferred: type[TType] | None, what: str
) -> Output[TType]:
    asOutput = getattr(value, "asOutput", None)
    if asOutput is not None:
        return checkedOutput(value, asOutput(), what)
    if value is None:
        raise DataTypeError(
            f"{what}: None is not an Operand or a tensor value (at {userSite()}); if it is a "
            "gradient (dy(i)), the x it is for does not reach y: pass "
            'Gradients.unconnectedGradients("zero") to tf.gradients for zeros instead'
        )
    if type(value).__qualname__.endswith(".Options"):
        owner = type(value).__qualname__.rsplit(".", 1)[0]
        raise DataTypeError(
            f"{what}: {value!r} is an option of {owner}, not an operand (at {userSite()}); "
            f"pass options when the op is created: tf.<op>(inputs..., {owner}.<option>(v)), "
            "not chained on the op afterwards"
        )
    if isinstance(value, (Operation, str)):
        raise DataTypeError(f"{what}: {value!r} is not an Operand or a tensor value")
    if isinstance(value, (np.ndarray, np.generic)):
        preferred = None  # numpy values keep their dtype
    arr, dtype = toTensor(value, preferred, what=what)
    return _constant(scope, arr, dtype)


def checkedOutput(value: object, out: object, what: str) -> Output[TType]:
    """``out``, what ``value.asOutput()`` returned, if it is an ``Output``."""
    if not isinstance(out, Output):
        raise DataTypeError(
            f"{what}: {value!r} is not an Operand: its asOutput() returned {out!r}, not an "
            "Output (an operand's asOutput() must return the Output it stands for)"
        )
    return out


def _constant(scope: Scope, value: np.ndarray[Any, Any], dtype: type[TType]) -> Output[TType]:
    """A new ``Const`` for a value :func:`toTensor` converted, in the scope's sub-scope but never
    under the name the scope gives its next op (that name is the op's, not its converted
    inputs'). Called inside the transaction of the op it is an input of, whose site it takes.

    The value and its data type are already what the ``Const`` spec asks for, and its shape is
    the value's: the operation is made directly, without the builder's checks of them.
    """
    graph = graphOf(scope, "Const")
    return newConstant(graph, scope, value, dtype, graph._txSite)


def newConstant(
    graph: Graph, scope: Scope, value: np.ndarray[Any, Any], dtype: type[TType], site: str
) -> Output[TType]:
    """:func:`_constant` in ``graph``, the scope's environment, for the construction at ``site``."""
    if scope._opName is not None:
        scope = scope._atPrefix(scope._prefix)
    op = Operation(
        graph,
        scope.makeOpName("Const"),
        CONST,
        (),
        scope._controls,
        {"value": value, "dtype": dtype},
        scope._device,
        (dtype,),
        (_SCALAR if not value.ndim else Shape.of(*value.shape),),
        site,
    )
    graph._add(op, True)
    return op.output(0)


_SCALAR = Shape.scalar()

_NUMPY_SCALARS: dict[type, type[TType]] = {t.DTYPE.type: t for t in ALL_TYPES}
"""The data type of each numpy scalar type tfops supports (``np.float64`` -> ``TFloat64``)."""

_FLOAT32_MAX = float(np.finfo(np.float32).max)


def scalarValue(
    value: object, arg: InputDef, specs: Sequence[InputDef], inputs: Sequence[object]
) -> tuple[np.ndarray[Any, Any], type[TType]] | None:
    """A scalar input as :func:`toTensor` converts it, done directly, or ``None`` for the
    general conversion: a numpy scalar of a supported type (it keeps its dtype); a Python float
    or int whose data type an operand given for the same type attribute fixes (or the input's
    own fixed type), when the conversion is exact or rounds as numpy's cast does."""
    kind = type(value)
    dtype = _NUMPY_SCALARS.get(kind)
    if dtype is not None:
        arr = np.array(value)
        arr.setflags(write=False)
        return arr, dtype
    if kind is not float and kind is not int:
        return None
    dtype = arg.dtype
    if dtype is None:
        typeAttr = arg.typeAttr
        for spec, other in zip(specs, inputs, strict=False):
            if spec.typeAttr == typeAttr:
                if type(other) is Output:
                    dtype = other._dtype  # the first operand of the type attribute fixes it
                    break
                if spec.isList or type(other) is not float and type(other) is not int:
                    return None  # an op class, a numpy value... : _preferredTypes decides
        if dtype is None:
            return None  # Python values only: the first one's type is the op's
    number = cast("float", value)
    if dtype is TFloat64:
        fits = kind is float or -(2**53) <= number <= 2**53
    elif dtype is TFloat32:
        limit = _FLOAT32_MAX if kind is float else 2**24
        fits = -limit <= number <= limit
    elif dtype is TInt32 or dtype is TInt64:
        info = _INT32 if dtype is TInt32 else _INT64
        fits = kind is int and info.min <= number <= info.max
    else:
        return None
    if not fits:
        return None  # an int to a float type (rounding), a float out of range or NaN, ...
    arr = np.array(value, dtype.DTYPE)
    arr.setflags(write=False)
    return arr, dtype


def preferredTypes(
    opdef: OpDef, inputs: Sequence[object], attrs: Mapping[str, object]
) -> dict[str, type[TType]]:
    bound: dict[str, type[TType]] = {}
    for spec, value in zip(opdef.inputs, inputs, strict=False):
        if spec.typeAttr is None or spec.typeAttr in bound:
            continue
        for v in value if spec.isList and isinstance(value, (list, tuple)) else [value]:
            asOutput = getattr(v, "asOutput", None)
            if asOutput is not None:
                out = asOutput()
                if isinstance(out, Output):  # anything else is reported where it is converted
                    bound[spec.typeAttr] = out.dataType()
                    break
                continue
            if isinstance(v, (np.ndarray, np.generic)) and v.dtype in _SUPPORTED:
                # (an unsupported dtype is reported, naming the op, where it is converted)
                bound[spec.typeAttr] = dataTypeOf(v.dtype)
                break
    for spec, value in zip(opdef.inputs, inputs, strict=False):
        # no operand fixes the type: the first Python value does, as TensorFlow Python converts
        # inputs in order (add(1.5, 2) is float32)
        if spec.typeAttr is None or spec.typeAttr in bound or spec.typeAttr in attrs:
            continue
        first = value[0] if spec.isList and isinstance(value, (list, tuple)) and value else value
        if not hasattr(first, "asOutput") and not isinstance(first, (list, tuple)):
            try:
                bound[spec.typeAttr] = toTensor(first, None)[1]
            except (TypeError, ValueError):
                continue  # the conversion error is reported where the input is converted
    for a in opdef.attrs:
        given = attrs.get(a.name)
        if a.kind == "type" and a.name not in bound:
            if isinstance(given, type) and issubclass(given, TType):
                bound[a.name] = given
            elif isinstance(a.default, type) and issubclass(a.default, TType):
                bound[a.name] = a.default
    return bound
