"""RMSProp, plain or centered."""

from __future__ import annotations

from typing import Any, Final

from scope import HasOp
from tfops.errors import DataTypeError
from tfops.framework.optimizers._base import Optimizer, Step, checkHyperparameter
from tfops.graph import Graph
from tfops.op.train import ApplyCenteredRMSProp, ApplyRMSProp
from tfops.output import Output

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    """RMSProp (TensorFlow's ``RMSPropOptimizer``, through ``ApplyRMSProp`` or, ``centered``,
    ``ApplyCenteredRMSProp``).

    ``rms = decay * rms + (1 - decay) * grad^2``;
    ``mom = momentum * mom + learningRate * grad / sqrt(rms + epsilon)``; ``var -= mom``.
    Centered, the mean gradient ``mg = decay * mg + (1 - decay) * grad`` is kept too, and
    ``rms - mg^2`` replaces ``rms``. Each variable has slots ``"rms"`` (starting at ones),
    ``"momentum"`` and, centered, ``"mg"`` (starting at zeros), named ``<variable>-<slot>``.

    Example:
        >>> from tfops.framework.optimizers import RMSProp
        >>> g = Graph(); tf = Ops.create(g)
        >>> w = tf.variable(np.array([3.0]))
        >>> step = RMSProp(g, 0.5, decay=0.5).minimize(tf.math.square(w))
        >>> s = Session(g); s.initialize(); s.run(step)
        >>> [round(x, 6) for x in s.runner().fetch(w).run()[0].tolist()]
        [2.302514]
    """

    LEARNING_RATE_DEFAULT: Final = 0.001
    DECAY_DEFAULT: Final = 0.9
    MOMENTUM_DEFAULT: Final = 0.0
    EPSILON_DEFAULT: Final = 1e-10
    CENTERED_DEFAULT: Final = False
    RMS: Final = "rms"
    MG: Final = "mg"
    MOMENTUM: Final = "momentum"

    def __init__(self, graph: Graph, learningRate: float | Output[Any] = LEARNING_RATE_DEFAULT,
                 *, decay: float = DECAY_DEFAULT, momentum: float = MOMENTUM_DEFAULT,
                 epsilon: float = EPSILON_DEFAULT, centered: bool = CENTERED_DEFAULT,
                 name: str | None = None) -> None:
        super().__init__(graph, learningRate, name)
        self._decay = checkHyperparameter("RMSProp", "decay", decay)
        self._momentum = checkHyperparameter("RMSProp", "momentum", momentum)
        self._epsilon = checkHyperparameter("RMSProp", "epsilon", epsilon)
        if not isinstance(centered, bool):
            raise DataTypeError(f"RMSProp: centered must be a bool, got "
                                f"{type(centered).__name__} {centered!r}")
        self._centered = centered

    def getOptimizerName(self) -> str:
        return "RMSProp"

    def _createSlots(self, variable: Output[Any]) -> None:
        self._createSlot(variable, self.RMS, 1.0)
        self._createSlot(variable, self.MOMENTUM, 0.0)
        if self._centered:
            self._createSlot(variable, self.MG, 0.0)

    def _applyDense(self, step: Step, grad: Output[Any], variable: Output[Any]) -> HasOp:
        dtype = variable.dataType()
        name = variable.op().name()
        hyper = (step.learningRate(dtype), step.hyperparameter("decay", self._decay, dtype),
                 step.hyperparameter("momentum", self._momentum, dtype),
                 step.hyperparameter("epsilon", self._epsilon, dtype))
        rms, mom = self._slots[self.RMS][name], self._slots[self.MOMENTUM][name]
        if self._centered:
            return ApplyCenteredRMSProp.create(step.scope, variable, self._slots[self.MG][name],
                                               rms, mom, *hyper, grad)
        return ApplyRMSProp.create(step.scope, variable, rms, mom, *hyper, grad)

    def __repr__(self) -> str:
        return (f"RMSProp(learningRate={self.getLearningRate()!r}, decay={self._decay!r}, "
                f"momentum={self._momentum!r}, epsilon={self._epsilon!r}, "
                f"centered={self._centered!r})")
