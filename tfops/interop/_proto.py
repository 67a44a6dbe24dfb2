"""TensorFlow's protobuf schema, from the ``tensorboard`` package, loaded when first needed.

``tensorboard`` ships TensorFlow's ``.proto`` files compiled for the ``protobuf`` library
(``tensorboard.compat.proto``) without needing TensorFlow; it is the optional extra
``tfops-java[interop]``, so ``import tfops`` works without it.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any, final

from tfops.errors import MissingDependencyError

__all__ = ["Protos", "protos"]


@final
class Protos:
    """The generated message classes tfops reads and writes."""

    __slots__ = (
        "GraphDef",
        "NodeDef",
        "AttrValue",
        "TensorProto",
        "TensorShapeProto",
        "DataType",
        "DecodeError",
    )

    def __init__(self, modules: dict[str, ModuleType], decodeError: type[Exception]) -> None:
        self.GraphDef: Any = modules["graph_pb2"].GraphDef
        self.NodeDef: Any = modules["node_def_pb2"].NodeDef
        self.AttrValue: Any = modules["attr_value_pb2"].AttrValue
        self.TensorProto: Any = modules["tensor_pb2"].TensorProto
        self.TensorShapeProto: Any = modules["tensor_shape_pb2"].TensorShapeProto
        self.DataType: Any = modules["types_pb2"].DataType
        self.DecodeError = decodeError


_LOADED: list[Protos] = []


def protos() -> Protos:
    """The message classes; raises :class:`~tfops.errors.MissingDependencyError` (an
    ``ImportError``) saying how to install them when ``tensorboard`` or ``protobuf`` is
    missing."""
    if _LOADED:
        return _LOADED[0]
    names = (
        "graph_pb2",
        "node_def_pb2",
        "attr_value_pb2",
        "tensor_pb2",
        "tensor_shape_pb2",
        "types_pb2",
    )
    try:
        modules = {n: importlib.import_module(f"tensorboard.compat.proto.{n}") for n in names}
        decodeError: type[Exception] = importlib.import_module(
            "google.protobuf.message"
        ).DecodeError
    except ImportError as e:
        raise MissingDependencyError(
            f"reading and writing TensorFlow GraphDefs needs the packages 'tensorboard' and "
            f"'protobuf' ({e}); install them with: pip install 'tfops-java[interop]'"
        ) from e
    _LOADED.append(Protos(modules, decodeError))
    return _LOADED[0]
