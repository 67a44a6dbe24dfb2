"""Specification of the composite endpoints beyond the op classes: ``tf.nn.dropout`` (TensorFlow
Python's composite), and TensorFlow Java's conveniences (``tf.array``, ``tf.constant(Shape)``,
``Constant.arrayOf``, the ``tf.shape`` helpers, the aliases, ``stridedSlice`` with ``Indices``).
Each runs on every backend."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import pytest
from opchecks import assertGradient, assertRejected, placeholder

import tfops.op.core
from tfops import Graph, Ops, Session, Shape
from tfops.composite.indices import Indices
from tfops.errors import DataTypeError
from tfops.op.core import Constant
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8

Run = Callable[..., Any]


# -- dropout -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [TFloat16, TFloat32, TFloat64], ids=lambda t: t.NAME)
def test_dropoutKeepsAboutOneMinusRateScaledByItsInverse(tf: Ops, run: Run, dtype: Any) -> None:
    x = (np.arange(1, 4001) % 97 + 1).astype(dtype.DTYPE).reshape(40, 100)
    y = tf.nn.dropout(tf.constant(x), 0.25, seed=3)
    assert y.asOutput().dataType() is dtype and y.asOutput().shape() == Shape.of(40, 100)
    result = run(y)
    kept = result != 0
    assert 0.72 < kept.mean() < 0.78  # 4000 draws: 0.75 within about 4 standard deviations
    # TensorFlow's numbers: x times 1 / (1 - rate) rounded to x's type
    np.testing.assert_array_equal(result[kept], (x * dtype.DTYPE.type(1 / 0.75))[kept])


def test_dropoutWithATensorRateDividesByOneMinusRate(tf: Ops, graph: Graph, run: Run) -> None:
    x = np.linspace(1.0, 2.0, 3000, dtype=np.float32)
    rate = placeholder(tf, TFloat64, ())
    y = tf.nn.dropout(tf.constant(x), rate)
    names = [op.name() for op in graph.operations()]
    assert {"Dropout/rate", "Dropout/Sub", "Dropout/RealDiv"} <= set(names)
    result = run(y, feeds={rate: np.array(0.6)})
    kept = result != 0
    assert 0.36 < kept.mean() < 0.44
    np.testing.assert_array_equal(result[kept], (x / (np.float32(1) - np.float32(0.6)))[kept])
    np.testing.assert_array_equal(run(y, feeds={rate: np.array(0.0)}), x)


def test_dropoutOfRateZeroIsXItselfAndAddsNoOp(tf: Ops, graph: Graph) -> None:
    x = tf.constant([1.0, 2.0])
    before = list(graph.operations())
    y = tf.nn.dropout(x, 0.0)
    assert y.asOutput() == x.asOutput() and list(graph.operations()) == before


def test_dropoutNoiseShapeKeepsOrDropsWholeSlices(tf: Ops, run: Run) -> None:
    x = np.ones((200, 5), np.float32)
    for noise in ([200, 1], [None, 1], tf.constant([200, 1])):
        y = tf.nn.dropout(tf.constant(x), 0.5, noiseShape=noise)
        assert y.asOutput().shape() == Shape.of(200, 5)
        result = run(y)
        assert set(result.ravel().tolist()) <= {0.0, 2.0}
        assert (result == result[:, :1]).all()
        assert 0 < (result[:, 0] != 0).sum() < 200


def test_dropoutWithASeedGivesTheSameMaskInEverySession(graph: Graph, tf: Ops,
                                                       backend: str) -> None:
    y = tf.nn.dropout(tf.ones([50], TFloat32), 0.5, seed=7)
    uniform = graph.operation("Dropout/RandomUniform")
    assert uniform is not None and (uniform.attr("seed"), uniform.attr("seed2")) == (87654321, 7)
    with Session(graph, backend=backend) as a, Session(graph, backend=backend) as b:
        first, second = (s.runner().fetch(y).run()[0] for s in (a, b))
    np.testing.assert_array_equal(first, second)


def test_dropoutGradientIsTheScaleWhereKeptAndZeroElsewhere(tf: Ops, run: Run) -> None:
    # the mask changes from run to run, so the value and its gradient come from one run
    x = placeholder(tf, TFloat64, (30, 10))
    y = tf.nn.dropout(x, 0.4)
    dx = tf.gradients(y, [x]).dy()[0]
    assert dx is not None
    value, grad = run(y, dx, feeds={x: np.full((30, 10), 3.0)})
    np.testing.assert_allclose(grad, np.where(value != 0, 1 / 0.6, 0.0), rtol=1e-15)
    assert 0 < (value != 0).mean() < 1


@pytest.mark.parametrize(
    ("build", "error", "message"),
    [
        (lambda tf: partial(tf.nn.dropout, tf.constant([1.0]), 1.0), ValueError,
         "rate must be a scalar tensor or a number in [0, 1), got 1.0"),
        (lambda tf: partial(tf.nn.dropout, tf.constant([1.0]), -0.5), ValueError, "got -0.5"),
        (lambda tf: partial(tf.nn.dropout, tf.constant([1, 2]), 0.5), DataTypeError,
         "x must be a floating point tensor, got int32"),
        (lambda tf: partial(tf.nn.dropout, tf.constant([1.0]), tf.constant([0.5])), ValueError,
         "rate must be a scalar"),
        (lambda tf: partial(tf.nn.dropout, tf.constant([1.0]), tf.constant(1)), DataTypeError,
         "rate must be floating point, got int32"),
        (lambda tf: partial(tf.nn.dropout, tf.constant([[1.0, 2.0]]), 0.5, noiseShape=[3, 2]),
         ValueError, "the shape [3, 2], not the shape of x [1, 2]"),
        (lambda tf: partial(tf.nn.dropout, tf.constant([1.0, 2.0]), 0.5, noiseShape=[3]),
         ValueError, "SelectV2"),
        (lambda tf: partial(tf.nn.dropout, tf.placeholder(TFloat32), 0.5, noiseShape=[None]),
         ValueError, "noiseShape [None] has None at 0"),
        (lambda tf: partial(tf.nn.dropout, tf.constant([1.0, 2.0]), 0.5, noiseShape=[1, 2]),
         ValueError, "the shape [1, 2], not the shape of x [2]"),
    ],
    ids=["rateOne", "negativeRate", "intX", "rateVector", "intRate", "noiseLarger", "noiseMismatch",
         "unfillableNone", "noiseRankTooLarge"],
)
def test_dropoutBadInputsLeaveTheGraphAsItWas(
    tf: Ops, graph: Graph, build: Callable[[Ops], Callable[[], Any]], error: type[Exception],
    message: str,
) -> None:
    call = build(tf)  # the operands are made first: only the composite's ops must go
    assertRejected(graph, call, error, message)


# -- tf.array, Constant.arrayOf, tf.constant(Shape) ----------------------------------------
@pytest.mark.parametrize(
    ("data", "dtype", "expected"),
    [
        ((1, 2, 3), TInt32, [1, 2, 3]),
        ((1.5, -2.0), TFloat32, [1.5, -2.0]),
        ((True, False), TBool, [True, False]),
        ((np.int64(2) ** 40,), TInt64, [2**40]),
        ((np.float64(0.1), np.float64(0.2)), TFloat64, [0.1, 0.2]),
        ((np.uint8(255),), TUint8, [255]),
        ((np.float16(0.5),), TFloat16, [0.5]),
    ],
    ids=lambda v: getattr(v, "NAME", None),
)
def test_arrayIsAVectorOfTheElementsType(
    tf: Ops, run: Run, data: tuple[Any, ...], dtype: Any, expected: list[Any]
) -> None:
    for a in (tf.array(*data), Constant.arrayOf(tf.scope(), *data)):
        assert a.op().type() == "Const" and a.asOutput().dataType() is dtype
        assert a.asOutput().shape() == Shape.of(len(data))
        result = run(a)
        assert result.dtype == dtype.DTYPE and result.tolist() == expected


def test_arrayOfNothingRaisesValueError(tf: Ops, graph: Graph) -> None:
    assertRejected(graph, tf.array, ValueError, "give at least one element")


@pytest.mark.parametrize(
    ("shape", "expected"),
    [(Shape.of(2, 3), [2, 3]), (Shape.scalar(), []), (Shape.of(-1, 4), [-1, 4])],
    ids=str,
)
def test_constantOfAShapeIsItsDimensionsAsInt64(
    tf: Ops, run: Run, shape: Shape, expected: list[int]
) -> None:
    c = tf.constant(shape)
    assert c.asOutput().dataType() is TInt64 and c.asOutput().shape() == Shape.of(len(expected))
    assert run(c).tolist() == expected
    assert run(Constant.create(tf.scope(), shape, TInt32)).dtype == np.int32


def test_constantOfAShapeOfUnknownRankRaisesValueError(tf: Ops, graph: Graph) -> None:
    assertRejected(graph, lambda: tf.constant(Shape.unknown()), ValueError, "unknown rank")


# -- aliases: TF Java's second names of the reductions -------------------------------------
@pytest.mark.parametrize(
    ("name", "alias", "value"),
    [
        ("sum", "reduceSum", [[1.0, 2.0], [3.0, 4.0]]),
        ("max", "reduceMax", [[1.0, 5.0], [3.0, 4.0]]),
        ("min", "reduceMin", [[1, 5], [3, -4]]),
        ("prod", "reduceProd", [[1.0, 2.0], [3.0, 4.0]]),
        ("all", "reduceAll", [[True, False], [True, True]]),
        ("any", "reduceAny", [[False, False], [True, False]]),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_aReductionAliasBuildsTheSameOp(
    tf: Ops, run: Run, name: str, alias: str, value: Any
) -> None:
    x = tf.constant(value)
    first = getattr(tf, name)(x, 1, keepDims=True)
    second = getattr(tf, alias)(x, 1, keepDims=True)
    assert type(first) is type(second)
    assert second.op().type() == first.op().type() and second.op().attr("keep_dims") is True
    np.testing.assert_array_equal(run(second), run(first))
    assert getattr(tfops.op.core, alias[0].upper() + alias[1:]) is type(first)


# -- tf.shape: TF Java's Shapes ------------------------------------------------------------
def test_shapeIsTheShapeOpAndTheGroupOfItsHelpers(tf: Ops, run: Run) -> None:
    x = tf.constant(np.zeros((2, 3), np.float32))
    s = tf.shape(x)
    assert s.op().type() == "Shape" and tf.shape(x, outType=TInt64).asOutput().dataType() is TInt64
    assert tf.shape is tf.shape  # one group per Ops
    assert Ops.shape.__doc__ is not None and Ops.shape.__doc__.startswith("Returns the shape")
    assert run(tf.shape.numDimensions(s, TInt64)).tolist() == 2


@pytest.mark.parametrize("dims", [(2, 1, 3, 1), (1,), (4, 5), (1, 1)], ids=str)
def test_shapeHelpersOfAShapeKnownOnlyAtRunTime(tf: Ops, run: Run, dims: tuple[int, ...]) -> None:
    x = placeholder(tf, TFloat32)  # of unknown rank
    s = tf.shape(x)
    helpers = {
        "flatten": (tf.shape.flatten(s), [int(np.prod(dims))]),
        "size": (tf.shape.size(s), int(np.prod(dims))),
        "sizeOfDim": (tf.shape.size(s, 0), [dims[0]]),
        "numDimensions": (tf.shape.numDimensions(s), len(dims)),
        "reduceDims": (tf.shape.reduceDims(s, tf.constant(-1)), [*dims[:-1], dims[-1]]),
        "reduceDims0": (tf.shape.reduceDims(s, 0), [int(np.prod(dims))]),
        "squeeze": (tf.shape.squeeze(s), [d for d in dims if d != 1]),
        "head": (tf.shape.head(s), list(dims[:1])),
        "take": (tf.shape.take(s, tf.constant(1)), list(dims[:1])),
        "tail": (tf.shape.tail(s), list(dims[-1:])),
        "takeLast": (tf.shape.takeLast(s, 1), list(dims[-1:])),
        "prepend": (tf.shape.prepend(s, 9), [9, *dims]),
        "append": (tf.shape.append(s, tf.constant([8, 9])), [*dims, 8, 9]),
    }
    values = run(*(h for h, _ in helpers.values()), feeds={x: np.zeros(dims, np.float32)})
    for (name, (_, expected)), value in zip(helpers.items(), values, strict=True):
        assert value.dtype == np.int32, name
        assert value.tolist() == expected, name


def test_flattenAndReduceDimsReshapeATensorAndPassGradients(tf: Ops, run: Run) -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    flat = tf.shape.flatten(tf.constant(x))
    folded = tf.shape.reduceDims(tf.constant(x), 1, TInt64)
    assert flat.op().name() == "flatten/Reshape" and folded.op().name() == "reduceDims/Reshape"
    np.testing.assert_array_equal(run(flat), x.ravel())
    np.testing.assert_array_equal(run(folded), x.reshape(2, 12))
    assertGradient(tf, lambda v: tf.math.square(tf.shape.flatten(v)), [x])
    assertGradient(tf, lambda v: tf.math.square(tf.shape.reduceDims(v, tf.constant(1))), [x])


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: partial(tf.shape.squeeze, tf.constant([1.0, 2.0])),
        lambda tf: partial(tf.shape.take, tf.constant([True]), 1),
        lambda tf: partial(tf.shape.numDimensions, tf.constant([0.5])),
    ],
    ids=["squeezeFloats", "takeBools", "numDimensionsFloats"],
)
def test_shapeHelpersOfANonIntegerVectorRaiseTypeError(
    tf: Ops, graph: Graph, build: Callable[[Ops], Callable[[], Any]]
) -> None:
    assertRejected(graph, build(tf), TypeError, "a shape must be an integer vector")


# -- stridedSlice with TF Java's Indices ----------------------------------------------------
X = np.arange(60).reshape(3, 4, 5).astype(np.float32)
SLICES = [
    ((Indices.at(1),), np.s_[1]),
    ((Indices.at(-1), Indices.at(2)), np.s_[-1, 2]),
    ((Indices.at(1, keepDim=True),), np.s_[1:2]),
    ((Indices.all(), Indices.at(0)), np.s_[:, 0]),
    ((Indices.even(), Indices.odd()), np.s_[::2, 1::2]),
    ((Indices.step(-2),), np.s_[::-2]),
    ((Indices.sliceFrom(1), Indices.sliceTo(-1)), np.s_[1:, :-1]),
    ((Indices.sliceFrom(-1, -1), Indices.sliceTo(1, -1)), np.s_[-1::-1, :1:-1]),
    ((Indices.range(1, 3), Indices.slice(0, 4, 3)), np.s_[1:3, 0:4:3]),
    ((Indices.flip(), Indices.all(), Indices.flip()), np.s_[::-1, :, ::-1]),
    ((Indices.newAxis(), Indices.at(0)), np.s_[None, 0]),
    ((Indices.ellipsis(), Indices.at(2)), np.s_[..., 2]),
    ((Indices.at(0), Indices.ellipsis(), Indices.newAxis()), np.s_[0, ..., None]),
    ((Indices.slice(None, 2), Indices.slice(1, None), Indices.slice(None, None, 2)),
     np.s_[:2, 1:, ::2]),
    ((Indices.slice(None, None),), np.s_[:]),
    ((), np.s_[()]),
]


@pytest.mark.parametrize(("indices", "key"), SLICES, ids=[str(k) for _, k in SLICES])
def test_stridedSliceWithIndicesIsNumpyIndexing(
    tf: Ops, run: Run, indices: tuple[Any, ...], key: Any
) -> None:
    y = tf.stridedSlice(tf.constant(X), *indices)
    expected = X[key]
    assert y.op().type() == "StridedSlice" and y.asOutput().shape() == Shape.of(*expected.shape)
    np.testing.assert_array_equal(run(y), expected)


def test_indicesSetTheOpsInputsAndMasksAsTfJava(tf: Ops, run: Run) -> None:
    y = tf.stridedSlice(tf.constant(X), Indices.at(1), Indices.all(), Indices.newAxis(),
                        Indices.ellipsis(), Indices.sliceTo(2))
    op = y.op()
    masks = [op.attr(m) for m in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                                  "shrink_axis_mask")]
    assert masks == [0b10010, 0b00010, 0b01000, 0b00100, 0b00001]
    assert [run(op.input(i)).tolist() for i in (1, 2, 3)] == [
        [1, 0, 0, 0, 0], [2, 0, 0, 0, 2], [1, 1, 1, 1, 1]]
    assert op.input(1).dataType() is TInt32
    np.testing.assert_array_equal(run(y), X[1, :, None, ..., :2])


def test_stridedSliceWithIndicesPassesGradients(tf: Ops) -> None:
    x = np.arange(24.0).reshape(2, 3, 4)
    assertGradient(tf, lambda v: tf.math.square(tf.stridedSlice(
        v, Indices.at(-1), Indices.flip(), Indices.sliceFrom(1, 2))), [x])


def test_stridedSliceWithTensorsStillWorks(tf: Ops, run: Run) -> None:
    y = tf.stridedSlice(tf.constant(X), [0, 1], [2, 3], [1, 1], shrinkAxisMask=1)
    np.testing.assert_array_equal(run(y), X[0, 1:3])


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda tf, x: tf.stridedSlice(x, Indices.ellipsis(), Indices.ellipsis()), ValueError,
         "can not have two ellipses"),
        (lambda tf, x: tf.stridedSlice(x, Indices.at(0), [1]), TypeError,
         "give either indices"),
        (lambda tf, x: tf.stridedSlice(x, Indices.at(0), beginMask=1), TypeError,
         "give either indices"),
        (lambda tf, x: tf.stridedSlice(x, [0], [1], Indices.at(0)), TypeError,
         "give either indices"),
        (lambda tf, x: tf.stridedSlice(x, Indices.at(2**31)), ValueError, "int32 range"),
        (lambda tf, x: tf.stridedSlice(x, Indices.at(7)), ValueError, "StridedSlice"),
    ],
    ids=["twoEllipses", "indexAndTensor", "indexAndMask", "tensorsAndIndex", "int64Bound",
         "outOfRange"],
)
def test_stridedSliceBadIndicesLeaveTheGraphAsItWas(
    tf: Ops, graph: Graph, call: Callable[[Ops, Any], Any], error: type[Exception], message: str
) -> None:
    x = tf.constant(X)
    assertRejected(graph, lambda: call(tf, x), error, message)


def test_aZeroStrideIsRejectedWhenTheIndexIsMade() -> None:
    for make in (lambda: Indices.step(0), lambda: Indices.slice(0, 2, 0),
                 lambda: Indices.sliceFrom(1, 0)):
        with pytest.raises(ValueError, match="can not have a stride of 0"):
            make()
