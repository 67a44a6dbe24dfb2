"""The seam between a ``Session`` and the engine that runs its graph.

A :class:`Backend` opens an :class:`Executor` for one session: the session's state on that
engine (variable values, random generators, compiled requests). The executor compiles each
distinct request (what is fed, fetched and run) into a :class:`Request` once; running it maps
the fed values to the fetched ones. The session itself checks names, feeds and closed states,
so every backend honours the same API and raises the same errors.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np
from attrs import field, frozen

from tfops.errors import IllegalArgumentError
from tfops.graph import Graph
from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TType

__all__ = [
    "DEFAULT_MEMORY_LIMIT",
    "Backend",
    "Executor",
    "Request",
    "SessionConfig",
]


def _physicalMemory() -> int:
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # not a POSIX system
        return 1 << 34


DEFAULT_MEMORY_LIMIT = _physicalMemory() // 2
"""The largest single tensor a run may allocate, unless ``Session(memoryLimit=...)`` says."""


def _checkLimit(instance: object, attribute: object, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise IllegalArgumentError(
            f"memoryLimit must be a number of bytes (an int >= 0), got {value!r}"
        )


@frozen
class SessionConfig:
    """What a session asks of its backend, whichever it is.

    Attributes:
        checkNumerics: a run that produces nan or inf in a floating point tensor raises
            ``InvalidArgumentError`` naming the first op (in execution order) that made it.
        memoryLimit: the largest tensor, in bytes, a run may create; a larger one raises
            ``ResourceExhaustedError`` before it is allocated.
        allowSoftPlacement: an op placed on a device the backend does not have runs on
            another one, instead of failing when the request is compiled.
    """

    checkNumerics: bool = False
    memoryLimit: int = field(default=DEFAULT_MEMORY_LIMIT, validator=_checkLimit)
    allowSoftPlacement: bool = False


class Request(Protocol):
    """One compiled request of a session: fetched values from fed ones."""

    def run(self, values: Sequence[np.ndarray[Any, Any]]) -> list[np.ndarray[Any, Any]]:
        """Runs with ``values`` fed (in the order of the request's feeds); returns the
        fetched values, in fetch order, as numpy arrays the caller owns."""
        ...


class Executor(Protocol):
    """One session's state on a backend."""

    def compile(
        self,
        feeds: tuple[Output[TType], ...],
        fetches: tuple[Output[TType], ...],
        targets: tuple[Operation, ...],
    ) -> Request:
        """Compiles a request: the ops the fetches and targets need, fed outputs replacing
        their computation.

        Raises:
            UnimplementedError: an op the backend cannot run.
            InvalidArgumentError: an op placed on a device the backend does not have.
        """
        ...

    def close(self) -> None:
        """Frees what the session held on the backend."""
        ...


@runtime_checkable
class Backend(Protocol):
    """An engine that runs tfops graphs (``Session(graph, backend=...)``)."""

    @property
    def name(self) -> str:
        """The backend's name, as ``Session`` accepts it (``"numpy"``, ``"xla"``)."""
        ...

    def hasKernel(self, opType: str) -> bool:
        """Whether the backend can run ops of ``opType``."""
        ...

    def open(self, graph: Graph, config: SessionConfig) -> Executor:
        """Opens an executor for one session of ``graph``."""
        ...
