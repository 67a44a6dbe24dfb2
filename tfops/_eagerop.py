"""The operations of an ``EagerSession`` (``tfops.eager``): ``EagerOperation``, which holds its
output values and keeps no graph, and how it holds its outputs without a reference cycle."""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any, overload

import numpy as np

from tfops.errors import IllegalStateError
from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TType

__all__ = ["EagerOperation", "closedError", "holdOutputsWeakly"]


class EagerOperation(Operation):
    """An operation of an :class:`EagerSession`: it ran when it was created, and its outputs
    hold their values (``output(i).asTensor()``).

    As TF Java's ``EagerOperation``, it keeps no inputs, control inputs or consumers (asking
    for them raises ``IllegalStateError``), and two eager operations are equal only when they
    are the same object.
    """

    __slots__ = ()

    def _tensor(self, index: int) -> np.ndarray[Any, Any]:
        if self._graph._closed:
            raise closedError(f"cannot read '{self._name}:{index}'")
        value: np.ndarray[Any, Any] = self._values[index]
        return value

    def inputs(self) -> tuple[Output[TType], ...]:
        """Raises ``IllegalStateError``: an eager op keeps no inputs."""
        raise self._noGraph("inputs")

    def input(self, idx: int) -> Output[TType]:
        """Raises ``IllegalStateError``: an eager op keeps no inputs."""
        raise self._noGraph("inputs")

    def numInputs(self) -> int:
        """Raises ``IllegalStateError``: an eager op keeps no inputs."""
        raise self._noGraph("inputs")

    def controlInputs(self) -> tuple[Operation, ...]:
        """Raises ``IllegalStateError``: an eager op keeps no control inputs."""
        raise self._noGraph("control inputs")

    def consumers(self) -> list[Operation]:
        """Raises ``IllegalStateError``: an eager op keeps no consumers."""
        raise self._noGraph("consumers")

    def _noGraph(self, what: str) -> IllegalStateError:
        return IllegalStateError(
            f"op '{self._name}' of type {self._type} (created at {self._site}) ran in an "
            f"EagerSession, which keeps no graph: an eager op has no {what} to give (as TF "
            "Java's EagerOperation), so nothing can walk back from it, and a Session cannot run "
            "it (its value is x.asTensor()). Gradients can be computed only in a graph execution "
            "environment (EagerSession has no gradient tape, as in TF Java): build the "
            "computation in a Graph and call tf.gradients there"
        )

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return self._hash


class _WeakOutputs(Sequence[Output[TType]]):
    """An eager op's outputs, held weakly and made again when asked for after the last handle
    to one went (equal to it: outputs compare by op and index). An op and its outputs then form
    no reference cycle, so an op nobody references is freed at once, with its values, rather
    than when Python's cycle collector next runs."""

    __slots__ = ("_op", "_kinds", "_refs")

    def __init__(self, op: Operation, outs: Sequence[Output[TType]]) -> None:
        self._op = weakref.ref(op)
        self._kinds = [(o._dtype, o._shape) for o in outs]
        self._refs = [weakref.ref(o) for o in outs]

    def __len__(self) -> int:
        return len(self._kinds)

    @overload
    def __getitem__(self, index: int) -> Output[TType]: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Output[TType]]: ...
    def __getitem__(self, index: int | slice) -> Output[TType] | Sequence[Output[TType]]:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        found = self._refs[index]()
        if found is None:
            op = self._op()
            assert op is not None, "an op's outputs are read through the op"
            dtype, shape = self._kinds[index]
            found = Output(op, index % len(self), dtype, shape)
            self._refs[index] = weakref.ref(found)
        return found


def holdOutputsWeakly(op: Operation, outs: Sequence[Output[TType]]) -> None:
    op._out = None
    op._outSeq = _WeakOutputs(op, outs)


def closedError(what: str) -> IllegalStateError:
    return IllegalStateError(
        f"Eager session has been closed: {what}; its ops and tensors cannot be used any more. "
        "Copy values out before closing (np.array(x.asTensor())), or open a new EagerSession"
    )
