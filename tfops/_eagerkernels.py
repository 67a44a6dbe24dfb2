"""How an ``EagerSession`` runs one op: through its backend, as a cached one-op request.

An eager op runs as TensorFlow's eager runtime runs it: its kernel is found in a cache keyed by
the op type, its attributes, its inputs' data types (and, for an op without state, their
shapes) and its device; a miss builds a one-op graph (a ``Placeholder`` per input, then the op),
opens an executor for it on the session's backend and compiles the request that feeds the
placeholders and fetches the op's outputs. A hit only runs that request on the input values.
This is the ``Backend`` protocol a ``Session`` uses, so every backend runs eager ops with its
own kernels, and nothing of a backend's internals is copied here.

The cache keeps at most ``KERNEL_CACHE`` kernels (the least recently used go first). A random
op's kernel holds its generator: with seeds, calls of the same op, attributes and device
continue one sequence, the first call giving what a graph session's first run gives (as
TensorFlow's eager kernel cache does, whose key has no input shapes either); a kernel pushed
out of the cache starts its sequence again.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np

from tfops.backend import Backend, Executor, Request, SessionConfig
from tfops.errors import InternalError, OpError
from tfops.graph import Graph
from tfops.opdef import OpDef
from tfops.operation import Operation
from tfops.output import Output
from tfops.shape import Shape
from tfops.types import TType

__all__ = ["KERNEL_CACHE", "EagerKernels", "heldValue"]

Array = np.ndarray[Any, Any]

KERNEL_CACHE = 256
"""How many compiled one-op requests an ``EagerSession`` keeps."""


def heldValue(opdef: OpDef) -> str | None:
    """The tensor attribute that is the op's value (``Const``'s ``value``): an op without inputs
    whose one output has that attribute's data type holds its value; ``None`` for others."""
    if opdef.inputs or len(opdef.outputs) != 1:
        return None
    typeAttr = opdef.outputs[0].typeAttr
    for a in opdef.attrs:
        if a.kind == "tensor" and a.typeAttr == typeAttr:
            return a.name
    return None


class _Kernel:
    """One compiled one-op request, and the executor that holds its state."""

    __slots__ = ("executor", "request")

    def __init__(self, executor: Executor, request: Request) -> None:
        self.executor = executor
        self.request = request


class EagerKernels:
    """The kernels of one ``EagerSession``: runs its ops on its backend (under its lock)."""

    def __init__(self, backend: Backend, config: SessionConfig) -> None:
        self.backend = backend
        self.config = config
        self._cache: OrderedDict[tuple[Any, ...], _Kernel] = OrderedDict()

    def run(self, op: Operation, values: list[Array]) -> tuple[Array, ...]:
        """The values of ``op``'s outputs, computed from its inputs' ``values``.

        Raises:
            OpError: the backend cannot run the op, or running it failed; the error names
                ``op`` and where the user created it.
        """
        opdef = op._opdef
        held = heldValue(opdef)
        if held is not None:
            value: Array = op._attrs[held]  # type: ignore[assignment]
            return (value,)
        if not op._outs and not opdef.stateful:
            return ()  # an op without outputs or effects (NoOp) has nothing to do
        try:
            results = self._kernel(op).request.run(values)
        except OpError as e:
            raise type(e)(op, e.message) from None
        return tuple(_checked(op, o, r) for o, r in zip(op._outs, results, strict=True))

    def _kernel(self, op: Operation) -> _Kernel:
        stateful = op._opdef.stateful
        attrs = _key(op._attrs)
        key = (
            None
            if attrs is None
            else (
                op._type,
                attrs,
                op._device,
                tuple((i._dtype, None if stateful else i._shape) for i in op._inputs),
            )
        )
        if key is not None:
            kernel = self._cache.get(key)
            if kernel is not None:
                self._cache.move_to_end(key)
                return kernel
        kernel = self._compile(op, stateful)
        if key is not None:
            self._cache[key] = kernel
            if len(self._cache) > KERNEL_CACHE:
                self._cache.popitem(last=False)[1].executor.close()
        return kernel

    def _compile(self, op: Operation, stateful: bool) -> _Kernel:
        """A one-op graph: a placeholder per input (of unknown shape for a stateful op, whose
        kernel serves every shape), then the op with ``op``'s attributes and device."""
        graph = Graph()
        scope = graph.baseScope()
        feeds: list[Output[TType]] = []
        for n, i in enumerate(op._inputs):
            placeholder = (
                scope.opBuilder("Placeholder", f"input_{n}")
                .setAttr("dtype", i._dtype)
                .setAttr("shape", Shape.unknown() if stateful else i._shape)
            )
            feeds.append(placeholder.build().output(0))
        builder = scope.opBuilder(op._type, op._type)
        specs = op._opdef.inputs
        lists = sum(1 for s in specs if s.isList)
        listSize = (len(feeds) - (len(specs) - lists)) // lists if lists else 0
        position = 0
        for spec in specs:
            if spec.isList:
                builder.addInputList(feeds[position : position + listSize])
                position += listSize
            else:
                builder.addInput(feeds[position])
                position += 1
        for name, value in op._attrs.items():
            if op._opdef.attrDef(name) is not None:  # not what the builder derives (a count)
                builder.setAttr(name, value)
        built = builder.setDevice(op._device).build()
        executor = self.backend.open(graph, self.config)
        fetches = tuple(built.outputs())
        request = executor.compile(tuple(feeds), fetches, () if fetches else (built,))
        return _Kernel(executor, request)

    def close(self) -> None:
        """Closes every kernel's executor."""
        while self._cache:
            self._cache.popitem()[1].executor.close()


def _checked(op: Operation, out: Output[TType], result: Any) -> Array:
    """A result as a read-only array, after checking it is what the op's spec promised."""
    value = np.asarray(result)
    if value.dtype != out._dtype.DTYPE:
        raise InternalError(
            op,
            f"the {op._type} kernel returned {value.dtype} for output "
            f"{out._index}, not {out._dtype.NAME}",
        )
    if not out._shape.isCompatibleWithArray(value.shape):
        raise InternalError(
            op,
            f"the {op._type} kernel returned shape {list(value.shape)} for "
            f"output {out._index}, incompatible with {out._shape}",
        )
    value.flags.writeable = False
    return value


def _key(attrs: dict[str, object]) -> tuple[Any, ...] | None:
    """The attributes as a hashable key, or ``None`` when one cannot be compared (then the op's
    kernel is compiled for it alone, and not kept)."""
    parts: list[Any] = []
    for name, value in sorted(attrs.items()):
        if isinstance(value, np.ndarray):
            parts.append((name, value.dtype.str, value.shape, value.tobytes()))
            continue
        if isinstance(value, float) and value != value:
            return None  # nan equals nothing
        try:
            hash(value)
        except TypeError:
            return None
        parts.append((name, type(value), value))
    return tuple(parts)
