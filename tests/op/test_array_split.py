"""Split, SplitV, ReverseV2 (``Reverse``), ClipByValue and Where: numpy's split, flip and
argwhere, TensorFlow's clipping (values TensorFlow 2.21 gives, NaN included), their shape rules,
run-time checks and gradients (TensorFlow's rules, against finite differences)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import ALL, NUMBERS, assertGradient, assertMatches, assertRejected, placeholder

from tfops import Graph, Ops, Session, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.core import Gradients, SetDiff1d
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TInt64, TType

HERE = f"created at {__file__}:"


def sample(dtype: type[TType], shape: tuple[int, ...]) -> Any:
    values = np.arange(int(np.prod(shape))).reshape(shape)
    return values % 3 == 1 if dtype is TBool else values.astype(dtype.DTYPE)


def point(shape: tuple[int, ...]) -> Any:
    return (np.arange(int(np.prod(shape))) * 0.75 - 2.0).reshape(shape)


def fetchAll(run: Any, outputs: list[Any]) -> list[Any]:
    got = run(*outputs)
    return [got] if len(outputs) == 1 else list(got)


# -- Split ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "axis", "num", "expected"),
    [
        (Shape.of(4, 6), 1, 3, Shape.of(4, 2)),
        (Shape.of(4, 6), -2, 2, Shape.of(2, 6)),
        (Shape.of(4, -1), 1, 3, Shape.of(4, -1)),
        (Shape.of(0, 3), 0, 2, Shape.of(0, 3)),
        (Shape.of(4, 6), "fed", 2, Shape.of(-1, -1)),  # only the rank is known
        (Shape.unknown(), 0, 2, Shape.unknown()),
    ],
    ids=str,
)
def test_splitStaticShape(tf: Ops, value: Shape, axis: Any, num: int, expected: Shape) -> None:
    a = tf.placeholder(TInt32) if axis == "fed" else axis
    s = tf.split(a, placeholder(tf, TFloat32, value), num)
    assert len(s.output()) == num and s.op().attr("num_split") == num
    assert all(o.shape() == expected for o in s.output())


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(("shape", "axis", "num"),
                         [((4, 6), 1, 3), ((4, 6), -2, 4), ((5,), 0, 1), ((2, 0), 1, 2)], ids=str)
def test_splitMatchesNumpy(
    tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...], axis: int, num: int
) -> None:
    value = sample(dtype, shape)
    s = tf.split(tf.constant(axis), tf.constant(value), num)
    for got, expected in zip(fetchAll(run, s.output()), np.split(value, num, axis), strict=True):
        assertMatches(got, expected, dtype)


def test_splitWithAxisFedAtRunTime(tf: Ops, run: Any) -> None:
    axis = tf.placeholder(TInt32)
    a, b = tf.split(axis, tf.constant([[1, 2], [3, 4]]), 2)
    got = run(a, b, feeds={axis: np.array(-1, np.int32)})
    assert [v.tolist() for v in got] == [[[1], [3]], [[2], [4]]]


@pytest.mark.parametrize(("shape", "axis", "num", "use"),
                         [((4, 6), 1, 3, (0, 1, 2)), ((4, 3), 0, 2, (1,)), ((6,), -1, 3, (0, 2))],
                         ids=str)
def test_splitGradientMatchesFiniteDifferences(
    tf: Ops, shape: tuple[int, ...], axis: int, num: int, use: tuple[int, ...]
) -> None:
    def build(x: Any) -> Any:
        parts = tf.split(tf.constant(axis), x, num).output()
        return tf.math.addN([tf.math.square(parts[i]) for i in use])

    assertGradient(tf, build, [point(shape)])


@pytest.mark.parametrize(
    ("axis", "value", "num", "fragment"),
    [
        (2, np.zeros((2, 3)), 1, "split_dim 2 is out of range [-2, 2)"),
        (0, np.zeros((3, 2)), 2, "num_split 2 does not evenly divide dimension 0"),
        (0, np.zeros((3, 2)), 0, "num_split must be at least 1"),
        (0, 1.0, 1, "cannot split a scalar"),
        ([0], np.zeros((2, 2)), 1, "split_dim must be a scalar"),
    ],
    ids=["axisOutOfRange", "notDivisible", "zeroPieces", "scalar", "vectorAxis"],
)
def test_splitBadArgumentsAreRejected(
    graph: Graph, tf: Ops, axis: Any, value: Any, num: int, fragment: str
) -> None:
    assertRejected(graph, lambda: tf.split(axis, value, num), ValueError,
                   f"Split 'Split' ({HERE}", fragment)


def test_splitNotDivisibleAtRunTime(tf: Ops, run: Any) -> None:
    x = placeholder(tf, TFloat32, (-1,))
    s = tf.split(tf.constant(0), x, 2)
    with pytest.raises(InvalidArgumentError) as info:
        run(*s.output(), feeds={x: np.zeros(3, np.float32)})
    assert "num_split 2 does not evenly divide dimension 0 of the value (size 3" in str(info.value)
    assert info.value.op == s.op()


# -- SplitV --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "sizes", "axis", "expected"),
    [
        (Shape.of(4, 6), [1, 2, 3], 1, [Shape.of(4, 1), Shape.of(4, 2), Shape.of(4, 3)]),
        (Shape.of(4, 6), [1, -1], -1, [Shape.of(4, 1), Shape.of(4, 5)]),
        (Shape.of(-1, 6), [1, -1], 0, [Shape.of(1, 6), Shape.of(-1, 6)]),
        (Shape.of(4, 6), "fed", 1, [Shape.of(4, -1)] * 2),
        (Shape.of(4, 6), [2, 2], "fed", [Shape.of(-1, -1)] * 2),
        (Shape.unknown(), [2, 2], 0, [Shape.unknown()] * 2),
    ],
    ids=str,
)
def test_splitVStaticShape(
    tf: Ops, value: Shape, sizes: Any, axis: Any, expected: list[Shape]
) -> None:
    s = tf.splitV(placeholder(tf, TFloat32, value),
                  placeholder(tf, TInt64, (2,)) if sizes == "fed" else np.array(sizes),
                  tf.placeholder(TInt32) if axis == "fed" else axis, len(expected))
    assert [o.shape() for o in s.output()] == expected
    assert s.op().attr("Tlen") is TInt64


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(("shape", "sizes", "axis"),
                         [((4, 6), [1, 2, 3], 1), ((4, 6), [3, -1], 0), ((5,), [0, 5, 0], 0),
                          ((3, 2), [-1], -1)], ids=str)
def test_splitVMatchesNumpy(
    tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...], sizes: list[int], axis: int
) -> None:
    value = sample(dtype, shape)
    s = tf.splitV(tf.constant(value), tf.constant(np.array(sizes, np.int32)), tf.constant(axis),
                  len(sizes))
    total = shape[axis]
    resolved = [total - sum(k for k in sizes if k >= 0) if k == -1 else k for k in sizes]
    expected = np.split(value, np.cumsum(resolved)[:-1], axis)
    for got, want in zip(fetchAll(run, s.output()), expected, strict=True):
        assertMatches(got, want, dtype)


@pytest.mark.parametrize(("shape", "sizes", "axis"),
                         [((4, 6), [1, 2, 3], 1), ((5, 2), [2, -1], 0)], ids=str)
def test_splitVGradientMatchesFiniteDifferences(
    tf: Ops, shape: tuple[int, ...], sizes: list[int], axis: int
) -> None:
    def build(x: Any) -> Any:
        parts = tf.splitV(x, sizes, tf.constant(axis), len(sizes)).output()
        return tf.math.mul(parts[-1], parts[-1])

    assertGradient(tf, build, [point(shape)])


@pytest.mark.parametrize(
    ("sizes", "fragment"),
    [
        ([1, 2], "size_splits [1, 2] must sum to the size of the split dimension (4)"),
        ([5, -1], "size_splits [5, -1] must sum to the size of the split dimension (4)"),
        ([-1, -1], "only one entry of size_splits may be -1"),
        ([-2, 6], "size_splits[0] = -2 must be >= 0"),
    ],
    ids=["shortSum", "tooLarge", "twoUnknown", "negative"],
)
def test_splitVBadSizes(graph: Graph, tf: Ops, run: Any, sizes: list[int], fragment: str) -> None:
    assertRejected(graph, lambda: tf.splitV(np.zeros(4), np.array(sizes), 0, 2), ValueError,
                   f"SplitV 'SplitV' ({HERE}", fragment)
    fed = placeholder(tf, TInt32, (2,))
    s = tf.splitV(tf.constant(np.zeros(4)), fed, tf.constant(0), 2)
    with pytest.raises(InvalidArgumentError) as info:
        run(*s.output(), feeds={fed: np.array(sizes, np.int32)})
    assert fragment in str(info.value) and info.value.op == s.op()


def test_splitVSizesMustHaveNumSplitEntries(graph: Graph, tf: Ops) -> None:
    assertRejected(graph, lambda: tf.splitV(np.zeros(4), np.array([1, 3]), 0, 3), ValueError,
                   "size_splits has 2 entries but num_split is 3")


# -- ReverseV2 -----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(("shape", "axes"),
                         [((2, 3), [1]), ((2, 3, 4), [0, -1]), ((3,), []), ((2, 0), [0, 1])],
                         ids=str)
def test_reverseMatchesNumpyFlip(
    tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...], axes: list[int]
) -> None:
    value = sample(dtype, shape)
    r = tf.reverse(tf.constant(value), tf.constant(np.array(axes, np.int64)))
    assert r.asOutput().shape() == Shape.of(*shape) and r.op().attr("Tidx") is TInt64
    assertMatches(run(r), np.flip(value, tuple(axes)), dtype)


def test_reverseWithAxesFedAtRunTime(tf: Ops, run: Any) -> None:
    axes = tf.placeholder(TInt32)
    r = tf.reverse(tf.constant([[1, 2], [3, 4]]), axes)
    assert run(r, feeds={axes: np.array([0], np.int32)}).tolist() == [[3, 4], [1, 2]]


@pytest.mark.parametrize(("shape", "axes"), [((2, 3), [1]), ((2, 3, 2), [0, 2])], ids=str)
def test_reverseGradientMatchesFiniteDifferences(
    tf: Ops, shape: tuple[int, ...], axes: list[int]
) -> None:
    weights = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    assertGradient(tf, lambda x: tf.math.mul(tf.reverse(x, axes), weights), [point(shape)])


@pytest.mark.parametrize(
    ("value", "axes", "fragment"),
    [
        (np.zeros((2, 2)), [2], "axis[0] = 2 is out of range [-2, 2)"),
        (np.zeros((2, 2)), [0, -2], "axis 0 is given more than once in [0, -2]"),
        (np.zeros((2, 2)), [[0]], "axis must be a vector"),
        (np.zeros((1,) * 9), [0], "cannot reverse a tensor of rank 9 (at most 8)"),
    ],
    ids=["outOfRange", "repeated", "matrixAxis", "rank9"],
)
def test_reverseBadArgumentsAreRejected(
    graph: Graph, tf: Ops, value: Any, axes: Any, fragment: str
) -> None:
    assertRejected(graph, lambda: tf.reverse(value, axes), ValueError,
                   f"ReverseV2 'Reverse' ({HERE}", fragment)


def test_reverseRepeatedAxisFedAtRunTime(tf: Ops, run: Any) -> None:
    axes = tf.placeholder(TInt32)
    r = tf.reverse(tf.constant([[1, 2], [3, 4]]), axes)
    with pytest.raises(InvalidArgumentError, match=r"axis 1 is given more than once"):
        run(r, feeds={axes: np.array([1, -1], np.int32)})


# -- ClipByValue ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", NUMBERS, ids=lambda t: t.NAME)
def test_clipMatchesNumpyClip(tf: Ops, run: Any, dtype: type[TType]) -> None:
    value = sample(dtype, (3, 4))
    low, high = np.asarray(2, dtype.DTYPE), np.asarray(9, dtype.DTYPE)
    c = tf.clipByValue(tf.constant(value), tf.constant(low), tf.constant(high))
    assert c.asOutput().shape() == Shape.of(3, 4)
    assertMatches(run(c), np.clip(value, low, high), dtype)


def test_clipBoundsOfTheShapeOfT(tf: Ops, run: Any) -> None:
    c = tf.clipByValue(tf.constant([1, 5, 9]), tf.constant([2, 0, 0]), tf.constant([3, 4, 10]))
    assert run(c).tolist() == [2, 4, 9]


@pytest.mark.parametrize(
    ("t", "low", "high", "expected"),
    [  # what TensorFlow 2.21's CPU kernel gives
        ([np.nan, 1.0, -5.0, 7.0], 0.0, 3.0, [np.nan, 1.0, 0.0, 3.0]),
        ([2.0, 1.0], np.nan, 3.0, [2.0, 1.0]),
        ([2.0, 1.0], 0.0, np.nan, [2.0, 1.0]),
        ([2.0, 1.0, 5.0], 3.0, 1.0, [3.0, 3.0, 3.0]),
        ([np.inf, -np.inf], -1.0, 1.0, [1.0, -1.0]),
    ],
    ids=["nanT", "nanMin", "nanMax", "minAboveMax", "infinities"],
)
def test_clipCornerCasesAsTensorFlow(
    tf: Ops, run: Any, t: list[float], low: float, high: float, expected: list[float]
) -> None:
    c = tf.clipByValue(tf.constant(np.array(t, np.float32)), tf.constant(np.float32(low)),
                       tf.constant(np.float32(high)))
    assertMatches(run(c), np.array(expected, np.float32), TFloat32)


@pytest.mark.parametrize(
    ("low", "high"),
    [(np.float64(-1.0), np.float64(1.5)), (np.linspace(-1.0, 0.0, 6).reshape(2, 3),
                                           np.float64(1.0)),
     (np.float64(-0.5), np.linspace(0.3, 1.6, 6).reshape(2, 3))],
    ids=["scalars", "tensorMin", "tensorMax"],
)
def test_clipGradientMatchesFiniteDifferences(tf: Ops, low: Any, high: Any) -> None:
    x = point((2, 3)) + 0.1  # no element at a bound
    assertGradient(tf, lambda t, a, b: tf.math.square(tf.clipByValue(t, a, b)), [x, low, high])


def test_clipSecondDerivativeMatchesFiniteDifferences(tf: Ops) -> None:
    def firstDerivative(t: Any, a: Any) -> Any:
        y = tf.clipByValue(tf.math.mul(t, t), a, tf.constant(4.0, dtype=TFloat64))
        return tf.gradients(tf.sum(tf.math.mul(y, y), [0, 1]), [t]).dy(0)

    assertGradient(tf, firstDerivative, [point((2, 3)) + 0.1, np.full((2, 3), 0.5)])


def test_clipGradientGoesToTheBoundItWasClippedTo(tf: Ops, run: Any) -> None:
    t, low, high = tf.constant([-2.0, 0.5, 3.0, 4.0]), tf.constant(0.0), tf.constant(1.0)
    d = tf.gradients(tf.clipByValue(t, low, high), [t, low, high])
    got = run(d.dy(0), d.dy(1), d.dy(2))
    assert [v.tolist() for v in got] == [[0.0, 1.0, 0.0, 0.0], 1.0, 2.0]


@pytest.mark.parametrize(
    ("t", "low", "high", "fragment"),
    [
        (np.zeros(3), np.zeros(2), 1.0, "clip_value_min must be a scalar or have the shape of t"),
        (np.zeros((1, 3)), 0.0, np.zeros(3), "clip_value_max must be a scalar or have the shape"),
    ],
    ids=["minShape", "noBroadcast"],
)
def test_clipBadShapesAreRejected(
    graph: Graph, tf: Ops, t: Any, low: Any, high: Any, fragment: str
) -> None:
    assertRejected(graph, lambda: tf.clipByValue(t, low, high), ValueError,
                   f"ClipByValue 'ClipByValue' ({HERE}", fragment)


def test_clipBadShapesFedAtRunTime(tf: Ops, run: Any) -> None:
    low = tf.placeholder(TFloat32)
    c = tf.clipByValue(tf.constant([1.0, 2.0, 3.0]), low, tf.constant(2.0))
    with pytest.raises(InvalidArgumentError, match=r"must be scalars or have the shape of t"):
        run(c, feeds={low: np.zeros(2, np.float32)})


# -- Where ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(7,), (3, 4), (2, 3, 2), (0, 3)], ids=str)
def test_whereMatchesNumpyArgwhere(
    tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...]
) -> None:
    value = sample(dtype, shape) if dtype is TBool else sample(dtype, shape) % 3
    w = tf.where(tf.constant(value))
    assert w.asOutput().shape() == Shape.of(-1, len(shape))
    assert w.asOutput().dataType() is TInt64
    assertMatches(run(w), np.argwhere(value), TInt64)


def test_whereCountsNanButNotNegativeZero(tf: Ops, run: Any) -> None:
    w = tf.where(tf.constant([[0.0, np.nan], [1.0, -0.0]]))
    assert run(w).tolist() == [[0, 1], [1, 0]]


def test_whereOfAFedValue(tf: Ops, run: Any) -> None:
    x = tf.placeholder(TBool)
    w = tf.where(x)
    assert w.asOutput().shape() == Shape.of(-1, -1)
    assert run(w, feeds={x: np.array([False, True, True])}).tolist() == [[1], [2]]


def test_whereIsNotDifferentiable(tf: Ops) -> None:
    x = tf.constant([1.0, 0.0])
    assert tf.gradients(tf.dtypes.cast(tf.where(x), TFloat64), [x]).dy(0) is None


def test_whereOfAScalarIsRejected(graph: Graph, tf: Ops, run: Any) -> None:
    assertRejected(graph, lambda: tf.where(True), ValueError, f"Where 'Where' ({HERE}",
                   "input must have at least one dimension, got a scalar")
    x = tf.placeholder(TBool)
    with pytest.raises(InvalidArgumentError, match="at least one dimension"):
        run(tf.where(x), feeds={x: np.array(True)})


# -- ListDiff ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", NUMBERS, ids=lambda t: t.NAME)
@pytest.mark.parametrize(("x", "y"), [([1, 2, 3, 4, 2, 6], [2, 5, 1]), ([3, 1], []), ([], [1]),
                                      ([5, 5], [5])], ids=str)
def test_setDiff1dMatchesNumpy(
    tf: Ops, run: Any, dtype: type[TType], x: list[int], y: list[int]
) -> None:
    xs, ys = np.array(x, dtype.DTYPE), np.array(y, dtype.DTYPE)
    d = tf.setDiff1d(tf.constant(xs), tf.constant(ys))
    assert d.out().shape() == Shape.of(-1) and d.idx().dataType() is TInt32
    out, idx = run(d.out(), d.idx())
    kept = [i for i, v in enumerate(x) if v not in y]
    assertMatches(out, xs[kept], dtype)
    assertMatches(idx, np.array(kept, np.int32), TInt32)


def test_setDiff1dOutIdxAndFedValues(tf: Ops, run: Any) -> None:
    x = tf.placeholder(TFloat64)
    d = tf.setDiff1d(x, tf.constant(np.array([0.0, np.nan])), outIdx=TInt64)
    assert d.op().attr("out_idx") is TInt64
    out, idx = run(d.out(), d.idx(), feeds={x: np.array([-0.0, np.nan, 2.0, 0.0])})
    # as TensorFlow 2.21: -0.0 equals 0.0, NaN equals nothing
    assert np.array_equal(out, [np.nan, 2.0], equal_nan=True)
    assertMatches(idx, np.array([1, 2]), TInt64)


def test_setDiff1dIsNotDifferentiable(tf: Ops) -> None:
    x = tf.constant([1.0, 2.0])
    assert tf.gradients(tf.setDiff1d(x, tf.constant([2.0])).out(), [x]).dy(0) is None


@pytest.mark.parametrize(
    ("x", "y", "error", "fragment"),
    [([[1, 2]], [2], ValueError, "x must be a vector"),
     ([1, 2], 2, ValueError, "y must be a vector"),
     ([True], [False], TypeError, "data type bool is not allowed")],
    ids=["matrixX", "scalarY", "bool"],
)
def test_setDiff1dBadArgumentsAreRejected(
    graph: Graph, tf: Ops, x: Any, y: Any, error: type[Exception], fragment: str
) -> None:
    assertRejected(graph, lambda: tf.setDiff1d(x, y), error, f"ListDiff 'SetDiff1d' ({HERE}",
                   fragment)


def test_setDiff1dOfAFedMatrixFailsAtRunTime(tf: Ops, run: Any) -> None:
    x = tf.placeholder(TInt32)
    d = tf.setDiff1d(x, tf.constant([1]))
    with pytest.raises(InvalidArgumentError, match="x must be a vector, got shape"):
        run(d.out(), feeds={x: np.zeros((2, 2), np.int32)})


# -- against TensorFlow (tests/fixtures/tf/arrays.npz, written by make_arrays.py) ----------
TF = np.load(Path(__file__).parents[1] / "fixtures" / "tf" / "arrays.npz")


@pytest.mark.parametrize("dtype", NUMBERS, ids=lambda t: t.NAME)
def test_clipMatchesTensorFlow(tf: Ops, run: Any, dtype: type[TType]) -> None:
    key = f"clip_{np.dtype(dtype.DTYPE).name}"
    c = tf.clipByValue(tf.constant(TF[f"{key}_t"]), tf.constant(TF[f"{key}_lo"]),
                       tf.constant(TF[f"{key}_hi"]))
    assertMatches(run(c), TF[f"{key}_out"], dtype)


def test_clipGradientMatchesTensorFlow(tf: Ops, run: Any) -> None:
    t, lo, hi = (tf.constant(TF[f"clipgrad_{k}"]) for k in ("t", "lo", "hi"))
    seed = Gradients.dx([tf.constant(TF["clipgrad_seed"])])
    d = tf.gradients(tf.clipByValue(t, lo, hi), [t, lo, hi], seed)
    for i, k in enumerate(("dt", "dlo", "dhi")):
        assertMatches(run(d.dy(i)), TF[f"clipgrad_{k}"], TFloat64)


@pytest.mark.parametrize("kind", ["bool", "float"])
def test_whereMatchesTensorFlow(tf: Ops, run: Any, kind: str) -> None:
    w = tf.where(tf.constant(TF[f"where_{kind}_in"]))
    assertMatches(run(w), TF[f"where_{kind}_out"], TInt64)


def test_setDiff1dMatchesTensorFlow(tf: Ops, run: Any) -> None:
    d = tf.setDiff1d(tf.constant(TF["listdiff_x"]), tf.constant(TF["listdiff_y"]),
                     SetDiff1d.outIdx(TInt64))
    out, idx = run(d.out(), d.idx())
    assertMatches(out, TF["listdiff_out"], TInt64)
    assertMatches(idx, TF["listdiff_idx"], TInt64)


def test_whereOfAVariableOnXlaMustBeKnownWhenCompiled(
    tf: Ops, session: Session, backend: str
) -> None:
    v = tf.variable(tf.constant([1.0, -1.0, 2.0]))
    w = tf.where(tf.math.greater(v, tf.constant(0.0)))
    session.initialize()
    if backend == "numpy":
        assert session.runner().fetch(w).run()[0].tolist() == [[0], [2]]
        return
    with pytest.raises(InvalidArgumentError) as info:  # its result's size is a value of state
        session.runner().fetch(w).run()
    assert "must be known when the request is compiled" in str(info.value)
    assert info.value.op == w.op()
