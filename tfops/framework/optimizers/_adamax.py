"""AdaMax: Adam with the infinity norm."""

from __future__ import annotations

from typing import Any, Final, cast

from scope import HasOp
from tfops.framework.optimizers._adam_family import AdamFamily
from tfops.framework.optimizers._base import Step
from tfops.graph import Graph
from tfops.op.core import Assign, Variable
from tfops.op.math import Mul
from tfops.op.train import ApplyAdaMax
from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TFloat32

__all__ = ["AdaMax"]


class AdaMax(AdamFamily):
    """AdaMax (Kingma and Ba, 2014, section 7.1; TensorFlow Java's ``Adamax``, through
    ``ApplyAdaMax``).

    At step ``t``: ``m = betaOne * m + (1 - betaOne) * grad``, ``v = max(betaTwo * v,
    |grad|)``, ``var -= learningRate / (1 - betaOne^t) * m / (v + epsilon)``. Each variable has
    slots ``"m"`` and ``"v"`` (``<variable>-m``, ``<variable>-v``, starting at zeros); the
    optimizer has a float32 scalar variable ``beta1_power`` (``betaOne^t``), multiplied by
    ``betaOne`` after every step's updates.

    Example:
        >>> from tfops.framework.optimizers import AdaMax
        >>> g = Graph(); tf = Ops.create(g)
        >>> w = tf.variable(np.array([3.0, -2.0]))
        >>> adamax = AdaMax(g, 0.1)
        >>> step = adamax.minimize(tf.sum(tf.math.square(w), 0))
        >>> s = Session(g); s.initialize(); s.run(step)
        >>> [round(x, 6) for x in s.runner().fetch(w).run()[0].tolist()]
        [2.9, -1.9]
        >>> round(float(s.runner().fetch(adamax.getBetaOnePower()).run()[0]), 6)  # betaOne^2
        0.81
    """

    EPSILON_DEFAULT: Final = 1e-7

    def __init__(
        self,
        graph: Graph,
        learningRate: float | Output[Any] = AdamFamily.LEARNING_RATE_DEFAULT,
        *,
        betaOne: float = AdamFamily.BETA_ONE_DEFAULT,
        betaTwo: float = AdamFamily.BETA_TWO_DEFAULT,
        epsilon: float = EPSILON_DEFAULT,
        name: str | None = None,
    ) -> None:
        super().__init__(graph, learningRate, betaOne, betaTwo, epsilon, name)
        self._power: Variable[TFloat32] | None = None

    def getOptimizerName(self) -> str:
        return "Adamax"

    def getBetaOnePower(self) -> Variable[TFloat32] | None:
        """The variable ``beta1_power``, once a step was built."""
        return self._power

    def _createSlots(self, variable: Output[Any]) -> None:
        self._createMoments(variable)
        if self._power is None:
            self._power = self._createVariable("beta1_power", (), TFloat32, self._betaOne)

    def _applyDense(self, step: Step, grad: Output[Any], variable: Output[Any]) -> HasOp:
        assert self._power is not None
        dtype = variable.dataType()
        return ApplyAdaMax.create(
            step.scope,
            variable,
            *self._moments(variable),
            step.hyperparameter("beta1_power", self._power.asOutput(), dtype),
            step.learningRate(dtype),
            step.hyperparameter("beta1", self._betaOne, dtype),
            step.hyperparameter("beta2", self._betaTwo, dtype),
            step.hyperparameter("epsilon", self._epsilon, dtype),
            grad,
        )

    def _finish(self, step: Step, updates: list[HasOp | Operation]) -> list[HasOp]:
        assert self._power is not None
        after = step.scope.withControlDependencies(updates)
        beta = step.hyperparameter("beta1", self._betaOne, TFloat32)
        return [Assign.create(after, self._power, Mul.create(after, self._power, beta))]

    def _saveState(self) -> object:
        return self._power

    def _restoreState(self, state: object) -> None:
        self._power = cast("Variable[TFloat32] | None", state)
