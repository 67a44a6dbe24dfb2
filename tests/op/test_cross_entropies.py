"""SoftmaxCrossEntropyWithLogits' and SparseSoftmaxCrossEntropyWithLogits' own behaviour: per
example, loss = -sum(labels * log_softmax(features)) and backprop = softmax(features) - labels,
the labels a distribution over the classes (dense, broadcasting with the features) or a class
index (sparse: one_hot(labels), checked at run time). ``OPS`` rows: each op with its labels'
data type, a sample of labels and their dense form."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest
from opchecks import FLOATS, assertGradient, assertGradientsClose, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.core import Gradients
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

HERE = f"created at {__file__}:"
DENSE, SPARSE = "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits"
TOLERANCE = {TFloat16: (1e-3, 1e-3), TFloat32: (1e-6, 1e-6), TFloat64: (1e-14, 1e-15)}


def logits(shape: tuple[int, ...], seed: int = 0) -> Any:
    return np.random.default_rng(seed).normal(size=shape) * 2


def distributions(shape: tuple[int, ...], seed: int = 1) -> Any:
    p = np.random.default_rng(seed).uniform(0.1, 1.0, size=shape)
    return p / np.sum(p, axis=-1, keepdims=True)


def reference(features: Any, labels: Any) -> tuple[Any, Any]:
    """Loss and backprop from a numerically stable log-softmax and dense labels, in float64."""
    f, y = np.broadcast_arrays(features.astype(np.float64), labels.astype(np.float64))
    shifted = f - np.max(f, axis=-1, keepdims=True)
    logp = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    return -np.sum(y * logp, axis=-1), np.exp(logp) - y


class Spec(NamedTuple):
    name: str
    labelType: type[TType]
    labels: Callable[[tuple[int, int]], Any]  # a sample for features of this shape
    dense: Callable[[Any, int], Any]  # the labels as distributions over this many classes

    def op(self, tf: Ops, features: Any, labels: Any) -> Any:
        create = (tf.nn.softmaxCrossEntropyWithLogits if self.name == DENSE
                  else tf.nn.sparseSoftmaxCrossEntropyWithLogits)
        return create(features, labels)


def sparseSpec(labelType: type[TType]) -> Spec:
    def labels(shape: tuple[int, int]) -> Any:
        return ((np.arange(shape[0]) * 2 + 2) % shape[1]).astype(labelType.DTYPE)

    return Spec(SPARSE, labelType, labels, lambda y, n: np.eye(n)[y])


OPS = [Spec(DENSE, TFloat64, distributions, lambda y, n: y), sparseSpec(TInt64)]
each = pytest.mark.parametrize("spec", OPS, ids=lambda spec: spec.name)


def oneHot(spec: Spec, labels: list[int]) -> Any:
    """``labels`` (class indices) as the labels of ``spec``, float64 one-hot rows when dense."""
    return np.eye(2)[labels] if spec.name == DENSE else np.array(labels, np.int64)


# -- construction --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("labels", "labelType"),
    [(np.array([1], np.int32), TInt32), (np.array([1], np.int64), TInt64),
     ([1], TInt64)],  # a Python value takes the default of Tlabels, as in TensorFlow
    ids=["int32", "int64", "python"],
)
def test_sparseLabelsSetTlabels(tf: Ops, labels: Any, labelType: type[TType]) -> None:
    x = tf.nn.sparseSoftmaxCrossEntropyWithLogits(tf.constant([[1.0, 2.0]]), labels)
    assert x.op().attr("Tlabels") is labelType and x.op().input(1).dataType() is labelType


@pytest.mark.parametrize(
    ("spec", "features", "labels", "loss", "backprop"),
    [
        (OPS[0], Shape.of(2, 3), Shape.of(2, 3), Shape.of(2), Shape.of(2, 3)),
        (OPS[0], Shape.of(1, 3), Shape.of(4, 3), Shape.of(4), Shape.of(4, 3)),
        (OPS[0], Shape.of(4, 3), Shape.of(4, 1), Shape.of(4), Shape.of(4, 3)),
        (OPS[0], Shape.of(0, 3), Shape.of(0, 3), Shape.of(0), Shape.of(0, 3)),
        (OPS[0], Shape.of(-1, 3), Shape.of(-1, 3), Shape.of(-1), Shape.of(-1, 3)),
        (OPS[0], Shape.of(-1, 3), Shape.of(5, -1), Shape.of(5), Shape.of(5, 3)),
        (OPS[0], Shape.unknown(), Shape.of(2, 3), Shape.of(2), Shape.of(2, 3)),
        (OPS[0], Shape.unknown(), Shape.unknown(), Shape.of(-1), Shape.of(-1, -1)),
        (OPS[1], Shape.of(2, 3), Shape.of(2), Shape.of(2), Shape.of(2, 3)),
        (OPS[1], Shape.of(0, 3), Shape.of(0), Shape.of(0), Shape.of(0, 3)),
        (OPS[1], Shape.of(-1, 3), Shape.of(4), Shape.of(4), Shape.of(4, 3)),
        (OPS[1], Shape.of(-1, 3), Shape.of(-1), Shape.of(-1), Shape.of(-1, 3)),
        (OPS[1], Shape.of(2, 3), Shape.unknown(), Shape.of(2), Shape.of(2, 3)),
        (OPS[1], Shape.unknown(), Shape.of(5), Shape.of(5), Shape.of(5, -1)),
        (OPS[1], Shape.unknown(), Shape.unknown(), Shape.of(-1), Shape.of(-1, -1)),
    ],
    ids=lambda v: getattr(v, "name", str(v)),
)
def test_staticShapes(
    tf: Ops, spec: Spec, features: Shape, labels: Shape, loss: Shape, backprop: Shape
) -> None:
    x = spec.op(tf, placeholder(tf, TFloat64, features), placeholder(tf, spec.labelType, labels))
    assert x.loss().shape() == loss and x.backprop().shape() == backprop


# -- kernel --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (4, 5)], ids=str)
@pytest.mark.parametrize("spec", [*OPS, sparseSpec(TInt32)],
                         ids=lambda spec: f"{spec.name}-{spec.labelType.NAME}")
def test_kernelMatchesNumpy(
    tf: Ops, run: Any, spec: Spec, shape: tuple[int, int], dtype: type[TType]
) -> None:
    f, y = logits(shape).astype(dtype.DTYPE), spec.labels(shape)
    y = y.astype(dtype.DTYPE) if spec.name == DENSE else y
    x = spec.op(tf, tf.constant(f), tf.constant(y))
    assert x.loss().dataType() is x.backprop().dataType() is dtype
    loss, backprop = run(x.loss(), x.backprop())
    expectedLoss, expectedBackprop = reference(f, spec.dense(y, shape[1]))
    rtol, atol = TOLERANCE[dtype]
    assert loss.dtype == backprop.dtype == dtype.DTYPE
    np.testing.assert_allclose(loss, expectedLoss, rtol=rtol, atol=atol)
    np.testing.assert_allclose(backprop, expectedBackprop, rtol=rtol, atol=atol)


@each
def test_oneHotLabelsGiveMinusTheLogProbability(tf: Ops, run: Any, spec: Spec) -> None:
    f = tf.constant(np.array([[0.0, np.log(3.0)], [0.0, 0.0]]))
    x = spec.op(tf, f, tf.constant(oneHot(spec, [1, 0])))
    loss, backprop = run(x.loss(), x.backprop())
    np.testing.assert_allclose(loss, [-np.log(0.75), np.log(2.0)], rtol=1e-15)
    np.testing.assert_allclose(backprop, [[0.25, -0.25], [-0.5, 0.5]], rtol=1e-15)


@pytest.mark.parametrize(
    ("dtype", "big"), [(TFloat16, 6e4), (TFloat32, 1e30), (TFloat64, 1e300)],
    ids=lambda v: getattr(v, "NAME", str(v)),
)
@each
def test_largeLogitsDoNotOverflow(
    tf: Ops, run: Any, spec: Spec, dtype: type[TType], big: float
) -> None:
    f = np.array([[big, big], [big, -big]], dtype.DTYPE)
    y = oneHot(spec, [0, 0])
    x = spec.op(tf, tf.constant(f), tf.constant(y.astype(dtype.DTYPE) if spec.name == DENSE else y))
    loss, backprop = run(x.loss(), x.backprop())
    assert loss.tolist() == [float(np.log(np.array(2.0, dtype.DTYPE))), 0.0]
    assert backprop.tolist() == [[-0.5, 0.5], [0.0, 0.0]]


@each
def test_largeLogitsMatchTheStableReference(tf: Ops, run: Any, spec: Spec) -> None:
    f = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, -999.0, -1020.0]], np.float32)
    y = spec.labels((2, 3))
    x = spec.op(tf, tf.constant(f), tf.constant(y.astype(np.float32) if spec.name == DENSE else y))
    loss, backprop = run(x.loss(), x.backprop())
    expectedLoss, expectedBackprop = reference(f, spec.dense(y, 3))
    np.testing.assert_allclose(loss, expectedLoss, rtol=1e-6)
    np.testing.assert_allclose(backprop, expectedBackprop, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(("fShape", "yShape"), [((1, 3), (4, 3)), ((4, 3), (1, 3))], ids=str)
def test_denseKernelBroadcastsFeaturesAndLabels(
    tf: Ops, run: Any, fShape: tuple[int, int], yShape: tuple[int, int]
) -> None:
    f, y = logits(fShape), distributions(yShape)
    x = tf.nn.softmaxCrossEntropyWithLogits(tf.constant(f), tf.constant(y))
    loss, backprop = run(x.loss(), x.backprop())
    expectedLoss, expectedBackprop = reference(f, y)
    assert loss.shape == (4,) and backprop.shape == (4, 3)
    np.testing.assert_allclose(loss, expectedLoss, rtol=1e-14)
    np.testing.assert_allclose(backprop, expectedBackprop, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize(
    ("spec", "shape", "loss"),
    [(OPS[0], (0, 3), []), (OPS[0], (2, 0), [0.0, 0.0]), (OPS[1], (0, 3), [])],
    ids=lambda v: getattr(v, "name", str(v)),
)
def test_kernelOfEmptyInputs(
    tf: Ops, run: Any, spec: Spec, shape: tuple[int, int], loss: list[float]
) -> None:
    f = tf.constant(np.zeros(shape, np.float32))
    y = f if spec.name == DENSE else tf.constant(np.zeros(0, np.int64))
    x = spec.op(tf, f, y)
    lossValue, backprop = run(x.loss(), x.backprop())
    assert lossValue.tolist() == loss and lossValue.dtype == np.float32
    assert backprop.shape == shape and backprop.dtype == np.float32


@each
def test_kernelOfFedUnknownShapes(tf: Ops, run: Any, spec: Spec) -> None:
    f, y = tf.placeholder(TFloat64), tf.placeholder(spec.labelType)
    loss = run(spec.op(tf, f, y).loss(), feeds={f: np.zeros((3, 4)), y: spec.labels((3, 4))})
    np.testing.assert_allclose(loss, np.full(3, np.log(4.0)), rtol=1e-15)  # whatever the labels


# -- gradient ------------------------------------------------------------------------------
def assertGradientOf(tf: Ops, spec: Spec, output: str, features: Any,
                     labels: Any = None, declared: Any = None) -> None:
    """The gradient of an output with respect to the features and, when dense, the labels."""
    y = spec.labels(features.shape) if labels is None else labels
    if spec.name == DENSE:
        assertGradient(tf, lambda f, y: getattr(spec.op(tf, f, y), output)(), [features, y],
                       None if declared is None else [declared, declared])
    else:
        assertGradient(tf, lambda f: getattr(spec.op(tf, f, tf.constant(y)), output)(),
                       [features], None if declared is None else [declared])


@pytest.mark.parametrize(
    ("output", "shape", "offset"),
    [("loss", (1, 1), 0.0), ("loss", (2, 3), 0.0), ("loss", (3, 4), 0.0), ("loss", (4, 5), 0.0),
     ("loss", (2, 3), 500.0), ("loss", (2, 3), -800.0), ("backprop", (1, 2), 0.0),
     ("backprop", (2, 3), 0.0)],
    ids=str,
)
@each
def test_gradientMatchesFiniteDifferences(
    tf: Ops, spec: Spec, output: str, shape: tuple[int, int], offset: float
) -> None:
    assertGradientOf(tf, spec, output, logits(shape) + offset)


def test_denseGradientOfBothOutputsAndWithBroadcasting(tf: Ops) -> None:
    def both(f: Any, y: Any) -> Any:
        x = tf.nn.softmaxCrossEntropyWithLogits(f, y)
        return tf.math.add(tf.sum(x.loss(), 0), tf.sum(tf.math.square(x.backprop()), [0, 1]))

    assertGradient(tf, both, [logits((2, 3)), distributions((2, 3))])
    for fShape, yShape in [((1, 3), (2, 3)), ((2, 3), (1, 3))]:
        assertGradientOf(tf, OPS[0], "loss", logits(fShape), distributions(yShape))


@each
def test_gradientWithUnknownShapes(tf: Ops, spec: Spec) -> None:
    f, y = tf.placeholder(TFloat64), tf.placeholder(spec.labelType)
    loss, features, labels = spec.op(tf, f, y).loss(), logits((3, 4)), spec.labels((3, 4))
    if spec.name == DENSE:  # with respect to both
        assertGradientsClose(loss, [f, y], {f: features, y: labels})
    else:  # the labels are fed
        assertGradientsClose(loss, [f], {f: features}, feeds={y: labels})


@each
def test_lossGradientIsTheBackpropScaledByTheIncomingGradient(
    tf: Ops, run: Any, spec: Spec
) -> None:
    f = tf.constant(np.array([[0.0, np.log(3.0)], [0.0, 0.0]]))
    y = tf.constant(oneHot(spec, [1, 0]))
    seed = Gradients.dx([tf.constant(np.array([2.0, -1.0]))])
    grads = tf.gradients(spec.op(tf, f, y).loss(), [f, y], seed)
    df, dy = grads.dy(0), grads.dy(1)
    assert df is not None
    np.testing.assert_allclose(run(df), [[0.5, -0.5], [0.5, -0.5]], rtol=1e-15)
    if spec.name == SPARSE:
        assert dy is None  # labels get no gradient
    else:  # labels: g * -log_softmax(features)
        assert dy is not None
        np.testing.assert_allclose(run(dy), [[-2.0 * np.log(0.25), -2.0 * np.log(0.75)],
                                             [np.log(0.5), np.log(0.5)]], rtol=1e-15)


@each
def test_secondOrderGradientMatchesFiniteDifferences(tf: Ops, spec: Spec) -> None:
    y = spec.labels((2, 3))
    if spec.name == DENSE:
        assertGradient(tf, lambda f, y: tf.gradients(spec.op(tf, f, y).loss(), [f]).dy(0),
                       [logits((2, 3)), y])
    else:
        assertGradient(tf, lambda f: tf.gradients(spec.op(tf, f, y).loss(), [f]).dy(0),
                       [logits((2, 3))])


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("spec", "features", "labels", "error", "fragment"),
    [
        (OPS[0], (TInt32, 2, 3), (TInt32, 2, 3), TypeError, "data type int32 is not allowed"),
        (OPS[0], (TInt64, 2, 3), (TInt64, 2, 3), TypeError, "data type int64 is not allowed"),
        (OPS[0], (TUint8, 2, 3), (TUint8, 2, 3), TypeError, "data type uint8 is not allowed"),
        (OPS[0], (TBool, 2, 3), (TBool, 2, 3), TypeError, "data type bool is not allowed"),
        (OPS[0], (TFloat32, 2, 3), (TFloat64, 2, 3), TypeError,
         "input 'labels' has data type float64"),
        (OPS[0], (TFloat64, 2, 3), np.ones((2, 3), np.int32), TypeError,
         "input 'labels' has data type int32"),
        (OPS[0], (TFloat64, 2, 3), (TFloat64, 2, 4), ValueError, "incompatible shapes"),
        (OPS[0], (TFloat64, 2, 3), (TFloat64, 3, 3), ValueError, "incompatible shapes"),
        (OPS[0], (TFloat64, 2, 3), np.ones((2, 4)), ValueError, "incompatible shapes"),
        (OPS[0], (TFloat64, 3), (TFloat64, 3), ValueError, "features must be a matrix"),
        (OPS[0], (TFloat64, 2, 3), (TFloat64, 1, 2, 3), ValueError, "labels must be a matrix"),
        (OPS[1], (TInt32, 2, 3), (TInt32, 2), TypeError, "data type int32 is not allowed for 'T'"),
        (OPS[1], (TInt64, 2, 3), (TInt32, 2), TypeError, "data type int64 is not allowed for 'T'"),
        (OPS[1], (TUint8, 2, 3), (TInt32, 2), TypeError, "data type uint8 is not allowed for 'T'"),
        (OPS[1], (TBool, 2, 3), (TInt32, 2), TypeError, "data type bool is not allowed for 'T'"),
        (OPS[1], (TFloat32, 2, 3), (TFloat32, 2), TypeError,
         "data type float32 is not allowed for 'Tlabels'"),
        (OPS[1], (TFloat32, 2, 3), (TUint8, 2), TypeError, "uint8 is not allowed for 'Tlabels'"),
        (OPS[1], (TFloat32, 2, 3), (TBool, 2), TypeError, "bool is not allowed for 'Tlabels'"),
        (OPS[1], (TFloat64, 2, 3), [0.0, 1.0], TypeError, "[0.0, 1.0] is not an integer"),
        (OPS[1], (TFloat64, 2, 3), (TInt32, 3), ValueError,
         "features [2, 3] and labels [3] must have the same batch size"),
        (OPS[1], (TFloat64, 2, 3), [0, 1, 2], ValueError, "must have the same batch size"),
        (OPS[1], (TFloat64, 3), (TInt32, 3), ValueError, "features must be a matrix"),
        (OPS[1], (TFloat64, 2, 3), (TInt32, 2, 1), ValueError, "labels must be a vector"),
        (OPS[1], (TFloat64, 2, 3), (TInt32,), ValueError, "labels must be a vector"),
    ],
    ids=lambda v: getattr(v, "name", None),
)
def test_badInputsAreRejected(
    graph: Graph, tf: Ops, spec: Spec, features: Any, labels: Any, error: type[Exception],
    fragment: str,
) -> None:
    """A tuple is a placeholder of (data type, *dimensions), made before the op."""
    f, y = (placeholder(tf, v[0], v[1:]) if isinstance(v, tuple) else v
            for v in (features, labels))
    assertRejected(graph, lambda: spec.op(tf, f, y), error, spec.name, HERE, fragment)


@pytest.mark.parametrize(
    ("spec", "features", "labels", "fragment"),
    [
        (OPS[0], np.ones((2, 3)), np.ones((2, 4)), "features [2, 3] and labels [2, 4] do not"),
        (OPS[0], np.ones(3), np.ones(3), "features and labels must be matrices"),
        (OPS[1], np.zeros((2, 3)), np.array([0, 3]),
         "label value of 3 which is outside the valid range of [0, 3)"),
        (OPS[1], np.zeros((2, 3)), np.array([-1, 1]),
         "label value of -1 which is outside the valid range of [0, 3)"),
        (OPS[1], np.zeros((2, 3)), np.array([7, 9]),
         "label value of 7 which is outside the valid range of [0, 3)"),
        (OPS[1], np.zeros((1, 0)), np.array([0]), "outside the valid range of [0, 0)"),
        (OPS[1], np.zeros((2, 3)), np.zeros(3, np.int64), "got shapes [2, 3] and [3]"),
    ],
    ids=["denseClasses", "denseRank", "sparseAbove", "sparseNegative", "sparseFirstBad",
         "sparseNoClasses", "sparseBatch"],
)
@pytest.mark.parametrize("output", ["loss", "backprop"])
def test_badFedInputsRaiseInvalidArgumentError(
    tf: Ops, run: Any, spec: Spec, features: Any, labels: Any, fragment: str, output: str
) -> None:
    f, y = tf.placeholder(TFloat64), tf.placeholder(spec.labelType)
    x = spec.op(tf, f, y)
    with pytest.raises(InvalidArgumentError) as info:
        run(getattr(x, output)(), feeds={f: features, y: labels})
    assert info.value.op == x.op()
    assert fragment in str(info.value) and f"of type {spec.name}, {HERE}" in str(info.value)


def test_anyLabelWithNoClassesIsOutOfRangeWhenConstant(tf: Ops, run: Any) -> None:
    x = tf.nn.sparseSoftmaxCrossEntropyWithLogits(tf.constant(np.zeros((1, 0))), [0])
    with pytest.raises(InvalidArgumentError, match=r"outside the valid range of \[0, 0\)"):
        run(x.loss())
