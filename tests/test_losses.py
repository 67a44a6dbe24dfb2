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
