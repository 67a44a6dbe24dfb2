"""BiasAdd's and BiasAddGrad's own behaviour: BiasAdd adds a bias vector along the last
dimension of a value of rank 2 or more (NHWC, the only data format); BiasAddGrad, its gradient
for the bias, sums out_backprop over every dimension but the last."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from opchecks import NUMBERS, assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.nn import BiasAdd, BiasAddGrad
from tfops.types import TBool, TFloat64, TType

HERE = f"created at {__file__}:"
BIAS_ADD, BIAS_ADD_GRAD = f"BiasAdd 'BiasAdd' ({HERE}", f"BiasAddGrad 'BiasAddGrad' ({HERE}"


def sample(shape: tuple[int, ...], seed: int = 4) -> Any:
    return np.random.default_rng(seed).normal(size=shape)


def test_dataFormatIsNhwcByDefaultAndAsAnOption(tf: Ops) -> None:
    v, b = tf.constant([[1.0, 2.0]]), tf.constant([3.0, 4.0])
    assert tf.nn.biasAdd(v, b).op().attr("data_format") == "NHWC"
    assert tf.nn.biasAdd(v, b, BiasAdd.dataFormat("NHWC")).op().attr("data_format") == "NHWC"
    assert tf.nn.biasAddGrad(v).op().attr("data_format") == "NHWC"
    d = tf.nn.biasAddGrad(v, BiasAddGrad.dataFormat("NHWC"))
    assert d.op().attr("data_format") == "NHWC"


@pytest.mark.parametrize(
    ("value", "bias", "expected"),
    [
        (Shape.of(2, 3), Shape.of(3), Shape.of(2, 3)),
        (Shape.of(2, 4, 4, 3), Shape.of(3), Shape.of(2, 4, 4, 3)),
        (Shape.of(0, 3), Shape.of(3), Shape.of(0, 3)),
        (Shape.of(-1, 3), Shape.of(3), Shape.of(-1, 3)),
        (Shape.of(2, -1), Shape.of(5), Shape.of(2, 5)),
        (Shape.of(2, 3), Shape.unknown(), Shape.of(2, 3)),
        (Shape.of(2, 3), Shape.of(-1), Shape.of(2, 3)),
        (Shape.unknown(), Shape.of(3), Shape.unknown()),
    ],
    ids=str,
)
def test_biasAddOutputShapeIsTheValueShape(
    tf: Ops, value: Shape, bias: Shape, expected: Shape
) -> None:
    y = tf.nn.biasAdd(placeholder(tf, TFloat64, value), placeholder(tf, TFloat64, bias))
    assert y.asOutput().shape() == expected


@pytest.mark.parametrize(
    ("shape", "expected"),
    [(Shape.of(2, 3), Shape.of(3)), (Shape.of(2, 4, 4, 5), Shape.of(5)),
     (Shape.of(0, 3), Shape.of(3)), (Shape.of(-1, 3), Shape.of(3)), (Shape.of(2, -1), Shape.of(-1)),
     (Shape.unknown(), Shape.of(-1))],
    ids=str,
)
def test_biasAddGradOutputIsAVectorOfTheLastDimension(
    tf: Ops, shape: Shape, expected: Shape
) -> None:
    assert tf.nn.biasAddGrad(placeholder(tf, TFloat64, shape)).asOutput().shape() == expected


@pytest.mark.parametrize("dtype", NUMBERS, ids=lambda t: t.NAME)
def test_kernelsAddTheBiasToEveryRowAndSumTheRows(tf: Ops, run: Any, dtype: type[TType]) -> None:
    value = np.array([[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [0, 1, 2]]], dtype.DTYPE)
    y = tf.nn.biasAdd(tf.constant(value), tf.constant(np.array([10, 20, 30], dtype.DTYPE)))
    d = tf.nn.biasAddGrad(tf.constant(np.arange(12).reshape(2, 2, 3).astype(dtype.DTYPE)))
    assert y.asOutput().dataType() is d.asOutput().dataType() is dtype
    result, sums = run(y, d)
    np.testing.assert_array_equal(result, value + np.array([10, 20, 30], dtype.DTYPE), strict=True)
    assert result[1, 0].tolist() == [17, 28, 39]
    np.testing.assert_array_equal(sums, np.array([18, 22, 26], dtype.DTYPE), strict=True)


def test_integerSumsWrapAround(tf: Ops, run: Any) -> None:
    value, bias = np.array([[250, 1]], np.uint8), np.array([10, 1], np.uint8)
    assert run(tf.nn.biasAdd(tf.constant(value), tf.constant(bias))).tolist() == [[4, 2]]
    assert run(tf.nn.biasAddGrad(tf.constant(np.array([[200], [100]], np.uint8)))).tolist() == [44]


def test_biasAddGradKernelMatchesNumpyOnFloat64(tf: Ops, run: Any) -> None:
    g = sample((3, 2, 4))
    np.testing.assert_allclose(run(tf.nn.biasAddGrad(tf.constant(g))), g.sum(axis=(0, 1)),
                               rtol=1e-14)


def test_kernelsOfAnEmptyBatch(tf: Ops, run: Any) -> None:
    empty = tf.constant(np.zeros((0, 3), np.float32))
    result, sums = run(tf.nn.biasAdd(empty, tf.constant(np.ones(3, np.float32))),
                       tf.nn.biasAddGrad(empty))
    np.testing.assert_array_equal(result, np.zeros((0, 3), np.float32), strict=True)
    np.testing.assert_array_equal(sums, np.zeros(3, np.float32), strict=True)


def test_biasAddKernelOfFedPartiallyKnownShapes(tf: Ops, run: Any) -> None:
    v, b = placeholder(tf, TFloat64, (-1, 2)), tf.placeholder(TFloat64)
    result = run(tf.nn.biasAdd(v, b), feeds={v: np.zeros((3, 2)), b: np.array([1.0, -1.0])})
    assert result.tolist() == [[1.0, -1.0]] * 3


@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (2, 3, 4), (2, 2, 2, 3)], ids=str)
def test_gradientMatchesFiniteDifferences(tf: Ops, shape: tuple[int, ...]) -> None:
    assertGradient(tf, lambda v, b: tf.nn.biasAdd(v, b), [sample(shape, 0), sample(shape[-1:], 1)])
    if len(shape) < 4:
        assertGradient(tf, lambda g: tf.nn.biasAddGrad(g), [sample(shape)])


def test_gradientWithUnknownShapes(tf: Ops) -> None:
    assertGradient(tf, lambda v, b: tf.nn.biasAdd(v, b), [sample((3, 2), 0), sample((2,), 1)],
                   [None, None])
    assertGradient(tf, lambda g: tf.nn.biasAddGrad(g), [sample((2, 2, 3))], [None])


def test_biasGradientIsBiasAddGradTheSumOverAllButTheLastDimension(tf: Ops, run: Any) -> None:
    v, b = tf.constant(np.zeros((2, 2, 3))), tf.constant(np.zeros(3))
    seed = np.arange(12.0).reshape(2, 2, 3)
    y = tf.sum(tf.math.mul(tf.nn.biasAdd(v, b), tf.constant(seed)), [0, 1, 2])
    grads = tf.gradients(y, [v, b])
    dv, db = grads.dy(0), grads.dy(1)
    assert dv is not None and db is not None and db.op().type() == "BiasAddGrad"
    assert run(db).tolist() == [18.0, 22.0, 26.0]
    assert run(dv).tolist() == seed.tolist()


def test_biasAddGradGradientBroadcastsTheIncomingGradient(tf: Ops, run: Any) -> None:
    g = tf.constant(np.zeros((2, 3)))
    d = tf.gradients(tf.math.mul(tf.nn.biasAddGrad(g), [1.0, 2.0, 3.0]), [g]).dy(0)
    assert d is not None and d.shape() == Shape.of(2, 3)
    assert run(d).tolist() == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]


def test_secondOrderGradientMatchesFiniteDifferences(tf: Ops) -> None:
    def biasGradient(v: Any, b: Any) -> Any:
        return tf.gradients(tf.sum(tf.math.square(tf.nn.biasAdd(v, b)), [0, 1]), [b]).dy(0)

    assertGradient(tf, biasGradient, [sample((2, 3), 0), sample((3,), 1)])


@pytest.mark.parametrize(
    ("create", "error", "named", "fragment"),
    [
        (lambda tf, v: tf.nn.biasAdd([[True]], [True]), TypeError, BIAS_ADD,
         "data type bool is not allowed"),
        (lambda tf, v: tf.nn.biasAdd(np.zeros((2, 3), np.float32), v[3]), TypeError, BIAS_ADD,
         "input 'bias' has data type float64"),
        (lambda tf, v: tf.nn.biasAdd(v[2, 3], [True, False, True]), TypeError,
         f"BiasAdd input 'bias' ({HERE}", "[True, False, True] cannot be converted to float64"),
        (lambda tf, v: tf.nn.biasAdd(v[2, 3], v[4]), ValueError, BIAS_ADD,
         "bias of length 4 does not match the last dimension"),
        (lambda tf, v: tf.nn.biasAdd(v[2, 3], [1.0, 2.0]), ValueError, BIAS_ADD,
         "bias of length 2 does not match the last dimension"),
        (lambda tf, v: tf.nn.biasAdd(v[3], v[3]), ValueError, BIAS_ADD, "rank 2 or more"),
        (lambda tf, v: tf.nn.biasAdd(v[2, 3], v[1, 3]), ValueError, BIAS_ADD,
         "bias must be a vector, got shape [1, 3]"),
        (lambda tf, v: tf.nn.biasAdd(v[2, 3], v[()]), ValueError, BIAS_ADD,
         "bias must be a vector, got shape []"),
        (lambda tf, v: tf.nn.biasAdd(v[2, 3, 4, 4], v[3], BiasAdd.dataFormat("NCDHW")),
         ValueError, BIAS_ADD, "data_format 'NCDHW' is not supported"),
        (lambda tf, v: tf.nn.biasAddGrad(v["bool"]), TypeError, BIAS_ADD_GRAD,
         "data type bool is not allowed"),
        (lambda tf, v: tf.nn.biasAddGrad([[True]]), TypeError, BIAS_ADD_GRAD,
         "data type bool is not allowed"),
        (lambda tf, v: tf.nn.biasAddGrad(v[()]), ValueError, BIAS_ADD_GRAD,
         "out_backprop must have rank 2 or more, got shape []"),
        (lambda tf, v: tf.nn.biasAddGrad([1.0, 2.0]), ValueError, BIAS_ADD_GRAD,
         "out_backprop must have rank 2 or more, got shape [2]"),
        (lambda tf, v: tf.nn.biasAddGrad(v[2, 3, 4, 4], BiasAddGrad.dataFormat("nchw")),
         ValueError, BIAS_ADD_GRAD, "data_format 'nchw' is not supported"),
    ],
    ids=["bool", "mixedTypes", "boolBiasValue", "biasLength", "biasValueLength", "vectorValue",
         "matrixBias", "scalarBias", "nchw", "gradBool", "gradBoolValue", "gradScalar",
         "gradVectorValue", "gradNchw"],
)
def test_badInputsAreRejected(
    graph: Graph, tf: Ops, create: Any, error: type[Exception], named: str, fragment: str
) -> None:
    # v[dims]: a float64 placeholder of that shape (made before the op), v["bool"] a bool one
    shapes: list[Any] = [(2, 3), (1, 3), (), (2, 3, 4, 4)]
    v: dict[Any, Any] = {s: placeholder(tf, TFloat64, s) for s in shapes}
    v.update({n: placeholder(tf, TFloat64, (n,)) for n in (3, 4)}, bool=tf.placeholder(TBool))
    assertRejected(graph, lambda: create(tf, v), error, named, fragment)


@pytest.mark.parametrize(
    ("create", "feeds", "fragment"),
    [(lambda tf, a, b: tf.nn.biasAdd(a, b), (np.ones((2, 3)), np.ones(2)),
      "bias of shape [2] does not match the last dimension of value [2, 3]"),
     (lambda tf, a, b: tf.nn.biasAdd(a, b), (np.ones(3), np.ones(3)),
      "does not match the last dimension of value [3] (value must have rank 2 or more)"),
     (lambda tf, a, b: tf.nn.biasAddGrad(a), (np.ones(3),),
      "out_backprop must have rank 2 or more, got shape [3]")],
    ids=["biasLength", "vectorValue", "gradVector"],
)
def test_incompatibleFedShapesRaiseInvalidArgumentError(
    tf: Ops, run: Any, create: Any, feeds: tuple[Any, ...], fragment: str
) -> None:
    a, b = tf.placeholder(TFloat64), tf.placeholder(TFloat64)
    y = create(tf, a, b)
    with pytest.raises(InvalidArgumentError) as info:
        run(y, feeds=dict(zip((a, b), feeds, strict=False)))
    assert info.value.op == y.op()
    assert fragment in str(info.value) and HERE in str(info.value)
