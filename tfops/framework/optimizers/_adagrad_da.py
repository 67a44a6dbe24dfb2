"""AdaGradDA: Adagrad dual averaging, for sparse (L1-regularized) models."""

from __future__ import annotations

from typing import Any, Final, cast

import numpy as np

from scope import HasOp
from tfops.errors import IllegalArgumentError
from tfops.framework.optimizers._base import Optimizer, Step, checkHyperparameter
from tfops.graph import Graph
from tfops.op.core import AssignAdd, Constant, Variable
from tfops.op.math import Add
from tfops.op.train import ApplyAdagradDA
from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TInt64

__all__ = ["AdaGradDA"]


class AdaGradDA(Optimizer):
    """Adagrad dual averaging (Duchi et al., 2011; TensorFlow's ``AdagradDAOptimizer``,
    through ``ApplyAdagradDA``).

    Each step adds the gradient to ``g`` and its square to ``gg``, then sets ``var = -lr *
    sign(g) * max(|g| - l1Strength * t, 0) / (l2Strength * t * lr + sqrt(gg))``, where ``t`` is
    the number of this step (from 1). Each variable has slots ``"gradient_accumulator"``
    (``g``, starting at zeros) and ``"gradient_squared_accumulator"`` (``gg``, starting at
    ``initialAccumulatorValue``); the optimizer counts the steps done in an int64 scalar
    variable ``adagrad-da-global-step``, increased by one after every step's updates.

    Example:
        >>> from tfops.framework.optimizers import AdaGradDA
        >>> g = Graph(); tf = Ops.create(g)
        >>> w = tf.variable(np.array([2.0]))
        >>> step = AdaGradDA(g, 0.5).minimize(tf.math.square(w))
        >>> s = Session(g); s.initialize(); s.run(step)
        >>> [round(x, 6) for x in s.runner().fetch(w).run()[0].tolist()]
        [-0.498445]
    """

    LEARNING_RATE_DEFAULT: Final = 0.001
    INITIAL_ACCUMULATOR_DEFAULT: Final = 0.1
    L1_STRENGTH_DEFAULT: Final = 0.0
    L2_STRENGTH_DEFAULT: Final = 0.0
    ACCUMULATOR: Final = "gradient_accumulator"
    SQUARED_ACCUMULATOR: Final = "gradient_squared_accumulator"

    def __init__(
        self,
        graph: Graph,
        learningRate: float | Output[Any] = LEARNING_RATE_DEFAULT,
        *,
        initialAccumulatorValue: float = INITIAL_ACCUMULATOR_DEFAULT,
        l1Strength: float = L1_STRENGTH_DEFAULT,
        l2Strength: float = L2_STRENGTH_DEFAULT,
        name: str | None = None,
    ) -> None:
        super().__init__(graph, learningRate, name)
        initial = checkHyperparameter(
            "AdaGradDA", "initialAccumulatorValue", initialAccumulatorValue
        )
        l1 = checkHyperparameter("AdaGradDA", "l1Strength", l1Strength)
        l2 = checkHyperparameter("AdaGradDA", "l2Strength", l2Strength)
        if not initial > 0:
            raise IllegalArgumentError(
                f"AdaGradDA: initialAccumulatorValue must be greater than zero, got {initial}"
            )
        for what, value in (("l1Strength", l1), ("l2Strength", l2)):
            if not value >= 0:
                raise IllegalArgumentError(f"AdaGradDA: {what} must not be negative, got {value}")
        self._initialAccumulatorValue = initial
        self._l1Strength = l1
        self._l2Strength = l2
        self._globalStep: Variable[TInt64] | None = None
        self._one: Output[TInt64]
        self._stepNumber: Output[TInt64]

    def getOptimizerName(self) -> str:
        return "adagrad-da"

    def getGlobalStep(self) -> Variable[TInt64] | None:
        """The step counter ``adagrad-da-global-step``, once a step was built."""
        return self._globalStep

    def _createSlots(self, variable: Output[Any]) -> None:
        self._createSlot(variable, self.ACCUMULATOR, 0.0)
        self._createSlot(variable, self.SQUARED_ACCUMULATOR, self._initialAccumulatorValue)
        if self._globalStep is None:
            self._globalStep = self._createVariable("adagrad-da-global-step", (), TInt64, 0)

    def _prepare(self, step: Step) -> None:
        assert self._globalStep is not None
        # the number of this step, counted from 1, as TF1's AdagradDAOptimizer passes it
        self._one = Constant.create(step.scope.withName("one"), np.int64(1)).asOutput()
        self._stepNumber = Add.create(
            step.scope.withName("global_step"), self._globalStep, self._one
        ).asOutput()

    def _applyDense(self, step: Step, grad: Output[Any], variable: Output[Any]) -> HasOp:
        dtype = variable.dataType()
        name = variable.op().name()
        return ApplyAdagradDA.create(
            step.scope,
            variable,
            self._slots[self.ACCUMULATOR][name],
            self._slots[self.SQUARED_ACCUMULATOR][name],
            grad,
            step.learningRate(dtype),
            step.hyperparameter("l1", self._l1Strength, dtype),
            step.hyperparameter("l2", self._l2Strength, dtype),
            self._stepNumber,
        )

    def _finish(self, step: Step, updates: list[HasOp | Operation]) -> list[HasOp]:
        assert self._globalStep is not None
        after = step.scope.withControlDependencies(updates)
        return [AssignAdd.create(after, self._globalStep, self._one)]

    def _saveState(self) -> object:
        return self._globalStep

    def _restoreState(self, state: object) -> None:
        self._globalStep = cast("Variable[TInt64] | None", state)

    def __repr__(self) -> str:
        return (
            f"AdaGradDA(learningRate={self.getLearningRate()!r}, "
            f"initialAccumulatorValue={self._initialAccumulatorValue!r}, "
            f"l1Strength={self._l1Strength!r}, l2Strength={self._l2Strength!r})"
        )
