"""The nodes of a graph: ``Operation``, and where the user's code created each one."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Mapping, Sequence
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar, cast

from tfops.errors import IllegalArgumentError, IllegalStateError
from tfops.output import Output
from tfops.shape import Shape
from tfops.types import TType

if TYPE_CHECKING:
    import numpy as np

    from tfops.graph import Graph
    from tfops.opdef import OpDef


__all__ = ["Operation", "releaseOutputs", "userSite"]

_LIBRARY_DIRS = tuple(
    os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), pkg) + os.sep
    for pkg in ("tfops", "scope")
)
_EXAMPLES_DIR = os.path.join(_LIBRARY_DIRS[0], "examples") + os.sep
_CONTEXTLIB = contextlib.__file__  # the frames of our own ``with`` blocks are not the user's


def userSite() -> str:
    """Returns ``file:line`` of the innermost caller outside tfops (examples count as user code)."""
    return siteOf(sys._getframe(1))


def siteOf(frame: FrameType | None) -> str:
    """:func:`userSite` from ``frame`` outwards (a caller that knows its own frames are tfops'
    starts further out)."""
    files = _LIBRARY_FILES
    while frame is not None:
        code = frame.f_code
        filename = code.co_filename
        library = files.get(filename)
        if library is None:
            library = _remember(
                files,
                filename,
                (filename.startswith(_LIBRARY_DIRS) or filename == _CONTEXTLIB)
                and not filename.startswith(_EXAMPLES_DIR),
            )
        if not library:
            # one string per call site: a loop's ops share it, and its line is looked up once
            # (by the code's id, checked to be the same code: an id is unique among live objects)
            at = (id(code), frame.f_lasti)
            site = _SITES.get(at)
            if site is None or site[0] is not code:
                site = _remember(_SITES, at, (code, f"{filename}:{frame.f_lineno}"))
            return site[1]
        frame = frame.f_back
    return "<unknown>"


_T = TypeVar("_T")


def _remember(table: dict[Any, _T], key: object, value: _T) -> _T:
    """Stores ``value`` in a cache of :func:`userSite`, emptied when it grows past 65,536
    entries (code made at run time, by ``exec`` or doctests, should not pile up)."""
    if len(table) >= 65_536:
        table.clear()
    table[key] = value
    return value


_LIBRARY_FILES: dict[str, bool] = {}
"""Whether the code of a file is tfops' own (its frames are skipped by :func:`userSite`)."""
_SITES: dict[tuple[int, int], tuple[object, str]] = {}
"""By (code object id, instruction offset): the code, and the ``file:line`` of a call site."""


class Operation:
    """A node of a :class:`Graph`: an op type, named inputs and attributes, typed outputs.

    Operations are created only by an :class:`~tfops.OperationBuilder` (through an op class's
    ``create``) and never change afterwards. They are equal when they have the same graph and
    name.
    """

    __slots__ = (
        "_graph",
        "_name",
        "_type",
        "_inputs",
        "_controlInputs",
        "_attrs",
        "_device",
        "_consumers",
        "_opdef",
        "_site",
        "_id",
        "_hash",
        "_out",
        "_outSeq",
        "_values",
        "__weakref__",  # an eager op's outputs point back to it weakly (``tfops.eager``)
    )

    _values: tuple[np.ndarray[Any, Any], ...]  # an eager op's output values; unset in a graph

    def __init__(
        self,
        graph: Graph,
        name: str,
        opdef: OpDef,
        inputs: tuple[Output[TType], ...],
        controlInputs: tuple[Operation, ...],
        attrs: Mapping[str, object],
        device: str,
        outputTypes: tuple[type[TType], ...],
        outputShapes: tuple[Shape, ...],
        site: str,
    ) -> None:
        self._graph = graph
        self._name = name
        self._type = opdef.type
        self._opdef = opdef
        self._inputs = inputs
        self._controlInputs = controlInputs
        self._attrs = attrs if type(attrs) is dict else dict(attrs)  # the builder's own
        self._device = device
        # the names of the ops that read an output of this one, in the order they were added
        # (a dict: one entry per consumer, removed in constant time when a failed construction
        # is undone; of names, not ops, so that the garbage collector does not track it)
        self._consumers: dict[str, None] = {}
        self._site = site
        self._id = -1
        self._hash = hash(name) ^ id(graph)
        # an op's one output (most ops') is held directly, without a tuple around it: one
        # object fewer per op for the cycle collector to track and walk
        self._out: Output[TType] | None
        self._outSeq: Sequence[Output[TType]] | _Released  # the outputs when not one
        if len(outputTypes) == 1:
            self._out = Output(self, 0, outputTypes[0], outputShapes[0])
            self._outSeq = ()
        else:
            self._out = None
            self._outSeq = tuple(
                Output(self, i, t, s)
                for i, (t, s) in enumerate(zip(outputTypes, outputShapes, strict=True))
            )

    @property
    def _outs(self) -> Sequence[Output[TType]]:
        """The outputs, in order (made again, equal, by an op whose outputs were released)."""
        out = self._out
        if out is not None:
            return (out,)
        outs = self._outSeq
        return outs.outputsOf(self) if isinstance(outs, _Released) else outs

    def graph(self) -> Graph:
        """Returns the graph this operation belongs to."""
        return self._graph

    def name(self) -> str:
        """Returns the full name (with its scope path)."""
        return self._name

    def type(self) -> str:
        """Returns the op type, e.g. ``"StopGradient"``."""
        return self._type

    def numOutputs(self) -> int:
        """Returns the number of outputs."""
        return 1 if self._out is not None else len(self._outs)

    def output(self, idx: int) -> Output[TType]:
        """Returns the ``idx``-th output."""
        out = self._out
        if out is not None and idx == 0:
            return out
        outs = self._outs
        if not 0 <= idx < len(outs):
            raise IllegalArgumentError(
                f"op '{self._name}' of type {self._type} has {len(outs)} "
                f"output(s); there is no output {idx}"
            )
        return outs[idx]

    def outputs(self) -> list[Output[TType]]:
        """Returns every output, in order."""
        return list(self._outs)

    def numInputs(self) -> int:
        """Returns the number of data inputs."""
        return len(self._inputs)

    def input(self, idx: int) -> Output[TType]:
        """Returns the ``idx``-th data input."""
        return self._inputs[idx]

    def inputs(self) -> tuple[Output[TType], ...]:
        """Returns every data input, in order."""
        return self._inputs

    def controlInputs(self) -> tuple[Operation, ...]:
        """Returns the operations that must run before this one."""
        return self._controlInputs

    def consumers(self) -> list[Operation]:
        """Returns the operations that take an output of this one as a data input.

        Raises:
            IllegalStateError: the graph is closed (it keeps no operations any more).
        """
        graph = self._graph
        with graph._lock:  # never an op another thread's construction may still undo
            graph._checkOpen()
            byName = graph._byName
            return [byName[name] for name in self._consumers]

    def device(self) -> str:
        """Returns the requested device ("" when unset)."""
        return self._device

    def attr(self, name: str) -> object:
        """Returns the value of attribute ``name`` (TensorFlow's attribute names)."""
        try:
            return self._attrs[name]
        except KeyError:
            raise IllegalArgumentError(
                f"op '{self._name}' of type {self._type} has no attribute {name!r} "
                f"(it has: {', '.join(sorted(self._attrs)) or 'none'})"
            ) from None

    def attrs(self) -> Mapping[str, object]:
        """Returns every attribute."""
        return dict(self._attrs)

    def creationSite(self) -> str:
        """Returns ``file:line`` of the user code that created this operation."""
        return self._site

    def op(self) -> Operation:
        """Returns this operation (so it can stand wherever an op is expected)."""
        return self

    def _tensor(self, index: int) -> np.ndarray[Any, Any]:
        """The value of output ``index``: an eager op's (``tfops.eager``); a graph's has none."""
        raise IllegalStateError(
            f"'{self._name}:{index}' is a tensor of a graph: graph tensors must be fetched by "
            "running a session (Session(graph).runner().fetch(x).run()[0]); asTensor() gives "
            "values in eager mode (Ops.create() or Ops.create(EagerSession()))"
        )

    def _refInputs(self) -> frozenset[int]:
        """Positions of the inputs that are variable references (``InputDef.isRef``)."""
        return self._opdef.refPositions(len(self._inputs))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Operation)
            and self._graph is other._graph
            and self._name == other._name
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"<Operation '{self._name}' type={self._type}>"


class _Released(tuple[object, ...]):
    """What an op of a closed graph keeps of its outputs (:func:`releaseOutputs`): the data type
    and the shape of each, one after the other."""

    __slots__ = ()

    def outputsOf(self, op: Operation) -> tuple[Output[TType], ...]:
        """``op``'s outputs, equal to those it had (outputs compare by op and index)."""
        return tuple(
            Output(op, i, cast("type[TType]", self[2 * i]), cast("Shape", self[2 * i + 1]))
            for i in range(len(self) // 2)
        )


def releaseOutputs(op: Operation) -> None:
    """Makes ``op`` keep the data types and shapes of its outputs instead of the outputs, which
    hold ``op``: without the reference cycle, an op nobody references is freed at once rather
    than when Python's cycle collector next runs (what ``Graph.close`` does to its ops)."""
    out = op._out
    if out is not None:
        # in this order: a thread reading the op meanwhile finds the output or its kind
        op._outSeq = _Released((out._dtype, out._shape))
        op._out = None
    elif type(outs := op._outSeq) is tuple:  # (not weakly held outputs, nor released ones)
        op._outSeq = _Released(
            k for o in cast("tuple[Output[TType], ...]", outs) for k in (o._dtype, o._shape)
        )
