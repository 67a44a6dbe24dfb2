"""The numpy backend: the embedded default, running graphs with numpy kernels on the CPU.

Each distinct request (which outputs are fed, fetched, which ops are targets) is compiled once
into a plan, and every run of the request is then one call of a Python function the plan
generated for it. Compiling:

1. keeps the ops the fetches and targets need, in creation order (a topological order, since an
   op can only consume ops created before it);
2. binds each op's kernel (``registry``) to what the plan knows before running: attributes,
   constant inputs, static shapes, the memory limit;
3. folds constants: an op whose inputs are constant (or, for an op that reads only shapes, whose
   input shapes are statically known) is computed once, now, unless it is stateful (variables,
   random numbers), has control inputs, fails, or makes a large tensor; ops left with no reader
   are dropped, except stateful ones and those known to fail;
4. passes values through the ops that return their input unchanged (``Identity``,
   ``StopGradient``);
5. generates straight-line code: one line per kernel call, each value a local variable deleted
   after its last use, a failure mapped back to its op by the line it happened on.

A run whose inputs are large takes a second generated function: elementwise ops on floating
point tensors are fused into groups that run slice by slice, every intermediate in cache, on
all cores; a group writes its result into the buffer of an input that dies there, or of a value
that died earlier in the run, instead of asking for new memory (the plan knows which buffers
nothing else can see). Both functions compute every element with the same numpy kernels, so
their results are identical. A plan keeps nothing between runs, so one session serves several
threads at once. See ``docs/performance.md``.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from attrs import frozen

from tfops.backend.base import Executor, Request, SessionConfig
from tfops.backend.numpy import kernels as _kernels  # registers the built-in kernels
from tfops.backend.numpy.compiler import _Context
from tfops.backend.numpy.options import NumpyOptions
from tfops.backend.numpy.plan import _Plan
from tfops.backend.numpy.registry import (
    Kernel,
    KernelSite,
    NumpyKernel,
    broadcasting,
    checkAllocation,
    elementwise,
    lookupKernel,
    registeredKernels,
    registerKernel,
)
from tfops.backend.numpy.state import KernelContext, Resources
from tfops.graph import Graph
from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TType

__all__ = [
    "Kernel",
    "KernelContext",
    "KernelSite",
    "NumpyBackend",
    "NumpyKernel",
    "NumpyOptions",
    "Resources",
    "broadcasting",
    "checkAllocation",
    "elementwise",
    "lookupKernel",
    "registerKernel",
    "registeredKernels",
]

del _kernels


class NumpyBackend:
    """Runs graphs with numpy kernels (``Session(graph, backend=NumpyBackend(...))``; the
    default ``backend="numpy"`` is ``NumpyBackend()``).

    Args:
        options: how requests are compiled and run (thresholds of folding and fusion, threads).
    """

    def __init__(self, options: NumpyOptions | None = None) -> None:
        self._options = options if options is not None else NumpyOptions()
        self._lock = threading.Lock()
        self._executor: ThreadPoolExecutor | None = None

    @property
    def name(self) -> str:
        """``"numpy"``."""
        return "numpy"

    @property
    def options(self) -> NumpyOptions:
        """The options this backend compiles with."""
        return self._options

    def hasKernel(self, opType: str) -> bool:
        """Whether a numpy kernel is registered for ``opType``."""
        return lookupKernel(opType) is not None

    def open(self, graph: Graph, config: SessionConfig) -> Executor:
        """Opens the state of one session: its variables, generators and plans."""
        return _NumpyExecutor(_Context(Resources(), config, self._options, self._threads))

    def _threads(self) -> ThreadPoolExecutor:
        """The pool large fused groups run on, made at first use (``options.threads - 1``
        workers: the calling thread takes a share too)."""
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max(1, self._options.threads - 1), thread_name_prefix="tfops"
                )
            return self._executor

    def __repr__(self) -> str:
        return f"NumpyBackend({self._options!r})"


@frozen
class _NumpyExecutor:
    """One session's state on the numpy backend."""

    context: _Context

    def compile(
        self,
        feeds: tuple[Output[TType], ...],
        fetches: tuple[Output[TType], ...],
        targets: tuple[Operation, ...],
    ) -> Request:
        return _Plan(self.context, feeds, fetches, targets)

    def close(self) -> None:
        with self.context.resources.lock:
            self.context.resources.variables.clear()
            self.context.resources.generators.clear()
