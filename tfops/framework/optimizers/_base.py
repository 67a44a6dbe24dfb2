"""The base of every optimizer: gradients of a loss, slot variables, one training op."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np

from scope import HasOp, Scope
from tfops.errors import DataTypeError, IllegalArgumentError
from tfops.graph import Graph
from tfops.op.core import Assign, Constant, NoOp, Variable
from tfops.op.dtypes import Cast
from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TFloat32, TFloating, TType

__all__ = ["GradAndVar", "Optimizer", "Step", "checkHyperparameter"]

GradAndVar: TypeAlias = "tuple[Output[TType], Variable[TType]]"
"""A gradient and the variable it updates, as :meth:`Optimizer.computeGradients` returns them."""

_VARIABLE = "VariableV2"


def checkHyperparameter(owner: str, name: str, value: object) -> float:
    """``value`` as a Python float, or a ``TypeError`` naming ``owner``'s parameter ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise DataTypeError(
            f"{owner}: {name} must be a real number (a Python float), got "
            f"{type(value).__name__} {value!r}"
        )
    return float(value)


class Optimizer(ABC):
    """Base of the gradient optimizers (TensorFlow Java's ``framework.optimizers.Optimizer``).

    ``minimize(loss)`` adds the ops of one training step to the graph: the gradients of
    ``loss`` with respect to every variable it depends on (:meth:`computeGradients`) and an
    update of each variable (:meth:`applyGradients`), gathered in a ``NoOp`` to run. The
    updates are TensorFlow's ``train.apply*`` ops, so a step equals TensorFlow 1's optimizer of
    the same name. Variables the optimizer keeps per variable (slots, such as Adam's moments)
    are named ``<variable>-<slot>`` and registered with the graph's initializers.

    Hyperparameters are float32 constants, cast to each variable's data type (as TensorFlow
    does). The learning rate may also be a floating point scalar operand (a placeholder, to
    change it between steps).
    """

    def __init__(self, graph: Graph, learningRate: float | Output[Any] | Any,
                 name: str | None = None) -> None:
        kind = type(self).__name__
        if not isinstance(graph, Graph):
            raise DataTypeError(f"{kind}: optimizers build into a tfops Graph, got "
                                f"{type(graph).__name__}")
        self._graph = graph
        self._name = self.getOptimizerName() if name is None else name
        graph.baseScope().withName(self._name)  # rejects an invalid name now
        self._learningRate = self._checkRate(learningRate)
        self._slots: dict[str, dict[str, Variable[Any]]] = {}

    # -- public API -----------------------------------------------------------------------
    @abstractmethod
    def getOptimizerName(self) -> str:
        """The optimizer's name (``"Adam"``), the default base name of the ops it adds."""

    def getLearningRate(self) -> float | Output[Any]:
        """The learning rate: a float, or the scalar operand given."""
        return self._learningRate

    @staticmethod
    def createName(variable: Output[Any] | HasOp, slotName: str) -> str:
        """The name of ``variable``'s slot ``slotName``: ``<variable op name>-<slotName>``."""
        return f"{variable.op().name()}-{slotName}"

    def getSlot(self, variable: Output[Any] | HasOp, slotName: str) -> Variable[Any] | None:
        """``variable``'s slot ``slotName`` (Adam's ``"m"``...), or None if it has none yet."""
        return self._slots.get(slotName, {}).get(variable.op().name())

    def minimize(self, loss: Any, name: str | None = None) -> NoOp:
        """Adds a training step that updates every variable ``loss`` depends on.

        Args:
            loss: a floating point operand to minimize (usually a scalar; a tensor is summed).
            name: the name of the returned op (default ``<optimizer name>-minimize``).

        Returns:
            a ``NoOp`` that runs the updates; run it once per step.

        Raises:
            TypeError: ``loss`` is not a floating point operand.
            ValueError: ``loss`` depends on no variable, or ``name`` is not a valid op name.
        """
        with self._graph._transaction():
            return self.applyGradients(self.computeGradients(loss), name)

    def computeGradients(self, loss: Any) -> list[GradAndVar]:
        """The gradients of ``loss`` with respect to each variable it depends on.

        Every ``VariableV2`` of the graph is considered; those ``loss`` does not depend on
        (including the optimizers' own slots) are left out.

        Returns:
            (gradient, variable) pairs, in the order the variables were created.

        Raises:
            TypeError: ``loss`` is not a floating point operand.
            ValueError: ``loss`` belongs to another graph or depends on no variable.
        """
        out = self._checkLoss(loss)
        variables = [op for op in self._graph.operations() if op.type() == _VARIABLE]
        with self._graph._transaction():
            grads = self._graph.addGradients(None, [out], [v.output(0) for v in variables])
            pairs: list[GradAndVar] = [
                (grad, Variable(v)) for grad, v in zip(grads, variables, strict=True)
                if grad is not None
            ]
            if not pairs:
                names = ", ".join(repr(v.name()) for v in variables) or "none"
                raise IllegalArgumentError(
                    f"{type(self).__name__}: the loss '{out.name()}' depends on no trainable "
                    f"variable (variables of the graph: {names}); build the loss from the "
                    "variables to train (tf.variable(...)), through ops that have gradients"
                )
            return pairs

    def applyGradients(self, gradsAndVars: Sequence[tuple[Any, Any]],
                       name: str | None = None) -> NoOp:
        """Adds the updates of each variable by its gradient, gathered in one ``NoOp``.

        Args:
            gradsAndVars: (gradient, variable) pairs, e.g. from :meth:`computeGradients`; each
                gradient has its variable's data type and shape.
            name: the name of the returned op (default ``<optimizer name>-minimize``).

        Returns:
            a ``NoOp`` that runs every update.

        Raises:
            TypeError: a gradient or variable is not an operand of a floating point type, or a
                gradient's type differs from its variable's.
            ValueError: the list is empty, a variable appears twice, a gradient's shape is not
                its variable's, an operand is from another graph, or ``name`` is invalid.
        """
        base = self._graph.baseScope()
        finalScope = base.withName(self._name + "-minimize" if name is None else name)
        pairs = self._checkPairs(gradsAndVars)
        saved = {slot: dict(byVar) for slot, byVar in self._slots.items()}
        savedState = self._saveState()
        try:
            with self._graph._transaction():
                for _, variable in pairs:
                    self._createSlots(variable)
                step = Step(base.withSubScope(self._name), self._learningRate)
                self._prepare(step)
                updates: list[HasOp | Operation] = [
                    self._applyDense(step, grad, variable) for grad, variable in pairs
                ]
                updates.extend(self._finish(step, updates))
                return NoOp.create(finalScope.withControlDependencies(updates))
        except BaseException:
            self._slots = saved
            self._restoreState(savedState)
            raise

    # -- for subclasses ---------------------------------------------------------------------
    def _createSlots(self, variable: Output[Any]) -> None:
        """Creates ``variable``'s slots (each once per variable: later steps share them)."""
        return None

    def _prepare(self, step: Step) -> None:
        """Adds what every update of a step shares (Nadam's schedule), before the updates."""
        return None

    @abstractmethod
    def _applyDense(self, step: Step, grad: Output[Any], variable: Output[Any]) -> HasOp:
        """The op updating ``variable`` by ``grad``."""

    def _finish(self, step: Step, updates: list[HasOp | Operation]) -> list[HasOp]:
        """Ops to run after the updates (Adam's beta powers); none by default."""
        return []

    def _saveState(self) -> object:
        """The optimizer's own state besides slots, restored if building a step fails."""
        return None

    def _restoreState(self, state: object) -> None:
        """Restores what :meth:`_saveState` returned."""
        return None

    def _createSlot(self, variable: Output[Any], slotName: str, initialValue: float) -> None:
        """Creates ``variable``'s slot ``slotName``, a variable of its shape and data type
        initialized to ``initialValue`` everywhere (unless the slot exists already)."""
        byVar = self._slots.setdefault(slotName, {})
        if variable.op().name() in byVar:
            return
        byVar[variable.op().name()] = self._createVariable(
            self.createName(variable, slotName), variable.shape().asArray(),
            variable.dataType(), initialValue, like=variable)

    def _createVariable(self, name: str, shape: Sequence[int] | None, dtype: type[TType],
                        initialValue: float, like: Output[Any] | None = None) -> Variable[Any]:
        """A variable named ``name`` (made unique) filled with ``initialValue``, built with its
        ``Assign`` in the init scope (TF Java's slots): a session initializes it by itself."""
        base = self._graph.baseScope().withInitScope()
        if shape is None or any(d < 0 for d in shape):
            raise IllegalArgumentError(
                f"{type(self).__name__}: variable '{name if like is None else like.name()}' has "
                f"shape {shape if like is None else like.shape()}; an optimizer needs "
                "variables of fully known shape for its slots"
            )
        init = Constant.create(base, np.full(tuple(shape), initialValue, dtype.DTYPE))
        # a slot of a variable in a sub-scope ("net/w-m") goes in that sub-scope, which exists
        # already (TF Java's withName(name) refuses the "/")
        prefix, _, leaf = name.rpartition("/")
        at = base._atPrefix(prefix) if prefix else base  # pyright: ignore[reportPrivateUsage]
        variable: Variable[Any] = Variable.create(at.withName(leaf), init.asOutput().shape(),
                                                  dtype)
        Assign.create(base, variable, init)
        return variable

    # -- checks -----------------------------------------------------------------------------
    def _checkRate(self, rate: object) -> float | Output[Any]:
        kind = type(self).__name__
        asOutput = getattr(rate, "asOutput", None)
        if asOutput is None:
            return checkHyperparameter(kind, "learningRate", rate)
        out: Output[Any] = asOutput()
        if out.op().graph() is not self._graph:
            raise IllegalArgumentError(f"{kind}: the learning rate '{out.name()}' belongs to "
                                       "another graph")
        if not issubclass(out.dataType(), TFloating):
            raise DataTypeError(
                f"{kind}: the learning rate '{out.name()}' has data type "
                f"{out.dataType().NAME}; it must be a floating point scalar (a Python float or "
                "a float operand)"
            )
        if out.shape().numDimensions() > 0:
            raise IllegalArgumentError(f"{kind}: the learning rate '{out.name()}' must be a "
                                       f"scalar, got shape {out.shape()}")
        return out

    def _checkLoss(self, loss: object) -> Output[Any]:
        kind = type(self).__name__
        asOutput = getattr(loss, "asOutput", None)
        if asOutput is None:
            raise DataTypeError(f"{kind}: the loss must be an operand of the graph, got "
                                f"{type(loss).__name__}")
        out: Output[Any] = asOutput()
        if out.op().graph() is not self._graph:
            raise IllegalArgumentError(f"{kind}: the loss '{out.name()}' belongs to another "
                                       "graph than the optimizer's")
        if not issubclass(out.dataType(), TFloating):
            raise DataTypeError(
                f"{kind}: the loss '{out.name()}' has data type {out.dataType().NAME}; only a "
                "floating point loss has gradients (cast it: tf.dtypes.cast(loss, TFloat32))"
            )
        return out

    def _checkPairs(self, gradsAndVars: Sequence[tuple[Any, Any]]) -> list[
            tuple[Output[Any], Output[Any]]]:
        kind = type(self).__name__
        if isinstance(gradsAndVars, (str, bytes)) or not isinstance(gradsAndVars, Sequence):
            raise DataTypeError(f"{kind}.applyGradients: gradsAndVars must be a list of "
                                f"(gradient, variable) pairs, got {type(gradsAndVars).__name__}")
        if not gradsAndVars:
            raise IllegalArgumentError(f"{kind}.applyGradients: no (gradient, variable) pair "
                                       "given")
        pairs: list[tuple[Output[Any], Output[Any]]] = []
        seen: set[str] = set()
        for i, pair in enumerate(gradsAndVars):
            where = f"{kind}.applyGradients: pair {i}"
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise DataTypeError(f"{where} must be a (gradient, variable) tuple, got {pair!r}")
            grad, variable = (self._operand(where, what, x)
                              for what, x in (("gradient", pair[0]), ("variable", pair[1])))
            if variable.op().type() != _VARIABLE:
                raise IllegalArgumentError(
                    f"{where}: '{variable.name()}' is a {variable.op().type()}, not a variable "
                    "(VariableV2)")
            if variable.op().name() in seen:
                raise IllegalArgumentError(f"{where}: variable '{variable.op().name()}' appears "
                                           "twice")
            seen.add(variable.op().name())
            if not issubclass(variable.dataType(), TFloating):
                raise DataTypeError(
                    f"{where}: variable '{variable.op().name()}' has data type "
                    f"{variable.dataType().NAME}; optimizers update floating point variables")
            if grad.dataType() is not variable.dataType():
                raise DataTypeError(
                    f"{where}: gradient '{grad.name()}' has data type {grad.dataType().NAME}, "
                    f"variable '{variable.op().name()}' has {variable.dataType().NAME}; cast "
                    "the gradient to the variable's type")
            if not grad.shape().isCompatibleWith(variable.shape()):
                raise IllegalArgumentError(
                    f"{where}: gradient '{grad.name()}' has shape {grad.shape()}, variable "
                    f"'{variable.op().name()}' has shape {variable.shape()}; each gradient "
                    "must have its variable's shape")
            pairs.append((grad, variable))
        return pairs

    def _operand(self, where: str, what: str, value: object) -> Output[Any]:
        asOutput = getattr(value, "asOutput", None)
        if asOutput is None:
            raise DataTypeError(f"{where}: the {what} must be an operand, got "
                                f"{type(value).__name__}")
        out: Output[Any] = asOutput()
        if out.op().graph() is not self._graph:
            raise IllegalArgumentError(f"{where}: the {what} '{out.name()}' belongs to another "
                                       "graph than the optimizer's")
        return out


class Step:
    """The ops of one training step: their scope, and the hyperparameter constants, made once
    per step and cast once per data type."""

    def __init__(self, scope: Scope, learningRate: float | Output[Any]) -> None:
        self.scope = scope
        self._learningRate = learningRate
        self._cache: dict[tuple[str, type[TType] | None], Output[Any]] = {}

    def learningRate(self, dtype: type[TType]) -> Output[Any]:
        """The learning rate in ``dtype``."""
        return self.hyperparameter("learning_rate", self._learningRate, dtype)

    def hyperparameter(self, name: str, value: float | Output[Any],
                       dtype: type[TType]) -> Output[Any]:
        """``value`` (a float32 constant named ``name``, or an operand) in ``dtype``."""
        if (name, dtype) in self._cache:
            return self._cache[(name, dtype)]
        source = self._cache.get((name, None))
        if source is None:
            if isinstance(value, Output):
                source = value
            else:
                source = Constant.create(self.scope.withName(name),
                                         np.asarray(value, TFloat32.DTYPE)).asOutput()
            self._cache[(name, None)] = source
        out = source if source.dataType() is dtype else Cast.create(
            self.scope, source, dtype).asOutput()
        self._cache[(name, dtype)] = out
        return out
