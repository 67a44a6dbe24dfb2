"""What one session keeps on the numpy backend for its stateful ops, and what their kernels
see of it."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from tfops.operation import Operation

__all__ = ["KernelContext", "Resources"]


class Resources:
    """The state one session keeps for stateful ops: variable values and random generators.

    Values are replaced, never changed in place, under ``lock``: a run that read a value keeps
    it, and concurrent updates (``AssignAdd`` from several threads) are not lost.
    """

    def __init__(self) -> None:
        self.lock: threading.RLock = threading.RLock()
        self.variables: dict[str, np.ndarray[Any, Any]] = {}
        self.generators: dict[str, np.random.Generator] = {}


class KernelContext:
    """What a stateful kernel sees (its first argument): the session's resources, its op, and
    the names of the variables its reference inputs point to (in input order)."""

    __slots__ = ("resources", "op", "refs")

    def __init__(self, resources: Resources, op: Operation, refs: tuple[str, ...]) -> None:
        self.resources: Resources = resources
        self.op: Operation = op
        self.refs: tuple[str, ...] = refs
