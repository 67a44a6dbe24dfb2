"""Einsum: values and gradients against TensorFlow's op (tests/fixtures/tf/make_einsum.py:
products, transposes, traces and diagonals, sums, outer products, batches, ``...`` with and
without broadcasting, labels repeated in an input or in the output, every number type),
gradients against finite differences, static shapes and bad equations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import assertGradient, assertMatches, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.types import TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType

HERE = f"created at {__file__}:"
FIXTURES = np.load(Path(__file__).parent.parent / "fixtures" / "tf" / "einsum.npz")
CASES = sorted({int(k.split("/")[0]) for k in FIXTURES.files})
TYPES: dict[str, type[TType]] = {t.DTYPE.name: t for t in
                                 (TFloat16, TFloat32, TFloat64, TInt32, TInt64)}


def weights(shape: tuple[int, ...]) -> Any:
    """The fixture's loss weights (make_einsum.weights)."""
    return np.cos(np.arange(int(np.prod(shape))) + 1.0).reshape(shape)


def values(case: int) -> list[Any]:
    return [FIXTURES[f"{case}/x{i}"] for i in range(2) if f"{case}/x{i}" in FIXTURES.files]


def caseId(case: int) -> str:
    return f"{case}-{FIXTURES[f'{case}/equation']}-{FIXTURES[f'{case}/x0'].dtype}"


@pytest.mark.parametrize("case", CASES, ids=caseId)
def test_kernelMatchesTensorFlow(tf: Ops, run: Any, case: int) -> None:
    y = tf.linalg.einsum([tf.constant(v) for v in values(case)],
                         str(FIXTURES[f"{case}/equation"]))
    expected = FIXTURES[f"{case}/out"]
    assert y.asOutput().shape() == Shape.of(*expected.shape)
    got = run(y)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assertMatches(got, expected, TYPES[expected.dtype.name])


@pytest.mark.parametrize("case", [c for c in CASES if f"{c}/g0" in FIXTURES.files],
                         ids=caseId)
def test_gradientMatchesTensorFlow(tf: Ops, run: Any, case: int) -> None:
    given = values(case)
    xs = [placeholder(tf, TFloat64, v.shape) for v in given]
    y = tf.linalg.einsum(xs, str(FIXTURES[f"{case}/equation"]))
    shape = FIXTURES[f"{case}/out"].shape
    loss = tf.sum(tf.math.mul(y, tf.constant(weights(shape))), list(range(len(shape))))
    got = run(*tf.gradients(loss, xs).dy(), feeds=dict(zip(xs, given, strict=True)))
    got = got if isinstance(got, list) else [got]
    for i, g in enumerate(got):
        np.testing.assert_allclose(g, FIXTURES[f"{case}/g{i}"], rtol=1e-12, atol=1e-12)


def point(shape: tuple[int, ...], shift: float = 0.0) -> Any:
    return np.sin(np.arange(int(np.prod(shape))) + 0.5 + shift).reshape(shape)


@pytest.mark.parametrize(
    ("equation", "shapes"),
    [("ij,jk->ik", [(2, 3), (3, 2)]), ("ii->i", [(3, 3)]), ("ij,jk->i", [(2, 3), (3, 2)]),
     ("...ij,...jk->...ik", [(2, 1, 2, 3), (3, 3, 2)]), ("ij,jk->ikk", [(2, 3), (3, 2)]),
     ("iij,j->i", [(2, 2, 3), (3,)]), ("i...->...", [(2, 3)])],
    ids=str,
)
def test_gradientMatchesFiniteDifferences(tf: Ops, equation: str, shapes: Any) -> None:
    assertGradient(tf, lambda *xs: tf.linalg.einsum(list(xs), equation),
                   [point(s, i) for i, s in enumerate(shapes)])


def test_gradientWithUnknownShapesBroadcastsAtRunTime(tf: Ops) -> None:
    assertGradient(tf, lambda x, y: tf.linalg.einsum([x, y], "...ij,...jk->...ik"),
                   [point((2, 1, 2, 3)), point((3, 3, 2), 1)], [Shape.unknown(), Shape.unknown()])


def test_secondDerivativeMatchesFiniteDifferences(tf: Ops) -> None:
    def firstDerivative(x: Any) -> Any:
        y = tf.linalg.einsum([x, x], "ij,jk->ik")
        return tf.gradients(tf.sum(tf.math.square(y), [0, 1]), [x]).dy(0)

    assertGradient(tf, firstDerivative, [point((2, 2))])


@pytest.mark.parametrize(
    ("equation", "shapes", "expected"),
    [("ij,jk->ik", [(2, -1), (-1, 4)], Shape.of(2, 4)),
     ("...ij,jk->...ik", [(5, -1, 2, 3), (3, 4)], Shape.of(5, -1, 2, 4)),
     ("...i,...i->...", [(1, 3), (4, 3)], Shape.of(4)),
     ("...i,...i->...", [(-1, 3), (4, 3)], Shape.of(4)),
     ("ij->ji", [None], Shape.unknown()),
     ("ii->i", [(-1, 3)], Shape.of(3))],
    ids=str,
)
def test_staticShape(tf: Ops, equation: str, shapes: Any, expected: Shape) -> None:
    xs = [placeholder(tf, TFloat32, s) for s in shapes]
    y = tf.linalg.einsum(xs, equation)
    assert y.asOutput().shape() == expected and y.op().attr("N") == len(shapes)


@pytest.mark.parametrize(
    ("equation", "values", "error", "fragment"),
    [("ij,jk", [np.ones((2, 3)), np.ones((3, 2))], ValueError, "must have exactly one '->'"),
     ("i,i,i->", [np.ones(2)] * 3, ValueError, "must have one or two inputs, got 3"),
     ("ij->iz", [np.ones((2, 3))], ValueError, "the output label 'z'"),
     ("i j->ji", [np.ones((2, 3))], ValueError, "must be letters with at most one '...'"),
     ("...i...->i", [np.ones((2, 3))], ValueError, "must be letters with at most one '...'"),
     ("ij,jk->ik", [np.ones((2, 3)), np.ones((4, 2))], ValueError,
      "label 'j' has size 3 but size 4 in input 1"),
     ("ij->ij", [np.ones(3)], ValueError, "input 0 has rank 1, but its subscripts 'ij' need 2"),
     ("...ij,jk->ik", [np.ones((2, 2, 3)), np.ones((3, 2))], ValueError,
      "the inputs have 1 dimension(s) under '...' but the output has no '...'"),
     ("...i,...i->...", [np.ones((2, 3)), np.ones((4, 3))], ValueError,
      "do not broadcast"),
     ("ij,j->i", [np.ones((2, 3)), np.ones(3)], ValueError, "has 2 input(s), got 1"),
     ("i->i", [np.array([True])], TypeError, "bool")],
    ids=["noArrow", "threeInputs", "unknownOutputLabel", "space", "twoEllipses",
         "sizesDiffer", "rankTooLow", "ellipsisDropped", "noBroadcast", "tooFewTensors",
         "bool"],
)
def test_badArgumentsAreRejected(graph: Graph, tf: Ops, equation: str, values: Any,
                                 error: type[Exception], fragment: str) -> None:
    given = values[:1] if fragment.startswith("has 2") else values
    assertRejected(graph, lambda: tf.linalg.einsum(given, equation), error, HERE, fragment)


def test_sizesThatDifferAtRunTimeRaise(tf: Ops, run: Any) -> None:
    x = tf.placeholder(TFloat32)
    y = tf.linalg.einsum([x, tf.constant(np.ones((3, 2), np.float32))], "ij,jk->ik")
    with pytest.raises(InvalidArgumentError) as info:
        run(y, feeds={x: np.ones((2, 4), np.float32)})
    assert info.value.op == y.op() and "label 'j' has size 4 but size 3 in input 1" in str(
        info.value)


def test_integersWrapAround(tf: Ops, run: Any) -> None:
    big = np.array([2**30, 2**30], np.int32)
    assert run(tf.linalg.einsum([tf.constant(big), tf.constant(np.array([2, 2], np.int32))],
                                "i,i->")).tolist() == 0


def test_transposeIsACopy(tf: Ops, run: Any) -> None:
    x = tf.placeholder(TInt32)
    value = np.arange(6, dtype=np.int32).reshape(2, 3)
    got = run(tf.linalg.einsum([x], "ij->ji"), feeds={x: value})
    assert got.tolist() == value.T.tolist() and not np.shares_memory(got, value)
