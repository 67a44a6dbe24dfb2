"""Specification of the rounding ops of ``tfops.op.math``: Floor, Ceil, Round (half to even,
integers unchanged) and Rint. They are compared with TensorFlow in ``test_math_tf.py``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from opchecks import ALL, FLOATS, SIGNED_INTEGERS, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.core import Gradients
from tfops.op.math import Ceil, Floor, Rint, Round
from tfops.types import TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType

Array = np.ndarray[Any, Any]
Run = Callable[..., Any]  # the conftest fixture: fetches in the test's session
inf, nan = np.inf, np.nan


@dataclass(frozen=True)
class Row:
    """An op, its facade method, numpy's function that is exactly it, the data types it takes,
    and points ``(x, y, dtypes)`` where its result must be exactly ``y``, signed zeros
    included."""

    op: type[Any]
    call: str
    reference: Callable[[Array], Array]
    dtypes: tuple[type[TType], ...]
    points: tuple[tuple[list[float], list[float], tuple[type[TType], ...]], ...]

    def __call__(self, tf: Ops, x: Any) -> Any:
        return functools.reduce(getattr, self.call.split("."), tf)(x)

    def __str__(self) -> str:
        return str(self.op.OP_NAME)


EVERYWHERE = ([-0.0, 0.0, inf, -inf, nan], [-0.0, 0.0, inf, -inf, nan], FLOATS)
HALVES = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 2.7, -2.7]
ROWS = [
    Row(Floor, "math.floor", np.floor, FLOATS, (
        EVERYWHERE,
        ([-0.5, 0.5, -1.0, 2.0, -2.7], [-1.0, 0.0, -1.0, 2.0, -3.0], FLOATS),
        ([-1e-300, 1e300, 2.0**51 + 0.5, -(2.0**51) - 0.5],
         [-1.0, 1e300, 2.0**51, -(2.0**51) - 1], (TFloat64,)),
    )),
    Row(Ceil, "math.ceil", np.ceil, FLOATS, (
        EVERYWHERE,
        ([-0.5, 0.5, -1.0, 2.0, -2.7], [-0.0, 1.0, -1.0, 2.0, -2.0], FLOATS),  # -0.5 gives -0.0
        ([1e-300, -1e300, 2.0**51 + 0.5], [1.0, -1e300, 2.0**51 + 1], (TFloat64,)),
    )),
    Row(Round, "math.round", np.round, FLOATS + SIGNED_INTEGERS, (
        EVERYWHERE,
        (HALVES, [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 0.0, 3.0, -3.0], FLOATS),  # half to even
        ([2.0**51 + 0.5, 2.0**51 + 1.5, 1e300], [2.0**51, 2.0**51 + 2, 1e300], (TFloat64,)),
        ([65504.0, 0.5000001], [65504.0, 1.0], (TFloat32,)),
        ([-(2**31), 2**31 - 1, -3], [-(2**31), 2**31 - 1, -3], (TInt32,)),
        ([-(2**63), 2**63 - 1], [-(2**63), 2**63 - 1], (TInt64,)),
    )),
    Row(Rint, "math.rint", np.rint, FLOATS, (
        EVERYWHERE,
        (HALVES, [0.0, 2.0, 2.0, -0.0, -2.0, -2.0, 0.0, 3.0, -3.0], FLOATS),
        ([2.0**51 + 0.5, 2.0**51 + 1.5], [2.0**51, 2.0**51 + 2], (TFloat64,)),
    )),
]


def assertExactly(got: Array, expected: Array) -> None:
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got, expected)
    np.testing.assert_array_equal(got, expected)
    if got.dtype.kind == "f":
        np.testing.assert_array_equal(np.signbit(got), np.signbit(expected))


def overRows(each: Callable[[Row], list[Any]]) -> Any:
    return pytest.mark.parametrize(("row", "arg"), [
        pytest.param(row, arg, id=f"{row}-{getattr(arg, 'NAME', i)}")
        for row in ROWS for i, arg in enumerate(each(row))])


@overRows(lambda row: [row.dtypes[0]])
def test_createWiresTheInputToTheOnlyOutput(tf: Ops, graph: Graph, row: Row, arg: Any) -> None:
    x = tf.placeholder(arg)
    y = row.op.create(tf.scope(), x)
    assert y.op().input(0) == x.asOutput() and y.y() == y.asOutput()
    assert y.asOutput().name() == f"{row}:0" and y.asOutput().dataType() is arg


@overRows(lambda row: [t for t in ALL if t not in row.dtypes])
def test_rejectsOtherDataTypes(tf: Ops, graph: Graph, row: Row, arg: type[TType]) -> None:
    x = tf.placeholder(arg)
    assertRejected(graph, lambda: row(tf, x), TypeError, f"{row} '{row}'",
                   "is not allowed for 'T'", f"created at {__file__}:")


@overRows(lambda row: list(row.dtypes))
def test_kernelMatchesNumpy(tf: Ops, run: Run, row: Row, arg: type[TType]) -> None:
    rng = np.random.default_rng(0)
    if arg in FLOATS:  # quarters: halves (ties) among them
        value = (rng.integers(-40, 40, (3, 5)) / 4).astype(arg.DTYPE)
    else:
        value = rng.integers(-1000, 1000, (3, 5)).astype(arg.DTYPE)
    x = placeholder(tf, arg, (-1, 5))
    assertExactly(run(row(tf, x), feeds={x: value}), row.reference(value))


@overRows(lambda row: [(x, y, t) for x, y, ts in row.points for t in ts])
def test_specialValues(tf: Ops, run: Run, row: Row, arg: Any) -> None:
    x, y, dtype = arg
    assertExactly(run(row(tf, np.array(x, dtype.DTYPE))), np.array(y, dtype.DTYPE))


@overRows(lambda row: [Shape.scalar(), Shape.of(0, 2), Shape.of(-1, 3), Shape.unknown()])
def test_outputShapeIsTheInputShape(tf: Ops, run: Run, row: Row, arg: Shape) -> None:
    x = placeholder(tf, TFloat32, arg)
    y = row(tf, x)
    assert y.asOutput().shape() == arg
    dims = arg.asArray()
    fed = (2, 2) if dims is None else tuple(2 if d == -1 else d for d in dims)
    assert run(y, feeds={x: np.full(fed, 1.5, np.float32)}).shape == fed


@pytest.mark.parametrize("row", ROWS, ids=str)
def test_passesNoGradientAsTensorFlow(tf: Ops, run: Run, row: Row) -> None:
    """TensorFlow's rules return no gradient: the gradient of a sum through the op is
    unconnected, and a product with it gets the gradient of its other factor only."""
    assert lookupGradient(str(row)) == (True, None)
    x = placeholder(tf, TFloat64, (3,))
    assert tf.gradients(row(tf, x), [x]).dy(0) is None
    zero = tf.gradients(row(tf, x), [x], Gradients.unconnectedGradients("zero")).dy(0)
    dx = tf.gradients(tf.math.mul(x, row(tf, x)), [x]).dy(0)
    assert zero is not None and dx is not None
    value = np.array([0.7, -1.5, 2.5])
    got = run(zero, dx, feeds={x: value})
    assertExactly(got[0], np.zeros(3))
    assertExactly(got[1], row.reference(value))


@pytest.mark.parametrize("dtype", [TFloat16, TFloat32, TInt32, TInt64], ids=lambda t: t.NAME)
def test_roundKeepsTheDataType(tf: Ops, run: Run, dtype: type[TType]) -> None:
    y = tf.math.round(tf.constant(np.array([3, -4], dtype.DTYPE)))
    assert y.asOutput().dataType() is dtype
    assertExactly(run(y), np.array([3, -4], dtype.DTYPE))


def test_floorOfAQuotientIsFloorDiv(tf: Ops, run: Run) -> None:
    x, y = np.array([7.0, -7.0, 7.5, -0.5]), np.array([2.0, 2.0, -2.5, 3.0])
    got = run(tf.math.floor(tf.math.div(tf.constant(x), tf.constant(y))),
              tf.math.floorDiv(tf.constant(x), tf.constant(y)))
    assertExactly(got[0], got[1])
    assert TInt32 not in ROWS[0].dtypes and TInt64 in ROWS[2].dtypes
