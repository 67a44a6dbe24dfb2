"""Compiling a request to JAX: the needed ops lowered into one traced function per device
segment, ``jax.jit``-compiled once, run with the session's state (variables, random keys) kept
on the devices between runs.
"""

from __future__ import annotations

import math
import secrets
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import NamedSharding
from jax.sharding import PartitionSpec as _PartitionSpec

from tfops.backend.base import SessionConfig
from tfops.backend.numpy.registry import KernelSite, lookupKernel
from tfops.backend.requests import neededOps
from tfops.backend.xla.devices import describe, parseDevice, resolveDevice
from tfops.backend.xla.registry import (
    LoweringSite,
    isStatic,
    lookupLowering,
    randomStateName,
)
from tfops.errors import (
    InternalError,
    InvalidArgumentError,
    OpError,
    ResourceExhaustedError,
    UnimplementedError,
)
from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TFloating, TType

if TYPE_CHECKING:
    from tfops.backend.xla import XlaBackend

Array = np.ndarray[Any, Any]

CONSTANT_ARGUMENT = 256
"""Elements: a constant this large is passed to the compiled function as an argument (put on
its device once, when the request is compiled) rather than written into the XLA program."""


def PartitionSpec(*axes: str) -> Any:
    """``jax.sharding.PartitionSpec`` (typed: JAX's own constructor is not)."""
    return _PartitionSpec(*axes)  # type: ignore[no-untyped-call]


class XlaExecutor:
    """One session's state on the XLA backend: variables and random keys, as device arrays."""

    def __init__(self, backend: XlaBackend, config: SessionConfig) -> None:
        self.backend: XlaBackend = backend
        self.config: SessionConfig = config
        self.state: dict[str, Any] = {}
        # held by a run that writes state, from reading it to storing the new values
        self.lock: threading.RLock = threading.RLock()

    def compile(
        self,
        feeds: tuple[Output[TType], ...],
        fetches: tuple[Output[TType], ...],
        targets: tuple[Operation, ...],
    ) -> _XlaRequest:
        return _XlaRequest(self, feeds, fetches, targets)

    def close(self) -> None:
        with self.lock:
            self.state.clear()


class _Segment:
    """Consecutive ops of a request placed on one device (all of them, in the common case),
    compiled as one function of the values it reads from outside and of the session state."""

    def __init__(self, device: Any, ops: list[Operation]) -> None:
        self.device = device
        self.ops = ops
        self.inputs: list[Output[TType]] = []  # fed, or made by an earlier segment
        self.statics: list[Output[TType]] = []  # of those, the ones lowerings need as values
        self.outputs: list[Output[TType]] = []  # fetched, or read by a later segment
        self.stateNames: list[str] = []  # variables and random keys it reads or writes
        self.writes = False
        self.constants: dict[Output[TType], Any] = {}  # large constants, given as arguments
        self.function: Callable[..., Any] | None = None
        self.placed: tuple[Any, ...] | None = None  # the constants on the device(s)


class _XlaRequest:
    """A compiled request: its segments and their jitted functions."""

    def __init__(
        self,
        executor: XlaExecutor,
        feeds: tuple[Output[TType], ...],
        fetches: tuple[Output[TType], ...],
        targets: tuple[Operation, ...],
    ) -> None:
        self._executor = executor
        self._feeds = feeds
        self._fetches = fetches
        fed = set(feeds)
        ops = neededOps(fed, fetches, targets)
        backend = executor.backend
        for op in ops:
            if lookupLowering(op._type) is None:
                raise UnimplementedError(
                    op, f"the xla backend has no lowering for op type {op._type}; register "
                    "one with tfops.backend.xla.registerLowering, or run this graph on the "
                    "numpy backend"
                )
        self._mesh = backend._mesh()
        self._segments = self._place(ops)
        self._link(fed)
        self._writes = any(s.writes for s in self._segments)
        self._checked = executor.config.checkNumerics

    # -- compiling ---------------------------------------------------------------------------
    def _place(self, ops: list[Operation]) -> list[_Segment]:
        """Splits the ops, in order, into runs of one device each."""
        config = self._executor.config
        default = self._executor.backend._defaultDevice()
        segments: list[_Segment] = []
        for op in ops:
            device = default
            name = parseDevice(op._device) if op._device else None
            if name is not None:
                found = resolveDevice(name)
                if found is None and not config.allowSoftPlacement:
                    raise InvalidArgumentError(
                        op, f"op '{op._name}' is placed on {describe(name)} (withDevice"
                        f"({op._device!r})), which this process does not have (devices: "
                        f"{_available()}); create the session with allowSoftPlacement=True to "
                        "run it on another device"
                    )
                if found is not None and self._mesh is None:
                    device = found
            if not segments or segments[-1].device != device:
                segments.append(_Segment(device, []))
            segments[-1].ops.append(op)
        return segments

    def _link(self, fed: set[Output[TType]]) -> None:
        """Works out what each segment reads from outside, hands on, and keeps in state."""
        producer: dict[Output[TType], int] = {}
        for k, segment in enumerate(self._segments):
            names: list[str] = []
            for op in segment.ops:
                refs = op._refInputs()
                for n, i in enumerate(op._inputs):
                    if n in refs:
                        names.append(i._op._name)
                    elif i in fed or producer.get(i, k) != k:
                        if i not in segment.inputs:
                            segment.inputs.append(i)
                            if i in producer:
                                later = self._segments[producer[i]]
                                if i not in later.outputs:
                                    later.outputs.append(i)
                if op._opdef.stateful:
                    if not op._inputs and op._outs and op._outs[0]._op._opdef.outputs[0].isRef:
                        names.append(op._name)  # a variable: its value is read
                    else:
                        segment.writes = True
                    if "seed" in op._attrs:
                        names.append(randomStateName(op))
                if op._type == "Const":
                    value: Array = op._attrs["value"]  # type: ignore[assignment]
                    if value.size >= CONSTANT_ARGUMENT:
                        segment.constants[op._outs[0]] = value
                for o in op._outs:
                    if o not in fed:
                        producer[o] = k
            segment.stateNames = list(dict.fromkeys(names))
            demand = _staticDemand(segment.ops)
            segment.statics = [i for i in segment.inputs if i in demand]
            segment.inputs = [i for i in segment.inputs if i not in segment.statics]
        for f in self._fetches:
            if f not in fed:
                segment = self._segments[producer[f]]
                if f not in segment.outputs:
                    segment.outputs.append(f)

    def _function(self, segment: _Segment) -> Callable[..., Any]:
        """The segment's jitted function of (inputs, state, constants)."""
        if segment.function is not None:
            return segment.function
        config = self._executor.config

        def run(inputs: tuple[Any, ...], state: dict[str, Any], constants: tuple[Any, ...],
                statics: tuple[_Static, ...]) -> tuple[Any, ...]:
            values: dict[Output[TType], Any] = dict(zip(segment.inputs, inputs, strict=True))
            values.update(zip(segment.constants, constants, strict=True))
            values.update((o, s.value) for o, s in zip(segment.statics, statics, strict=True))
            state = dict(state)
            checks: list[tuple[Operation, Any, Any, Any]] = []
            for op in segment.ops:
                _lower(op, values, state, checks, config)
            return (tuple(values[o] for o in segment.outputs), state, [c[2] for c in checks],
                    [c[3] for c in checks])

        if self._mesh is not None:
            replicated = NamedSharding(self._mesh, PartitionSpec())
            # everything a run returns is replicated: every host can read its fetches
            function = jax.jit(run, static_argnums=3, out_shardings=replicated)
        else:
            function = jax.jit(run, static_argnums=3)
        segment.function = function
        return function

    def _checksOf(self, segment: _Segment, inputs: tuple[Any, ...], state: dict[str, Any],
                  constants: tuple[Any, ...], statics: tuple[_Static, ...]
                  ) -> list[tuple[Operation, Any]]:
        """The ops and messages of the segment's run-time checks, in order (traced again,
        without compiling, to recover what the compiled function returns only as flags)."""
        found: list[tuple[Operation, Any]] = []
        config = self._executor.config

        def trace(inputs: tuple[Any, ...], state: dict[str, Any],
                  constants: tuple[Any, ...]) -> int:
            values: dict[Output[TType], Any] = dict(zip(segment.inputs, inputs, strict=True))
            values.update(zip(segment.constants, constants, strict=True))
            values.update((o, s.value) for o, s in zip(segment.statics, statics, strict=True))
            checks: list[tuple[Operation, Any, Any, Any]] = []
            for op in segment.ops:
                _lower(op, values, dict(state), checks, config)
            found.extend((c[0], c[1]) for c in checks)
            return 0

        jax.eval_shape(trace, inputs, state, constants)
        return found

    # -- running -----------------------------------------------------------------------------
    def run(self, values: Sequence[Array]) -> list[Array]:
        executor = self._executor
        with jax.enable_x64(True):
            if self._writes:
                with executor.lock:
                    return self._run(values)
            return self._run(values)

    def _run(self, fedValues: Sequence[Array]) -> list[Array]:
        executor = self._executor
        known: dict[Output[TType], Any] = dict(zip(self._feeds, fedValues, strict=True))
        state = executor.state
        updates: dict[str, Any] = {}
        for segment in self._segments:
            inputs = tuple(self._put(segment, known[i]) for i in segment.inputs)
            statics = tuple(_Static(np.asarray(known[i])) for i in segment.statics)
            current = {**state, **updates}
            segmentState = self._segmentState(segment, current)
            constants = self._constants(segment)
            outputs, newState, flags, payloads = self._function(segment)(
                inputs, segmentState, constants, statics)
            if flags and not bool(np.all(np.asarray(jnp.stack(flags)))):
                failed = np.asarray(jnp.stack(flags))
                checks = self._checksOf(segment, inputs, segmentState, constants, statics)
                k = int(np.argmin(failed))
                op, message = checks[k]
                if callable(message):
                    message = message(*(np.asarray(v) for v in payloads[k]))
                raise InvalidArgumentError(op, message)
            known.update(zip(segment.outputs, outputs, strict=True))
            updates.update(newState)
        if updates:
            state.update(updates)
        return [np.array(known[f]) for f in self._fetches]

    def _put(self, segment: _Segment, value: Any) -> Any:
        """A value on the segment's device (split along its first axis over the devices when
        the backend runs data parallel and the axis divides evenly)."""
        mesh = self._mesh
        if mesh is None:
            return jax.device_put(value, segment.device)
        shape = np.shape(value)
        if shape and shape[0] % mesh.size == 0:
            return jax.device_put(value, NamedSharding(mesh, PartitionSpec("data")))
        return jax.device_put(value, NamedSharding(mesh, PartitionSpec()))

    def _segmentState(self, segment: _Segment, current: dict[str, Any]) -> dict[str, Any]:
        """What the segment reads of the state; random keys made on first use."""
        state: dict[str, Any] = {}
        for name in segment.stateNames:
            if name not in current and name.startswith("random:"):
                current[name] = self._executor.state[name] = self._newKey(segment, name)
            if name in current:
                state[name] = jax.device_put(current[name], self._replicated(segment))
        return state

    def _replicated(self, segment: _Segment) -> Any:
        """Where a value every device needs goes: the segment's device, or all of the mesh."""
        mesh = self._mesh
        return NamedSharding(mesh, PartitionSpec()) if mesh is not None else segment.device

    def _newKey(self, segment: _Segment, name: str) -> Any:
        """A random op's key: from its seeds (the same sequence in every session), or fresh
        entropy when both are 0, as TensorFlow does without seeds."""
        op = next(o for o in segment.ops if randomStateName(o) == name)
        seed, seed2 = int(op.attr("seed")), int(op.attr("seed2"))  # type: ignore[call-overload]
        if not seed and not seed2:
            seed, seed2 = secrets.randbits(32), secrets.randbits(32)
        key = jax.random.fold_in(jax.random.key(seed & 0xFFFFFFFF), seed2 & 0xFFFFFFFF)
        return jax.device_put(key, segment.device)

    def _constants(self, segment: _Segment) -> tuple[Any, ...]:
        """The segment's large constants on its device(s), put there once."""
        placed = segment.placed
        if placed is None:
            target = self._replicated(segment)
            placed = tuple(jax.device_put(v, target) for v in segment.constants.values())
            segment.placed = placed
        return placed


class _Static:
    """A value a compiled function is specialized to (a static argument of ``jax.jit``):
    equal, and hashed alike, when its data type, shape and bytes are."""

    __slots__ = ("value", "_key")

    def __init__(self, value: Array) -> None:
        self.value = value
        self._key = (value.dtype.str, value.shape, value.tobytes())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Static) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)


def _staticDemand(ops: list[Operation]) -> set[Output[TType]]:
    """The values ``ops`` need known when the request is compiled: what goes into a static
    input of a lowering, and, backwards, the inputs of the ops that compute it (which the
    engine then computes at compile time), except through ops that read only shapes."""
    demand: set[Output[TType]] = set()
    for op in reversed(ops):
        registered = lookupLowering(op._type)
        refs = op._refInputs()
        inputs = [i for n, i in enumerate(op._inputs) if n not in refs]
        if registered is not None and registered.static:
            count = len(inputs)
            demand.update(i for k, i in enumerate(inputs)
                          if k in registered.static or k - count in registered.static)
        opdef = op._opdef
        if not opdef.stateful and not opdef.shapeOnly and any(o in demand for o in op._outs):
            demand.update(inputs)
    return demand


def _available() -> str:
    return ", ".join(f"/device:{d.platform.upper()}:{d.id}" for d in jax.devices())


FOLDED = 1 << 12
"""Elements: an op whose inputs are all known when the request is compiled is computed then,
with its numpy kernel, when they and its results are this small (shapes, axes, sizes: what
TensorFlow's XLA bridge calls compile-time constants); larger ones are lowered."""


def _fold(op: Operation, inputs: list[Array], config: SessionConfig) -> list[Array] | None:
    """The op's outputs computed now on its known inputs, or ``None`` to lower it."""
    if any(np.size(v) > FOLDED for v in inputs):
        return None
    registered = lookupKernel(op._type)
    if registered is None:
        return None
    site = KernelSite(op._attrs, tuple(inputs), tuple(i._shape for i in op._inputs),
                      config.memoryLimit)
    try:
        with np.errstate(all="ignore"):
            result = registered.factory(site)(*inputs)
    except Exception:
        return None  # lowered instead: its lowering reports the failure as XLA would
    results = [result] if len(op._outs) == 1 and not op._opdef.outputs[0].countAttr else list(
        result)
    if len(results) != len(op._outs) or any(np.size(r) > FOLDED for r in results):
        return None
    return [np.asarray(r) for r in results]


def _lower(
    op: Operation,
    values: dict[Output[TType], Any],
    state: dict[str, Any],
    checks: list[tuple[Operation, Any, Any, Any]],
    config: SessionConfig,
) -> None:
    """Traces one op: its lowering on its inputs' values, its outputs checked and stored."""
    registered = lookupLowering(op._type)
    assert registered is not None
    refs = op._refInputs()
    if not op._opdef.stateful and op._inputs and not refs and all(
        isStatic(values[i]) for i in op._inputs
    ):
        folded = _fold(op, [np.asarray(values[i]) for i in op._inputs], config)
        if folded is not None:
            values.update(zip(op._outs, folded, strict=True))
            return
    inputs: list[Any] = []
    constants: list[Array | None] = []
    count = len(op._inputs) - len(refs)
    for n, i in enumerate(op._inputs):
        if n in refs:
            continue
        value = values[i]
        known = isStatic(value)
        position = len(inputs)
        if (position in registered.static or position - count in registered.static) and (
                not known):
            raise InvalidArgumentError(
                op, f"input {n} of {op._type} ('{i.name()}') must be known when the request is "
                "compiled on the xla backend: a constant, a shape, or a value fed straight into "
                "it (XLA compiles its value in); the numpy backend takes it at run time"
            )
        inputs.append(np.asarray(value) if known else value)
        constants.append(np.asarray(value) if known else None)
    refNames = tuple(op._inputs[n]._op._name for n in sorted(refs))
    site = LoweringSite(op, tuple(constants), config.memoryLimit, state, checks, refNames)
    try:
        result = registered.lowering(site, *inputs)
    except OpError as e:
        if e.op is None:
            raise type(e)(op, e.message) from None
        raise
    except (ValueError, TypeError, IndexError, ArithmeticError) as e:
        raise InvalidArgumentError(op, str(e)) from e
    outs = op._outs
    results = (result,) if len(outs) == 1 and not op._opdef.outputs[0].countAttr else tuple(
        result)
    if len(results) != len(outs):
        raise InternalError(op, f"the XLA lowering returned {len(results)} value(s) for "
                                f"{len(outs)} output(s)")
    for o, r in zip(outs, results, strict=True):
        if r.dtype != o._dtype.DTYPE:
            raise InternalError(op, f"the XLA lowering made output {o._index} of dtype {r.dtype}, "
                                f"not {o._dtype.NAME}")
        # a variable's value may take another shape (Assign with validate_shape=False)
        if not o._shape.isCompatibleWithArray(r.shape) and not op._opdef.outputs[0].isRef:
            raise InvalidArgumentError(
                op, f"output {o._index} has shape {list(r.shape)}, incompatible with its static "
                f"shape {o._shape}"
            )
        size = math.prod(r.shape) * r.dtype.itemsize
        if size > config.memoryLimit:
            raise ResourceExhaustedError(
                op, f"output '{o.name()}' of shape {list(r.shape)} needs {size:,} bytes, more "
                f"than the session's memory limit of {config.memoryLimit:,} bytes"
            )
        if config.checkNumerics and issubclass(o._dtype, TFloating):
            checks.append((op, f"output {o._index} of '{op._name}' contains nan or inf (the "
                               "session checks numerics: this is the first op of the run to "
                               "produce a non-finite value)", jnp.all(jnp.isfinite(r)), ()))
        values[o] = r
