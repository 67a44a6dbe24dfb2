"""Running a graph: ``Session``, its ``Runner`` builder and the ``Result`` of a run.

The session checks what a request names and feeds, then hands the request to its backend
(``tfops.backend``: the numpy executor by default), which compiles it once and runs it.
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Iterator, Sequence
from types import TracebackType
from typing import Any, TypeAlias, TypeVar, overload

import numpy as np

from scope import HasOp
from tfops.backend import Backend, Request, SessionConfig, resolveBackend
from tfops.backend.base import DEFAULT_MEMORY_LIMIT
from tfops.backend.requests import neededOps
from tfops.checkpoint import restoreRequest, variablesOf, writeCheckpoint
from tfops.errors import (
    DataTypeError,
    IllegalArgumentError,
    IllegalStateError,
    IndexOutOfBoundsError,
    InvalidArgumentError,
    TfopsError,
)
from tfops.graph import Graph
from tfops.interop.freeze import freezeSession
from tfops.op._build import toTensor
from tfops.operation import Operation, userSite
from tfops.output import AnyOperand, Operand, Output
from tfops.types import TType

__all__ = ["Session", "Runner", "Result"]

Array: TypeAlias = "np.ndarray[Any, Any]"
_T = TypeVar("_T", bound=TType)
FetchKey: TypeAlias = "Operand[_T] | AnyOperand | str"
"""An operand (of any data type: ``FetchKey[_T]``), or an output's name."""


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


class Runner:
    """Builds one run of a :class:`Session`: what to feed, what to fetch, which ops to run.

    Names are ``"op"`` (its first output) or ``"op:index"``.

    Args:
        session: the session to run.
    """

    def __init__(self, session: Session) -> None:
        self._session = session
        self._graph = session._graph
        self._feeds: dict[Output[TType], Array] = {}
        self._fetches: list[Output[TType]] = []
        self._targets: list[Operation] = []
        # the pending initializers this run runs itself: counted as ran once it succeeds
        self._initializes: list[Operation] = []

    def feed(self, operand: FetchKey[_T], value: object) -> Runner:
        """Feeds ``value`` in place of ``operand`` (a placeholder or any output)."""
        out = self._resolve(operand)
        self._feeds[out] = self._checkFeed(out, value)
        return self

    def fetch(self, operand: FetchKey[_T]) -> Runner:
        """Adds ``operand`` (or the output named so) to the results, in order."""
        self._fetches.append(self._resolve(operand))
        return self

    def addTarget(self, target: HasOp | Operation | str) -> Runner:
        """Runs ``target`` (an op or its name) without fetching its outputs."""
        if isinstance(target, str):
            op = self._graph.operation(target.split(":")[0])
            if op is None:
                raise IllegalArgumentError(_noSuchOp(self._graph, target.split(":")[0]))
        elif isinstance(target, Operation):
            op = target
        else:
            found = getattr(target, "op", None)
            op = found() if callable(found) else None
            if not isinstance(op, Operation):
                raise IllegalArgumentError(
                    f"target {target!r} is not an op (an op class, Output, Operation or name)"
                )
        self._checkGraph(op)
        self._targets.append(op)
        return self

    def run(self) -> Result:
        """Runs the request and returns the fetched values in fetch order.

        Raises:
            IllegalStateError: the session or graph is closed, or the session has
                ``autoInit=False`` and some initializers have not run (see ``Session``).
        """
        session = self._session
        session._checkOpen()
        if session._initVersion != self._graph._initVersion:
            session._verifyInit(self)
        plan = session._plan(tuple(self._feeds), tuple(self._fetches), tuple(self._targets))
        result = Result(self._fetches, plan.run(list(self._feeds.values())))
        if self._initializes:
            with session._initLock:
                session._ran.update(self._initializes)
        return result

    def _checkGraph(self, op: Operation) -> None:
        if op.graph() is not self._graph:
            raise IllegalArgumentError(
                f"'{op.name()}' belongs to another graph than the session's"
            )

    def _resolve(self, operand: object) -> Output[TType]:
        if type(operand) is Output:
            if operand._op._graph is not self._graph:
                self._checkGraph(operand._op)
            return operand
        if isinstance(operand, str):
            name, index = _parseName(operand)
            op = self._graph.operation(name)
            if op is None:
                raise IllegalArgumentError(_noSuchOp(self._graph, name))
            return op.output(index)
        asOutput = getattr(operand, "asOutput", None)
        if asOutput is None:
            raise IllegalArgumentError(_notAnOperand(operand))
        out = asOutput()
        if not isinstance(out, Output):
            raise DataTypeError(
                f"{operand!r} is not an Operand: its asOutput() returned {out!r}, not an Output "
                "(give an Output, an op class, or a name such as 'op:0')"
            )
        if out._op._graph is not self._graph:
            self._checkGraph(out._op)
        return out

    def _checkFeed(self, out: Output[TType], value: object) -> Array:
        op = out.op()
        dtype = out.dataType().DTYPE
        if type(value) is np.ndarray and value.dtype == dtype:  # the common case, checked fast
            dims = out.shape()._dims
            if dims is None or dims == value.shape:
                return value
        if not isinstance(value, (np.ndarray, np.generic)) and isinstance(
            value, (bool, int, float, list, tuple)
        ):
            arr = self._convertPython(out, value)
        else:
            arr = self._convertArray(out, value)
        if not out.shape().isCompatibleWithArray(arr.shape):
            raise InvalidArgumentError(
                op, f"cannot feed a value of shape {list(arr.shape)} to '{out.name()}' of "
                f"shape {out.shape()}"
            )
        return arr

    @staticmethod
    def _convertPython(out: Output[TType], value: object) -> Array:
        """A Python value (a number, a bool, a nested list of them) converts as a constant does:
        an int must fit an integer type, a float cannot become an integer, a bool only a bool."""
        op = out.op()
        dtype = out.dataType()
        what = f"the value fed to '{out.name()}' ({op.type()} '{op.name()}', created at " \
            f"{op.creationSite()}):"
        try:
            return toTensor(value, dtype, what=what)[0]
        except TfopsError as e:
            raise type(e)(
                f"{e}; feed a value {dtype.NAME} holds, or give '{op.name()}' a data type that "
                "holds it (e.g. TInt64 or TFloat64)"
            ) from None

    @staticmethod
    def _convertArray(out: Output[TType], value: object) -> Array:
        op = out.op()
        dtype = out.dataType().DTYPE
        try:
            arr = np.asarray(value)
        except (ValueError, TypeError) as e:
            raise InvalidArgumentError(
                op, f"the value fed to '{out.name()}' is not an array: {e}"
            ) from None
        if arr.dtype.kind not in "biuf":
            raise InvalidArgumentError(
                op, f"the value fed to '{out.name()}' is not numeric or boolean "
                f"(numpy dtype {arr.dtype})"
            )
        if arr.dtype != dtype:
            if not np.can_cast(arr.dtype, dtype, casting="same_kind"):
                raise InvalidArgumentError(
                    op, f"cannot feed a value of dtype {arr.dtype} to '{out.name()}' of data "
                    f"type {out.dataType().NAME} (fed at {userSite()}); convert the value "
                    f"(np.asarray(value, np.{dtype})), or give '{op.name()}' the value's data "
                    f"type and convert in the graph with tf.dtypes.cast"
                )
            arr = arr.astype(dtype)
        return arr


def _parseName(key: str) -> tuple[str, int]:
    """``"op"`` or ``"op:N"`` as the op's name and the output's index (decimal digits only)."""
    name, colon, index = key.partition(":")
    if not colon:
        return name, 0
    if not (index.isascii() and index.isdigit()):
        raise IllegalArgumentError(
            f"invalid output name {key!r}: name an output 'op' or 'op:N', N its index in "
            "decimal digits"
        )
    return name, int(index)


class Result(Sequence[Array]):
    """The values of one run, in fetch order.

    ``result[i]``, ``result.get(i)``, ``result.get(operand)`` or ``result.get("name:0")``.

    Args:
        fetches: the fetched outputs, in order.
        values: their values.
    """

    def __init__(self, fetches: Sequence[Output[TType]], values: list[Array]) -> None:
        self._fetches = list(fetches)
        self._values = values

    @overload
    def __getitem__(self, index: int) -> Array: ...

    @overload
    def __getitem__(self, index: slice) -> list[Array]: ...

    def __getitem__(self, index: int | slice) -> Array | list[Array]:
        if not isinstance(index, (int, slice)) and not isinstance(index, np.integer):
            raise DataTypeError(
                f"result[{index!r}] (at {userSite()}): a Result is indexed by fetch position; "
                "get a value by operand or name with result.get(operand) or result.get('op:0')"
            )
        return self._values[index]

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator[Array]:
        return iter(self._values)

    def get(self, key: int | FetchKey[_T]) -> Array:
        """Returns the value fetched at position ``key``, or for an operand or name."""
        if isinstance(key, int) and not isinstance(key, bool):
            if not -len(self._values) <= key < len(self._values):
                raise IndexOutOfBoundsError(
                    f"position {key} is out of range: this run fetched {len(self._values)} "
                    f"value(s); give a position from 0 to {len(self._values) - 1}, an operand "
                    "or a name"
                )
            return self._values[key]
        if isinstance(key, str):
            name, index = _parseName(key)
            matches = [
                i for i, f in enumerate(self._fetches)
                if f.op().name() == name and f.index() == index
            ]
        else:
            asOutput = getattr(key, "asOutput", None)
            out = asOutput() if asOutput is not None else None
            if not isinstance(out, Output):
                raise DataTypeError(
                    f"{key!r} is not a position, an operand or a name; give the fetch's "
                    "position (an int), the operand fetched, or its name ('op' or 'op:0')"
                )
            matches = [i for i, f in enumerate(self._fetches) if f == out]
        if not matches:
            raise IllegalArgumentError(f"{key!r} was not fetched in this run")
        return self._values[matches[0]]

    def __repr__(self) -> str:
        return f"Result({', '.join(f.name() for f in self._fetches)})"


def _noSuchOp(graph: Graph, name: str) -> str:
    """No op ``name`` in ``graph``: the names closest to it, where the user asked."""
    names = [op.name() for op in graph.operations()]
    close = difflib.get_close_matches(name, names, n=5, cutoff=0.6)
    hint = (
        f"; did you mean {', '.join(repr(n) for n in close)}?"
        if close
        else "; op names are the scope's (tf.withName('x') names the next op 'x'), listed by "
        "graph.operations()"
    )
    return f"no operation named '{name}' in the graph (at {userSite()}){hint}"


def _notAnOperand(value: object) -> str:
    """What to say when something neither an operand nor a name is fed or fetched."""
    if value is None:
        return (
            f"None is not an operand (at {userSite()}): a gradient is None when the x it is for "
            "does not reach y (no path, or every path blocked by StopGradient, an integer data "
            "type or an op without gradient); ask for zeros instead with the option "
            "Gradients.unconnectedGradients(\"zero\") (tf.gradients(y, xs, "
            "Gradients.unconnectedGradients(\"zero\"))), or check dy(i) is not None before "
            "using it"
        )
    optionOf = type(value).__qualname__
    if optionOf.endswith(".Options"):
        op = optionOf.rsplit(".", 1)[0]
        return (
            f"{value!r} is an option of {op}, not an operand (at {userSite()}): options are "
            f"passed to the op when it is created, as in tf.<op>(inputs..., {op}.<option>(v)); "
            "calling an option on an op that exists does not change it"
        )
    return (
        f"{value!r} is neither an Operand nor a name (at {userSite()}): give an op, an Output, "
        "or an output's name ('op' or 'op:0')"
    )
