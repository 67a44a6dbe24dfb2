"""Specification of the reductions, one row per op: Sum, Max, Min, Prod, Mean, All and Any reduce
over the axes in ``axis`` (``keepDims`` keeps them with length 1); ArgMax and ArgMin return the
position of the extreme element along one ``dimension``.

A reduction row gives the facade call, the numpy function it must match, the data types it takes
(every other one is rejected), the value of a reduction of no elements, the input domain of its
kernel checks and whether its gradient is checked against finite differences in float64 (at
points of that domain: distinct values for Max and Min, no zeros for Prod). Literal tables below
give the values that are an op's own: integer wrap-around, truncated integer means, tie splitting
in the gradients of Max and Min, Prod's gradient at zeros. Names, ``OP_NAME``, foreign operands,
closed graphs and docstrings are checked for every op by ``tests/test_every_op.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from opchecks import (
    ALL,
    FLOATS,
    NUMBERS,
    assertGradient,
    assertGradientsClose,
    assertMatches,
    assertRejected,
)

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.core import All, Gradients, Max, Min, Placeholder, Prod, Sum
from tfops.op.core import Any as AnyOp
from tfops.op.math import ArgMax, ArgMin, Mean
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Array = np.ndarray[Any, Any]
Run = Callable[..., Any]
S = Shape.of
U = -1  # an unknown dimension
FED = "fed"  # an axis placeholder, fed at run time
CREATED = f"created at {__file__}:"


# -- input domains (JAX's rng factories): a value of ``dtype`` and ``shape`` -------------------
def _scrambled(shape: tuple[int, ...]) -> Array:
    return np.random.default_rng(5).permutation(int(np.prod(shape))).reshape(shape)


def randSmall(dtype: type[TType], shape: tuple[int, ...]) -> Array:
    """Integers in [-2, 2] ([0, 4] unsigned): sums exact in float16."""
    values = _scrambled(shape) % 5 - (0 if dtype is TUint8 else 2)
    return values.astype(dtype.DTYPE)


def randDistinct(dtype: type[TType], shape: tuple[int, ...]) -> Array:
    """Distinct integers, negative ones too when signed: no ties for an extremum."""
    values = _scrambled(shape) - (0 if dtype is TUint8 else int(np.prod(shape)) // 2)
    return values.astype(dtype.DTYPE)


def randNonZero(dtype: type[TType], shape: tuple[int, ...]) -> Array:
    """1, 2 or 3, alternately negated when signed: products exact in float16, no zeros."""
    values = _scrambled(shape) % 3 + 1
    if dtype is not TUint8:
        values = values * np.where(np.arange(values.size) % 2, -1, 1).reshape(shape)
    return values.astype(dtype.DTYPE)


def randMostlyTrue(dtype: type[TType], shape: tuple[int, ...]) -> Array:
    return np.random.default_rng(9).integers(0, 4, size=shape) > 0


def randMostlyFalse(dtype: type[TType], shape: tuple[int, ...]) -> Array:
    return np.random.default_rng(9).integers(0, 4, size=shape) == 0


# -- numpy references: f(x, axis=tuple, keepdims=bool) ------------------------------------------
def npSum(x: Array, axis: tuple[int, ...], keepdims: bool) -> Array:
    return np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)  # integers wrap around


def npProd(x: Array, axis: tuple[int, ...], keepdims: bool) -> Array:
    return np.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def npMean(x: Array, axis: tuple[int, ...], keepdims: bool) -> Array:
    """The mean in float64; truncated towards zero for integers (no overflow in the sum)."""
    mean = np.mean(x.astype(np.float64), axis=axis, keepdims=keepdims)
    return mean if x.dtype.kind == "f" else np.trunc(mean)


def lowest(dtype: type[TType]) -> Any:
    return -np.inf if dtype in FLOATS else np.iinfo(dtype.DTYPE).min


def highest(dtype: type[TType]) -> Any:
    return np.inf if dtype in FLOATS else np.iinfo(dtype.DTYPE).max


def nanOrZero(dtype: type[TType]) -> Any:
    return np.nan if dtype in FLOATS else 0  # as TensorFlow: 0 / 0, but 0 for integers


@dataclass(frozen=True)
class Reduction:
    op: type[Any]  # the op class; its OP_NAME names the row
    call: Callable[[Ops], Callable[..., Any]]  # the facade method
    numpy: Callable[..., Array]  # the reference, numpy(x, axis=..., keepdims=...)
    dtypes: tuple[type[TType], ...]  # the data types taken; every other one is rejected
    empty: Callable[[type[TType]], Any]  # the reduction of no elements (or the error it raises)
    rng: Callable[[type[TType], tuple[int, ...]], Array]  # kernel inputs, gradient points
    grad: bool  # gradient checked against finite differences (else: not differentiable)
    # the tolerance of the kernel is that of the data type: opchecks.rtol (exact for integers)

    def __str__(self) -> str:
        return str(self.op.OP_NAME)


REDUCTIONS = [
    Reduction(Sum, lambda tf: tf.sum, npSum, NUMBERS,
              empty=lambda t: 0, rng=randSmall, grad=True),
    Reduction(Max, lambda tf: tf.max, np.max, NUMBERS,
              empty=lowest, rng=randDistinct, grad=True),
    Reduction(Min, lambda tf: tf.min, np.min, NUMBERS,
              empty=highest, rng=randDistinct, grad=True),
    Reduction(Prod, lambda tf: tf.prod, npProd, NUMBERS,
              empty=lambda t: 1, rng=randNonZero, grad=True),
    Reduction(Mean, lambda tf: tf.math.mean, npMean, NUMBERS,
              empty=nanOrZero, rng=randSmall, grad=True),
    Reduction(All, lambda tf: tf.all, np.all, (TBool,),
              empty=lambda t: True, rng=randMostlyTrue, grad=False),
    Reduction(AnyOp, lambda tf: tf.any, np.any, (TBool,),
              empty=lambda t: False, rng=randMostlyFalse, grad=False),
]
DIFFERENTIABLE = [r for r in REDUCTIONS if r.grad]
ids = str


def typed(rows: list[Reduction]) -> list[tuple[Reduction, type[TType]]]:
    return [(r, t) for r in rows for t in r.dtypes]


def untyped(rows: list[Reduction]) -> list[tuple[Reduction, type[TType]]]:
    return [(r, t) for r in rows for t in ALL if t not in r.dtypes]


def typeIds(v: object) -> str:
    return str(getattr(v, "NAME", v))


def reduce(tf: Ops, row: Reduction, x: Any, axis: Any, keep: bool | None = None) -> Any:
    options = () if keep is None else (row.op.keepDims(keep),)
    return row.call(tf)(x, axis, *options)


# -- construction -----------------------------------------------------------------------------
@pytest.mark.parametrize("row", REDUCTIONS, ids=ids)
def test_createTakesTheKeepDimsOptionOrKeyword(tf: Ops, row: Reduction) -> None:
    x = tf.constant(row.rng(row.dtypes[0], (2, 3)))
    r = row.op.create(tf.scope(), x, 1, row.op.keepDims(True))
    assert isinstance(r, row.op)
    assert r.output() == r.asOutput() == r.op().output(0)
    assert r.op().numInputs() == 2 and r.op().input(0) == x.asOutput()
    assert r.op().attr("keep_dims") is True
    assert r.asOutput().shape() == S(2, 1)
    keyword = row.call(tf)(x, 1, keepDims=True)
    assert keyword.op().attr("keep_dims") is True
    assert keyword.asOutput().shape() == S(2, 1)
    assert reduce(tf, row, x, 1).op().attr("keep_dims") is False


@pytest.mark.parametrize(("row", "dtype"), typed(REDUCTIONS), ids=typeIds)
def test_outputHasTheInputDataType(tf: Ops, row: Reduction, dtype: type[TType]) -> None:
    r = reduce(tf, row, tf.placeholder(dtype, Placeholder.shape(S(2, 3))), 1)
    assert r.asOutput().dataType() is dtype
    assert r.op().attr("T") is dtype


@pytest.mark.parametrize(
    ("axis", "tidx"),
    [
        pytest.param(1, TInt32, id="int"),
        pytest.param([1], TInt32, id="list"),
        pytest.param(np.int64(1), TInt64, id="np.int64"),
        pytest.param(np.array([1], np.int64), TInt64, id="int64 vector"),
    ],
)
@pytest.mark.parametrize("row", REDUCTIONS, ids=ids)
def test_axisIsAnInt32OrInt64Constant(
    tf: Ops, row: Reduction, axis: object, tidx: type[TType]
) -> None:
    r = reduce(tf, row, tf.constant(row.rng(row.dtypes[0], (2, 3))), axis)
    assert r.op().input(1).op().type() == "Const"
    assert r.op().input(1).dataType() is tidx
    assert r.op().attr("Tidx") is tidx
    assert r.asOutput().shape() == S(2)


@pytest.mark.parametrize(
    ("shape", "axis", "keep", "expected"),
    [
        (S(2, 3), 0, False, S(3)),
        (S(2, 3), 1, True, S(2, 1)),
        (S(2, 3), -1, False, S(2)),
        (S(2, 3), [0, 1], False, Shape.scalar()),
        (S(2, 3), [-2, -1], True, S(1, 1)),
        (S(2, 3), [], False, S(2, 3)),
        (S(2, 3), np.zeros(0, np.int32), True, S(2, 3)),
        (S(2, 3, 4), [2, 0], False, S(3)),
        (S(4, 0, 2), 1, False, S(4, 2)),
        (Shape.scalar(), np.zeros(0, np.int32), False, Shape.scalar()),
        (S(U, 3), 1, False, S(U)),
        (S(U, 3), 0, True, S(1, 3)),
        (S(U, U), 0, False, S(U)),
        (S(2, U), [], True, S(2, U)),
        (Shape.unknown(), [0, 1], False, Shape.unknown()),
        (Shape.unknown(), 0, True, Shape.unknown()),
        (S(2, 3, 4), FED, False, Shape.unknown()),
        (S(2, 3, 4), FED, True, S(U, U, U)),
    ],
    ids=str,
)
@pytest.mark.parametrize("row", REDUCTIONS, ids=ids)
def test_staticShape(
    tf: Ops, row: Reduction, shape: Shape, axis: Any, keep: bool, expected: Shape
) -> None:
    x = tf.placeholder(row.dtypes[0], Placeholder.shape(shape))
    axis = tf.placeholder(TInt32) if axis is FED else axis
    assert reduce(tf, row, x, axis, keep).asOutput().shape() == expected


# -- kernel -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("shape", "axis", "keep"),
    [
        ((5,), 0, False),
        ((2, 3), 1, False),
        ((2, 3), -1, True),
        ((2, 3), -2, False),
        ((2, 3, 4), [0, 2], False),
        ((2, 3, 4), [-1, 1], True),
        ((2, 3), [0, 1], False),
        ((2, 3), [], True),
        ((), [], False),
        ((0, 3), 1, True),
    ],
    ids=str,
)
@pytest.mark.parametrize(("row", "dtype"), typed(REDUCTIONS), ids=typeIds)
def test_kernelMatchesNumpy(
    tf: Ops, run: Run, row: Reduction, dtype: type[TType], shape: tuple[int, ...],
    axis: int | list[int], keep: bool,
) -> None:
    x = row.rng(dtype, shape)
    result = run(reduce(tf, row, tf.constant(x), np.array(axis, np.int32), keep))
    expected = row.numpy(x, axis=tuple(np.atleast_1d(axis).tolist()), keepdims=keep)
    assertMatches(result, expected, dtype)


@pytest.mark.parametrize("row", REDUCTIONS, ids=ids)
def test_kernelWithAxesFedAtRunTime(tf: Ops, run: Run, row: Reduction) -> None:
    value = row.rng(row.dtypes[-1], (3, 4))
    x = tf.placeholder(row.dtypes[-1], Placeholder.shape(S(U, 4)))
    axis = tf.placeholder(TInt32)
    r = reduce(tf, row, x, axis)
    for fed, expected in [(-1, row.numpy(value, axis=(1,), keepdims=False)),
                          ([0, 1], row.numpy(value, axis=(0, 1), keepdims=False))]:
        got = run(r, feeds={x: value, axis: np.array(fed, np.int32)})
        assertMatches(got, expected, row.dtypes[-1])


@pytest.mark.parametrize(("row", "dtype"), typed(REDUCTIONS), ids=typeIds)
def test_reductionOfNoElementsIsTheIdentity(
    tf: Ops, run: Run, row: Reduction, dtype: type[TType]
) -> None:
    r = reduce(tf, row, tf.constant(np.zeros((0, 3), dtype.DTYPE)), 0)
    expected = row.empty(dtype)
    if expected is InvalidArgumentError:
        with pytest.raises(InvalidArgumentError, match=f"division by zero.*'{row}'"):
            run(r)
    else:
        assertMatches(run(r), np.full(3, expected, dtype.DTYPE), dtype)


@pytest.mark.parametrize(
    ("op", "value", "axis", "expected"),
    [
        pytest.param("Sum", np.array([200, 100], np.uint8), 0, 44, id="Sum uint8 wraps"),
        pytest.param("Sum", np.array([2**31 - 1, 1], np.int32), 0, -(2**31), id="Sum int32 wraps"),
        pytest.param("Prod", np.array([16, 20], np.uint8), 0, 64, id="Prod uint8 wraps"),
        pytest.param("Prod", np.array([2**16, 2**15], np.int32), 0, -(2**31),
                     id="Prod int32 wraps"),
        pytest.param("Prod", np.array([1e200, -1e200]), 0, -np.inf, id="Prod overflows"),
        pytest.param("Max", np.array([-np.inf, 1.0, np.inf]), 0, np.inf, id="Max of infinities"),
        pytest.param("Min", np.array([np.inf, 1.0, -np.inf]), 0, -np.inf, id="Min of infinities"),
        pytest.param("Mean", np.array([[-7, 0], [7, 0], [-1, -1], [5, 6], [-5, -6], [1, 0]],
                                      np.int32), 1, [-3, 3, -1, 5, -5, 0],
                     id="Mean int32 truncates towards zero"),
        pytest.param("Mean", np.array([[-7, 0], [-5, -6], [1, 0]], np.int64), 1, [-3, -5, 0],
                     id="Mean int64 truncates towards zero"),
        pytest.param("Mean", np.array([[[-1, -1], [-1, 0]], [[4, 4], [4, 5]]], np.int32), [1, 2],
                     [0, 4], id="Mean over two axes truncates"),
        pytest.param("Mean", np.array([[[-1, -1], [-1, 0]], [[4, 4], [4, 5]]], np.int32),
                     [0, 1, 2], 1, id="Mean over every axis truncates"),
        pytest.param("Mean", np.array([200, 100, 255], np.uint8), 0, 185,
                     id="Mean uint8 sum does not overflow"),
        pytest.param("Mean", np.array([2**31 - 1, 2**31 - 1, 2**31 - 4], np.int32), 0,
                     2**31 - 2, id="Mean int32 sum does not overflow"),
        pytest.param("Mean", np.array([[1.0, np.nan], [2.0, 4.0]]), 1, [np.nan, 3.0],
                     id="Mean propagates nan"),
        pytest.param("Mean", np.float64(2.5), np.zeros(0, np.int32), 2.5,
                     id="Mean of a scalar over no axes"),
    ],
)
def test_specialValues(
    tf: Ops, run: Run, op: str, value: Array, axis: Any, expected: Any
) -> None:
    """Integers wrap around in Sum and Prod; floats overflow to infinity; Mean truncates integers
    towards zero without overflowing in the sum, and propagates nan."""
    row = next(r for r in REDUCTIONS if str(r) == op)
    result = run(reduce(tf, row, value, axis))
    assert result.dtype == value.dtype
    np.testing.assert_array_equal(result, np.asarray(expected, value.dtype))


# -- bad arguments ----------------------------------------------------------------------------
@pytest.mark.parametrize(("row", "dtype"), untyped(REDUCTIONS), ids=typeIds)
def test_rejectsOtherDataTypes(graph: Graph, tf: Ops, row: Reduction, dtype: type[TType]) -> None:
    x = tf.placeholder(dtype, Placeholder.shape(S(2)))
    assertRejected(graph, lambda: reduce(tf, row, x, 0), TypeError, f"{row} '{row}'", CREATED,
                   f"data type {dtype.NAME} is not allowed for 'T'")


@pytest.mark.parametrize(
    ("axis", "fragment"),
    [
        (0.0, "float32 is not allowed for 'Tidx'"),
        ([0.0], "is not an integer"),
        (np.array([0], np.uint8), "uint8 is not allowed for 'Tidx'"),
        (np.array([0.0], np.float32), "float32 is not allowed for 'Tidx'"),
        (True, "bool is not allowed for 'Tidx'"),
    ],
    ids=repr,
)
@pytest.mark.parametrize("row", REDUCTIONS, ids=ids)
def test_rejectsAxesThatAreNotInt32OrInt64(
    graph: Graph, tf: Ops, row: Reduction, axis: object, fragment: str
) -> None:
    x = tf.placeholder(row.dtypes[0], Placeholder.shape(S(2, 3)))
    assertRejected(graph, lambda: reduce(tf, row, x, axis), TypeError, str(row), CREATED, fragment)


@pytest.mark.parametrize(
    ("shape", "axis", "fragment"),
    [
        (S(U, 3), 2, "reduction axis 2 is out of range for a tensor of rank 2"),
        (S(U, 3), -3, "reduction axis -3 is out of range"),
        (S(U, 3), [0, 2], "reduction axis 2 is out of range"),
        (Shape.scalar(), 0, "out of range for a tensor of rank 0"),
        (S(2, 3), [[0], [1]], "axes must be a scalar or a vector, got shape [2, 1]"),
    ],
    ids=str,
)
@pytest.mark.parametrize("row", REDUCTIONS, ids=ids)
def test_rejectsBadConstantAxes(
    graph: Graph, tf: Ops, row: Reduction, shape: Shape, axis: Any, fragment: str
) -> None:
    x = tf.placeholder(row.dtypes[0], Placeholder.shape(shape))
    assertRejected(graph, lambda: reduce(tf, row, x, axis), ValueError, f"{row} '{row}'",
                   CREATED, fragment)


@pytest.mark.parametrize("row", REDUCTIONS, ids=ids)
def test_rejectsANonBoolKeepDims(graph: Graph, tf: Ops, row: Reduction) -> None:
    x = tf.placeholder(row.dtypes[0], Placeholder.shape(S(2)))
    assertRejected(graph, lambda: reduce(tf, row, x, 0, 1), TypeError,  # type: ignore[arg-type]
                   f"{row} '{row}'", "'keep_dims' must be a bool, got 1")


@pytest.mark.parametrize(
    ("axis", "constant", "fragment"),
    [
        (2, False, "reduction axis 2 is out of range for a tensor of rank 2"),
        ([-3], False, "reduction axis -3 is out of range"),
        ([0, 0], False, "axes [0, 0] contain the dimension 0 twice"),
        ([1, -1], False, "axes [1, -1] contain the dimension 1 twice"),
        ([0, 0], True, "axes [0, 0] contain the dimension 0 twice"),
        ([1, -1], True, "axes [1, -1] contain the dimension 1 twice"),
    ],
    ids=str,
)
@pytest.mark.parametrize("row", REDUCTIONS, ids=ids)
def test_rejectsBadAxesAtRunTime(
    tf: Ops, run: Run, row: Reduction, axis: Any, constant: bool, fragment: str
) -> None:
    """Axes out of range fed at run time, and repeated axes (constant ones too, as TensorFlow:
    "Axes contains duplicate dimension") raise InvalidArgumentError naming the op."""
    x = tf.constant(row.rng(row.dtypes[0], (2, 3)))
    a = tf.placeholder(TInt32)
    r = reduce(tf, row, x, axis if constant else a)
    with pytest.raises(InvalidArgumentError) as info:
        run(r, feeds=None if constant else {a: np.array(axis, np.int32)})
    message = str(info.value)
    assert fragment in message and f"'{r.op().name()}'" in message and CREATED in message
    assert info.value.op == r.op()


# -- gradient ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("shape", "axis", "keep"),
    [
        ((5,), 0, False),
        ((2, 3), 1, False),
        ((2, 3), -2, True),
        ((2, 3, 2), [0, 2], False),
        ((2, 3, 2), [-1], True),
        ((2, 3), [0, 1], False),
        ((2, 3), [0, -1], True),
        ((), [], False),
    ],
    ids=str,
)
@pytest.mark.parametrize("row", DIFFERENTIABLE, ids=ids)
def test_gradientMatchesFiniteDifferences(
    tf: Ops, row: Reduction, shape: tuple[int, ...], axis: Any, keep: bool
) -> None:
    assertGradient(tf, lambda x: reduce(tf, row, x, np.array(axis, np.int32), keep),
                   [row.rng(TFloat64, shape)])


@pytest.mark.parametrize(
    ("shape", "axis", "keep"),
    [(S(U, 3), 0, False), (S(U, 3), 1, True), (Shape.unknown(), 1, False),
     (Shape.unknown(), [0, -1], True), (S(2, 3), FED, False), (S(2, 3), FED, True)],
    ids=str,
)
@pytest.mark.parametrize("row", DIFFERENTIABLE, ids=ids)
def test_gradientWithoutStaticShapeOrAxes(
    tf: Ops, row: Reduction, shape: Shape, axis: Any, keep: bool
) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(shape))
    a = tf.placeholder(TInt32) if axis is FED else axis
    y = reduce(tf, row, x, a, keep)
    feeds = {a: np.array([0], np.int32)} if axis is FED else None
    assertGradientsClose(y, [x], {x: row.rng(TFloat64, (2, 3))}, feeds=feeds)


@pytest.mark.parametrize("row", DIFFERENTIABLE, ids=ids)
def test_gradientThroughBroadcastingAndOfSecondOrder(tf: Ops, row: Reduction) -> None:
    # no zeros and no ties, in x or in its square
    values = [np.array([[1.5, 0.3, -2.0, 0.7], [0.5, 2.0, 3.0, -1.1], [-0.4, 1.2, 2.5, 0.9]])]
    assertGradient(tf, lambda x: tf.math.mul(x, reduce(tf, row, x, 0)), values)
    assertGradient(tf, lambda x: tf.math.mul(x, reduce(tf, row, x, 1, True)), values)
    weights = tf.constant(np.arange(12.0).reshape(3, 4))

    def weightedGradient(x: Any) -> Any:
        dx = tf.gradients(reduce(tf, row, tf.math.square(x), 1), [x]).dy(0)
        return tf.sum(tf.math.mul(dx, weights), [0, 1])

    assertGradient(tf, weightedGradient, values)


@pytest.mark.parametrize("row", DIFFERENTIABLE, ids=ids)
def test_noGradientFlowsToTheAxes(tf: Ops, row: Reduction) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(S(2, 3)))
    axis = tf.placeholder(TInt32)
    grads = tf.gradients(reduce(tf, row, x, axis), [x, axis])
    assert grads.dy(0) is not None
    assert grads.dy(1) is None


@pytest.mark.parametrize(
    ("op", "value", "axis", "keep", "upstream", "expected"),
    [
        pytest.param("Sum", [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]], 1, False, [2.0, -1.0],
                     [[2.0, 2.0, 2.0], [-1.0, -1.0, -1.0]], id="Sum broadcasts the gradient"),
        pytest.param("Sum", np.ones((2, 2), np.float16), [0, 1], False, None,
                     [[1.0, 1.0], [1.0, 1.0]], id="Sum float16"),
        pytest.param("Max", [1.0, 3.0, 3.0], 0, False, None, [0.0, 0.5, 0.5],
                     id="Max splits ties"),
        pytest.param("Max", np.array([1.0, 3.0, 3.0], np.float32), 0, False, None,
                     [0.0, 0.5, 0.5], id="Max float32"),
        pytest.param("Max", [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0], [5.0, 4.0, 0.0]], 1, False, None,
                     [[0.0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3], [1.0, 0.0, 0.0]],
                     id="Max splits ties per row"),
        pytest.param("Max", [[1.0, 3.0, 3.0], [3.0, 2.0, 3.0]], [0, 1], True, None,
                     [[0.0, 0.25, 0.25], [0.25, 0.0, 0.25]], id="Max splits ties over two axes"),
        pytest.param("Max", [[1.0, 3.0, 3.0], [4.0, 0.0, 4.0]], 1, False, [2.0, -6.0],
                     [[0.0, 1.0, 1.0], [-3.0, 0.0, -3.0]], id="Max splits the upstream gradient"),
        pytest.param("Min", [3.0, 1.0, 1.0], 0, False, None, [0.0, 0.5, 0.5],
                     id="Min splits ties"),
        pytest.param("Min", [1.0, 3.0, 3.0], 0, False, None, [1.0, 0.0, 0.0],
                     id="Min ignores ties of the maximum"),
        pytest.param("Min", [[3.0, 1.0, 1.0], [2.0, 2.0, 2.0], [0.0, 4.0, 5.0]], 1, False, None,
                     [[0.0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3], [1.0, 0.0, 0.0]],
                     id="Min splits ties per row"),
        pytest.param("Min", [[3.0, 1.0, 1.0], [1.0, 2.0, 1.0]], [0, 1], True, None,
                     [[0.0, 0.25, 0.25], [0.25, 0.0, 0.25]], id="Min splits ties over two axes"),
        pytest.param("Min", [[3.0, 1.0, 1.0], [0.0, 4.0, 0.0]], 1, False, [2.0, -6.0],
                     [[0.0, 1.0, 1.0], [-3.0, 0.0, -3.0]], id="Min splits the upstream gradient"),
        pytest.param("Prod", [[2.0, 0.0, -3.0], [0.0, 4.0, 0.0]], 1, False, None,
                     [[0.0, -6.0, 0.0], [0.0, 0.0, 0.0]], id="Prod at zeros"),
        pytest.param("Prod", [[2.0, 3.0], [4.0, 0.5]], 1, False, [2.0, -1.0],
                     [[6.0, 4.0], [-0.5, -4.0]], id="Prod scales the upstream gradient"),
        pytest.param("Prod", np.array([[1.0, 2.0], [0.0, 4.0]], np.float16), [0, 1], False, None,
                     [[0.0, 0.0], [8.0, 0.0]], id="Prod float16 at a zero"),
        pytest.param("Mean", np.zeros((2, 4), np.float32), 1, False, None, np.full((2, 4), 0.25),
                     id="Mean float32 is one over the count"),
    ],
)
def test_gradientValues(
    tf: Ops, run: Run, op: str, value: Any, axis: Any, keep: bool, upstream: Any, expected: Any
) -> None:
    """The gradient of ``value`` reduced over ``axis``, given the ``upstream`` gradient (ones
    when None), in ``value``'s data type."""
    row = next(r for r in REDUCTIONS if str(r) == op)
    x = tf.constant(np.asarray(value, getattr(value, "dtype", np.float64)))
    dy = [] if upstream is None else [Gradients.dx([tf.constant(np.array(upstream))])]
    d = tf.gradients(reduce(tf, row, x, axis, keep), [x], *dy).dy(0)
    assert d is not None
    assert d.dataType() is x.asOutput().dataType()
    assert d.shape() == x.asOutput().shape()
    result = run(d)
    assert result.dtype == x.asOutput().dataType().DTYPE
    np.testing.assert_allclose(result, expected, rtol=1e-15)


@pytest.mark.parametrize("row", [r for r in REDUCTIONS if not r.grad], ids=ids)
def test_passesNoGradient(tf: Ops, row: Reduction) -> None:
    assert lookupGradient(str(row)) == (True, None)
    x = tf.placeholder(TFloat64, Placeholder.shape(S(2, 3)))
    y = tf.dtypes.cast(reduce(tf, row, tf.math.equal(x, 0.0), 1), TFloat64)
    assert tf.gradients(y, [x]).dy() == [None]


# -- ArgMax, ArgMin ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ArgReduction:
    op: type[Any]
    call: Callable[[Ops], Callable[..., Any]]
    numpy: Callable[..., Array]

    def __str__(self) -> str:
        return str(self.op.OP_NAME)


ARG_REDUCTIONS = [
    ArgReduction(ArgMax, lambda tf: tf.math.argMax, np.argmax),
    ArgReduction(ArgMin, lambda tf: tf.math.argMin, np.argmin),
]


@pytest.mark.parametrize("row", ARG_REDUCTIONS, ids=ids)
def test_argCreateTakesItsInputAndDimension(graph: Graph, tf: Ops, row: ArgReduction) -> None:
    x = tf.constant([[1.0, 2.0]])
    m = row.op.create(tf.scope(), x, 1)
    assert isinstance(m, row.op)
    assert [op.name() for op in graph.operations()] == ["Const", "Const_1", str(row)]
    assert m.op().numInputs() == 2 and m.op().input(0) == x.asOutput()
    assert m.op().input(1).dataType() is TInt32
    assert m.op().numOutputs() == 1
    assert m.output() == m.asOutput() == m.op().output(0)
    assert m.asOutput().dataType() is TInt64
    assert m.op().attr("output_type") is TInt64


@pytest.mark.parametrize("keyword", [False, True], ids=["option", "keyword"])
@pytest.mark.parametrize("row", ARG_REDUCTIONS, ids=ids)
def test_argOutputTypeSelectsInt32(tf: Ops, run: Run, row: ArgReduction, keyword: bool) -> None:
    x = np.array([[0.5, 2.5], [3.5, -1.0]], np.float32)
    if keyword:
        m = row.call(tf)(x, 1, outputType=TInt32)
    else:
        m = row.call(tf)(x, 1, row.op.outputType(TInt32))
    assert m.asOutput().dataType() is TInt32
    assert m.op().attr("output_type") is TInt32
    assertMatches(run(m), row.numpy(x, axis=1), TInt32)


@pytest.mark.parametrize("dtype", ALL, ids=typeIds)
@pytest.mark.parametrize("row", ARG_REDUCTIONS, ids=ids)
def test_argTakesEveryDataType(tf: Ops, row: ArgReduction, dtype: type[TType]) -> None:
    m = row.call(tf)(tf.placeholder(dtype, Placeholder.shape(S(2))), np.int64(0))
    assert m.op().attr("T") is dtype
    assert m.op().attr("Tidx") is TInt64
    assert m.asOutput().dataType() is TInt64


@pytest.mark.parametrize(
    ("shape", "dimension", "expected"),
    [
        (S(2, 3), 0, S(3)),
        (S(2, 3), -1, S(2)),
        (S(2, 3), -2, S(3)),
        (S(2, 3, 4), 1, S(2, 4)),
        (S(5), 0, Shape.scalar()),
        (S(0, 3), 1, S(0)),
        (S(U, 3), 0, S(3)),
        (S(U, 3), 1, S(U)),
        (S(2, U, 4), -2, S(2, 4)),
        (Shape.unknown(), 0, Shape.unknown()),
        (S(2, 3, 4), FED, S(U, U)),
        (S(5), FED, Shape.scalar()),
        (Shape.unknown(), FED, Shape.unknown()),
    ],
    ids=str,
)
@pytest.mark.parametrize("row", ARG_REDUCTIONS, ids=ids)
def test_argStaticShape(
    tf: Ops, row: ArgReduction, shape: Shape, dimension: Any, expected: Shape
) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(shape))
    dimension = tf.placeholder(TInt32) if dimension is FED else dimension
    assert row.call(tf)(x, dimension).asOutput().shape() == expected


@pytest.mark.parametrize("dtype", ALL, ids=typeIds)
@pytest.mark.parametrize(
    ("shape", "dimension"),
    [((6,), 0), ((3, 4), 0), ((3, 4), 1), ((3, 4), -1), ((2, 3, 4), 1), ((2, 3, 4), -3)],
    ids=str,
)
@pytest.mark.parametrize("row", ARG_REDUCTIONS, ids=ids)
def test_argKernelMatchesNumpy(
    tf: Ops, run: Run, row: ArgReduction, dtype: type[TType], shape: tuple[int, ...],
    dimension: int,
) -> None:
    x = randDistinct(dtype, shape) if dtype is not TBool else randMostlyTrue(dtype, shape)
    assertMatches(run(row.call(tf)(x, dimension)), row.numpy(x, axis=dimension), TInt64)


@pytest.mark.parametrize(
    ("op", "value", "dimension", "expected"),
    [
        pytest.param("ArgMax", [[3.0, 1.0, 3.0], [2.0, 2.0, 2.0], [0.0, 5.0, 5.0]], 1, [0, 0, 1],
                     id="ArgMax ties along rows: the first"),
        pytest.param("ArgMax", [[3.0, 1.0, 3.0], [2.0, 2.0, 2.0], [0.0, 5.0, 5.0]], 0, [0, 2, 2],
                     id="ArgMax ties along columns: the first"),
        pytest.param("ArgMin", [[1.0, 3.0, 1.0], [2.0, 2.0, 2.0], [5.0, 0.0, 0.0]], 1, [0, 0, 1],
                     id="ArgMin ties along rows: the first"),
        pytest.param("ArgMin", [[1.0, 3.0, 1.0], [2.0, 2.0, 2.0], [5.0, 0.0, 0.0]], 0, [0, 2, 2],
                     id="ArgMin ties along columns: the first"),
        pytest.param("ArgMax", [[False, True, True], [False, False, False]], 1, [1, 0],
                     id="ArgMax bool: the first true"),
        pytest.param("ArgMin", [[True, False, False], [True, True, True]], 1, [1, 0],
                     id="ArgMin bool: the first false"),
        pytest.param("ArgMax", [-np.inf, 1e308, np.inf, 0.0], 0, 2, id="ArgMax of infinities"),
        pytest.param("ArgMin", [np.inf, -1e308, -np.inf, 0.0], 0, 2, id="ArgMin of infinities"),
        pytest.param("ArgMax", np.zeros((0, 3), np.float32), 1, np.zeros(0),
                     id="ArgMax along a dimension of an empty tensor"),
    ],
)
def test_argSpecialValues(
    tf: Ops, run: Run, op: str, value: Any, dimension: int, expected: Any
) -> None:
    row = next(r for r in ARG_REDUCTIONS if str(r) == op)
    assertMatches(run(row.call(tf)(np.asarray(value), dimension)), np.asarray(expected), TInt64)


@pytest.mark.parametrize("row", ARG_REDUCTIONS, ids=ids)
def test_argKernelWithADimensionFedAtRunTime(tf: Ops, run: Run, row: ArgReduction) -> None:
    value = np.array([[1.0, -1.0], [-3.0, -2.0], [0.5, 0.75]])
    x = tf.placeholder(TFloat64, Placeholder.shape(S(U, 2)))
    dimension = tf.placeholder(TInt32)
    m = row.call(tf)(x, dimension)
    for fed in (0, -1):
        got = run(m, feeds={x: value, dimension: np.array(fed, np.int32)})
        assertMatches(got, row.numpy(value, axis=fed), TInt64)


@pytest.mark.parametrize(
    ("value", "dimension", "options", "error", "fragment"),
    [
        pytest.param(np.zeros((2, 3), np.float32), 2, (), ValueError,
                     "dimension 2 is out of range", id="2 out of range"),
        pytest.param(np.zeros((2, 3), np.float32), -3, (), ValueError,
                     "dimension -3 is out of range", id="-3 out of range"),
        pytest.param(np.float32(1.0), 0, (), ValueError, "out of range for a tensor of rank 0",
                     id="scalar input"),
        pytest.param(np.zeros((1, 2)), [1], (), ValueError, "dimension must be a scalar",
                     id="vector dimension"),
        pytest.param(np.zeros((0, 3), np.float32), 0, (), ValueError,
                     "dimension 0 of shape [0, 3] is empty", id="empty dimension"),
        pytest.param(np.zeros(2), np.float32(0), (), TypeError,
                     "float32 is not allowed for 'Tidx'", id="float32 dimension"),
        pytest.param(np.zeros(2), 0, (TFloat32,), TypeError,
                     "float32 is not allowed for 'output_type'", id="float32 outputType"),
        pytest.param(np.zeros(2), 0, (TUint8,), TypeError,
                     "uint8 is not allowed for 'output_type'", id="uint8 outputType"),
        pytest.param(np.zeros(2), 0, (TBool,), TypeError,
                     "bool is not allowed for 'output_type'", id="bool outputType"),
    ],
)
@pytest.mark.parametrize("row", ARG_REDUCTIONS, ids=ids)
def test_argRejectsBadArguments(
    graph: Graph, tf: Ops, row: ArgReduction, value: Array, dimension: Any,
    options: tuple[type[TType], ...], error: type[Exception], fragment: str,
) -> None:
    x = tf.placeholder(TFloat32 if value.dtype == np.float32 else TFloat64,
                       Placeholder.shape(S(*value.shape)))
    opts = [row.op.outputType(t) for t in options]
    assertRejected(graph, lambda: row.call(tf)(x, dimension, *opts), error, f"{row} '{row}'",
                   CREATED, fragment)


@pytest.mark.parametrize(
    ("value", "dimension", "fragment"),
    [
        pytest.param(np.ones((1, 2)), 2, "dimension 2 is out of range for a tensor of rank 2",
                     id="2 out of range"),
        pytest.param(np.ones((1, 2)), -3, "dimension -3 is out of range", id="-3 out of range"),
        pytest.param(np.ones((1, 2)), [1], "dimension must be a scalar, got shape [1]",
                     id="vector dimension"),
        pytest.param(np.ones((0, 2)), 0, "dimension 0 of shape [0, 2] is empty",
                     id="empty dimension"),
    ],
)
@pytest.mark.parametrize("row", ARG_REDUCTIONS, ids=ids)
def test_argRejectsBadArgumentsAtRunTime(
    tf: Ops, run: Run, row: ArgReduction, value: Array, dimension: Any, fragment: str
) -> None:
    x, d = tf.placeholder(TFloat64), tf.placeholder(TInt32)
    m = tf.withName("m").math.argMax(x, d) if str(row) == "ArgMax" else (
        tf.withName("m").math.argMin(x, d))
    with pytest.raises(InvalidArgumentError) as info:
        run(m, feeds={x: value, d: np.array(dimension, np.int32)})
    assert info.value.op == m.op()
    assert fragment in str(info.value) and "'m'" in str(info.value) and CREATED in str(info.value)


@pytest.mark.parametrize("row", ARG_REDUCTIONS, ids=ids)
def test_argPassesNoGradient(tf: Ops, run: Run, row: ArgReduction) -> None:
    """None flows through the index (zeros when asked for); x * index gets it through x only."""
    assert lookupGradient(str(row)) == (True, None)
    x = tf.placeholder(TFloat64, Placeholder.shape(S(2, 3)))
    index = tf.dtypes.cast(row.call(tf)(x, 1), TFloat64)
    assert tf.gradients(index, [x]).dy(0) is None
    zeros = tf.gradients(index, [x], Gradients.unconnectedGradients("zero")).dy(0)
    through = tf.gradients(tf.math.mul(x, tf.expandDims(index, 1)), [x]).dy(0)
    assert zeros is not None and through is not None
    value = np.array([[0.5, 2.0, 1.0], [3.0, 0.25, -1.0]])
    got = run(zeros, through, feeds={x: value})
    np.testing.assert_array_equal(got[0], np.zeros((2, 3)))
    np.testing.assert_array_equal(got[1], np.repeat(row.numpy(value, axis=1)[:, None], 3, 1))
    assertGradient(tf, lambda v: tf.math.mul(v, tf.expandDims(
        tf.dtypes.cast(row.call(tf)(v, 1), TFloat64), 1)), [value])
