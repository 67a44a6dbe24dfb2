"""Python operators on operands (``x + y``, ``x[1:, ::2]``...), against numpy, on both backends."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Output, Session
from tfops.errors import DataTypeError
from tfops.types import TFloat32, TFloat64, TInt32, TType

X = np.arange(-12, 12, dtype=np.float64).reshape(2, 3, 4) / 4.0
A = np.arange(24, dtype=np.float64).reshape(2, 3, 4)


@pytest.fixture(params=["numpy", "xla"])
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


def _run(graph: Graph, backend: str, *fetches: Any) -> list[np.ndarray[Any, Any]]:
    with Session(graph, backend=backend) as s:
        runner = s.runner()
        for f in fetches:
            runner = runner.fetch(f)
        result = runner.run()
        return [result.get(i) for i in range(len(fetches))]


# -- slicing: TF Python's __getitem__ ----------------------------------------------------------
INDICES: list[Any] = [
    0, 1, -1, -2, slice(None), slice(1, None), slice(None, 1), slice(None, None, -1),
    slice(None, None, 2), slice(-1, None), slice(5, 9), slice(-9, -5),
    (0, 0), (1, 2, 3), (-1, -1, -1), (0, slice(None), 1), (slice(None), 0),
    (slice(None), slice(None), 0), (slice(None), slice(1, 3)), (slice(None), slice(None, None, -1)),
    (slice(None), slice(None), slice(None, None, -2)), (slice(None), slice(2, 0, -1)),
    (slice(1, None, -1), slice(None), slice(3, None, -2)), Ellipsis, (Ellipsis, 0),
    (Ellipsis, -1), (0, Ellipsis), (Ellipsis, slice(1, 3)), (0, Ellipsis, 0),
    (slice(None), Ellipsis, slice(None, None, 3)), None, (None, 0), (0, None), (Ellipsis, None),
    (None, Ellipsis, None), (slice(None), None, slice(None), None), (0, None, slice(1, None)),
    (1, slice(None, None, -1), None, -1), (np.int32(1), np.int64(-1)), (slice(np.int64(1), None),),
    (slice(0, 0),), (slice(None), slice(3, 1)), (slice(-100, 100),), (0, 0, slice(None, None, 3)),
]


@pytest.mark.parametrize("index", INDICES, ids=repr)
def test_slicingIsNumpysSlicing(backend: str, index: Any) -> None:
    g = Graph()
    tf = Ops.create(g)
    x = tf.constant(X)
    sliced = x[index]
    assert type(sliced).__name__ == "StridedSlice"
    expected = X[index]
    assert tuple(sliced.asOutput().shape().asArray() or ()) == expected.shape  # static
    (got,) = _run(g, backend, sliced)
    np.testing.assert_array_equal(got, expected)
    assert got.shape == expected.shape


@pytest.mark.parametrize(
    ("index", "message"),
    [("a", "'a' is not a valid index"), ([0, 1], "tf.gather"), (1.5, "1.5"), (True, "True"),
     ((Ellipsis, Ellipsis), "single ellipsis"), (slice(None, None, 0), "step cannot be 0"),
     (slice(0.5, None), "0.5")],
    ids=repr,
)
def test_anInvalidIndexIsATypeErrorSayingWhatIsValid(index: Any, message: str) -> None:
    g = Graph()
    tf = Ops.create(g)
    x = tf.constant(X)
    before = len(list(g.operations()))
    with pytest.raises(DataTypeError, match="StridedSlice") as raised:
        x[index]
    assert message in str(raised.value)
    assert len(list(g.operations())) == before


def test_anIndexOutOfRangeIsRefusedAtConstruction() -> None:
    g = Graph()
    tf = Ops.create(g)
    with pytest.raises(ValueError, match="StridedSlice"):
        tf.constant(X)[5]


# -- arithmetic and comparisons ------------------------------------------------------------------
BINARY: list[tuple[str, Callable[[Any, Any], Any], str]] = [
    ("+", operator.add, "Add"), ("-", operator.sub, "Sub"), ("*", operator.mul, "Mul"),
    ("/", operator.truediv, "RealDiv"), ("//", operator.floordiv, "FloorDiv"),
    ("%", operator.mod, "FloorMod"), ("**", operator.pow, "Pow"), ("<", operator.lt, "Less"),
    ("<=", operator.le, "LessEqual"), (">", operator.gt, "Greater"),
    (">=", operator.ge, "GreaterEqual"),
]
Y = np.linspace(0.5, 3.0, 24).reshape(2, 3, 4)


@pytest.mark.parametrize(("symbol", "fn", "opType"), BINARY, ids=[b[0] for b in BINARY])
def test_binaryOperatorsBuildTfPythonsOpAndComputeAsNumpy(
    backend: str, symbol: str, fn: Callable[[Any, Any], Any], opType: str
) -> None:
    g = Graph()
    tf = Ops.create(g)
    x, y = tf.constant(X), tf.constant(Y)
    results = [fn(x, y), fn(x.asOutput(), y), fn(x, 1.5), fn(2.0, y), fn(Y, x), fn(x, Y[0, 0])]
    mirrored = {"Less": "Greater", "LessEqual": "GreaterEqual", "Greater": "Less",
                "GreaterEqual": "LessEqual"}
    for k, r in enumerate(results):
        # a number or array on the left of a comparison: Python asks the operand's mirror
        # (2.0 < y is y > 2.0), as TF Python builds it
        expected = mirrored.get(opType, opType) if k in (3, 4) else opType
        assert r.op().type() == expected, symbol
    with np.errstate(invalid="ignore", divide="ignore"):  # (x / 0 and (-x) ** 0.5, as TF)
        expected = [fn(X, Y), fn(X, Y), fn(X, 1.5), fn(2.0, Y), fn(Y, X), fn(X, Y[0, 0])]
    for got, want in zip(_run(g, backend, *results), expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12)
        assert got.dtype == want.dtype


def test_aPythonNumberTakesTheOtherOperandsDataType(backend: str) -> None:
    g = Graph()
    tf = Ops.create(g)
    x = tf.constant(np.array([1.0, 2.0], np.float32))
    out = [x + 1, 2.5 * x, x - 0.5, 1 / x]
    for o in out:
        assert o.asOutput().dataType() is TFloat32
    got = _run(g, backend, *out)
    assert all(v.dtype == np.float32 for v in got)
    np.testing.assert_allclose(got[3], [1.0, 0.5])


def test_trueDivisionOfIntegersIsInFloatAsTfPython(backend: str) -> None:
    g = Graph()
    tf = Ops.create(g)
    i = tf.constant(np.array([1, 2, 7], np.int32))
    j = tf.constant(np.array([2, 4, 2], np.int64))
    u = tf.constant(np.array([1, 2, 7], np.uint8))
    q, r, s, t = i / 2, 7 / i, j / j, u / u
    assert q.asOutput().dataType() is TFloat64 and s.asOutput().dataType() is TFloat64
    assert t.asOutput().dataType() is TFloat32
    got = _run(g, backend, q, r, s, t, i // 2, i % 4)
    np.testing.assert_array_equal(got[0], [0.5, 1.0, 3.5])
    np.testing.assert_array_equal(got[1], [7.0, 3.5, 1.0])
    np.testing.assert_array_equal(got[2], [1.0, 1.0, 1.0])
    assert got[3].dtype == np.float32
    np.testing.assert_array_equal(got[4], [0, 1, 3])
    np.testing.assert_array_equal(got[5], [1, 2, 3])


def test_trueDivisionOfAnIntegerByAFractionIsRefusedAsInTf() -> None:
    g = Graph()
    tf = Ops.create(g)
    i = tf.constant(np.array([1, 2], np.int32))
    with pytest.raises(DataTypeError, match="2.5"):
        i / 2.5


def test_unaryOperatorsAndMatmul(backend: str) -> None:
    g = Graph()
    tf = Ops.create(g)
    x = tf.constant(X)
    m = tf.constant(A[0])  # 3 x 4
    out = [-x, abs(x), m @ A[0].T, A[0] @ tf.constant(A[0].T), x @ np.ones((4, 2))]
    assert [o.op().type() for o in out] == ["Neg", "Abs", "MatMul", "MatMul", "BatchMatMulV2"]
    got = _run(g, backend, *out)
    for g_, want in zip(got, [-X, abs(X), A[0] @ A[0].T, A[0] @ A[0].T, X @ np.ones((4, 2))],
                        strict=True):
        np.testing.assert_allclose(g_, want)


def test_operatorsAreDifferentiable() -> None:
    g = Graph()
    tf = Ops.create(g)
    x = tf.placeholder(TFloat64)
    y = tf.sum((x * x + 3.0 * x) / 2.0 - x[0], tf.constant(0))
    dx = tf.gradients(y, [x]).dy(0)
    assert dx is not None
    with Session(g) as s:
        got = s.runner().feed(x, np.array([1.0, 2.0])).fetch(dx).run().get(0)
    np.testing.assert_allclose(got, [(2 * 1.0 + 3) / 2 - 2, (2 * 2.0 + 3) / 2])


def test_operatorOpsAreBuiltInTheGraphsRootScope() -> None:
    g = Graph()
    tf = Ops.create(g)
    x = tf.withSubScope("layer").constant(1.0)
    y = x + x
    assert y.op().name() == "Add"
    assert (x + x).op().name() == "Add_1"


def test_mixingDataTypesIsATypeErrorNamingTheOp() -> None:
    g = Graph()
    tf = Ops.create(g)
    x32 = tf.constant(np.ones(2, np.float32))
    x64 = tf.constant(np.ones(2, np.float64))
    before = len(list(g.operations()))
    with pytest.raises(DataTypeError, match="Add"):
        x32 + x64
    assert len(list(g.operations())) == before


# -- what a symbolic tensor is not -------------------------------------------------------------
@pytest.mark.parametrize(
    "use", [bool, iter, np.asarray, lambda x: [*x], lambda x: 1 if x else 0],
    ids=["bool", "iter", "np.asarray", "unpacking", "if"],
)
def test_aGraphOperandHasNoValueUntilRunAndSaysSo(use: Callable[[Any], Any]) -> None:
    g = Graph()
    tf = Ops.create(g)
    for x in (tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0]).asOutput()):
        with pytest.raises(TypeError, match="run it"):
            use(x)


def test_equalityAndHashKeepIdentity() -> None:
    g = Graph()
    tf = Ops.create(g)
    x = tf.constant([1.0])
    assert (x == x) is True
    assert (x.asOutput() == x.asOutput()) is True
    assert (x != tf.constant([1.0])) is True
    assert len({x.asOutput(), x.asOutput()}) == 1


def test_outputsOfEveryDataTypeAreOperands() -> None:
    g = Graph()
    tf = Ops.create(g)
    i: Output[TType] = tf.constant(np.array([1, 2], np.int32)).asOutput()
    assert i.dataType() is TInt32
    assert (i + 1).asOutput().dataType() is TInt32
