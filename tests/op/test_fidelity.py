"""Specification of behaviours where tfops follows TensorFlow 2.21 in its corners: NaN in
ArgMax/ArgMin, means of no integers, Prod's gradient at inf and NaN, float16 sums accumulated in
float32, the options GatherV2 ``batch_dims`` and BiasAdd ``NCHW``, and Transpose's negative
perm entries (static shapes from computed shape arguments are in ``test_fidelity_shapes``). The
expected values were produced with TensorFlow 2.21 (CPU); every kernel test runs on both
backends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import (
    FLOATS,
    NUMBERS,
    assertGradient,
    assertGradientsClose,
    assertMatches,
    assertRejected,
    placeholder,
)

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.core import Gather
from tfops.op.nn import BiasAdd, BiasAddGrad
from tfops.types import TFloat16, TFloat64, TInt32, TInt64, TType

Array = np.ndarray[Any, Any]
Run = Callable[..., Any]
NAN, INF = np.nan, np.inf
U = -1  # an unknown dimension
CREATED = f"created at {__file__}:"


def typeIds(dtype: type[TType]) -> str:
    return str(dtype.NAME)


# -- ArgMax, ArgMin: NaN is skipped ----------------------------------------------------------
# TensorFlow's reduction starts from index 0 holding the lowest finite value (the highest for
# ArgMin) and moves only to a strictly larger (smaller) value: NaN never wins, nor does -inf
# (inf) or the lowest (highest) finite value over the start.
@pytest.mark.parametrize("dtype", FLOATS, ids=typeIds)
@pytest.mark.parametrize(
    ("value", "dimension", "argMax", "argMin"),
    [
        pytest.param([[1, NAN, 3], [NAN, 2, 0]], 1, [2, 1], [0, 2], id="rows"),
        pytest.param([[1, NAN, 3], [NAN, 2, 0]], 0, [0, 1, 0], [0, 1, 1], id="columns"),
        pytest.param([[NAN, NAN, NAN], [NAN, 1, NAN]], 1, [0, 1], [0, 1], id="all nan"),
        pytest.param([[1, NAN, NAN], [INF, NAN, -INF]], 1, [0, 0], [0, 2], id="infinities"),
        pytest.param([[NAN, 5, NAN, 5], [3, NAN, 3, NAN]], 1, [1, 0], [1, 0], id="ties"),
        pytest.param([[-INF, NAN, -INF], [INF, INF, NAN]], 1, [0, 0], [0, 0], id="inf ties"),
        pytest.param([NAN, -INF, -INF], 0, 0, 1, id="-inf never beats the start"),
        pytest.param([NAN, INF, INF], 0, 1, 0, id="inf never beats the start of ArgMin"),
        pytest.param([2, -INF, NAN, -INF], 0, 0, 1, id="mixed"),
        pytest.param([NAN, NAN, -INF], 0, 0, 2, id="nan then -inf"),
        pytest.param("lowest", 0, 0, 1, id="the lowest finite value"),
        pytest.param("highest", 0, 1, 0, id="the highest finite value"),
    ],
)
def test_argMaxAndArgMinSkipNan(
    tf: Ops, run: Run, dtype: type[TType], value: Any, dimension: int, argMax: Any, argMin: Any
) -> None:
    if isinstance(value, str):
        info = np.finfo(dtype.DTYPE)
        value = [NAN, info.min if value == "lowest" else info.max]
    x = tf.constant(np.asarray(value, dtype.DTYPE))
    got = run(tf.math.argMax(x, dimension), tf.math.argMin(x, dimension))
    assertMatches(got[0], np.asarray(argMax), TInt64)
    assertMatches(got[1], np.asarray(argMin), TInt64)


def test_argMaxSkipsNanAlongLongRows(tf: Ops, run: Run) -> None:
    """As numpy's argmax/argmin with NaN replaced by -inf/inf, on rows of every length."""
    rng = np.random.default_rng(3)
    value = rng.standard_normal((3, 50, 7)).astype(np.float32)
    value[rng.random(value.shape) < 0.5] = NAN
    x = tf.constant(value)
    got = run(tf.math.argMax(x, 1), tf.math.argMin(x, 1))
    missing = np.isnan(value)
    assertMatches(got[0], np.argmax(np.where(missing, -INF, value), 1), TInt64)
    assertMatches(got[1], np.argmin(np.where(missing, INF, value), 1), TInt64)


# -- Mean of no elements ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", NUMBERS, ids=typeIds)
@pytest.mark.parametrize(
    ("axis", "keep", "shape"),
    [(1, False, (2, 3)), ([0, 1], False, (3,)), ([0, 1, 2], False, ()), (1, True, (2, 1, 3))],
    ids=str,
)
def test_meanOfNoElementsIsNanOrZero(
    tf: Ops, run: Run, dtype: type[TType], axis: Any, keep: bool, shape: tuple[int, ...]
) -> None:
    """As TensorFlow: NaN (0 / 0) for floats, 0 for integers (no division error)."""
    m = tf.math.mean(tf.constant(np.zeros((2, 0, 3), dtype.DTYPE)), axis, keepDims=keep)
    expected = np.full(shape, NAN if dtype in FLOATS else 0, dtype.DTYPE)
    assertMatches(run(m), expected, dtype)


# -- BiasAdd, BiasAddGrad in the NCHW layout ----------------------------------------------------
def sample(shape: tuple[int, ...], seed: int = 4) -> Array:
    return np.random.default_rng(seed).normal(size=shape)


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 4, 5), (1, 2, 1, 2, 3)], ids=str)
def test_biasAddNchwAddsAlongDimension1(tf: Ops, run: Run, shape: tuple[int, ...]) -> None:
    value, bias = sample(shape, 0), sample(shape[1:2], 1)
    laid = bias.reshape((-1,) + (1,) * (len(shape) - 2))
    y = tf.nn.biasAdd(value, bias, BiasAdd.dataFormat("NCHW"))
    d = tf.nn.biasAddGrad(value, BiasAddGrad.dataFormat("NCHW"))
    assert y.asOutput().shape() == Shape.of(*shape) and d.asOutput().shape() == Shape.of(shape[1])
    got = run(y, d)
    assertMatches(got[0], value + laid, TFloat64)
    others = tuple(a for a in range(len(shape)) if a != 1)
    assertMatches(got[1], value.sum(axis=others), TFloat64)


@pytest.mark.parametrize(
    ("value", "bias", "expected"),
    [
        (Shape.of(U, 3, 4), Shape.of(3), Shape.of(U, 3, 4)),
        (Shape.of(2, U, 4), Shape.of(3), Shape.of(2, 3, 4)),
        (Shape.of(2, 3, U, U), Shape.unknown(), Shape.of(2, 3, U, U)),
        (Shape.unknown(), Shape.of(3), Shape.unknown()),
    ],
    ids=str,
)
def test_biasAddNchwStaticShape(tf: Ops, value: Shape, bias: Shape, expected: Shape) -> None:
    y = tf.nn.biasAdd(placeholder(tf, TFloat64, value), placeholder(tf, TFloat64, bias),
                      dataFormat="NCHW")
    assert y.asOutput().shape() == expected
    d = tf.nn.biasAddGrad(placeholder(tf, TFloat64, value), dataFormat="NCHW")
    assert d.asOutput().shape() == Shape.of(value.size(1) if value.numDimensions() > 0 else U)


@pytest.mark.parametrize(
    ("value", "bias", "fragment"),
    [
        ((2, 3), (3,), "value must have rank 3 or more in the NCHW layout, got shape [2, 3]"),
        ((2, 5, 4), (3,),
         "bias of length 3 does not match dimension 1 (the channels) of value [2, 5, 4]"),
        ((2, 3), None,
         "out_backprop must have rank 3 or more in the NCHW layout, got shape [2, 3]"),
    ],
    ids=["rank 2 value", "bias length", "rank 2 gradient"],
)
def test_biasAddNchwRejectsBadShapes(
    graph: Graph, tf: Ops, value: tuple[int, ...], bias: tuple[int, ...] | None, fragment: str
) -> None:
    v = placeholder(tf, TFloat64, value)
    if bias is None:
        assertRejected(graph, lambda: tf.nn.biasAddGrad(v, dataFormat="NCHW"), ValueError,
                       "BiasAddGrad 'BiasAddGrad'", CREATED, fragment)
    else:
        b = placeholder(tf, TFloat64, bias)
        assertRejected(graph, lambda: tf.nn.biasAdd(v, b, dataFormat="NCHW"), ValueError,
                       "BiasAdd 'BiasAdd'", CREATED, fragment)


def test_biasAddNchwOfAFedRankTwoValueAddsAlongDimension1(tf: Ops, run: Run) -> None:
    """As TensorFlow's kernel: with the rank unknown when built, a matrix is taken at run time."""
    v, b = tf.placeholder(TFloat64), tf.placeholder(TFloat64)
    y = tf.nn.biasAdd(v, b, dataFormat="NCHW")
    got = run(y, feeds={v: np.zeros((2, 3)), b: np.array([1.0, 2.0, 3.0])})
    assertMatches(got, np.array([[1.0, 2.0, 3.0]] * 2), TFloat64)


@pytest.mark.parametrize("known", [True, False], ids=["known rank", "unknown rank"])
@pytest.mark.parametrize("shape", [(2, 3, 4), (1, 2, 3, 2)], ids=str)
def test_biasAddNchwGradients(tf: Ops, shape: tuple[int, ...], known: bool) -> None:
    shapes = None if known else [None, None]
    assertGradient(tf, lambda v, b: tf.nn.biasAdd(v, b, dataFormat="NCHW"),
                   [sample(shape, 0), sample(shape[1:2], 1)], shapes)
    assertGradient(tf, lambda g: tf.nn.biasAddGrad(g, dataFormat="NCHW"), [sample(shape)],
                   None if known else [None])


def test_biasAddNchwSecondOrderGradient(tf: Ops) -> None:
    def biasGradient(v: Any, b: Any) -> Any:
        y = tf.nn.biasAdd(v, b, dataFormat="NCHW")
        return tf.gradients(tf.sum(tf.math.square(y), [0, 1, 2]), [b]).dy(0)

    assertGradient(tf, biasGradient, [sample((2, 3, 2), 0), sample((3,), 1)])


# -- float16 sums accumulate in float32 ---------------------------------------------------------
# TensorFlow's BiasAddGrad sums float16 in float32 (60000 + 60000 - 60000 is 60000, not inf).
# Its Sum and Mean sum float16 in float16 in the order of its vectorized loops (so that
# [60000, 60000, -60000, -60000] sums to inf, [-60000, 60000, ...] to 0): tfops sums every
# float16 reduction in float32 and rounds once, the same whatever the order or layout.
HALF = np.array([[60000, 1], [60000, 2], [-60000, 3]], np.float16)


def test_float16SumsAccumulateInFloat32InEveryLayout(tf: Ops, run: Run) -> None:
    rowMajor = tf.constant(HALF)
    columnMajor = tf.linalg.transpose(tf.constant(np.ascontiguousarray(HALF.T)), [1, 0])
    fetches = [
        f(x) for x in (rowMajor, columnMajor) for f in (
            lambda x: tf.nn.biasAddGrad(x),
            lambda x: tf.sum(x, 0),
            lambda x: tf.math.mean(x, 0),
            lambda x: tf.sum(x, [0, 1]),
        )
    ]
    got = run(*fetches)
    expected = [[60000, 6], [60000, 6], [20000, 2], 60006]
    for k, value in enumerate(got):
        assertMatches(value, np.asarray(expected[k % 4], np.float16), TFloat16)


def test_float16SumRoundsOnce(tf: Ops, run: Run) -> None:
    """2048 plus 4095 halves is 4095.5: exact in float32, rounded once to 4096 in float16."""
    value = np.full(4096, 0.5, np.float16)
    value[0] = 2048
    got = run(tf.sum(tf.constant(value), 0), tf.math.mean(tf.constant(value), 0))
    assertMatches(got[0], np.float16(4096), TFloat16)
    assertMatches(got[1], np.float16(4095.5 / 4096), TFloat16)


# -- GatherV2 with batch dimensions -------------------------------------------------------------
def batchGather(params: Array, indices: Array, axis: int, batchDims: int) -> Array:
    """The reference: each batch element gathers from its own slice of ``params``."""
    batchDims = batchDims + indices.ndim if batchDims < 0 else batchDims
    batch = params.shape[:batchDims]
    count = int(np.prod(batch))
    flatParams = params.reshape((count, *params.shape[batchDims:]))
    flatIndices = indices.reshape((count, *indices.shape[batchDims:]))
    picked = [np.take(p, i, axis=axis % params.ndim - batchDims)
              for p, i in zip(flatParams, flatIndices, strict=True)]
    return np.stack(picked).reshape((*batch, *picked[0].shape))


def test_gatherWithBatchDimsAsTensorFlow(tf: Ops, run: Run) -> None:
    """TensorFlow 2.21: tf.gather(arange(24).reshape(2, 3, 4), [[2, 0], [1, 1]], axis=1,
    batch_dims=1)."""
    params = np.arange(24.0).reshape(2, 3, 4)
    y = tf.gather(params, np.array([[2, 0], [1, 1]]), 1, Gather.batchDims(1))
    expected = [[[8, 9, 10, 11], [0, 1, 2, 3]], [[16, 17, 18, 19], [16, 17, 18, 19]]]
    assertMatches(run(y), np.array(expected, np.float64), TFloat64)


GATHERS = [  # params shape, indices shape, axis, batch_dims
    ((2, 3, 4), (2, 5), 1, 1),
    ((2, 3, 4), (2, 5), 2, 1),
    ((2, 3, 4), (2, 5), -1, 1),
    ((2, 3, 4), (2, 5), 1, -1),
    ((2, 3, 4), (2, 3), 2, 2),
    ((2, 3, 4), (2, 3, 5), 2, 2),
    ((2, 3, 4, 2), (2, 3, 2, 2), 3, 2),
    ((2, 3, 4), (2, 5, 6), 2, -2),
    ((3, 4), (3,), 1, 1),
    ((2, 0, 4), (2, 5), 2, 1),
]


@pytest.mark.parametrize(("params", "indices", "axis", "batchDims"), GATHERS, ids=str)
def test_gatherWithBatchDimsKernel(
    tf: Ops, run: Run, params: tuple[int, ...], indices: tuple[int, ...], axis: int,
    batchDims: int,
) -> None:
    rng = np.random.default_rng(2)
    value = rng.normal(size=params)
    size = params[axis]
    index = rng.integers(0, max(size, 1), size=indices).astype(np.int32)
    y = tf.gather(value, index, axis, batchDims=batchDims)
    expected = batchGather(value, index, axis, batchDims)
    assert y.asOutput().shape() == Shape.of(*expected.shape)
    assertMatches(run(y), expected, TFloat64)


@pytest.mark.parametrize(
    ("params", "indices", "axis", "batchDims", "expected"),
    [
        (Shape.of(U, 3, 4), Shape.of(2, U), 1, 1, Shape.of(2, U, 4)),
        (Shape.of(2, 3, 4), Shape.unknown(), 1, 1, Shape.unknown()),
        (Shape.unknown(), Shape.of(2, 5), 1, 1, Shape.unknown()),
        (Shape.of(2, 3, 4), Shape.of(2, 5), "fed", 1, Shape.of(U, U, U)),
        (Shape.of(2, 3, 4), Shape.of(2, 5, 6), "fed", -1, Shape.of(U, U, U)),
    ],
    ids=str,
)
def test_gatherWithBatchDimsStaticShape(
    tf: Ops, params: Shape, indices: Shape, axis: Any, batchDims: int, expected: Shape
) -> None:
    """As TensorFlow's shape function; a batch dimension known in either input is known."""
    p, i = placeholder(tf, TFloat64, params), placeholder(tf, TInt32, indices)
    a = tf.placeholder(TInt32) if axis == "fed" else axis
    assert tf.gather(p, i, a, batchDims=batchDims).asOutput().shape() == expected


@pytest.mark.parametrize(
    ("params", "indices", "axis", "batchDims", "fragment"),
    [
        ((2, 3, 4), (2,), 1, 2, "batch_dims 2 is out of range [-1, 1] for indices of shape [2]"),
        ((2, 3, 4), (2, 5), 1, -3, "batch_dims -3 is out of range [-2, 2]"),
        ((2, 3, 4), (2, 5), 0, 1, "batch_dims (1) must be less than or equal to axis (0)"),
        ((2, 3, 4), (3, 5), 1, 1,
         "params.shape[0]: 2 should be equal to indices.shape[0]: 3 (a batch dimension)"),
        ((2, 3), (2, 3), 1, 2, "batch_dims 2 must be less than the rank of params 2"),
    ],
    ids=["beyond indices", "negative beyond indices", "axis before", "batch mismatch",
         "all of params"],
)
def test_gatherWithBadBatchDimsIsRejected(
    graph: Graph, tf: Ops, params: tuple[int, ...], indices: tuple[int, ...], axis: int,
    batchDims: int, fragment: str,
) -> None:
    p, i = placeholder(tf, TFloat64, params), placeholder(tf, TInt32, indices)
    assertRejected(graph, lambda: tf.gather(p, i, axis, batchDims=batchDims), ValueError,
                   "GatherV2 'Gather'", CREATED, fragment)


def test_gatherWithBadBatchDimsFedRaisesAtRunTime(tf: Ops, run: Run) -> None:
    p, i = tf.placeholder(TFloat64), tf.placeholder(TInt32)
    y = tf.gather(p, i, 1, batchDims=1)
    with pytest.raises(InvalidArgumentError, match=r"params.shape\[0\]: 2 should be equal"):
        run(y, feeds={p: np.zeros((2, 3)), i: np.zeros((3, 1), np.int32)})
    with pytest.raises(InvalidArgumentError, match=r"indices\[1, 0\] = 3 is not in \[0, 3\)"):
        run(y, feeds={p: np.zeros((2, 3)), i: np.array([[0], [3]], np.int32)})


@pytest.mark.parametrize("known", [True, False], ids=["known shapes", "unknown shapes"])
@pytest.mark.parametrize(("params", "indices", "axis", "batchDims"), GATHERS[:8], ids=str)
def test_gatherWithBatchDimsGradient(
    tf: Ops, params: tuple[int, ...], indices: tuple[int, ...], axis: int, batchDims: int,
    known: bool,
) -> None:
    """Repeated indices too: their slices are summed."""
    rng = np.random.default_rng(5)
    index = rng.integers(0, params[axis], size=indices).astype(np.int32)
    i = tf.constant(index) if known else tf.placeholder(TInt32)
    if known:
        assertGradient(tf, lambda p: tf.gather(p, i, axis, batchDims=batchDims),
                       [rng.normal(size=params)])
        return
    p = tf.placeholder(TFloat64)  # a negative batch_dims takes the rank of indices at run time
    y = tf.gather(p, i, axis, batchDims=batchDims)
    value = rng.normal(size=params)
    assertGradientsClose(y, [p], {p: value}, {i: index})


# -- Transpose: negative perm entries count from the end ---------------------------------------
@pytest.mark.parametrize(
    ("shape", "perm", "same"),
    [((2, 3), [-1, 0], [1, 0]), ((2, 3, 4), [-1, 0, 1], [2, 0, 1]),
     ((2, 3, 4), [-3, -1, -2], [0, 2, 1])],
    ids=str,
)
def test_transposeTakesNegativePermEntries(
    tf: Ops, run: Run, shape: tuple[int, ...], perm: list[int], same: list[int]
) -> None:
    """As TensorFlow 2.21 (graph mode: [2, 3] by [-1, 0] is [3, 2])."""
    value = sample(shape)
    y = tf.linalg.transpose(value, perm)
    assert y.asOutput().shape() == Shape.of(*np.transpose(value, same).shape)
    assertMatches(run(y), np.transpose(value, same), TFloat64)
    p = tf.placeholder(TInt32)
    fed = tf.linalg.transpose(value, p)
    assertMatches(run(fed, feeds={p: np.array(perm, np.int32)}), np.transpose(value, same),
                  TFloat64)


@pytest.mark.parametrize("fed", [False, True], ids=["constant perm", "fed perm"])
def test_transposeGradientWithNegativePermEntries(tf: Ops, fed: bool) -> None:
    perm = np.array([-1, 0, 1], np.int32)
    if fed:
        p = tf.placeholder(TInt32)
        x = placeholder(tf, TFloat64, (2, 3, 4))
        assertGradientsClose(tf.linalg.transpose(x, p), [x], {x: sample((2, 3, 4))}, {p: perm})
    else:
        assertGradient(tf, lambda x: tf.linalg.transpose(x, perm), [sample((2, 3, 4))])


def test_transposeRejectsAPermStillOutOfRange(tf: Ops, run: Run) -> None:
    p = tf.placeholder(TInt32)
    y = tf.linalg.transpose(sample((2, 3)), p)
    with pytest.raises(InvalidArgumentError, match=r"perm \[-3, 0\] is not a permutation"):
        run(y, feeds={p: np.array([-3, 0], np.int32)})


# -- Prod's gradient at zeros, infinities and NaN ----------------------------------------------
@pytest.mark.parametrize(
    ("row", "expected"),
    [  # TensorFlow 2.21's gradient of reduce_prod over the row (float64)
        ([INF, 1, -1, 2], [-2, -INF, INF, -INF]),
        ([1, INF, -INF, 2], [-INF, -INF, INF, -INF]),
        ([0, INF, 1, 2], [INF, 0, NAN, NAN]),
        ([NAN, 1, 2, 3], [6, NAN, NAN, NAN]),
        ([0, 0, 2, 3], [0, 0, 0, 0]),
        ([0, 2, 3, 4], [24, 0, 0, 0]),
        ([INF, 0, 2, 2], [0, INF, NAN, NAN]),
        ([2, -INF, 1, -1], [INF, -2, INF, -INF]),
        ([1.5, -2, 4, 0.5], [-4, 3, -1.5, -12]),
    ],
    ids=str,
)
def test_prodGradientAtSpecialValuesIsTensorFlows(
    tf: Ops, run: Run, row: list[float], expected: list[float]
) -> None:
    x = tf.constant(np.array([row, row[::-1]], np.float64))
    dx = tf.gradients(tf.prod(x, 1), [x]).dy(0)
    assert dx is not None
    assertMatches(run(dx), np.array([expected, expected[::-1]]), TFloat64)


def test_prodGradientAtSpecialValuesAlongOtherAxes(tf: Ops, run: Run) -> None:
    value = np.array([[[INF, 1], [0, 2]], [[-1, NAN], [2, 3]]])
    x = tf.constant(value)
    dx = tf.gradients(tf.prod(x, [0, 2]), [x]).dy(0)
    assert dx is not None
    # groups [inf, 1, -1, nan] (dimension 1 at 0) and [0, 2, 2, 3]
    expected = np.array([[[NAN, NAN], [12, 0]], [[NAN, -INF], [0, 0]]])
    assertMatches(run(dx), expected, TFloat64)
