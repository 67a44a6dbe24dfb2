"""Gradient descent with momentum, classical or Nesterov's."""

from __future__ import annotations

from typing import Any, Final

from scope import HasOp
from tfops.errors import DataTypeError
from tfops.framework.optimizers._base import Optimizer, Step, checkHyperparameter
from tfops.graph import Graph
from tfops.op.train import ApplyMomentum
from tfops.output import Output

__all__ = ["Momentum"]


class Momentum(Optimizer):
    """Gradient descent with momentum (TensorFlow's ``MomentumOptimizer``, through
    ``ApplyMomentum``): ``accum = momentum * accum + grad; var -= learningRate * accum``, or
    with ``useNesterov`` ``var -= learningRate * (grad + momentum * accum)``.

    Each variable has a slot ``"momentum"`` (the accumulator, named ``<variable>-momentum``),
    starting at zeros.

    Example:
        >>> from tfops.framework.optimizers import Momentum
        >>> g = Graph(); tf = Ops.create(g)
        >>> w = tf.variable(np.array([3.0]))
        >>> step = Momentum(g, 0.25, momentum=0.5).minimize(tf.math.square(w))
        >>> s = Session(g); s.initialize(); s.run(step); s.run(step)
        >>> s.runner().fetch(w).run()[0].tolist()
        [0.0]
    """

    LEARNING_RATE_DEFAULT: Final = 0.01
    MOMENTUM_DEFAULT: Final = 0.0
    NESTEROV_DEFAULT: Final = False
    MOMENTUM: Final = "momentum"

    def __init__(self, graph: Graph, learningRate: float | Output[Any] = LEARNING_RATE_DEFAULT,
                 *, momentum: float = MOMENTUM_DEFAULT, useNesterov: bool = NESTEROV_DEFAULT,
                 name: str | None = None) -> None:
        super().__init__(graph, learningRate, name)
        self._momentum = checkHyperparameter("Momentum", "momentum", momentum)
        if not isinstance(useNesterov, bool):
            raise DataTypeError(f"Momentum: useNesterov must be a bool, got "
                                f"{type(useNesterov).__name__} {useNesterov!r}")
        self._useNesterov = useNesterov

    def getOptimizerName(self) -> str:
        return "Momentum"

    def _createSlots(self, variable: Output[Any]) -> None:
        self._createSlot(variable, self.MOMENTUM, 0.0)

    def _applyDense(self, step: Step, grad: Output[Any], variable: Output[Any]) -> HasOp:
        dtype = variable.dataType()
        return ApplyMomentum.create(
            step.scope, variable, self._slots[self.MOMENTUM][variable.op().name()],
            step.learningRate(dtype), grad, step.hyperparameter("momentum", self._momentum, dtype),
            useNesterov=self._useNesterov,
        )

    def __repr__(self) -> str:
        return (f"Momentum(learningRate={self.getLearningRate()!r}, momentum={self._momentum!r}, "
                f"useNesterov={self._useNesterov!r})")
