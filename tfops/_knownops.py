"""What the builder works out once per op type, and the short way it adds an op it checked
before: an op type's ``Signature`` (its spec, arranged for checking), the attribute dicts ops of
one type share, and ``addKnown``, which adds an op whose type and input data types passed every
check already (only its shape rule runs)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, final

from scope import Scope
from tfops.opdef import InferContext, OpDef
from tfops.operation import Operation
from tfops.output import Output
from tfops.shape import Shape
from tfops.types import TType

if TYPE_CHECKING:
    from tfops.graph import Graph

__all__ = [
    "KNOWN",
    "KNOWN_KEPT",
    "Signature",
    "addKnown",
    "controlsOf",
    "sharedAttrs",
    "signature",
]


@final
class Signature:
    """What checking an op against its spec needs, worked out once per op type."""

    __slots__ = (
        "attrNames",
        "attrs",
        "inputTypes",
        "known",
        "opdef",
        "outputTypes",
        "plain",
        "shareable",
        "tensors",
    )

    def __init__(self, opdef: OpDef) -> None:
        self.opdef = opdef
        self.attrNames = frozenset(a.name for a in opdef.attrs)
        self.attrs = tuple(
            (
                a.name,
                a.kind,
                a.allowed,
                frozenset(a.allowed) if a.kind == "type" else frozenset(),
                a.default,
                a.doc,
            )
            for a in opdef.attrs
        )
        self.inputTypes = tuple((i.typeAttr, i.dtype) for i in opdef.inputs)
        self.outputTypes = tuple((o.typeAttr, o.dtype, o.countAttr) for o in opdef.outputs)
        # the tensor attributes, each with the type attribute its value's dtype must be
        self.tensors = tuple((a.name, a.typeAttr) for a in opdef.attrs if a.kind == "tensor")
        # every input a single tensor with a type attribute or a fixed type, none a reference
        self.plain = all(
            not i.isList and not i.isRef and (i.typeAttr is None) != (i.dtype is None)
            for i in opdef.inputs
        )
        # every attribute of a kind whose checked values are hashable and equal only when they
        # are the same value (not float: -0.0 == 0.0), so ops may share one attribute dict
        self.shareable = all(a.kind in SHAREABLE_KINDS for a in opdef.attrs)
        # with no attribute given, the checked attributes and the output data types depend on
        # the input data types only (``KNOWN``)
        self.known = self.plain and not self.tensors


SHAREABLE_KINDS = frozenset(("type", "bool", "int", "string", "list(int)", "shape"))

_SHARED_ATTRS: dict[tuple[object, ...], dict[str, Any]] = {}
"""One attribute dict per op type and set of values: ops never change their attributes, and
each dict an op keeps alive is one more object for the garbage collector to go through."""
_SHARED_KEPT = 4096


def sharedAttrs(opType: str, attrs: dict[str, Any]) -> dict[str, Any]:
    """The dict of the same attributes another op of ``opType`` keeps already, or ``attrs``."""
    key = (opType, *attrs.items())
    found = _SHARED_ATTRS.get(key)
    if found is None:
        if len(_SHARED_ATTRS) >= _SHARED_KEPT:
            return attrs
        found = _SHARED_ATTRS.setdefault(key, attrs)
    return found


KNOWN: dict[tuple[object, ...], tuple[OpDef, dict[str, Any], tuple[type[TType], ...]]] = {}
"""(op type, input data types) -> (spec, checked attributes, output data types), for op types
whose inputs are single tensors of a type attribute or a fixed type (``Signature.known``),
built with no attribute given: what the builder's checks gave the first such op, shared by the
next ones."""
KNOWN_KEPT = 4096


def addKnown(
    graph: Graph,
    opdef: OpDef,
    name: str,
    scope: Scope,
    inputs: list[Output[TType]],
    site: str,
) -> Operation | None:
    """Adds an op of ``graph`` (a plain ``Graph``, inside a transaction) made by tfops with no
    attribute given, single inputs of ``graph`` and a name ``scope.makeOpName`` reserved, when
    ops of its type with inputs of the same data types passed the builder's checks already
    (only its shape rule runs); ``None`` when not, for the builder to check everything."""
    opType = opdef.type
    n = len(inputs)
    if n == 1:
        first = inputs[0]
        known = KNOWN.get((opType, first._dtype))
        shapes: tuple[Shape, ...] = (first._shape,)
        dtypes: tuple[type[TType], ...] = (first._dtype,)
    elif n == 2:
        first, second = inputs
        known = KNOWN.get((opType, first._dtype, second._dtype))
        shapes, dtypes = (first._shape, second._shape), (first._dtype, second._dtype)
    else:
        dtypes = tuple([i._dtype for i in inputs])
        known = KNOWN.get((opType, *dtypes))
        shapes = tuple([i._shape for i in inputs])
    if known is None or known[0] is not opdef or name in graph._byName:
        return None
    _, attrs, types = known
    inferred = tuple(opdef.infer(InferContext(opType, name, site, shapes, dtypes, attrs, inputs)))
    if len(inferred) != len(types):
        return None  # the builder says so
    op = Operation(
        graph,
        name,
        opdef,
        tuple(inputs),
        tuple(controlsOf(graph, scope)) if scope._controls else (),
        attrs,
        scope._device,
        types,
        inferred,
        site,
    )
    graph._add(op, True)
    if scope._isInit:
        graph.addInitializer(op)
    return op


_SIGNATURES: dict[str, Signature] = {}


def signature(opdef: OpDef) -> Signature:
    found = _SIGNATURES.get(opdef.type)
    if found is None or found.opdef is not opdef:  # (an op type registered again: its own)
        found = _SIGNATURES[opdef.type] = Signature(opdef)
    return found


def controlsOf(graph: Graph, scope: Scope) -> list[Operation]:
    """The scope's control dependencies that a new op gets: outside an init scope, not the
    initializers (a session runs those once, not before each run; as TF Java's ``OpScope``)."""
    if scope._isInit:
        return list(scope._controls)
    return [c for c in scope._controls if c not in graph._initializers]
