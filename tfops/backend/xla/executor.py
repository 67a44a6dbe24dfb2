"""Compiling a request to JAX: the needed ops lowered into one traced function per device
segment, ``jax.jit``-compiled once, run with the session's state (variables, random keys) kept
on the devices between runs.

The segments are made in ``segments.py``; each op is traced into its segment's function by
``tracing.py``. This module holds the session's ``XlaExecutor`` and the compiled
``_XlaRequest``: its jitted functions, and running them.
"""

from __future__ import annotations

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
from tfops.backend.requests import neededOps
from tfops.backend.xla.registry import lookupLowering, randomStateName
from tfops.backend.xla.segments import Segment, linkSegments, placeSegments
from tfops.backend.xla.tracing import lower
from tfops.errors import InvalidArgumentError, UnimplementedError
from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TType

if TYPE_CHECKING:
    from tfops.backend.xla import XlaBackend

Array = np.ndarray[Any, Any]

_ROUNDED = {"xla_allow_excess_precision": False}
"""XLA's compiler options for every request: each half-precision value is rounded to its type
where it is computed, as TensorFlow's kernels round it. (By default XLA may keep such a value in
single precision as it flows into the next op, as it does on GPUs: a float16 tensor then reads
one value when fetched and another where an op reads it.)"""


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
                    op,
                    f"the xla backend has no lowering for op type {op._type}; register "
                    "one with tfops.backend.xla.registerLowering, or run this graph on the "
                    "numpy backend",
                )
        self._mesh = backend._mesh()
        self._segments = placeSegments(ops, executor.config, backend._defaultDevice(), self._mesh)
        linkSegments(self._segments, fed, fetches)
        self._writes = any(s.writes for s in self._segments)
        self._checked = executor.config.checkNumerics

    # -- compiling ---------------------------------------------------------------------------
    def _function(self, segment: Segment) -> Callable[..., Any]:
        """The segment's jitted function of (inputs, state, constants)."""
        if segment.function is not None:
            return segment.function
        config = self._executor.config

        def run(
            inputs: tuple[Any, ...],
            state: dict[str, Any],
            constants: tuple[Any, ...],
            statics: tuple[_Static, ...],
        ) -> tuple[Any, ...]:
            values: dict[Output[TType], Any] = dict(zip(segment.inputs, inputs, strict=True))
            values.update(zip(segment.constants, constants, strict=True))
            values.update((o, s.value) for o, s in zip(segment.statics, statics, strict=True))
            state = dict(state)
            checks: list[tuple[Operation, Any, Any, Any]] = []
            for op in segment.ops:
                lower(op, values, state, checks, config)
            return (
                tuple(values[o] for o in segment.outputs),
                state,
                [c[2] for c in checks],
                [c[3] for c in checks],
            )

        if self._mesh is not None:
            replicated = NamedSharding(self._mesh, PartitionSpec())
            # everything a run returns is replicated: every host can read its fetches
            function = jax.jit(
                run, static_argnums=3, out_shardings=replicated, compiler_options=_ROUNDED
            )
        else:
            function = jax.jit(run, static_argnums=3, compiler_options=_ROUNDED)
        segment.function = function
        return function

    def _checksOf(
        self,
        segment: Segment,
        inputs: tuple[Any, ...],
        state: dict[str, Any],
        constants: tuple[Any, ...],
        statics: tuple[_Static, ...],
    ) -> list[tuple[Operation, Any]]:
        """The ops and messages of the segment's run-time checks, in order (traced again,
        without compiling, to recover what the compiled function returns only as flags)."""
        found: list[tuple[Operation, Any]] = []
        config = self._executor.config

        def trace(
            inputs: tuple[Any, ...], state: dict[str, Any], constants: tuple[Any, ...]
        ) -> int:
            values: dict[Output[TType], Any] = dict(zip(segment.inputs, inputs, strict=True))
            values.update(zip(segment.constants, constants, strict=True))
            values.update((o, s.value) for o, s in zip(segment.statics, statics, strict=True))
            checks: list[tuple[Operation, Any, Any, Any]] = []
            for op in segment.ops:
                lower(op, values, dict(state), checks, config)
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
                inputs, segmentState, constants, statics
            )
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

    def _put(self, segment: Segment, value: Any) -> Any:
        """A value on the segment's device (split along its first axis over the devices when
        the backend runs data parallel and the axis divides evenly)."""
        mesh = self._mesh
        if mesh is None:
            return jax.device_put(value, segment.device)
        shape = np.shape(value)
        if shape and shape[0] % mesh.size == 0:
            return jax.device_put(value, NamedSharding(mesh, PartitionSpec("data")))
        return jax.device_put(value, NamedSharding(mesh, PartitionSpec()))

    def _segmentState(self, segment: Segment, current: dict[str, Any]) -> dict[str, Any]:
        """What the segment reads of the state; random keys made on first use."""
        state: dict[str, Any] = {}
        for name in segment.stateNames:
            if name not in current and name.startswith("random:"):
                current[name] = self._executor.state[name] = self._newKey(segment, name)
            if name in current:
                state[name] = jax.device_put(current[name], self._replicated(segment))
        return state

    def _replicated(self, segment: Segment) -> Any:
        """Where a value every device needs goes: the segment's device, or all of the mesh."""
        mesh = self._mesh
        return NamedSharding(mesh, PartitionSpec()) if mesh is not None else segment.device

    def _newKey(self, segment: Segment, name: str) -> Any:
        """A random op's key: from its seeds (the same sequence in every session), or fresh
        entropy when both are 0, as TensorFlow does without seeds."""
        op = next(o for o in segment.ops if randomStateName(o) == name)
        seed, seed2 = int(op.attr("seed")), int(op.attr("seed2"))  # type: ignore[call-overload]
        if not seed and not seed2:
            seed, seed2 = secrets.randbits(32), secrets.randbits(32)
        key = jax.random.fold_in(jax.random.key(seed & 0xFFFFFFFF), seed2 & 0xFFFFFFFF)
        return jax.device_put(key, segment.device)

    def _constants(self, segment: Segment) -> tuple[Any, ...]:
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
