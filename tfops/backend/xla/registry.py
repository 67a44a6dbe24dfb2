"""The XLA backend's lowering table: how each op type is written in JAX.

A lowering is called while a request's function is traced by ``jax.jit``, with a
:class:`LoweringSite` and the op's inputs, and returns the op's output (a tuple of them for
several outputs), of exactly the output's data type. Everything a lowering knows about shapes
is static at that moment: a shape error is raised then, as an ``InvalidArgumentError`` naming
the op. What only the values can tell (an integer division by zero, an index out of range) is a
run-time check, :meth:`LoweringSite.check`, reported after the run as the numpy backend reports
it.

Inputs are JAX arrays (tracers), except the values known when the request is compiled, which
are numpy arrays: constants, shapes (``Shape`` of a traced array is static), what is computed
from them by lowerings that compute with numpy when their inputs are numpy (as TensorFlow's
XLA bridge folds "compile-time constants"). A lowering declares the inputs it needs as such
(``static``: axes, shapes, permutations, paddings); a fed value that goes straight into one is
passed to the compiled function as a static argument (a new compilation per distinct value), and
any other value that is not known there is an ``InvalidArgumentError`` naming the op.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeAlias, overload

import jax
import numpy as np
from attrs import frozen

from tfops.errors import FailedPreconditionError, IllegalArgumentError
from tfops.operation import Operation
from tfops.shape import Shape

__all__ = [
    "Lowering",
    "LoweringSite",
    "Registered",
    "isStatic",
    "lookupLowering",
    "registerLowering",
    "registeredLowerings",
]

Lowering: TypeAlias = Callable[..., Any]


class LoweringSite:
    """What a lowering sees of its op, and what it may do besides computing its outputs.

    Attributes:
        op: the operation being lowered (errors name it).
        attrs: its attributes (TensorFlow's names).
        shapes: per input, its static shape as the graph knows it (the traced arrays have the
            shapes of the values actually fed).
        constants: per input, its value when it is a constant, else ``None``.
        outputDtypes: per output, the numpy data type it must have.
        memoryLimit: the largest tensor, in bytes, a run of the session may allocate.
    """

    __slots__ = ("op", "attrs", "shapes", "constants", "outputDtypes", "memoryLimit", "_state",
                 "_checks", "_refs")

    def __init__(
        self,
        op: Operation,
        constants: tuple[np.ndarray[Any, Any] | None, ...],
        memoryLimit: int,
        state: dict[str, Any],
        checks: list[tuple[Operation, Any, Any, Any]],
        refs: tuple[str, ...],
    ) -> None:
        self.op: Operation = op
        self.attrs: Mapping[str, Any] = op._attrs
        self.shapes: tuple[Shape, ...] = tuple(i._shape for i in op._inputs)
        self.constants: tuple[np.ndarray[Any, Any] | None, ...] = constants
        self.outputDtypes: tuple[np.dtype[Any], ...] = tuple(
            np.dtype(o._dtype.DTYPE) for o in op._outs
        )
        self.memoryLimit: int = memoryLimit
        self._state = state
        self._checks = checks
        self._refs = refs

    def attr(self, name: str) -> Any:
        """The value of attribute ``name``."""
        return self.attrs[name]

    def dtype(self, i: int = 0) -> np.dtype[Any]:
        """The numpy data type output ``i`` must have."""
        return self.outputDtypes[i]

    def check(self, ok: Any, message: str | Callable[..., str], *values: Any) -> None:
        """Records a run-time check: when ``ok`` (a boolean array) is not all true, the run
        raises ``InvalidArgumentError(message)`` naming this op, as the numpy kernel would.

        ``message`` may be a function of ``values`` (arrays of the run, read back only when the
        check fails), for a message that quotes them: ``indices[1] = 3 is not in [0, 3)``.
        """
        self._checks.append((self.op, message, jax.numpy.all(ok), values))

    # -- state: variables and random generators ------------------------------------------
    def variableRef(self, i: int = 0) -> str:
        """The name of the variable the ``i``-th reference input points to."""
        return self._refs[i]

    def read(self, name: str) -> Any:
        """The current value of variable ``name`` in this run.

        Raises:
            FailedPreconditionError: the variable was never initialized in this session.
        """
        value = self._state.get(name)
        if value is None:
            raise FailedPreconditionError(
                self.op, f"variable '{name}' is read before it was initialized; give it a value "
                "first: create it with tf.variable(init) (a session runs its initializer by "
                "itself) or run an assign to it"
            )
        return value

    def has(self, name: str) -> bool:
        """Whether variable ``name`` holds a value in this run."""
        return name in self._state

    def write(self, name: str, value: Any) -> None:
        """Sets variable ``name``'s value for the ops after this one and for later runs."""
        self._state[name] = value

    def rngKey(self) -> Any:
        """A fresh JAX random key for this op in this run: the op's key in the session is split,
        and its successor kept for the next run (seeded ops repeat their sequence in every
        session, as with the numpy backend)."""
        name = randomStateName(self.op)
        key, sub = jax.random.split(self._state[name])
        self._state[name] = key
        return sub


def randomStateName(op: Operation) -> str:
    """Where a random op's key lives in a session's state."""
    return f"random:{op._name}"


Static: TypeAlias = "tuple[int, ...] | Callable[[int], Iterable[int]]"
"""The inputs a lowering needs as numpy values: their positions among the op's non-reference
inputs (negative ones count from the end), or, where they depend on how many inputs the op has
(list inputs), a function of that count giving them (DynamicStitch: its first half)."""


@frozen
class Registered:
    """A registered lowering and the positions of the inputs it needs as numpy values."""

    lowering: Lowering
    static: Static = ()

    def staticPositions(self, count: int) -> frozenset[int]:
        """The positions, from 0, of the inputs needed as numpy values, for an op of ``count``
        non-reference inputs."""
        static = self.static
        positions = static(count) if callable(static) else static
        return frozenset(k % count for k in positions if -count <= k < count)


_LOWERINGS: dict[str, Registered] = {}
_LOCK = threading.Lock()


@overload
def registerLowering(
    opType: str, lowering: Lowering, *, static: Static = ()
) -> Lowering: ...


@overload
def registerLowering(
    opType: str, lowering: None = None, *, static: Static = ()
) -> Callable[[Lowering], Lowering]: ...


def registerLowering(
    opType: str, lowering: Lowering | None = None, *, static: Static = ()
) -> Lowering | Callable[[Lowering], Lowering]:
    """Registers the XLA lowering of ``opType`` (a call, or a decorator); ``static`` says which
    inputs it needs as numpy values (:data:`Static`).

    Raises:
        ValueError: ``opType`` already has a lowering.
    """

    def register(f: Lowering) -> Lowering:
        with _LOCK:
            if opType in _LOWERINGS:
                raise IllegalArgumentError(f"op type {opType!r} already has an XLA lowering")
            _LOWERINGS[opType] = Registered(f, static)
        return f

    return register(lowering) if lowering is not None else register


def lookupLowering(opType: str) -> Registered | None:
    """The XLA lowering of ``opType``, or ``None``."""
    return _LOWERINGS.get(opType)


def isStatic(value: Any) -> bool:
    """Whether ``value`` is known when the request is compiled (not a JAX tracer)."""
    return not isinstance(value, jax.core.Tracer)


def registeredLowerings() -> frozenset[str]:
    """The op types that have an XLA lowering."""
    return frozenset(_LOWERINGS)
