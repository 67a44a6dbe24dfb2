"""The inverses and solvers (op types ``MatrixInverse``, ``MatrixDeterminant``, ``MatrixSolve``,
``MatrixTriangularSolve``): TF Java's ``Inv``, ``Det``, ``Solve`` and ``TriangularSolve``. The
factorizations are in ``test_linalg_factor.py``.

Their values are compared with TensorFlow's (``tests/fixtures/tf/linalg.npz``, written by
``make_linalg.py``: the sign of a singular determinant, the errors, TensorFlow's gradients) and
with numpy's; their gradients with finite differences in float64.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import RTOL, assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.types import TFloat16, TFloat32, TFloat64, TType

HERE = f"created at {__file__}:"
TF = np.load(Path(__file__).parent.parent / "fixtures" / "tf" / "linalg.npz")


def named(opType: str, name: str) -> str:
    return f"{opType} '{name}' ({HERE}"


def describe(value: Any) -> str:
    """A test id: a builder by its name, anything else as it prints."""
    return str(getattr(value, "__name__", value))


def sample(seed: int, *shape: int) -> Any:
    return np.random.default_rng(seed).normal(size=shape)


def wellConditioned(seed: int, *shape: int) -> Any:
    return sample(seed, *shape) + 3 * np.eye(shape[-1])


def fed(tf: Ops, value: Any, shape: Shape | None = None) -> tuple[Any, dict[Any, Any]]:
    """A placeholder of ``value``'s data type (static shape ``shape``, default unknown) and the
    feed that gives it ``value``: the op runs on the backend, not folded."""
    dtype = {np.float16: TFloat16, np.float32: TFloat32, np.float64: TFloat64}[value.dtype.type]
    p = placeholder(tf, dtype, shape)
    return p, {p: value}


def inv(tf: Ops, x: Any, adjoint: bool = False) -> Any:
    return tf.linalg.inv(x, adjoint=adjoint)


def solve(tf: Ops, a: Any, b: Any, adjoint: bool = False) -> Any:
    return tf.linalg.solve(a, b, adjoint=adjoint)


def tri(tf: Ops, a: Any, b: Any, lower: bool = True, adjoint: bool = False) -> Any:
    return tf.linalg.triangularSolve(a, b, lower=lower, adjoint=adjoint)


# -- construction --------------------------------------------------------------------------
def test_attributesHaveTensorFlowsDefaults(tf: Ops) -> None:
    m = tf.constant(np.eye(2))
    assert tf.linalg.inv(m).op().attr("adjoint") is False
    assert tf.linalg.solve(m, m).op().attr("adjoint") is False
    t = tf.linalg.triangularSolve(m, m).op()
    assert (t.attr("lower"), t.attr("adjoint")) == (True, False)
    assert inv(tf, m, True).op().attr("adjoint") is True


@pytest.mark.parametrize(
    ("build", "shapes", "expected"),
    [
        (inv, [Shape.of(2, 3, 3)], [Shape.of(2, 3, 3)]),
        (inv, [Shape.of(-1, 3, -1)], [Shape.of(-1, 3, 3)]),
        (inv, [Shape.unknown()], [Shape.unknown()]),
        (lambda tf, x: tf.linalg.det(x), [Shape.of(4, 2, 2)], [Shape.of(4)]),
        (lambda tf, x: tf.linalg.det(x), [Shape.of(2, 2)], [Shape.scalar()]),
        (lambda tf, x: tf.linalg.det(x), [Shape.of(-1, 5, -1, -1)], [Shape.of(-1, 5)]),
        (lambda tf, x: tf.linalg.det(x), [Shape.unknown()], [Shape.unknown()]),
        (solve, [Shape.of(2, 3, 3), Shape.of(2, 3, 5)], [Shape.of(2, 3, 5)]),
        (solve, [Shape.of(-1, -1, -1), Shape.of(2, 3, 5)], [Shape.of(2, 3, 5)]),
        (solve, [Shape.of(2, -1, 3), Shape.of(-1, -1, -1)], [Shape.of(2, 3, -1)]),
        (solve, [Shape.unknown(), Shape.of(3, 1)], [Shape.of(3, 1)]),
        (solve, [Shape.unknown(), Shape.of(5, 3, 1)], [Shape.of(5, 3, 1)]),
        (solve, [Shape.of(4, 2, 2), Shape.unknown()], [Shape.of(4, 2, -1)]),
        (solve, [Shape.unknown(), Shape.unknown()], [Shape.unknown()]),
        (tri, [Shape.of(2, 1, 3, 3), Shape.of(4, 3, 2)], [Shape.of(2, 4, 3, 2)]),
        (tri, [Shape.of(3, 3), Shape.of(-1, 3, 2)], [Shape.of(-1, 3, 2)]),
        (tri, [Shape.of(-1, -1), Shape.of(3, 2)], [Shape.of(3, 2)]),
        (tri, [Shape.of(3, 3), Shape.unknown()], [Shape.unknown()]),
    ],
    ids=describe,
)
def test_staticShape(tf: Ops, build: Any, shapes: list[Shape], expected: list[Shape]) -> None:
    result = build(tf, *(placeholder(tf, TFloat64, s) for s in shapes))
    assert [result.asOutput().shape()] == expected


# -- kernels against TensorFlow ------------------------------------------------------------
FIXTURES = [
    ("inv", inv, ()), ("invAdjoint", inv, (True,)), ("invFloat32", inv, ()),
    ("invHalf", inv, ()),
    ("det", lambda tf, x: tf.linalg.det(x), ()),
    ("detFloat32", lambda tf, x: tf.linalg.det(x), ()),
    ("detSingular3", lambda tf, x: tf.linalg.det(x), ()),
    ("detEmpty", lambda tf, x: tf.linalg.det(x), ()),
]


def close(got: Any, expected: Any) -> None:
    assert got.dtype == expected.dtype and got.shape == expected.shape
    tolerance = RTOL[{np.float16: TFloat16, np.float32: TFloat32,
                      np.float64: TFloat64}[expected.dtype.type]]
    # float32 results of matrix algorithms are as good as float32's precision times a
    # condition number: compared with TensorFlow's to 1e-5
    tolerance = max(tolerance, 1e-5) if expected.dtype == np.float32 else tolerance
    np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance, equal_nan=True)


@pytest.mark.parametrize(("case", "build", "flags"), FIXTURES, ids=[f[0] for f in FIXTURES])
def test_unaryKernelMatchesTensorFlow(
    tf: Ops, run: Any, case: str, build: Any, flags: tuple[bool, ...]
) -> None:
    x, feeds = fed(tf, TF[f"{case}.x"])
    close(run(build(tf, x, *flags), feeds=feeds), TF[f"{case}.y"])


SOLVES = [("solve", solve, ()), ("solveAdjoint", solve, (True,)), ("solveFloat32", solve, ()),
          ("triLower", tri, ()), ("triLowerAdjoint", tri, (True, True)),
          ("triUpper", tri, (False,)), ("triUpperAdjoint", tri, (False, True)),
          ("triBroadcast", tri, ()), ("triSingular", tri, ())]


@pytest.mark.parametrize(("case", "build", "flags"), SOLVES, ids=[f[0] for f in SOLVES])
def test_solveKernelMatchesTensorFlow(
    tf: Ops, run: Any, case: str, build: Any, flags: tuple[bool, ...]
) -> None:
    a, feeds = fed(tf, TF[f"{case}.x"])
    b, more = fed(tf, TF[f"{case}.rhs"])
    close(run(build(tf, a, b, *flags), feeds=feeds | more), TF[f"{case}.y"])


def test_determinantOfASingularMatrixHasTensorFlowsSign(tf: Ops, run: Any) -> None:
    # the pivots' product, negated per row exchange: [[1, 2], [2, 4]] exchanges its rows
    x, feeds = fed(tf, TF["detSingular.x"])
    got = run(tf.linalg.det(x), feeds=feeds)
    np.testing.assert_array_equal(got, TF["detSingular.y"], strict=True)
    assert np.signbit(got).tolist() == np.signbit(TF["detSingular.y"]).tolist() == [
        True, False, False, False]


# -- kernels against numpy -----------------------------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch", [(), (3,), (2, 2)], ids=str)
def test_kernelsMatchNumpy(tf: Ops, run: Any, batch: tuple[int, ...], dtype: Any) -> None:
    a = wellConditioned(0, *batch, 4, 4).astype(dtype)
    b = sample(1, *batch, 4, 2).astype(dtype)
    (pa, fa), (pb, fb) = fed(tf, a), fed(tf, b)
    got = run(tf.linalg.inv(pa), tf.linalg.det(pa), tf.linalg.solve(pa, pb),
              tf.linalg.triangularSolve(pa, pb, lower=False), feeds=fa | fb)
    expected = [np.linalg.inv(a), np.linalg.det(a), np.linalg.solve(a, b),
                np.linalg.solve(np.triu(a), b)]
    for g, e in zip(got, expected, strict=True):
        close(g, np.asarray(e, dtype))


def test_triangularSolveReadsItsTriangleOnly(tf: Ops, run: Any) -> None:
    a, b = wellConditioned(6, 3, 3), sample(7, 3, 2)
    (pa, fa), (pb, fb) = fed(tf, a), fed(tf, b)
    lower, upper = run(tri(tf, pa, pb), tri(tf, pa, pb, lower=False), feeds=fa | fb)
    close(lower, np.linalg.solve(np.tril(a), b))
    close(upper, np.linalg.solve(np.triu(a), b))


@pytest.mark.parametrize(
    ("build", "inputs", "expected"),
    [
        (inv, [(2, 0, 0)], np.zeros((2, 0, 0))),
        (lambda tf, x: tf.linalg.det(x), [(0, 3, 3)], np.zeros(0)),
        (solve, [(0, 0), (0, 3)], np.zeros((0, 3))),
        (solve, [(2, 2), (2, 0)], np.zeros((2, 0))),
        (tri, [(0, 0), (0, 3)], np.zeros((0, 3))),
        (tri, [(0, 2, 2), (2, 1)], np.zeros((0, 2, 1))),
    ],
    ids=describe,
)
def test_emptyInputs(tf: Ops, run: Any, build: Any, inputs: Any, expected: Any) -> None:
    pairs = [fed(tf, np.ones(s)) for s in inputs]
    feeds = {k: v for _, f in pairs for k, v in f.items()}
    got = run(build(tf, *(p for p, _ in pairs)), feeds=feeds)
    np.testing.assert_array_equal(got, expected, strict=True)


# -- run-time errors -----------------------------------------------------------------------
SINGULAR = np.array([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]])
WITH_NAN = np.array([[np.nan, 1.0], [1.0, 1.0]])  # TensorFlow finds it not invertible too
# TensorFlow takes the smallest absolute pivot as Eigen does, from the first on: a first pivot
# of NaN stays the minimum (not invertible), a later one does not (NaNs come out); TF 2.21 read
NAN_FIRST = np.array([[np.nan, 0.0], [0.0, 2.0]])
NAN_LATER = np.array([[2.0, 0.0], [0.0, np.nan]])


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda tf, x: inv(tf, x), "Input is not invertible."),
        (lambda tf, x: inv(tf, x, True), "Input is not invertible."),
        (lambda tf, x: tf.linalg.solve(x, tf.constant(np.ones((2, 2, 1)))),
         "Input matrix is not invertible."),
        (lambda tf, x: tf.linalg.det(tf.linalg.inv(x)), "Input is not invertible."),
    ],
    ids=["inv", "invAdjoint", "solve", "detOfInv"],
)
@pytest.mark.parametrize(
    "value", [SINGULAR, WITH_NAN, NAN_FIRST], ids=["singular", "nan", "nanFirstPivot"]
)
def test_singularMatrixRaisesInvalidArgumentError(
    tf: Ops, run: Any, build: Any, message: str, value: Any
) -> None:
    x, feeds = fed(tf, value if value.ndim == 3 else np.stack([value, value]))
    with pytest.raises(InvalidArgumentError) as info:
        run(build(tf, x), feeds=feeds)
    assert message in str(info.value) and HERE in str(info.value)


@pytest.mark.parametrize(
    "build",
    [lambda tf, x: inv(tf, x), lambda tf, x: tf.linalg.solve(x, tf.constant(np.ones((2, 2, 1))))],
    ids=["inv", "solve"],
)
def test_aNanPivotAfterTheFirstGivesNans(tf: Ops, run: Any, build: Any) -> None:
    x, feeds = fed(tf, np.stack([NAN_LATER, NAN_LATER]))
    assert np.isnan(run(build(tf, x), feeds=feeds)).all()


def test_gradientOfTheDeterminantOfASingularMatrixFailsAsTensorFlows(tf: Ops, run: Any) -> None:
    x, feeds = fed(tf, SINGULAR[1])
    dx = tf.gradients(tf.linalg.det(x), [x]).dy(0)
    with pytest.raises(InvalidArgumentError, match="Input is not invertible"):
        run(dx, feeds=feeds)


@pytest.mark.parametrize(
    ("build", "values", "fragment"),
    [
        (inv, [np.ones((2, 3))], "input 'input' must be a batch of square matrices"),
        (inv, [np.ones(3)], "input 'input' must have rank 2 or more"),
        (solve, [np.eye(2), np.ones((3, 1))], "Input matrix and rhs are incompatible"),
        (solve, [np.ones((2, 2, 2)), np.ones((2, 1))], "All input tensors must have the same rank"),
        (tri, [np.eye(2), np.ones((3, 1))], "Input matrix and rhs are incompatible"),
        (tri, [np.ones((2, 2, 2)), np.ones((3, 2, 1))], "do not broadcast"),
    ],
    ids=["invNotSquare", "invVector", "solveRows", "solveRank", "triRows", "triBatch"],
)
def test_incompatibleFedShapesRaiseInvalidArgumentError(
    tf: Ops, run: Any, build: Any, values: list[Any], fragment: str
) -> None:
    pairs = [fed(tf, v) for v in values]
    feeds = {k: v for _, f in pairs for k, v in f.items()}
    result = build(tf, *(p for p, _ in pairs))
    with pytest.raises(InvalidArgumentError) as info:
        run(result, feeds=feeds)
    assert fragment in str(info.value) and HERE in str(info.value)


# -- gradients -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("build", "values"),
    [
        (lambda tf, x: inv(tf, x), [wellConditioned(0, 2, 3, 3)]),
        (lambda tf, x: inv(tf, x, True), [wellConditioned(1, 3, 3)]),
        (lambda tf, x: tf.linalg.det(x), [sample(2, 2, 3, 3)]),
        (lambda tf, x: tf.linalg.det(x), [sample(3, 1, 1)]),
        (lambda tf, a, b: solve(tf, a, b), [wellConditioned(4, 2, 3, 3), sample(5, 2, 3, 2)]),
        (lambda tf, a, b: solve(tf, a, b, True), [wellConditioned(6, 3, 3), sample(7, 3, 1)]),
        (lambda tf, a, b: tri(tf, a, b), [wellConditioned(8, 3, 3), sample(9, 3, 2)]),
        (lambda tf, a, b: tri(tf, a, b, True, True), [wellConditioned(10, 3, 3),
                                                      sample(11, 3, 2)]),
        (lambda tf, a, b: tri(tf, a, b, False), [wellConditioned(12, 2, 3, 3),
                                                 sample(13, 2, 3, 2)]),
        (lambda tf, a, b: tri(tf, a, b, False, True), [wellConditioned(14, 3, 3),
                                                       sample(15, 3, 2)]),
        (lambda tf, a, b: tri(tf, a, b), [wellConditioned(16, 2, 1, 3, 3),
                                          sample(17, 3, 3, 2)]),
    ],
    ids=["inv", "invAdjoint", "det", "det1x1", "solve", "solveAdjoint", "triLower",
         "triLowerAdjoint", "triUpper", "triUpperAdjoint", "triBroadcast"],
)
def test_gradientMatchesFiniteDifferences(tf: Ops, build: Any, values: list[Any]) -> None:
    assertGradient(tf, lambda *xs: build(tf, *xs), values)


def test_gradientsWithUnknownShapes(tf: Ops) -> None:
    a, b = wellConditioned(26, 2, 3, 3), sample(27, 2, 3, 2)
    unknown = [Shape.unknown(), Shape.unknown()]
    assertGradient(tf, lambda x, y: tri(tf, x, y), [a, b], unknown)
    assertGradient(tf, lambda x, y: solve(tf, x, y), [a, b], unknown)


def test_secondOrderGradientMatchesFiniteDifferences(tf: Ops) -> None:
    def firstDerivative(a: Any, b: Any) -> Any:
        x = tf.linalg.solve(tf.linalg.inv(a), tri(tf, a, b))
        return tf.gradients(tf.sum(tf.math.square(x), tf.constant([0, 1])), [a]).dy(0)

    assertGradient(tf, firstDerivative, [wellConditioned(29, 3, 3), sample(30, 3, 2)])


GRADIENTS = ["inv", "invAdjoint", "det", "solve", "solveAdjoint", "triLower",
             "triLowerAdjoint", "triUpper", "triUpperAdjoint", "triBroadcast"]
BUILDERS: dict[str, Any] = {
    "inv": inv, "invAdjoint": lambda tf, x: inv(tf, x, True),
    "det": lambda tf, x: tf.linalg.det(x),
    "solve": solve, "solveAdjoint": lambda tf, a, b: solve(tf, a, b, True),
    "triLower": tri, "triLowerAdjoint": lambda tf, a, b: tri(tf, a, b, True, True),
    "triUpper": lambda tf, a, b: tri(tf, a, b, False),
    "triUpperAdjoint": lambda tf, a, b: tri(tf, a, b, False, True), "triBroadcast": tri,
}


@pytest.mark.parametrize("case", GRADIENTS)
def test_gradientMatchesTensorFlow(tf: Ops, run: Any, case: str) -> None:
    inputs = [TF[f"{case}.x"]] + ([TF[f"{case}.rhs"]] if f"{case}.rhs" in TF else [])
    pairs = [fed(tf, v, Shape.of(*v.shape)) for v in inputs]
    xs = [p for p, _ in pairs]
    y = BUILDERS[case](tf, *xs)
    loss = tf.math.mul(y, tf.constant(TF[f"{case}.w"]))
    grads = tf.gradients(tf.sum(loss, tf.constant(list(range(TF[f"{case}.w"].ndim)))), xs)
    feeds = {k: v for _, f in pairs for k, v in f.items()}
    got = run(*(grads.dy(i) for i in range(len(xs))), feeds=feeds)
    got = [got] if len(xs) == 1 else got
    for g, name in zip(got, ["dx", "drhs"], strict=False):
        close(g, TF[f"{case}.{name}"])


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("build", "shapes", "dtype", "error", "named", "fragment"),
    [
        (inv, [Shape.of(2, 3)], TFloat64, ValueError, named("MatrixInverse", "MatrixInverse"),
         "must be a batch of square matrices, got shape [2, 3]"),
        (inv, [Shape.of(3)], TFloat64, ValueError, named("MatrixInverse", "MatrixInverse"),
         "input 'input' must have rank 2 or more"),
        (lambda tf, x: tf.linalg.det(x), [Shape.of(4, 2, 3)], TFloat64, ValueError,
         named("MatrixDeterminant", "MatrixDeterminant"), "square matrices"),
        (lambda tf, x: tf.linalg.det(x), [Shape.of(2, 2)], TFloat16, TypeError,
         named("MatrixDeterminant", "MatrixDeterminant"), "data type float16 is not allowed"),
        (solve, [Shape.of(2, 2), Shape.of(3, 1)], TFloat64, ValueError,
         named("MatrixSolve", "MatrixSolve"), "differ in their rows: 2 and 3"),
        (solve, [Shape.of(2, 2, 2), Shape.of(3, 2, 1)], TFloat64, ValueError,
         named("MatrixSolve", "MatrixSolve"), "differ in their batch dimension 0: 2 and 3"),
        (solve, [Shape.of(2, 2, 2), Shape.of(2, 1)], TFloat64, ValueError,
         named("MatrixSolve", "MatrixSolve"), "must have the same rank"),
        (solve, [Shape.of(2, 2), Shape.of(2)], TFloat64, ValueError,
         named("MatrixSolve", "MatrixSolve"), "input 'rhs' must have rank 2 or more"),
        (solve, [Shape.of(2, 2), Shape.of(2, 1)], TFloat16, TypeError,
         named("MatrixSolve", "MatrixSolve"), "data type float16 is not allowed"),
        (tri, [Shape.of(3, 2), Shape.of(3, 1)], TFloat64, ValueError,
         named("MatrixTriangularSolve", "MatrixTriangularSolve"), "square matrices"),
        (tri, [Shape.of(2, 2), Shape.of(3, 1)], TFloat64, ValueError,
         named("MatrixTriangularSolve", "MatrixTriangularSolve"), "differ in their rows"),
        (tri, [Shape.of(2, 2, 2), Shape.of(3, 2, 1)], TFloat64, ValueError,
         named("MatrixTriangularSolve", "MatrixTriangularSolve"), "incompatible shapes"),
    ],
    ids=["invNotSquare", "invVector", "detNotSquare", "detHalf", "solveRows", "solveBatch",
         "solveRank", "solveVector", "solveHalf", "triNotSquare", "triRows", "triBatch"],
)
def test_badInputsAreRejected(
    graph: Graph, tf: Ops, build: Any, shapes: list[Shape], dtype: type[TType],
    error: type[Exception], named: str, fragment: str,
) -> None:
    xs = [placeholder(tf, dtype, s) for s in shapes]
    assertRejected(graph, lambda: build(tf, *xs), error, named, fragment)


def test_mixedDataTypesAreRejected(graph: Graph, tf: Ops) -> None:
    a, b = placeholder(tf, TFloat64, Shape.of(2, 2)), placeholder(tf, TFloat32, Shape.of(2, 1))
    assertRejected(graph, lambda: tf.linalg.solve(a, b), TypeError,
                   named("MatrixSolve", "MatrixSolve"), "input 'rhs' has data type float32")
