"""``Session.save`` / ``Session.restore``: checkpoints of every variable, in safetensors files.

Training resumed from a checkpoint in a new process gives exactly the numbers of an
uninterrupted run (Adam: the weights, the optimizer's slots and its beta powers are all
variables); a process killed while it saves leaves the previous checkpoint restorable; a
checkpoint that does not fit the graph is refused with every difference named and nothing
changed.
"""

from __future__ import annotations

import gc
import json
import os
import re
import signal
import subprocess
import sys
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import safetensors.numpy

from tfops import Graph, Ops, Session, Shape
from tfops.checkpoint import CheckpointNotFoundError, checkpointPath
from tfops.errors import IllegalArgumentError, IllegalStateError, TfopsError
from tfops.framework.optimizers import Adam
from tfops.types import TFloat32, TFloat64

ROOT = Path(__file__).resolve().parent.parent
BACKENDS = ["numpy", "xla"]


# -- a small model trained with Adam ----------------------------------------------------------
def regression(
    steps: int, backend: str, restoreFrom: str | None = None, saveTo: str | None = None
) -> dict[str, Any]:
    """Linear regression trained with Adam for ``steps`` steps (after restoring ``restoreFrom``
    if given; saving to ``saveTo`` at the end); the losses and the final weights."""
    rng = np.random.RandomState(0)
    x, noise = rng.normal(size=(32, 3)), rng.normal(scale=0.1, size=(32, 1))
    y = x @ np.array([[1.0], [-2.0], [0.5]]) + 0.3 + noise
    graph = Graph()
    tf = Ops.create(graph)
    w = tf.withName("w").variable(tf.constant(rng.normal(size=(3, 1))))
    b = tf.withName("b").variable(tf.constant(np.zeros(1)))
    prediction = tf.math.add(tf.linalg.matMul(tf.constant(x), w), b)
    loss = tf.math.mean(tf.math.squaredDifference(prediction, tf.constant(y)), [0, 1])
    step = Adam(graph, 0.1).minimize(loss)
    losses: list[float] = []
    with Session(graph, backend=backend) as s:
        if restoreFrom is not None:
            s.restore(restoreFrom)
        for _ in range(steps):
            losses.append(float(s.runner().fetch(loss).addTarget(step).run()[0]))
        if saveTo is not None:
            s.save(saveTo)
        values = s.runner().fetch(w).fetch(b).run()
    return {"losses": losses, "w": values[0].ravel().tolist(), "b": values[1].tolist()}


def inNewProcess(program: str) -> str:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


# -- round trips ------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_restore_gives_back_the_saved_values_of_every_variable(
    tmp_path: Path, backend: str
) -> None:
    g = Graph()
    tf = Ops.create(g)
    w = tf.withName("w").variable(tf.constant(np.zeros((2, 3))))
    n = tf.withSubScope("counter").withName("n").variable(tf.constant(np.int64(0)))
    flag = tf.withName("flag").variable(tf.constant([True, False]))
    half = tf.withName("half").variable(tf.constant(np.ones(2, np.float16)))
    saved = np.arange(6.0).reshape(2, 3)
    prefix = str(tmp_path / "model")
    with Session(g, backend=backend) as s:
        s.run(tf.assign(w, saved))
        s.run(tf.assignAdd(n, np.int64(7)))
        s.save(prefix)
    with Session(g, backend=backend) as s:
        s.restore(prefix)
        got = s.runner().fetch(w).fetch(n).fetch(flag).fetch(half).run()
    np.testing.assert_array_equal(got[0], saved)
    assert got[1] == 7 and got[1].dtype == np.int64
    assert got[2].tolist() == [True, False]
    assert got[3].dtype == np.float16


def test_the_checkpoint_is_a_safetensors_file_keyed_by_variable_names(tmp_path: Path) -> None:
    g = Graph()
    tf = Ops.create(g)
    tf.withSubScope("dense").withName("kernel").variable(tf.constant(np.eye(2, dtype=np.float32)))
    tf.withName("step").variable(tf.constant(3))
    with Session(g) as s:
        s.save(str(tmp_path / "ckpt"))
    assert checkpointPath(str(tmp_path / "ckpt")) == str(tmp_path / "ckpt.safetensors")
    assert sorted(os.listdir(tmp_path)) == ["ckpt.safetensors"]  # no temporary file left
    umask = os.umask(0)
    os.umask(umask)
    assert os.stat(tmp_path / "ckpt.safetensors").st_mode & 0o777 == 0o666 & ~umask
    tensors = safetensors.numpy.load_file(str(tmp_path / "ckpt.safetensors"))
    assert sorted(tensors) == ["dense/kernel", "step"]
    assert tensors["dense/kernel"].dtype == np.float32
    np.testing.assert_array_equal(tensors["dense/kernel"], np.eye(2))
    assert tensors["step"].dtype == np.int32 and tensors["step"].shape == ()


def test_saving_again_replaces_the_checkpoint(tmp_path: Path) -> None:
    g = Graph()
    tf = Ops.create(g)
    v = tf.withName("v").variable(tf.constant([1.0]))
    prefix = str(tmp_path / "m")
    with Session(g) as s:
        s.save(prefix)
        s.run(tf.assign(v, [2.0]))
        s.save(prefix)
    with Session(g) as s:
        s.restore(prefix)
        assert s.runner().fetch(v).run()[0].tolist() == [2.0]


def test_restore_counts_as_initialization(tmp_path: Path) -> None:
    """As TF Java: after a restore the initializers do not run (they would undo it), also in a
    session without autoInit."""
    g = Graph()
    tf = Ops.create(g)
    v = tf.withName("v").variable(tf.constant([1.0, 1.0]))
    prefix = str(tmp_path / "m")
    with Session(g) as s:
        s.run(tf.assign(v, [5.0, 6.0]))
        s.save(prefix)
    with Session(g, autoInit=False) as s:
        s.restore(prefix)
        assert s.runner().fetch(v).run()[0].tolist() == [5.0, 6.0]
        assert s.runner().fetch(v).run()[0].tolist() == [5.0, 6.0]


def test_restore_builds_its_ops_once(tmp_path: Path) -> None:
    g = Graph()
    tf = Ops.create(g)
    tf.withName("v").variable(tf.constant([1.0]))
    prefix = str(tmp_path / "m")
    with Session(g) as s:
        s.save(prefix)
        s.restore(prefix)
        size = g.size()
        s.restore(prefix)
        assert g.size() == size
    assert sorted(op.type() for op in g.operations() if op.name().startswith("save/")) == [
        "Assign",
        "Placeholder",
    ]


def test_a_graph_restored_into_can_be_freed(tmp_path: Path) -> None:
    """The restore ops are kept on the graph: a table keyed by the graph whose values hold
    its ops kept every graph ever restored into alive, weakly keyed or not."""
    g = Graph()
    tf = Ops.create(g)
    tf.withName("v").variable(tf.constant([1.0]))
    prefix = str(tmp_path / "m")
    with Session(g) as s:
        s.save(prefix)
        s.restore(prefix)
    g.close()
    ref = weakref.ref(g)
    del g, tf, s
    gc.collect()
    assert ref() is None


def test_a_graph_without_variables_saves_an_empty_checkpoint(tmp_path: Path) -> None:
    g = Graph()
    Ops.create(g).constant(1.0)
    with Session(g) as s:
        s.save(str(tmp_path / "empty"))
        s.restore(str(tmp_path / "empty"))
    assert safetensors.numpy.load_file(str(tmp_path / "empty.safetensors")) == {}


# -- training resumed in a new process --------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_training_resumed_in_a_new_process_matches_an_uninterrupted_run(
    tmp_path: Path, backend: str
) -> None:
    uninterrupted = regression(6, backend)
    prefix = str(tmp_path / "adam")
    first = json.loads(
        inNewProcess(
            f"import json; from test_checkpoint import regression\n"
            f"print(json.dumps(regression(3, {backend!r}, saveTo={prefix!r})))"
        )
    )
    second = json.loads(
        inNewProcess(
            f"import json; from test_checkpoint import regression\n"
            f"print(json.dumps(regression(3, {backend!r}, restoreFrom={prefix!r})))"
        )
    )
    assert first["losses"] + second["losses"] == uninterrupted["losses"]
    assert second["w"] == uninterrupted["w"] and second["b"] == uninterrupted["b"]
    assert uninterrupted["losses"][-1] < uninterrupted["losses"][0]


# -- a crash while saving ---------------------------------------------------------------------
CRASHING_SAVE = """
import sys, time
import numpy as np
import tfops.checkpoint
from tfops import Graph, Ops, Session

prefix = sys.argv[1]
g = Graph(); tf = Ops.create(g)
v = tf.withName("v").variable(tf.constant(np.zeros(100_000)))
with Session(g) as s:
    s.run(tf.assign(v, np.full(100_000, 1.0)))
    s.save(prefix)                      # the previous checkpoint: all ones
    s.run(tf.assign(v, np.full(100_000, 2.0)))

    def pause(temporary):
        print(temporary, flush=True)    # half of the new checkpoint is on disk
        time.sleep(600)

    tfops.checkpoint._after_partial_write = pause
    s.save(prefix)
"""


def test_a_process_killed_while_saving_leaves_the_previous_checkpoint(tmp_path: Path) -> None:
    prefix = str(tmp_path / "model")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    saver = subprocess.Popen(
        [sys.executable, "-c", CRASHING_SAVE, prefix],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert saver.stdout is not None
        temporary = saver.stdout.readline().strip()
        assert temporary, saver.stderr.read() if saver.stderr else ""
        assert os.path.getsize(temporary) < os.path.getsize(checkpointPath(prefix))
        saver.send_signal(signal.SIGKILL)
    finally:
        saver.kill()
        saver.communicate()
    assert saver.returncode == -signal.SIGKILL
    assert os.path.exists(temporary)  # the half-written file, never renamed
    g = Graph()
    tf = Ops.create(g)
    v = tf.withName("v").variable(tf.constant(np.zeros(100_000)))
    with Session(g) as s:
        s.restore(prefix)
        np.testing.assert_array_equal(s.runner().fetch(v).run()[0], np.ones(100_000))
        s.save(prefix)  # saving again works beside the stray file
        s.restore(prefix)


# -- checkpoints that do not fit --------------------------------------------------------------
def test_a_mismatching_checkpoint_names_every_difference_and_changes_nothing(
    tmp_path: Path,
) -> None:
    g = Graph()
    tf = Ops.create(g)
    tf.withName("w").variable(tf.constant(np.zeros(2)))
    tf.withName("b").variable(tf.constant(np.zeros(1)))
    tf.withName("gone").variable(tf.constant(np.zeros(1)))
    tf.withName("same").variable(tf.constant(np.zeros(2)))
    prefix = str(tmp_path / "m")
    with Session(g) as s:
        s.save(prefix)

    other = Graph()
    tf = Ops.create(other)
    w = tf.withName("w").variable(tf.constant(np.full(2, 5.0, np.float32)))
    b = tf.withName("b").variable(tf.constant(np.full(3, 5.0)))
    same = tf.withName("same").variable(tf.constant(np.full(2, 5.0)))
    tf.withName("new").variable(Shape.of(4), TFloat64)
    with Session(other) as s:
        with pytest.raises(IllegalArgumentError) as e:
            s.restore(prefix)
        message = str(e.value)
        assert "nothing was restored" in message
        assert "variable 'w' is float32 [2]" in message and "float64 [2]" in message
        assert "variable 'b' is float64 [3]" in message and "float64 [1]" in message
        assert "variable 'new' (float64 [4])" in message and "not in the checkpoint" in message
        assert "'gone'" in message and "no variable of the graph" in message
        assert "test_checkpoint.py" in message  # where the variables were created
        assert "'same'" not in message
        values = s.runner().fetch(w).fetch(b).fetch(same).run()
    assert values[0].tolist() == [5.0, 5.0] and values[1].tolist() == [5.0] * 3
    assert values[2].tolist() == [5.0, 5.0]  # matching variables are not restored either


def test_restoring_a_missing_checkpoint_says_which_file(tmp_path: Path) -> None:
    g = Graph()
    Ops.create(g).variable(Ops.create(g).constant(1.0))
    with Session(g) as s, pytest.raises(CheckpointNotFoundError) as e:
        s.restore(str(tmp_path / "nothing"))
    assert isinstance(e.value, FileNotFoundError) and isinstance(e.value, TfopsError)
    assert str(tmp_path / "nothing.safetensors") in str(e.value)


def test_saving_into_a_missing_directory_says_so(tmp_path: Path) -> None:
    g = Graph()
    Ops.create(g).variable(Ops.create(g).constant(1.0))
    with Session(g) as s, pytest.raises(CheckpointNotFoundError, match="does not exist"):
        s.save(str(tmp_path / "no" / "such" / "dir"))


@pytest.mark.parametrize("content", [b"", b"not a checkpoint", b"\x10\x00\x00\x00\x00\x00\x00"])
def test_a_corrupt_or_truncated_checkpoint_is_refused(tmp_path: Path, content: bytes) -> None:
    g = Graph()
    tf = Ops.create(g)
    v = tf.variable(tf.constant([1.0]))
    with Session(g) as s:
        s.run(tf.assign(v, [3.0]))
        s.save(str(tmp_path / "m"))
        data = (tmp_path / "m.safetensors").read_bytes()
        (tmp_path / "m.safetensors").write_bytes(content or data[: len(data) - 4])
        with pytest.raises(IllegalArgumentError, match="not a readable safetensors checkpoint"):
            s.restore(str(tmp_path / "m"))
        assert s.runner().fetch(v).run()[0].tolist() == [3.0]


def test_bad_prefixes_and_closed_sessions(tmp_path: Path) -> None:
    g = Graph()
    tf = Ops.create(g)
    tf.variable(tf.constant(np.float32(1.0)))
    s = Session(g)
    with pytest.raises(IllegalArgumentError, match="non-empty path"):
        s.save("")
    with pytest.raises(IllegalArgumentError, match="non-empty path"):
        s.restore(None)  # type: ignore[arg-type]
    s.close()
    with pytest.raises(IllegalStateError):
        s.save(str(tmp_path / "m"))
    with pytest.raises(IllegalStateError):
        s.restore(str(tmp_path / "m"))


def test_an_uninitialized_variable_cannot_be_saved(tmp_path: Path) -> None:
    g = Graph()
    Ops.create(g).withName("declared").variable(Shape.of(2), TFloat32)
    with Session(g) as s, pytest.raises(TfopsError, match="declared"):
        s.save(str(tmp_path / "m"))
    assert not os.path.exists(tmp_path / "m.safetensors")


# -- the guide --------------------------------------------------------------------------------
def test_the_checkpoints_guide_runs_and_prints_what_it_says() -> None:
    """docs/checkpoints.md's Python blocks run in one namespace, and each ``print`` prints what
    its trailing comment says (as tests/test_docs.py checks the concepts pages)."""
    page = ROOT / "docs" / "checkpoints.md"
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
    assert len(blocks) == 4
    printed: list[str] = []

    def record(*values: object, **_: object) -> None:
        printed.append(" ".join(str(v) for v in values))

    namespace: dict[str, object] = {"__name__": "docs_checkpoints", "print": record}
    for n, block in enumerate(blocks, 1):
        expected = [m.group(1) for m in re.finditer(r"^\s*print\(.*\)\s+# (.*)$", block, re.M)]
        start = len(printed)
        exec(compile(block, f"docs/checkpoints.md block {n}", "exec"), namespace)
        outputs = printed[start:]
        assert len(outputs) == len(expected), f"block {n}: a print without its comment"
        for said, got in zip(expected, outputs, strict=True):
            assert " ".join(said.split()) == " ".join(got.split()), f"block {n}: {got!r}"


def test_variables_without_initializer_or_with_unknown_dimensions_are_restored(
    tmp_path: Path,
) -> None:
    g = Graph()
    tf = Ops.create(g)
    rows = tf.withName("rows").variable(Shape.of(-1, 2), TFloat64)
    declared = tf.withName("declared").variable(Shape.of(2), TFloat32)
    prefix = str(tmp_path / "m")
    with Session(g) as s:
        s.run(tf.assign(rows, np.ones((4, 2)), validateShape=False))
        s.run(tf.assign(declared, np.array([1.5, 2.5], np.float32)))
        s.save(prefix)
    with Session(g) as s:
        s.restore(prefix)
        got = s.runner().fetch(rows).fetch(declared).run()
    assert got[0].shape == (4, 2) and got[1].tolist() == [1.5, 2.5]
