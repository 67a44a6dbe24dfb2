"""The segment reductions: SegmentSum, SegmentMean, SegmentMax, SegmentMin, SegmentProd (sorted
ids, one segment per distinct id, as many rows as the last id plus one) and UnsortedSegmentMax,
UnsortedSegmentMin, UnsortedSegmentProd (ids of any order and shape, a given number of segments,
negative ids dropped), and Cumprod: values and gradients against TensorFlow's (tests/fixtures/
tf/make_segments.py), gradients against finite differences, static shapes and bad arguments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import assertGradient, assertMatches, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.types import TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

HERE = f"created at {__file__}:"
FIXTURES = np.load(Path(__file__).parent.parent / "fixtures" / "tf" / "segments.npz")
CASES = sorted({k.rsplit("/", 1)[0] for k in FIXTURES.files if not k.startswith("Cumprod/")})
CUMPROD = sorted({k.rsplit("/", 1)[0] for k in FIXTURES.files if k.startswith("Cumprod/")})
SORTED = ("SegmentSum", "SegmentMean", "SegmentMax", "SegmentMin", "SegmentProd")
UNSORTED = ("UnsortedSegmentMax", "UnsortedSegmentMin", "UnsortedSegmentProd")
DTYPES: dict[str, type[TType]] = {t.DTYPE.name: t for t in
                                  (TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8)}


def facade(tf: Ops, opType: str) -> Any:
    """The facade method of ``opType`` (``SegmentSum`` -> ``tf.math.segmentSum``)."""
    return getattr(tf.math, opType[0].lower() + opType[1:])


def build(tf: Ops, case: str, data: Any) -> Any:
    """The op of fixture ``case`` applied to ``data``."""
    args = [tf.constant(FIXTURES[f"{case}/ids"])]
    if f"{case}/num" in FIXTURES.files:
        args.append(tf.constant(FIXTURES[f"{case}/num"]))
    return facade(tf, case.split("/")[0])(data, *args)


@pytest.mark.parametrize("case", CASES)
def test_kernelMatchesTensorFlow(tf: Ops, run: Any, case: str) -> None:
    data = FIXTURES[f"{case}/data"]
    y = build(tf, case, tf.constant(data))
    expected = FIXTURES[f"{case}/out"]
    assertMatches(run(y), expected, DTYPES[data.dtype.name])


@pytest.mark.parametrize("case", [c for c in CASES if f"{c}/grad" in FIXTURES.files])
def test_gradientMatchesTensorFlow(tf: Ops, run: Any, case: str) -> None:
    x = placeholder(tf, TFloat64, FIXTURES[f"{case}/data"].shape)
    y = build(tf, case, x)
    loss = tf.sum(tf.math.mul(y, tf.constant(FIXTURES[f"{case}/weights"])),
                  list(range(FIXTURES[f"{case}/out"].ndim)))
    d = tf.gradients(loss, [x]).dy(0)
    got = run(d, feeds={x: FIXTURES[f"{case}/data"]})
    np.testing.assert_allclose(got, FIXTURES[f"{case}/grad"], rtol=1e-12, atol=1e-12)


def distinct(shape: tuple[int, ...]) -> Any:
    """Values without ties or zeros (where the reductions are differentiable)."""
    n = int(np.prod(shape))
    return ((np.arange(n) * 7 % n) * 0.375 + 0.5).reshape(shape) * np.where(
        np.arange(n) % 3 == 0, -1, 1).reshape(shape)


@pytest.mark.parametrize("opType", SORTED)
@pytest.mark.parametrize("shape", [(5,), (5, 2)], ids=str)
def test_sortedGradientMatchesFiniteDifferences(tf: Ops, opType: str, shape: Any) -> None:
    ids = np.array([0, 0, 1, 3, 3], np.int32)
    assertGradient(tf, lambda x: facade(tf, opType)(x, ids), [distinct(shape)])


@pytest.mark.parametrize("opType", UNSORTED)
@pytest.mark.parametrize(("shape", "ids"), [((5,), [2, 0, 2, -1, 2]),
                                            ((2, 2, 2), [[1, -1], [0, 1]])], ids=str)
def test_unsortedGradientMatchesFiniteDifferences(tf: Ops, opType: str, shape: Any,
                                                  ids: Any) -> None:
    assertGradient(tf, lambda x: facade(tf, opType)(x, np.array(ids, np.int32), 3),
                   [distinct(shape)])


def test_prodGradientWithZerosMatchesFiniteDifferences(tf: Ops) -> None:
    data = np.array([2.0, 0.0, 3.0, 0.0, 0.0, 1.5, -2.0])  # one zero, two zeros, none
    ids = np.array([0, 0, 0, 1, 1, 2, 2], np.int32)
    assertGradient(tf, lambda x: tf.math.segmentProd(x, ids), [data])
    assertGradient(tf, lambda x: tf.math.unsortedSegmentProd(x, ids[::-1].copy(), 3), [data])


def test_secondDerivativeMatchesFiniteDifferences(tf: Ops) -> None:
    def firstDerivative(x: Any) -> Any:
        y = tf.math.segmentMean(tf.math.square(x), np.array([0, 0, 2], np.int32))
        return tf.gradients(tf.sum(tf.math.mul(y, y), 0), [x]).dy(0)

    assertGradient(tf, firstDerivative, [distinct((3,))])


@pytest.mark.parametrize("opType", SORTED)
@pytest.mark.parametrize(
    ("data", "ids", "expected"),
    [(Shape.of(4, 3), Shape.of(4), Shape.of(-1, 3)), (Shape.of(-1, 3), Shape.of(4),
                                                      Shape.of(-1, 3)),
     (Shape.of(4), Shape.of(-1), Shape.of(-1)), (Shape.unknown(), Shape.of(4), Shape.unknown()),
     (Shape.of(4, 2, 5), Shape.unknown(), Shape.of(-1, 2, 5))],
    ids=str,
)
def test_sortedStaticShape(tf: Ops, opType: str, data: Shape, ids: Shape,
                           expected: Shape) -> None:
    y = facade(tf, opType)(placeholder(tf, TFloat32, data), placeholder(tf, TInt64, ids))
    assert y.asOutput().shape() == expected
    assert y.asOutput().dataType() is TFloat32 and y.op().type() == opType


@pytest.mark.parametrize("opType", UNSORTED)
@pytest.mark.parametrize(
    ("data", "ids", "count", "expected"),
    [(Shape.of(4, 3), Shape.of(4), 5, Shape.of(5, 3)),
     (Shape.of(2, 3, 2), Shape.of(2, 3), 5, Shape.of(5, 2)),
     (Shape.of(4), Shape.scalar(), 2, Shape.of(2, 4)),
     (Shape.unknown(), Shape.of(4), 5, Shape.unknown()),
     (Shape.of(4, 3), Shape.of(4), "fed", Shape.of(-1, 3))],
    ids=str,
)
def test_unsortedStaticShape(tf: Ops, opType: str, data: Shape, ids: Shape, count: Any,
                             expected: Shape) -> None:
    n = tf.placeholder(TInt32) if count == "fed" else count
    y = facade(tf, opType)(placeholder(tf, TFloat32, data), placeholder(tf, TInt32, ids), n)
    assert y.asOutput().shape() == expected
    assert y.op().attr("Tnumsegments") is TInt32


@pytest.mark.parametrize("opType", SORTED)
@pytest.mark.parametrize(
    ("data", "ids", "error", "fragment"),
    [(np.zeros((4, 3)), [[0, 1, 2, 3]], ValueError, "segment_ids must be a vector"),
     (np.zeros((4, 3)), [0, 1, 2], ValueError, "segment_ids of shape [3] must have one id per "
      "row of data, whose shape is [4, 3]"),
     (np.float32(1.0), [0], ValueError, "data must have at least one dimension"),
     ([True], [0], TypeError, "data type bool is not allowed for 'T'"),
     ([1.0], [0.0], TypeError, "data type float32 is not allowed for 'Tindices'")],
    ids=["matrixIds", "idsShorter", "scalarData", "boolData", "floatIds"],
)
def test_sortedBadArgumentsAreRejected(graph: Graph, tf: Ops, opType: str, data: Any, ids: Any,
                                       error: type[Exception], fragment: str) -> None:
    assertRejected(graph, lambda: facade(tf, opType)(data, ids), error,
                   f"{opType} '{opType}' ({HERE}", fragment)


@pytest.mark.parametrize("opType", UNSORTED)
@pytest.mark.parametrize(
    ("data", "ids", "count", "error", "fragment"),
    [(np.zeros((4, 3)), [0, 1, 2], 3, ValueError,
      "the shape of segment_ids [3] must begin the shape of data [4, 3]"),
     ([1.0], [0], -1, ValueError, "num_segments must not be negative, got -1"),
     ([1.0], [0], [1], ValueError, "num_segments must be a scalar"),
     ([True], [0], 1, TypeError, "data type bool is not allowed for 'T'")],
    ids=["idsLonger", "negativeCount", "vectorCount", "boolData"],
)
def test_unsortedBadArgumentsAreRejected(graph: Graph, tf: Ops, opType: str, data: Any,
                                         ids: Any, count: Any, error: type[Exception],
                                         fragment: str) -> None:
    assertRejected(graph, lambda: facade(tf, opType)(data, ids, count), error,
                   f"{opType} '{opType}' ({HERE}", fragment)


@pytest.mark.parametrize("opType", SORTED)
@pytest.mark.parametrize(
    ("ids", "fragment"),
    [([0, 2, 1], "segment ids are not increasing: segment_ids[2] = 1 follows 2"),
     ([-1, 0, 0], "segment ids must be >= 0, got -1"),
     ([0, 0], "segment_ids of shape [2] must have one id per row of data, whose shape is [3]")],
    ids=["unsorted", "negative", "short"],
)
def test_sortedBadIdsAtRunTime(tf: Ops, run: Any, opType: str, ids: Any, fragment: str) -> None:
    fed = tf.placeholder(TInt32)
    y = facade(tf, opType)(tf.constant([1.0, 2.0, 3.0]), fed)
    with pytest.raises(InvalidArgumentError) as info:
        run(y, feeds={fed: np.array(ids, np.int32)})
    assert info.value.op == y.op()
    assert fragment in str(info.value) and f"of type {opType}, {HERE}" in str(info.value)


@pytest.mark.parametrize("opType", UNSORTED)
def test_unsortedIdOutOfRangeAtRunTime(tf: Ops, run: Any, opType: str) -> None:
    fed = tf.placeholder(TInt32)
    y = facade(tf, opType)(tf.constant([[1.0, 2.0], [3.0, 4.0]]), fed, 3)
    with pytest.raises(InvalidArgumentError) as info:
        run(y, feeds={fed: np.array([[0, -1], [3, 1]], np.int32)})
    assert info.value.op == y.op()
    assert "segment_ids[1, 0] = 3 is out of range [0, 3)" in str(info.value)


@pytest.mark.parametrize("opType", SORTED)
def test_sortedIdsFedAtRunTime(tf: Ops, run: Any, opType: str) -> None:
    fed = tf.placeholder(TInt64)
    y = facade(tf, opType)(tf.constant([2, 3, 4]), fed)
    got = run(y, feeds={fed: np.array([1, 1, 3], np.int64)})
    empty = 1 if opType == "SegmentProd" else 0
    whole = {"SegmentSum": 5, "SegmentMean": 2, "SegmentMax": 3, "SegmentMin": 2,
             "SegmentProd": 6}[opType]
    assert got.tolist() == [empty, whole, empty, 4] and got.dtype == np.int32


def test_sortedMaxPropagatesNaNAndUnsortedFoldsAsTensorFlow(tf: Ops, run: Any) -> None:
    data = tf.constant(np.array([1.0, np.nan, 3.0, np.nan, 2.0, 3.0], np.float32))
    ids = np.array([0, 0, 1, 1, 1, 2], np.int32)
    sortedMax = run(tf.math.segmentMax(data, ids))
    assert np.isnan(sortedMax[0]) and np.isnan(sortedMax[1]) and sortedMax[2] == 3.0
    # TensorFlow's fold: the values after a segment's last NaN, NaN when the NaN is last
    assert run(tf.math.unsortedSegmentMin(data, ids, 3)).tolist()[1:] == [2.0, 3.0]
    assert np.isnan(run(tf.math.unsortedSegmentMax(data, ids, 3))[0])


# -- Cumprod ---------------------------------------------------------------------------------
def cumprod(tf: Ops, case: str, x: Any) -> Any:
    return tf.math.cumprod(x, tf.constant(FIXTURES[f"{case}/axis"]),
                           exclusive=bool(FIXTURES[f"{case}/exclusive"]),
                           reverse=bool(FIXTURES[f"{case}/reverse"]))


@pytest.mark.parametrize("case", CUMPROD)
def test_cumprodMatchesTensorFlow(tf: Ops, run: Any, case: str) -> None:
    data = FIXTURES[f"{case}/data"]
    expected = FIXTURES[f"{case}/out"]
    assertMatches(run(cumprod(tf, case, tf.constant(data))), expected, DTYPES[data.dtype.name])


@pytest.mark.parametrize("case", [c for c in CUMPROD if f"{c}/grad" in FIXTURES.files])
def test_cumprodGradientMatchesTensorFlow(tf: Ops, run: Any, case: str) -> None:
    """TensorFlow's rule, zeros included (where it divides by zero, it gives zero)."""
    x = placeholder(tf, TFloat64, FIXTURES[f"{case}/data"].shape)
    loss = tf.sum(tf.math.mul(cumprod(tf, case, x), tf.constant(FIXTURES[f"{case}/weights"])),
                  [0, 1])
    got = run(tf.gradients(loss, [x]).dy(0), feeds={x: FIXTURES[f"{case}/data"]})
    np.testing.assert_allclose(got, FIXTURES[f"{case}/grad"], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, -1])
def test_cumprodGradientMatchesFiniteDifferences(tf: Ops, exclusive: bool, reverse: bool,
                                                 axis: int) -> None:
    assertGradient(tf, lambda x: tf.math.cumprod(x, axis, exclusive=exclusive, reverse=reverse),
                   [distinct((3, 4))])


def test_cumprodSecondDerivativeMatchesFiniteDifferences(tf: Ops) -> None:
    def firstDerivative(x: Any) -> Any:
        return tf.gradients(tf.sum(tf.math.cumprod(x, 0), 0), [x]).dy(0)

    assertGradient(tf, firstDerivative, [distinct((4,))])


def test_cumprodKeepsShapeAndEmptyTensors(tf: Ops, run: Any) -> None:
    y = tf.math.cumprod(placeholder(tf, TFloat32, Shape.of(-1, 3)), 1)
    assert y.asOutput().shape() == Shape.of(-1, 3)
    assert run(tf.math.cumprod(tf.constant(np.zeros((0, 3), np.float32)), 1)).shape == (0, 3)
    wrapped = run(tf.math.cumprod(tf.constant(np.array([200, 2], np.uint8)), 0))
    assert wrapped.tolist() == [200, 144] and wrapped.dtype == np.uint8


@pytest.mark.parametrize(
    ("x", "axis", "error", "fragment"),
    [([1.0, 2.0], 1, ValueError, "axis 1 is out of range for a tensor of rank 1"),
     ([1.0, 2.0], [0], ValueError, "axis must be a scalar"),
     ([True], 0, TypeError, "data type bool is not allowed for 'T'")],
    ids=["axisOutOfRange", "vectorAxis", "boolData"],
)
def test_cumprodBadArgumentsAreRejected(graph: Graph, tf: Ops, x: Any, axis: Any,
                                        error: type[Exception], fragment: str) -> None:
    assertRejected(graph, lambda: tf.math.cumprod(x, axis), error,
                   f"Cumprod 'Cumprod' ({HERE}", fragment)


def test_cumprodAxisFedOutOfRangeAtRunTime(tf: Ops, run: Any) -> None:
    axis = tf.placeholder(TInt32)
    y = tf.math.cumprod(tf.constant([1.0, 2.0]), axis)
    with pytest.raises(InvalidArgumentError) as info:
        run(y, feeds={axis: np.array(-2, np.int32)})
    assert "axis -2 is out of range for a tensor of rank 1" in str(info.value)
