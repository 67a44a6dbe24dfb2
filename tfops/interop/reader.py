"""Reading a ``GraphDef``: parsing the bytes, ordering the nodes, building each as an op."""

from __future__ import annotations

import heapq
import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from tfops.builder import OperationBuilder
from tfops.errors import IllegalArgumentError
from tfops.interop._proto import protos
from tfops.interop.attrs import (
    TF_ONLY_AT_DEFAULT,
    TF_ONLY_HINTS,
    TF_TYPE_LISTS,
    attrFromProto,
    attrKind,
    checkTypeList,
)
from tfops.opdef import InputDef, OpDef
from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TType

if TYPE_CHECKING:
    from tfops.graph import Graph

__all__ = ["NodeReader", "inputGroups", "listTypes", "parseGraphDef", "topologicalOrder"]


def parseGraphDef(data: bytes) -> Any:
    """The ``GraphDef`` message in ``data``.

    Raises:
        ValueError: ``data`` is not a serialized ``GraphDef`` (corrupt, truncated, another
            message).
    """
    p = protos()
    graphDef = p.GraphDef()
    try:
        graphDef.ParseFromString(data)
    except p.DecodeError as e:
        raise IllegalArgumentError(
            f"the {len(data)} bytes given are not a serialized TensorFlow GraphDef ({e}): the "
            "file is corrupt or truncated, or holds another kind of data"
        ) from None
    unknownFields = importlib.import_module("google.protobuf.unknown_fields").UnknownFieldSet
    for message, what in [
        (graphDef, "the GraphDef"),
        *((n, f"node '{n.name}'") for n in graphDef.node),
    ]:
        if len(unknownFields(message)):
            raise IllegalArgumentError(
                f"the {len(data)} bytes given are not a serialized TensorFlow GraphDef: "
                f"{what} has fields a GraphDef does not have (the file is corrupt or holds "
                "another kind of data)"
            )
    return graphDef


def _source(ref: str) -> tuple[str, int, bool]:
    """``(node name, output index, is a control input)`` of a NodeDef input string."""
    if ref.startswith("^"):
        return ref[1:], -1, True
    name, colon, index = ref.rpartition(":")
    if colon and index.isdigit():
        return name, int(index), False
    return ref, 0, False


def topologicalOrder(nodes: list[Any]) -> list[Any]:
    """The nodes, each after those it reads (GraphDefs need not list them so).

    Raises:
        ValueError: an input names no node of the GraphDef, or the nodes form a cycle.
    """
    byName = {n.name: n for n in nodes}
    pending: dict[str, int] = {}
    readers: dict[str, list[Any]] = {n.name: [] for n in nodes}
    for node in nodes:
        sources = {_source(ref)[0] for ref in node.input}
        for source in sources:
            if source not in byName:
                raise IllegalArgumentError(
                    f"node '{node.name}' ({node.op}) reads '{source}', which is not a node of "
                    "the GraphDef (the file is truncated, or the graph was cut)"
                )
            readers[source].append(node)
        pending[node.name] = len(sources)
    # the ready node listed first goes first: a GraphDef already in order keeps its order
    position = {n.name: k for k, n in enumerate(nodes)}
    ready = [(position[n.name], n.name) for n in nodes if pending[n.name] == 0]
    heapq.heapify(ready)
    order: list[Any] = []
    while ready:
        node = byName[heapq.heappop(ready)[1]]
        order.append(node)
        for reader in readers[node.name]:
            pending[reader.name] -= 1
            if pending[reader.name] == 0:
                heapq.heappush(ready, (position[reader.name], reader.name))
    if len(order) < len(nodes):
        cycle = [n.name for n in nodes if pending[n.name] > 0]
        raise IllegalArgumentError(
            f"the GraphDef's nodes {cycle[:8]} read each other in a cycle; tfops graphs have no "
            "loops"
        )
    return order


def inputGroups(
    opdef: OpDef, count: int, listLength: int | None = None
) -> list[tuple[InputDef, int, int]]:
    """Each input of ``opdef`` with where its tensors start among ``count`` flat inputs and how
    many there are: one for a single tensor; for a list input, the rest when it is the only
    one, else ``listLength`` (TensorFlow's attribute ``N``, the length that several list
    inputs share: DynamicStitch's ``indices`` and ``data``).

    Raises:
        ValueError: ``count`` does not fit the single inputs and the lists.
    """
    singles = sum(1 for i in opdef.inputs if not i.isList)
    lists = len(opdef.inputs) - singles
    names = ", ".join(i.name for i in opdef.inputs) or "none"
    if lists > 1:
        if listLength is None:
            raise IllegalArgumentError(
                f"{opdef.type} has {lists} list inputs ({names}) whose length is the attribute "
                "N, which the node lacks; give the node its N (TensorFlow writes it)"
            )
        if listLength < 1 or count != singles + lists * listLength:
            raise IllegalArgumentError(
                f"{opdef.type} takes {singles} single input(s) and {lists} lists of N = "
                f"{listLength} tensor(s) each ({names}), got {count} data input(s)"
            )
    elif count < singles or (lists == 0 and count != singles):
        raise IllegalArgumentError(
            f"{opdef.type} takes {singles} single input(s){' and a list' if lists else ''} "
            f"({names}), got {count} data input(s)"
        )
    groups: list[tuple[InputDef, int, int]] = []
    start = 0
    for spec in opdef.inputs:
        n = (count - singles if lists == 1 else cast(int, listLength)) if spec.isList else 1
        groups.append((spec, start, n))
        start += n
    return groups


def listTypes(
    opdef: OpDef, inputs: Sequence[Output[TType]], inputName: str, listLength: int | None = None
) -> list[type[TType]]:
    """The data types of the tensors of list input ``inputName`` among ``inputs`` (with
    ``listLength``, the attribute ``N``, for an op of several list inputs)."""
    return [
        o.dataType()
        for spec, start, count in inputGroups(opdef, len(inputs), listLength)
        if spec.name == inputName
        for o in inputs[start : start + count]
    ]


class NodeReader:
    """Builds one ``NodeDef`` as an op of ``graph``, named by ``full(name)``."""

    def __init__(self, graph: Graph, node: Any, opdef: OpDef, full: Callable[[str], str]) -> None:
        self.graph: Graph = graph
        self.node: Any = node
        self.opdef: OpDef = opdef
        self.full: Callable[[str], str] = full
        self.where: str = f"node '{node.name}' ({node.op})"

    def build(self, built: dict[str, Operation]) -> Operation:
        """Adds the op; ``built`` holds the ops of the nodes already read, by node name."""
        node, opdef = self.node, self.opdef
        builder: OperationBuilder = self.graph.opBuilder(node.op, self.full(node.name))
        inputs: list[Output[TType]] = []
        for ref in node.input:
            name, index, control = _source(ref)
            if control:
                builder.addControlInput(built[name])
                continue
            source = built[name]
            if index >= source.numOutputs():
                raise IllegalArgumentError(
                    f"{self.where} reads output {index} of '{name}' ({source.type()}), which "
                    f"has {source.numOutputs()} output(s)"
                )
            inputs.append(source.output(index))
        groups = inputGroups(opdef, len(inputs), self._sharedLength())
        for spec, start, count in groups:
            if spec.isList:
                builder.addInputList(inputs[start : start + count])
            else:
                builder.addInput(inputs[start])
        listLength = next((count for spec, _, count in groups if spec.isList), None)
        for name in sorted(node.attr):
            self._attr(builder, name, node.attr[name], listLength, inputs)
        builder.setDevice(node.device)
        return builder.build()

    def _sharedLength(self) -> int | None:
        """The node's ``N`` when its op has several list inputs (which share that length)."""
        if sum(1 for i in self.opdef.inputs if i.isList) < 2 or "N" not in self.node.attr:
            return None
        return int(
            cast(int, attrFromProto("int", self.node.attr["N"], f"attribute 'N' of {self.where}"))
        )

    def _attr(
        self,
        builder: OperationBuilder,
        name: str,
        value: Any,
        listLength: int | None,
        inputs: list[Output[TType]],
    ) -> None:
        where = f"attribute '{name}' of {self.where}"
        opType = self.node.op
        if name.startswith("_") or name in TF_ONLY_HINTS.get(opType, ()):
            return  # TensorFlow's own annotations, and hints that change no value
        atDefault = TF_ONLY_AT_DEFAULT.get(opType, {}).get(name)
        if atDefault is not None:
            defaultKind, default = atDefault
            got = attrFromProto(defaultKind, value, where)
            if got != default:
                raise IllegalArgumentError(
                    f"{where} is {got!r}; tfops implements {opType} only as TensorFlow's "
                    f"default {name}={default!r}"
                )
            return
        listed = TF_TYPE_LISTS.get(opType, {}).get(name)
        if listed is not None:
            declared = attrFromProto("list(type)", value, where)
            types = listTypes(self.opdef, inputs, listed, self._sharedLength())
            checkTypeList(cast("tuple[type[TType], ...]", declared), types, where)
            return
        kind = attrKind(self.opdef, name)
        if kind is None:
            known = ", ".join(a.name for a in self.opdef.attrs) or "none"
            raise IllegalArgumentError(
                f"{where} is not an attribute tfops' {opType} has (it has: {known}); the "
                "GraphDef may come from a newer TensorFlow"
            )
        decoded = attrFromProto(kind, value, where)
        if name == "N" and listLength is not None:
            if decoded != listLength:
                raise IllegalArgumentError(
                    f"{where} is {decoded}, but the node has {listLength} tensor(s) in its list "
                    "input"
                )
            return  # the builder counts the list itself
        builder.setAttr(name, decoded)
