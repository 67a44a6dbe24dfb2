"""Running a graph: ``Session``, its ``Runner`` builder and the ``Result`` of a run.

The session checks what a request names and feeds, then hands the request to its backend
(``tfops.backend``: the numpy executor by default), which compiles it once and runs it.

This module holds the ``Session`` itself: its cache of compiled requests, its initializers and
its checkpoints. One run is built by a ``Runner`` (``tfops._runner``: what it feeds, fetches and
targets, resolved and checked) and returns a ``Result`` (``tfops._result``); both are imported
from here, their public home.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from types import TracebackType

from scope import HasOp
from tfops._result import FetchKey as FetchKey
from tfops._result import Result
from tfops._runner import Runner
from tfops.backend import Backend, Request, SessionConfig, resolveBackend
from tfops.backend.base import DEFAULT_MEMORY_LIMIT
from tfops.backend.requests import neededOps
from tfops.checkpoint import restoreRequest, variablesOf, writeCheckpoint
from tfops.errors import DataTypeError, IllegalArgumentError, IllegalStateError
from tfops.graph import Graph
from tfops.interop.freeze import freezeSession
from tfops.operation import Operation
from tfops.output import AnyOperand, Output
from tfops.types import TType

__all__ = ["Session", "Runner", "Result"]


class Session:
    """Runs the ops of a :class:`~tfops.Graph` on a backend (numpy kernels by default).

    Only the ops that the fetches and targets need are executed; a fed output (a placeholder or
    any intermediate) replaces its computation. Each distinct request is compiled once and
    cached. A session is safe to run from several threads at once; it is a context manager that
    closes it on exit.

    Args:
        graph: the graph to run.
        backend: the engine that runs it: ``"numpy"`` (the default) or a
            :class:`~tfops.backend.Backend` object such as ``NumpyBackend(NumpyOptions(...))``.
        checkNumerics: if true, a run that produces nan or inf in a floating point tensor raises
            ``InvalidArgumentError`` naming the first op (in execution order) that produced it.
        memoryLimit: the largest tensor (in bytes) a run may create; a larger one raises
            ``ResourceExhaustedError`` before it is allocated (default: half the machine's
            memory).
        allowSoftPlacement: an op placed with ``withDevice`` on a device the backend does not
            have runs on another one; without it, compiling a request that needs the op raises
            ``InvalidArgumentError`` naming the op and the device.
        autoInit: run the graph's initializers that have not run in this session (those of
            ``tf.variable(init)`` and every op built through ``withInitScope()``) before a run,
            as TensorFlow Java does; initializers added after the session was created run
            before the next run. With ``autoInit=False`` a run while some have not run raises
            ``IllegalStateError``, unless the run itself runs them all (``tf.init()``): call
            :meth:`initialize` first.

    Example:
        >>> g = Graph(); tf = Ops.create(g)
        >>> x = tf.placeholder(TFloat64)
        >>> y = tf.math.square(x)
        >>> with Session(g) as s:
        ...     s.runner().feed(x, np.array([1.0, 2.0])).fetch(y).run()[0].tolist()
        [1.0, 4.0]
    """

    def __init__(
        self,
        graph: Graph,
        *,
        backend: str | Backend = "numpy",
        checkNumerics: bool = False,
        memoryLimit: int | None = None,
        allowSoftPlacement: bool = False,
        autoInit: bool = True,
    ) -> None:
        if not isinstance(graph, Graph):
            raise DataTypeError(
                f"Session(graph): {graph!r} is not a tfops Graph; build the ops in a Graph and "
                "give it: Session(graph)"
            )
        if graph.isEager():
            raise IllegalArgumentError(
                "Session(graph): an EagerSession runs its ops as they are created and needs no "
                "Session; read a value with x.asTensor(), or build the ops in a Graph for a Session"
            )
        graph._checkOpen()
        config = SessionConfig(
            checkNumerics=bool(checkNumerics),
            memoryLimit=DEFAULT_MEMORY_LIMIT if memoryLimit is None else memoryLimit,
            allowSoftPlacement=bool(allowSoftPlacement),
        )
        self._graph = graph
        self._backend = resolveBackend(backend)
        self._executor = self._backend.open(graph, config)
        self._plans: dict[
            tuple[tuple[Output[TType], ...], tuple[Output[TType], ...], tuple[Operation, ...]],
            Request,
        ] = {}
        self._lock = threading.Lock()
        self._closed = False
        self._autoInit = bool(autoInit)
        # the initializers that ran in this session, and the graph's initializer version they
        # were last compared with (equal: none is left to run)
        self._ran: set[Operation] = set()
        self._initVersion = -1
        self._initLock = threading.RLock()
        # the last request's key and plan: a request repeated with the same outputs compares
        # equal by identity, without hashing them
        self._last: tuple[object, Request | None] = ((), None)

    def runner(self) -> Runner:
        """Returns a builder for one run: ``feed``, ``fetch``, ``addTarget``, then ``run``."""
        self._checkOpen()
        return Runner(self)

    def run(self, target: HasOp | Operation | str) -> None:
        """Runs ``target`` (an op, or an op's name) and what it depends on."""
        self.runner().addTarget(target).run()

    def initialize(self) -> None:
        """Runs the graph's initializers that have not run in this session yet.

        Initializers are ``tf.variable(init)``'s assigns and every op built through
        ``withInitScope()``. A session with ``autoInit`` (the default) calls this before a run
        by itself; one without needs it before its first run and after initializers are added.
        """
        with self._initLock:
            self._checkOpen()
            version = self._graph._initVersion
            pending = self._pending()
            if pending:
                self._runInitializers(pending)
            self._initVersion = version

    def forceInitialize(self) -> None:
        """Runs every initializer of the graph again, whether it ran in this session or not:
        the variables get their initial values back (TensorFlow Java's ``forceInitialize``)."""
        with self._initLock:
            self._checkOpen()
            version = self._graph._initVersion
            self._runInitializers(self._graph.initializers())
            self._initVersion = version

    def freeze(self, fetches: Sequence[AnyOperand | str] | AnyOperand | str) -> bytes:
        """Returns a serialized TensorFlow ``GraphDef`` of the ops ``fetches`` need, each
        variable replaced by a ``Const`` of its current value in this session (TensorFlow's
        ``convert_variables_to_constants``), without initializers: a graph to serve in
        TensorFlow or to import into another tfops graph.

        Needs the optional extra ``pip install 'tfops-java[interop]'``.

        Raises:
            ValueError: a fetch names no output, or the fetches need an op that writes a
                variable (a training step).
            ImportError: the extra is not installed (``MissingDependencyError``).

        Example:
            >>> g = Graph(); tf = Ops.create(g)
            >>> w = tf.variable(tf.constant([2.0]))
            >>> y = tf.withName("y").math.mul(w, 3.0)
            >>> with Session(g) as s:
            ...     frozen = s.freeze([y])
            >>> served = Graph(); served.importGraphDef(frozen)
            >>> served.operation("Variable").type(), Session(served).runner().fetch("y").run()[0]
            ('Const', array([6.], dtype=float32))
        """
        self._checkOpen()
        return freezeSession(self, fetches)

    def graph(self) -> Graph:
        """Returns the graph this session runs."""
        return self._graph

    def backend(self) -> Backend:
        """Returns the backend this session runs on."""
        return self._backend

    def close(self) -> None:
        """Closes the session; running it afterwards raises ``IllegalStateError``."""
        self._closed = True
        self._plans.clear()
        self._last = ((), None)
        self._executor.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self,
        excType: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _checkOpen(self) -> None:
        if self._closed:
            raise IllegalStateError("the session is closed")
        self._graph._checkOpen()

    def _pending(self) -> list[Operation]:
        """The graph's initializers that have not run in this session, in the order added."""
        return [op for op in self._graph.initializers() if op not in self._ran]

    def _runInitializers(self, initializers: list[Operation]) -> None:
        """Runs ``initializers`` in one run, then counts them as ran. A variable among them
        is not a target: it is what an assign writes, and running it alone reads it."""
        targets = tuple(self._graph._initTargets(initializers))
        if targets:
            self._plan((), (), targets).run([])
        self._ran.update(initializers)

    def _verifyInit(self, runner: Runner) -> None:
        """Before a run (the graph's initializers changed since the last look): runs the
        initializers that have not run (``autoInit``), or lets the run go on only if it runs
        them all itself, else raises ``IllegalStateError``."""
        with self._initLock:
            version = self._graph._initVersion
            pending = self._pending()
            if not pending:
                self._initVersion = version
                return
            if self._autoInit:
                self._runInitializers(pending)
                self._initVersion = version
                return
            executed = set(neededOps(set(runner._feeds), runner._fetches, runner._targets))
            missing = [op for op in self._graph._initTargets(pending) if op not in executed]
            if missing:
                names = ", ".join(f"'{op.name()}'" for op in missing[:5])
                more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
                raise IllegalStateError(
                    f"the graph has un-ran initializers ({names}{more}), but the session's "
                    "autoInit is false: run session.initialize() before calling run(), or "
                    "create the session with autoInit=True"
                )
            # the run runs every pending initializer itself (e.g. tf.init())
            runner._initializes = pending

    def _plan(
        self,
        feeds: tuple[Output[TType], ...],
        fetches: tuple[Output[TType], ...],
        targets: tuple[Operation, ...],
    ) -> Request:
        key = (feeds, fetches, targets)
        lastKey, plan = self._last
        if plan is not None and lastKey == key:
            return plan
        plan = self._plans.get(key)
        if plan is None:
            plan = self._executor.compile(feeds, fetches, targets)
            with self._lock:
                self._plans[key] = plan
        self._last = (key, plan)
        return plan

    def save(self, prefix: str) -> None:
        """Saves every variable's value in this session to the checkpoint at ``prefix``.

        The checkpoint is the file ``prefix + ".safetensors"`` (safetensors format: no pickle),
        keyed by the variables' names. It is written to a temporary file and renamed, so a
        crash while saving leaves the previous checkpoint whole. Initializers that have not
        run run first (``autoInit``), as for any run. See :mod:`tfops.checkpoint`.

        Example:
            >>> import os, tempfile
            >>> g = Graph(); tf = Ops.create(g)
            >>> w = tf.withName("w").variable(tf.constant([1.0, 2.0]))
            >>> prefix = os.path.join(tempfile.mkdtemp(), "model")
            >>> with Session(g) as s:
            ...     s.run(tf.assign(w, [3.0, 4.0]))
            ...     s.save(prefix)
            >>> with Session(g) as s:
            ...     s.restore(prefix)
            ...     s.runner().fetch(w).run()[0].tolist()
            [3.0, 4.0]
        """
        variables = variablesOf(self._graph)
        runner = self.runner()
        for op in variables:
            runner.fetch(op.output(0))
        values = list(runner.run()) if variables else []
        writeCheckpoint(prefix, {op.name(): v for op, v in zip(variables, values, strict=True)})

    def restore(self, prefix: str) -> None:
        """Restores every variable from the checkpoint at ``prefix`` (see :meth:`save`).

        The checkpoint must hold exactly the graph's variables, with their data types and
        shapes; otherwise ``IllegalArgumentError`` names every difference and no variable is
        changed. A missing file raises ``CheckpointNotFoundError`` (a ``FileNotFoundError``).
        As in TensorFlow Java, restoring counts as initialization: the graph's initializers
        that have not run are not run, now or later.
        """
        with self._initLock:
            self._checkOpen()
            version = self._graph._initVersion
            feeds, targets, values = restoreRequest(self._graph, prefix)
            if targets:
                self._plan(feeds, (), targets).run(values)
            self._ran.update(self._graph.initializers())
            self._initVersion = version
