"""Specification of ``tfops.framework.metrics``.

What we compare against: Keras 3's metrics on TensorFlow 2.21, run by
``tests/fixtures/tf/make_metrics.py`` (it wrote ``metrics.npz``): for each case, three batches
of different sizes (some with sample weights) fed to one Keras metric by ``update_state``, and
``result()`` after each. Here the same metric is built with tfops, over placeholders whose first
dimension is unknown; each batch is fed and its update op run, then the result fetched, on both
backends ("numpy", "xla"). The unweighted accuracies equal Keras' exactly (counts of 0s and
1s); the rest to float32 rounding (rtol 1e-6: the same float32 terms summed in another
order). AUC counts a prediction as positive at threshold ``t`` when ``p > t``
(TF Java's), where Keras 3 finds the bucket ``ceil(p (n - 1)) - 1`` of evenly spread thresholds:
the same counts unless a prediction lies within a rounding of a threshold, which none here does.
The rest states one behaviour per test: variables in the init scope and named as TF Java names
them, reset, several metrics in one graph, and bad input (an error naming the class and the
fix, the graph unchanged).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import assertRejected

from tfops import Graph, Ops, Session, Shape
from tfops.framework.metrics import (
    AUC,
    Accuracy,
    AUCCurve,
    AUCSummationMethod,
    BinaryAccuracy,
    CategoricalAccuracy,
    Mean,
    MeanSquaredError,
    Metric,
    SparseCategoricalAccuracy,
)
from tfops.types import TFloat32, TFloat64, TInt32

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "tf"))
from make_metrics import BATCHES, CASES  # noqa: E402

FIXTURE = np.load(Path(__file__).parent / "fixtures" / "tf" / "metrics.npz")
BACKENDS = ["numpy", "xla"]
_CURVES = {"ROC": AUCCurve.ROC, "PR": AUCCurve.PR}
_SUMMATIONS = {
    "interpolation": AUCSummationMethod.INTERPOLATION,
    "minoring": AUCSummationMethod.MINORING,
    "majoring": AUCSummationMethod.MAJORING,
}


def tfopsMetric(tf: Ops, kerasClass: str, kwargs: dict[str, Any]) -> Metric:
    """The tfops metric computing what Keras' ``kerasClass(**kwargs)`` does."""
    if kerasClass == "AUC":
        return AUC(
            tf,
            numThresholds=kwargs.get("num_thresholds", 200),
            curve=_CURVES[kwargs.get("curve", "ROC")],
            summationMethod=_SUMMATIONS[kwargs.get("summation_method", "interpolation")],
            thresholds=kwargs.get("thresholds"),
        )
    if kerasClass == "BinaryAccuracy":
        return BinaryAccuracy(tf, threshold=kwargs.get("threshold", 0.5))
    found: type[Any] = {
        "Mean": Mean,
        "Accuracy": Accuracy,
        "CategoricalAccuracy": CategoricalAccuracy,
        "SparseCategoricalAccuracy": SparseCategoricalAccuracy,
        "MeanSquaredError": MeanSquaredError,
    }[kerasClass]
    metric: Metric = found(tf)
    return metric


def placeholder(tf: Ops, key: str) -> Any:
    """A float32 placeholder for the batches of ``key``, its first dimension unknown."""
    return tf.placeholder(TFloat32, shape=Shape.of(-1, *FIXTURE[key].shape[1:]))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", list(CASES))
def test_matches_keras(case: str, backend: str) -> None:
    kerasClass, kwargs, _, weighted = CASES[case]
    g = Graph()
    tf = Ops.create(g)
    metric = tfopsMetric(tf, kerasClass, kwargs)
    predictions = placeholder(tf, f"{case}_0_predictions")
    weights = tf.placeholder(TFloat32, shape=Shape.of(-1)) if weighted else None
    labels = None
    if isinstance(metric, Mean):
        update = metric.updateState(predictions, weights)
    else:
        labels = placeholder(tf, f"{case}_0_labels")
        update = metric.updateState(labels, predictions, weights)  # type: ignore[attr-defined]
    result = metric.result()
    with Session(g, backend=backend) as s:
        for b in range(len(BATCHES)):
            runner = s.runner().feed(predictions, FIXTURE[f"{case}_{b}_predictions"])
            if labels is not None:
                runner.feed(labels, FIXTURE[f"{case}_{b}_labels"])
            if weights is not None:
                runner.feed(weights, FIXTURE[f"{case}_{b}_weights"])
            runner.addTarget(update).run()
            got = s.runner().fetch(result).run()[0]
            want = FIXTURE[f"{case}_{b}_result"]
            assert got.dtype == np.float32 and got.shape == ()
            if "accuracy" in case and not weighted:
                assert got == want, (b, got, want)
            else:
                np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=f"batch {b}")


# -- state -----------------------------------------------------------------------------------
def test_variables_are_in_the_init_scope_named_as_tf_java() -> None:
    g = Graph()
    tf = Ops.create(g)
    mean, auc = Mean(tf, "loss"), AUC(tf, numThresholds=5)
    assert [v.op().name() for v in mean.getVariables()] == ["loss_total", "loss_count"]
    assert [v.op().name() for v in auc.getVariables()] == [
        "auc_TRUE_POSITIVES",
        "auc_FALSE_POSITIVES",
        "auc_TRUE_NEGATIVES",
        "auc_FALSE_NEGATIVES",
    ]
    assert auc.getTruePositives().asOutput().shape() == Shape.of(5)
    initializers = {op.name() for op in g.initializers()}
    assert {"loss_total", "loss_count", "auc_TRUE_POSITIVES"} <= initializers
    with Session(g) as s:  # initialized by the session itself
        assert s.runner().fetch(mean.result()).fetch(auc.result()).run()[0] == 0.0


def test_a_metric_added_after_a_sessions_first_run_is_initialized_once() -> None:
    g = Graph()
    tf = Ops.create(g)
    s = Session(g)
    assert s.runner().fetch(tf.constant(1.0)).run()[0] == 1.0
    mean = Mean(tf)
    update, result = mean.updateState([1.0, 3.0]), mean.result()
    s.run(update)
    assert s.runner().fetch(result).run()[0] == 2.0
    tf.variable(np.zeros(2))  # a later initializer does not reset the metric's variables
    s.run(update)
    assert s.runner().fetch(result).run()[0] == 2.0
    assert s.runner().fetch(mean.getCount()).run()[0] == 4.0
    s.close()


def test_reset_states_starts_over() -> None:
    g = Graph()
    tf = Ops.create(g)
    acc = BinaryAccuracy(tf)
    first = acc.updateState([1.0, 0.0, 1.0, 1.0], [0.9, 0.2, 0.1, 0.4])
    second = acc.updateState([1.0, 1.0], [0.9, 0.8])
    result, reset = acc.result(), acc.resetStates()
    with Session(g) as s:
        s.run(first)
        assert s.runner().fetch(result).run()[0] == 0.5
        s.run(second)
        assert s.runner().fetch(result).run()[0] == 4 / 6
        s.run(reset)
        assert s.runner().fetch(result).run()[0] == 0.0
        s.run(second)
        assert s.runner().fetch(result).run()[0] == 1.0


def test_update_state_list_is_the_assign_adds() -> None:
    g = Graph()
    tf = Ops.create(g)
    ops = Mean(tf).updateStateList([1.0, 2.0])
    assert [op.op().type() for op in ops] == ["AssignAdd", "AssignAdd"]
    assert CategoricalAccuracy(tf).updateState([[0, 1]], [[0.3, 0.7]]).op().type() == "NoOp"


def test_float64_metric_and_integer_inputs() -> None:
    g = Graph()
    tf = Ops.create(g)
    mse = MeanSquaredError(tf, dtype=TFloat64)
    update = mse.updateState(np.array([[1, 2], [3, 4]], np.int32), [[1.5, 2.0], [3.0, 3.0]])
    result = mse.result()
    assert result.dataType() is TFloat64
    with Session(g) as s:
        s.run(update)
        assert s.runner().fetch(result).run()[0] == (0.25 / 2 + 1.0 / 2) / 2


def test_weighted_mean_of_a_matrix_is_the_mean_per_sample() -> None:
    g = Graph()
    tf = Ops.create(g)
    m = Mean(tf)
    update = m.updateState([[1.0, 3.0], [10.0, 20.0]], [3.0, 1.0])
    with Session(g) as s:
        s.run(update)
        total, count = s.runner().fetch(m.getTotal()).fetch(m.getCount()).run()
    assert (total, count) == (3 * 2.0 + 1 * 15.0, 4.0)


def test_auc_of_a_perfect_and_an_inverted_ranking() -> None:
    g = Graph()
    tf = Ops.create(g)
    perfect, inverted = AUC(tf, "perfect"), AUC(tf, "inverted")
    labels = [0.0, 0.0, 1.0, 1.0]
    updates = [
        perfect.updateState(labels, [0.1, 0.2, 0.8, 0.9]),
        inverted.updateState(labels, [0.9, 0.8, 0.2, 0.1]),
    ]
    with Session(g) as s:
        for u in updates:
            s.run(u)
        good, bad = s.runner().fetch(perfect.result()).fetch(inverted.result()).run()
    assert good == pytest.approx(1.0) and bad == pytest.approx(0.0)


# -- bad input ---------------------------------------------------------------------------------
def test_mismatched_labels_and_predictions() -> None:
    g = Graph()
    tf = Ops.create(g)
    acc, mse, cat, sparse, auc = (
        Accuracy(tf),
        MeanSquaredError(tf),
        CategoricalAccuracy(tf),
        SparseCategoricalAccuracy(tf),
        AUC(tf),
    )
    a3, b4 = tf.constant([1.0, 2.0, 3.0]), tf.constant([1.0, 2.0, 3.0, 4.0])
    m23 = tf.constant(np.zeros((2, 3), np.float32))
    assertRejected(
        g,
        lambda: acc.updateState(a3, b4),
        ValueError,
        f"Accuracy.updateState: labels '{a3.asOutput().name()}' of shape [3] and "
        f"predictions '{b4.asOutput().name()}' of shape [4]",
        "do not match",
        "same shape",
    )
    assertRejected(
        g,
        lambda: mse.updateState(m23, b4),
        ValueError,
        "MeanSquaredError.updateState",
        "do not match",
    )
    assertRejected(
        g,
        lambda: cat.updateState(a3, m23),
        ValueError,
        "CategoricalAccuracy.updateState",
        "one-hot labels",
        "SparseCategoricalAccuracy",
    )
    assertRejected(
        g,
        lambda: sparse.updateState(b4, m23),
        ValueError,
        "SparseCategoricalAccuracy.updateState",
        "labels [samples] (or [samples, 1])",
    )
    assertRejected(
        g,
        lambda: auc.updateState(a3, b4),
        ValueError,
        "AUC.updateState",
        "one label per prediction",
        "(called at ",  # where the user's code called
        "test_metrics.py:",
    )
    assertRejected(
        g,
        lambda: acc.updateState(a3, a3, b4),
        ValueError,
        "Accuracy.updateState: sampleWeights",
        "do not broadcast",
        "one weight per sample",
    )


def test_bad_operands() -> None:
    g = Graph()
    tf = Ops.create(g)
    m = Mean(tf)
    unknown = tf.placeholder(TFloat32)
    assertRejected(
        g,
        lambda: m.updateState(unknown),
        ValueError,
        "Mean.updateState: values",
        "unknown rank",
        "Shape.of(-1, 10)",
    )
    assertRejected(
        g,
        lambda: m.updateState("1.0"),
        TypeError,
        "Mean.updateState: values must be an operand or an array of numbers",
    )
    other = Ops.create(Graph()).constant([1.0])
    assertRejected(g, lambda: m.updateState(other), ValueError, "belongs to another graph")


def test_bad_constructor_arguments() -> None:
    g = Graph()
    tf = Ops.create(g)
    before = [op.name() for op in g.operations()]
    with pytest.raises(TypeError, match=r"Mean: dtype must be a floating point type"):
        Mean(tf, dtype=TInt32)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"AUC: unknown curve 'roc'; give one of AUCCurve.ROC"):
        AUC(tf, curve="roc")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"AUC: unknown summationMethod 'minoring'.*MINORING"):
        AUC(tf, summationMethod="minoring")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"AUC: numThresholds must be > 1, got 1"):
        AUC(tf, numThresholds=1)
    with pytest.raises(ValueError, match=r"AUC: threshold values must be in \[0, 1\]"):
        AUC(tf, thresholds=[0.5, 1.5])
    with pytest.raises(TypeError, match=r"BinaryAccuracy: threshold must be a real number"):
        BinaryAccuracy(tf, threshold="0.5")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Mean(tf, name="bad name")
    assert [op.name() for op in g.operations()] == before


# -- the documentation page ----------------------------------------------------------------
def test_the_docs_page_runs_and_prints_what_it_says() -> None:
    """docs/reference/initializers_metrics.md: its Python blocks run in one namespace, and each
    ``print`` prints what its trailing comment says (tests/test_docs.py's rule for guides)."""
    import re

    page = Path(__file__).parents[1] / "docs" / "reference" / "initializers_metrics.md"
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
    assert len(blocks) == 5
    printed: list[str] = []

    def record(*values: object, **_: object) -> None:
        printed.append(" ".join(str(v) for v in values))

    namespace: dict[str, object] = {"__name__": "docs_initializers_metrics", "print": record}
    for n, block in enumerate(blocks, 1):
        said = [m.group(1) for m in re.finditer(r"^\s*print\(.*\)\s+# (.*)$", block, re.M)]
        start = len(printed)
        exec(compile(block, f"{page.name} block {n}", "exec"), namespace)
        assert [" ".join(s.split()) for s in said] == [
            " ".join(p.split()) for p in printed[start:]
        ], n
