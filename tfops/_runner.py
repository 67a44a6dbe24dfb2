"""One run of a session being built: the ``Runner`` (public as ``tfops.session.Runner``).

A runner resolves what a run feeds, fetches and targets (an operand, an op, or a name such as
``"op:0"``) to the session's graph, checks and converts each fed value to its output's data type
and shape, and says what is wrong, with the closest names, when a name or an operand is not one.
"""

from __future__ import annotations

import difflib
from typing import TYPE_CHECKING, TypeVar

import numpy as np

from scope import HasOp
from tfops._result import Array, FetchKey, Result, parseName
from tfops.errors import DataTypeError, IllegalArgumentError, InvalidArgumentError, TfopsError
from tfops.graph import Graph
from tfops.op._build import toTensor
from tfops.operation import Operation, userSite
from tfops.output import Output
from tfops.types import TType

if TYPE_CHECKING:
    from tfops.session import Session

__all__ = ["Runner"]

_T = TypeVar("_T", bound=TType)


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
            raise IllegalArgumentError(f"'{op.name()}' belongs to another graph than the session's")

    def _resolve(self, operand: object) -> Output[TType]:
        if type(operand) is Output:
            if operand._op._graph is not self._graph:
                self._checkGraph(operand._op)
            return operand
        if isinstance(operand, str):
            name, index = parseName(operand)
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
                op,
                f"cannot feed a value of shape {list(arr.shape)} to '{out.name()}' of "
                f"shape {out.shape()}",
            )
        return arr

    @staticmethod
    def _convertPython(out: Output[TType], value: object) -> Array:
        """A Python value (a number, a bool, a nested list of them) converts as a constant does:
        an int must fit an integer type, a float cannot become an integer, a bool only a bool."""
        op = out.op()
        dtype = out.dataType()
        what = (
            f"the value fed to '{out.name()}' ({op.type()} '{op.name()}', created at "
            f"{op.creationSite()}):"
        )
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
                op,
                f"the value fed to '{out.name()}' is not numeric or boolean "
                f"(numpy dtype {arr.dtype})",
            )
        if arr.dtype != dtype:
            if not np.can_cast(arr.dtype, dtype, casting="same_kind"):
                raise InvalidArgumentError(
                    op,
                    f"cannot feed a value of dtype {arr.dtype} to '{out.name()}' of data "
                    f"type {out.dataType().NAME} (fed at {userSite()}); convert the value "
                    f"(np.asarray(value, np.{dtype})), or give '{op.name()}' the value's data "
                    f"type and convert in the graph with tf.dtypes.cast",
                )
            arr = arr.astype(dtype)
        return arr


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
            'Gradients.unconnectedGradients("zero") (tf.gradients(y, xs, '
            'Gradients.unconnectedGradients("zero"))), or check dy(i) is not None before '
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
