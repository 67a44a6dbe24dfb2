"""What every generated op class's ``create`` calls: convert values (``tfops.op._convert``),
then build atomically."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

from scope import Scope
from tfops._attrvalues import dataTypeHint
from tfops._knownops import addKnown
from tfops.builder import OperationBuilder
from tfops.errors import DataTypeError, IllegalArgumentError
from tfops.graph import Graph
from tfops.op._convert import (
    TensorValue,
    checkedOutput,
    graphOf,
    newConstant,
    operandOf,
    preferredTypes,
    scalarValue,
    toOperand,
    toTensor,
)
from tfops.opdef import NO_DEFAULT, OpDef, lookupOp
from tfops.operation import Operation, userSite
from tfops.output import Output
from tfops.shape import Shape
from tfops.types import TType

__all__ = ["build", "toTensor", "toOperand", "TensorValue"]


def build(
    scope: Scope,
    opType: str,
    inputs: Sequence[object],
    attrs: Mapping[str, object],
    options: Sequence[object] = (),
) -> Operation:
    """Adds an op of ``opType`` with ``inputs`` (operands or values) and attributes.

    ``attrs`` maps attribute names to values (``None``: not given), the ``create`` parameters
    and keyword options; ``options`` are instances of the op class's ``Options``, whose fields
    are Java option names.
    Everything is added in one graph transaction: on an error nothing stays behind.
    """
    opdef = lookupOp(opType)
    if opdef is None:
        raise IllegalArgumentError(f"unknown op type {opType!r}")
    graph = scope._env if type(scope._env) is Graph else graphOf(scope, opType)
    allAttrs = {k: v for k, v in attrs.items() if v is not None} if attrs else {}
    if len(allAttrs) != len(attrs):
        # None given for a data type nothing else sets stays, for the builder to refuse (a
        # TypeError naming the op), rather than read as "not given" and reported as missing
        for k in _requiredTypes(opdef):
            if k in attrs and attrs[k] is None:
                allAttrs[k] = None
    if options:
        _applyOptions(opdef, options, allAttrs)
    specs = opdef.inputs
    if len(inputs) != len(specs):
        raise IllegalArgumentError(f"{opType} takes {len(specs)} input(s)")
    with graph._tx if type(graph) is Graph else graph._transaction() as site:
        if allAttrs:
            _convertTensorAttrs(opdef, allAttrs, site)
        flat: list[Output[TType]] = []
        lists: dict[int, int] | None = None  # the size of each list input, by position
        preferred: dict[str, type[TType]] | None = None
        foreign = False
        for n, value in enumerate(inputs):
            arg = specs[n]
            if type(value) is Output and value._op._graph is graph and not arg.isList:
                flat.append(value)  # an operand of this graph: most inputs
                continue
            if not arg.isList:
                out = value if type(value) is Output else None
                if out is None:
                    asOutput = getattr(value, "asOutput", None)
                    if asOutput is not None:
                        found = asOutput()
                        out = (
                            found
                            if type(found) is Output
                            else checkedOutput(
                                value, found, f"{opType} input '{arg.name}' (created at {site})"
                            )
                        )
                if out is None and (scalar := scalarValue(value, arg, specs, inputs)) is not None:
                    out = newConstant(graph, scope, scalar[0], scalar[1], site)
                elif out is None or out._op._graph is not graph:  # a value, a foreign operand
                    if preferred is None:
                        preferred = preferredTypes(opdef, inputs, allAttrs)
                    what = f"{opType} input '{arg.name}' (created at {site})"
                    hint = arg.dtype or (preferred.get(arg.typeAttr) if arg.typeAttr else None)
                    out = operandOf(scope, value, hint, what)
                    foreign = foreign or out._op._graph is not graph
                flat.append(out)
                continue
            what = f"{opType} input '{arg.name}' (created at {site})"
            if not isinstance(value, (list, tuple)):
                raise DataTypeError(f"{what} must be a list of operands")
            if preferred is None:
                preferred = preferredTypes(opdef, inputs, allAttrs)
            hint = arg.dtype or (preferred.get(arg.typeAttr) if arg.typeAttr else None)
            outs = [operandOf(scope, v, hint, what) for v in value]
            flat.extend(outs)
            if lists is None:
                lists = {}
            lists[n] = len(outs)
            foreign = foreign or any(o._op._graph is not graph for o in outs)
        name = scope.makeOpName(opdef.defaultName or opType)
        if not allAttrs and not foreign and lists is None and type(graph) is Graph:
            op = addKnown(graph, opdef, name, scope, flat, site)
            if op is not None:
                return op
        # None: a single input; n: a list of n
        groups: list[int | None] = (
            [None] * len(inputs) if lists is None else [lists.get(n) for n in range(len(inputs))]
        )
        builder = OperationBuilder._made(graph, opType, name, scope, flat, groups, allAttrs, site)
        if foreign:
            out = next(o for o in flat if o._op._graph is not graph)
            raise builder._error(
                f"input '{out.name()}' belongs to another graph; operands must come from the "
                "graph the op is added to"
            )
        return builder._add(opdef)


def _applyOptions(opdef: OpDef, options: Sequence[object], attrs: dict[str, object]) -> None:
    """Sets the attributes that Java-style option objects carry (fields named as the options)."""
    opType = opdef.type
    for option in options:
        if isinstance(option, Shape) or not hasattr(option, "__attrs_attrs__"):
            raise DataTypeError(_notAnOption(opdef, option))
        for attribute in option.__attrs_attrs__:
            field, value = attribute.name, getattr(option, attribute.name)
            if value is None:
                continue
            spec = next((a for a in opdef.attrs if a.option == field), None)
            if spec is None:
                raise DataTypeError(f"{opType} has no option {field!r}")
            attrs[spec.name] = value
        owner = _optionOwner(type(option))
        if owner is not None and owner != opType:  # an option of the same name, another op's
            cls = opdef.className or opType
            raise DataTypeError(
                f"{opType}: {option!r} is an option of {owner} ({type(option).__qualname__}), "
                f"not of {opType}; give {cls}'s own options ({cls}.Options, made by {cls}'s "
                "option methods)"
            )


def _notAnOption(opdef: OpDef, option: object) -> str:
    """Something given where options go, and the option method that takes it."""
    cls = opdef.className or opdef.type
    known = [a.option for a in opdef.attrs if a.option]
    taking = ""
    if isinstance(option, Shape):
        taking = next((o for o in known if o.lower().endswith("shape")), "")
    what = (
        f"{opdef.type}: {option!r} is not an option of {opdef.type} (at {userSite()}), but is "
        "given where options go (after the inputs and parameters)"
    )
    if taking:
        return f"{what}; give it as the option {cls}.{taking}({option!r})"
    options = ", ".join(f"{cls}.{o}(...)" for o in known) or "none"
    return f"{what}; options are made by {cls}'s option methods ({options})"


_REQUIRED_TYPES: dict[str, frozenset[str]] = {}


def _requiredTypes(opdef: OpDef) -> frozenset[str]:
    """The type attributes of ``opdef`` that only a parameter sets: no default, no input or
    tensor attribute they are the data type of."""
    found = _REQUIRED_TYPES.get(opdef.type)
    if found is None:
        bound = {i.typeAttr for i in opdef.inputs} | {a.typeAttr for a in opdef.attrs}
        found = _REQUIRED_TYPES[opdef.type] = frozenset(
            a.name
            for a in opdef.attrs
            if a.kind == "type" and a.default is NO_DEFAULT and a.name not in bound
        )
    return found


_OWNERS: dict[type, str | None] = {}


def _optionOwner(optionClass: type) -> str | None:
    """The op type whose class ``optionClass`` is nested in (the class's ``OP_NAME``), or None
    when it is not nested in an op class."""
    if optionClass in _OWNERS:
        return _OWNERS[optionClass]
    outer: object = sys.modules.get(optionClass.__module__)
    for part in optionClass.__qualname__.split(".")[:-1]:
        outer = getattr(outer, part, None)
    name = getattr(outer, "OP_NAME", None) if isinstance(outer, type) else None
    owner = _OWNERS[optionClass] = name if isinstance(name, str) else None
    return owner


def _convertTensorAttrs(opdef: OpDef, attrs: dict[str, object], site: str) -> None:
    """Tensor attributes (``Const``'s value) given as values become read-only arrays."""
    opType = opdef.type
    for a in opdef.attrs:
        if a.kind == "tensor" and a.name in attrs:
            given = attrs.get(a.typeAttr) if a.typeAttr else None
            if given is not None and not (isinstance(given, type) and issubclass(given, TType)):
                raise DataTypeError(
                    f"{opType} (created at {site}): {given!r} is not a data type (e.g. "
                    f"TFloat32){dataTypeHint(given)}"
                )
            what = f"{opType} {a.param or a.name} (created at {site})"
            arr, dtype = toTensor(attrs[a.name], given, what=what)
            attrs[a.name] = arr
            if a.typeAttr:
                attrs[a.typeAttr] = dtype
