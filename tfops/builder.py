"""``OperationBuilder``: the one way operations enter a graph."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from scope import NAME_PATTERN, HasOp, Scope
from tfops._attrvalues import checkAttrValue
from tfops._knownops import KNOWN, KNOWN_KEPT, Signature, controlsOf, sharedAttrs, signature
from tfops.errors import DataTypeError, IllegalArgumentError
from tfops.opdef import NO_DEFAULT, InferContext, InputDef, OpDef, lookupOp
from tfops.operation import Operation, userSite
from tfops.output import Output
from tfops.shape import Shape
from tfops.types import TType

if TYPE_CHECKING:
    from tfops.graph import Graph
    from tfops.output import Operand

_T = TypeVar("_T", bound=TType)  # an operand of any data type (Operand is invariant in it)

__all__ = ["OperationBuilder"]


class OperationBuilder:
    """Collects the inputs and attributes of a new operation, then adds it with :meth:`build`.

    Obtained from ``scope.opBuilder(type, defaultName)``. ``build`` checks everything the op's
    definition states (input count, data types, shapes, attributes) before the operation is
    added, and raises without changing the graph when something is wrong (the name the scope
    reserved for the op is given back too, unless other ops were made meanwhile).

    Example:
        >>> from tfops import Graph
        >>> from tfops.types import TFloat32
        >>> with Graph() as g:
        ...     b = g.baseScope().opBuilder("Placeholder", "x")
        ...     op = b.setAttr("dtype", TFloat32).build()
        ...     op.name(), op.output(0).dataType().NAME
        ('x', 'float32')
    """

    __slots__ = (
        "_graph",
        "_type",
        "_name",
        "_inputs",
        "_inputGroups",
        "_controls",
        "_init",
        "_attrs",
        "_device",
        "_site",
        "_reserved",
        "_trusted",
    )

    def __init__(
        self,
        graph: Graph,
        type: str,
        name: str,
        scope: Scope,
        reserved: int | None = None,
    ) -> None:
        for part in name.split("/") if isinstance(name, str) else [name]:
            if not isinstance(part, str) or NAME_PATTERN.fullmatch(part) is None:
                raise IllegalArgumentError(
                    f"invalid op name {name!r} for an op of type {type}: each part of the name "
                    "must match [A-Za-z0-9.][A-Za-z0-9_.\\-]*"
                )
        self._graph = graph
        self._type = type
        self._name = name
        self._inputs: list[Output[TType]] = []
        self._inputGroups: list[int | None] = []  # None: a single input; n: a list of n
        self._controls: list[Operation] = controlsOf(graph, scope)
        self._init = scope.isInit()
        self._attrs: dict[str, Any] = {}
        self._device = scope.device()
        self._site = userSite()
        # the name registry's reservation of this op's name, freed if the build fails
        self._reserved = reserved
        self._trusted = False

    @staticmethod
    def _made(
        graph: Graph,
        type: str,
        name: str,
        scope: Scope,
        inputs: list[Output[TType]],
        groups: list[int | None],
        attrs: dict[str, Any],
        site: str,
    ) -> OperationBuilder:
        """A builder filled by tfops itself (``tfops.op._build``): the name comes from
        ``scope.makeOpName`` and the inputs are outputs of ``graph``, so neither is checked
        again."""
        builder = object.__new__(OperationBuilder)
        builder._graph = graph
        builder._type = type
        builder._name = name
        builder._inputs = inputs
        builder._inputGroups = groups
        builder._controls = controlsOf(graph, scope) if scope._controls else []
        builder._init = scope._isInit
        builder._attrs = attrs
        builder._device = scope._device
        builder._site = site
        builder._reserved = None
        builder._trusted = True
        for out in inputs:  # mixing eager and graph operands: TF Java's checkInput message
            source = out._op._graph
            if source is not graph and (_isEager(graph) or _isEager(source)):
                raise builder._foreignInput(out)
        return builder

    def addInput(self, input: Operand[_T]) -> OperationBuilder:
        """Adds the next data input."""
        self._inputs.append(self._asOutput(input))
        self._inputGroups.append(None)
        return self

    def addInputList(self, inputs: Sequence[Operand[_T]]) -> OperationBuilder:
        """Adds the next input, a list of tensors (e.g. ``AddN``'s ``inputs``)."""
        outs = [self._asOutput(i) for i in inputs]
        self._inputs.extend(outs)
        self._inputGroups.append(len(outs))
        return self

    def addControlInput(self, control: HasOp | Operation) -> OperationBuilder:
        """Makes the new op run only after ``control``."""
        if isinstance(control, Operation):
            op = control
        else:
            found = getattr(control, "op", None)
            candidate: object = found() if callable(found) else None
            if not isinstance(candidate, Operation):
                self._giveBackName()
                raise self._typeError(
                    f"control input {control!r} is not an op (an op class, Output or Operation)"
                )
            op = candidate
        if op.graph() is not self._graph:
            self._giveBackName()
            raise self._error(
                f"control input '{op.name()}' belongs to another graph; control inputs must come "
                "from the graph the op is added to"
            )
        if op not in self._controls:
            self._controls.append(op)
        return self

    def setAttr(self, name: str, value: object) -> OperationBuilder:
        """Sets attribute ``name`` (TensorFlow's attribute name, e.g. ``keep_dims``)."""
        self._attrs[name] = value
        return self

    def setDevice(self, device: str) -> OperationBuilder:
        """Places the new op on ``device``."""
        self._device = device
        return self

    def build(self) -> Operation:
        """Checks the op against its definition and adds it to the graph.

        Raises:
            ValueError: unknown op type, wrong number of inputs, an input from another graph,
                incompatible shapes, a bad attribute, or a name already used.
            TypeError: a data type the op does not accept, or inputs whose types disagree.
        """
        try:
            with self._graph._transaction():
                opdef = lookupOp(self._type)
                if opdef is None:
                    raise IllegalArgumentError(
                        f"unknown op type {self._type!r} for op '{self._name}' "
                        f"(created at {self._site}); define it with tfops.op.registerOp"
                    )
                return self._add(opdef)
        except Exception:
            self._giveBackName()
            raise

    def _add(self, opdef: OpDef) -> Operation:
        """Checks and adds the op (inside a graph transaction)."""
        graph = self._graph
        admit = getattr(graph, "_admit", None)
        if admit is not None:  # an EagerSession: refuses graph-only ops, binds input values
            admit(self, opdef)
        if self._name in graph._byName:
            raise IllegalArgumentError(
                f"{self._type} '{self._name}' (created at {self._site}): an operation "
                "with this name already exists in the graph"
            )
        sig = signature(opdef)
        attrs = self._checkAttrs(opdef, sig)
        types, shapes = self._infer(opdef, sig, attrs)
        if sig.known and not self._attrs and admit is None and len(KNOWN) < KNOWN_KEPT:
            # the checks passed for these input data types: the next op of this type with inputs
            # of the same data types and no attribute given passes them too (``_addKnown``)
            key = (self._type, *[i._dtype for i in self._inputs])
            _, attrs, types = KNOWN.setdefault(key, (opdef, attrs, types))
        elif sig.shareable:
            attrs = sharedAttrs(self._type, attrs)
        op = Operation(
            graph,
            self._name,
            opdef,
            tuple(self._inputs),
            tuple(self._controls),
            attrs,
            self._device,
            types,
            shapes,
            self._site,
        )
        graph._add(op, self._trusted)
        if self._init:
            graph.addInitializer(op)
        return op

    def _giveBackName(self) -> None:
        """Frees the name the scope reserved for this op when nothing was reserved since."""
        if self._reserved is not None:
            self._graph._forgetReservation(self._reserved)
            self._reserved = None

    # -- checks ---------------------------------------------------------------------------
    def _error(self, message: str) -> IllegalArgumentError:
        return IllegalArgumentError(
            f"{self._type} '{self._name}' (created at {self._site}): {message}"
        )

    def _typeError(self, message: str) -> DataTypeError:
        return DataTypeError(f"{self._type} '{self._name}' (created at {self._site}): {message}")

    def _fail(self, isTypeError: bool, message: str) -> Exception:
        return self._typeError(message) if isTypeError else self._error(message)

    def _asOutput(self, operand: object) -> Output[TType]:
        asOutput = getattr(operand, "asOutput", None)
        if asOutput is None:
            self._giveBackName()
            raise self._typeError(f"input {operand!r} is not an Operand (it has no asOutput())")
        out = asOutput()
        if not isinstance(out, Output):
            self._giveBackName()
            raise self._typeError(
                f"input {operand!r} is not an Operand: its asOutput() returned {out!r}, not an "
                "Output (an operand's asOutput() must return the Output it stands for)"
            )
        if out.op().graph() is not self._graph:
            self._giveBackName()
            raise self._foreignInput(out)
        return out

    def _foreignInput(self, out: Output[TType]) -> IllegalArgumentError:
        """The error for an input of another environment (TF Java's ``checkInput``)."""
        source = out._op._graph
        if _isEager(self._graph) and not _isEager(source):
            return self._error(
                f"Can't use graph operation '{out._op._name}' in eager mode: '{out.name()}' is "
                "a tensor of a graph, without a value; run it in a Session and give the array "
                "(tf.constant(array)), or build this op in that graph"
            )
        if _isEager(source):
            other = "another eager session" if _isEager(self._graph) else "an eager session"
            where = "in this eager session" if _isEager(self._graph) else "in a graph"
            return self._error(
                f"input '{out.name()}' was from {other}, can't use {where}; use "
                "tf.constant(x.asTensor()) to make its value a constant here"
            )
        return self._error(
            f"input '{out.name()}' belongs to another graph; operands must come from the "
            "graph the op is added to"
        )

    def _checkAttrs(self, opdef: OpDef, sig: Signature) -> dict[str, Any]:
        given = self._attrs
        if given:
            for name in given:
                if name not in sig.attrNames:
                    names = ", ".join(a.name for a in opdef.attrs) or "none"
                    raise self._error(f"unknown attribute {name!r} (known: {names})")
        groups = self._inputGroups
        specs = opdef.inputs
        if len(groups) != len(specs):
            raise self._error(
                f"expects {len(specs)} input(s) "
                f"({', '.join(i.name for i in specs)}), got {len(groups)}"
            )
        attrs: dict[str, Any] = {}
        inputs = self._inputs
        if sig.plain and not given:  # single inputs bound to their type attributes, no refs
            for n, (typeAttr, fixed) in enumerate(sig.inputTypes):
                if groups[n] is not None:
                    raise self._error(f"input '{specs[n].name}' must be a single tensor")
                dtype = inputs[n]._dtype
                if typeAttr is None:
                    if dtype is not fixed:
                        self._checkInput(specs[n], inputs[n], attrs, given)
                elif attrs.setdefault(typeAttr, dtype) is not dtype:
                    self._checkInput(specs[n], inputs[n], attrs, given)
        else:
            position = 0
            for spec, group in zip(specs, groups, strict=True):
                if spec.isList != (group is not None):
                    kind = "a list of tensors" if spec.isList else "a single tensor"
                    raise self._error(f"input '{spec.name}' must be {kind}")
                if group is not None:
                    if group == 0:
                        raise self._error(f"input list '{spec.name}' must not be empty")
                    attrs["N"] = group
                count = 1 if group is None else group
                for out in inputs[position : position + count]:
                    self._checkInput(spec, out, attrs, given)
                position += count
        for name, kind, allowed, allowedSet, default, doc in sig.attrs:
            if name in given:
                value = given[name]
            elif name in attrs:
                value = attrs[name]
                if value in allowedSet:
                    continue  # a type an input bound, one the op allows: nothing to convert
            elif default is not NO_DEFAULT:
                value = default
            else:
                raise self._error(f"attribute {name!r} is required ({doc})")
            attrs[name] = checkAttrValue(name, kind, allowed, value, self._fail)
        if sig.tensors:
            self._checkTensorAttrs(sig, attrs)
        return attrs

    def _checkTensorAttrs(self, sig: Signature, attrs: dict[str, Any]) -> None:
        """A tensor attribute (``Const``'s value) is memory of the op's own, read-only, of the
        data type its type attribute states."""
        for name, typeAttr in sig.tensors:
            value = attrs.get(name)
            if value is None:
                continue
            if not self._trusted:  # tfops's own builds pass arrays toTensor already made
                value = attrs[name] = np.array(value, copy=True)
                value.flags.writeable = False
            dtype = attrs.get(typeAttr) if typeAttr is not None else None
            if dtype is not None and value.dtype != dtype.DTYPE:
                raise self._typeError(
                    f"attribute {name!r} holds numpy dtype {value.dtype} but {typeAttr!r} is "
                    f"{dtype.NAME}; give a value of dtype {dtype.DTYPE} "
                    f"(np.asarray(value, np.{dtype.DTYPE}))"
                )

    def _checkInput(
        self, spec: InputDef, out: Output[TType], attrs: dict[str, Any], given: dict[str, Any]
    ) -> None:
        """Checks one input against its spec and binds its type attribute in ``attrs``."""
        dtype = out._dtype
        if spec.isRef and not out._op._opdef.outputs[out._index].isRef:
            raise self._typeError(
                f"input '{spec.name}' must be a variable (the output of a Variable op), "
                f"got '{out.name()}' of type {out.op().type()}"
            )
        if spec.dtype is not None and dtype is not spec.dtype:
            raise self._typeError(
                f"input '{spec.name}' must be {spec.dtype.NAME}, got {dtype.NAME} "
                f"from '{out.name()}'"
            )
        typeAttr = spec.typeAttr
        if typeAttr is not None:
            bound = attrs.get(typeAttr) or given.get(typeAttr)
            if bound is not None and bound is not dtype:
                raise self._typeError(
                    f"input '{spec.name}' has data type {dtype.NAME} (from "
                    f"'{out.name()}') but {typeAttr} is {bound.NAME}; "
                    "inputs of one type attribute must have the same data type; cast it with "
                    f"tf.dtypes.cast({spec.name}, {bound.__name__}) (a numpy value: "
                    f"np.asarray(v, np.{bound.DTYPE}))"
                )
            attrs[typeAttr] = dtype

    def _infer(
        self, opdef: OpDef, sig: Signature, attrs: dict[str, Any]
    ) -> tuple[tuple[type[TType], ...], tuple[Shape, ...]]:
        types: list[type[TType]] = []
        for typeAttr, fixed, countAttr in sig.outputTypes:
            t = attrs[typeAttr] if typeAttr is not None else fixed
            assert t is not None, f"an output of {opdef.type} has no data type"
            if countAttr:
                types.extend([t] * int(attrs[countAttr]))
            else:
                types.append(t)
        inputs = self._inputs
        ctx = InferContext(
            self._type,
            self._name,
            self._site,
            tuple([i._shape for i in inputs]),
            tuple([i._dtype for i in inputs]),
            attrs,
            inputs,
        )
        inferred = tuple(opdef.infer(ctx))
        if len(inferred) != len(types):
            raise self._error(
                f"shape rule returned {len(inferred)} shape(s) for {len(types)} output(s)"
            )
        return tuple(types), inferred


def _isEager(env: object) -> bool:
    """Whether ``env`` is an ``EagerSession`` (which the graph layer does not import)."""
    return getattr(env, "_eager", False) is True
