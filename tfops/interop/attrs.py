"""Attributes in TensorFlow's ``AttrValue`` form, and where TensorFlow's op definitions differ
from tfops' specs.

Every tfops attribute is TensorFlow's (same name, same kind), so one rule per attribute kind
converts them. The tables below list the few places where an op's TensorFlow definition and its
tfops spec differ; ``tests/test_graphdef_tf.py`` derives them from TensorFlow 2.21's op registry
and checks that they are exactly these.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfops.errors import DataTypeError, IllegalArgumentError
from tfops.interop._proto import protos
from tfops.interop.tensors import (
    dataTypeEnum,
    dataTypeOfEnum,
    shapeFromProto,
    shapeToProto,
    tensorFromProto,
    tensorToProto,
)
from tfops.opdef import AttrKind, OpDef
from tfops.shape import Shape
from tfops.types import TType, dataTypeOf

__all__ = [
    "TF_ONLY_AT_DEFAULT",
    "TF_ONLY_HINTS",
    "TF_TYPE_LISTS",
    "TFOPS_ONLY",
    "attrFromProto",
    "attrKind",
    "attrToProto",
    "checkTypeList",
]

TF_ONLY_HINTS: dict[str, frozenset[str]] = {
    "MatMul": frozenset({"grad_a", "grad_b"}),
    "BatchMatMulV2": frozenset({"grad_x", "grad_y"}),
}
"""Attributes of TensorFlow's definition that tfops' spec lacks and that change no value (they
mark a matrix product that a gradient made): not written, and ignored when read."""

TF_ONLY_AT_DEFAULT: dict[str, dict[str, tuple[AttrKind, object]]] = {
    "Equal": {"incompatible_shape_error": ("bool", True)},
    "VariableV2": {"container": ("string", ""), "shared_name": ("string", "")},
}
"""Attributes of TensorFlow's definition that tfops' spec lacks, with their kind and TensorFlow's
default, the one value tfops implements: not written (TensorFlow fills in the default), and read
only when they hold it."""

TFOPS_ONLY: dict[str, frozenset[str]] = {
    "All": frozenset({"T"}),
    "Any": frozenset({"T"}),
    "Assert": frozenset({"N"}),
}
"""Attributes tfops keeps on an op that TensorFlow's definition lacks (each is determined by the
op's inputs, so the builder works it out again when the op is read): not written."""

TF_TYPE_LISTS: dict[str, dict[str, str]] = {"Assert": {"T": "data"}}
"""TensorFlow attributes that list the data types of a list input (attribute -> input), which
tfops works out from the inputs: written from the inputs, checked against them when read."""

_ONEOF: dict[str, str] = {
    "type": "type",
    "bool": "b",
    "int": "i",
    "float": "f",
    "string": "s",
    "shape": "shape",
    "tensor": "tensor",
    "list(int)": "list",
    "list(type)": "list",
}


def attrKind(opdef: OpDef, name: str) -> AttrKind | None:
    """The kind of attribute ``name`` of ``opdef`` (``N``, the length of a list input that the
    builder records, is an int), or ``None`` when the spec has no such attribute."""
    found = opdef.attrDef(name)
    if found is not None:
        return found.kind
    if name == "N" and any(i.isList for i in opdef.inputs):
        return "int"
    return None


def attrToProto(kind: str, value: Any) -> Any:
    """The ``AttrValue`` of a tfops attribute of ``kind``."""
    proto = protos().AttrValue()
    if kind == "type":
        proto.type = dataTypeEnum(value)
    elif kind == "bool":
        proto.b = bool(value)
    elif kind == "int":
        proto.i = int(value)
    elif kind == "float":
        proto.f = float(value)
    elif kind == "string":
        proto.s = str(value).encode("utf-8")
    elif kind == "shape":
        assert isinstance(value, Shape)
        proto.shape.CopyFrom(shapeToProto(value))
    elif kind == "tensor":
        array = np.asarray(value)
        proto.tensor.CopyFrom(tensorToProto(array, dataTypeOf(array.dtype)))
    elif kind == "list(int)":
        proto.list.i.extend(int(v) for v in value)
    elif kind == "list(type)":
        proto.list.type.extend(dataTypeEnum(t) for t in value)
    else:
        raise AssertionError(f"no AttrValue form for attribute kind {kind!r}")
    return proto


def attrFromProto(kind: str, proto: Any, where: str) -> object:
    """The tfops value of an ``AttrValue`` that must be of ``kind``; ``where`` names the
    attribute (``attribute 'T' of node 'x' (Exp)``) for the errors."""
    field = proto.WhichOneof("value")
    expected = _ONEOF[kind]
    if field != expected and not (expected == "list" and field is None):
        raise IllegalArgumentError(
            f"{where} holds {_describe(field)}, but the op's definition makes it a {kind}"
        )
    if kind == "type":
        return dataTypeOfEnum(int(proto.type), where)
    if kind == "bool":
        return bool(proto.b)
    if kind == "int":
        return int(proto.i)
    if kind == "float":
        return float(proto.f)
    if kind == "string":
        try:
            return bytes(proto.s).decode("utf-8")
        except UnicodeDecodeError:
            raise IllegalArgumentError(f"{where} is not UTF-8 text: {proto.s!r}") from None
    if kind == "shape":
        return shapeFromProto(proto.shape, where)
    if kind == "tensor":
        return tensorFromProto(proto.tensor, where)
    if kind == "list(int)":
        if len(proto.list.i) != _listLength(proto):
            raise IllegalArgumentError(f"{where} must be a list of ints, got {_listKinds(proto)}")
        return tuple(int(v) for v in proto.list.i)
    if kind == "list(type)":
        if len(proto.list.type) != _listLength(proto):
            raise IllegalArgumentError(
                f"{where} must be a list of data types, got {_listKinds(proto)}"
            )
        return tuple(dataTypeOfEnum(int(t), f"{where}[{n}]") for n, t in enumerate(proto.list.type))
    raise AssertionError(f"no AttrValue form for attribute kind {kind!r}")


def checkTypeList(declared: tuple[type[TType], ...], inputs: list[type[TType]], where: str) -> None:
    """Checks that a TensorFlow type-list attribute read from a GraphDef states the data types
    of the inputs it describes."""
    if list(declared) != inputs:
        raise DataTypeError(
            f"{where} lists the data types [{', '.join(t.NAME for t in declared)}], but the "
            f"inputs it describes are [{', '.join(t.NAME for t in inputs)}]"
        )


_LIST_FIELDS = ("s", "i", "f", "b", "type", "shape", "tensor", "func")


def _listLength(proto: Any) -> int:
    return sum(len(getattr(proto.list, f)) for f in _LIST_FIELDS)


def _listKinds(proto: Any) -> str:
    kinds = [f for f in _LIST_FIELDS if len(getattr(proto.list, f))]
    return "a list of " + " and ".join(kinds)


def _describe(field: str | None) -> str:
    names = {
        "type": "a data type",
        "b": "a bool",
        "i": "an int",
        "f": "a float",
        "s": "a string",
        "shape": "a shape",
        "tensor": "a tensor",
        "list": "a list",
        "func": "a function",
        "placeholder": "a placeholder",
        None: "no value",
    }
    return names.get(field, field or "no value")
