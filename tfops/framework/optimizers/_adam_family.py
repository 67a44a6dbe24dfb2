"""What Adam, AdaMax and Nadam share: the hyperparameters ``betaOne``, ``betaTwo`` and
``epsilon``, checked when the optimizer is made, and a first and a second moment slot per
variable."""

from __future__ import annotations

from typing import Any, Final

from tfops.framework.optimizers._base import Optimizer, checkHyperparameter
from tfops.graph import Graph
from tfops.op.core import Variable
from tfops.output import Output

__all__ = ["AdamFamily"]


class AdamFamily(Optimizer):
    """Base of the Adam family of optimizers (Adam, AdaMax, Nadam).

    Each variable has slots ``"m"`` and ``"v"`` (``<variable>-m``, ``<variable>-v``, starting
    at zeros): the decaying first and second moments of its gradients, with the decay rates
    ``betaOne`` and ``betaTwo``; ``epsilon`` keeps the update's denominator off zero. A bad
    hyperparameter raises when the optimizer is made, naming the optimizer's class. The
    learning rate and the decay rates default to the same values in each; ``EPSILON_DEFAULT``
    is each optimizer's own.
    """

    LEARNING_RATE_DEFAULT: Final = 0.001
    BETA_ONE_DEFAULT: Final = 0.9
    BETA_TWO_DEFAULT: Final = 0.999
    FIRST_MOMENT: Final = "m"
    SECOND_MOMENT: Final = "v"

    def __init__(
        self,
        graph: Graph,
        learningRate: float | Output[Any],
        betaOne: float,
        betaTwo: float,
        epsilon: float,
        name: str | None,
    ) -> None:
        super().__init__(graph, learningRate, name)
        kind = type(self).__name__
        self._betaOne = checkHyperparameter(kind, "betaOne", betaOne)
        self._betaTwo = checkHyperparameter(kind, "betaTwo", betaTwo)
        self._epsilon = checkHyperparameter(kind, "epsilon", epsilon)

    def _createMoments(self, variable: Output[Any]) -> None:
        """``variable``'s slots ``"m"`` and ``"v"``, at zeros."""
        self._createSlot(variable, self.FIRST_MOMENT, 0.0)
        self._createSlot(variable, self.SECOND_MOMENT, 0.0)

    def _moments(self, variable: Output[Any]) -> tuple[Variable[Any], Variable[Any]]:
        """``variable``'s slots ``"m"`` and ``"v"``."""
        name = variable.op().name()
        return self._slots[self.FIRST_MOMENT][name], self._slots[self.SECOND_MOMENT][name]

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(learningRate={self.getLearningRate()!r}, "
            f"betaOne={self._betaOne!r}, betaTwo={self._betaTwo!r}, epsilon={self._epsilon!r})"
        )
