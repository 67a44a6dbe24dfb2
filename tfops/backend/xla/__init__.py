"""The XLA backend: tfops graphs compiled by XLA through JAX, on CPUs, GPUs and several devices.

``Session(graph, backend="xla")`` (or ``backend=XlaBackend(...)``) lowers each distinct request
to one JAX function of the fed values and the session's state (variables, random keys),
``jax.jit``-compiles it once and caches it. Variables live on the device between runs; fetches
come back as numpy arrays the caller owns. Ops placed with ``withDevice`` run on that device (a
request spanning devices runs as one compiled function per device); with several ``devices``,
the backend runs data parallel: feeds whose first axis divides evenly are split along it across
the devices, everything else is replicated, and XLA partitions the computation.

Data types are TensorFlow's, float64 and int64 included: requests are traced and run in JAX's
64-bit mode, turned on for the duration of each call only (``jax.enable_x64``), so the user's
own JAX configuration is never changed. Random ops draw from ``jax.random`` with one key per op
and session, seeded as the numpy backend seeds its generators: the same distributions and the
same repeatability with seeds, not numpy's numbers.

An op without a lowering raises ``UnimplementedError`` naming the op and the backend when a
request that needs it is compiled (there is no host-callback fallback: a request either runs
entirely in XLA or not at all).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh

from tfops.backend.base import Executor, SessionConfig
from tfops.backend.xla import lowerings as _lowerings  # registers the built-in lowerings
from tfops.backend.xla.devices import describe, parseDevice, resolveDevice
from tfops.backend.xla.executor import XlaExecutor
from tfops.backend.xla.registry import (
    Lowering,
    LoweringSite,
    lookupLowering,
    registeredLowerings,
    registerLowering,
)
from tfops.errors import IllegalArgumentError
from tfops.graph import Graph

__all__ = [
    "Lowering",
    "LoweringSite",
    "XlaBackend",
    "lookupLowering",
    "registerLowering",
    "registeredLowerings",
]

del _lowerings


class XlaBackend:
    """Runs graphs with XLA, through JAX (``Session(graph, backend=XlaBackend(...))``; the name
    ``backend="xla"`` is ``XlaBackend()``).

    Args:
        devices: where requests run, as TensorFlow device names (``"/device:GPU:0"``) or JAX
            devices; by default JAX's default device. With several, every request runs data
            parallel across them: feeds are split along their first axis (when it divides
            evenly), variables and the rest replicated.

    Raises:
        ValueError: a device this process does not have.
    """

    def __init__(self, devices: Sequence[str | Any] | None = None) -> None:
        self._devices: list[Any] | None = None
        if devices is not None:
            found = []
            for d in devices:
                if isinstance(d, str):
                    name = parseDevice(d)
                    device = resolveDevice(name) if name is not None else None
                    if device is None:
                        raise IllegalArgumentError(
                            f"XlaBackend: no device {d!r} in this process (devices: "
                            f"{', '.join(describe((x.platform, x.id)) for x in jax.devices())})"
                        )
                    found.append(device)
                else:
                    found.append(d)
            if not found:
                raise IllegalArgumentError("XlaBackend: devices must name at least one device")
            self._devices = found

    @property
    def name(self) -> str:
        """``"xla"``."""
        return "xla"

    def devices(self) -> list[Any]:
        """The JAX devices requests run on (JAX's default device unless given)."""
        return list(self._devices) if self._devices is not None else [jax.devices()[0]]

    def hasKernel(self, opType: str) -> bool:
        """Whether an XLA lowering is registered for ``opType``."""
        return lookupLowering(opType) is not None

    def open(self, graph: Graph, config: SessionConfig) -> Executor:
        """Opens the state of one session: its variables and random keys."""
        return XlaExecutor(self, config)

    def _defaultDevice(self) -> Any:
        return self.devices()[0]

    def _mesh(self) -> Mesh | None:
        """The mesh of a data parallel backend (one axis, ``"data"``), else ``None``."""
        if self._devices is None or len(self._devices) < 2:
            return None
        return Mesh(np.array(self._devices), ("data",))

    def __repr__(self) -> str:
        return f"XlaBackend(devices={[str(d) for d in self.devices()]})"
