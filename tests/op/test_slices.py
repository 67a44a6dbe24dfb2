"""Slice's, StridedSlice's and StridedSliceGrad's own behaviour.

Slice takes ``size[i]`` elements (-1: to the end) from ``begin[i]``. StridedSlice takes what
TensorFlow's ``x[...]`` operator takes: each case pairs a numpy index with the begin, end,
strides and masks that TensorFlow gives for it, and numpy computes the expected values.
StridedSliceGrad scatters dy into zeros of a shape where the same slice would take it from.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from opchecks import ALL, assertGradient, assertGradientsClose, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.core import Gradients, StridedSlice, StridedSliceGrad
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TInt64, TType

HERE = f"created at {__file__}:"
Spec = tuple[list[int], list[int], list[int], dict[str, int]]

# numpy index, (begin, end, strides, masks): for an input of shape (4, 5, 6)
CASES: list[tuple[str, Any, Spec]] = [
    ("1:3", np.s_[1:3], ([1], [3], [1], {})),
    (":,1:4:2", np.s_[:, 1:4:2], ([0, 1], [0, 4], [1, 2], {"begin": 1, "end": 1})),
    ("::-1", np.s_[::-1], ([0], [0], [-1], {"begin": 1, "end": 1})),
    ("-1", np.s_[-1], ([-1], [0], [1], {"shrink": 1})),
    ("...,2", np.s_[..., 2], ([0, 2], [0, 3], [1, 1], {"ellipsis": 1, "shrink": 2})),
    ("1,...,newaxis", np.s_[1, ..., None],
     ([1, 0, 0], [2, 0, 0], [1, 1, 1], {"shrink": 1, "ellipsis": 2, "newAxis": 4})),
    ("newaxis,2:,-3:-1", np.s_[None, 2:, -3:-1],
     ([0, 2, -3], [0, 0, -1], [1, 1, 1], {"newAxis": 1, "end": 2})),
    ("3:1:-1,10:", np.s_[3:1:-1, 10:], ([3, 10], [1, 0], [-1, 1], {"end": 2})),
    ("-100:100", np.s_[-100:100], ([-100], [100], [1], {})),
    (":,:,::4", np.s_[:, :, ::4], ([0, 0, 0], [0, 0, 0], [1, 1, 4], {"begin": 7, "end": 7})),
    ("()", np.s_[()], ([], [], [], {})),
    ("1:,...,0", np.s_[1:, ..., 0],
     ([1, 0, 0], [0, 0, 1], [1, 1, 1], {"end": 1, "ellipsis": 2, "shrink": 4})),
]
IDS = [c[0] for c in CASES]
# numpy index, (begin, end, strides, masks): for a sliced tensor of shape (4, 5)
GRAD_CASES: list[tuple[str, Any, Spec]] = [
    ("1:3", np.s_[1:3], ([1], [3], [1], {})),
    (":,::-2", np.s_[:, ::-2], ([0, 0], [0, 0], [1, -2], {"begin": 3, "end": 3})),
    ("-1", np.s_[-1], ([-1], [0], [1], {"shrink": 1})),
    ("...,newaxis,1", np.s_[..., None, 1],
     ([0, 0, 1], [0, 0, 2], [1, 1, 1], {"ellipsis": 1, "newAxis": 2, "shrink": 4})),
    ("0:0", np.s_[0:0], ([0], [0], [1], {})),
]
GRAD_IDS = [c[0] for c in GRAD_CASES]


def options(op: Any, masks: dict[str, int]) -> list[Any]:
    factories = {"begin": op.beginMask, "end": op.endMask, "ellipsis": op.ellipsisMask,
                 "newAxis": op.newAxisMask, "shrink": op.shrinkAxisMask}
    return [factories[name](value) for name, value in masks.items()]


def sliced(tf: Ops, x: Any, spec: Spec) -> Any:
    begin, end, strides, masks = spec
    vectors = [np.array(v, np.int32) for v in (begin, end, strides)]
    return tf.stridedSlice(x, *vectors, *options(StridedSlice, masks))


def grad(tf: Ops, shape: Any, dy: Any, spec: Spec) -> Any:
    begin, end, strides, masks = spec
    vectors = [np.array(v, np.int32) for v in (begin, end, strides)]
    return tf.stridedSliceGrad(shape, *vectors, dy, *options(StridedSliceGrad, masks))


def sample(dtype: type[TType], shape: tuple[int, ...]) -> Any:
    values = np.arange(1, 1 + int(np.prod(shape))).reshape(shape)
    return values % 3 == 1 if dtype is TBool else values.astype(dtype.DTYPE)


def point(shape: tuple[int, ...]) -> Any:
    return (np.arange(int(np.prod(shape))) * 0.25 - 2.0).reshape(shape)


def vector(*values: int) -> Any:
    return np.array(values, np.int32)


# -- attributes ----------------------------------------------------------------------------
@pytest.mark.parametrize(("begin", "indexType"), [([1], TInt32), (np.array([1], np.int64), TInt64)],
                         ids=["int32", "int64"])
def test_beginSetsIndexAndTheOtherVectorsFollow(
    tf: Ops, begin: Any, indexType: type[TType]
) -> None:
    x = tf.constant([1, 2, 3])
    s, ss = tf.slice(x, begin, [2]), tf.stridedSlice(x, begin, [3], [1], StridedSlice.endMask(1))
    g = tf.stridedSliceGrad([3], begin, [3], [1], tf.constant([1.0, 2.0]))
    assert s.op().attr("Index") is ss.op().attr("Index") is g.op().attr("Index") is indexType
    assert s.op().input(2).dataType() is indexType
    assert s.asOutput().shape() == ss.asOutput().shape() == Shape.of(2)
    assert [ss.op().attr(m) for m in ("begin_mask", "end_mask", "ellipsis_mask",
                                      "new_axis_mask", "shrink_axis_mask")] == [0, 1, 0, 0, 0]


# -- Slice ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("shape", "begin", "size", "expected"),
    [
        (Shape.of(4, 5), (1, 2), (2, 3), Shape.of(2, 3)),
        (Shape.of(4, 5), (1, 2), (-1, 3), Shape.of(3, 3)),
        (Shape.of(4, 5), (4, 5), (0, 0), Shape.of(0, 0)),
        (Shape.of(4, 5), (0, 0), (-1, -1), Shape.of(4, 5)),
        (Shape.scalar(), (), (), Shape.scalar()),
        (Shape.of(-1, 5), (1, 1), (2, -1), Shape.of(2, 4)),
        (Shape.of(-1, 5), (1, 1), (-1, 2), Shape.of(-1, 2)),
        (Shape.unknown(), (1, 1), (2, -1), Shape.of(2, -1)),
    ],
    ids=str,
)
def test_sliceStaticShapeFromConstantBeginAndSize(
    tf: Ops, shape: Shape, begin: tuple[int, ...], size: tuple[int, ...], expected: Shape
) -> None:
    s = tf.slice(placeholder(tf, TFloat32, shape), vector(*begin), vector(*size))
    assert s.asOutput().shape() == expected


def test_sliceStaticShapeFromBeginOrSizeKnownAtRunTime(tf: Ops) -> None:
    x = placeholder(tf, TFloat32, (4, 5))
    size = placeholder(tf, TInt32, (2,))
    assert tf.slice(x, [0, 0], size).asOutput().shape() == Shape.of(-1, -1)  # the rank
    like = tf.shape(placeholder(tf, TFloat32, (-1, 2)))  # a Shape op: its known sizes
    assert tf.slice(x, [1, 1], like).asOutput().shape() == Shape.of(-1, 2)
    begin = tf.placeholder(TInt32)  # the sizes, but not "to the end"
    assert tf.slice(x, begin, [2, -1]).asOutput().shape() == Shape.of(2, -1)


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(
    ("shape", "begin", "size"),
    [((4, 5), (1, 2), (2, 3)), ((4, 5), (1, 0), (-1, -1)), ((4, 5), (4, 0), (0, 5)),
     ((2, 3, 4), (1, 1, 1), (1, 2, -1)), ((), (), ()), ((0, 3), (0, 1), (0, 2))],
    ids=str,
)
def test_sliceKernelMatchesNumpy(
    tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...], begin: tuple[int, ...],
    size: tuple[int, ...],
) -> None:
    value = sample(dtype, shape)
    s = tf.slice(tf.constant(value), vector(*begin), vector(*size))
    index = tuple(slice(b, None if n == -1 else b + n) for b, n in zip(begin, size, strict=True))
    assert s.asOutput().dataType() is dtype
    np.testing.assert_array_equal(run(s), value[index], strict=True)


def test_sliceKernelWithBeginAndSizeFedAtRunTime(tf: Ops, run: Any) -> None:
    begin, size = tf.placeholder(TInt64), tf.placeholder(TInt64)
    s = tf.slice(tf.constant([[1, 2, 3], [4, 5, 6]]), begin, size)
    assert run(s, feeds={begin: np.array([0, 1]), size: np.array([-1, 1])}).tolist() == [[2], [5]]


@pytest.mark.parametrize(
    ("shape", "begin", "size", "declared"),
    [((4, 3), (1, 1), (2, 2), None), ((4, 3), (0, 1), (-1, -1), None),
     ((2, 2, 3), (1, 0, 1), (1, 2, 1), None), ((3,), (3,), (0,), None),
     ((4, 3), (1, 1), (2, -1), Shape.of(-1, 3)), ((4, 3), (1, 1), (2, -1), Shape.unknown())],
    ids=str,
)
def test_sliceGradientMatchesFiniteDifferences(
    tf: Ops, shape: tuple[int, ...], begin: tuple[int, ...], size: tuple[int, ...],
    declared: Shape | None,
) -> None:
    assertGradient(tf, lambda x: tf.slice(x, vector(*begin), vector(*size)), [point(shape)],
                   None if declared is None else [declared])


def test_sliceGradientWithABeginFedAtRunTime(tf: Ops) -> None:
    x, begin = placeholder(tf, TFloat64, (4, 3)), tf.placeholder(TInt64)
    assertGradientsClose(tf.slice(x, begin, np.array([2, 1])), [x], {x: point((4, 3))},
                         feeds={begin: np.array([1, 2])})


def test_sliceGradientIsTheIncomingGradientPaddedWithZeros(tf: Ops, run: Any) -> None:
    x = tf.constant(np.zeros((3, 3)))
    seed = Gradients.dx([tf.constant(np.array([[1.0, 2.0]]))])
    d = tf.gradients(tf.slice(x, [1, 1], [1, 2]), [x], seed).dy(0)
    assert d is not None and d.shape() == Shape.of(3, 3)
    assert run(d).tolist() == [[0.0, 0.0, 0.0], [0.0, 1.0, 2.0], [0.0, 0.0, 0.0]]


# -- StridedSlice --------------------------------------------------------------------------
@pytest.mark.parametrize(("name", "index", "spec"), CASES, ids=IDS)
def test_stridedSliceStaticShapeIsTheShapeOfTheNumpyIndex(
    tf: Ops, name: str, index: Any, spec: Spec
) -> None:
    s = sliced(tf, placeholder(tf, TFloat32, (4, 5, 6)), spec)
    assert s.asOutput().shape() == Shape.of(*np.zeros((4, 5, 6))[index].shape)


@pytest.mark.parametrize(
    ("name", "shape", "expected"),
    [(":,1:4:2", Shape.of(-1, 5, -1), Shape.of(-1, 2, -1)),
     ("1,...,newaxis", Shape.of(-1, 5, -1), Shape.of(5, -1, 1)),
     ("...,2", Shape.of(4, -1, -1), Shape.of(4, -1)),
     ("1:3", Shape.unknown(), Shape.unknown())],
    ids=str,
)
def test_stridedSliceStaticShapeOfAPartiallyKnownInput(
    tf: Ops, name: str, shape: Shape, expected: Shape
) -> None:
    s = sliced(tf, placeholder(tf, TFloat32, shape), CASES[IDS.index(name)][2])
    assert s.asOutput().shape() == expected


def test_stridedSliceStaticShapeWithASpecKnownAtRunTimeFollowsTheMasks(tf: Ops) -> None:
    begin = placeholder(tf, TInt32, (3,))
    s = tf.stridedSlice(placeholder(tf, TFloat32, (4, 5, 6)), begin, begin, [1, 1, 1],
                        StridedSlice.shrinkAxisMask(1), StridedSlice.newAxisMask(4))
    assert s.asOutput().shape() == Shape.of(-1, 1, 6)


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(("name", "index", "spec"), CASES, ids=IDS)
def test_stridedSliceKernelMatchesTheNumpyIndex(
    tf: Ops, run: Any, dtype: type[TType], name: str, index: Any, spec: Spec
) -> None:
    value = sample(dtype, (4, 5, 6))
    s = sliced(tf, tf.constant(value), spec)
    assert s.asOutput().dataType() is dtype
    np.testing.assert_array_equal(run(s), value[index], strict=True)


@pytest.mark.parametrize(
    ("shape", "spec", "index"),
    [((), ([], [], [], {}), np.s_[()]),
     ((0, 3), ([0, 1], [0, 3], [1, 1], {"begin": 1}), np.s_[:0, 1:3]),
     ((3,), ([0], [0], [1], {"newAxis": 1}), np.s_[None])],
    ids=["scalar", "empty", "newAxisOfAVector"],
)
def test_stridedSliceKernelOfEdgeShapes(
    tf: Ops, run: Any, shape: tuple[int, ...], spec: Spec, index: Any
) -> None:
    value = sample(TInt32, shape)
    np.testing.assert_array_equal(run(sliced(tf, tf.constant(value), spec)), value[index],
                                  strict=True)


def test_stridedSliceKernelWithASpecFedAtRunTime(tf: Ops, run: Any) -> None:
    begin, end = tf.placeholder(TInt64), tf.placeholder(TInt64)
    s = tf.stridedSlice(tf.constant([0, 1, 2, 3, 4, 5]), begin, end, np.array([2], np.int64))
    assert run(s, feeds={begin: np.array([1]), end: np.array([6])}).tolist() == [1, 3, 5]


@pytest.mark.parametrize(("name", "index", "spec"), [CASES[i] for i in (1, 2, 3, 5, 6, 7)],
                         ids=[IDS[i] for i in (1, 2, 3, 5, 6, 7)])
def test_stridedSliceGradientMatchesFiniteDifferences(
    tf: Ops, name: str, index: Any, spec: Spec
) -> None:
    assertGradient(tf, lambda x: sliced(tf, x, spec), [point((4, 5, 2))])


@pytest.mark.parametrize("declared", [Shape.of(-1, 5), Shape.unknown()], ids=str)
def test_stridedSliceGradientWithoutAStaticShape(tf: Ops, declared: Shape) -> None:
    assertGradient(tf, lambda x: tf.stridedSlice(x, [1, 4], [0, 0], [1, -2],
                                                 StridedSlice.endMask(3)),
                   [point((3, 5))], [declared])


def test_stridedSliceGradientWithASpecFedAtRunTime(tf: Ops) -> None:
    x, begin = placeholder(tf, TFloat64, (3, 4)), tf.placeholder(TInt32)
    s = tf.stridedSlice(x, begin, [3, 4], [1, 2], StridedSlice.shrinkAxisMask(1))
    assertGradientsClose(s, [x], {x: point((3, 4))}, feeds={begin: vector(2, 1)})


def test_stridedSliceGradientIsTheIncomingGradientScatteredIntoZeros(tf: Ops, run: Any) -> None:
    x = tf.constant(np.zeros((2, 4)))
    s = tf.stridedSlice(x, [1, 0], [2, 0], [1, 2], StridedSlice.shrinkAxisMask(1),
                        StridedSlice.endMask(2))
    d = tf.gradients(s, [x], Gradients.dx([tf.constant(np.array([1.0, 2.0]))])).dy(0)
    assert d is not None and d.shape() == Shape.of(2, 4)
    assert d.op().type() == "StridedSliceGrad"
    assert run(d).tolist() == [[0.0, 0.0, 0.0, 0.0], [1.0, 0.0, 2.0, 0.0]]


def test_stridedSliceSecondDerivativeMatchesFiniteDifferences(tf: Ops) -> None:
    def firstDerivative(x: Any) -> Any:
        s = tf.stridedSlice(tf.math.square(x), [4], [0], [-2])
        return tf.gradients(tf.sum(tf.math.mul(s, s), 0), [x]).dy(0)

    assertGradient(tf, firstDerivative, [point((5,))])


# -- StridedSliceGrad ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("shape", "expected"),
    [([4, 5], Shape.of(4, 5)),
     (Shape.of(-1, 5), Shape.of(-1, 5)),  # the shape a Shape op of this input will hold
     (Shape.unknown(), Shape.unknown())],
    ids=str,
)
def test_stridedSliceGradStaticShapeIsTheShapeInput(tf: Ops, shape: Any, expected: Shape) -> None:
    s = tf.shape(placeholder(tf, TFloat32, shape)) if isinstance(shape, Shape) else shape
    g = tf.stridedSliceGrad(s, [1], [3], [1], tf.placeholder(TFloat32))
    assert g.asOutput().shape() == expected


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(("name", "index", "spec"), GRAD_CASES, ids=GRAD_IDS)
def test_stridedSliceGradKernelScattersDyIntoZeros(
    tf: Ops, run: Any, dtype: type[TType], name: str, index: Any, spec: Spec
) -> None:
    dy = sample(dtype, np.zeros((4, 5))[index].shape)
    g = grad(tf, [4, 5], tf.constant(dy), spec)
    expected = np.zeros((4, 5), dy.dtype)
    expected[index] = dy
    assert g.asOutput().dataType() is dtype
    np.testing.assert_array_equal(run(g), expected, strict=True)


def test_stridedSliceGradKernelWithAShapeFedAtRunTime(tf: Ops, run: Any) -> None:
    shape = tf.placeholder(TInt64)
    g = tf.stridedSliceGrad(shape, np.array([1], np.int64), [3], [1], tf.constant([5, 6]))
    assert run(g, feeds={shape: np.array([4])}).tolist() == [0, 5, 6, 0]
    assert run(g, feeds={shape: np.array([3])}).tolist() == [0, 5, 6]


@pytest.mark.parametrize(("name", "index", "spec"), GRAD_CASES[:4], ids=GRAD_IDS[:4])
def test_stridedSliceGradGradientWithRespectToDyMatchesFiniteDifferences(
    tf: Ops, name: str, index: Any, spec: Spec
) -> None:
    shape = np.zeros((4, 5))[index].shape
    assertGradient(tf, lambda dy: grad(tf, [4, 5], dy, spec), [point(shape)])


def test_stridedSliceGradGradientWithRespectToDyIsTheSliceOfTheIncomingGradient(
    tf: Ops, run: Any
) -> None:
    dy = tf.constant(np.zeros(2))
    g = tf.stridedSliceGrad([5], [0], [0], [3], dy, StridedSliceGrad.endMask(1))
    seed = Gradients.dx([tf.constant(np.array([1.0, 2.0, 3.0, 4.0, 5.0]))])
    d = tf.gradients(g, [dy], seed).dy(0)
    assert d is not None and d.shape() == Shape.of(2)
    assert run(d).tolist() == [1.0, 4.0]


# -- bad arguments -------------------------------------------------------------------------
SLICE = "Slice 'Slice' ("
STRIDED = "StridedSlice 'StridedSlice' ("
GRAD = "StridedSliceGrad 'StridedSliceGrad' ("


@pytest.mark.parametrize(
    ("create", "error", "named", "fragment"),
    [
        (lambda tf: tf.slice(np.zeros((2, 3)), vector(0, 4), vector(1, 1)), ValueError, SLICE,
         "begin[1] = 4 is not in [0, 3]"),
        (lambda tf: tf.slice(np.zeros((2, 3)), vector(-1, 0), vector(1, 1)), ValueError, SLICE,
         "begin[0] = -1 is not in [0, 2]"),
        (lambda tf: tf.slice(np.zeros((2, 3)), vector(1, 1), vector(2, 1)), ValueError, SLICE,
         "begin[0] + size[0] = 3 is beyond dimension 0 of size 2"),
        (lambda tf: tf.slice(np.zeros((2, 3)), vector(0, 0), vector(1, -2)), ValueError, SLICE,
         "size[1] = -2 must be -1"),
        (lambda tf: tf.slice(np.zeros((2, 3)), vector(0), vector(1)), ValueError, SLICE,
         "begin and size have 1 entries for a tensor of rank 2"),
        (lambda tf: tf.slice(np.zeros(1), [0, 0], [1]), ValueError, SLICE,
         "begin and size must have the same length, got 2 and 1"),
        (lambda tf: tf.slice([1.0], [[0]], [1]), ValueError, SLICE, "begin must be a vector"),
        (lambda tf: tf.slice([1.0], np.array([0], np.int64), vector(1)), TypeError, SLICE,
         "input 'size' has data type int32"),
        (lambda tf: tf.slice([1.0], [0.0], [1.0]), TypeError, "Slice input 'begin' (", ""),
        (lambda tf: sliced(tf, np.zeros((4, 5, 6)), ([0, 0], [1, 1], [1, 1], {"ellipsis": 3})),
         ValueError, STRIDED, "ellipsis_mask 3 has more than one bit set"),
        (lambda tf: sliced(tf, np.zeros((4, 5, 6)), ([0], [1], [0], {})), ValueError, STRIDED,
         "strides[0] must not be 0"),
        (lambda tf: sliced(tf, np.zeros((4, 5, 6)), ([1], [2], [-1], {"shrink": 1})), ValueError,
         STRIDED, "needs a positive stride"),
        (lambda tf: sliced(tf, np.zeros((4, 5, 6)), ([4], [5], [1], {"shrink": 1})), ValueError,
         STRIDED, "index 4 is out of range for dimension 0 of size 4"),
        (lambda tf: sliced(tf, np.zeros((4, 5, 6)), ([0, 0, -7], [1] * 3, [1] * 3,
                                                     {"shrink": 4})),
         ValueError, STRIDED, "index -7 is out of range for dimension 2 of size 6"),
        (lambda tf: sliced(tf, np.zeros((4, 5, 6)), ([0] * 4, [1] * 4, [1] * 4, {})), ValueError,
         STRIDED, "the slice indexes 4 dimensions of a tensor of rank 3"),
        (lambda tf: tf.stridedSlice([1.0], [0, 0], [1], [1]), ValueError, STRIDED,
         "begin, end and strides must have the same length"),
        (lambda tf: tf.stridedSlice([1.0], np.array([0], np.int64), vector(1), vector(1)),
         TypeError, STRIDED, "input 'end' has data type int32"),
        (lambda tf: tf.stridedSlice([1.0], [0.0], [1.0], [1.0]), TypeError,
         "StridedSlice input 'begin' (", ""),
        (lambda tf: tf.stridedSliceGrad([4], [1], [3], [1], [1.0, 2.0, 3.0]), ValueError, GRAD,
         "dy has shape [3], but the slice of a tensor of shape [4] has shape [2]"),
        (lambda tf: tf.stridedSliceGrad([4], [1], [3], [0], [1.0, 2.0]), ValueError, GRAD,
         "strides[0] must not be 0"),
        (lambda tf: tf.stridedSliceGrad([4.0], [1], [3], [1], [1.0]), TypeError,
         "StridedSliceGrad input 'shape' (", ""),
    ],
    ids=["sliceBeginBeyond", "sliceBeginNegative", "sliceSizeBeyond", "sliceSizeNegative",
         "sliceRank", "sliceLengths", "sliceMatrixBegin", "sliceMixedIndexTypes", "sliceFloat",
         "stridedTwoEllipses", "stridedZeroStride", "stridedShrinkNegativeStride",
         "stridedIndexBeyond", "stridedIndexBelow", "stridedRank", "stridedLengths",
         "stridedMixedIndexTypes", "stridedFloat", "gradDyShape", "gradZeroStride",
         "gradFloatShape"],
)
def test_badArgumentsAreRejected(
    graph: Graph, tf: Ops, create: Any, error: type[Exception], named: str, fragment: str
) -> None:
    assertRejected(graph, lambda: create(tf), error, named + HERE, fragment)


@pytest.mark.parametrize(
    ("build", "dtype", "fed", "fragment"),
    [
        (lambda tf, p: tf.slice(p, [1], [3]), TFloat32, np.zeros(3, np.float32),
         "begin[0] = 1, size[0] = 3 is not within dimension 0 of size 3 [op 'Slice' of type"),
        (lambda tf, p: tf.slice(p, [0], [1]), TFloat32, np.zeros((2, 2), np.float32),
         "begin [0] and size [1] must have one entry per dimension of shape [2, 2]"),
        (lambda tf, p: tf.stridedSlice([1, 2, 3], p, [0], [1], StridedSlice.shrinkAxisMask(1)),
         TInt32, vector(3), "index 3 is out of range for dimension 0 of size 3 [op"),
        (lambda tf, p: tf.stridedSlice([1, 2, 3], [0], [2], p), TInt32, vector(0),
         "strides[0] must not be 0 [op 'StridedSlice' of type StridedSlice"),
        (lambda tf, p: tf.stridedSliceGrad([4], [1], [3], [1], p), TFloat32,
         np.zeros(3, np.float32), "dy has shape [3], but the slice of a tensor of shape [4] has"),
    ],
    ids=["sliceBeyond", "sliceRank", "stridedIndex", "stridedZeroStride", "gradDyShape"],
)
def test_badArgumentsAtRunTimeRaiseInvalidArgumentError(
    tf: Ops, run: Any, build: Any, dtype: type[TType], fed: Any, fragment: str
) -> None:
    p = tf.placeholder(dtype)
    y = build(tf, p)
    with pytest.raises(InvalidArgumentError) as info:
        run(y, feeds={p: fed})
    assert info.value.op == y.op()
    assert fragment in str(info.value) and HERE in str(info.value)
