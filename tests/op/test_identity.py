"""Specification of the ops whose output has their input's shape and data type: ``Identity`` and
``StopGradient`` pass the value through, ``ZerosLike`` and ``OnesLike`` give zeros and ones of
it, ``CheckNumerics`` passes finite floating point values through (its own checks are in
``test_check_numerics.py``). Only ``Identity`` and ``CheckNumerics`` pass gradients."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest
from opchecks import ALL, FLOATS, assertGradient, assertGradientsClose, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.core import Gradients, StopGradient
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TInt64, TType

Run = Callable[..., Any]
Array = np.ndarray[Any, Any]


class Row(NamedTuple):
    op: str
    build: Callable[[Ops, Any], Any]
    reference: Callable[[Array], Array]
    dtypes: tuple[type[TType], ...] = ALL


ROWS = [
    Row("Identity", lambda tf, x: tf.identity(x), lambda x: x),
    Row("StopGradient", lambda tf, x: tf.stopGradient(x), lambda x: x),
    Row("ZerosLike", lambda tf, x: tf.zerosLike(x), np.zeros_like),
    Row("OnesLike", lambda tf, x: tf.onesLike(x), np.ones_like),
    Row("CheckNumerics", lambda tf, x: tf.checkNumerics(x, "x"), lambda x: x, FLOATS),
]
NOT_DIFFERENTIABLE = [row for row in ROWS if row.op in ("StopGradient", "ZerosLike", "OnesLike")]
rows = pytest.mark.parametrize("row", ROWS, ids=lambda row: row.op)
ROWS_AND_TYPES = pytest.mark.parametrize(
    ("row", "dtype"), [(row, dtype) for row in ROWS for dtype in row.dtypes],
    ids=lambda v: getattr(v, "op", None) or v.NAME,
)


def sample(dtype: type[TType], shape: tuple[int, ...]) -> Array:
    values: Array = np.arange(int(np.prod(shape))).reshape(shape) + 3
    return (values % 2 == 1) if dtype is TBool else values.astype(dtype.DTYPE)


# -- construction --------------------------------------------------------------------------
@ROWS_AND_TYPES
def test_outputHasTheInputDataType(tf: Ops, row: Row, dtype: type[TType]) -> None:
    y = row.build(tf, tf.placeholder(dtype))
    assert y.asOutput().dataType() is y.op().attr("T") is dtype


@rows
@pytest.mark.parametrize(
    "shape", [Shape.scalar(), Shape.of(2, 3), Shape.of(0, 4), Shape.of(-1, 3), Shape.unknown()],
    ids=str,
)
def test_outputHasTheInputShape(tf: Ops, row: Row, shape: Shape) -> None:
    assert row.build(tf, placeholder(tf, TFloat32, shape)).asOutput().shape() == shape


@rows
def test_pythonValueBecomesAConstantInput(tf: Ops, graph: Graph, row: Row) -> None:
    y = row.build(tf, [1.0, 2.0])
    assert [op.type() for op in graph.operations()] == ["Const", row.op]
    assert y.asOutput().dataType() is TFloat32


@rows
@pytest.mark.parametrize("value", ["x", None], ids=["string", "none"])
def test_valueThatIsNotATensorRaisesTypeError(
    tf: Ops, graph: Graph, row: Row, value: object
) -> None:
    assertRejected(graph, lambda: row.build(tf, value), TypeError, row.op)


# -- kernel --------------------------------------------------------------------------------
@ROWS_AND_TYPES
@pytest.mark.parametrize("shape", [(), (0,), (2, 3), (3, 0, 2)], ids=str)
def test_runMatchesTheReference(
    tf: Ops, run: Run, row: Row, dtype: type[TType], shape: tuple[int, ...]
) -> None:
    value = sample(dtype, shape)
    result = run(row.build(tf, tf.constant(value)))
    assert (result.dtype, result.shape) == (dtype.DTYPE, shape)
    np.testing.assert_array_equal(result, row.reference(value))


@rows
def test_runOfSpecialFloatValues(tf: Ops, run: Run, row: Row) -> None:
    value = np.array([np.nan, np.inf, -np.inf, -0.0], np.float32)
    if row.op == "CheckNumerics":
        value = value[3:]
    result = run(row.build(tf, value))
    np.testing.assert_array_equal(result, row.reference(value))
    np.testing.assert_array_equal(np.signbit(result), np.signbit(row.reference(value)))


@rows
def test_runOfAPartiallyKnownInputGivesTheFedShape(tf: Ops, run: Run, row: Row) -> None:
    dtype = TInt64 if row.dtypes is ALL else TFloat64
    x = placeholder(tf, dtype, (-1, 2))
    value = sample(dtype, (3, 2))
    np.testing.assert_array_equal(run(row.build(tf, x), feeds={x: value}), row.reference(value))


@pytest.mark.parametrize(("op", "true"), [("zerosLike", False), ("onesLike", True)])
def test_boolZerosAreFalseAndOnesTrue(tf: Ops, run: Run, op: str, true: bool) -> None:
    assert run(getattr(tf, op)(tf.constant([True, False]))).tolist() == [true, true]


# -- gradient ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "value", [1.5, [1.0, -2.0, 0.5], np.arange(6.0).reshape(2, 3) - 2.5],
    ids=["scalar", "vector", "matrix"],
)
def test_identityGradientMatchesFiniteDifferences(tf: Ops, value: Any) -> None:
    assertGradient(tf, tf.identity, [np.asarray(value)])


@pytest.mark.parametrize(
    ("shape", "value"),
    [(Shape.of(-1, 3), np.arange(6.0).reshape(2, 3)), (Shape.unknown(), [[[0.25], [4.0]]])],
    ids=["partial", "unknown"],
)
def test_identityGradientWithoutAStaticShape(tf: Ops, shape: Shape, value: Any) -> None:
    assertGradient(tf, tf.identity, [np.asarray(value)], shapes=[shape])


def test_identityGradientWithBroadcasting(tf: Ops) -> None:
    c = tf.constant(np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]]))
    assertGradient(tf, lambda x: tf.math.mul(tf.identity(x), c), [np.array([0.5, -1.0, 2.0])])


def test_identityGradientIsTheIncomingGradientUnchanged(tf: Ops, run: Run) -> None:
    x = placeholder(tf, TFloat64, (2, 2))
    seed = tf.constant(np.array([[1.0, -2.0], [3.5, 0.0]]))
    d = tf.gradients(tf.identity(x), [x], Gradients.dx([seed])).dy(0)
    assert d is not None
    assert run(d, feeds={x: np.zeros((2, 2))}).tolist() == [[1.0, -2.0], [3.5, 0.0]]


def test_integerIdentityPassesNoGradient(tf: Ops) -> None:
    x = tf.constant(1.0, TFloat64)
    assert tf.gradients(tf.identity(tf.dtypes.cast(x, TInt32)), [x]).dy() == [None]


@pytest.mark.parametrize("row", NOT_DIFFERENTIABLE, ids=lambda row: row.op)
def test_isNotDifferentiableAndPassesNoGradient(tf: Ops, run: Run, row: Row) -> None:
    assert lookupGradient(row.op) == (True, None)
    x = placeholder(tf, TFloat64, (2, 3))
    y = tf.sum(row.build(tf, x), [0, 1])
    assert tf.gradients(y, [x]).dy() == [None]
    d = tf.gradients(y, [x], Gradients.unconnectedGradients("zero")).dy(0)
    assert d is not None
    result = run(d, feeds={x: np.ones((2, 3))})
    assert result.dtype == np.float64
    assert result.tolist() == [[0.0] * 3] * 2


@pytest.mark.parametrize("row", NOT_DIFFERENTIABLE, ids=lambda row: row.op)
def test_isTreatedAsAConstantBesideOtherOps(tf: Ops, run: Run, row: Row) -> None:
    # d/dx [x * f(x) + f(x)] = f(x) (StopGradient: x, not 2x + 1)
    x = placeholder(tf, TFloat64, (3,))
    value = np.array([1.0, -2.0, 3.0])
    d = tf.gradients(tf.math.add(tf.math.mul(x, row.build(tf, x)), row.build(tf, x)), [x]).dy(0)
    assert d is not None
    np.testing.assert_array_equal(run(d, feeds={x: value}), row.reference(value))


# -- StopGradient --------------------------------------------------------------------------
def test_stopGradientDocstringCarriesTheSeedDescription() -> None:
    doc = StopGradient.__doc__
    assert doc is not None
    for line in ["When executed in a graph, this op outputs its input tensor as-is.",
                 "def stable_softmax(x):", "z = x - tf.stop_gradient(tf.reduce_max(x))",
                 "z = x - tf.reduce_max(x)", "Adversarial training, where no backprop should"]:
        assert line in doc


def test_gradientWithRespectToTheStopGradientOutputItselfIsOnes(tf: Ops, run: Run) -> None:
    s = tf.stopGradient(tf.constant(np.array([1.0, 2.0])))
    d = tf.gradients(tf.sum(s, 0), [s]).dy(0)
    assert d is not None
    assert run(d).tolist() == [1.0, 1.0]


def test_stableSoftmaxShiftGetsNoGradient(tf: Ops, run: Run) -> None:
    x = tf.constant(np.array([1.0, 3.0, 3.0]))
    z = tf.math.sub(x, tf.stopGradient(tf.max(x, 0)))
    d = tf.gradients(tf.sum(z, 0), [x]).dy(0)
    assert d is not None
    assert run(d).tolist() == [1.0, 1.0, 1.0]


def test_stableSoftmaxDoesNotOverflowAndItsGradientMatchesFiniteDifferences(
    tf: Ops, run: Run
) -> None:
    def softmax(x: Any) -> Any:
        e = tf.math.exp(tf.math.sub(x, tf.stopGradient(tf.max(x, 0))))
        return tf.math.div(e, tf.sum(e, 0))

    np.testing.assert_allclose(run(softmax(tf.constant([1000.0, 1001.0, 1002.0]))),
                               [0.09003057, 0.24472847, 0.66524096], rtol=1e-6)
    x = placeholder(tf, TFloat64, (4,))
    assertGradientsClose(softmax(x), [x], {x: np.array([1000.0, 1001.0, 1001.0, 998.5])})
