"""Specification of ``tfops.framework.losses``: every loss equals Keras 3's on fixed inputs.

What we compare against: Keras 3 (on TensorFlow 2.21) ``keras.losses.*`` with the same options,
run by ``tests/fixtures/tf/make_losses.py``, which wrote ``losses.npz``: the inputs of each data
kind in float32 and float64, and Keras' loss for every case (a loss and its options), data type,
sample weight (none, a scalar, one per sample, a column...) and reduction. Each case here builds
the tfops loss with the same options (``CASES``, keyed as the script's), feeds the same inputs
through placeholders of their static shapes, runs it on the numpy and XLA backends and compares
(float32: rtol 1e-5, the order of float32 sums differs; float64: rtol 1e-12). Keras' LogCosh
subtracts log(2) rounded to float32, also in float64 (an error of 1.9e-9 per sample): its loss
of zero errors, that rounding, is taken off Keras' numbers, and ours of zero errors is 0.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import assertGradientsClose

from tfops import Graph, Ops, Session, Shape
from tfops.framework import losses
from tfops.framework.losses import Loss, Reduction
from tfops.op.core import Placeholder
from tfops.types import TFloat32, TFloat64, dataTypeOf

FIXTURE = np.load(Path(__file__).parent / "fixtures" / "tf" / "losses.npz")
BACKENDS = ["numpy", "xla"]
TOLERANCE = {"float32": 1e-5, "float64": 1e-12}

Make = Callable[..., Loss]
# case -> (the tfops loss with the options of make_losses.py's case, data kind)
CASES: dict[str, tuple[Make, str]] = {
    "MeanSquaredError": (losses.MeanSquaredError, "real"),
    "MeanSquaredError-column": (losses.MeanSquaredError, "column"),
    "MeanSquaredError-rank3": (losses.MeanSquaredError, "rank3"),
    "MeanAbsoluteError": (losses.MeanAbsoluteError, "real"),
    "MeanAbsolutePercentageError": (losses.MeanAbsolutePercentageError, "positive"),
    "MeanSquaredLogarithmicError": (losses.MeanSquaredLogarithmicError, "positive"),
    "Huber": (losses.Huber, "real"),
    "Huber-delta": (lambda tf, **o: losses.Huber(tf, delta=0.4, **o), "real"),
    "Huber-rank3": (lambda tf, **o: losses.Huber(tf, delta=2.0, **o), "rank3"),
    "LogCosh": (losses.LogCosh, "real"),
    "Poisson": (losses.Poisson, "positive"),
    "KLDivergence": (losses.KLDivergence, "distributions"),
    "Hinge": (losses.Hinge, "binaryLogits"),
    "Hinge-signs": (losses.Hinge, "signs"),
    "SquaredHinge": (losses.SquaredHinge, "binaryLogits"),
    "SquaredHinge-signs": (losses.SquaredHinge, "signs"),
    "CategoricalHinge": (losses.CategoricalHinge, "categoricalLogits"),
    "CosineSimilarity": (losses.CosineSimilarity, "real"),
    "CosineSimilarity-axis0": (
        lambda tf, **o: losses.CosineSimilarity(tf, axis=0, **o),
        "realAxis0",
    ),
    "BinaryCrossentropy": (losses.BinaryCrossentropy, "binary"),
    "BinaryCrossentropy-smoothing": (
        lambda tf, **o: losses.BinaryCrossentropy(tf, labelSmoothing=0.2, **o),
        "binary",
    ),
    "BinaryCrossentropy-logits": (
        lambda tf, **o: losses.BinaryCrossentropy(tf, fromLogits=True, **o),
        "binaryLogits",
    ),
    "BinaryCrossentropy-logits-smoothing": (
        lambda tf, **o: losses.BinaryCrossentropy(tf, fromLogits=True, labelSmoothing=0.3, **o),
        "binaryLogits",
    ),
    "BinaryCrossentropy-column": (
        lambda tf, **o: losses.BinaryCrossentropy(tf, fromLogits=True, **o),
        "column",
    ),
    "CategoricalCrossentropy": (losses.CategoricalCrossentropy, "categorical"),
    "CategoricalCrossentropy-smoothing": (
        lambda tf, **o: losses.CategoricalCrossentropy(tf, labelSmoothing=0.1, **o),
        "categorical",
    ),
    "CategoricalCrossentropy-logits": (
        lambda tf, **o: losses.CategoricalCrossentropy(tf, fromLogits=True, **o),
        "categoricalLogits",
    ),
    "CategoricalCrossentropy-logits-smoothing": (
        lambda tf, **o: losses.CategoricalCrossentropy(
            tf, fromLogits=True, labelSmoothing=0.25, **o
        ),
        "categoricalLogits",
    ),
    "CategoricalCrossentropy-soft": (losses.CategoricalCrossentropy, "distributions"),
    "CategoricalCrossentropy-axis1": (
        lambda tf, **o: losses.CategoricalCrossentropy(tf, fromLogits=True, axis=1, **o),
        "categoricalAxis1",
    ),
    "CategoricalCrossentropy-axis1-probabilities": (
        lambda tf, **o: losses.CategoricalCrossentropy(tf, axis=1, **o),
        "categoricalAxis1",
    ),
    "SparseCategoricalCrossentropy": (losses.SparseCategoricalCrossentropy, "sparse"),
    "SparseCategoricalCrossentropy-logits": (
        lambda tf, **o: losses.SparseCategoricalCrossentropy(tf, fromLogits=True, **o),
        "sparseLogits",
    ),
    "SparseCategoricalCrossentropy-column": (
        lambda tf, **o: losses.SparseCategoricalCrossentropy(tf, fromLogits=True, **o),
        "sparseColumn",
    ),
}


def weightNames(kind: str) -> list[str]:
    prefix = f"{kind}/float32/weights/"
    return ["none"] + sorted(k[len(prefix) :] for k in FIXTURE.files if k.startswith(prefix))


PARAMS = [
    pytest.param(case, dtype, w, id=f"{case}-{dtype}-{w}")
    for case, (_, kind) in CASES.items()
    for dtype in ("float32", "float64")
    for w in weightNames(kind)
]


def test_everyCaseOfTheFixtureIsTested() -> None:
    cases = {
        key.split("/")[0]
        for key in FIXTURE.files
        if key.count("/") == 3 and key.split("/")[3] in Reduction.__members__
    }
    assert cases == set(CASES)


def placeholderOf(tf: Ops, value: Any) -> Any:
    return tf.placeholder(dataTypeOf(value.dtype), Placeholder.shape(Shape.of(*value.shape)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("case", "dtype", "weights"), PARAMS)
def test_aLossEqualsKerasForEachReduction(
    case: str, dtype: str, weights: str, backend: str
) -> None:
    make, kind = CASES[case]
    labels = FIXTURE[f"{kind}/{dtype}/labels"]
    predictions = FIXTURE[f"{kind}/{dtype}/predictions"]
    with Graph() as g:
        tf = Ops.create(g)
        y, p = placeholderOf(tf, labels), placeholderOf(tf, predictions)
        feeds = {y: labels, p: predictions}
        w = None
        if weights != "none":
            value = FIXTURE[f"{kind}/{dtype}/weights/{weights}"]
            w = placeholderOf(tf, value)
            feeds[w] = value
        reductions = list(Reduction)
        outs = [make(tf, reduction=r).call(y, p, w) for r in reductions]
        with Session(g, backend=backend) as s:
            runner = s.runner()
            for k, v in feeds.items():
                runner.feed(k, v)
            for out in outs:
                runner.fetch(out)
            got = list(runner.run())
    for reduction, out, value in zip(reductions, outs, got, strict=True):
        key = f"{case}/{dtype}/{weights}/{reduction.name}"
        expected = FIXTURE[key]
        if case == "LogCosh":
            # Keras subtracts log(2) rounded to float32: take off its loss of zero errors
            expected = expected - FIXTURE[f"{key}/zeroErrors"]
        value = np.asarray(value)
        assert value.dtype == np.dtype(dtype), reduction
        assert value.shape == expected.shape, (reduction, value.shape, expected.shape)
        assert out.shape().isCompatibleWith(Shape.of(*expected.shape)), (reduction, out.shape())
        np.testing.assert_allclose(
            value,
            expected,
            rtol=TOLERANCE[dtype],
            atol=1e-7 if dtype == "float32" else 1e-14,
            err_msg=str(reduction),
        )


@pytest.mark.parametrize("dtype", [TFloat32, TFloat64])
def test_logCoshOfZeroErrorsIsZero(tf: Ops, run: Any, dtype: Any) -> None:
    zeros = np.zeros((2, 3), dtype.DTYPE)
    assert run(losses.LogCosh(tf).call(zeros, tf.constant(zeros))) == 0


# -- shapes known only at run time ---------------------------------------------------------
@pytest.mark.parametrize(
    "case",
    [
        "MeanSquaredError",
        "Hinge",
        "CosineSimilarity",
        "BinaryCrossentropy-logits",
        "CategoricalCrossentropy-logits",
        "CategoricalCrossentropy-smoothing",
        "SparseCategoricalCrossentropy-logits",
    ],
)
def test_placeholdersOfUnknownShapeGiveTheSameLoss(tf: Ops, run: Any, case: str) -> None:
    make, kind = CASES[case]
    labels = FIXTURE[f"{kind}/float64/labels"]
    predictions = FIXTURE[f"{kind}/float64/predictions"]
    weights = FIXTURE[f"{kind}/float64/weights/sample"]
    y, p, w = (tf.placeholder(TFloat64) for _ in range(3))
    loss = make(tf).call(y, p, w)
    got = run(loss, feeds={y: labels, p: predictions, w: weights})
    expected = FIXTURE[f"{case}/float64/sample/SUM_OVER_BATCH_SIZE"]
    np.testing.assert_allclose(got, expected, rtol=1e-12)


# -- gradients -------------------------------------------------------------------------------
GRADIENT_CASES = [
    "MeanSquaredError",
    "Huber-delta",
    "LogCosh",
    "CosineSimilarity",
    "KLDivergence",
    "BinaryCrossentropy",
    "BinaryCrossentropy-logits-smoothing",
    "CategoricalCrossentropy",
    "CategoricalCrossentropy-logits",
    "CategoricalCrossentropy-axis1",
    "SparseCategoricalCrossentropy",
    "SparseCategoricalCrossentropy-logits",
    "Hinge-signs",
]


@pytest.mark.parametrize("case", GRADIENT_CASES)
def test_theGradientOfALossMatchesFiniteDifferences(tf: Ops, case: str) -> None:
    make, kind = CASES[case]
    labels = FIXTURE[f"{kind}/float64/labels"]
    predictions = FIXTURE[f"{kind}/float64/predictions"]
    if kind in ("binary", "categorical", "sparse"):  # away from the clips at 0 and 1: kinks
        predictions = np.clip(predictions, 0.05, 0.95)
    weights = FIXTURE[f"{kind}/float64/weights/scalar"]
    p = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(*predictions.shape)))
    loss = make(tf, reduction=Reduction.SUM).call(labels, p, weights)
    assertGradientsClose(loss, [p], {p: predictions}, tolerance=1e-6)


def test_theGradientFlowsToTheLabelsOfARegressionLoss(tf: Ops) -> None:
    labels, predictions = FIXTURE["real/float64/labels"], FIXTURE["real/float64/predictions"]
    y = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(4, 3)))
    loss = losses.LogCosh(tf).call(y, predictions, FIXTURE["real/float64/weights/sample"])
    assertGradientsClose(loss, [y], {y: labels}, tolerance=1e-6)


# -- names, options, reductions ---------------------------------------------------------------
def test_aCallBuildsUnderASubScopeNamedAfterTheLoss(tf: Ops, graph: Graph) -> None:
    mse = losses.MeanSquaredError(tf)
    first = mse.call(np.zeros((2, 2), np.float32), tf.constant(np.ones((2, 2), np.float32)))
    second = mse.call(np.zeros((2, 2), np.float32), tf.constant(np.ones((2, 2), np.float32)))
    assert first.op().name().startswith("MeanSquaredError/")
    assert second.op().name().startswith("MeanSquaredError_1/")
    named = losses.Huber(tf, name="myHuber").call([[1.0]], tf.constant([[0.0]]))
    assert named.op().name().startswith("myHuber/")


def test_optionsReadBack(tf: Ops) -> None:
    bce = losses.BinaryCrossentropy(
        tf, fromLogits=True, labelSmoothing=0.1, reduction=Reduction.SUM
    )
    assert (bce.isFromLogits(), bce.getLabelSmoothing(), bce.getReduction()) == (
        True,
        0.1,
        Reduction.SUM,
    )
    assert losses.Huber(tf).getDelta() == 1.0
    assert losses.CosineSimilarity(tf, axis=[0, 1]).getAxis() == [0, 1]
    assert losses.MeanSquaredError(tf).getReduction() is Reduction.SUM_OVER_BATCH_SIZE
    assert losses.Poisson(tf).getName() == "Poisson"


def test_aReductionMayBeGivenByName(tf: Ops) -> None:
    assert Reduction.ofName("SUM") is Reduction.SUM
    assert Reduction.ofName("sum_over_batch_size") is Reduction.SUM_OVER_BATCH_SIZE
    assert losses.Hinge(tf, reduction="none").getReduction() is Reduction.NONE
    with pytest.raises(ValueError, match="unknown reduction 'mean'"):
        Reduction.ofName("mean")


def test_labelsOfAnyNumberTypeAreCastToThePredictionsType(tf: Ops, run: Any) -> None:
    labels = np.array([[1, 0], [0, 1]], np.int32)
    predictions = np.array([[0.5, 1.0], [2.0, 1.0]], np.float32)
    got = run(losses.MeanSquaredError(tf).call(tf.constant(labels), tf.constant(predictions)))
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, np.mean((labels - predictions) ** 2), rtol=1e-6)


def test_sparseLabelsMayBeIntegersOfEitherWidth(tf: Ops, run: Any) -> None:
    logits = FIXTURE["sparseLogits/float32/predictions"]
    expected = FIXTURE["SparseCategoricalCrossentropy-logits/float32/none/NONE"]
    scce = losses.SparseCategoricalCrossentropy(tf, fromLogits=True, reduction=Reduction.NONE)
    for dtype in (np.int32, np.int64):
        got = run(scce.call(tf.constant(np.array([0, 2, 1, 2], dtype)), tf.constant(logits)))
        np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_sparseCrossentropyOfRank3PredictionsKeepsTheLabelsShape(tf: Ops, run: Any) -> None:
    rng = np.random.RandomState(3)
    logits, labels = rng.normal(size=(2, 3, 4)), rng.randint(0, 4, (2, 3))
    scce = losses.SparseCategoricalCrossentropy(tf, fromLogits=True, reduction=Reduction.NONE)
    loss = scce.call(labels, tf.constant(logits))
    assert loss.shape() == Shape.of(2, 3)
    shifted = logits - logits.max(-1, keepdims=True)
    logSoftmax = shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))
    expected = -np.take_along_axis(logSoftmax, labels[..., None], -1)[..., 0]
    np.testing.assert_allclose(run(loss), expected, rtol=1e-12)


def test_theReferencePageRunsAndPrintsWhatItSays() -> None:
    """docs/reference/losses.md: its blocks run, each print says what it prints (as the guides'
    blocks, checked by tests/test_docs.py)."""
    import test_docs

    page = Path(__file__).resolve().parents[1] / "docs" / "reference" / "losses.md"
    test_docs.test_guideCodeRunsAndPrintsWhatItSays(page)
