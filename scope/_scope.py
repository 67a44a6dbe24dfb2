"""Scope: where new ops go, under which names, after which control inputs, on which device."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from scope._names import VALID_NAMES, NameRegistry

if TYPE_CHECKING:  # types only: at run time the package imports nothing of tfops
    from tfops.builder import OperationBuilder
    from tfops.operation import Operation

__all__ = ["Scope", "ExecutionEnvironment", "HasOp"]

_DEVICE = re.compile(
    r"(/job:[A-Za-z0-9_]+)?(/replica:\d+)?(/task:\d+)?"
    r"(/(device:)?[A-Za-z]+:(\d+|\*))?"
)


@runtime_checkable
class ExecutionEnvironment(Protocol):
    """What a :class:`Scope` builds into; a ``tfops.Graph`` is one."""

    def opBuilder(self, type: str, name: str, scope: Scope) -> OperationBuilder:
        """Returns a builder for an op of ``type`` named exactly ``name``."""
        ...

    def nameRegistry(self) -> NameRegistry:
        """Returns the registry of names taken in this environment."""
        ...


class HasOp(Protocol):
    """Anything that names an operation: an op class instance, an ``Output``, an ``Operation``."""

    def op(self) -> Operation:
        """Returns the underlying operation."""
        ...


class Scope:
    """Manages the names, control dependencies and device of the ops added to an environment.

    A scope is immutable: each ``with...`` method returns a new scope. Op names follow
    TensorFlow Java exactly: they match ``[A-Za-z0-9.][A-Za-z0-9_.\\-]*``; a name already taken
    under the same prefix gets a suffix ``_1``, ``_2``...; op names and sub-scope names share
    one namespace per prefix; names stay unique in the graph however many root scopes build
    into it.

    Args:
        env: the execution environment (a ``tfops.Graph``) that ops are added to.

    Example:
        >>> from tfops import Graph
        >>> from scope import Scope
        >>> with Graph() as g:
        ...     root = Scope(g)
        ...     child = root.withSubScope("child")
        ...     [root.makeOpName("add"), root.makeOpName("add"), child.makeOpName("add")]
        ['add', 'add_1', 'child/add']
    """

    __slots__ = ("_env", "_names", "_prefix", "_opName", "_controls", "_device", "_isInit")

    def __init__(self, env: ExecutionEnvironment) -> None:
        nameRegistry = getattr(env, "nameRegistry", None)
        if not callable(nameRegistry):
            # a builtin TypeError: this package imports nothing of tfops (Ops.create checks
            # first and raises tfops's own)
            raise TypeError(f"Scope(env): {env!r} is not an execution environment (a tfops Graph)")
        self._env = env
        self._names: NameRegistry = nameRegistry()
        self._prefix = ""
        self._opName: str | None = None
        self._controls: tuple[Operation, ...] = ()
        self._device = ""
        self._isInit = False

    def _copy(self, **changes: object) -> Scope:
        new = object.__new__(Scope)
        for slot in Scope.__slots__:
            setattr(new, slot, changes.get(slot, getattr(self, slot)))
        return new

    def env(self) -> ExecutionEnvironment:
        """Returns the execution environment ops are added to."""
        return self._env

    def withSubScope(self, childScopeName: str) -> Scope:
        """Returns a scope whose ops are named under a new sub-scope.

        The sub-scope is named ``childScopeName`` (made unique), or, if this scope has a name set
        by :meth:`withName`, that name: this is how composite ops take the caller's name.
        """
        self._names.checkName(childScopeName, "sub-scope name")
        actual = self._opName if self._opName is not None else childScopeName
        unique = self._names.makeUnique(self._prefix, actual)
        return self._copy(_prefix=self._qualify(unique), _opName=None)

    def withName(self, opName: str) -> Scope:
        """Returns a scope whose next op is named ``opName`` (made unique)."""
        self._names.checkName(opName, "op name")
        return self._copy(_opName=opName)

    def withNameAsSubScope(self, defaultName: str) -> Scope:
        """Returns a sub-scope named by this scope's op name, or ``defaultName`` if none is set.

        For composite ops: their inner ops go under the name the caller asked for.
        """
        return self.withSubScope(defaultName)

    def withControlDependencies(self, controls: Iterable[HasOp | Operation]) -> Scope:
        """Returns a scope whose ops run only after every op in ``controls``.

        As in TensorFlow Java, the given controls replace this scope's control dependencies.
        Each must be an operation of this scope's environment (anything whose ``op()`` is one).
        Initializers are left out (a session runs them once, before the runs that follow); in
        an init scope (:meth:`withInitScope`) every control must be an initializer.
        """
        if isinstance(controls, (str, bytes)) or not isinstance(controls, Iterable):
            raise self._names.typeError(
                f"control dependencies {controls!r} are not a list of ops; give a list (or any "
                "iterable) of op classes, Outputs or Operations, [] for none"
            )
        ops: list[Operation] = []
        for c in controls:
            found = getattr(c, "op", None)
            op = found() if callable(found) else None
            graph = getattr(op, "graph", None)
            if op is None or not callable(graph):
                raise self._names.typeError(
                    f"control dependency {c!r} is not an op (an op class, Output or Operation)"
                )
            if graph() is not self._env:
                raise self._names.valueError(
                    f"control dependency '{op.name()}' belongs to another graph than the scope's"
                )
            isInitializer = self._isInitializer(op)
            if self._isInit and not isInitializer:
                raise self._names.valueError(
                    f"control dependency '{op.name()}' is not an initializer: ops built in an "
                    "init scope run when a session initializes, and can only wait for other "
                    "initializers; build it through withInitScope() too, or leave it out"
                )
            if (self._isInit or not isInitializer) and op not in ops:
                ops.append(op)
        return self._copy(_controls=tuple(ops))

    def withInitScope(self) -> Scope:
        """Returns a scope whose ops are the environment's initializers (TF Java's init scope).

        A :class:`~tfops.Session` runs the graph's initializers once, before its first run that
        follows their creation (``Session(graph, autoInit=False)``: ``session.initialize()``
        does). The returned scope has no control dependencies; as a control dependency of an
        op outside an init scope, an initializer is left out.
        """
        return self._copy(_controls=(), _isInit=True)

    def isInit(self) -> bool:
        """Whether the ops of this scope are initializers (:meth:`withInitScope`)."""
        return self._isInit

    def withDevice(self, deviceSpec: str) -> Scope:
        """Returns a scope whose ops are placed on ``deviceSpec`` (e.g. ``"/device:CPU:0"``).

        The numpy executor runs everything on the CPU; the device is recorded on each op.
        """
        if not isinstance(deviceSpec, str) or _DEVICE.fullmatch(deviceSpec) is None:
            raise self._names.invalid(deviceSpec, "device specification (e.g. '/device:CPU:0')")
        return self._copy(_device=deviceSpec)

    def makeOpName(self, defaultName: str) -> str:
        """Reserves and returns the full name of a new op: this scope's op name if set, else
        ``defaultName``, made unique and prefixed by the sub-scope path."""
        if type(defaultName) is not str or defaultName not in VALID_NAMES:  # (checked once)
            self._names.checkName(defaultName, "op name")
        actual = self._opName if self._opName is not None else defaultName
        unique = self._names.makeUnique(self._prefix, actual)
        return f"{self._prefix}/{unique}" if self._prefix else unique

    def makeUnique(self, id: str) -> str:
        """Reserves and returns ``id``, suffixed ``_N`` if taken, without the scope prefix."""
        self._names.checkName(id, "name")
        return self._names.makeUnique(self._prefix, id)

    def opBuilder(self, type: str, defaultName: str) -> OperationBuilder:
        """Returns a builder for a new op of ``type`` named by :meth:`makeOpName`, with this
        scope's control dependencies and device."""
        return self._env.opBuilder(type, self.makeOpName(defaultName), self)

    def controlDependencies(self) -> tuple[Operation, ...]:
        """The ops every new op of this scope depends on."""
        return self._controls

    def device(self) -> str:
        """The device of new ops ("" when unset)."""
        return self._device

    def prefix(self) -> str:
        """The sub-scope path that new op names start with ("" at the root)."""
        return self._prefix

    def _isInitializer(self, op: Operation) -> bool:
        # optional in the protocol: an environment without initializers has none
        isInitializer = getattr(self._env, "isInitializer", None)
        return bool(isInitializer(op)) if callable(isInitializer) else False

    def _qualify(self, name: str) -> str:
        return f"{self._prefix}/{name}" if self._prefix else name

    def _atPrefix(self, prefix: str) -> Scope:
        """A scope whose ops go under ``prefix`` exactly (already reserved by the caller)."""
        return self._copy(_prefix=prefix, _opName=None)

    def __repr__(self) -> str:
        init = ", init=True" if self._isInit else ""
        return (
            f"Scope(prefix={self._prefix!r}, name={self._opName!r}, device={self._device!r}{init})"
        )
