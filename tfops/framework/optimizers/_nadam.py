"""Nadam: Adam with Nesterov momentum and a momentum schedule (Keras 2's ``Nadam``)."""

from __future__ import annotations

from typing import Any, Final, TypeAlias, cast

import numpy as np

from scope import HasOp
from tfops.framework.optimizers._adam_family import AdamFamily
from tfops.framework.optimizers._base import Step
from tfops.graph import Graph
from tfops.op.core import Variable
from tfops.operation import Operation
from tfops.ops import Ops
from tfops.output import Output
from tfops.types import TFloat64, TInt64

__all__ = ["Nadam"]

_State: TypeAlias = "tuple[Variable[TFloat64], Variable[TInt64]] | None"


class Nadam(AdamFamily):
    """Nadam (Dozat, 2016), as Keras 2's ``Nadam`` (TensorFlow Java's ``Nadam``).

    At step ``t`` (counted from 1) the momentum schedule is ``mu_t = betaOne * (1 - 0.5 *
    0.96^(0.004 t))``, and ``prod_t = mu_1 * ... * mu_t``. Then ``m = betaOne * m + (1 -
    betaOne) * grad``, ``v = betaTwo * v + (1 - betaTwo) * grad^2``, ``mBar = (1 - mu_t) *
    grad / (1 - prod_t) + mu_(t+1) * m / (1 - prod_t * mu_(t+1))``, and ``var -= learningRate *
    mBar / (sqrt(v / (1 - betaTwo^t)) + epsilon)``. Each variable has slots ``"m"`` and ``"v"``
    (starting at zeros); the optimizer keeps ``prod_t`` in a float64 scalar variable
    ``momentum`` and counts the steps in an int64 scalar variable ``iterations``, read when the
    step runs. The schedule is computed in float64 (TensorFlow Java: float32) and cast to each
    variable's data type; the hyperparameters are float32 numbers, as Keras 2 keeps them.

    Example:
        >>> from tfops.framework.optimizers import Nadam
        >>> g = Graph(); tf = Ops.create(g)
        >>> w = tf.variable(np.array([3.0, -2.0]))
        >>> nadam = Nadam(g, 0.1)
        >>> step = nadam.minimize(tf.sum(tf.math.square(w), 0))
        >>> s = Session(g); s.initialize(); s.run(step)
        >>> [round(x, 4) for x in s.runner().fetch(w).run()[0].tolist()]
        [2.9, -1.9]
        >>> int(s.runner().fetch(nadam.getIterations()).run()[0])
        1
    """

    EPSILON_DEFAULT: Final = 1e-8
    MOMENTUM: Final = "momentum"
    DECAY_BASE: Final = 0.96
    DECAY: Final = 0.004

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
        self._state: tuple[Variable[TFloat64], Variable[TInt64]] | None = None
        self._coefficients: dict[str, Output[Any]] = {}

    def getOptimizerName(self) -> str:
        return "Nadam"

    def getMomentum(self) -> Variable[TFloat64] | None:
        """The variable ``momentum`` (the product of the schedule), once a step was built."""
        return None if self._state is None else self._state[0]

    def getIterations(self) -> Variable[TInt64] | None:
        """The step counter ``iterations``, once a step was built."""
        return None if self._state is None else self._state[1]

    def _createSlots(self, variable: Output[Any]) -> None:
        self._createMoments(variable)
        if self._state is None:
            self._state = (
                self._createVariable(self.MOMENTUM, (), TFloat64, 1.0),
                self._createVariable("iterations", (), TInt64, 0),
            )

    def _prepare(self, step: Step) -> None:
        assert self._state is not None
        momentum, iterations = self._state
        tf = Ops(step.scope)
        one = tf.constant(np.float64(1.0))
        beta1 = step.hyperparameter("beta1", self._betaOne, TFloat64)
        beta2 = step.hyperparameter("beta2", self._betaTwo, TFloat64)

        def stepNumber(ahead: int) -> Output[Any]:
            count = tf.math.add(iterations, tf.constant(np.int64(ahead)))
            return tf.dtypes.cast(count, TFloat64).asOutput()

        def schedule(t: Output[Any]) -> Output[Any]:
            decayed = tf.math.pow(
                tf.constant(np.float64(self.DECAY_BASE)),
                tf.math.mul(tf.constant(np.float64(self.DECAY)), t),
            )
            return tf.math.mul(
                beta1, tf.math.sub(one, tf.math.mul(tf.constant(np.float64(0.5)), decayed))
            ).asOutput()

        t = stepNumber(1)
        muT, muNext = schedule(t), schedule(stepNumber(2))
        productNew = tf.assign(momentum, tf.math.mul(momentum, muT))
        productNext = tf.math.mul(productNew, muNext)
        self._coefficients = {
            "one_minus_beta1": tf.math.sub(one, beta1).asOutput(),
            "one_minus_beta2": tf.math.sub(one, beta2).asOutput(),
            "m_t_1": muNext,
            "one_minus_m_t": tf.math.sub(one, muT).asOutput(),
            "one_minus_m_schedule_new": tf.math.sub(one, productNew).asOutput(),
            "one_minus_m_schedule_next": tf.math.sub(one, productNext).asOutput(),
            "v_t_prime_denominator": tf.math.sub(one, tf.math.pow(beta2, t)).asOutput(),
        }

    def _applyDense(self, step: Step, grad: Output[Any], variable: Output[Any]) -> HasOp:
        dtype = variable.dataType()
        tf = Ops(step.scope)

        def c(key: str) -> Output[Any]:
            return step.hyperparameter(key, self._coefficients[key], dtype)

        beta1 = step.hyperparameter("beta1", self._betaOne, dtype)
        beta2 = step.hyperparameter("beta2", self._betaTwo, dtype)
        m, v = self._moments(variable)
        gPrime = tf.math.div(grad, c("one_minus_m_schedule_new"))
        mT = tf.assign(
            m, tf.math.add(tf.math.mul(beta1, m), tf.math.mul(c("one_minus_beta1"), grad))
        )
        mTPrime = tf.math.div(mT, c("one_minus_m_schedule_next"))
        vT = tf.assign(
            v,
            tf.math.add(
                tf.math.mul(beta2, v), tf.math.mul(c("one_minus_beta2"), tf.math.square(grad))
            ),
        )
        vTPrime = tf.math.div(vT, c("v_t_prime_denominator"))
        mTBar = tf.math.add(
            tf.math.mul(c("one_minus_m_t"), gPrime), tf.math.mul(c("m_t_1"), mTPrime)
        )
        denominator = tf.math.add(
            tf.math.sqrt(vTPrime), step.hyperparameter("epsilon", self._epsilon, dtype)
        )
        change = tf.math.div(tf.math.mul(step.learningRate(dtype), mTBar), denominator)
        return tf.assign(variable, tf.math.sub(variable, change))

    def _finish(self, step: Step, updates: list[HasOp | Operation]) -> list[HasOp]:
        assert self._state is not None
        tf = Ops(step.scope.withControlDependencies(updates))
        return [tf.assignAdd(self._state[1], tf.constant(np.int64(1)))]

    def _saveState(self) -> object:
        return self._state

    def _restoreState(self, state: object) -> None:
        self._state = cast(_State, state)
