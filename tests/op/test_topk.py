"""Specification of the ``TopK`` (TopKV2) and ``InTopK`` (InTopKV2) op classes: the k largest
entries of each row with their positions (equal entries lower index first), and whether each
target is among the k largest predictions of its row (false where TensorFlow cannot say).

The kernels are compared with TensorFlow's results in ``tests/fixtures/tf/topk.npz`` (written
by ``make_topk.py``) on every backend."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Session, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.op.nn import InTopK, TopK
from tfops.spec.grad import GradOp
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]
SITE = f"created at {__file__}:"
TOPK = f"TopKV2 'TopK' ({SITE}"
INTOPK = f"InTopKV2 'InTopK' ({SITE}"
FIXTURE = np.load(Path(__file__).parents[1] / "fixtures" / "tf" / "topk.npz")
TYPES = {t.NAME: t for t in (TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8)}


def cases(op: str) -> list[str]:
    """The names of the fixture's cases of ``op``."""
    return sorted({key.split("/", 1)[1].rsplit("/", 1)[0] for key in FIXTURE.files
                   if key.startswith(op + "/")})


def reference(x: np.ndarray[Any, Any], k: int) -> tuple[Any, Any]:
    """The k largest of each row, equal entries lower index first, NaNs first."""
    key = np.where(np.isnan(x), -np.inf, -x.astype(np.float64)) if x.dtype.kind == "f" \
        else -x.astype(np.float64)
    order = np.lexsort((key, ~np.isnan(x)) if x.dtype.kind == "f" else (key,), axis=-1)[..., :k]
    return np.take_along_axis(x, order, axis=-1), order


# -- construction --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("shape", "k", "expected"),
    [
        (Shape.of(4), 2, Shape.of(2)),
        (Shape.of(2, 5), 5, Shape.of(2, 5)),
        (Shape.of(2, 5), 0, Shape.of(2, 0)),
        (Shape.of(-1, 3, 5), 1, Shape.of(-1, 3, 1)),
        (Shape.of(2, -1), 7, Shape.of(2, 7)),
        (Shape.of(2, 5), None, Shape.of(2, -1)),
        (Shape.unknown(), 3, Shape.unknown()),
    ],
    ids=str,
)
def test_staticShapeReplacesTheLastDimensionByK(
    tf: Ops, shape: Shape, k: int | None, expected: Shape
) -> None:
    x = placeholder(tf, TFloat32, shape)
    top = tf.nn.topK(x, placeholder(tf, TInt32, ()) if k is None else k)
    assert top.values().shape() == top.indices().shape() == expected


def test_defaultsAreSortedWithInt32IndicesAndOptionsSetThem(tf: Ops) -> None:
    top = tf.nn.topK(tf.constant([1.0, 2.0]), 1)
    assert top.op().name() == "TopK" and top.op().type() == TopK.OP_NAME == "TopKV2"
    assert top.op().attr("sorted") is True
    assert top.op().attr("Tk") is top.indices().dataType() is TInt32
    assert top.values().dataType() is TFloat32
    other = tf.nn.topK(tf.constant([1, 2]), tf.constant(1, dtype=TInt64), TopK.sorted(False),
                       indexType=TInt64)
    assert other.op().attr("sorted") is False
    assert other.op().attr("Tk") is other.indices().dataType() is TInt64
    assert other.values().dataType() is TInt32


@pytest.mark.parametrize(
    ("predictions", "targets", "expected"),
    [
        (Shape.of(3, 4), Shape.of(3), Shape.of(3)),
        (Shape.of(-1, 4), Shape.of(3), Shape.of(3)),
        (Shape.of(3, 4), Shape.of(-1), Shape.of(3)),
        (Shape.unknown(), Shape.unknown(), Shape.of(-1)),
    ],
    ids=str,
)
def test_inTopKGivesOneBoolPerTarget(
    tf: Ops, predictions: Shape, targets: Shape, expected: Shape
) -> None:
    hit = tf.nn.inTopK(placeholder(tf, TFloat32, predictions), placeholder(tf, TInt64, targets),
                       tf.constant(1, dtype=TInt64))
    assert hit.op().name() == "InTopK" and InTopK.OP_NAME == "InTopKV2"
    assert hit.precision().shape() == expected and hit.precision().dataType() is TBool
    assert hit.op().attr("T") is TInt64


# -- kernels against TensorFlow ------------------------------------------------------------
@pytest.mark.parametrize("case", cases("topk"))
def test_topKMatchesTensorFlow(tf: Ops, run: Run, case: str) -> None:
    x, k = FIXTURE[f"topk/{case}/input"], int(FIXTURE[f"topk/{case}/k"])
    values, indices = FIXTURE[f"topk/{case}/values"], FIXTURE[f"topk/{case}/indices"]
    indexType = TInt64 if indices.dtype == np.int64 else TInt32
    top = tf.nn.topK(tf.constant(x), k, indexType=indexType)
    gotValues, gotIndices = run(top.values(), top.indices())
    assert gotValues.dtype == x.dtype and gotIndices.dtype == indices.dtype
    np.testing.assert_array_equal(gotIndices, indices)
    np.testing.assert_array_equal(gotValues, values)
    np.testing.assert_array_equal(np.signbit(gotValues), np.signbit(values))  # -0.0 kept


@pytest.mark.parametrize("case", cases("intopk"))
def test_inTopKMatchesTensorFlow(tf: Ops, run: Run, case: str) -> None:
    keys = ("predictions", "targets", "k", "precision")
    predictions, targets, k, precision = (FIXTURE[f"intopk/{case}/{key}"] for key in keys)
    hit = tf.nn.inTopK(tf.constant(predictions), tf.constant(targets), tf.constant(k))
    got = run(hit)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, precision)


@pytest.mark.parametrize("dtype", list(TYPES.values()), ids=lambda t: t.NAME)
@pytest.mark.parametrize(("shape", "k"), [((6,), 2), ((3, 8), 8), ((2, 2, 9), 3), ((0,), 0)],
                         ids=str)
def test_topKOfValuesKnownAtRunTimeMatchesTheReference(
    tf: Ops, run: Run, dtype: type[TType], shape: tuple[int, ...], k: int
) -> None:
    x = np.random.default_rng(5).integers(0, 5, size=shape).astype(dtype.DTYPE)
    xs, ks = placeholder(tf, dtype), placeholder(tf, TInt32)
    top = tf.nn.topK(xs, ks)
    values, indices = run(top.values(), top.indices(),
                          feeds={xs: x, ks: np.array(k, np.int32)})
    expectedValues, expectedIndices = reference(x, k)
    np.testing.assert_array_equal(indices, expectedIndices)
    np.testing.assert_array_equal(values, expectedValues)
    assert values.dtype == dtype.DTYPE and indices.dtype == np.int32


def test_nansComeFirstAndUnsortedIsSortedToo(tf: Ops, run: Run) -> None:
    # a difference from TensorFlow, whose order of NaNs depends on its algorithm and on k
    x = tf.constant(np.array([[1.0, np.nan, 3.0, -np.nan, 2.0]], np.float32))
    for top in (tf.nn.topK(x, 3), tf.nn.topK(x, 3, sorted=False)):
        values, indices = run(top.values(), top.indices())
        assert indices.tolist() == [[1, 3, 2]]
        np.testing.assert_array_equal(values, [[np.nan, np.nan, 3.0]])


def test_badKRaisesInvalidArgumentErrorAtRunTime(tf: Ops, run: Run) -> None:
    x, k = placeholder(tf, TFloat32), placeholder(tf, TInt32)
    top = tf.withName("top").nn.topK(x, k)
    feeds = {x: np.ones((2, 3), np.float32)}
    negative = f"k must be non-negative, got -1.*'top'.*{SITE}"
    with pytest.raises(InvalidArgumentError, match=negative):
        run(top.values(), feeds={**feeds, k: np.array(-1, np.int32)})
    with pytest.raises(InvalidArgumentError, match="last dimension of at least k = 4.*'top'"):
        run(top.values(), feeds={**feeds, k: np.array(4, np.int32)})
    with pytest.raises(InvalidArgumentError, match="at least one dimension, got a scalar"):
        run(top.values(), feeds={x: np.float32(1.0), k: np.array(0, np.int32)})


def test_inTopKBadShapesAtRunTime(tf: Ops, run: Run) -> None:
    p, t = placeholder(tf, TFloat32), placeholder(tf, TInt32)
    hit = tf.nn.inTopK(p, t, 1)
    with pytest.raises(InvalidArgumentError, match="must match the length of targets.*'InTopK'"):
        run(hit, feeds={p: np.ones((2, 3), np.float32), t: np.zeros(3, np.int32)})
    with pytest.raises(InvalidArgumentError, match="predictions must be a matrix"):
        run(hit, feeds={p: np.ones(3, np.float32), t: np.zeros(3, np.int32)})


# -- gradient ------------------------------------------------------------------------------
def _scatterReference(x: np.ndarray[Any, Any], k: int, g: np.ndarray[Any, Any]) -> Any:
    _, order = reference(x, k)
    expected = np.zeros_like(x)
    np.put_along_axis(expected, order, g, axis=-1)
    return expected


@pytest.mark.parametrize(("shape", "k"), [((5,), 2), ((2, 3, 4), 3), ((3, 4), 0)], ids=str)
def test_gradientRuleScattersIntoThePickedPositions(
    tf: Ops, graph: Graph, backend: str, shape: tuple[int, ...], k: int
) -> None:
    # the rule, called as the gradient generator calls it, on the forward op's outputs
    rng = np.random.default_rng(3)
    x = rng.permutation(int(np.prod(shape))).reshape(shape).astype(np.float64)
    top = tf.nn.topK(tf.constant(x), k)
    g = tf.constant(rng.normal(size=(*shape[:-1], k)))
    registered, rule = lookupGradient("TopKV2")
    assert registered and rule is not None
    op = top.op()
    given = [g.asOutput(), tf.zerosLike(top.indices()).asOutput()]
    grads = rule(tf, GradOp(op, given, frozenset({0})), g.asOutput())
    assert len(grads) == 2 and grads[1] is None
    dx = grads[0]
    assert dx is not None and dx.asOutput().shape() == Shape.of(*shape)
    with Session(graph, backend=backend) as s:
        got = s.runner().fetch(dx).run()[0]
    np.testing.assert_allclose(got, _scatterReference(x, k, np.asarray(g.op().attr("value"))))
    # the rule's result is differentiable again (with respect to the incoming gradient)
    second = tf.gradients(tf.sum(tf.math.square(dx), tf.constant([0])), [g]).dy()[0]
    assert second is not None


@pytest.mark.parametrize("case", cases("grad"))
def test_gradientRuleMatchesTensorFlow(tf: Ops, graph: Graph, backend: str, case: str) -> None:
    x, k = FIXTURE[f"grad/{case}/input"], int(FIXTURE[f"grad/{case}/k"])
    w, expected = FIXTURE[f"grad/{case}/w"], FIXTURE[f"grad/{case}/dx"]
    top = tf.nn.topK(tf.constant(x), k)
    g = tf.constant(w)
    _, rule = lookupGradient("TopKV2")
    assert rule is not None
    given = [g.asOutput(), tf.zerosLike(top.indices()).asOutput()]
    dx = rule(tf, GradOp(top.op(), given, frozenset({0})), g.asOutput())[0]
    assert dx is not None
    with Session(graph, backend=backend) as s:
        got = s.runner().fetch(dx).run()[0]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_gradientMatchesFiniteDifferences(tf: Ops) -> None:
    x = np.random.default_rng(4).permutation(24).reshape(2, 3, 4) / 7.0
    assertGradient(tf, lambda v: tf.math.square(tf.nn.topK(v, 2).values()), [x])


def test_inTopKIsNotDifferentiable() -> None:
    assert lookupGradient("InTopKV2") == (True, None)


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("x", "k", "message"),
    [
        (np.float32(1.0), 1, "input must have at least one dimension, got a scalar"),
        (np.ones((2, 3), np.float32), [1], "k must be a scalar"),
        (np.ones((2, 3), np.float32), -1, "k must be non-negative, got -1"),
        (np.ones((2, 3), np.float32), 4,
         "input must have a last dimension of at least k = 4, got shape [2, 3]"),
    ],
    ids=["scalarInput", "kVector", "negativeK", "kTooLarge"],
)
def test_topKBadConstantInputsRaiseValueError(
    tf: Ops, graph: Graph, x: Any, k: Any, message: str
) -> None:
    operands = tf.constant(x), tf.constant(k)
    assertRejected(graph, lambda: tf.nn.topK(*operands), ValueError, TOPK, f"): {message}")


@pytest.mark.parametrize(
    ("x", "k"),
    [(np.array([True, False]), 1), (np.ones(3, np.float32), 1.0)],
    ids=["boolInput", "floatK"],
)
def test_topKInputOfAnotherDataTypeRaisesTypeError(tf: Ops, graph: Graph, x: Any, k: Any) -> None:
    operands = tf.constant(x), tf.constant(k)
    assertRejected(graph, lambda: tf.nn.topK(*operands), TypeError, TOPK)


@pytest.mark.parametrize(
    ("p", "t", "k", "message"),
    [
        ((4,), (4,), (), "predictions must be a matrix [batch_size, classes], got shape [4]"),
        ((4, 2), (4, 1), (), "targets must be a vector [batch_size], got shape [4, 1]"),
        ((4, 2), (4,), (1,), "k must be a scalar, got a tensor of shape [1]"),
        ((4, 2), (3,), (), "the first dimension of predictions [4, 2] must match the length "
                           "of targets [3]"),
    ],
    ids=["predictionsVector", "targetsMatrix", "kVector", "batchMismatch"],
)
def test_inTopKBadShapesRaiseValueError(
    tf: Ops, graph: Graph, p: tuple[int, ...], t: tuple[int, ...], k: tuple[int, ...],
    message: str,
) -> None:
    operands = (placeholder(tf, TFloat32, p), placeholder(tf, TInt32, t),
                placeholder(tf, TInt32, k))
    assertRejected(graph, lambda: tf.nn.inTopK(*operands), ValueError, INTOPK, f"): {message}")


@pytest.mark.parametrize(
    ("p", "t", "k"),
    [(TFloat64, TInt32, TInt32), (TFloat32, TFloat32, TFloat32), (TFloat32, TInt32, TInt64)],
    ids=["float64Predictions", "floatTargets", "mixedIndexTypes"],
)
def test_inTopKInputOfAnotherDataTypeRaisesTypeError(
    tf: Ops, graph: Graph, p: type[TType], t: type[TType], k: type[TType]
) -> None:
    operands = placeholder(tf, p, (2, 3)), placeholder(tf, t, (2,)), placeholder(tf, k, ())
    assertRejected(graph, lambda: tf.nn.inTopK(*operands), TypeError, INTOPK)
