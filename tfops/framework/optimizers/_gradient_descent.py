"""Plain gradient descent."""

from __future__ import annotations

from typing import Any, Final

from scope import HasOp
from tfops.framework.optimizers._base import Optimizer, Step
from tfops.graph import Graph
from tfops.op.train import ApplyGradientDescent
from tfops.output import Output

__all__ = ["GradientDescent"]


class GradientDescent(Optimizer):
    """Gradient descent: ``var -= learningRate * grad`` (TensorFlow's
    ``GradientDescentOptimizer``, through ``ApplyGradientDescent``).

    Example:
        >>> from tfops.framework.optimizers import GradientDescent
        >>> g = Graph(); tf = Ops.create(g)
        >>> w = tf.variable(np.array([3.0]))
        >>> step = GradientDescent(g, 0.25).minimize(tf.math.square(w))
        >>> s = Session(g); s.initialize(); s.run(step)
        >>> s.runner().fetch(w).run()[0].tolist()
        [1.5]
    """

    LEARNING_RATE_DEFAULT: Final = 0.01

    def __init__(self, graph: Graph, learningRate: float | Output[Any] = LEARNING_RATE_DEFAULT,
                 *, name: str | None = None) -> None:
        super().__init__(graph, learningRate, name)

    def getOptimizerName(self) -> str:
        return "GradientDescent"

    def _applyDense(self, step: Step, grad: Output[Any], variable: Output[Any]) -> HasOp:
        return ApplyGradientDescent.create(step.scope, variable,
                                           step.learningRate(variable.dataType()), grad)

    def __repr__(self) -> str:
        return f"GradientDescent(learningRate={self.getLearningRate()!r})"
