"""Specification of the special functions of ``tfops.op.math`` that are not rows of
``test_unary.py`` (Erf, Erfc, Lgamma and IsInf are): Digamma, Polygamma, Zeta, Xlogy and Xdivy,
against scipy (all are compared with TensorFlow in ``test_math_tf.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import scipy.special  # type: ignore[import-untyped]
from opchecks import ALL, assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.math import Digamma, Polygamma, Xdivy, Xlogy, Zeta
from tfops.types import TFloat16, TFloat32, TFloat64, TType

Array = np.ndarray[Any, Any]
Run = Callable[..., Any]  # the conftest fixture: fetches in the test's session
inf, nan = np.inf, np.nan
RTOL = {TFloat16: 1e-3, TFloat32: 1e-6, TFloat64: 1e-12}
"""Against scipy in float64 (XLA's float64 digamma and zeta are accurate to a few units in the
last place, as ``opchecks.RTOL``)."""


def xlogy(x: Array, y: Array) -> Array:
    with np.errstate(all="ignore"):
        return np.where(x == 0, x, x * np.log(y))


def xdivy(x: Array, y: Array) -> Array:
    with np.errstate(all="ignore"):
        return np.where(x == 0, x, x / y)


# op, facade method, input names, data types, reference, domains of the inputs
BINARY: list[tuple[type[Any], str, tuple[str, str], tuple[type[TType], ...],
                   Callable[[Array, Array], Array], tuple[Array, Array]]] = [
    (Polygamma, "polygamma", ("a", "x"), (TFloat32, TFloat64), scipy.special.polygamma,
     (np.array([[0.0], [1.0], [2.0], [3.0]]), np.linspace(0.3, 4.1, 5))),
    (Zeta, "zeta", ("x", "q"), (TFloat32, TFloat64), scipy.special.zeta,
     (np.array([[1.5], [2.0], [3.5], [6.0]]), np.linspace(0.3, 4.1, 5))),
    (Xlogy, "xlogy", ("x", "y"), (TFloat16, TFloat32, TFloat64), xlogy,
     (np.array([[-1.5], [0.0], [0.7], [2.0]]), np.linspace(0.3, 4.1, 5))),
    (Xdivy, "xdivy", ("x", "y"), (TFloat16, TFloat32, TFloat64), xdivy,
     (np.array([[-1.5], [0.0], [0.7], [2.0]]), np.linspace(0.3, 4.1, 5) * [1, -1, 1, -1, 1])),
]


def overBinary(each: Callable[[Any], list[Any]] | None = None) -> Any:
    if each is None:
        return pytest.mark.parametrize("row", BINARY, ids=[r[0].OP_NAME for r in BINARY])
    return pytest.mark.parametrize(("row", "arg"), [
        pytest.param(r, a, id=f"{r[0].OP_NAME}-{getattr(a, 'NAME', a)}") for r in BINARY
        for a in each(r)])


def call(tf: Ops, row: Any, *args: Any) -> Any:
    return getattr(tf.math, row[1])(*args)


# -- construction ------------------------------------------------------------------------------
@overBinary()
def test_createNamesTheInputsAsTensorFlow(tf: Ops, graph: Graph, row: Any) -> None:
    op, _, names, dtypes, _, _ = row
    a, b = placeholder(tf, dtypes[-1], (2, 1)), placeholder(tf, dtypes[-1], (3,))
    z = op.create(tf.scope(), **dict(zip(names, (a, b), strict=True)))
    assert z.op().input(0) == a.asOutput() and z.op().input(1) == b.asOutput()
    assert z.z() == z.asOutput() and z.asOutput().name() == f"{op.OP_NAME}:0"
    assert z.asOutput().shape() == Shape.of(2, 3) and z.asOutput().dataType() is dtypes[-1]


@overBinary(lambda row: [t for t in ALL if t not in row[3]])
def test_rejectsOtherDataTypes(tf: Ops, graph: Graph, row: Any, arg: type[TType]) -> None:
    a, b = tf.placeholder(arg), tf.placeholder(arg)
    name = row[0].OP_NAME
    assertRejected(graph, lambda: call(tf, row, a, b), TypeError, f"{name} '{name}'",
                   "is not allowed for 'T'", f"created at {__file__}:")


@overBinary(lambda row: [((2, 3), (4,)), ((-1, 3), (-1, 2))])
def test_rejectsShapesThatDoNotBroadcast(tf: Ops, graph: Graph, row: Any, arg: Any) -> None:
    a, b = (placeholder(tf, TFloat32, s) for s in arg)
    assertRejected(graph, lambda: call(tf, row, a, b), ValueError, f"'{row[0].OP_NAME}'",
                   f"created at {__file__}:")


# -- kernel ------------------------------------------------------------------------------------
@overBinary(lambda row: list(row[3]))
def test_kernelMatchesScipyAndBroadcasts(tf: Ops, run: Run, row: Any, arg: type[TType]) -> None:
    av, bv = (v.astype(arg.DTYPE) for v in row[5])
    a, b = placeholder(tf, arg, (-1, 1)), placeholder(tf, arg)
    got = run(call(tf, row, a, b), feeds={a: av, b: bv})
    assert got.dtype == arg.DTYPE and got.shape == (4, 5)
    expected = row[4](av.astype(np.float64), bv.astype(np.float64))
    np.testing.assert_allclose(got, expected, rtol=RTOL[arg], atol=0)


@pytest.mark.parametrize(("fn", "x", "y", "expected"), [
    # 0 (of x's sign) where x is 0, whatever y holds
    ("xlogy", [0.0, 0.0, 0.0, -0.0, 0.0, 1.0, nan, 2.0], [0.0, -1.0, nan, inf, inf, 0.0, 1.0, -1.0],
     [0.0, 0.0, 0.0, -0.0, 0.0, -inf, nan, nan]),
    ("xdivy", [0.0, 0.0, -0.0, 1.0, -1.0, nan, 3.0], [0.0, nan, 2.0, 0.0, 0.0, 0.0, -2.0],
     [0.0, 0.0, -0.0, inf, -inf, nan, -1.5]),
    # orders that are not non-negative integers give nan; digamma at the poles is nan
    ("polygamma", [-1.0, 1.5, 0.0, 0.0, 1.0, 2.0, 3.0, 1.0], [2.0, 2.0, 0.0, -3.0, 0.0, 0.0, 0.0,
                                                              inf],
     [nan, nan, nan, nan, inf, nan, inf, 0.0]),
    # x = 1 is a pole, x < 1 nan; at q = 0, -1... inf for even integral x, else nan
    ("zeta", [1.0, 0.5, 2.0, 4.0, 3.0, 2.5, 2.0], [2.0, 2.0, 0.0, -3.0, -1.0, -2.0, inf],
     [inf, nan, inf, inf, nan, nan, 0.0]),
], ids=["xlogy", "xdivy", "polygamma", "zeta"])
def test_specialValuesAsTensorFlow(tf: Ops, run: Run, fn: str, x: Any, y: Any,
                                   expected: Any) -> None:
    a, b = placeholder(tf, TFloat64), placeholder(tf, TFloat64)
    got = run(getattr(tf.math, fn)(a, b), feeds={a: np.array(x), b: np.array(y)})
    np.testing.assert_array_equal(got, expected)
    numbers = ~np.isnan(np.array(expected))
    np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(np.array(expected)[numbers]))


def test_polygammaOfOrderZeroIsDigamma(tf: Ops, run: Run) -> None:
    x = np.array([-2.5, -0.5, 0.25, 1.0, 7.5, 1e10])
    got = run(tf.math.polygamma(tf.constant(np.zeros(6)), tf.constant(x)),
              tf.math.digamma(tf.constant(x)))
    np.testing.assert_array_equal(got[0], got[1])
    np.testing.assert_allclose(got[1], scipy.special.psi(x), rtol=1e-13)


# -- Digamma -----------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [TFloat16, TFloat32, TFloat64], ids=lambda t: t.NAME)
def test_digammaMatchesScipyAwayFromItsPoles(tf: Ops, run: Run, dtype: type[TType]) -> None:
    x = np.array([[-2.5, -0.5, 0.25], [1.0, 4.5, 30.0]], dtype.DTYPE)
    p = placeholder(tf, dtype, (-1, 3))
    y = tf.math.digamma(p)
    assert y.asOutput().shape() == Shape.of(-1, 3) and y.asOutput().dataType() is dtype
    got = run(y, feeds={p: x})
    assert got.dtype == dtype.DTYPE
    np.testing.assert_allclose(got, scipy.special.psi(x.astype(np.float64)), rtol=RTOL[dtype])


def test_digammaIsNanAtItsPoles(tf: Ops, run: Run) -> None:
    """As TensorFlow's (scipy says -inf at 0 and inf at -0)."""
    got = run(tf.math.digamma(tf.constant(np.array([0.0, -0.0, -1.0, -7.0, -inf, inf]))))
    np.testing.assert_array_equal(got, [nan, nan, nan, nan, nan, inf])


def test_digammaNameAndRejectedTypes(tf: Ops, graph: Graph) -> None:
    y = Digamma.create(tf.scope(), tf.placeholder(TFloat32))
    assert y.y() == y.asOutput() and y.asOutput().name() == "Digamma:0"
    x = tf.placeholder(TFloat32).asOutput().dataType()
    assert x is TFloat32
    for dtype in (t for t in ALL if t not in (TFloat16, TFloat32, TFloat64)):
        p = tf.placeholder(dtype)
        assertRejected(graph, lambda p=p: tf.math.digamma(p), TypeError,
                       "is not allowed for 'T'", f"created at {__file__}:")


@pytest.mark.parametrize("order", [1, 2])
def test_digammaGradientsMatchFiniteDifferences(tf: Ops, order: int) -> None:
    def build(x: Any) -> Any:
        y = tf.math.digamma(x)
        for _ in range(order - 1):
            dy = tf.gradients(tf.math.square(y), [x]).dy(0)
            assert dy is not None
            y = dy
        return y

    assertGradient(tf, build, [np.array([[0.4, 1.0, 2.5], [-0.5, 4.0, 9.0]])])


def test_digammaGradientIsPolygammaOfOrderOne(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, (3,))
    dx = tf.gradients(tf.math.digamma(x), [x]).dy(0)
    assert dx is not None
    value = np.array([1.0, 2.5, -0.5])
    np.testing.assert_allclose(run(dx, feeds={x: value}), scipy.special.polygamma(1, value),
                               rtol=1e-13)


def test_float16DigammaHasNoGradientAsInTensorFlow(tf: Ops) -> None:
    """Polygamma takes float32 and float64 only."""
    x = placeholder(tf, TFloat16, (2,))
    with pytest.raises(TypeError, match="Polygamma"):
        tf.gradients(tf.math.digamma(x), [x])


# -- gradients ---------------------------------------------------------------------------------
@overBinary(lambda row: [((2, 3), (2, 3)), ((2, 1), (3,)), ((), (2, 2))])
def test_gradientMatchesFiniteDifferences(tf: Ops, row: Any, arg: Any) -> None:
    """Of both inputs for Xlogy and Xdivy, of the second only for Polygamma and Zeta (the first
    is held constant: TensorFlow has no gradient for it)."""
    rng = np.random.default_rng(2)
    first = rng.uniform(0.3, 2.0, arg[0]) * rng.choice([-1, 1], arg[0])
    if row[0] in (Polygamma, Zeta):
        first = rng.integers(1 if row[0] is Polygamma else 2, 4, arg[0]).astype(np.float64)
        constant = tf.constant(first)
        assertGradient(tf, lambda b: call(tf, row, constant, b),
                       [rng.uniform(0.5, 3.0, arg[1])])
        return
    assertGradient(tf, lambda a, b: call(tf, row, a, b), [first, rng.uniform(0.5, 3.0, arg[1])])


@overBinary()
def test_secondOrderGradientMatchesFiniteDifferences(tf: Ops, row: Any) -> None:
    a = np.array([1.0, 2.0, 3.0]) if row[0] in (Polygamma, Zeta) else np.array([0.5, -1.5, 2.0])
    b = np.array([0.7, 1.3, 2.2])
    constant = tf.constant(a + (1.0 if row[0] is Zeta else 0.0))

    def first(y: Any) -> Any:
        return tf.gradients(tf.math.square(call(tf, row, constant, y)), [y]).dy(0)

    assertGradient(tf, first, [b])


@pytest.mark.parametrize("op", [Polygamma, Zeta], ids=lambda o: o.OP_NAME)
def test_noGradientFlowsToTheFirstInputAsInTensorFlow(tf: Ops, op: type[Any]) -> None:
    a, b = placeholder(tf, TFloat64, (2,)), placeholder(tf, TFloat64, (2,))
    da, db = tf.gradients(getattr(tf.math, op.OP_NAME.lower())(a, b), [a, b])
    assert da is None and db is not None
    assert lookupGradient(op.OP_NAME)[1] is not None


@pytest.mark.parametrize("fn", ["xlogy", "xdivy"])
def test_gradientOfXWhereXIsZeroIsThatOfTheNonZeroBranchMaskedAsTensorFlow(
    tf: Ops, run: Run, fn: str
) -> None:
    """dx is xlogy(x != 0, y) (xdivy(x != 0, y)): 0 where x is 0; dy is xdivy(x, y) (xdivy(-x,
    y^2)): 0 where x is 0, even at y = 0."""
    x, y = placeholder(tf, TFloat64, (3,)), placeholder(tf, TFloat64, (3,))
    dx, dy = tf.gradients(getattr(tf.math, fn)(x, y), [x, y])
    assert dx is not None and dy is not None
    got = run(dx, dy, feeds={x: np.array([0.0, 0.0, 2.0]), y: np.array([0.0, 3.0, 4.0])})
    expected = ([[0.0, 0.0, np.log(4.0)], [0.0, 0.0, 0.5]] if fn == "xlogy"
                else [[0.0, 0.0, 0.25], [0.0, 0.0, -0.125]])
    np.testing.assert_allclose(got, expected, rtol=1e-15)
