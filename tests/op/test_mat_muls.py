"""MatMul's and BatchMatMul's own behaviour (op types ``MatMul`` and ``BatchMatMulV2``).

MatMul multiplies two matrices, each transposed first when its flag says so; BatchMatMul does
the same over batch dimensions that broadcast, with adjoint flags. What they share is checked
once over both (``OPS``: the op and the batch dimensions of each input in the shared tests).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from opchecks import NUMBERS, assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.linalg import BatchMatMul, MatMul
from tfops.types import TFloat16, TFloat32, TFloat64, TType

HERE = f"created at {__file__}:"
FLAGS = [(False, False), (False, True), (True, False), (True, True)]
MATMUL, BATCH = f"MatMul 'MatMul' ({HERE}", f"BatchMatMulV2 'BatchMatMul' ({HERE}"


def matMul(tf: Ops, a: Any, b: Any, ta: bool = False, tb: bool = False) -> Any:
    return tf.linalg.matMul(a, b, MatMul.transposeA(ta), MatMul.transposeB(tb))


def batchMatMul(tf: Ops, x: Any, y: Any, adjX: bool = False, adjY: bool = False) -> Any:
    return tf.linalg.batchMatMul(x, y, BatchMatMul.adjX(adjX), BatchMatMul.adjY(adjY))


OPS = [pytest.param(matMul, (), (), id="MatMul"),
       pytest.param(batchMatMul, (2, 1), (3,), id="BatchMatMul")]


def stored(batch: tuple[int, ...], rows: int, cols: int, transposed: bool) -> tuple[int, ...]:
    """The shape of a batch of ``rows x cols`` matrices, stored transposed when flagged."""
    return (*batch, *((cols, rows) if transposed else (rows, cols)))


def sample(shape: tuple[int, ...], seed: int) -> Any:
    return np.random.default_rng(seed).normal(size=shape)


def f64(tf: Ops, *dims: int) -> Any:
    return placeholder(tf, TFloat64, dims)


# -- construction --------------------------------------------------------------------------
def test_flagsSetTheAttributesAndAreFalseByDefault(tf: Ops) -> None:
    a, b = tf.constant([[1.0, 2.0]]), tf.constant([[3.0], [4.0]])
    p = tf.linalg.matMul(a, b)
    assert (p.op().attr("transpose_a"), p.op().attr("transpose_b")) == (False, False)
    x, y = tf.constant(np.ones((2, 1, 3))), tf.constant(np.ones((2, 3, 1)))
    q = tf.linalg.batchMatMul(x, y)
    assert (q.op().attr("adj_x"), q.op().attr("adj_y")) == (False, False)
    p = matMul(tf, b, a, True, True)
    assert (p.op().attr("transpose_a"), p.op().attr("transpose_b")) == (True, True)
    q = batchMatMul(tf, x, y, True, True)
    assert (q.op().attr("adj_x"), q.op().attr("adj_y")) == (True, True)


@pytest.mark.parametrize(("ta", "tb"), FLAGS, ids=str)
@pytest.mark.parametrize(("op", "batchA", "batchB"), OPS)
def test_outputShapeFollowsTheFlags(
    tf: Ops, op: Any, batchA: tuple[int, ...], batchB: tuple[int, ...], ta: bool, tb: bool
) -> None:
    batch = (4,) if batchA else ()
    a, b = f64(tf, *stored(batch, 2, 3, ta)), f64(tf, *stored(batch, 3, 5, tb))
    assert op(tf, a, b, ta, tb).asOutput().shape() == Shape.of(*batch, 2, 5)


@pytest.mark.parametrize(
    ("op", "a", "b", "expected"),
    [
        (matMul, Shape.of(-1, 3), Shape.of(3, 4), Shape.of(-1, 4)),
        (matMul, Shape.of(2, -1), Shape.of(5, 4), Shape.of(2, 4)),
        (matMul, Shape.of(2, 3), Shape.of(-1, -1), Shape.of(2, -1)),
        (matMul, Shape.unknown(), Shape.of(3, 4), Shape.of(-1, 4)),
        (matMul, Shape.unknown(), Shape.unknown(), Shape.of(-1, -1)),
        (matMul, Shape.of(0, 3), Shape.of(3, 4), Shape.of(0, 4)),
        (batchMatMul, Shape.of(2, 3), Shape.of(3, 4), Shape.of(2, 4)),
        (batchMatMul, Shape.of(5, 2, 3), Shape.of(5, 3, 4), Shape.of(5, 2, 4)),
        (batchMatMul, Shape.of(5, 2, 3), Shape.of(3, 4), Shape.of(5, 2, 4)),
        (batchMatMul, Shape.of(2, 3), Shape.of(7, 3, 4), Shape.of(7, 2, 4)),
        (batchMatMul, Shape.of(6, 1, 2, 3), Shape.of(5, 3, 4), Shape.of(6, 5, 2, 4)),
        (batchMatMul, Shape.of(1, 2, 3), Shape.of(5, 3, 4), Shape.of(5, 2, 4)),
        (batchMatMul, Shape.of(0, 2, 3), Shape.of(3, 4), Shape.of(0, 2, 4)),
        (batchMatMul, Shape.of(-1, 2, 3), Shape.of(3, 4), Shape.of(-1, 2, 4)),
        (batchMatMul, Shape.of(-1, 2, 3), Shape.of(5, 3, 4), Shape.of(5, 2, 4)),
        (batchMatMul, Shape.of(4, -1, -1), Shape.of(4, -1, 6), Shape.of(4, -1, 6)),
        (batchMatMul, Shape.unknown(), Shape.of(3, 4), Shape.unknown()),
        (batchMatMul, Shape.of(2, 3), Shape.unknown(), Shape.unknown()),
    ],
    ids=str,
)
def test_staticShape(tf: Ops, op: Any, a: Shape, b: Shape, expected: Shape) -> None:
    p = op(tf, placeholder(tf, TFloat32, a), placeholder(tf, TFloat32, b))
    assert p.asOutput().shape() == expected


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", NUMBERS, ids=lambda t: t.NAME)
@pytest.mark.parametrize(("ta", "tb"), FLAGS, ids=str)
@pytest.mark.parametrize(("op", "batchA", "batchB"), OPS)
def test_kernelMatchesNumpy(
    tf: Ops, run: Any, op: Any, batchA: tuple[int, ...], batchB: tuple[int, ...],
    ta: bool, tb: bool, dtype: type[TType],
) -> None:
    rng = np.random.default_rng(3)
    # small non-negative integers: exact in every type, uint8 included
    a = rng.integers(0, 4, size=stored(batchA, 2, 3, ta))
    b = rng.integers(0, 4, size=stored(batchB, 3, 4, tb))
    p = op(tf, tf.constant(a.astype(dtype.DTYPE)), tf.constant(b.astype(dtype.DTYPE)), ta, tb)
    expected = np.matmul(np.swapaxes(a, -1, -2) if ta else a, np.swapaxes(b, -1, -2) if tb else b)
    assert p.asOutput().dataType() is dtype
    np.testing.assert_array_equal(run(p), expected.astype(dtype.DTYPE), strict=True)


@pytest.mark.parametrize(("op", "a", "b"), [(matMul, (3, 2), (2, 4)),
                                            (batchMatMul, (3, 1, 2, 4), (5, 4, 2))], ids=str)
def test_kernelOfFloat64(tf: Ops, run: Any, op: Any, a: Any, b: Any) -> None:
    a, b = sample(a, 0), sample(b, 1)
    np.testing.assert_allclose(run(op(tf, tf.constant(a), tf.constant(b))), a @ b, rtol=1e-14)


@pytest.mark.parametrize(
    ("op", "a", "b"),
    [(matMul, (0, 3), (3, 4)), (matMul, (2, 0), (0, 4)), (matMul, (2, 3), (3, 0)),
     (batchMatMul, (0, 2, 3), (3, 4))],
    ids=str,
)
def test_kernelOfEmptyInputs(tf: Ops, run: Any, op: Any, a: Any, b: Any) -> None:
    result = run(op(tf, tf.constant(np.ones(a)), tf.constant(np.ones(b))))
    np.testing.assert_array_equal(result, np.zeros(np.broadcast_shapes(a[:-2], b[:-2]) +
                                                    (a[-2], b[-1])), strict=True)


def test_kernelOfFedShapes(tf: Ops, run: Any) -> None:
    a, b = f64(tf, -1, 2), tf.placeholder(TFloat64)
    value = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert run(matMul(tf, a, b), feeds={a: value, b: np.eye(2)}).tolist() == value.tolist()
    x, y = tf.placeholder(TFloat64), tf.placeholder(TFloat64)
    result = run(batchMatMul(tf, x, y), feeds={x: np.ones((2, 1, 1, 3)), y: np.ones((4, 3, 1))})
    np.testing.assert_array_equal(result, np.full((2, 4, 1, 1), 3.0), strict=True)


@pytest.mark.parametrize(("op", "batch"), [(matMul, ()), (batchMatMul, (1,))], ids=str)
def test_halfPrecisionAccumulatesInSinglePrecision(
    tf: Ops, run: Any, op: Any, batch: tuple[int, ...]
) -> None:
    # adding 1 to 2048 one at a time in float16 stays at 2048; float32 sums reach 2050
    a = tf.constant(np.array([2048.0, 1.0, 1.0], np.float16).reshape(*batch, 1, 3))
    result = run(op(tf, a, tf.constant(np.ones((*batch, 3, 1), np.float16))))
    np.testing.assert_array_equal(result, np.full((*batch, 1, 1), 2050.0, np.float16),
                                  strict=True)


def test_integerProductsWrapAround(tf: Ops, run: Any) -> None:
    a = tf.constant(np.array([[16, 1]], np.uint8))
    b = tf.constant(np.array([[16], [3]], np.uint8))
    assert run(tf.linalg.matMul(a, b)).tolist() == [[3]]  # (256 + 3) mod 256


def test_kernelOfRankTwoBatchInputsIsAMatrixProduct(tf: Ops, run: Any) -> None:
    x, y = np.array([[1.0, 2.0]]), np.array([[3.0], [4.0]])
    assert run(tf.linalg.batchMatMul(tf.constant(x), tf.constant(y))).tolist() == [[11.0]]


# -- gradient ------------------------------------------------------------------------------
@pytest.mark.parametrize(("ta", "tb"), FLAGS, ids=str)
@pytest.mark.parametrize(
    ("op", "batchA", "batchB", "m", "k", "n"),
    [(matMul, (), (), 2, 3, 4), (matMul, (), (), 1, 1, 1), (matMul, (), (), 3, 1, 2),
     (matMul, (), (), 1, 4, 1), (batchMatMul, (2,), (2,), 2, 3, 2),
     (batchMatMul, (), (3,), 2, 3, 2), (batchMatMul, (2,), (), 2, 3, 2),
     (batchMatMul, (2, 1), (3,), 2, 3, 2), (batchMatMul, (1,), (2,), 2, 3, 2),
     (batchMatMul, (), (), 2, 3, 2)],
    ids=str,
)
def test_gradientMatchesFiniteDifferences(
    tf: Ops, op: Any, batchA: tuple[int, ...], batchB: tuple[int, ...], m: int, k: int, n: int,
    ta: bool, tb: bool,
) -> None:
    a, b = stored(batchA, m, k, ta), stored(batchB, k, n, tb)
    assertGradient(tf, lambda x, y: op(tf, x, y, ta, tb), [sample(a, 0), sample(b, 1)])


@pytest.mark.parametrize(
    ("op", "a", "b", "flags", "declared"),
    [(matMul, (2, 3), (3, 2), (False, False), [None, None]),
     (matMul, (2, 3), (2, 3), (False, True), [None, None]),
     (matMul, (3, 2), (3, 2), (True, False), [None, None]),
     (matMul, (3, 2), (2, 3), (True, True), [None, None]),
     (batchMatMul, (2, 1, 2, 3), (1, 3, 3, 2), (), [None, None]),  # the broadcast batch is summed
     (batchMatMul, (4, 2, 3), (3, 2), (), [Shape.of(-1, 2, 3), Shape.of(3, 2)])],
    ids=str,
)
def test_gradientWithoutStaticShapes(
    tf: Ops, op: Any, a: Any, b: Any, flags: tuple[bool, ...], declared: Any
) -> None:
    assertGradient(tf, lambda x, y: op(tf, x, y, *flags), [sample(a, 0), sample(b, 1)], declared)


def test_gradientIsTheIncomingGradientTimesTheOtherMatrix(tf: Ops, run: Any) -> None:
    a, b = tf.constant(np.array([[1.0, 2.0]])), tf.constant(np.array([[3.0], [4.0]]))
    grads = tf.gradients(tf.linalg.matMul(a, b), [a, b])
    da, db = grads.dy(0), grads.dy(1)
    assert da is not None and db is not None
    assert da.shape() == Shape.of(1, 2) and db.shape() == Shape.of(2, 1)
    assert run(da).tolist() == [[3.0, 4.0]] and run(db).tolist() == [[1.0], [2.0]]


def test_gradientOfABroadcastInputHasItsShape(tf: Ops, run: Any) -> None:
    x, y = tf.constant(np.ones((3, 1, 2))), tf.constant(np.ones((2, 1)))
    dy = tf.gradients(tf.linalg.batchMatMul(x, y), [y]).dy(0)
    assert dy is not None and dy.shape() == Shape.of(2, 1)
    assert run(dy).tolist() == [[3.0], [3.0]]  # summed over the batch of 3


def test_gradientKeepsHalfPrecision(tf: Ops, run: Any) -> None:
    a = tf.constant(np.ones((2, 2), np.float16))
    da = tf.gradients(tf.linalg.matMul(a, a), [a]).dy(0)
    assert da is not None and da.dataType() is TFloat16
    assert run(da).tolist() == [[4.0, 4.0], [4.0, 4.0]]


@pytest.mark.parametrize(("op", "a"), [(matMul, (2, 3)), (batchMatMul, (2, 2, 3))], ids=str)
def test_secondOrderGradientMatchesFiniteDifferences(tf: Ops, op: Any, a: Any) -> None:
    def firstDerivative(x: Any, y: Any) -> Any:
        p = op(tf, x, y)
        return tf.gradients(tf.sum(tf.math.square(p), list(range(len(a)))), [x]).dy(0)

    assertGradient(tf, firstDerivative, [sample(a, 0), sample((3, 2), 1)])


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("op", "a", "b", "flags", "error", "named", "fragment"),
    [
        (matMul, [[True]], [[True]], (), TypeError, MATMUL, "data type bool is not allowed"),
        (matMul, Shape.of(1, 1), np.ones((1, 1), np.float32), (), TypeError, MATMUL,
         "input 'b' has data type float32"),
        (matMul, Shape.of(2, 3), Shape.of(4, 2), (), ValueError, MATMUL,
         "inner dimensions differ: 3 and 4"),
        (matMul, Shape.of(3), Shape.of(3, 2), (), ValueError, MATMUL,
         "input 'a' must be a matrix (rank 2)"),
        (matMul, Shape.of(2, 3), Shape.of(2, 3, 4), (), ValueError, MATMUL,
         "input 'b' must be a matrix (rank 2)"),
        (matMul, Shape.of(2, 3), Shape.of(3, 4), (True, False), ValueError, MATMUL,
         "inner dimensions differ: 2 and 3"),
        (matMul, Shape.of(2, 3), [[1.0, 2.0]], (), ValueError, MATMUL,  # b converted, removed
         "inner dimensions differ: 3 and 1"),
        (batchMatMul, [[[True]]], [[[True]]], (), TypeError, BATCH,
         "data type bool is not allowed"),
        (batchMatMul, np.ones((1, 1), np.int32), Shape.of(1, 1), (), TypeError, BATCH,
         "input 'y' has data type float64"),
        (batchMatMul, Shape.of(2, 2, 3), Shape.of(2, 4, 2), (), ValueError, BATCH,
         "inner dimensions differ: 3 and 4"),
        (batchMatMul, Shape.of(2, 2, 3), Shape.of(3, 3, 2), (), ValueError, BATCH,
         "incompatible shapes"),
        (batchMatMul, Shape.of(3), Shape.of(3, 2), (), ValueError, BATCH, "rank 2 or more"),
        (batchMatMul, Shape.of(2, 3), Shape.scalar(), (), ValueError, BATCH, "rank 2 or more"),
        (batchMatMul, Shape.of(2, 3), Shape.of(3, 4), (True, False), ValueError, BATCH,
         "inner dimensions differ: 2 and 3"),
        (batchMatMul, Shape.of(2, 2, 3), np.ones((4, 3, 2)), (), ValueError, BATCH,
         "incompatible shapes"),
    ],
    ids=["matMulBool", "matMulMixed", "matMulInner", "matMulVector", "matMulRank3",
         "matMulTransposedInner", "matMulConvertedB", "batchBool", "batchMixed", "batchInner",
         "batchBroadcast", "batchVector", "batchScalar", "batchAdjointInner", "batchConvertedY"],
)
def test_badInputsAreRejected(
    graph: Graph, tf: Ops, op: Any, a: Any, b: Any, flags: tuple[bool, ...],
    error: type[Exception], named: str, fragment: str,
) -> None:
    a, b = (f64(tf, *v.asArray()) if isinstance(v, Shape) else v for v in (a, b))
    assertRejected(graph, lambda: op(tf, a, b, *flags), error, named, fragment)


@pytest.mark.parametrize(
    ("op", "a", "b", "fragment"),
    [
        (matMul, np.ones((2, 3)), np.ones((2, 3)),
         "matrix size-incompatible: a [2, 3] (transpose_a=False), b [2, 3]"),
        (matMul, np.ones(3), np.ones((3, 1)), "inputs must be matrices, got shapes [3] and [3, 1]"),
        (batchMatMul, np.ones((2, 2, 3)), np.ones((3, 3, 2)),
         "batch dimensions of x [2, 2, 3] and y [3, 3, 2] do not broadcast"),
        (batchMatMul, np.ones((2, 3)), np.ones((2, 3)), "inner dimensions differ: x [2, 3]"),
        (batchMatMul, np.ones(3), np.ones((3, 2)), "inputs must have rank 2 or more"),
    ],
    ids=["matMulInner", "matMulVector", "batchBroadcast", "batchInner", "batchVector"],
)
def test_incompatibleFedShapesRaiseInvalidArgumentError(
    tf: Ops, run: Any, op: Any, a: Any, b: Any, fragment: str
) -> None:
    x, y = tf.placeholder(TFloat64), tf.placeholder(TFloat64)
    p = op(tf, x, y)
    with pytest.raises(InvalidArgumentError) as info:
        run(p, feeds={x: a, y: b})
    assert info.value.op == p.op()
    assert fragment in str(info.value) and HERE in str(info.value)

