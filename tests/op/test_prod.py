"""What is Prod's own: its gradient where the input has zeros, the product of the other elements
reduced with each one, computed without dividing by zero. Prod's row in
``tests/op/test_reductions.py`` checks the rest."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from opchecks import assertGradient, assertGradientsClose, placeholder

from tfops import Ops, Shape
from tfops.types import TFloat64, TInt32

Array = np.ndarray[Any, Any]


@pytest.mark.parametrize(
    ("value", "axis"),
    [
        (np.array([2.0, 0.0, -3.0, 0.5]), 0),
        (np.array([0.0, 1.5]), 0),
        (np.array([[1.5, 0.0, -2.0], [0.5, 2.0, 3.0]]), 1),
        (np.array([[1.5, 0.0, -2.0], [0.5, 2.0, 3.0]]), [0, 1]),
        (np.array([[1.5, 0.0, -2.0], [0.0, 2.0, 3.0]]), 0),
        (np.array([[0.0, 0.0, -2.0], [0.5, 2.0, 3.0]]), 1),
        (np.array([[1.5, 0.0], [0.0, 2.0]]), [0, 1]),
    ],
    ids=["one zero", "zero first", "zero in a row", "zero in all", "zero per column",
         "two zeros in a row", "two zeros in all"],
)
def test_gradientAtZerosMatchesFiniteDifferences(tf: Ops, value: Array, axis: Any) -> None:
    assertGradient(tf, lambda x: tf.prod(x, axis), [value])


@pytest.mark.parametrize("shape", [Shape.of(-1, 3), Shape.unknown()], ids=["partial", "unknown"])
def test_gradientAtZerosWithoutAStaticShape(tf: Ops, shape: Shape) -> None:
    value = np.array([[1.5, 0.0, -2.0], [0.5, 2.0, 3.0]])
    assertGradient(tf, lambda x: tf.prod(x, 0), [value], shapes=[shape])


def test_gradientAtZerosWithAxesFedAtRunTime(tf: Ops) -> None:
    x = placeholder(tf, TFloat64, (2, 3, 2))
    axis = tf.placeholder(TInt32)
    value = np.linspace(-1.5, 2.0, 12).reshape(2, 3, 2)
    value[1, 2, 0] = 0.0
    assertGradientsClose(tf.prod(x, axis), [x], {x: value},
                         feeds={axis: np.array([2, 0], np.int32)})


def test_secondDerivativeAtAZeroMatchesFiniteDifferences(tf: Ops) -> None:
    weights = tf.constant(np.arange(6.0).reshape(2, 3))

    def weightedGradient(x: Any) -> Any:
        dx = tf.gradients(tf.prod(x, 1), [x]).dy(0)
        return tf.sum(tf.math.mul(dx, weights), [0, 1])

    assertGradient(tf, weightedGradient, [np.array([[1.5, 0.0, -2.0], [0.5, 2.0, 3.0]])])
