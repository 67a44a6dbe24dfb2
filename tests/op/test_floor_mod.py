"""Specification of ``tfops.op.math.FloorMod``'s own behaviour: it is the remainder of FloorDiv,
and its gradient (dx = g, dy = -g * floor_div(x, y)) is piecewise constant. What it shares with
the other binary ops is in ``test_binary.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from opchecks import placeholder

from tfops import Ops
from tfops.types import TFloat64

Run = Callable[..., Any]  # the conftest fixture: fetches in the test's session


def test_floorDivTimesYPlusFloorModIsX(tf: Ops, run: Run) -> None:
    x = np.arange(-12, 13, dtype=np.int32).reshape(-1, 1)
    y = np.array([-5, -3, -1, 1, 2, 7], np.int32)
    q, r = run(tf.math.floorDiv(x, y), tf.math.floorMod(x, y))
    np.testing.assert_array_equal(q * y + r, np.broadcast_to(x, (25, 6)))
    np.testing.assert_array_equal(r, x % y)


def test_theGradientIsPiecewiseConstantSoHasNoGradient(tf: Ops) -> None:
    x, y = placeholder(tf, TFloat64, (2,)), placeholder(tf, TFloat64, (2,))
    dy = tf.gradients(tf.math.floorMod(x, y), [y]).dy(0)
    assert dy is not None
    assert list(tf.gradients(dy, [x, y])) == [None, None]
