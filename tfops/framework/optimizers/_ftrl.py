"""Ftrl: follow the regularized leader (FTRL-proximal), with L1, L2 and L2 shrinkage."""

from __future__ import annotations

from typing import Any, Final

from scope import HasOp
from tfops.errors import IllegalArgumentError
from tfops.framework.optimizers._base import Optimizer, Step, checkHyperparameter
from tfops.graph import Graph
from tfops.op.train import ApplyFtrl, ApplyFtrlV2
from tfops.output import Output

__all__ = ["Ftrl"]


class Ftrl(Optimizer):
    """FTRL-proximal (McMahan et al., 2013; TensorFlow's ``FtrlOptimizer``, through
    ``ApplyFtrl``, or ``ApplyFtrlV2`` when ``l2ShrinkageRegularizationStrength`` is positive).

    With ``p = -learningRatePower``: ``n' = n + grad^2``; ``z += grad' - (n'^p - n^p) /
    learningRate * var`` (``grad' = grad + 2 * l2Shrinkage * var``); ``var = (l1 * sign(z) -
    z) / (n'^p / learningRate + 2 * l2)`` where ``|z| > l1``, else 0; ``n = n'``. Each variable
    has slots ``"gradient_accumulator"`` (``n``, starting at ``initialAccumulatorValue``) and
    ``"linear_accumulator"`` (``z``, starting at zeros).

    Example:
        >>> from tfops.framework.optimizers import Ftrl
        >>> g = Graph(); tf = Ops.create(g)
        >>> w = tf.variable(np.array([2.0, 0.1]))
        >>> loss = tf.sum(tf.math.square(w), 0)
        >>> step = Ftrl(g, 1.0, l1RegularizationStrength=0.5).minimize(loss)
        >>> s = Session(g); s.initialize(); s.run(step)
        >>> [round(x, 6) for x in s.runner().fetch(w).run()[0].tolist()]
        [0.720877, 0.0]
    """

    LEARNING_RATE_DEFAULT: Final = 0.001
    LEARNING_RATE_POWER_DEFAULT: Final = -0.5
    INITIAL_ACCUMULATOR_VALUE_DEFAULT: Final = 0.1
    L1STRENGTH_DEFAULT: Final = 0.0
    L2STRENGTH_DEFAULT: Final = 0.0
    L2_SHRINKAGE_REGULARIZATION_STRENGTH_DEFAULT: Final = 0.0
    ACCUMULATOR: Final = "gradient_accumulator"
    LINEAR_ACCUMULATOR: Final = "linear_accumulator"

    def __init__(
        self,
        graph: Graph,
        learningRate: float | Output[Any] = LEARNING_RATE_DEFAULT,
        *,
        learningRatePower: float = LEARNING_RATE_POWER_DEFAULT,
        initialAccumulatorValue: float = INITIAL_ACCUMULATOR_VALUE_DEFAULT,
        l1RegularizationStrength: float = L1STRENGTH_DEFAULT,
        l2RegularizationStrength: float = L2STRENGTH_DEFAULT,
        l2ShrinkageRegularizationStrength: float = L2_SHRINKAGE_REGULARIZATION_STRENGTH_DEFAULT,
        name: str | None = None,
    ) -> None:
        super().__init__(graph, learningRate, name)
        given = {
            "learningRatePower": learningRatePower,
            "initialAccumulatorValue": initialAccumulatorValue,
            "l1RegularizationStrength": l1RegularizationStrength,
            "l2RegularizationStrength": l2RegularizationStrength,
            "l2ShrinkageRegularizationStrength": l2ShrinkageRegularizationStrength,
        }
        values = {what: checkHyperparameter("Ftrl", what, x) for what, x in given.items()}
        if not values["learningRatePower"] <= 0:
            raise IllegalArgumentError(
                f"Ftrl: learningRatePower must be negative or zero, got "
                f"{values['learningRatePower']}"
            )
        for what, value in values.items():
            if what != "learningRatePower" and not value >= 0:
                raise IllegalArgumentError(f"Ftrl: {what} must be positive or zero, got {value}")
        self._learningRatePower = values["learningRatePower"]
        self._initialAccumulatorValue = values["initialAccumulatorValue"]
        self._l1 = values["l1RegularizationStrength"]
        self._l2 = values["l2RegularizationStrength"]
        self._l2Shrinkage = values["l2ShrinkageRegularizationStrength"]

    def getOptimizerName(self) -> str:
        return "Ftrl"

    def _createSlots(self, variable: Output[Any]) -> None:
        self._createSlot(variable, self.ACCUMULATOR, self._initialAccumulatorValue)
        self._createSlot(variable, self.LINEAR_ACCUMULATOR, 0.0)

    def _applyDense(self, step: Step, grad: Output[Any], variable: Output[Any]) -> HasOp:
        dtype = variable.dataType()
        name = variable.op().name()
        slots = (self._slots[self.ACCUMULATOR][name], self._slots[self.LINEAR_ACCUMULATOR][name])
        rate = step.learningRate(dtype)
        l1 = step.hyperparameter("l1", self._l1, dtype)
        l2 = step.hyperparameter("l2", self._l2, dtype)
        power = step.hyperparameter("lr_power", self._learningRatePower, dtype)
        if self._l2Shrinkage > 0:
            shrinkage = step.hyperparameter("l2_shrinkage", self._l2Shrinkage, dtype)
            return ApplyFtrlV2.create(
                step.scope, variable, *slots, grad, rate, l1, l2, shrinkage, power
            )
        return ApplyFtrl.create(step.scope, variable, *slots, grad, rate, l1, l2, power)

    def __repr__(self) -> str:
        return (
            f"Ftrl(learningRate={self.getLearningRate()!r}, "
            f"learningRatePower={self._learningRatePower!r}, "
            f"initialAccumulatorValue={self._initialAccumulatorValue!r}, "
            f"l1RegularizationStrength={self._l1!r}, l2RegularizationStrength={self._l2!r}, "
            f"l2ShrinkageRegularizationStrength={self._l2Shrinkage!r})"
        )
