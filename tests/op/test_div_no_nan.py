"""Specification of ``tfops.op.math.DivNoNan``'s own behaviour: its gradient is TensorFlow's,
dx = div_no_nan(g, y), dy = g * div_no_nan(div_no_nan(-x, y), y), so nothing flows where
y == 0. What it shares with the other binary ops is in ``test_binary.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from opchecks import placeholder

from tfops import Ops, Shape
from tfops.types import TFloat32

Run = Callable[..., Any]  # the conftest fixture: fetches in the test's session


def test_gradientIsZeroWhereTheDivisorIsZero(tf: Ops, run: Run) -> None:
    x, y = placeholder(tf, TFloat32, (2, 2)), placeholder(tf, TFloat32, (2,))
    dx, dy = tf.gradients(tf.math.divNoNan(x, y), [x, y])
    assert dx is not None and dy is not None
    assert dx.dataType() is TFloat32 and dy.shape() == Shape.of(2)
    xv = np.array([[1.0, 2.0], [3.0, 6.0]], np.float32)
    gx, gy = run(dx, dy, feeds={x: xv, y: np.array([0.0, 4.0], np.float32)})
    np.testing.assert_array_equal(gx, [[0.0, 0.25], [0.0, 0.25]])
    np.testing.assert_array_equal(gy, [0.0, -0.5])  # -(2 + 6) / 16
