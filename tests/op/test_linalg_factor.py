"""The factorizations (op types ``Cholesky`` and ``Qr``): TF Java's ``Cholesky`` and ``Qr``.

Their values are compared with TensorFlow's (``tests/fixtures/tf/linalg.npz``, written by
``make_linalg.py``: the signs of the QR factors, NaN for a matrix that is not positive
definite, TensorFlow's gradients) and with numpy's; their gradients with finite differences in
float64.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import RTOL, assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError, UnimplementedError
from tfops.types import TFloat16, TFloat32, TFloat64, TType

HERE = f"created at {__file__}:"
TF = np.load(Path(__file__).parent.parent / "fixtures" / "tf" / "linalg.npz")
TYPES: dict[Any, type[TType]] = {np.float16: TFloat16, np.float32: TFloat32,
                                 np.float64: TFloat64}


def describe(value: Any) -> str:
    """A test id: a builder by its name, anything else as it prints."""
    return str(getattr(value, "__name__", value))


def sample(seed: int, *shape: int) -> Any:
    return np.random.default_rng(seed).normal(size=shape)


def positiveDefinite(seed: int, *shape: int) -> Any:
    a = sample(seed, *shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def fed(tf: Ops, value: Any, shape: Shape | None = None) -> tuple[Any, dict[Any, Any]]:
    """A placeholder of ``value``'s data type (static shape ``shape``, default unknown) and the
    feed that gives it ``value``: the op runs on the backend, not folded."""
    p = placeholder(tf, TYPES[value.dtype.type], shape)
    return p, {p: value}


def close(got: Any, expected: Any) -> None:
    assert got.dtype == expected.dtype and got.shape == expected.shape
    tolerance = RTOL[TYPES[expected.dtype.type]]
    # float32 factors are as good as float32's precision times a condition number: compared
    # with TensorFlow's to 1e-5
    tolerance = max(tolerance, 1e-5) if expected.dtype == np.float32 else tolerance
    np.testing.assert_allclose(got, expected, rtol=tolerance, atol=tolerance, equal_nan=True)


def cholesky(tf: Ops, x: Any) -> Any:
    return tf.linalg.cholesky(x)


def qrQ(tf: Ops, x: Any, full: bool = False) -> Any:
    return tf.linalg.qr(x, fullMatrices=full).q()


def qrR(tf: Ops, x: Any, full: bool = False) -> Any:
    return tf.linalg.qr(x, fullMatrices=full).r()


# -- construction --------------------------------------------------------------------------
def test_qrHasTwoOutputsAndFullMatricesIsFalseByDefault(tf: Ops) -> None:
    x = placeholder(tf, TFloat32, Shape.of(4, 2))
    assert tf.linalg.qr(x).op().attr("full_matrices") is False
    qr = tf.linalg.qr(x, fullMatrices=True)
    assert qr.op().attr("full_matrices") is True
    assert (qr.q().shape(), qr.r().shape()) == (Shape.of(4, 4), Shape.of(4, 2))
    assert qr.q().dataType() is TFloat32 and qr.r().dataType() is TFloat32


@pytest.mark.parametrize(
    ("build", "shape", "expected"),
    [
        (cholesky, Shape.of(2, 3, 3), Shape.of(2, 3, 3)),
        (cholesky, Shape.of(-1, 4), Shape.of(4, 4)),
        (cholesky, Shape.unknown(), Shape.unknown()),
        (qrQ, Shape.of(2, 5, 3), Shape.of(2, 5, 3)),
        (qrR, Shape.of(2, 5, 3), Shape.of(2, 3, 3)),
        (qrQ, Shape.of(3, 5), Shape.of(3, 3)),
        (qrR, Shape.of(3, 5), Shape.of(3, 5)),
        (lambda tf, x: qrQ(tf, x, True), Shape.of(5, 3), Shape.of(5, 5)),
        (lambda tf, x: qrR(tf, x, True), Shape.of(5, 3), Shape.of(5, 3)),
        (qrQ, Shape.of(-1, 3), Shape.of(-1, -1)),
        (qrR, Shape.of(-1, 3), Shape.of(-1, 3)),
        (qrQ, Shape.unknown(), Shape.unknown()),
    ],
    ids=describe,
)
def test_staticShape(tf: Ops, build: Any, shape: Shape, expected: Shape) -> None:
    assert build(tf, placeholder(tf, TFloat64, shape)).asOutput().shape() == expected


# -- kernels -------------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["cholesky", "choleskyFloat32", "choleskyNotPositive"])
def test_choleskyMatchesTensorFlow(tf: Ops, run: Any, case: str) -> None:
    x, feeds = fed(tf, TF[f"{case}.x"])
    close(run(cholesky(tf, x), feeds=feeds), TF[f"{case}.y"])


@pytest.mark.parametrize(
    "case", ["qrSquare", "qrDeep", "qrWide", "qrFullWide", "qrFullDeep", "qrHalf"]
)
def test_qrMatchesTensorFlowSigns(tf: Ops, run: Any, case: str) -> None:
    x, feeds = fed(tf, TF[f"{case}.x"])
    qr = tf.linalg.qr(x, fullMatrices="Full" in case)
    q, r = run(qr.q(), qr.r(), feeds=feeds)
    close(q, TF[f"{case}.q"])
    close(r, TF[f"{case}.r"])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch", [(), (3,), (2, 2)], ids=str)
def test_kernelsMatchNumpy(tf: Ops, run: Any, batch: tuple[int, ...], dtype: Any) -> None:
    s = positiveDefinite(2, *batch, 4, 4).astype(dtype)
    w = sample(3, *batch, 4, 3).astype(dtype)
    (ps, fs), (pw, fw) = fed(tf, s), fed(tf, w)
    qr = tf.linalg.qr(pw)
    got = run(cholesky(tf, ps), qr.q(), qr.r(), feeds=fs | fw)
    for g, e in zip(got, [np.linalg.cholesky(s), *np.linalg.qr(w)], strict=True):
        close(g, np.asarray(e, dtype))


def test_choleskyReadsTheLowerTriangleOnly(tf: Ops, run: Any) -> None:
    s = positiveDefinite(4, 3, 3)
    x, feeds = fed(tf, s + np.triu(sample(5, 3, 3), 1) * 100)
    close(run(cholesky(tf, x), feeds=feeds), np.linalg.cholesky(s))


def test_choleskyOfOneBadMatrixIsNanForItOnly(tf: Ops, run: Any) -> None:
    good = positiveDefinite(8, 2, 2)
    x, feeds = fed(tf, np.stack([good, np.array([[1.0, 2.0], [2.0, 1.0]])]))
    got = run(cholesky(tf, x), feeds=feeds)
    close(got[0], np.linalg.cholesky(good))
    np.testing.assert_array_equal(got[1], [[np.nan, 0.0], [np.nan, np.nan]])


@pytest.mark.parametrize(
    ("build", "shape", "expected"),
    [(cholesky, (0, 0), (0, 0)), (cholesky, (2, 0, 0), (2, 0, 0)), (qrR, (0, 3), (0, 3)),
     (qrQ, (3, 0), (3, 0)), (lambda tf, x: qrQ(tf, x, True), (0, 2, 2), (0, 2, 2))],
    ids=describe,
)
def test_emptyInputs(tf: Ops, run: Any, build: Any, shape: Any, expected: Any) -> None:
    x, feeds = fed(tf, np.ones(shape))
    np.testing.assert_array_equal(run(build(tf, x), feeds=feeds), np.zeros(expected),
                                  strict=True)


@pytest.mark.parametrize(
    ("build", "value", "fragment"),
    [(cholesky, np.ones((3, 2)), "input 'input' must be a batch of square matrices"),
     (qrQ, np.ones(2), "input 'input' must have rank 2 or more")],
    ids=["choleskyNotSquare", "qrVector"],
)
def test_incompatibleFedShapesRaiseInvalidArgumentError(
    tf: Ops, run: Any, build: Any, value: Any, fragment: str
) -> None:
    x, feeds = fed(tf, value)
    result = build(tf, x)
    with pytest.raises(InvalidArgumentError) as info:
        run(result, feeds=feeds)
    assert fragment in str(info.value) and HERE in str(info.value)


# -- gradients -----------------------------------------------------------------------------
def symmetricCholesky(tf: Ops, x: Any) -> Any:
    """Cholesky of ``(x + x^T) / 2``: finite differences then move both triangles, as the
    symmetric gradient TensorFlow's rule gives assumes."""
    transposed = tf.linalg.transpose(x, tf.constant([1, 0]))
    return cholesky(tf, tf.math.mul(tf.math.add(x, transposed), 0.5))


@pytest.mark.parametrize(
    ("build", "value"),
    [
        (symmetricCholesky, positiveDefinite(18, 3, 3)),
        (cholesky, positiveDefinite(19, 1, 1)),
        (qrQ, sample(20, 4, 3)),
        (qrR, sample(21, 2, 3, 3)),
        (qrQ, sample(22, 2, 4)),
        (qrR, sample(23, 2, 4)),
        (lambda tf, x: qrR(tf, x, True), sample(24, 2, 4)),
        (lambda tf, x: qrQ(tf, x, True), sample(25, 3, 3)),
    ],
    ids=["cholesky", "cholesky1x1", "qrDeepQ", "qrSquareR", "qrWideQ", "qrWideR",
         "qrFullWideR", "qrFullSquareQ"],
)
def test_gradientMatchesFiniteDifferences(tf: Ops, build: Any, value: Any) -> None:
    assertGradient(tf, lambda x: build(tf, x), [value])


def test_choleskyGradientWithAnUnknownShape(tf: Ops) -> None:
    assertGradient(tf, lambda x: cholesky(tf, x), [positiveDefinite(28, 1, 1)],
                   [Shape.unknown()])


def test_choleskyGradientMatchesTensorFlow(tf: Ops, run: Any) -> None:
    value, w = TF["cholesky.x"], TF["cholesky.w"]
    x, feeds = fed(tf, value, Shape.of(*value.shape))
    loss = tf.sum(tf.math.mul(cholesky(tf, x), tf.constant(w)), tf.constant([0, 1, 2]))
    close(run(tf.gradients(loss, [x]).dy(0), feeds=feeds), TF["cholesky.dx"])


@pytest.mark.parametrize("case", ["qrSquare", "qrDeep", "qrWide", "qrFullWide"])
def test_qrGradientMatchesTensorFlow(tf: Ops, run: Any, case: str) -> None:
    value = TF[f"{case}.x"]
    x, feeds = fed(tf, value, Shape.of(*value.shape))
    qr = tf.linalg.qr(x, fullMatrices="Full" in case)
    axes = tf.constant(list(range(value.ndim)))
    loss = tf.math.add(tf.sum(tf.math.mul(qr.q(), tf.constant(TF[f"{case}.wq"])), axes),
                       tf.sum(tf.math.mul(qr.r(), tf.constant(TF[f"{case}.wr"])), axes))
    close(run(tf.gradients(loss, [x]).dy(0), feeds=feeds), TF[f"{case}.dx"])


def test_qrGradientNeedsStaticMatrixDimensions(tf: Ops) -> None:
    x = placeholder(tf, TFloat64, Shape.of(-1, 3))
    with pytest.raises(UnimplementedError, match="needs the last two dimensions"):
        tf.gradients(tf.linalg.qr(x).r(), [x])
    y = placeholder(tf, TFloat64, Shape.of(4, 3))
    with pytest.raises(UnimplementedError, match="more rows than columns"):
        tf.gradients(tf.linalg.qr(y, fullMatrices=True).r(), [y])


# -- bad inputs ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("build", "shape", "dtype", "error", "fragment"),
    [
        (cholesky, Shape.of(2, 2), TFloat16, TypeError, "data type float16 is not allowed"),
        (cholesky, Shape.scalar(), TFloat32, ValueError, "input 'input' must have rank 2"),
        (cholesky, Shape.of(3, 2), TFloat32, ValueError,
         "must be a batch of square matrices, got shape [3, 2]"),
        (qrQ, Shape.of(3), TFloat64, ValueError, "input 'input' must have rank 2 or more"),
    ],
    ids=["choleskyHalf", "choleskyScalar", "choleskyNotSquare", "qrVector"],
)
def test_badInputsAreRejected(
    graph: Graph, tf: Ops, build: Any, shape: Shape, dtype: type[TType],
    error: type[Exception], fragment: str,
) -> None:
    x = placeholder(tf, dtype, shape)
    opType = "Cholesky" if build is cholesky else "Qr"
    assertRejected(graph, lambda: build(tf, x), error, f"{opType} '{opType}' ({HERE}",
                   fragment)
