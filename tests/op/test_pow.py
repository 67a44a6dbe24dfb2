"""Specification of ``tfops.op.math.Pow``'s own behaviour: its gradient with respect to the
exponent is TensorFlow's, dy = g * z * log(x) where x > 0, else 0. What it shares with the other
binary ops is in ``test_binary.py``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from opchecks import placeholder

from tfops import Ops, Shape
from tfops.types import TFloat32, TFloat64

Run = Callable[..., Any]  # the conftest fixture: fetches in the test's session


def test_gradientWithRespectToYIsZeroWhereXIsNotPositive(tf: Ops, run: Run) -> None:
    x, y = placeholder(tf, TFloat32, (3,)), placeholder(tf, TFloat32, (3,))
    dx, dy = tf.gradients(tf.math.pow(x, y), [x, y])
    assert dx is not None and dy is not None
    assert dx.dataType() is TFloat32 and dy.dataType() is TFloat32
    xv = np.array([-2.0, 0.0, 3.0], np.float32)
    gx, gy = run(dx, dy, feeds={x: xv, y: np.array([2.0, 2.0, 2.0], np.float32)})
    np.testing.assert_array_equal(gx, [-4.0, 0.0, 6.0])
    np.testing.assert_array_equal(gy, [0.0, 0.0, np.float32(9.0) * np.log(np.float32(3.0))])


def test_gradientWithRespectToYSumsOverTheBroadcastDimensions(tf: Ops, run: Run) -> None:
    y = placeholder(tf, TFloat64, ())
    gy = tf.gradients(tf.math.pow(np.array([[1.0, 2.0], [4.0, -1.0]]), y), [y]).dy(0)
    assert gy is not None and gy.shape() == Shape.scalar()
    # 1 * log(1) + 4 * log(2) + 16 * log(4), and nothing from the negative base
    assert run(gy, feeds={y: 2.0}) == 4.0 * math.log(2.0) + 16.0 * math.log(4.0)
