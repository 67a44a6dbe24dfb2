"""A tfops graph as a TensorFlow ``GraphDef``, and a ``GraphDef`` read into a tfops graph.

Each op becomes a ``NodeDef`` of the same name, op type, inputs (``op`` for output 0,
``op:i`` otherwise, ``^op`` for a control input), device and attributes, converted by kind
(:mod:`tfops.interop.attrs`). The graph's initializers become the control inputs of a ``NoOp``
named ``Init``, as TensorFlow Java writes them; reading a ``GraphDef`` registers them again and
does not add that ``NoOp``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from scope import NAME_PATTERN
from tfops.errors import DataTypeError, IllegalArgumentError, IllegalStateError
from tfops.interop._proto import protos
from tfops.interop.attrs import TF_TYPE_LISTS, TFOPS_ONLY, attrKind, attrToProto
from tfops.interop.reader import NodeReader, listTypes, parseGraphDef, topologicalOrder
from tfops.opdef import lookupOp
from tfops.operation import Operation

if TYPE_CHECKING:
    from tfops.graph import Graph

__all__ = [
    "INIT_OP_NAME",
    "PRODUCER",
    "exportGraphDef",
    "importGraphDef",
    "nodeDefOf",
    "serialize",
]

INIT_OP_NAME = "Init"
"""The ``NoOp`` whose control inputs are the graph's initializers (TensorFlow Java's name)."""

PRODUCER = 2474
"""The GraphDef version written: TensorFlow 2.21's (``tf.version.GRAPH_DEF_VERSION``), whose op
definitions tfops follows."""


def exportGraphDef(graph: Graph) -> bytes:
    """The serialized ``GraphDef`` of every op of ``graph``, and its initializers."""
    with graph._lock:
        graph._checkOpen()
        ops = list(graph._opList)
        initializers = list(graph._initializers)
    own = graph.operation(INIT_OP_NAME)
    # the reader takes a NoOp named Init for the list of initializers
    if own is not None and (initializers or own.type() == "NoOp"):
        raise IllegalStateError(
            f"the graph has its own op named '{INIT_OP_NAME}' (created at "
            f"{own.creationSite()}), the name a GraphDef gives the NoOp that lists the "
            "initializers (as TensorFlow Java does); rename that op "
            "(tf.withName(...))"
        )
    return serialize((nodeDefOf(op) for op in ops), initializers)


def serialize(nodes: Iterable[Any], initializers: Sequence[Operation]) -> bytes:
    """A ``GraphDef`` of ``nodes`` and, when there are initializers, the ``Init`` NoOp."""
    graphDef = protos().GraphDef()
    graphDef.versions.producer = PRODUCER
    graphDef.node.extend(nodes)
    if initializers:
        init = graphDef.node.add()
        init.name = INIT_OP_NAME
        init.op = "NoOp"
        init.input.extend(f"^{op.name()}" for op in initializers)
    return bytes(graphDef.SerializeToString(deterministic=True))


def nodeDefOf(op: Operation) -> Any:
    """The ``NodeDef`` of ``op``: TensorFlow's op type, attribute names and kinds."""
    node = protos().NodeDef()
    node.name = op.name()
    node.op = op.type()
    node.input.extend(
        o.op().name() if o.index() == 0 else f"{o.op().name()}:{o.index()}" for o in op.inputs()
    )
    node.input.extend(f"^{c.name()}" for c in op.controlInputs())
    node.device = op.device()
    opdef = op._opdef
    skipped = TFOPS_ONLY.get(op.type(), frozenset())
    for name, value in op.attrs().items():
        if name in skipped:
            continue
        kind = attrKind(opdef, name)
        assert kind is not None, f"{op.type()} has attribute {name!r} its spec does not define"
        node.attr[name].CopyFrom(attrToProto(kind, value))
    for name, inputName in TF_TYPE_LISTS.get(op.type(), {}).items():
        count = op.attrs().get("N")
        types = listTypes(opdef, op.inputs(), inputName, count if isinstance(count, int) else None)
        node.attr[name].CopyFrom(attrToProto("list(type)", types))
    return node


def importGraphDef(graph: Graph, data: bytes, prefix: str | None) -> None:
    """Adds the ops of a serialized ``GraphDef`` to ``graph``, names under ``prefix``; on any
    error, the graph is left as it was."""
    given = cast(object, data)  # callers without a type checker may pass anything
    if not isinstance(given, (bytes, bytearray, memoryview)):
        raise DataTypeError(
            f"importGraphDef takes the serialized GraphDef as bytes, got {type(given).__name__}; "
            "read a .pb file with open(path, 'rb').read()"
        )
    graphDef = parseGraphDef(bytes(data))
    full = _prefixer(prefix)
    nodes, initNames = _splitInit(graphDef)
    _checkNodes(nodes)
    order = topologicalOrder(nodes)
    missing = [n for n in initNames if n not in {node.name for node in nodes}]
    if missing:
        raise IllegalArgumentError(
            f"the GraphDef's '{INIT_OP_NAME}' NoOp lists initializer(s) {_list(missing)} that "
            "are not nodes of the GraphDef"
        )
    with graph._transaction():
        if prefix:
            _claimPrefix(graph, prefix)
        clashes = [full(n.name) for n in nodes if full(n.name) in graph._byName]
        if clashes:
            raise IllegalArgumentError(
                f"the graph already has op(s) named {_list(clashes)}; import the GraphDef under a "
                "prefix (graph.importGraphDef(data, prefix='imported'))"
            )
        built: dict[str, Operation] = {}
        for node in order:
            opdef = lookupOp(node.op)
            assert opdef is not None
            built[node.name] = NodeReader(graph, node, opdef, full).build(built)
        for name in initNames:
            graph.addInitializer(built[name])


def _prefixer(prefix: str | None) -> Callable[[str], str]:
    """The full name of a node under ``prefix``."""
    given = cast(object, prefix)
    if given is None or given == "":
        return lambda name: name
    if not isinstance(given, str):
        raise DataTypeError(f"prefix must be a str or None, got {given!r}")
    stripped = given[:-1] if given.endswith("/") else given
    for part in stripped.split("/"):
        if NAME_PATTERN.fullmatch(part) is None:
            raise IllegalArgumentError(
                f"invalid import prefix {given!r}: each part must match "
                "[A-Za-z0-9.][A-Za-z0-9_.\\-]*"
            )
    return lambda name: f"{stripped}/{name}"


def _claimPrefix(graph: Graph, prefix: str) -> None:
    """Takes ``prefix`` as a name scope, raising when an op or scope of the graph uses it."""
    stripped = prefix.rstrip("/")
    parent, _, base = stripped.rpartition("/")
    used = [name for name in graph._byName if name == stripped or name.startswith(stripped + "/")]
    if used or graph._names.isTaken(parent, base):
        what = f" (op(s) {_list(used)})" if used else ""
        raise IllegalArgumentError(
            f"the import prefix {stripped!r} is already used in the graph{what}; choose another "
            "prefix"
        )
    graph._names.makeUnique(parent, base)


def _splitInit(graphDef: Any) -> tuple[list[Any], list[str]]:
    """The nodes to add, and the names of the initializers the ``Init`` NoOp lists."""
    nodes: list[Any] = []
    initNames: list[str] = []
    for node in graphDef.node:
        if (
            node.name == INIT_OP_NAME
            and node.op == "NoOp"
            and all(i.startswith("^") for i in node.input)
        ):
            initNames.extend(i[1:] for i in node.input)
        else:
            nodes.append(node)
    return nodes, initNames


def _checkNodes(nodes: list[Any]) -> None:
    """Rejects, before the graph changes, duplicate names and every unknown op type."""
    seen: set[str] = set()
    duplicates: dict[str, None] = {}
    unknown: dict[str, list[str]] = {}
    for node in nodes:
        if node.name in seen:
            duplicates[node.name] = None
        seen.add(node.name)
        if lookupOp(node.op) is None:
            unknown.setdefault(node.op, []).append(node.name)
    if unknown:
        listed = "; ".join(f"{t} ({_list(names)})" for t, names in sorted(unknown.items()))
        raise IllegalArgumentError(
            f"the GraphDef uses {len(unknown)} op type(s) tfops does not know: {listed}; "
            "define them with tfops.op.registerOp, or freeze/simplify the graph in TensorFlow "
            "so that it uses only tfops' ops"
        )
    if duplicates:
        raise IllegalArgumentError(
            f"the GraphDef has more than one node named {_list(list(duplicates))}; node names "
            "must be unique"
        )


def _list(names: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(f"'{n}'" for n in names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")
