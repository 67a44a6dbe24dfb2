"""Op specs: what an op type is, in one record, and the table of every registered one.

An :class:`OpDef` holds what TensorFlow keeps in its OpDef and ApiDef (inputs, outputs,
attributes, summary, description), the shape rule that runs when an op is created, and the
facts about the op that hold on every backend (elementwise, stateful, pass-through...). It has
no kernel: each backend keeps its own table of kernels keyed by the op type
(``tfops.backend``), and the gradient rules are a third table (``tfops.spec.grad``). The op
classes, the ``Ops`` facade methods and the reference docs are produced from these specs
(``python -m tfops.op._generate``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast, final

import numpy as np
from attrs import frozen

from tfops.errors import IllegalArgumentError
from tfops.partial import PartialValue, partialValue
from tfops.shape import Shape
from tfops.types import TType

if TYPE_CHECKING:
    from tfops.output import Output

__all__ = [
    "AttrDef",
    "AttrKind",
    "InferContext",
    "InputDef",
    "NO_DEFAULT",
    "OpDef",
    "OutputDef",
    "lookupOp",
    "registerOp",
    "registeredOps",
]

AttrKind = Literal["type", "bool", "int", "float", "shape", "tensor", "string", "list(int)"]


class _NoDefault:
    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT: Any = _NoDefault()
"""The default of an attribute that has none (a required attribute)."""


@frozen
class InputDef:
    """An input of an op: its name, its data type (a type attribute or a fixed type) and docs.

    ``isList`` makes it a list of tensors of one type (``AddN``'s ``inputs``). ``isRef`` makes
    it a reference to a variable (``Assign``'s ``ref``): it must be the output of a variable op,
    and a stateful kernel gets the variable's name instead of its value.
    """

    name: str
    doc: str
    typeAttr: str | None = None
    dtype: type[TType] | None = None
    isList: bool = False
    isRef: bool = False


@frozen
class OutputDef:
    """An output of an op: its name (the accessor's name), data type and docs.

    With ``countAttr`` it is a list of outputs (``Unpack``'s ``output``), as many as that int
    attribute says; such an output must be the op's only one, and the shape rule returns one
    shape per element.
    """

    name: str
    doc: str
    typeAttr: str | None = None
    dtype: type[TType] | None = None
    isRef: bool = False
    countAttr: str | None = None


@frozen
class AttrDef:
    """An attribute of an op.

    ``allowed`` restricts a ``type`` attribute (the type family of the op's generic parameter).
    An attribute with a default becomes a Java-style option (``option`` names the factory, e.g.
    ``keepDims``); a required attribute that no input determines becomes a ``create`` parameter
    named ``param``.
    """

    name: str
    kind: AttrKind
    doc: str = ""
    default: object = NO_DEFAULT
    allowed: tuple[type[TType], ...] = ()
    option: str | None = None
    param: str | None = None
    typeAttr: str | None = None  # for a tensor attribute: the type attribute it determines

    def hasDefault(self) -> bool:
        """Whether the attribute is optional."""
        return self.default is not NO_DEFAULT


@final
class InferContext:
    """What a shape rule sees: the new op's identity, its inputs and attributes.

    ``shapes[i]`` and ``types[i]`` are the static shape and data type of input ``i``;
    ``constants[i]`` is its value when it is produced by a ``Const`` op, so shape rules can use
    constant axes and shapes; ``values[i]`` is what the graph tells of an integer input's
    entries when it is computed (``concat([shape(x)[0:1], [12]])``), the one mechanism behind
    ``tfops.op.shapeValue``; ``shapeValues[i]`` is the static shape of ``x`` when input ``i``
    is ``Shape(x)``.
    """

    __slots__ = ("opType", "opName", "site", "shapes", "types", "attrs", "_inputs")

    opType: str
    opName: str
    site: str
    shapes: tuple[Shape, ...]
    types: tuple[type[TType], ...]
    attrs: Mapping[str, Any]

    def __init__(
        self,
        opType: str,
        opName: str,
        site: str,
        shapes: tuple[Shape, ...],
        types: tuple[type[TType], ...],
        attrs: Mapping[str, Any],
        inputs: Sequence[Output[TType]] = (),
    ) -> None:
        self.opType = opType
        self.opName = opName
        self.site = site
        self.shapes = shapes
        self.types = types
        self.attrs = attrs
        self._inputs = inputs

    @property
    def constants(self) -> tuple[np.ndarray[Any, Any] | None, ...]:
        """Per input, its value when a ``Const`` op produces it, else ``None``."""
        return tuple(
            cast("np.ndarray[Any, Any]", i._op._attrs["value"]) if i._op._type == "Const"
            else None
            for i in self._inputs
        )

    @property
    def values(self) -> tuple[PartialValue | None, ...]:
        """Per input, what the graph tells of its value when it is an integer scalar or vector
        (a shape, or an entry of one): each entry known or ``None``, as TensorFlow's shape
        inference evaluates ``concat([shape(x)[0:1], [12]])`` or ``stack([n, 3])``; ``None``
        when not even its length is known. See :mod:`tfops.partial`."""
        return tuple(partialValue(i) for i in self._inputs)

    @property
    def shapeValues(self) -> tuple[Shape | None, ...]:
        """Per input, the static shape of ``x`` when the input is ``Shape(x)``, else ``None``."""
        return tuple(
            i._op._inputs[0]._shape if i._op._type == "Shape" else None for i in self._inputs
        )

    def error(self, message: str) -> IllegalArgumentError:
        """An error naming this op and where it is being created."""
        return IllegalArgumentError(
            f"{self.opType} '{self.opName}' (created at {self.site}): {message}"
        )


ShapeRule = Callable[[InferContext], Sequence[Shape]]
"""A shape rule: the static shape of each output, from what the op is created with; it raises
``ctx.error(...)`` for inputs the op cannot take."""


@frozen
class OpDef:
    """The spec of one op type: its signature, docs, shape rule and backend-neutral facts."""

    type: str
    group: str
    summary: str
    description: str
    inputs: tuple[InputDef, ...]
    outputs: tuple[OutputDef, ...]
    infer: ShapeRule
    attrs: tuple[AttrDef, ...] = ()
    className: str = ""
    facadeName: str = ""
    example: str = ""
    defaultName: str = ""
    stateful: bool = False
    """The op reads or changes state a session keeps (variables, random generators): it is
    never computed ahead of a run, and runs even when nothing reads its outputs."""
    elementwise: bool = False
    """Each output element depends only on the input elements at the same position (inputs of
    one shape, or broadcast against each other as numpy does), and the output has the
    (broadcast) shape. The gradient generator sums a rule's gradients back to each input's
    shape; an executor may fuse such ops and run them on slices of their inputs."""
    passThrough: bool = False
    """The op returns its single input unchanged (``Identity``, ``StopGradient``)."""
    shapeOnly: bool = False
    """The op reads only its inputs' shapes and data types, never their values (``Shape``,
    ``ZerosLike``): an executor may compute it once when those shapes are statically known."""
    repeatsInput: bool = False
    """The output is input 0 broadcast to the output's shape by numpy's rules (``BroadcastTo``,
    ``ExpandDims``)."""

    def refPositions(self, numInputs: int) -> frozenset[int]:
        """Positions (among ``numInputs`` flat inputs) of reference inputs."""
        if not any(i.isRef for i in self.inputs):
            return frozenset()
        # reference inputs are never lists, so they sit before any list input
        return frozenset(n for n, i in enumerate(self.inputs) if i.isRef and n < numInputs)

    def attrDef(self, name: str) -> AttrDef | None:
        """Returns the definition of attribute ``name``, if any."""
        for a in self.attrs:
            if a.name == name:
                return a
        return None


_OPS: dict[str, OpDef] = {}
_LOCK = threading.Lock()


def registerOp(opdef: OpDef) -> OpDef:
    """Adds an op spec to the table; an op type is registered once.

    Raises:
        ValueError: ``opdef.type`` is already registered.
    """
    with _LOCK:
        if opdef.type in _OPS:
            raise IllegalArgumentError(f"op type {opdef.type!r} is already registered")
        _OPS[opdef.type] = opdef
    return opdef


def lookupOp(opType: str) -> OpDef | None:
    """Returns the spec of ``opType``, or ``None``."""
    return _OPS.get(opType)


def registeredOps() -> list[OpDef]:
    """Returns every registered spec, in registration order."""
    return list(_OPS.values())
