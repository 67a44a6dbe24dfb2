"""Splitting a request for the XLA backend into segments: consecutive ops on one device, each
compiled as one function, and what each reads from outside, hands on and keeps in state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from tfops.backend.base import SessionConfig
from tfops.backend.xla.devices import describe, parseDevice, resolveDevice
from tfops.backend.xla.registry import lookupLowering, randomStateName
from tfops.errors import InvalidArgumentError
from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TType

Array = np.ndarray[Any, Any]

CONSTANT_ARGUMENT = 256
"""Elements: a constant this large is passed to the compiled function as an argument (put on
its device once, when the request is compiled) rather than written into the XLA program."""


class Segment:
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


def placeSegments(
    ops: list[Operation], config: SessionConfig, default: Any, mesh: Any
) -> list[Segment]:
    """Splits the ops, in order, into runs of one device each (``default``, the backend's
    device, for an op not placed; with a ``mesh``, every op runs on all of it)."""
    segments: list[Segment] = []
    for op in ops:
        device = default
        name = parseDevice(op._device) if op._device else None
        if name is not None:
            found = resolveDevice(name)
            if found is None and not config.allowSoftPlacement:
                raise InvalidArgumentError(
                    op,
                    f"op '{op._name}' is placed on {describe(name)} (withDevice"
                    f"({op._device!r})), which this process does not have (devices: "
                    f"{_available()}); create the session with allowSoftPlacement=True to "
                    "run it on another device",
                )
            if found is not None and mesh is None:
                device = found
        if not segments or segments[-1].device != device:
            segments.append(Segment(device, []))
        segments[-1].ops.append(op)
    return segments


def linkSegments(
    segments: list[Segment], fed: set[Output[TType]], fetches: tuple[Output[TType], ...]
) -> None:
    """Works out what each segment reads from outside, hands on, and keeps in state."""
    producer: dict[Output[TType], int] = {}
    for k, segment in enumerate(segments):
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
                            later = segments[producer[i]]
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
    for f in fetches:
        if f not in fed:
            segment = segments[producer[f]]
            if f not in segment.outputs:
                segment.outputs.append(f)


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
            positions = registered.staticPositions(len(inputs))
            demand.update(i for k, i in enumerate(inputs) if k in positions)
        opdef = op._opdef
        if not opdef.stateful and not opdef.shapeOnly and any(o in demand for o in op._outs):
            demand.update(inputs)
    return demand


def _available() -> str:
    return ", ".join(f"/device:{d.platform.upper()}:{d.id}" for d in jax.devices())
