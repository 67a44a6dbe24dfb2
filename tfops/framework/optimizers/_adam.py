"""Adam: adaptive moment estimation."""

from __future__ import annotations

from typing import Any, Final, cast

from scope import HasOp
from tfops.framework.optimizers._adam_family import AdamFamily
from tfops.framework.optimizers._base import Step
from tfops.graph import Graph
from tfops.op.core import Assign, Variable
from tfops.op.math import Mul
from tfops.op.train import ApplyAdam
from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TFloat32

__all__ = ["Adam"]


class Adam(AdamFamily):
    """Adam (Kingma and Ba, 2014; TensorFlow's ``AdamOptimizer``, through ``ApplyAdam``).

    At step ``t``: ``lr_t = learningRate * sqrt(1 - betaTwo^t) / (1 - betaOne^t)``,
    ``m = betaOne * m + (1 - betaOne) * grad``, ``v = betaTwo * v + (1 - betaTwo) * grad^2``,
    ``var -= lr_t * m / (sqrt(v) + epsilon)``. Each variable has slots ``"m"`` and ``"v"``
    (``<variable>-m``, ``<variable>-v``, starting at zeros); the optimizer has two float32
    scalar variables ``beta1_power`` and ``beta2_power`` (``betaOne^t``, ``betaTwo^t``),
    multiplied by ``betaOne`` and ``betaTwo`` after every step's updates.

    Example:
        >>> from tfops.framework.optimizers import Adam
        >>> g = Graph(); tf = Ops.create(g)
        >>> w = tf.variable(np.array([3.0, -2.0]))
        >>> step = Adam(g, 0.1).minimize(tf.sum(tf.math.square(w), 0))
        >>> s = Session(g); s.initialize(); s.run(step)
        >>> [round(x, 6) for x in s.runner().fetch(w).run()[0].tolist()]
        [2.9, -1.9]
    """

    EPSILON_DEFAULT: Final = 1e-8

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
        self._powers: tuple[Variable[TFloat32], Variable[TFloat32]] | None = None

    def getOptimizerName(self) -> str:
        return "Adam"

    def getBetaPowers(self) -> tuple[Variable[TFloat32], Variable[TFloat32]] | None:
        """The variables ``beta1_power`` and ``beta2_power``, once a step was built."""
        return self._powers

    def _createSlots(self, variable: Output[Any]) -> None:
        self._createMoments(variable)
        if self._powers is None:
            self._powers = (
                self._createVariable("beta1_power", (), TFloat32, self._betaOne),
                self._createVariable("beta2_power", (), TFloat32, self._betaTwo),
            )

    def _applyDense(self, step: Step, grad: Output[Any], variable: Output[Any]) -> HasOp:
        assert self._powers is not None
        dtype = variable.dataType()
        return ApplyAdam.create(
            step.scope,
            variable,
            *self._moments(variable),
            step.hyperparameter("beta1_power", self._powers[0].asOutput(), dtype),
            step.hyperparameter("beta2_power", self._powers[1].asOutput(), dtype),
            step.learningRate(dtype),
            step.hyperparameter("beta1", self._betaOne, dtype),
            step.hyperparameter("beta2", self._betaTwo, dtype),
            step.hyperparameter("epsilon", self._epsilon, dtype),
            grad,
        )

    def _finish(self, step: Step, updates: list[HasOp | Operation]) -> list[HasOp]:
        assert self._powers is not None
        after = step.scope.withControlDependencies(updates)
        return [
            Assign.create(
                after, power, Mul.create(after, power, step.hyperparameter(beta, value, TFloat32))
            )
            for power, beta, value in zip(
                self._powers, ("beta1", "beta2"), (self._betaOne, self._betaTwo), strict=True
            )
        ]

    def _saveState(self) -> object:
        return self._powers

    def _restoreState(self, state: object) -> None:
        self._powers = cast("tuple[Variable[TFloat32], Variable[TFloat32]] | None", state)
