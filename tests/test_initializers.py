"""Specification of ``tfops.framework.initializers``.

What we compare against: Keras 3's initializers on TensorFlow 2.21, computed by
``tests/fixtures/tf/make_initializers.py`` (it wrote ``initializers.npz``). With an int seed
Keras feeds TensorFlow's stateless random ops the seed ``[seed, 0]``, as TF Java's initializers
do, and computes the same expression as tfops, so:

- uniform draws (``RandomUniform``, variance scaling with ``UNIFORM``: Glorot, He, LeCun) equal
  Keras' bit for bit in float32; in float64, Keras rounds its ``-limit`` and ``limit`` to
  float32 first (``tf.cast`` of a Python float), so there tfops equals, bit for bit,
  ``tf.random.stateless_uniform(shape, [seed, 0], -limit, limit, float64)`` with the float64
  limit (``direct_*`` entries), the computation TF Java does;
- normal draws (``RandomNormal``, ``TruncatedNormal``, variance scaling's normals) equal Keras'
  within 2 units in the last place: tfops' ``StatelessRandomNormal`` and
  ``StatelessTruncatedNormal`` round the Box-Muller transform's logarithm and sine correctly,
  TensorFlow through the C library (the ops' documented difference); most values are equal;
- ``Orthogonal`` equals Keras' to float tolerance (rtol 1e-5 in float32, 1e-12 in float64): the
  same normal matrix, but tfops' QR (LAPACK's) and TensorFlow's (Eigen's) round differently;
  after the sign correction Q is unique, so only rounding differs;
- ``Identity`` equals Keras' exactly.
Each case runs on both backends ("numpy" and "xla"). The rest states one behaviour per test:
the deterministic values, the distributions' statistics over large draws, the fans of a
convolution kernel, Q^T Q = I, use in the init scope, and bad input (an error naming the class
and the fix, the graph unchanged).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import assertRejected

from tfops import Graph, Ops, Session, Shape
from tfops.framework.initializers import (
    Constant,
    Glorot,
    He,
    Identity,
    Initializer,
    LeCun,
    Ones,
    Orthogonal,
    RandomNormal,
    RandomUniform,
    TruncatedNormal,
    VarianceScaling,
    Zeros,
    computeFans,
)
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TInt64, TType

sys.path.insert(0, str(Path(__file__).parent / "fixtures" / "tf"))
from make_initializers import CASES  # noqa: E402

FIXTURE = np.load(Path(__file__).parent / "fixtures" / "tf" / "initializers.npz")
BACKENDS = ["numpy", "xla"]
VS = VarianceScaling
U, TN, N = VS.Distribution.UNIFORM, VS.Distribution.TRUNCATED_NORMAL, VS.Distribution.NORMAL
_MODES = {"fan_in": VS.Mode.FAN_IN, "fan_out": VS.Mode.FAN_OUT, "fan_avg": VS.Mode.FAN_AVG}
_DISTRIBUTIONS = {"truncated_normal": TN, "untruncated_normal": N, "uniform": U}
_NAMED: dict[str, tuple[type[VarianceScaling], VarianceScaling.Distribution]] = {
    "GlorotUniform": (Glorot, U),
    "GlorotNormal": (Glorot, TN),
    "HeUniform": (He, U),
    "HeNormal": (He, TN),
    "LecunUniform": (LeCun, U),
    "LecunNormal": (LeCun, TN),
}


def tfopsInitializer(kerasClass: str, kwargs: dict[str, Any]) -> Initializer:
    """The tfops initializer that computes what Keras' ``kerasClass(**kwargs)`` does."""
    if kerasClass == "VarianceScaling":
        return VarianceScaling(
            kwargs["scale"],
            _MODES[kwargs["mode"]],
            _DISTRIBUTIONS[kwargs["distribution"]],
            seed=kwargs["seed"],
        )
    if kerasClass in _NAMED:
        cls, distribution = _NAMED[kerasClass]
        return cls(distribution, seed=kwargs["seed"])
    found: type[Initializer] = {
        "RandomNormal": RandomNormal,
        "TruncatedNormal": TruncatedNormal,
        "RandomUniform": RandomUniform,
        "Orthogonal": Orthogonal,
        "Identity": Identity,
    }[kerasClass]
    return found(**kwargs)


def run(init: Initializer, dims: Any, dtype: type[TType], backend: str = "numpy") -> Any:
    g = Graph()
    tf = Ops.create(g)
    y = init.call(tf, dims, dtype)
    with Session(g, backend=backend) as s:
        return s.runner().fetch(y).run()[0]


def ulps(a: Any, b: Any) -> Any:
    return np.abs(a - b) / np.spacing(np.abs(b).astype(b.dtype))


# -- the numbers of TensorFlow / Keras ------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [TFloat32, TFloat64], ids=["float32", "float64"])
@pytest.mark.parametrize("case", list(CASES))
def test_matches_keras(case: str, dtype: type[TType], backend: str) -> None:
    kerasClass, kwargs, shape = CASES[case]
    got = run(tfopsInitializer(kerasClass, kwargs), list(shape), dtype, backend)
    key = f"{case}_{dtype.NAME}"
    want = FIXTURE["direct_" + key] if "direct_" + key in FIXTURE else FIXTURE[key]
    assert got.dtype == dtype.DTYPE and got.shape == want.shape
    uniform = kerasClass.endswith("Uniform") or kwargs.get("distribution") == "uniform"
    if uniform or kerasClass == "Identity":
        np.testing.assert_array_equal(got, want)
    elif kerasClass == "Orthogonal":
        np.testing.assert_allclose(
            got,
            want,
            rtol=1e-5 if dtype is TFloat32 else 1e-12,
            atol=1e-6 if dtype is TFloat32 else 1e-14,
        )
    else:
        assert ulps(got, want).max() <= 2
        assert (got == want).mean() > 0.95


def test_keras_rounds_float64_uniform_limits_to_float32() -> None:
    """Why the float64 uniform cases compare with TensorFlow's op directly: Keras' values differ
    from the float64 computation by the float32 rounding of the limit, no more."""
    got = run(Glorot(U, seed=31), [8, 6], TFloat64)
    keras = FIXTURE["glorot_uniform_float64"]
    assert not np.array_equal(got, keras)
    np.testing.assert_allclose(got, keras, rtol=2**-24)


# -- deterministic initializers -------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [TFloat32, TFloat64, TInt32, TInt64, TBool])
def test_zeros_and_ones_of_every_type(dtype: type[TType]) -> None:
    np.testing.assert_array_equal(run(Zeros(), [2, 3], dtype), np.zeros((2, 3), dtype.DTYPE))
    np.testing.assert_array_equal(run(Ones(), [4], dtype), np.ones(4, dtype.DTYPE))


def test_constant_is_cast_to_the_type() -> None:
    assert run(Constant(2.75), [2], TFloat32).tolist() == [2.75, 2.75]
    assert run(Constant(-2.75), [3], TInt32).tolist() == [-2, -2, -2]  # truncated, as a cast
    assert run(Constant(7), [1, 2], TInt64).tolist() == [[7, 7]]
    assert run(Constant(True), [2], TFloat64).tolist() == [1.0, 1.0]
    assert run(Constant(0.0), [2], TBool).tolist() == [False, False]


@pytest.mark.parametrize("backend", BACKENDS)
def test_identity_square_and_rectangular(backend: str) -> None:
    np.testing.assert_array_equal(run(Identity(), [3, 3], TFloat32, backend), np.eye(3))
    np.testing.assert_array_equal(run(Identity(0.5), [4, 2], TFloat64, backend), 0.5 * np.eye(4, 2))


def test_scalar_and_empty_dims() -> None:
    assert run(Constant(3.0), [], TFloat32).tolist() == 3.0
    assert run(RandomNormal(seed=1), [0, 4], TFloat32).shape == (0, 4)


# -- distributions --------------------------------------------------------------------------------
def test_random_normal_statistics() -> None:
    v = run(RandomNormal(1.5, 0.25, seed=3), [200_000], TFloat64)
    assert abs(v.mean() - 1.5) < 0.003 and abs(v.std() - 0.25) < 0.003


def test_truncated_normal_stays_within_two_standard_deviations() -> None:
    v = run(TruncatedNormal(-1.0, 0.5, seed=4), [200_000], TFloat32)
    assert v.min() > -2.0 and v.max() < 0.0
    assert abs(v.mean() + 1.0) < 0.003
    assert abs(v.std() - 0.5 * 0.87962566103423978) < 0.003


def test_random_uniform_bounds_and_moments() -> None:
    v = run(RandomUniform(2.0, 5.0, seed=5), [200_000], TFloat32)
    assert v.min() >= 2.0 and v.max() < 5.0
    assert abs(v.mean() - 3.5) < 0.01 and abs(v.var() - 9.0 / 12.0) < 0.01


def test_defaults_are_tf_javas() -> None:
    assert (RandomNormal.MEAN_DEFAULT, RandomNormal.STDDEV_DEFAULT) == (0.0, 1.0)
    assert TruncatedNormal.STDDEV_DEFAULT == 0.05
    assert (RandomUniform.MINVAL_DEFAULT, RandomUniform.MAXVAL_DEFAULT) == (-0.05, 0.05)
    init = VarianceScaling(seed=1)
    assert (init.getScale(), init.getMode(), init.getDistribution()) == (1.0, VS.Mode.FAN_IN, TN)


def test_fans_of_scalars_vectors_matrices_and_conv_kernels() -> None:
    assert computeFans(()) == (1.0, 1.0)
    assert computeFans((7,)) == (7.0, 7.0)
    assert computeFans((4, 9)) == (4.0, 9.0)
    assert computeFans((3, 3, 16, 32)) == (3 * 3 * 16, 3 * 3 * 32)  # Conv2D [h, w, in, out]
    assert computeFans((5, 8, 2)) == (5 * 8, 5 * 2)  # Conv1D [w, in, out]


@pytest.mark.parametrize(
    ("mode", "fan"),
    [(VS.Mode.FAN_IN, 3 * 3 * 32), (VS.Mode.FAN_OUT, 3 * 3 * 64), (VS.Mode.FAN_AVG, 3 * 3 * 48)],
)
@pytest.mark.parametrize("distribution", [TN, N, U])
def test_variance_scaling_of_a_conv_kernel_has_variance_scale_over_fan(
    mode: VarianceScaling.Mode, fan: int, distribution: VarianceScaling.Distribution
) -> None:
    v = run(VarianceScaling(2.0, mode, distribution, seed=8), [3, 3, 32, 64], TFloat64)
    want = np.sqrt(2.0 / fan)
    assert abs(v.std() - want) < 0.02 * want and abs(v.mean()) < 0.02 * want
    if distribution is U:
        assert np.abs(v).max() < np.sqrt(3.0) * want
    if distribution is TN:
        assert np.abs(v).max() < 2 * want / 0.87962566103423978


def test_glorot_he_lecun_are_variance_scaling() -> None:
    for named, scale, mode in (
        (Glorot(U, seed=2), 1.0, VS.Mode.FAN_AVG),
        (He(U, seed=2), 2.0, VS.Mode.FAN_IN),
        (LeCun(U, seed=2), 1.0, VS.Mode.FAN_IN),
    ):
        plain = VarianceScaling(scale, mode, U, seed=2)
        np.testing.assert_array_equal(run(named, [5, 6], TFloat32), run(plain, [5, 6], TFloat32))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dims", [[8, 5], [5, 8], [2, 3, 6], [6, 6]])
def test_orthogonal_rows_or_columns_are_orthonormal(dims: list[int], backend: str) -> None:
    v = run(Orthogonal(seed=6), dims, TFloat64, backend)
    assert v.shape == tuple(dims)
    m = v.reshape(-1, dims[-1])
    gram = m.T @ m if m.shape[0] >= m.shape[1] else m @ m.T
    np.testing.assert_allclose(gram, np.eye(min(m.shape)), atol=1e-12)
    np.testing.assert_allclose(
        run(Orthogonal(3.0, seed=6), dims, TFloat64, backend), 3.0 * v, rtol=1e-14
    )


def test_a_seed_gives_the_same_values_in_every_session() -> None:
    first = run(Glorot(seed=11), [4, 4], TFloat32)
    np.testing.assert_array_equal(first, run(Glorot(seed=11), [4, 4], TFloat32))
    assert not np.array_equal(first, run(Glorot(seed=12), [4, 4], TFloat32))


# -- use ------------------------------------------------------------------------------------------
def test_a_variables_initial_value_in_the_init_scope() -> None:
    g = Graph()
    tf = Ops.create(g)
    w = tf.variable(He(seed=1).call(tf.withInitScope(), [3, 2], TFloat32))
    b = tf.variable(Zeros().call(tf.withInitScope(), [2], TFloat32))
    y = tf.math.add(tf.linalg.matMul(tf.constant([[1.0, 2.0, 3.0]]), w), b)
    init = {op.name() for op in g.initializers()}
    assert "He/StatelessTruncatedNormal" in init and "Zeros/Zeros/Fill" in init
    with Session(g) as s:  # initializes by itself
        value, weights = s.runner().fetch(y).fetch(w).run()
    np.testing.assert_allclose(value, [[1.0, 2.0, 3.0]] @ weights, rtol=1e-6)
    np.testing.assert_array_equal(weights, run(He(seed=1), [3, 2], TFloat32))


def test_dims_as_an_operand_or_a_shape() -> None:
    g = Graph()
    tf = Ops.create(g)
    x = tf.placeholder(TFloat32, shape=Shape.of(4, 3))
    # tf.shape(x) is known when the graph is built
    byShape = Glorot(seed=3).call(tf, tf.shape(x, outType=TInt64), TFloat32)
    byConstant = Glorot(seed=3).call(tf, tf.constant(np.array([4, 3], np.int64)), TFloat32)
    byValue = Glorot(seed=3).call(tf, Shape.of(4, 3), TFloat32)
    assert byShape.asOutput().shape() == Shape.of(4, 3)
    with Session(g) as s:
        a, b, c = (
            s.runner()
            .feed(x, np.zeros((4, 3), np.float32))
            .fetch(byShape)
            .fetch(byConstant)
            .fetch(byValue)
            .run()
        )
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)


def test_dims_known_only_at_run_time_for_a_plain_distribution() -> None:
    g = Graph()
    tf = Ops.create(g)
    dims = tf.placeholder(TInt64, shape=Shape.of(2))
    y = RandomNormal(seed=2).call(tf, dims, TFloat32)
    with Session(g) as s:
        v = s.runner().feed(dims, np.array([2, 5], np.int64)).fetch(y).run()[0]
    np.testing.assert_array_equal(v, run(RandomNormal(seed=2), [2, 5], TFloat32))


def test_ops_are_named_under_the_class() -> None:
    g = Graph()
    tf = Ops.create(g)
    out = Identity().call(tf.withSubScope("layer"), [2, 2], TFloat32)
    assert out.asOutput().op().name().startswith("layer/Identity/")


# -- bad input: a clear error naming the class and the fix, the graph unchanged -------------------
def test_bad_constructor_arguments() -> None:
    with pytest.raises(
        ValueError,
        match=r"VarianceScaling: unknown mode 'fan_in'.*"
        r"VarianceScaling\.Mode\.FAN_IN",
    ):
        VarianceScaling(1.0, "fan_in", seed=1)  # type: ignore[arg-type]
    with pytest.raises(
        ValueError,
        match=r"Glorot: unknown distribution 'uniform'.*"
        r"VarianceScaling\.Distribution\.UNIFORM",
    ):
        Glorot("uniform", seed=1)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"He: unknown distribution 3"):
        He(3, seed=1)  # type: ignore[arg-type]
    for scale in (-1.0, 0.0):
        with pytest.raises(ValueError, match=r"VarianceScaling: scale must be greater than 0"):
            VarianceScaling(scale, seed=1)
    with pytest.raises(TypeError, match=r"RandomNormal: seed must be an int \(e\.g\. seed=42\)"):
        RandomNormal(seed=1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"Orthogonal: gain must be a real number"):
        Orthogonal("2", seed=1)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"RandomUniform: minval \(1.0\) must be less than"):
        RandomUniform(1.0, 1.0, seed=1)


@pytest.mark.parametrize(
    ("init", "dims", "dtype", "error", "fragments"),
    [
        (
            Glorot(seed=1),
            [3, 4],
            TInt32,
            TypeError,
            ("Glorot.call: Glorot makes floating point values, got dtype int32", "use TFloat32"),
        ),
        (RandomUniform(seed=1), [3], TBool, TypeError, ("RandomUniform.call", "use TFloat32")),
        (Zeros(), [3], np.float32, TypeError, ("Zeros.call: dtype must be a data type class",)),
        (He(seed=1), [[3, 4]], TFloat32, TypeError, ("He.call: dims must be a list of",)),
        (He(seed=1), [3.0, 4.0], TFloat32, TypeError, ("He.call: dims must be a list of",)),
        (He(seed=1), "34", TFloat32, TypeError, ("He.call: dims must be",)),
        (Ones(), [3, -1], TFloat32, ValueError, ("Ones.call: dims [3, -1] has a negative size",)),
        (Zeros(), Shape.of(-1, 3), TFloat32, ValueError, ("Zeros.call: dims [?, 3]", "every size")),
        (
            Orthogonal(seed=1),
            [5],
            TFloat32,
            ValueError,
            ("Orthogonal.call: the tensor to initialize must be at least two-dimensional",),
        ),
        (
            Identity(),
            [2, 2, 2],
            TFloat32,
            ValueError,
            ("Identity.call: Identity initializes a matrix (2-D dims)", "[rows, columns]"),
        ),
    ],
)
def test_bad_call_arguments(
    init: Initializer, dims: Any, dtype: Any, error: type[Exception], fragments: tuple[str, ...]
) -> None:
    g = Graph()
    tf = Ops.create(g)
    tf.constant(1.0)
    assertRejected(g, lambda: init.call(tf, dims, dtype), error, *fragments)


def test_bad_dims_operands() -> None:
    g = Graph()
    tf = Ops.create(g)
    floats = tf.constant([3.0, 4.0])
    matrix = tf.constant(np.array([[3, 4]], np.int64))
    unknown = tf.placeholder(TInt64, shape=Shape.of(2))
    assertRejected(
        g,
        lambda: Glorot(seed=1).call(tf, floats, TFloat32),
        TypeError,
        "Glorot.call: dims 'Const:0' has data type float32",
        "int64",
    )
    assertRejected(
        g,
        lambda: Glorot(seed=1).call(tf, matrix, TFloat32),
        ValueError,
        "Glorot.call: dims 'Const_1:0' has shape [1, 2]",
        "1-D",
    )
    assertRejected(
        g,
        lambda: Glorot(seed=1).call(tf, unknown, TFloat32),
        ValueError,
        "Glorot.call: dims [?, ?] is not fully known",
        "fans are computed",
        "list of ints or a constant",
        "(called at ",  # where the user's code called
        "test_initializers.py:",
    )
    other = Ops.create(Graph()).constant(np.array([2, 2], np.int64))
    assertRejected(
        g, lambda: Zeros().call(tf, other, TFloat32), ValueError, "belongs to another graph"
    )


def test_a_failed_call_leaves_its_names_free() -> None:
    g = Graph()
    tf = Ops.create(g)
    with pytest.raises(ValueError):
        Orthogonal(seed=1).call(tf, tf.placeholder(TInt64, shape=Shape.of(2)), TFloat32)
    out = Orthogonal(seed=1).call(tf, [3, 3], TFloat32)
    assert out.asOutput().op().name().startswith("Orthogonal/")


def test_repr_reads_as_the_construction() -> None:
    assert repr(Glorot(U, seed=3)) == "Glorot(VarianceScaling.Distribution.UNIFORM, seed=3)"
    assert repr(VarianceScaling(2.0, VS.Mode.FAN_OUT, N, seed=1)) == (
        "VarianceScaling(scale=2.0, mode=VarianceScaling.Mode.FAN_OUT, "
        "distribution=VarianceScaling.Distribution.NORMAL, seed=1)"
    )
    assert repr(RandomNormal(0.5, 2.0, seed=4)) == "RandomNormal(mean=0.5, stddev=2.0, seed=4)"
