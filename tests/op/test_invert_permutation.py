"""InvertPermutation's own behaviour: y[x[i]] = i for a permutation x of [0, n), checked when x
is constant and at run time; it has no gradient."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from opchecks import assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op import lookupGradient
from tfops.types import TInt32, TInt64, TType

HERE = f"created at {__file__}:"


@pytest.mark.parametrize(
    ("shape", "expected"),
    [(Shape.of(5), Shape.of(5)), (Shape.of(0), Shape.of(0)), (Shape.of(-1), Shape.of(-1)),
     (Shape.unknown(), Shape.of(-1))],
    ids=str,
)
def test_staticShapeIsTheInputShape(tf: Ops, shape: Shape, expected: Shape) -> None:
    assert tf.math.invertPermutation(placeholder(tf, TInt32, shape)).asOutput().shape() == expected


@pytest.mark.parametrize("dtype", [TInt32, TInt64], ids=lambda t: t.NAME)
@pytest.mark.parametrize("p", [[3, 4, 0, 2, 1], [0, 1, 2], [2, 0, 1], [0], []], ids=str)
def test_kernelMatchesArgsort(tf: Ops, run: Any, dtype: type[TType], p: list[int]) -> None:
    x = tf.placeholder(dtype)
    y = tf.math.invertPermutation(x)
    assert y.asOutput().dataType() is dtype
    np.testing.assert_array_equal(run(y, feeds={x: np.array(p, dtype.DTYPE)}),
                                  np.argsort(p).astype(dtype.DTYPE), strict=True)


def test_inverseUndoesThePermutation(tf: Ops, run: Any) -> None:
    p = np.array([4, 1, 3, 0, 2], np.int32)
    inverse = run(tf.math.invertPermutation(p))
    assert p[inverse].tolist() == inverse[p].tolist() == [0, 1, 2, 3, 4]


def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("InvertPermutation") == (True, None)


@pytest.mark.parametrize(
    ("x", "error", "fragment"),
    [
        ([0, 0], ValueError, "x [0, 0] is not a permutation of [0, 2)"),
        ([1, 2], ValueError, "x [1, 2] is not a permutation of [0, 2)"),
        ([-1, 0], ValueError, "x [-1, 0] is not a permutation of [0, 2)"),
        ([[0, 1]], ValueError, "x must be a vector"),
        ([0.0, 1.0], TypeError, "InvertPermutation input 'x'"),
        (np.array([0, 1], np.uint8), TypeError, "data type uint8 is not allowed"),
    ],
    ids=["repeated", "outOfRange", "negative", "matrix", "float", "uint8"],
)
def test_badPermutationIsRejected(
    graph: Graph, tf: Ops, x: Any, error: type[Exception], fragment: str
) -> None:
    assertRejected(graph, lambda: tf.math.invertPermutation(x), error, "InvertPermutation", HERE,
                   fragment)


def test_notAPermutationAtRunTimeRaisesInvalidArgumentError(tf: Ops, run: Any) -> None:
    x = tf.placeholder(TInt32)
    p = tf.math.invertPermutation(x)
    with pytest.raises(InvalidArgumentError) as info:
        run(p, feeds={x: np.array([0, 3, 1], np.int32)})
    assert info.value.op == p.op()
    assert "x [0, 3, 1] is not a permutation" in str(info.value)
    assert f"of type InvertPermutation, {HERE}" in str(info.value)
