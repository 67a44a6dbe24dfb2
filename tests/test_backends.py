"""Backends: choosing one, devices and soft placement, what the XLA backend keeps between runs,
its 64-bit mode, a missing JAX, and data parallel runs across several devices."""

from __future__ import annotations

import ast
import os
import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import jax
import numpy as np
import pytest

from tfops import Graph, Ops, Session
from tfops.backend import NumpyBackend, NumpyOptions, backendNames, resolveBackend
from tfops.backend.xla import XlaBackend
from tfops.errors import IllegalArgumentError, InvalidArgumentError
from tfops.op.core import Placeholder
from tfops.shape import Shape
from tfops.types import TFloat32, TFloat64, TInt64

ROOT = Path(__file__).resolve().parents[1]
BACKENDS = ["numpy", "xla"]


def test_theBackendsByName() -> None:
    assert backendNames() == ("numpy", "xla")
    assert resolveBackend("numpy").name == "numpy"
    assert resolveBackend("xla").name == "xla"


def test_anUnknownBackendNameIsRejected(graph: Graph) -> None:
    with pytest.raises(IllegalArgumentError, match="unknown backend 'tpu'.*numpy, xla"):
        Session(graph, backend="tpu")
    with pytest.raises(IllegalArgumentError, match="tfops.backend.Backend"):
        Session(graph, backend=42)  # type: ignore[arg-type]


def test_aBackendObjectIsUsedAsGiven(graph: Graph, tf: Ops) -> None:
    backend = NumpyBackend(NumpyOptions(threads=1))
    with Session(graph, backend=backend) as s:
        assert s.backend() is backend
        assert s.runner().fetch(tf.math.exp(0.0)).run()[0] == 1.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_bothBackendsGiveTheSameResults(graph: Graph, tf: Ops, backend: str) -> None:
    x = tf.placeholder(TFloat64)
    p = tf.nn.softmax(tf.math.mul(x, [[1.0, 2.0, 3.0]]))
    dx = tf.gradients(tf.sum(tf.math.log(p), [0, 1]), [x]).dy(0)
    assert dx is not None
    value = np.array([[0.5, -1.0, 2.0], [1.0, 0.0, -0.5]])
    with Session(graph, backend=backend) as s:
        got = s.runner().feed(x, value).fetch(p).fetch(dx).run()
    with Session(graph) as s:
        expected = s.runner().feed(x, value).fetch(p).fetch(dx).run()
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)
        assert a.dtype == b.dtype


# -- devices ----------------------------------------------------------------------------------
def _hasGpu() -> bool:
    try:
        return bool(jax.devices("gpu"))
    except RuntimeError:
        return False


@pytest.mark.parametrize("backend", BACKENDS)
def test_anOpOnADeviceTheBackendLacksFailsNamingOpAndDevice(
    graph: Graph, tf: Ops, backend: str
) -> None:
    if backend == "xla" and _hasGpu():
        pytest.skip("this machine has a GPU: the op runs there")  # see the next test
    y = tf.withDevice("/device:GPU:0").withName("onGpu").math.exp(tf.constant([1.0]))
    with Session(graph, backend=backend) as s, pytest.raises(InvalidArgumentError) as info:
        s.runner().fetch(y).run()
    assert info.value.op == y.op()
    assert "/device:GPU:0" in str(info.value) and "allowSoftPlacement=True" in str(info.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_softPlacementRunsItElsewhere(graph: Graph, tf: Ops, backend: str) -> None:
    y = tf.withDevice("/device:GPU:7").math.exp(tf.constant([0.0]))
    with Session(graph, backend=backend, allowSoftPlacement=True) as s:
        assert s.runner().fetch(y).run()[0].tolist() == [1.0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_anOpOnTheCpuRuns(graph: Graph, tf: Ops, backend: str) -> None:
    y = tf.withDevice("/device:CPU:0").math.exp(tf.constant([0.0]))
    with Session(graph, backend=backend) as s:
        assert s.runner().fetch(y).run()[0].tolist() == [1.0]


def test_xlaRunsOpsOnTheDevicesTheyAreOn(graph: Graph, tf: Ops) -> None:
    """A request spanning devices runs one compiled function per device, in order."""
    device = "/device:GPU:0" if _hasGpu() else "/device:CPU:0"
    x = tf.placeholder(TFloat32)
    a = tf.withDevice("/device:CPU:0").math.square(x)
    b = tf.withDevice(device).math.add(a, 1.0)
    c = tf.withDevice("/device:CPU:0").math.sqrt(b)
    with Session(graph, backend="xla") as s:
        got = s.runner().feed(x, np.array([3.0], np.float32)).fetch(c).run()[0]
    assert got.tolist() == [np.sqrt(np.float32(10.0))]


def test_anXlaBackendOnADeviceThisProcessLacksIsRejected() -> None:
    with pytest.raises(IllegalArgumentError, match="no device '/device:TPU:3'"):
        XlaBackend(devices=["/device:TPU:3"])


# -- state, 64-bit mode ------------------------------------------------------------------------
def test_xlaKeepsVariablesBetweenRuns(graph: Graph, tf: Ops) -> None:
    w = tf.variable([1.0, 2.0])
    step = tf.assignAdd(w, [0.5, 0.5])
    with Session(graph, backend="xla") as s:
        s.initialize()
        for _ in range(3):
            s.run(step)
        assert s.runner().fetch(w).run()[0].tolist() == [2.5, 3.5]


def test_xlaUpdatesFromSeveralThreadsAreNotLost(graph: Graph, tf: Ops) -> None:
    n = tf.variable(tf.constant(0, dtype=TInt64))
    step = tf.assignAdd(n, tf.constant(1, dtype=TInt64))
    with Session(graph, backend="xla") as s:
        s.initialize()
        s.run(step)  # compiled before the threads start

        def work() -> None:
            for _ in range(50):
                s.run(step)

        threads = [threading.Thread(target=work) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert int(s.runner().fetch(n).run()[0]) == 201


def test_xlaRunsFloat64WithoutChangingJaxsConfiguration(graph: Graph, tf: Ops) -> None:
    before = jax.config.jax_enable_x64
    y = tf.math.add(tf.constant(np.float64(1.0)), np.float64(1e-12))
    with Session(graph, backend="xla") as s:
        got = s.runner().fetch(y).run()[0]
    assert got.dtype == np.float64 and got == 1.0 + 1e-12
    assert jax.config.jax_enable_x64 == before


def test_xlaFetchesAreTheCallersOwnArrays(graph: Graph, tf: Ops) -> None:
    w = tf.variable([1.0, 2.0])
    with Session(graph, backend="xla") as s:
        s.initialize()
        first = s.runner().fetch(w).run()[0]
        first[0] = 100.0
        assert s.runner().fetch(w).run()[0].tolist() == [1.0, 2.0]


def test_xlaSeededRandomOpsRepeatAcrossSessions(graph: Graph, tf: Ops) -> None:
    r = tf.random.randomUniform(tf.constant([5]), TFloat32, seed=7)
    with Session(graph, backend="xla") as s:
        a, b = s.runner().fetch(r).run()[0], s.runner().fetch(r).run()[0]
    with Session(graph, backend="xla") as s:
        c = s.runner().fetch(r).run()[0]
    assert not np.array_equal(a, b) and np.array_equal(a, c)


def test_xlaCompilesEachRequestOnce(graph: Graph, tf: Ops) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(3)))
    y = tf.math.exp(x)
    with Session(graph, backend="xla") as s:
        for i in range(3):
            s.runner().feed(x, np.full(3, i, np.float32)).fetch(y).run()
        (request,) = s._plans.values()
        (segment,) = request._segments  # type: ignore[attr-defined]
        assert segment.function._cache_size() == 1


# -- without JAX ----------------------------------------------------------------------------
def test_withoutJaxTheXlaBackendSaysWhichExtraToInstall() -> None:
    program = textwrap.dedent("""
        import sys
        sys.modules["jax"] = None  # as if JAX were not installed
        from tfops import Graph, Session
        from tfops.errors import MissingDependencyError
        try:
            Session(Graph(), backend="xla")
        except MissingDependencyError as e:
            assert isinstance(e, ImportError)
            print(e)
    """)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "pip install 'tfops[xla]'" in done.stdout


def test_importingTfopsLoadsNeitherJaxNorScipy() -> None:
    """The XLA backend's JAX and the special functions' scipy are imported when first used:
    numpy programs never pay for them (import time, and the objects every full run of Python's
    cycle collector walks)."""
    program = textwrap.dedent("""
        import sys
        import numpy as np
        from tfops import Graph, Ops, Session
        g = Graph()
        tf = Ops.create(g)
        y = tf.math.exp(tf.constant([1.0]))
        Session(g).runner().fetch(y).run()
        assert "jax" not in sys.modules and "scipy" not in sys.modules, "loaded too early"
        lgamma = tf.math.lgamma(tf.constant(np.array([0.5, 3.0])))
        print(Session(g).runner().fetch(lgamma).run()[0].tolist())
    """)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    got = [float(v) for v in done.stdout.strip().strip("[]").split(",")]
    np.testing.assert_allclose(got, [np.log(np.sqrt(np.pi)), np.log(2.0)], rtol=1e-15)


# -- data parallel ----------------------------------------------------------------------------
DATA_PARALLEL = textwrap.dedent("""
    import jax, numpy as np
    from tfops import Graph, Ops, Session
    from tfops.backend.xla import XlaBackend
    from tfops.op.core import Placeholder
    from tfops.shape import Shape
    from tfops.types import TFloat32, TInt64

    assert len(jax.devices("cpu")) == 4, jax.devices()
    rng = np.random.default_rng(0)
    xs = rng.standard_normal((3, 8, 6)).astype(np.float32)
    ys = rng.integers(0, 4, (3, 8))

    def train(backend):
        with Graph() as g:
            tf = Ops.create(g)
            x = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(-1, 6)))
            y = tf.placeholder(TInt64, Placeholder.shape(Shape.of(-1)))
            w1 = tf.variable(rng0.standard_normal((6, 5)).astype(np.float32))
            w2 = tf.variable(rng0.standard_normal((5, 4)).astype(np.float32))
            h = tf.nn.relu(tf.linalg.matMul(x, w1))
            loss = tf.math.mean(tf.nn.sparseSoftmaxCrossEntropyWithLogits(
                tf.linalg.matMul(h, w2), y).loss(), 0)
            grads = tf.gradients(loss, [w1, w2])
            steps = [tf.train.applyGradientDescent(w, 0.5, grads.dy(i))
                     for i, w in enumerate([w1, w2])]
            with Session(g, backend=backend) as s:
                s.initialize()
                for k in range(3):
                    r = s.runner().feed(x, xs[k]).feed(y, ys[k])
                    for step in steps:
                        r.addTarget(step)
                    r.run()
                return s.runner().fetch(w1).fetch(w2).fetch(loss).feed(x, xs[0]).feed(
                    y, ys[0]).run()

    rng0 = np.random.default_rng(1)
    one = train(XlaBackend(devices=["/device:CPU:0"]))
    rng0 = np.random.default_rng(1)
    four = XlaBackend(devices=[f"/device:CPU:{i}" for i in range(4)])
    several = train(four)
    for a, b in zip(one, several):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    print("same", float(one[2]))
""")


def test_dataParallelAcrossFourDevicesGivesTheSingleDeviceResult() -> None:
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4",
           "JAX_PLATFORMS": "cpu"}
    done = subprocess.run([sys.executable, "-c", DATA_PARALLEL], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("same")


# -- several hosts ----------------------------------------------------------------------------
def test_theMultiHostExampleRunsAsTwoHostsAndGivesTheOneDeviceResult(tmp_path: Path) -> None:
    page = (ROOT / "docs" / "concepts" / "xla.md").read_text()
    program = page.split('```python title="train.py"\n')[1].split("```")[0]
    (tmp_path / "train.py").write_text(program)
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=2",
           "JAX_PLATFORMS": "cpu", "JAX_CPU_COLLECTIVES_IMPLEMENTATION": "gloo",
           "PYTHONPATH": str(ROOT)}
    address = f"localhost:{_freePort()}"
    hosts = [subprocess.Popen([sys.executable, str(tmp_path / "train.py"), address, "2", str(i)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for i in range(2)]
    outputs = [h.communicate(timeout=300) for h in hosts]
    for h, (out, err) in zip(hosts, outputs, strict=True):
        assert h.returncode == 0, out + err
    printed = sorted(out.strip().splitlines()[-1].split(" ", 1) for out, _ in outputs)
    assert [host for host, _ in printed] == ["0", "1"]
    # one step of gradient descent from ones on 4 devices x 8 rows of ones: 1 - 0.01 * 2 * 32 * 3
    for _, weights in printed:
        np.testing.assert_allclose(ast.literal_eval(weights), np.full((3, 2), 1 - 1.92),
                                   rtol=1e-6)


def _freePort() -> int:
    with socket.socket() as s:
        s.bind(("localhost", 0))
        port: int = s.getsockname()[1]
        return port
