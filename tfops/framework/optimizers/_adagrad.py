"""AdaGrad: per-coordinate learning rates from the sum of squared gradients."""

from __future__ import annotations

from typing import Any, Final

from scope import HasOp
from tfops.errors import IllegalArgumentError
from tfops.framework.optimizers._base import Optimizer, Step, checkHyperparameter
from tfops.graph import Graph
from tfops.op.train import ApplyAdagrad
from tfops.output import Output

__all__ = ["AdaGrad"]


class AdaGrad(Optimizer):
    """AdaGrad (Duchi et al., 2011; TensorFlow's ``AdagradOptimizer``, through
    ``ApplyAdagrad``): ``accum += grad^2; var -= learningRate * grad / sqrt(accum)``.

    Each variable has a slot ``"accumulator"`` (``<variable>-accumulator``), starting at
    ``initialAccumulatorValue``.

    Example:
        >>> from tfops.framework.optimizers import AdaGrad
        >>> g = Graph(); tf = Ops.create(g)
        >>> w = tf.variable(np.array([2.0]))
        >>> step = AdaGrad(g, 0.5, initialAccumulatorValue=0.0).minimize(tf.math.square(w))
        >>> s = Session(g); s.initialize(); s.run(step)
        >>> s.runner().fetch(w).run()[0].tolist()
        [1.5]
    """

    LEARNING_RATE_DEFAULT: Final = 0.001
    INITIAL_ACCUMULATOR_DEFAULT: Final = 0.01
    ACCUMULATOR: Final = "accumulator"

    def __init__(self, graph: Graph, learningRate: float | Output[Any] = LEARNING_RATE_DEFAULT,
                 *, initialAccumulatorValue: float = INITIAL_ACCUMULATOR_DEFAULT,
                 name: str | None = None) -> None:
        super().__init__(graph, learningRate, name)
        initial = checkHyperparameter("AdaGrad", "initialAccumulatorValue",
                                      initialAccumulatorValue)
        if not initial >= 0:
            raise IllegalArgumentError(
                f"AdaGrad: initialAccumulatorValue must be non-negative, got {initial}")
        self._initialAccumulatorValue = initial

    def getOptimizerName(self) -> str:
        return "Adagrad"

    def _createSlots(self, variable: Output[Any]) -> None:
        self._createSlot(variable, self.ACCUMULATOR, self._initialAccumulatorValue)

    def _applyDense(self, step: Step, grad: Output[Any], variable: Output[Any]) -> HasOp:
        return ApplyAdagrad.create(
            step.scope, variable, self._slots[self.ACCUMULATOR][variable.op().name()],
            step.learningRate(variable.dataType()), grad)

    def __repr__(self) -> str:
        return (f"AdaGrad(learningRate={self.getLearningRate()!r}, "
                f"initialAccumulatorValue={self._initialAccumulatorValue!r})")
