"""Specification of ``tfops.framework.losses`` on bad input: each mistake raises a clear error
when the loss is built or called, naming the loss, what is wrong and how to fix it (and, for a
call, where the user made it), and leaves the graph as it was."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import assertRejected

from tfops import Graph, Ops, Shape
from tfops.framework import losses
from tfops.framework.losses import Loss
from tfops.op.core import Placeholder
from tfops.types import TFloat32

Make = Callable[..., Loss]


def test_integerPredictionsRaiseTypeError(tf: Ops, graph: Graph) -> None:
    labels = tf.constant(np.zeros((2, 3), np.float32))
    predictions = tf.constant(np.ones((2, 3), np.int32))
    for loss in (
        losses.MeanSquaredError(tf),
        losses.BinaryCrossentropy(tf),
        losses.SparseCategoricalCrossentropy(tf),
    ):
        kind = type(loss).__name__
        assertRejected(
            graph,
            lambda loss=loss: loss.call(labels, predictions),
            TypeError,
            kind,
            "int32",
            "floating point predictions",
            "tf.dtypes.cast",
            "test_losses_misuse.py",
        )


@pytest.mark.parametrize(
    ("make", "labels", "predictions", "fragments"),
    [
        (losses.MeanSquaredError, (4, 3), (4, 2), ["[4, 3]", "[4, 2]", "same shape"]),
        (losses.Huber, (4,), (4, 3), ["[4]", "[4, 3]"]),
        (losses.CategoricalCrossentropy, (2, 4, 3), (4, 3), ["not compatible"]),
        (
            losses.SparseCategoricalCrossentropy,
            (4, 3),
            (4, 3),
            ["[4, 3]", "one class index per sample", "[4]"],
        ),
        (losses.SparseCategoricalCrossentropy, (5,), (4, 3), ["[5]", "do not fit"]),
    ],
)
def test_labelsAndPredictionsOfIncompatibleShapesRaiseValueError(
    tf: Ops, graph: Graph, make: Make, labels: Any, predictions: Any, fragments: list[str]
) -> None:
    y = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(*labels)))
    p = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(*predictions)))
    loss = make(tf)
    assertRejected(
        graph,
        lambda: loss.call(y, p),
        ValueError,
        type(loss).__name__,
        "test_losses_misuse.py",
        *fragments,
    )


def test_sampleWeightsThatDoNotFitTheLossesRaiseValueError(tf: Ops, graph: Graph) -> None:
    y = tf.constant(np.zeros((4, 3), np.float32))
    p = tf.constant(np.ones((4, 3), np.float32))
    loss = losses.MeanAbsoluteError(tf)
    assertRejected(
        graph,
        lambda: loss.call(y, p, np.ones(3)),
        ValueError,
        "MeanAbsoluteError",
        "sampleWeights",
        "[3]",
        "[4]",
        "one weight per sample",
    )


@pytest.mark.parametrize("reduction", ["mean", "AUTO", "sum over batch"])
def test_anUnknownReductionRaisesValueErrorAtConstruction(
    tf: Ops, graph: Graph, reduction: str
) -> None:
    assertRejected(
        graph,
        lambda: losses.Poisson(tf, reduction=reduction),
        ValueError,
        "Poisson",
        f"unknown reduction {reduction!r}",
        "Reduction.SUM",
    )


@pytest.mark.parametrize("reduction", [None, 1, Shape.of(2)], ids=repr)
def test_aReductionOfTheWrongTypeRaisesTypeError(tf: Ops, graph: Graph, reduction: Any) -> None:
    assertRejected(
        graph,
        lambda: losses.Hinge(tf, reduction=reduction),
        TypeError,
        "Hinge",
        "reduction must be a Reduction",
    )


@pytest.mark.parametrize("smoothing", [-0.1, 1.5, float("nan")])
@pytest.mark.parametrize("make", [losses.BinaryCrossentropy, losses.CategoricalCrossentropy])
def test_labelSmoothingOutsideZeroOneRaisesValueError(
    tf: Ops, graph: Graph, make: Make, smoothing: float
) -> None:
    assertRejected(
        graph,
        lambda: make(tf, labelSmoothing=smoothing),
        ValueError,
        make.__name__,
        "labelSmoothing must be in [0, 1]",
    )


@pytest.mark.parametrize(
    ("make", "what"),
    [
        (lambda tf: losses.BinaryCrossentropy(tf, labelSmoothing="0.1"), "labelSmoothing"),
        (lambda tf: losses.CategoricalCrossentropy(tf, fromLogits=1), "fromLogits"),
        (lambda tf: losses.SparseCategoricalCrossentropy(tf, fromLogits=None), "fromLogits"),
        (lambda tf: losses.Huber(tf, delta=None), "delta"),
        (lambda tf: losses.CosineSimilarity(tf, axis=1.0), "axis"),
        (lambda tf: losses.BinaryCrossentropy(tf, axis="-1"), "axis"),
    ],
)
def test_anOptionOfTheWrongTypeRaisesTypeError(
    tf: Ops, graph: Graph, make: Callable[[Ops], Loss], what: str
) -> None:
    assertRejected(graph, lambda: make(tf), TypeError, what)


def test_otherBadConstructionsRaiseClearErrors(tf: Ops, graph: Graph) -> None:
    assertRejected(
        graph, lambda: losses.Huber(tf, delta=-1.0), ValueError, "Huber", "delta must be >= 0"
    )
    assertRejected(
        graph,
        lambda: losses.MeanSquaredError(graph),
        TypeError,
        "MeanSquaredError",
        "Ops.create(graph)",
    )
    assertRejected(graph, lambda: losses.LogCosh(tf, name="a b"), ValueError, "LogCosh", "'a b'")


def test_otherBadCallsRaiseClearErrors(tf: Ops, graph: Graph) -> None:
    p = tf.constant(np.ones((2, 3), np.float32))
    other = Ops.create(Graph()).constant(np.ones((2, 3), np.float32))
    assertRejected(
        graph,
        lambda: losses.KLDivergence(tf).call(other, p),
        ValueError,
        "KLDivergence",
        "labels",
        "another graph",
    )
    assertRejected(
        graph,
        lambda: losses.KLDivergence(tf).call(p, p, "heavy"),
        TypeError,
        "sampleWeights",
        "array of numbers",
    )
    assertRejected(
        graph,
        lambda: losses.CategoricalCrossentropy(tf, axis=2).call(p, p),
        ValueError,
        "CategoricalCrossentropy",
        "axis 2",
        "rank 2",
    )
    assertRejected(
        graph,
        lambda: losses.CosineSimilarity(tf, axis=[0, -3]).call(p, p),
        ValueError,
        "CosineSimilarity",
        "axis -3",
    )
    scalar = tf.constant(np.float32(1.0))
    assertRejected(
        graph,
        lambda: losses.SparseCategoricalCrossentropy(tf).call(0, scalar),
        ValueError,
        "class axis",
    )
