"""Eager execution: ``EagerSession``, where each op runs when it is created (TF Java's).

An ``EagerSession`` is an execution environment as a ``Graph`` is: scopes, the ``Ops`` facade,
the op classes and the Python operators build into it with the same checks (data types, shape
rules, attributes) and the same errors. Each op then runs at once, on the session's backend
(``tfops._eagerkernels``), and its outputs hold their values (``asTensor()``).

What it keeps: each op's output values, on the op, for as long as the program holds the op or
one of its outputs; an op does not keep its inputs, so a value nobody reads any more is freed
(a loop of eager ops runs in bounded memory). Op names are counted per name asked for, as TF
Java's name scopes count them; compiled kernels are cached (``KERNEL_CACHE`` at most). Nothing
else: no list of ops, no names of past ops, no graph. So, as in TF Java, there are no
gradients in eager mode (TF Java's ``EagerSession`` has no gradient tape), no placeholders, no
variables and no assignments to them.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from scope import Scope
from scope._names import CountingNameRegistry
from tfops._eagerkernels import EagerKernels, heldValue
from tfops._eagerop import EagerOperation, closedError, holdOutputsWeakly
from tfops.backend import Backend, SessionConfig, resolveBackend
from tfops.backend.base import DEFAULT_MEMORY_LIMIT
from tfops.errors import DataTypeError, IllegalArgumentError, IllegalStateError
from tfops.graph import Graph
from tfops.opdef import OpDef, lookupOp
from tfops.operation import Operation
from tfops.ops import Ops
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.core import CONST
from tfops.types import TType

_TX = TypeVar("_TX", bound=TType)
_TY = TypeVar("_TY", bound=TType)

if TYPE_CHECKING:
    from tfops.builder import OperationBuilder

__all__ = ["EagerSession", "EagerOperation"]


def _graphOnly(op: OpDef) -> bool:
    """Whether an op exists only in a graph: it refers to a variable (a reference input or
    output), or has outputs but nothing to compute them from (no inputs and no value of its
    own: its value can only be fed)."""
    if any(i.isRef for i in op.inputs) or any(o.isRef for o in op.outputs):
        return True
    return not op.inputs and bool(op.outputs) and heldValue(op) is None


class EagerSession(Graph):
    """An environment that runs each op when it is created, as TF Java's ``EagerSession``.

    ``Ops.create(session)`` builds into it, ``Ops.create()`` into the default one
    (:meth:`getDefault`). The op classes, the facade and the Python operators work as in a
    graph, with the same checks and errors; each op then runs on the session's backend, and
    ``x.asTensor()`` gives its value. Placeholders, variables and assignments are refused
    ("Op Placeholder is not valid in eager mode."), and so are operands of a graph; there are
    no gradients (as in TF Java). An ``EagerSession`` is a context manager that closes it;
    closing frees its kernels and makes its tensors unusable. It is safe to use from several
    threads (its ops run one at a time).

    It is a :class:`~tfops.Graph` for the construction machinery only (scopes and builders
    build into it); it holds no operations: ``operations()`` is empty, ``operation(name)`` is
    ``None``, and ``toDot`` and ``addGradients`` raise.

    Args:
        backend: the engine ops run on: ``"numpy"`` (the default), ``"xla"``, or a
            :class:`~tfops.backend.Backend` object.
        checkNumerics: an op that produces nan or inf in a floating point tensor raises
            ``InvalidArgumentError`` naming it.
        memoryLimit: the largest tensor (in bytes) an op may create (default: half the
            machine's memory).
        allowSoftPlacement: an op placed on a device the backend does not have runs on another.

    Example:
        >>> from tfops import EagerSession, Ops
        >>> with EagerSession() as session:
        ...     tf = Ops.create(session)
        ...     x = tf.constant([1.0, 2.0, 3.0])
        ...     (x * 2.0 + 1.0).asTensor().tolist()
        [3.0, 5.0, 7.0]
    """

    _eager = True  # what the builder asks (it does not import this module)
    _default: ClassVar[EagerSession | None] = None
    _defaultLock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(
        self,
        backend: str | Backend = "numpy",
        *,
        checkNumerics: bool = False,
        memoryLimit: int | None = None,
        allowSoftPlacement: bool = False,
    ) -> None:
        config = SessionConfig(
            checkNumerics=bool(checkNumerics),
            memoryLimit=DEFAULT_MEMORY_LIMIT if memoryLimit is None else memoryLimit,
            allowSoftPlacement=bool(allowSoftPlacement),
        )
        resolved = resolveBackend(backend)
        super().__init__()
        self._names = CountingNameRegistry(self._lock, IllegalArgumentError, DataTypeError)
        self._baseScope = Scope(self)  # on the counting registry
        self._kernels = EagerKernels(resolved, config)

    # -- the default session -------------------------------------------------------------
    @staticmethod
    def getDefault() -> EagerSession:
        """Returns the default eager session (what ``Ops.create()`` builds into), made on first
        use with the default options; it stays open for the life of the process.

        Example:
            >>> from tfops import EagerSession, Ops
            >>> Ops.create().scope().env() is EagerSession.getDefault()
            True
        """
        found = EagerSession._default
        if found is None:
            with EagerSession._defaultLock:
                found = EagerSession._default
                if found is None:
                    found = EagerSession._default = EagerSession()
        return found

    @staticmethod
    def initDefault(
        backend: str | Backend = "numpy",
        *,
        checkNumerics: bool = False,
        memoryLimit: int | None = None,
        allowSoftPlacement: bool = False,
    ) -> EagerSession:
        """Makes the default eager session with these options (see :class:`EagerSession`);
        call it before anything uses the default session.

        Raises:
            IllegalStateError: the default session exists already.
        """
        with EagerSession._defaultLock:
            if EagerSession._default is not None:
                raise IllegalStateError(
                    "Default eager session is already initialized: initDefault must come "
                    "before the first Ops.create() or EagerSession.getDefault(); for other "
                    "options, open a session of your own: EagerSession(backend=...)"
                )
            EagerSession._default = EagerSession(
                backend,
                checkNumerics=checkNumerics,
                memoryLimit=memoryLimit,
                allowSoftPlacement=allowSoftPlacement,
            )
            return EagerSession._default

    @staticmethod
    def _closeDefaultForTest() -> None:
        """Closes and forgets the default session (tests of ``initDefault``; as TF Java's)."""
        with EagerSession._defaultLock:
            found, EagerSession._default = EagerSession._default, None
        if found is not None:
            found._close()

    # -- what it is -------------------------------------------------------------------------
    def backend(self) -> Backend:
        """Returns the backend its ops run on."""
        return self._kernels.backend

    def isEager(self) -> bool:
        """Returns ``True`` (TF Java's ``ExecutionEnvironment.isEager``)."""
        return True

    def isOpEnabled(self, opType: str) -> bool:
        """Whether ops of ``opType`` can run in eager mode: not those that exist only in a
        graph (variables and what assigns them, placeholders), as TF Java's."""
        found = lookupOp(opType)
        return found is None or not _graphOnly(found)

    def opBuilder(self, type: str, name: str, scope: Scope | None = None) -> OperationBuilder:
        """Returns a builder for an op of ``type`` named ``name``; the op runs on ``build``.

        Raises:
            IllegalArgumentError: ``type`` is not valid in eager mode.
            IllegalStateError: the session is closed.
        """
        self._checkOpen()
        if not self.isOpEnabled(type):
            raise IllegalArgumentError(f"Op {type} is not valid in eager mode.")
        return super().opBuilder(type, name, scope)

    # -- a graph's queries: an eager session keeps no ops -------------------------------------
    def operation(self, name: str) -> Operation | None:
        """Returns ``None``: an eager session keeps no operations by name."""
        self._checkOpen()
        return None

    def operations(self) -> Iterator[Operation]:
        """Returns an empty iterator: an eager session keeps no operations."""
        self._checkOpen()
        return iter(())

    def size(self) -> int:
        """Returns 0: an eager session keeps no operations."""
        return 0

    def initializers(self) -> list[Operation]:
        """Returns ``[]``: ops built in an init scope run when created, as any other."""
        return []

    def addInitializer(self, op: Operation) -> None:
        """Does nothing: initialization is meaningless in eager mode (as in TF Java)."""

    def isInitializer(self, op: Operation) -> bool:
        """Returns ``False`` (as TF Java's)."""
        return False

    def toDot(self, *, gradients: bool = True) -> str:
        """Raises ``IllegalStateError``: there is no graph to draw."""
        raise IllegalStateError(
            "an EagerSession keeps no graph to draw: its ops run when created; build the "
            "computation in a Graph and call graph.toDot()"
        )

    def addGradients(
        self,
        prefix: str | None,
        y: Sequence[Output[_TY]],
        x: Sequence[Output[_TX]],
        dx: Sequence[Output[_TY]] | None = None,
    ) -> list[Output[_TX] | None]:
        """Raises ``IllegalStateError``: gradients need a graph (as in TF Java)."""
        raise IllegalStateError(
            "Gradients can be computed only in a graph execution environment: an EagerSession "
            "keeps no graph of its ops and has no gradient tape (as TF Java's); build the "
            "computation in a Graph and add gradients there"
        )

    # -- lifecycle --------------------------------------------------------------------------
    def close(self) -> None:
        """Closes the session: frees its kernels; its tensors cannot be read any more.

        Raises:
            IllegalStateError: this is the default session, which stays open.
        """
        if self is EagerSession._default:
            raise IllegalStateError(
                "Default eager session cannot be closed: it stays open for the life of the "
                "process; open a session of your own (with EagerSession() as s) to close it"
            )
        self._close()

    def _close(self) -> None:
        with self._lock:
            self._closed = True
            self._kernels.close()

    def __enter__(self) -> EagerSession:
        return self

    def __exit__(
        self,
        excType: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = " (closed)" if self._closed else ""
        return f"<EagerSession on {self._kernels.backend.name}{state}>"

    # -- construction: the hooks of Graph and OperationBuilder --------------------------------
    def _checkOpen(self) -> None:
        if self._closed:
            raise closedError("it cannot build or run ops")

    def _transaction(self) -> Any:
        self._checkOpen()
        return super()._transaction()

    def _admit(self, builder: OperationBuilder, opdef: OpDef) -> None:
        """Before the builder checks a new op: refuses an op that exists only in a graph, and
        gives it its inputs as constants of their values (shape rules see every value, as
        TensorFlow's eager shapes are concrete; and the op holds no earlier op)."""
        if _graphOnly(opdef):
            raise IllegalArgumentError(
                f"Op {opdef.type} is not valid in eager mode. ({opdef.type} '{builder._name}', "
                f"created at {builder._site}: eager ops run when created, so there is nothing "
                "to feed or to keep as a variable; give values directly (tf.constant(value)), "
                "or build in a Graph and run it in a Session)"
            )
        builder._inputs = [self._valueOf(o) for o in builder._inputs]

    def _valueOf(self, out: Output[TType]) -> Output[TType]:
        """``out`` as an output of a constant holding its value."""
        op = out._op
        if heldValue(op._opdef) is not None:
            return out
        value = op._tensor(out._index)
        constant = Operation(
            self,
            op._name,
            CONST,
            (),
            (),
            {"value": value, "dtype": out._dtype},
            op._device,
            (out._dtype,),
            (out._shape,),
            op._site,
        )
        constant.__class__ = EagerOperation
        constant._values = (value,)
        made = constant.output(0)
        holdOutputsWeakly(constant, (made,))
        return made

    def _add(self, op: Operation, reserved: bool = False) -> None:
        """Runs a built op (inside a transaction, whose thread holds the lock) and keeps its
        values on it, instead of adding it to a graph."""
        if not reserved:
            prefix, _, base = op._name.rpartition("/")
            if not self._names.isTaken(prefix, base):
                self._names.makeUnique(prefix, base)
        op.__class__ = EagerOperation
        inputs = [i._op._values[i._index] for i in op._inputs]
        values = self._kernels.run(op, inputs)
        op._values = values
        op._inputs = op._controlInputs = ()  # what the op was made from may now be freed
        outs = op._outs
        if any(not o._shape.isFullyKnown() for o in outs):  # eager shapes are concrete
            outs = tuple(
                Output(op, o._index, o._dtype, Shape.of(*v.shape))
                for o, v in zip(outs, values, strict=True)
            )
        holdOutputsWeakly(op, outs)


def _defaultEnvironment() -> EagerSession:
    return EagerSession.getDefault()


Ops._defaultEnvironment[:] = [_defaultEnvironment]  # what Ops.create() builds into
