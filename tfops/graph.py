"""The dataflow graph: ``Graph`` and the ``Operation`` nodes it holds."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator, Sequence
from types import TracebackType
from typing import TypeVar

from scope import NameRegistry, Scope
from tfops.builder import OperationBuilder
from tfops.dot import toDot
from tfops.errors import DataTypeError, IllegalArgumentError, IllegalStateError

# an upward call (pyproject.toml's layers): Graph.toGraphDef / importGraphDef are TF Java's
# methods of Graph, written in the interop layer above it
from tfops.interop.graphdef import exportGraphDef, importGraphDef
from tfops.operation import Operation, releaseOutputs, siteOf, userSite
from tfops.output import Output
from tfops.types import TType

__all__ = ["Graph", "Operation", "userSite"]

# the data types of the ys and of the xs (Output is invariant in its type)
_TY = TypeVar("_TY", bound=TType)
_TX = TypeVar("_TX", bound=TType)


def _runsAlone(op: Operation) -> bool:
    """Whether running ``op`` by itself initializes something: not a variable (an op without
    inputs whose output references its state), which an assign writes and running alone reads."""
    outputs = op._opdef.outputs
    return not (outputs and outputs[0].isRef and not op._inputs)


class _Transaction:
    """The context of :meth:`Graph._transaction`: one per graph, reused by every construction
    step (its marks are on the graph's stack, which only the thread holding the lock touches).
    """

    __slots__ = ("_graph",)

    def __init__(self, graph: Graph) -> None:
        self._graph = graph

    def __enter__(self) -> str:
        graph = self._graph
        graph._lock.acquire()
        if graph._closed:
            graph._lock.release()
            raise IllegalStateError("the graph is closed")
        marks = graph._txMarks
        if not marks:
            graph._txSite = siteOf(sys._getframe(1))  # (this frame is tfops')
        marks.append((len(graph._opList), len(graph._names._journal)))
        return graph._txSite  # where the user's code made this construction call

    def __exit__(
        self,
        excType: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        graph = self._graph
        marks = graph._txMarks
        opMark, nameMark = marks.pop()
        try:
            if excType is not None:
                graph._removeSince(opMark)
                graph._names.rollback(nameMark)
        finally:
            if not marks:
                if excType is None:
                    names = graph._names
                    if type(names) is NameRegistry:
                        names._journal.clear()  # commit(), under the lock this thread holds
                    else:
                        names.commit()
                graph._txSite = ""
            graph._lock.release()


class Graph:
    """A dataflow graph: the operations a :class:`~tfops.Session` runs.

    Ops are added through a :class:`~scope.Scope` on the graph (``graph.baseScope()``) or the
    :class:`~tfops.Ops` facade. A graph is a context manager that closes it on exit; a closed
    graph raises :class:`~tfops.errors.IllegalStateError`. Adding ops is safe from several
    threads; a failed addition leaves the graph exactly as it was.

    Example:
        >>> from tfops import Graph, Ops
        >>> with Graph() as g:
        ...     tf = Ops.create(g)
        ...     c = tf.constant(3.0)
        ...     [op.name() for op in g.operations()], g.operation("Const") == c.op()
        (['Const'], True)
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._names = NameRegistry(self._lock, IllegalArgumentError, DataTypeError)
        self._byName: dict[str, Operation] = {}
        self._opList: list[Operation] = []
        self._closed = False
        # the marks (op count, name journal length) of the open transactions, innermost last
        self._txMarks: list[tuple[int, int]] = []
        self._tx = _Transaction(self)
        # while a transaction is open (its thread holds the lock): where the user's code made
        # the construction call, given to every op the call creates (converted constants,
        # gradient ops)
        self._txSite = ""
        self._initializers: dict[Operation, None] = {}  # in the order they were added
        # changes whenever the initializers do: a session compares it to see new ones cheaply
        self._initVersion = 0
        self._baseScope = Scope(self)
        # what the layers above keep for this graph (the checkpoint's restore ops), by their
        # module's name: freed with the graph, and when it is closed
        self._memo: dict[str, object] = {}

    # -- ExecutionEnvironment -------------------------------------------------------------
    def isEager(self) -> bool:
        """Returns ``False``: a graph's ops run in a :class:`~tfops.Session` (TF Java's
        ``ExecutionEnvironment.isEager``; an :class:`~tfops.EagerSession` says ``True``)."""
        return False

    def opBuilder(self, type: str, name: str, scope: Scope | None = None) -> OperationBuilder:
        """Returns a builder for an op of ``type`` named exactly ``name``.

        Raises:
            ValueError: ``name`` is invalid.
            IllegalStateError: the graph is closed.
        """
        self._checkOpen()
        return OperationBuilder(
            self,
            type,
            name,
            scope if scope is not None else self._baseScope,
            self._reservationOf(name),
        )

    def nameRegistry(self) -> NameRegistry:
        """Returns the registry of names taken in this graph."""
        return self._names

    # -- queries ---------------------------------------------------------------------------
    def baseScope(self) -> Scope:
        """Returns the root scope of this graph."""
        self._checkOpen()
        return self._baseScope

    def operation(self, name: str) -> Operation | None:
        """Returns the operation named ``name``, or ``None``.

        Waits for a construction another thread has under way: an op is seen only once the
        construction that made it cannot be undone any more.
        """
        self._checkOpen()
        with self._lock:
            return self._byName.get(name)

    def operations(self) -> Iterator[Operation]:
        """Iterates over the operations in the order they were added."""
        self._checkOpen()
        with self._lock:
            return iter(list(self._opList))

    def addInitializer(self, op: Operation) -> None:
        """Registers ``op`` as an initializer: a session runs it once, before its first run
        after it was added (what building ``op`` through ``scope.withInitScope()`` does)."""
        with self._lock:
            self._checkOpen()
            if op.graph() is not self:
                raise IllegalArgumentError(
                    f"initializer '{op.name()}' is from another graph; register an op of this graph"
                )
            if op not in self._initializers:
                self._initializers[op] = None
                self._initVersion += 1

    def initializers(self) -> list[Operation]:
        """The registered initializers, in the order they were added."""
        self._checkOpen()
        with self._lock:
            return list(self._initializers)

    def _initTargets(self, initializers: Sequence[Operation]) -> list[Operation]:
        """The ops to run to run ``initializers``: all but the variables among them."""
        return [op for op in initializers if _runsAlone(op)]

    def isInitializer(self, op: Operation) -> bool:
        """Whether ``op`` is a registered initializer."""
        return op in self._initializers

    def size(self) -> int:
        """Returns the number of operations."""
        self._checkOpen()
        return len(self._opList)

    def addGradients(
        self,
        prefix: str | None,
        y: Sequence[Output[_TY]],
        x: Sequence[Output[_TX]],
        dx: Sequence[Output[_TY]] | None = None,
    ) -> list[Output[_TX] | None]:
        """Adds ops computing the partial derivatives of ``sum(y)`` with respect to each ``x``.

        Gradient ops are named under ``prefix`` (``None``: ``gradients``, ``gradients_1``...).
        ``dx`` gives the initial gradients of ``y`` (default: ones). An ``x`` that no ``y``
        depends on gets ``None``.

        Raises:
            ValueError: ``prefix`` is already used in the graph, or ``dx`` has the wrong length.
            LookupError: an op on a path from ``y`` to ``x`` has no gradient.
        """
        # An upward call: the gradient generator is a layer above the graph (it builds through
        # the op facade), and the graph is what its callers hold.
        from tfops.gradients import addGradients

        return addGradients(self, prefix, y, x, dx)

    def toDot(self, *, gradients: bool = True) -> str:
        """Returns the Graphviz DOT text of the graph (render it with ``dot -Tsvg``).

        Nodes show each op's type, name, and the data type and static shape of its outputs;
        name scopes are nested clusters; control edges are dashed; ``StopGradient`` ops are
        red octagons. Ops under the gradient generator's name scopes (``gradients``,
        ``gradients_1``..., ``Gradients``...) are grouped in an orange cluster.

        Args:
            gradients: whether to include the gradient generator's ops (``False``: the forward
                graph only).

        Example:
            >>> from tfops import Graph, Ops
            >>> g = Graph(); tf = Ops.create(g)
            >>> x = tf.withName("x").constant([1.0, 2.0])
            >>> print(g.toDot().splitlines()[4])
              "x" [label="Const\\nx\\nfloat32 [2]"];
        """
        self._checkOpen()
        return toDot(self, gradients=gradients)

    def toGraphDef(self) -> bytes:
        """Returns the graph as a serialized TensorFlow ``GraphDef`` (TensorFlow's op types and
        attributes): ``tf.compat.v1.import_graph_def`` loads it in TensorFlow. The initializers
        are the control inputs of a ``NoOp`` named ``Init``, as TensorFlow Java writes them.

        Needs the optional extra ``pip install 'tfops-java[interop]'``.

        Raises:
            ImportError: the extra is not installed (``MissingDependencyError``).

        Example:
            >>> from tfops import Graph, Ops
            >>> g = Graph(); tf = Ops.create(g)
            >>> y = tf.math.exp(tf.withName("x").constant([0.0, 1.0]))
            >>> g2 = Graph(); g2.importGraphDef(g.toGraphDef(), prefix="copy")
            >>> [op.name() for op in g2.operations()]
            ['copy/x', 'copy/Exp']
        """
        self._checkOpen()
        return exportGraphDef(self)

    def importGraphDef(self, graphDef: bytes, prefix: str | None = None) -> None:
        """Adds the ops of a serialized TensorFlow ``GraphDef`` (from :meth:`toGraphDef` or from
        TensorFlow), each named ``prefix/name`` (``None``: its own name); the initializers the
        ``Init`` NoOp lists become initializers of this graph.

        Raises:
            ValueError: op types tfops does not know (all are named), bytes that are not a
                GraphDef, a name used twice or already in the graph, a prefix already used.
                The graph is left unchanged.
            ImportError: the extra ``tfops-java[interop]`` is not installed.

        Example:
            >>> from tfops import Graph, Ops, Session
            >>> g = Graph(); tf = Ops.create(g)
            >>> v = tf.withName("v").variable(tf.constant([1.0, 2.0]))
            >>> copy = Graph(); copy.importGraphDef(g.toGraphDef(), prefix="m")
            >>> [op.name() for op in copy.initializers()]
            ['m/v', 'm/Assign']
            >>> Session(copy).runner().fetch("m/v").run()[0]
            array([1., 2.], dtype=float32)
        """
        self._checkOpen()
        importGraphDef(self, graphDef, prefix)

    # -- lifecycle ------------------------------------------------------------------------
    def close(self) -> None:
        """Closes the graph and releases its operations, as TF Java's ``Graph.close`` frees the
        native graph: using the graph afterwards raises ``IllegalStateError``. Closing twice
        does nothing.

        The ops and outputs the caller still holds keep their names, types, shapes, attributes
        and inputs; the rest is freed at once. (The graph stops holding its ops, and each op
        keeps its outputs' data types and shapes instead of the outputs, which point back at
        it: nothing waits for Python's cycle collector, so a program that builds graph after
        graph does not pile them up.) ``op.output(i)`` of a closed graph's op gives an output
        equal to the one it had.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
            ops, self._opList, self._byName = self._opList, [], {}
            self._initializers = {}
            self._initVersion += 1
            self._memo.clear()
            while ops:  # last first: an op nobody holds is freed before its inputs' ops
                releaseOutputs(ops.pop())

    def isClosed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed

    def __enter__(self) -> Graph:
        return self

    def __exit__(
        self,
        excType: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Graph with {len(self._opList)} ops{' (closed)' if self._closed else ''}>"

    # -- internals used by OperationBuilder -----------------------------------------------
    def _checkOpen(self) -> None:
        if self._closed:
            raise IllegalStateError("the graph is closed")

    def _transaction(self) -> _Transaction:
        """A construction step (``with graph._transaction() as site:``, ``site`` the user's
        file:line): on any error, the ops and names added inside are removed."""
        return self._tx

    def _reservationOf(self, name: str) -> int | None:
        """The name registry's reservation of ``name``, when it is the last one (what a scope's
        ``opBuilder`` just made): forgetting it frees the name."""
        prefix, _, base = name.rpartition("/")
        return self._names.lastReservation(prefix, base)

    def _forgetReservation(self, reservation: int) -> None:
        """Frees a name reserved as :meth:`_reservationOf` found, unless anything was reserved
        or committed since (then the name stays taken, as TensorFlow Java leaves it)."""
        with self._lock:
            if not self._txMarks:
                self._names.forget(reservation)

    def _add(self, op: Operation, reserved: bool = False) -> None:
        """Adds a built op, inside a transaction (whose thread holds the lock); ``reserved``:
        its name was reserved by ``scope.makeOpName``."""
        name = op._name
        if name in self._byName:
            raise IllegalArgumentError(
                f"an operation named '{name}' already exists in the graph "
                f"(created at {self._byName[name]._site})"
            )
        if not reserved:
            prefix, _, base = name.rpartition("/")
            if not self._names.isTaken(prefix, base):
                self._names.makeUnique(prefix, base)
        op._id = len(self._opList)
        self._opList.append(op)
        self._byName[name] = op
        for i in op._inputs:
            i._op._consumers[name] = None

    def _removeUnused(self, mark: int, kept: Sequence[Output[TType]]) -> None:
        """Removes the ops added since ``mark`` that no output in ``kept`` depends on (what a
        gradient rule built for an input that needed no gradient). Their names stay taken."""
        with self._lock:
            recent = self._opList[mark:]
            live: set[Operation] = set()
            stack = [o._op for o in kept if o._op._id >= mark]
            while stack:
                op = stack.pop()
                if op in live:
                    continue
                live.add(op)
                stack.extend(i._op for i in op._inputs if i._op._id >= mark)
                stack.extend(c for c in op._controlInputs if c._id >= mark)
            if len(live) == len(recent):
                return
            del self._opList[mark:]
            for op in recent:
                if op in live:
                    op._id = len(self._opList)
                    self._opList.append(op)
                    continue
                del self._byName[op._name]
                for source in dict.fromkeys(i._op for i in op._inputs):
                    del source._consumers[op._name]

    def _removeSince(self, mark: int) -> None:
        if any(op._id >= mark for op in self._initializers):
            self._initializers = {op: None for op in self._initializers if op._id < mark}
            self._initVersion += 1
        while len(self._opList) > mark:
            op = self._opList.pop()
            del self._byName[op._name]
            for source in dict.fromkeys(i._op for i in op._inputs):
                del source._consumers[op._name]
