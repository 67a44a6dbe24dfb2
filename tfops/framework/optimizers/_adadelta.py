"""AdaDelta: per-coordinate step sizes from running averages of gradients and updates."""

from __future__ import annotations

from typing import Any, Final

from scope import HasOp
from tfops.framework.optimizers._base import Optimizer, Step, checkHyperparameter
from tfops.graph import Graph
from tfops.op.train import ApplyAdadelta
from tfops.output import Output

__all__ = ["AdaDelta"]


class AdaDelta(Optimizer):
    """AdaDelta (Zeiler, 2012; TensorFlow's ``AdadeltaOptimizer``, through ``ApplyAdadelta``).

    ``accum = rho * accum + (1 - rho) * grad^2``; ``update = sqrt(accum_update + epsilon) /
    sqrt(accum + epsilon) * grad``; ``var -= learningRate * update``; ``accum_update = rho *
    accum_update + (1 - rho) * update^2``. Each variable has slots ``"accum"`` and
    ``"accum_update"`` (``<variable>-accum``, ``<variable>-accum_update``, starting at zeros).

    Example:
        >>> from tfops.framework.optimizers import AdaDelta
        >>> g = Graph(); tf = Ops.create(g)
        >>> w = tf.variable(np.array([2.0]))
        >>> step = AdaDelta(g, 1.0, rho=0.5, epsilon=0.01).minimize(tf.math.square(w))
        >>> s = Session(g); s.initialize(); s.run(step)
        >>> [round(x, 6) for x in s.runner().fetch(w).run()[0].tolist()]
        [1.858667]
    """

    LEARNING_RATE_DEFAULT: Final = 0.001
    RHO_DEFAULT: Final = 0.95
    EPSILON_DEFAULT: Final = 1e-7
    ACCUMULATOR: Final = "accum"
    ACCUMULATOR_UPDATE: Final = "accum_update"

    def __init__(
        self,
        graph: Graph,
        learningRate: float | Output[Any] = LEARNING_RATE_DEFAULT,
        *,
        rho: float = RHO_DEFAULT,
        epsilon: float = EPSILON_DEFAULT,
        name: str | None = None,
    ) -> None:
        super().__init__(graph, learningRate, name)
        self._rho = checkHyperparameter("AdaDelta", "rho", rho)
        self._epsilon = checkHyperparameter("AdaDelta", "epsilon", epsilon)

    def getOptimizerName(self) -> str:
        return "Adadelta"

    def _createSlots(self, variable: Output[Any]) -> None:
        self._createSlot(variable, self.ACCUMULATOR, 0.0)
        self._createSlot(variable, self.ACCUMULATOR_UPDATE, 0.0)

    def _applyDense(self, step: Step, grad: Output[Any], variable: Output[Any]) -> HasOp:
        dtype = variable.dataType()
        name = variable.op().name()
        return ApplyAdadelta.create(
            step.scope,
            variable,
            self._slots[self.ACCUMULATOR][name],
            self._slots[self.ACCUMULATOR_UPDATE][name],
            step.learningRate(dtype),
            step.hyperparameter("rho", self._rho, dtype),
            step.hyperparameter("epsilon", self._epsilon, dtype),
            grad,
        )

    def __repr__(self) -> str:
        return (
            f"AdaDelta(learningRate={self.getLearningRate()!r}, rho={self._rho!r}, "
            f"epsilon={self._epsilon!r})"
        )
