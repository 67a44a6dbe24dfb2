"""MatrixDiagV3, MatrixDiagPartV3, MatrixSetDiagV3 and MatrixBandPart: values and gradients
against TensorFlow's (tests/fixtures/tf/make_matrix_diag.py: every alignment, single diagonals
and bands above, below and across the main one, inferred and given sizes), gradients against
finite differences, static shapes and bad arguments."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.types import TFloat32, TFloat64, TInt32, TInt64

HERE = f"created at {__file__}:"
FIXTURES = np.load(Path(__file__).parent.parent / "fixtures" / "tf" / "matrix_diag.npz")
CASES = sorted({k.rsplit("/", 1)[0] for k in FIXTURES.files},
               key=lambda c: (c.split("/")[0], int(c.split("/")[1])))


def weights(shape: tuple[int, ...]) -> Any:
    """The fixture's loss weights (make_matrix_diag.weights)."""
    return np.cos(np.arange(int(np.prod(shape))) + 1.0).reshape(shape)


def build(tf: Ops, case: str, x: Any, diagonal: Any) -> Any:
    """The op of fixture ``case`` on ``x`` and ``diagonal`` (operands or None)."""
    op = case.split("/")[0]
    meta = json.loads(str(FIXTURES[f"{case}/meta"]))
    if op == "MatrixBandPart":
        return tf.linalg.bandPart(x, np.int64(meta["lower"]), np.int64(meta["upper"]))
    k = np.array(meta["k"], np.int32)
    if op == "MatrixSetDiagV3":
        return tf.linalg.matrixSetDiag(x, diagonal, k, align=meta["align"])
    source = x if op == "MatrixDiagPartV3" else diagonal
    pad = np.asarray(meta["pad"], FIXTURES[f"{case}/out"].dtype)
    if op == "MatrixDiagPartV3":
        return tf.linalg.matrixDiagPartV3(source, k, pad, align=meta["align"])
    return tf.linalg.matrixDiagV3(source, k, np.int32(meta["rows"]), np.int32(meta["cols"]),
                                  pad, align=meta["align"])


def inputs(case: str) -> dict[str, Any]:
    return {name: FIXTURES[f"{case}/{name}"] for name in ("x", "diagonal")
            if f"{case}/{name}" in FIXTURES.files}


@pytest.mark.parametrize("case", CASES)
def test_kernelMatchesTensorFlow(tf: Ops, run: Any, case: str) -> None:
    given = {name: tf.constant(v) for name, v in inputs(case).items()}
    y = build(tf, case, given.get("x"), given.get("diagonal"))
    expected = FIXTURES[f"{case}/out"]
    assert y.asOutput().shape() == Shape.of(*expected.shape)
    got = run(y)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("case", [c for c in CASES if f"{c}/gx" in FIXTURES.files])
def test_gradientMatchesTensorFlow(tf: Ops, run: Any, case: str) -> None:
    values = inputs(case)
    fed = {name: placeholder(tf, TFloat64, v.shape) for name, v in values.items()}
    y = build(tf, case, fed.get("x"), fed.get("diagonal"))
    loss = tf.sum(tf.math.mul(y, tf.constant(weights(FIXTURES[f"{case}/out"].shape))),
                  list(range(FIXTURES[f"{case}/out"].ndim)))
    order = ["diagonal"] if case.startswith("MatrixDiagV3") else list(fed)
    grads = tf.gradients(loss, [fed[name] for name in order])
    got = run(*grads.dy(), feeds={fed[name]: values[name] for name in fed})
    got = got if isinstance(got, list) else [got]
    for g, key in zip(got, ("gx", "gd"), strict=False):
        np.testing.assert_array_equal(g, FIXTURES[f"{case}/{key}"])


def point(shape: tuple[int, ...]) -> Any:
    return np.sin(np.arange(int(np.prod(shape))) + 0.5).reshape(shape)


@pytest.mark.parametrize("k", [0, -1, [-1, 2]], ids=str)
@pytest.mark.parametrize("shape", [(3, 4), (2, 4, 3)], ids=str)
def test_gradientsMatchFiniteDifferences(tf: Ops, k: Any, shape: tuple[int, ...]) -> None:
    band = np.array(k, np.int32)
    assertGradient(tf, lambda x: tf.linalg.matrixDiagPartV3(x, band, np.float64(0),
                                                            align="LEFT_RIGHT"), [point(shape)])
    assertGradient(tf, lambda x: tf.linalg.matrixDiagPartV3(x, band, np.float64(0)),
                   [point(shape)], [Shape.unknown()])  # through MatrixSetDiagV3
    assertGradient(tf, lambda x: tf.linalg.bandPart(x, 1, 0), [point(shape)])
    lower, upper = (k, k) if isinstance(k, int) else k
    rows, cols = shape[-2:]
    count = [upper - lower + 1] if upper > lower else []
    dshape = (*shape[:-2], *count, min(rows + min(upper, 0), cols - max(lower, 0)))
    assertGradient(tf, lambda d: tf.linalg.matrixDiagV3(d, band, shape[-2], shape[-1],
                                                        np.float64(1.5)), [point(dshape)])
    assertGradient(tf, lambda x, d: tf.linalg.matrixSetDiag(x, d, band, align="RIGHT_RIGHT"),
                   [point(shape), point(dshape) * 2])


def test_secondDerivativeMatchesFiniteDifferences(tf: Ops) -> None:
    def firstDerivative(x: Any) -> Any:
        part = tf.linalg.matrixDiagPartV3(tf.math.square(x), [0, 1], np.float64(0))
        return tf.gradients(tf.sum(tf.math.mul(part, part), [0, 1]), [x]).dy(0)

    assertGradient(tf, firstDerivative, [point((3, 3))])


@pytest.mark.parametrize(
    ("make", "expected"),
    [(lambda tf: tf.linalg.matrixDiagV3(placeholder(tf, TFloat32, (5, 2, 3)), [-1, 0], -1, -1,
                                        0.0), Shape.of(5, 3, 3)),
     (lambda tf: tf.linalg.matrixDiagV3(placeholder(tf, TFloat32, (5, 3)), 1, 6, -1, 0.0),
      Shape.of(5, 6, 4)),
     (lambda tf: tf.linalg.matrixDiagV3(placeholder(tf, TFloat32, (5, 3)), 1,
                                        tf.placeholder(TInt32), -1, 0.0), Shape.of(5, -1, -1)),
     (lambda tf: tf.linalg.matrixDiagV3(placeholder(tf, TFloat32, (5, 3)),
                                        tf.placeholder(TInt32), -1, -1, 0.0), Shape.unknown()),
     (lambda tf: tf.linalg.matrixDiagPartV3(placeholder(tf, TFloat32, (2, 3, 4)), [-1, 1], 0.0),
      Shape.of(2, 3, 3)),
     (lambda tf: tf.linalg.matrixDiagPartV3(placeholder(tf, TFloat32, (2, -1, 4)), 2, 0.0),
      Shape.of(2, -1)),
     (lambda tf: tf.linalg.matrixSetDiag(placeholder(tf, TFloat32, (-1, 3, 4)),
                                         placeholder(tf, TFloat32, None), 0),
      Shape.of(-1, 3, 4)),
     (lambda tf: tf.linalg.bandPart(placeholder(tf, TFloat32, (2, -1, 4)), 1, 1),
      Shape.of(2, -1, 4))],
    ids=["diagBand", "diagRows", "diagFedRows", "diagFedK", "partBand", "partUnknownRows",
         "setDiag", "bandPart"],
)
def test_staticShape(tf: Ops, make: Any, expected: Shape) -> None:
    assert make(tf).asOutput().shape() == expected


def test_bandPartIndexTypeDefaultsToInt64(tf: Ops) -> None:
    b = tf.linalg.bandPart(tf.constant([[1.0]]), np.int64(0), np.int64(0))
    assert b.op().attr("Tindex") is TInt64


@pytest.mark.parametrize(
    ("make", "error", "fragment"),
    [(lambda tf: tf.linalg.matrixDiagPartV3([1.0], 0, 0.0), ValueError,
      "input must have at least two dimensions"),
     (lambda tf: tf.linalg.matrixDiagPartV3([[1.0, 2.0]], [1, 0], 0.0),
      ValueError, "the lower diagonal 1 must not be above the upper one 0"),
     (lambda tf: tf.linalg.matrixDiagPartV3([[1.0, 2.0]], [0, 2], 0.0),
      ValueError, "the upper diagonal 2 is out of range for 1x2 matrices"),
     (lambda tf: tf.linalg.matrixDiagPartV3([[1.0]], [0, 0, 0], 0.0),
      ValueError, "k must be a scalar or a vector of one or two elements"),
     (lambda tf: tf.linalg.matrixDiagPartV3([[1.0]], 0, 0.0, align="UP"),
      ValueError, "align must be one of LEFT_RIGHT, RIGHT_LEFT, LEFT_LEFT, RIGHT_RIGHT"),
     (lambda tf: tf.linalg.matrixDiagV3([[1.0]], [0, 1], -1, -1, 0.0),
      ValueError, "must hold the 2 diagonals from 0 to 1"),
     (lambda tf: tf.linalg.matrixDiagV3([1.0, 2.0], 0, 1, -1, 0.0),
      ValueError, "1x-1 matrices are too small for diagonals of length 2"),
     (lambda tf: tf.linalg.matrixDiagV3([1.0, 2.0], 0, 3, 3, 0.0),
      ValueError, "3x3 matrices do not fit diagonals of length 2"),
     (lambda tf: tf.linalg.matrixSetDiag([[1.0, 2.0]], [1.0, 2.0],
                                         0), ValueError, "diagonal of shape [2] does not match"),
     (lambda tf: tf.linalg.bandPart([[1.0, 2.0]], 2, 0), ValueError,
      "num_lower must be negative or at most the number of rows (1), got 2"),
     (lambda tf: tf.linalg.bandPart([1.0, 2.0], 0, 0), ValueError,
      "input must have at least two dimensions"),
     (lambda tf: tf.linalg.matrixDiagV3([1.0], 0, -1, -1, 0), TypeError,
      "int32")],
    ids=["partVector", "partSwappedBand", "partBandOutside", "partLongK", "partBadAlign",
         "diagMissingRows", "diagTooSmall", "diagNotFitting", "setDiagWrongShape",
         "bandLowerTooBig", "bandVector", "diagPaddingType"],
)
def test_badArgumentsAreRejected(graph: Graph, tf: Ops, make: Any, error: type[Exception],
                                 fragment: str) -> None:
    assertRejected(graph, lambda: make(tf), error, HERE, fragment)


@pytest.mark.parametrize(
    ("make", "feeds", "fragment"),
    [(lambda tf, p: tf.linalg.matrixDiagPartV3(p, [0, 3], 0.0), np.zeros((2, 3), np.float32),
      "the upper diagonal 3 is out of range for 2x3 matrices"),
     (lambda tf, p: tf.linalg.bandPart(p, 0, 4), np.zeros((2, 3), np.float32),
      "num_upper must be negative or at most the number of columns (3), got 4"),
     (lambda tf, p: tf.linalg.matrixSetDiag(p, np.zeros(2, np.float32), 0),
      np.zeros((3, 3), np.float32), "diagonal of shape [2] does not match")],
    ids=["partBand", "bandUpper", "setDiagShape"],
)
def test_badValuesAtRunTime(tf: Ops, run: Any, make: Any, feeds: Any, fragment: str) -> None:
    p = tf.placeholder(TFloat32)
    y = make(tf, p)
    with pytest.raises(InvalidArgumentError) as info:
        run(y, feeds={p: feeds})
    assert info.value.op == y.op() and fragment in str(info.value)


def test_bandPartBoundsFedAtRunTime(tf: Ops, run: Any) -> None:
    lower, upper = tf.placeholder(TInt64), tf.placeholder(TInt64)
    b = tf.linalg.bandPart(tf.constant(np.arange(9).reshape(3, 3)), lower, upper)
    got = run(b, feeds={lower: np.int64(0), upper: np.int64(-1)})
    assert got.tolist() == [[0, 1, 2], [0, 4, 5], [0, 0, 8]]
    with pytest.raises(InvalidArgumentError) as info:
        run(b, feeds={lower: np.int64(5), upper: np.int64(0)})
    assert "num_lower must be negative or at most the number of rows (3), got 5" in str(info.value)
