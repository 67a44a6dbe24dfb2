"""``tfops.summary.SummaryWriter``: TensorBoard event files, read back with TensorBoard's own
``EventAccumulator`` (what ``tensorboard --logdir`` reads them with).

The histogram buckets are TensorFlow's: the expected protos below are what TensorFlow 2.21's
``tf.compat.v1.summary.histogram(name, values)`` wrote (``HistogramProto``, byte for byte the
same as ours, also for 10000 normal samples, Cauchy samples scaled by 1e6, int32, float32,
empty and constant inputs, checked when this test was written).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tensorboard.backend.event_processing.event_accumulator import (
    STORE_EVERYTHING_SIZE_GUIDANCE,
    EventAccumulator,
)

from tfops import Graph, Ops
from tfops.errors import IllegalArgumentError, IllegalStateError, MissingDependencyError
from tfops.examples.stable_softmax import stableSoftmax
from tfops.summary import SummaryWriter, defaultBucketLimits, histogramProto
from tfops.types import TFloat64

ROOT = Path(__file__).resolve().parent.parent
DBL_MAX = sys.float_info.max


def readBack(logdir: Path) -> Any:
    events = EventAccumulator(str(logdir), size_guidance=STORE_EVERYTHING_SIZE_GUIDANCE)
    events.Reload()
    return events


# -- scalars and histograms -------------------------------------------------------------------
def test_scalars_are_read_back_with_their_steps(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path) as writer:
        for step in range(5):
            writer.scalar("train/loss", 1.0 / (step + 1), step * 10)
        writer.scalar("accuracy", np.float64(0.75), 40)
        writer.scalar("count", np.array([3]), 41)
    events = readBack(tmp_path)
    assert sorted(events.Tags()["scalars"]) == ["accuracy", "count", "train/loss"]
    loss = events.Scalars("train/loss")
    assert [e.step for e in loss] == [0, 10, 20, 30, 40]
    # TensorBoard's simple_value is a 32-bit float
    assert [e.value for e in loss] == [float(np.float32(1.0 / k)) for k in range(1, 6)]
    assert [(e.step, e.value) for e in events.Scalars("accuracy")] == [(40, 0.75)]
    assert [(e.step, e.value) for e in events.Scalars("count")] == [(41, 3.0)]


def test_histograms_are_read_back_as_tensorflow_writes_them(tmp_path: Path) -> None:
    values = np.array([-3.0, -0.5, 0.0, 0.0, 1e-13, 0.25, 0.5, 2.0, 7.0])
    with SummaryWriter(tmp_path) as writer:
        writer.histogram("weights", values, 3)
        writer.histogram("weights", values.reshape(3, 3) * 2, 4)
    events = readBack(tmp_path)
    assert events.Tags()["histograms"] == ["weights"]
    first, second = events.Histograms("weights")
    assert (first.step, second.step) == (3, 4)
    h = first.histogram_value
    assert (h.min, h.max, h.num) == (-3.0, 7.0, 9.0)
    assert h.sum == 6.2500000000000995 and h.sum_squares == 62.5625
    # what TensorFlow 2.21 wrote for these values
    assert h.bucket_limit == [
        -3.1665833053880363, -2.8787120958073054, -0.5177616740489182, -0.47069243095356195,
        0.0, 1e-12, 0.24153964213356663, 0.2656936063469233, 0.47069243095356195,
        0.5177616740489182, 1.9661990955585713, 2.1628190051144287, 6.7878525393626115,
        7.466637793298873, DBL_MAX,
    ]  # fmt: skip
    assert h.bucket == [0.0, 1.0, 0.0, 1.0, 0.0, 3.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    assert second.histogram_value.max == 14.0 and second.histogram_value.num == 9.0


def test_the_default_buckets_are_tensorflows() -> None:
    limits = defaultBucketLimits()
    assert len(limits) == 1551 and list(limits) == sorted(limits)
    assert limits[775] == 0.0 and limits[776] == 1e-12 and limits[777] == 1e-12 * 1.1
    assert limits[-1] == DBL_MAX and limits[0] == -DBL_MAX
    assert limits[-2] < 1e20 <= limits[-2] * 1.1


def test_histograms_of_empty_constant_and_integer_values() -> None:
    empty = histogramProto(np.zeros(0))
    assert (empty.num, empty.min, empty.max, empty.sum) == (0.0, DBL_MAX, -DBL_MAX, 0.0)
    assert (list(empty.bucket_limit), list(empty.bucket)) == ([DBL_MAX], [0.0])
    constant = histogramProto(np.full(100, 0.1))
    assert list(constant.bucket) == [0.0, 100.0, 0.0] and constant.sum == 9.99999999999998
    integers = histogramProto(np.arange(-5, 20, dtype=np.int32))
    assert (integers.num, integers.sum, integers.min, integers.max) == (25.0, 175.0, -5.0, 19.0)
    assert sum(integers.bucket) == 25.0


def test_flush_makes_the_events_readable_before_close(tmp_path: Path) -> None:
    writer = SummaryWriter(tmp_path)
    writer.scalar("loss", 2.5, 1)
    writer.flush()
    assert [e.value for e in readBack(tmp_path).Scalars("loss")] == [2.5]
    writer.close()
    writer.close()  # harmless
    assert len(os.listdir(tmp_path)) == 1
    assert os.listdir(tmp_path)[0].startswith("events.out.tfevents.")


# -- the graph --------------------------------------------------------------------------------
def test_the_graph_is_read_back_as_a_graphdef(tmp_path: Path) -> None:
    g = Graph()
    tf = Ops.create(g)
    x = tf.withName("x").placeholder(TFloat64)
    y = stableSoftmax(tf.withSubScope("stable"), x)
    tf.gradients(y, [x])
    with SummaryWriter(tmp_path) as writer:
        writer.addGraph(g)
    graphDef = readBack(tmp_path).Graph()
    assert {n.name: n.op for n in graphDef.node} == {op.name(): op.type() for op in g.operations()}
    assert any(n.op == "StopGradient" and n.name.startswith("stable/") for n in graphDef.node)


# -- misuse -----------------------------------------------------------------------------------
def test_bad_tags_steps_and_values_are_refused(tmp_path: Path) -> None:
    with SummaryWriter(tmp_path) as writer:
        with pytest.raises(IllegalArgumentError, match="tag must be a non-empty str"):
            writer.scalar("", 1.0, 0)
        with pytest.raises(IllegalArgumentError, match="step must be an int"):
            writer.scalar("loss", 1.0, 1.5)  # type: ignore[arg-type]
        with pytest.raises(IllegalArgumentError, match="step must be an int"):
            writer.histogram("w", [1.0], True)
        with pytest.raises(IllegalArgumentError, match=r"one number, got an array of shape \[2\]"):
            writer.scalar("loss", [1.0, 2.0], 0)
        with pytest.raises(IllegalArgumentError, match="must be real numbers"):
            writer.scalar("loss", "high", 0)
        with pytest.raises(IllegalArgumentError, match="must be real numbers"):
            writer.histogram("w", [True, False], 0)
        with pytest.raises(IllegalArgumentError, match="with nan"):
            writer.histogram("w", [1.0, np.nan], 0)
        with pytest.raises(IllegalArgumentError, match="infinite"):
            writer.histogram("w", [np.inf], 0)
    assert readBack(tmp_path).Tags()["scalars"] == []
    with pytest.raises(IllegalArgumentError, match="non-empty path"):
        SummaryWriter("")


def test_a_closed_writer_refuses_to_write(tmp_path: Path) -> None:
    writer = SummaryWriter(tmp_path)
    writer.close()
    assert repr(writer) == f"SummaryWriter({str(tmp_path)!r}, closed)"
    for write in (
        lambda: writer.scalar("a", 1.0, 0),
        lambda: writer.histogram("a", [1.0], 0),
        writer.flush,
    ):
        with pytest.raises(IllegalStateError, match="is closed"):
            write()


def test_without_tensorboard_tfops_imports_and_the_writer_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [m for m in sys.modules if m == "tensorboard" or m.startswith("tensorboard.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "tensorboard", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'tfops-java\[summary\]'"):
        SummaryWriter(tmp_path)
    assert isinstance(MissingDependencyError("x"), ImportError)
    program = (
        "import sys; sys.modules['tensorboard'] = None\n"
        "import tfops, tfops.summary, tfops.checkpoint\n"
        "print('imported')"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120,
    )  # fmt: skip
    assert done.stdout.strip() == "imported", done.stderr
