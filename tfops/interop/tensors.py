"""Values in TensorFlow's protobuf form: data types, shapes and tensors (``TensorProto``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfops.errors import DataTypeError, IllegalArgumentError
from tfops.interop._proto import protos
from tfops.shape import Shape
from tfops.types import (
    TBool,
    TFloat16,
    TFloat32,
    TFloat64,
    TInt32,
    TInt64,
    TType,
    TUint8,
)

__all__ = [
    "dataTypeEnum",
    "dataTypeOfEnum",
    "shapeFromProto",
    "shapeToProto",
    "tensorFromProto",
    "tensorToProto",
]

_ENUM_NAMES: dict[type[TType], str] = {
    TFloat16: "DT_HALF",
    TFloat32: "DT_FLOAT",
    TFloat64: "DT_DOUBLE",
    TInt32: "DT_INT32",
    TInt64: "DT_INT64",
    TUint8: "DT_UINT8",
    TBool: "DT_BOOL",
}
_BY_ENUM_NAME = {name: t for t, name in _ENUM_NAMES.items()}

# the repeated field of a TensorProto that holds the values of a data type, when they are not
# in ``tensor_content`` (half precision values are their 16 bits, in ``half_val``)
_VALUE_FIELDS: dict[type[TType], str] = {
    TFloat16: "half_val",
    TFloat32: "float_val",
    TFloat64: "double_val",
    TInt32: "int_val",
    TInt64: "int64_val",
    TUint8: "int_val",
    TBool: "bool_val",
}


def dataTypeEnum(dtype: type[TType]) -> int:
    """TensorFlow's ``DataType`` enum value of a tfops data type."""
    return int(protos().DataType.Value(_ENUM_NAMES[dtype]))


def dataTypeOfEnum(value: int, where: str) -> type[TType]:
    """The tfops data type of a ``DataType`` enum value; ``where`` names the attribute or
    tensor for the error when tfops has no such type."""
    enum = protos().DataType
    try:
        name = enum.Name(value)
    except ValueError:
        name = f"DataType {value}"
    found = _BY_ENUM_NAME.get(name)
    if found is None:
        supported = ", ".join(f"{n} ({t.NAME})" for t, n in _ENUM_NAMES.items())
        raise DataTypeError(
            f"{where} has data type {name}, which tfops does not have (tfops has {supported})"
        )
    return found


def shapeToProto(shape: Shape) -> Any:
    """A ``TensorShapeProto`` of ``shape`` (unknown rank: ``unknown_rank``; -1: unknown)."""
    proto = protos().TensorShapeProto()
    dims = shape.asArray()
    if dims is None:
        proto.unknown_rank = True
    else:
        for d in dims:
            proto.dim.add().size = d
    return proto


def shapeFromProto(proto: Any, where: str) -> Shape:
    """The ``Shape`` a ``TensorShapeProto`` states."""
    if proto.unknown_rank:
        return Shape.unknown()
    dims = [int(d.size) for d in proto.dim]
    if any(d < -1 for d in dims):
        raise IllegalArgumentError(f"{where} has an invalid shape {dims} (sizes are >= -1)")
    return Shape.fromIterable(dims)


def tensorToProto(value: np.ndarray[Any, Any], dtype: type[TType]) -> Any:
    """A ``TensorProto`` of ``value``: its bytes, little-endian, in ``tensor_content``."""
    proto = protos().TensorProto()
    proto.dtype = dataTypeEnum(dtype)
    proto.tensor_shape.CopyFrom(shapeToProto(Shape.fromIterable(value.shape)))
    proto.tensor_content = np.ascontiguousarray(value, _wire(dtype)).tobytes()
    return proto


def tensorFromProto(proto: Any, where: str) -> np.ndarray[Any, Any]:
    """The array a ``TensorProto`` holds, read-only: from ``tensor_content``, else from the
    typed value field, whose last value repeats to fill the shape (as TensorFlow reads it).
    """
    dtype = dataTypeOfEnum(int(proto.dtype), where)
    shape = shapeFromProto(proto.tensor_shape, where)
    dims = shape.asArray()
    if dims is None or -1 in dims:
        raise IllegalArgumentError(f"{where}: a tensor value must have a known shape, got {shape}")
    count = int(np.prod(dims, dtype=np.int64))
    if proto.tensor_content:
        wire = _wire(dtype)
        if len(proto.tensor_content) != count * wire.itemsize:
            raise IllegalArgumentError(
                f"{where}: tensor_content holds {len(proto.tensor_content)} bytes, but a "
                f"{dtype.NAME} tensor of shape {list(dims)} needs {count * wire.itemsize}"
            )
        flat = np.frombuffer(proto.tensor_content, wire).astype(dtype.DTYPE)
    else:
        values = list(getattr(proto, _VALUE_FIELDS[dtype]))
        if len(values) > count:
            raise IllegalArgumentError(
                f"{where}: {len(values)} values for a tensor of shape {list(dims)} ({count} "
                "elements)"
            )
        try:
            raw = (
                np.frombuffer(np.array(values, np.uint16).tobytes(), np.float16)
                if dtype is TFloat16
                else np.array(values, dtype.DTYPE)
            )
        except OverflowError:
            raise IllegalArgumentError(
                f"{where}: a value is out of range for {dtype.NAME}: {values}"
            ) from None
        if not len(raw):
            flat = np.zeros(count, dtype.DTYPE)
        else:
            flat = np.concatenate([raw, np.repeat(raw[-1:], count - len(raw))])
    array = np.reshape(flat, dims)
    array.flags.writeable = False
    return array


def _wire(dtype: type[TType]) -> np.dtype[Any]:
    """The little-endian dtype of ``dtype``: how a ``TensorProto`` lays out its bytes."""
    dt: np.dtype[Any] = dtype.DTYPE
    return np.dtype(f"<{dt.kind}{dt.itemsize}")
