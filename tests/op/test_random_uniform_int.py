"""What is RandomUniformInt's own: its bounds. As TensorFlow's op, ``minval`` and ``maxval`` are
scalars of one type, int32 or int64, which is the output's; ``minval < maxval`` is required
(checked when the op is created for constants, when it runs otherwise). Its row in
``tests/op/test_random.py`` checks the rest (shape, seeds, distribution, rejected types)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from opchecks import assertRejected, placeholder

from tfops import Graph, Ops, Session
from tfops.errors import InvalidArgumentError
from tfops.types import TFloat32, TInt32, TInt64, TType

CREATED = f"created at {__file__}:"


@pytest.mark.parametrize("dtype", [TInt32, TInt64], ids=lambda t: t.NAME)
@pytest.mark.parametrize(("low", "high"), [(0, 10), (-5, 3), (-20, -17), (7, 8)], ids=str)
def test_valuesAreInTheHalfOpenRangeAndCoverIt(
    tf: Ops, session: Session, dtype: type[TType], low: int, high: int
) -> None:
    r = tf.random.randomUniformInt([10_000], np.array(low, dtype.DTYPE),
                                   np.array(high, dtype.DTYPE), seed=1)
    values = session.runner().fetch(r).run()[0]
    assert values.dtype == dtype.DTYPE
    assert sorted(np.unique(values).tolist()) == list(range(low, high))


def test_wideInt64Range(tf: Ops, session: Session) -> None:
    r = tf.random.randomUniformInt([10_000], np.int64(-(2**40)), np.int64(2**40), seed=3)
    values = session.runner().fetch(r).run()[0]
    assert values.dtype == np.int64
    assert values.min() >= -(2**40) and values.max() < 2**40
    assert values.max() > 2**39 and values.min() < -(2**39)
    assert abs(values.mean()) < 2**40 * 0.05


def test_pythonIntBoundsTakeTheOtherBoundsType(tf: Ops) -> None:
    r = tf.random.randomUniformInt([2], 0, np.int64(9))
    assert r.asOutput().dataType() is TInt64
    assert r.op().attr("Tout") is TInt64
    assert r.op().input(1).dataType() is TInt64
    assert tf.random.randomUniformInt([2], 0, 9).op().attr("Tout") is TInt32


def test_shapeAndBoundsFedAtRunTime(tf: Ops, session: Session) -> None:
    shape = tf.placeholder(TInt32)
    low, high = placeholder(tf, TInt64, ()), placeholder(tf, TInt64, ())
    r = tf.random.randomUniformInt(shape, low, high, seed=4)
    for dims, lo, hi in [([3, 4], 0, 2), ([100], -3, 0), ([], 10, 11)]:
        values = (session.runner().feed(shape, np.array(dims, np.int32))
                  .feed(low, np.int64(lo)).feed(high, np.int64(hi)).fetch(r).run()[0])
        assert values.shape == tuple(dims)
        assert values.dtype == np.int64
        assert np.all((values >= lo) & (values < hi))


@pytest.mark.parametrize(
    ("low", "high", "error", "fragment"),
    [
        (5, 5, ValueError, "need minval < maxval, got 5 >= 5"),
        (6, 5, ValueError, "need minval < maxval, got 6 >= 5"),
        (0, -1, ValueError, "need minval < maxval, got 0 >= -1"),
        ([0, 0], 5, ValueError, "minval must be a scalar, got shape [2]"),
        (0, [5, 5], ValueError, "maxval must be a scalar, got shape [2]"),
        (np.int32(0), np.int64(5), TypeError, "int64 (from 'Const_2:0') but Tout is int32"),
        (0.0, 5.0, TypeError, "data type float32 is not allowed for 'Tout'"),
    ],
    ids=str,
)
def test_rejectsBadConstantBounds(
    graph: Graph, tf: Ops, low: Any, high: Any, error: type[Exception], fragment: str
) -> None:
    assertRejected(graph, lambda: tf.random.randomUniformInt([3], low, high), error,
                   "RandomUniformInt 'RandomUniformInt'", CREATED, fragment)


@pytest.mark.parametrize(
    ("low", "high", "fragment"),
    [(5, 5, "need minval < maxval, got 5 >= 5"), (6, 5, "need minval < maxval, got 6 >= 5"),
     (np.zeros(1, np.int32), 5, "of type RandomUniformInt"),
     (np.zeros(3, np.int32), 5, "of type RandomUniformInt")],
    ids=str,
)
def test_rejectsBadFedBoundsAtRunTime(
    tf: Ops, session: Session, low: Any, high: int, fragment: str
) -> None:
    lo, hi = tf.placeholder(TInt32), placeholder(tf, TInt32, ())
    r = tf.withName("dice").random.randomUniformInt([3], lo, hi)
    with pytest.raises(InvalidArgumentError) as info:
        session.runner().feed(lo, np.asarray(low, np.int32)).feed(hi, np.int32(high)).fetch(
            r).run()
    assert info.value.op == r.op()
    assert fragment in str(info.value) and "'dice'" in str(info.value)


def test_integerOutputPassesNoGradient(tf: Ops) -> None:
    x = placeholder(tf, TFloat32, (3,))
    r = tf.random.randomUniformInt([3], 0, 5)
    y = tf.math.mul(x, tf.dtypes.cast(r, TFloat32))
    assert tf.gradients(y, [r]).dy(0) is None
