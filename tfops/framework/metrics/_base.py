"""The base of every metric: its variables in the init scope, operand checks, Keras' per-sample
reduction of weighted values, and the ``total / count`` mean the accuracy metrics share."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

from tfops.errors import DataTypeError, IllegalArgumentError
from tfops.framework.initializers._base import building
from tfops.graph import Graph
from tfops.op.core import Assign, NoOp, Variable
from tfops.ops import Ops
from tfops.output import Output, PrimitiveOp
from tfops.shape import Shape
from tfops.types import TBool, TFloating, TNumber, TType

__all__ = ["MeanBase", "Metric", "axes", "squeezeOrExpand"]


def axes(tf: Ops, start: int, stop: int) -> Output[Any]:
    """The int32 vector ``[start, stop)``, reduction axes."""
    out: Output[Any] = tf.constant(np.arange(start, stop, dtype=np.int32)).asOutput()
    return out


def squeezeOrExpand(
    tf: Ops, x1: Output[Any], x2: Output[Any], expandRank1: bool = True
) -> tuple[Output[Any], Output[Any]]:
    """Keras' ``squeeze_or_expand_to_same_rank``: when the ranks differ by one and the larger
    ends in a dimension of 1, that dimension is squeezed (or, when the other is a vector and
    ``expandRank1``, the vector gets a trailing 1)."""
    r1, r2 = x1.shape().numDimensions(), x2.shape().numDimensions()
    if r1 == r2 + 1 and x1.shape().size(-1) == 1:
        if r2 == 1 and expandRank1:
            return x1, tf.expandDims(x2, tf.constant(-1)).asOutput()
        return tf.squeeze(x1, axis=[-1]).asOutput(), x2
    if r2 == r1 + 1 and x2.shape().size(-1) == 1:
        if r1 == 1 and expandRank1:
            return tf.expandDims(x1, tf.constant(-1)).asOutput(), x2
        return x1, tf.squeeze(x2, axis=[-1]).asOutput()
    return x1, x2


def broadcasts(small: Shape, large: Shape) -> bool:
    """Whether a tensor of shape ``small`` broadcasts to ``large`` (unknown sizes may)."""
    a, b = small.asArray() or (), large.asArray() or ()
    if len(a) > len(b):
        return False
    return all(s in (1, -1) or s == t or t == -1 for s, t in zip(a[::-1], b[::-1], strict=False))


class Metric(ABC):
    """Base of the metrics (TensorFlow Java's ``framework.metrics``, Keras' metrics).

    A metric is stateful: its variables (named ``<name>_<variable>``) are created with the
    metric, in the graph's init scope, so a session initializes them by itself. ``updateState``
    adds an op that accumulates a batch into them, ``result()`` an operand that reads the metric
    from them, ``resetStates()`` an op that sets them back to zero. Run the update once per
    batch, then fetch the result.
    """

    def __init__(self, tf: Ops, name: str | None, dtype: type[TFloating]) -> None:
        kind = type(self).__name__
        if not isinstance(tf, Ops):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise DataTypeError(
                f"{kind}: tf must be the Ops facade (Ops.create(graph)), got {type(tf).__name__}"
            )
        graph = tf.scope().env()
        if not isinstance(graph, Graph):
            raise IllegalArgumentError(f"{kind}: metrics need a Graph, got {type(graph).__name__}")
        if not (isinstance(dtype, type) and issubclass(dtype, TFloating)) or dtype is TFloating:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise DataTypeError(
                f"{kind}: dtype must be a floating point type (TFloat32, TFloat64), got "
                f"{getattr(dtype, 'NAME', dtype)!r}; the metric accumulates in it"
            )
        self._tf = tf
        self._graph = graph
        self._name = self.defaultName() if name is None else name
        tf.scope().withName(self._name)  # rejects an invalid name now
        self._dtype: type[TFloating] = dtype
        self._variables: list[Variable[Any]] = []

    def defaultName(self) -> str:
        """The name of a metric created without one: its class name."""
        return type(self).__name__

    def getName(self) -> str:
        """The metric's name, the prefix of its variables' names."""
        return self._name

    def getDtype(self) -> type[TFloating]:
        """The data type the metric accumulates in and its result has."""
        return self._dtype

    def getVariables(self) -> list[Variable[Any]]:
        """The metric's variables, in the order they were created."""
        return list(self._variables)

    @abstractmethod
    def result(self) -> Output[Any]:
        """The metric's value from what was accumulated so far (an operand of ``getDtype()``)."""

    def resetStates(self) -> NoOp:
        """An op that sets every variable of the metric back to zero."""
        with building(self._graph):
            tf = self._tf.withSubScope(self._name)
            assigns: list[PrimitiveOp] = [tf.assign(v, tf.zerosLike(v)) for v in self._variables]
            return tf.withName("resetStates").withControlDependencies(assigns).noOp()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self._name!r}, dtype={self._dtype.NAME})"

    # -- for subclasses --------------------------------------------------------------------
    def _addVariable(self, suffix: str, shape: Sequence[int]) -> Variable[Any]:
        """A variable ``<name>_<suffix>`` of zeros, created with its ``Assign`` in the init
        scope (TF Java's metric variables)."""
        init = self._tf.scope().withInitScope()
        zeros = self._tf.withInitScope().constant(np.zeros(tuple(shape), self._dtype.DTYPE))
        variable: Variable[Any] = Variable.create(
            init.withName(f"{self._name}_{suffix}"), Shape.of(*shape), self._dtype
        )
        Assign.create(init, variable, zeros)
        self._variables.append(variable)
        return variable

    def _operand(self, method: str, what: str, value: object, tf: Ops) -> Output[Any]:
        """``value`` as an operand of the metric's graph: an operand, or numbers made a
        constant; numbers or booleans."""
        where = f"{type(self).__name__}.{method}"
        asOutput = getattr(value, "asOutput", None)
        if asOutput is None:
            if value is None or isinstance(value, (str, bytes)):
                raise DataTypeError(
                    f"{where}: {what} must be an operand or an array of numbers, got "
                    f"{type(value).__name__}"
                )
            out: Output[Any] = tf.constant(np.asarray(value)).asOutput()
        else:
            out = asOutput()
        if out.op().graph() is not self._graph:
            raise IllegalArgumentError(f"{where}: {what} '{out.name()}' belongs to another graph")
        if not issubclass(out.dataType(), (TNumber, TBool)):
            raise DataTypeError(
                f"{where}: {what} '{out.name()}' has data type {out.dataType().NAME}; give numbers"
            )
        if out.shape().isUnknown():
            raise IllegalArgumentError(
                f"{where}: {what} '{out.name()}' has unknown rank; metrics need the rank when "
                "the graph is built (give the placeholder a shape, e.g. Shape.of(-1, 10))"
            )
        return out

    def _scalar(self, tf: Ops, value: float) -> Output[Any]:
        """A constant ``value`` of the metric's data type."""
        out: Output[Any] = tf.constant(np.asarray(value, self._dtype.DTYPE)).asOutput()
        return out

    def _cast(self, tf: Ops, x: Output[Any]) -> Output[Any]:
        dtype: type[TType] = self._dtype
        return x if x.dataType() is dtype else tf.dtypes.cast(x, dtype).asOutput()

    def _shapesError(
        self, method: str, labels: Output[Any], predictions: Output[Any], need: str
    ) -> IllegalArgumentError:
        return IllegalArgumentError(
            f"{type(self).__name__}.{method}: labels '{labels.name()}' of shape "
            f"{labels.shape()} and predictions '{predictions.name()}' of shape "
            f"{predictions.shape()} do not match; {need}"
        )


class MeanBase(Metric):
    """A weighted mean of values, kept as ``total`` and ``count`` (Keras' ``Mean``): each
    update reduces its values to one per sample (the mean over every axis but the first), adds
    their weighted sum to ``total`` and the sum of the weights (or the number of samples) to
    ``count``; the result is ``total / count`` (0 before any update)."""

    def __init__(self, tf: Ops, name: str | None, dtype: type[TFloating]) -> None:
        super().__init__(tf, name, dtype)
        with building(self._graph):
            self._total = self._addVariable("total", ())
            self._count = self._addVariable("count", ())

    def getTotal(self) -> Variable[Any]:
        """The variable holding the weighted sum of the values."""
        return self._total

    def getCount(self) -> Variable[Any]:
        """The variable holding the sum of the weights (the number of samples)."""
        return self._count

    def result(self) -> Output[Any]:
        with building(self._graph):
            tf = self._tf.withSubScope(self._name)
            return tf.withName("result").math.divNoNan(self._total, self._count).asOutput()

    def _accumulate(
        self, method: str, tf: Ops, values: Output[Any], weights: Output[Any] | None
    ) -> list[PrimitiveOp]:
        """The updates of ``total`` and ``count`` by ``values`` (Keras'
        ``reduce_to_samplewise_values`` and ``Mean.update_state``)."""
        values = self._cast(tf, values)
        if weights is not None:
            weights = self._cast(tf, weights)
            values, weights = squeezeOrExpand(tf, values, weights)
            vRank, wRank = values.shape().numDimensions(), weights.shape().numDimensions()
            if vRank > wRank:
                values = tf.math.mean(values, axes(tf, wRank, vRank)).asOutput()
            if not broadcasts(weights.shape(), values.shape()):
                raise IllegalArgumentError(
                    f"{type(self).__name__}.{method}: sampleWeights '{weights.name()}' of shape "
                    f"{weights.shape()} do not broadcast to the values' shape {values.shape()}; "
                    "give one weight per sample (or a scalar)"
                )
            weights = tf.broadcastTo(weights, tf.shape(values)).asOutput()
            values = tf.math.mul(values, weights).asOutput()
            if wRank > 1:
                weights = tf.math.mean(weights, axes(tf, 1, wRank)).asOutput()
        rank = values.shape().numDimensions()
        if rank > 1:
            values = tf.math.mean(values, axes(tf, 1, rank)).asOutput()
            rank = 1
        if weights is not None:
            count = tf.sum(weights, axes(tf, 0, weights.shape().numDimensions())).asOutput()
        elif rank == 1:
            count = self._cast(tf, tf.size(values).asOutput())
        else:
            count = self._scalar(tf, 1)
        return [
            tf.assignAdd(self._total, tf.sum(values, axes(tf, 0, rank))),
            tf.assignAdd(self._count, count),
        ]
