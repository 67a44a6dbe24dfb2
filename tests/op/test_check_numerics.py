"""Specification of the ``CheckNumerics`` op class: a run-time check for NaN and Inf that raises
with the op's message; its gradient is the incoming gradient, checked the same way. (Its data
types, shapes and pass-through values are in the table of ``test_identity.py``.)"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import FLOATS, assertGradient, assertRejected, placeholder

from tfops import Graph, Ops
from tfops.errors import InvalidArgumentError
from tfops.op.core import CheckNumerics, Gradients
from tfops.types import TBool, TFloat16, TFloat64, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]
SITE = f"created at {__file__}:"
GRADIENT_MESSAGE = "Not a number (NaN) or infinity (Inf) values detected in gradient. "


def test_createKeepsTheMessage(tf: Ops) -> None:
    assert CheckNumerics.create(tf.scope(), tf.constant([1.0]), "logits").op().attr(
        "message") == "logits"


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: t.NAME)
def test_runPassesTheExtremeFiniteValuesThrough(tf: Ops, run: Run, dtype: type[TType]) -> None:
    info = np.finfo(dtype.DTYPE)
    value = np.array([info.max, -info.max, info.tiny, -0.0, 0.0, 1.5], dtype.DTYPE)
    np.testing.assert_array_equal(run(tf.checkNumerics(value, "x")), value)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("values", "found"),
    [([1.0, np.nan], "NaN"), ([np.inf, 2.0], "Inf"), ([-np.inf], "Inf"),
     ([np.nan, -np.inf, 0.0], "Inf and NaN")],
    ids=str,
)
def test_runRaisesForNanOrInf(
    tf: Ops, run: Run, dtype: type[TType], values: list[float], found: str
) -> None:
    x = tf.placeholder(dtype)
    c = tf.withName("check").checkNumerics(x, "activations")
    with pytest.raises(
        InvalidArgumentError,
        match=rf"^activations : Tensor had {found} values \[op 'check' of type CheckNumerics, "
              rf"{re.escape(SITE)}\d+\]$",
    ) as info:
        run(c, feeds={x: np.array(values, dtype.DTYPE)})
    assert info.value.op == c.op()


def test_runChecksEveryFeed(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, (2,))
    c = tf.checkNumerics(x, "x")
    assert run(c, feeds={x: np.array([1.0, 2.0])}).tolist() == [1.0, 2.0]
    with pytest.raises(InvalidArgumentError, match="x : Tensor had NaN values"):
        run(c, feeds={x: np.array([1.0, np.nan])})
    assert run(c, feeds={x: np.array([3.0, 4.0])}).tolist() == [3.0, 4.0]


def test_overflowInAnEarlierOpIsReported(tf: Ops, run: Run) -> None:
    y = tf.math.exp(tf.constant(np.array([1.0, 1000.0])))
    with pytest.raises(InvalidArgumentError, match="exp overflow : Tensor had Inf values"):
        run(tf.checkNumerics(y, "exp overflow"))


# -- gradient ------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(), (4,), (2, 3)], ids=str)
def test_gradientMatchesFiniteDifferences(tf: Ops, shape: tuple[int, ...]) -> None:
    value = (np.arange(int(np.prod(shape))) * 0.5 - 1.0).reshape(shape)
    assertGradient(tf, lambda x: tf.math.square(tf.checkNumerics(x, "x")), [value])


def test_gradientMatchesFiniteDifferencesWithBroadcasting(tf: Ops) -> None:
    assertGradient(tf, lambda x, w: tf.math.mul(tf.checkNumerics(x, "x"), w),
                   [np.array([1.0, -2.0, 0.5]), np.array([[3.0], [-1.0]])])


def test_gradientIsTheIncomingGradientChecked(tf: Ops, run: Run) -> None:
    x = tf.constant(np.array([1.0, 2.0]))
    seed = placeholder(tf, TFloat64, (2,))
    d = tf.gradients(tf.checkNumerics(x, "input"), [x], Gradients.dx([seed])).dy(0)
    assert d is not None
    assert d.op().type() == "CheckNumerics"
    assert d.op().attr("message") == GRADIENT_MESSAGE + "input"
    assert run(d, feeds={seed: np.array([0.5, -3.0])}).tolist() == [0.5, -3.0]
    expected = re.escape(GRADIENT_MESSAGE + "input : Tensor had NaN values")
    with pytest.raises(InvalidArgumentError, match=expected) as info:
        run(d, feeds={seed: np.array([np.nan, 1.0])})
    assert info.value.op == d.op()


def test_gradientKeepsTheInputDataType(tf: Ops, run: Run) -> None:
    x = tf.constant(np.array([1.0, 2.0], np.float16))
    d = tf.gradients(tf.checkNumerics(x, "x"), [x]).dy(0)
    assert d is not None
    assert d.dataType() is TFloat16
    assert run(d).dtype == np.float16


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [TInt32, TInt64, TUint8, TBool], ids=lambda t: t.NAME)
def test_nonFloatInputRaisesTypeError(tf: Ops, graph: Graph, dtype: type[TType]) -> None:
    x = tf.placeholder(dtype)
    assertRejected(graph, lambda: tf.checkNumerics(x, "x"), TypeError,
                   f"CheckNumerics 'CheckNumerics' ({SITE}")


@pytest.mark.parametrize("message", [3, b"x", ["x"]], ids=str)
def test_nonStringMessageRaisesTypeError(tf: Ops, graph: Graph, message: Any) -> None:
    x = tf.constant([1.0])
    assertRejected(graph, lambda: tf.checkNumerics(x, message), TypeError,
                   "CheckNumerics 'CheckNumerics'", "message")
