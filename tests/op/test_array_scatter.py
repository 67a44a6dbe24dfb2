"""GatherNd, ScatterNd, TensorScatterUpdate (``TensorScatterNdUpdate``) and TensorScatterAdd
(``TensorScatterNdAdd``): slices at index tuples read and written as numpy's fancy indexing
(``np.add.at`` for sums), the bad-index policies and messages of TensorFlow's CPU kernels
(TensorFlow 2.21's values for the corner cases), shape rules, and TensorFlow's gradients against
finite differences."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import ALL, NUMBERS, assertGradient, assertMatches, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.op.core import Gradients
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType

HERE = f"created at {__file__}:"


def sample(dtype: type[TType], shape: tuple[int, ...], start: int = 1) -> Any:
    values = np.arange(start, start + int(np.prod(shape))).reshape(shape)
    return values % 3 == 1 if dtype is TBool else values.astype(dtype.DTYPE)


def point(shape: tuple[int, ...], offset: float = 0.0) -> Any:
    return (np.arange(int(np.prod(shape))) * 0.75 - 2.0 + offset).reshape(shape)


def gatherNd(params: Any, indices: Any) -> Any:
    """numpy's reading of GatherNd: one slice per row of indices."""
    depth = indices.shape[-1]
    rows = indices.reshape(int(np.prod(indices.shape[:-1])), depth)
    slices = [params[tuple(r)] for r in rows]
    return np.array(slices, params.dtype).reshape(*indices.shape[:-1], *params.shape[depth:])


def scatterNd(target: Any, indices: Any, updates: Any, add: bool) -> Any:
    """numpy's reading of the scatters: ``target`` changed at each row of indices, in order."""
    result = target.copy()
    depth = indices.shape[-1]
    rows = indices.reshape(int(np.prod(indices.shape[:-1])), depth)
    values = updates.reshape(len(rows), *target.shape[depth:])
    for r, v in zip(rows, values, strict=True):
        if add and result.dtype == np.bool_:
            result[tuple(r)] |= v
        elif add:
            result[tuple(r)] += v
        else:
            result[tuple(r)] = v
    return result


CASES = [  # params shape, indices (rows of positions)
    ((3, 4), [[2, 1], [0, 3], [2, 1]]),
    ((3, 4), [[2], [0]]),
    ((2, 3, 2), [[[1, 2], [0, 0]], [[1, 0], [1, 1]]]),
    ((3, 4), np.zeros((2, 0), np.int64)),
    ((3, 4), np.zeros((0, 2), np.int64)),
]


# -- GatherNd ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("params", "indices", "expected"),
    [
        (Shape.of(3, 4), Shape.of(5, 2), Shape.of(5)),
        (Shape.of(3, 4), Shape.of(5, 1), Shape.of(5, 4)),
        (Shape.of(3, 4, 2), Shape.of(6, 5, 1), Shape.of(6, 5, 4, 2)),
        (Shape.of(-1, 4), Shape.of(-1, 1), Shape.of(-1, 4)),
        (Shape.of(3, 4), Shape.of(5, -1), Shape.unknown()),
        (Shape.unknown(), Shape.of(5, 1), Shape.unknown()),
    ],
    ids=str,
)
def test_gatherNdStaticShape(tf: Ops, params: Shape, indices: Shape, expected: Shape) -> None:
    g = tf.gatherNd(placeholder(tf, TFloat32, params), placeholder(tf, TInt64, indices))
    assert g.asOutput().shape() == expected and g.op().attr("bad_indices_policy") == ""


@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(("shape", "indices"), CASES, ids=str)
def test_gatherNdMatchesNumpy(
    tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...], indices: Any
) -> None:
    params, i = sample(dtype, shape), np.asarray(indices, np.int32)
    g = tf.gatherNd(tf.constant(params), tf.constant(i))
    assertMatches(run(g), gatherNd(params, i), dtype)


def test_gatherNdWithIndicesFed(tf: Ops, run: Any) -> None:
    i = tf.placeholder(TInt64)
    g = tf.gatherNd(tf.constant([[1, 2], [3, 4]]), i)
    assert run(g, feeds={i: np.array([[1, 0], [0, 1]])}).tolist() == [3, 2]


@pytest.mark.parametrize(
    ("indices", "fragment"),
    [([[1, 0], [2, 1]], "indices[1] = [2, 1] does not index into param shape [2,2]"),
     ([[[1, 0], [-1, 1]]], "indices[0,1] = [-1, 1] does not index into param shape [2,2]")],
    ids=["tooLarge", "negative"],
)
def test_gatherNdBadIndexAtRunTimeAsTensorFlow(
    tf: Ops, run: Any, indices: Any, fragment: str
) -> None:
    i = tf.placeholder(TInt32)
    g = tf.gatherNd(tf.constant([[1, 2], [3, 4]]), i)
    with pytest.raises(InvalidArgumentError) as info:
        run(g, feeds={i: np.array(indices, np.int32)})
    assert fragment in str(info.value) and info.value.op == g.op()
    assert f"of type GatherNd, {HERE}" in str(info.value)


def test_gatherNdIgnorePolicyGivesZerosAsTensorFlow(tf: Ops, run: Any) -> None:
    i = tf.placeholder(TInt32)
    p = tf.constant([[1, 2], [3, 4]])
    a = tf.gatherNd(p, i, badIndicesPolicy="IGNORE")
    b = tf.gatherNd(p, tf.constant([[1], [2]]), badIndicesPolicy="IGNORE")
    got = run(a, b, feeds={i: np.array([[1, 0], [2, 1], [-1, 0]], np.int32)})
    assert [v.tolist() for v in got] == [[3, 0, 0], [[3, 4], [0, 0]]]


def test_gatherNdOfEmptyParamsRaises(tf: Ops, run: Any) -> None:
    p = placeholder(tf, TFloat32, (-1, 2))
    g = tf.gatherNd(p, tf.constant([[0]]))
    with pytest.raises(InvalidArgumentError, match=r"requested 1 slices of params of shape "
                       r"\[0,2\], which is empty"):
        run(g, feeds={p: np.zeros((0, 2), np.float32)})


@pytest.mark.parametrize(("shape", "indices"),
                         [((3, 4), [[2, 1], [0, 3], [2, 1]]), ((3, 4), [[2], [2]]),
                          ((2, 3, 2), [[[1, 2]], [[0, 1]]])], ids=str)
def test_gatherNdGradientMatchesFiniteDifferences(
    tf: Ops, shape: tuple[int, ...], indices: Any
) -> None:
    i = np.asarray(indices, np.int32)
    assertGradient(tf, lambda x: tf.math.square(tf.gatherNd(x, i)), [point(shape)])


def test_gatherNdSecondDerivativeMatchesFiniteDifferences(tf: Ops) -> None:
    indices = np.array([[2, 1], [0, 0], [2, 1]], np.int32)

    def firstDerivative(x: Any) -> Any:
        y = tf.gatherNd(tf.math.square(x), indices)
        return tf.gradients(tf.sum(tf.math.mul(y, y), [0]), [x]).dy(0)

    assertGradient(tf, firstDerivative, [point((3, 2))])


def test_gatherNdGradientOfIndicesOfLengthZeroRaisesAsTensorFlow(tf: Ops, run: Any) -> None:
    x = tf.constant(np.zeros((3, 2)))
    d = tf.gradients(tf.gatherNd(x, np.zeros((2, 0), np.int32)), [x]).dy(0)
    assert d is not None
    with pytest.raises(InvalidArgumentError, match="indices and updates are given for an empty"):
        run(d)  # TensorFlow 2.21's ScatterNd fails the same way


@pytest.mark.parametrize(
    ("params", "indices", "options", "error", "fragment"),
    [
        (np.zeros((2, 2)), [[0, 0, 0]], {}, ValueError,
         "indices.shape[-1] = 3 must be at most the rank of params [2, 2]"),
        (np.zeros((2, 2)), 1, {}, ValueError, "indices must be at least a vector"),
        (1.0, np.zeros((1, 0), np.int32), {}, ValueError, "params must be at least a vector"),
        (np.zeros(2), [[0]], {"badIndicesPolicy": "SKIP"}, ValueError,
         "bad_indices_policy must be one of '', 'DEFAULT', 'ERROR', 'IGNORE', got 'SKIP'"),
        (np.zeros(2), [[0.0]], {}, TypeError, "not allowed for 'Tindices'"),
    ],
    ids=["tooDeep", "scalarIndices", "scalarParams", "policy", "floatIndices"],
)
def test_gatherNdBadArgumentsAreRejected(
    graph: Graph, tf: Ops, params: Any, indices: Any, options: dict[str, str],
    error: type[Exception], fragment: str,
) -> None:
    assertRejected(graph, lambda: tf.gatherNd(params, indices, **options), error,
                   f"GatherNd 'GatherNd' ({HERE}", fragment)


# -- ScatterNd -----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(("shape", "indices"), CASES[:3] + CASES[4:], ids=str)
def test_scatterNdMatchesNumpy(
    tf: Ops, run: Any, dtype: type[TType], shape: tuple[int, ...], indices: Any
) -> None:
    i = np.asarray(indices, np.int64)
    updates = sample(dtype, (*i.shape[:-1], *shape[i.shape[-1]:]))
    s = tf.scatterNd(tf.constant(i), tf.constant(updates), tf.constant(np.array(shape)))
    assert s.asOutput().shape() == Shape.of(*shape)
    assertMatches(run(s), scatterNd(np.zeros(shape, dtype.DTYPE), i, updates, True), dtype)


def test_scatterNdSumsRepeatedPositionsAsTensorFlow(tf: Ops, run: Any) -> None:
    a = tf.scatterNd(tf.constant([[1], [3], [1]]), tf.constant([1.0, 2.0, 3.0]), tf.constant([4]))
    b = tf.scatterNd(tf.constant([[1], [1]]), tf.constant([True, True]), tf.constant([4]))
    c = tf.scatterNd(tf.constant([[1], [1], [1]]), tf.constant(np.array([0.1, 0.2, 0.3],
                                                                        np.float16)),
                     tf.constant([2]))
    got = run(a, b, c)
    assert [v.tolist() for v in got] == [[0.0, 4.0, 0.0, 2.0], [False, True, False, False],
                                         [0.0, 0.599609375]]


@pytest.mark.parametrize(
    ("shape", "expected"),
    [([4, 3], Shape.of(4, 3)), ("fed", Shape.of(-1, -1)), ("shapeOf", Shape.of(4, 3))],
    ids=str,
)
def test_scatterNdStaticShape(tf: Ops, shape: Any, expected: Shape) -> None:
    if shape == "fed":
        s = placeholder(tf, TInt32, (2,))
    elif shape == "shapeOf":
        s = tf.shape(placeholder(tf, TFloat32, (4, 3)))
    else:
        s = tf.constant(np.array(shape, np.int32))
    out = tf.scatterNd(placeholder(tf, TInt32, (5, 1)), placeholder(tf, TFloat32, (5, 3)), s)
    assert out.asOutput().shape() == expected


def test_scatterNdBadIndicesAsTensorFlow(tf: Ops, run: Any) -> None:
    i = tf.placeholder(TInt32)
    s = tf.scatterNd(i, tf.constant([1.0, 2.0, 3.0]), tf.constant([4]))
    ignored = tf.scatterNd(i, tf.constant([1.0, 2.0, 3.0]), tf.constant([4]),
                           badIndicesPolicy="IGNORE")
    bad = np.array([[1], [5], [-1]], np.int32)
    assert run(ignored, feeds={i: bad}).tolist() == [0.0, 1.0, 0.0, 0.0]
    with pytest.raises(InvalidArgumentError) as info:
        run(s, feeds={i: bad})
    assert "indices[1] = [5] does not index into shape [4]" in str(info.value)
    assert info.value.op == s.op()


@pytest.mark.parametrize(("shape", "indices"), [((4, 3), [[1], [3], [1]]),
                                                ((2, 3), [[1, 2], [0, 0], [1, 2]])], ids=str)
def test_scatterNdGradientMatchesFiniteDifferences(
    tf: Ops, shape: tuple[int, ...], indices: Any
) -> None:
    i = np.asarray(indices, np.int32)
    updates = point((*i.shape[:-1], *shape[i.shape[-1]:]))
    weights = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    assertGradient(tf, lambda u: tf.math.mul(tf.scatterNd(i, u, np.array(shape, np.int32)),
                                             weights), [updates])


@pytest.mark.parametrize(
    ("indices", "updates", "shape", "fragment"),
    [
        ([[1], [2]], [1.0, 2.0, 3.0], [4],
         "updates must have shape indices.shape[:-1] + shape[1:] = [2], got [3]"),
        ([[1], [2]], [1.0, 2.0], [-4], "shape must not have negative sizes, got [-4]"),
        ([[1], [2]], [1.0, 2.0], [[4]], "shape argument must be a vector"),
        ([[1, 1]], [1.0], [4], "indices.shape[-1] = 2 is more than the rank 1"),
        (1, [1.0], [4], "indices must be at least a vector"),
    ],
    ids=["updatesShape", "negativeShape", "matrixShape", "tooDeep", "scalarIndices"],
)
def test_scatterNdBadArgumentsAreRejected(
    graph: Graph, tf: Ops, indices: Any, updates: Any, shape: Any, fragment: str
) -> None:
    assertRejected(graph, lambda: tf.scatterNd(indices, updates, shape), ValueError,
                   f"ScatterNd 'ScatterNd' ({HERE}", fragment)


def test_scatterNdIntoAnEmptyShapeRaisesAsTensorFlow(tf: Ops, run: Any) -> None:
    shape = placeholder(tf, TInt32, (1,))
    s = tf.scatterNd(tf.constant(np.zeros((2, 0), np.int32)), tf.constant(np.ones((2, 4))),
                     shape)
    with pytest.raises(InvalidArgumentError, match="indices and updates are given for an empty"):
        run(s, feeds={shape: np.array([4], np.int32)})


# -- TensorScatterUpdate and TensorScatterAdd ----------------------------------------------
@pytest.mark.parametrize("add", [False, True], ids=["update", "add"])
@pytest.mark.parametrize("dtype", ALL, ids=lambda t: t.NAME)
@pytest.mark.parametrize(("shape", "indices"),
                         [((3, 4), [[2, 1], [0, 3]]), ((3, 4), [[2], [0]]),
                          ((2, 3, 2), [[[1, 2], [0, 0]], [[1, 0], [0, 1]]]),
                          ((3, 4), np.zeros((0, 2), np.int64))], ids=str)
def test_tensorScatterMatchesNumpy(
    tf: Ops, run: Any, add: bool, dtype: type[TType], shape: tuple[int, ...], indices: Any
) -> None:
    if add and dtype not in NUMBERS:
        return  # TensorScatterAdd takes numbers only (test_tensorScatterAddRejectsBool)
    tensor, i = sample(dtype, shape), np.asarray(indices, np.int32)
    updates = sample(dtype, (*i.shape[:-1], *shape[i.shape[-1]:]), start=20)
    make = tf.tensorScatterNdAdd if add else tf.tensorScatterNdUpdate
    out = make(tf.constant(tensor), tf.constant(i), tf.constant(updates))
    assert out.asOutput().shape() == Shape.of(*shape)
    assertMatches(run(out), scatterNd(tensor, i, updates, add), dtype)


def test_tensorScatterRepeatedPositionsAsTensorFlow(tf: Ops, run: Any) -> None:
    t, i = tf.constant([1.0, 2.0, 3.0, 4.0]), tf.constant([[1], [1]])
    added = tf.tensorScatterNdAdd(t, i, tf.constant([9.0, 8.0]))
    assert run(added).tolist() == [1.0, 19.0, 3.0, 4.0]


def test_tensorScatterUpdateOfRepeatedPositionsKeepsTheLastOnNumpy(
    tf: Ops, run: Any, backend: str
) -> None:
    u = tf.tensorScatterNdUpdate(tf.constant([1.0, 2.0, 3.0, 4.0]), tf.constant([[1], [1]]),
                                 tf.constant([9.0, 8.0]))
    got = run(u).tolist()
    # TensorFlow's CPU kernel gives [1, 8, 3, 4]; XLA keeps one of them, unspecified which
    assert got == [1.0, 8.0, 3.0, 4.0] if backend == "numpy" else got[1] in (8.0, 9.0)


@pytest.mark.parametrize("add", [False, True], ids=["update", "add"])
def test_tensorScatterBadIndicesAsTensorFlow(tf: Ops, run: Any, add: bool) -> None:
    i = tf.placeholder(TInt32)
    make = tf.tensorScatterNdAdd if add else tf.tensorScatterNdUpdate
    t, u = tf.constant([1.0, 2.0, 3.0, 4.0]), tf.constant([9.0, 8.0])
    strict, ignored = make(t, i, u), make(t, i, u, badIndicesPolicy="IGNORE")
    bad = np.array([[1], [-4]], np.int32)
    assert run(ignored, feeds={i: bad}).tolist() == [1.0, 11.0 if add else 9.0, 3.0, 4.0]
    with pytest.raises(InvalidArgumentError) as info:
        run(strict, feeds={i: bad})
    assert "indices[1] = [-4] does not index into shape [4]" in str(info.value)
    assert info.value.op == strict.op()


@pytest.mark.parametrize("add", [False, True], ids=["update", "add"])
@pytest.mark.parametrize(("shape", "indices"),
                         [((4, 3), [[1], [3]]), ((2, 3), [[1, 2], [0, 0]])], ids=str)
def test_tensorScatterGradientMatchesFiniteDifferences(
    tf: Ops, add: bool, shape: tuple[int, ...], indices: Any
) -> None:
    i = np.asarray(indices, np.int32)
    updates = point((*i.shape[:-1], *shape[i.shape[-1]:]), 0.3)
    weights = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    make = tf.tensorScatterNdAdd if add else tf.tensorScatterNdUpdate
    assertGradient(tf, lambda t, u: tf.math.mul(tf.math.square(make(t, i, u)), weights),
                   [point(shape), updates])


def test_tensorScatterUpdateGradientZeroesTheReplacedSlices(tf: Ops, run: Any) -> None:
    t, u = tf.constant([1.0, 2.0, 3.0]), tf.constant([5.0])
    d = tf.gradients(tf.tensorScatterNdUpdate(t, tf.constant([[1]]), u), [t, u])
    assert [v.tolist() for v in run(d.dy(0), d.dy(1))] == [[1.0, 0.0, 1.0], [1.0]]


@pytest.mark.parametrize(
    ("tensor", "indices", "updates", "fragment"),
    [
        (np.zeros(4), [[1], [3]], [9.0, 8.0, 7.0],
         "updates must have shape indices.shape[:-1] + shape[1:] = [2], got [3]"),
        (np.zeros(3), [1], 5.0, "updates must be at least a vector"),
        (np.zeros(3), [[1, 0]], [5.0], "indices.shape[-1] = 2 is more than the rank 1"),
    ],
    ids=["updatesShape", "scalarUpdates", "tooDeep"],
)
def test_tensorScatterBadArgumentsAreRejected(
    graph: Graph, tf: Ops, tensor: Any, indices: Any, updates: Any, fragment: str
) -> None:
    assertRejected(graph, lambda: tf.tensorScatterNdUpdate(tensor, indices, updates),
                   ValueError, f"TensorScatterUpdate 'TensorScatterNdUpdate' ({HERE}", fragment)
    assertRejected(graph, lambda: tf.tensorScatterNdAdd(tensor, indices, updates),
                   ValueError, f"TensorScatterAdd 'TensorScatterNdAdd' ({HERE}", fragment)


def test_tensorScatterAddRejectsBool(graph: Graph, tf: Ops) -> None:
    assertRejected(graph, lambda: tf.tensorScatterNdAdd([True], [[0]], [False]), TypeError,
                   "data type bool is not allowed")


def test_scattersOfFloat64AndInt64Indices(tf: Ops, run: Any) -> None:
    i = tf.constant(np.array([[0], [2]], np.int64))
    u = tf.tensorScatterNdUpdate(tf.constant(np.zeros(3)), i, tf.constant(np.ones(2)))
    assert u.op().attr("Tindices") is TInt64 and u.asOutput().dataType() is TFloat64
    assert run(u).tolist() == [1.0, 0.0, 1.0]


# -- against TensorFlow (tests/fixtures/tf/arrays.npz, written by make_arrays.py) ----------
TF = np.load(Path(__file__).parents[1] / "fixtures" / "tf" / "arrays.npz")


def test_gatherNdAndItsGradientMatchTensorFlow(tf: Ops, run: Any) -> None:
    params = tf.constant(TF["gathernd_params"])
    g = tf.gatherNd(params, tf.constant(TF["gathernd_indices"]))
    d = tf.gradients(g, [params], Gradients.dx([tf.constant(TF["gathernd_seed"])])).dy(0)
    got, grad = run(g, d)
    assertMatches(got, TF["gathernd_out"], TFloat64)
    assertMatches(grad, TF["gathernd_dparams"], TFloat64)


@pytest.mark.parametrize("dtype", [TFloat16, TFloat64], ids=lambda t: t.NAME)
def test_scatterNdSumsAsTensorFlow(tf: Ops, run: Any, dtype: type[TType]) -> None:
    key = f"scatternd_{np.dtype(dtype.DTYPE).name}"
    s = tf.scatterNd(tf.constant(TF[f"{key}_indices"]), tf.constant(TF[f"{key}_updates"]),
                     tf.constant(np.array([4, 3], np.int64)))
    assertMatches(run(s), TF[f"{key}_out"], dtype)


def test_scatterNdGradientMatchesTensorFlow(tf: Ops, run: Any) -> None:
    u = tf.constant(TF["scatterndgrad_updates"])
    s = tf.scatterNd(tf.constant(TF["scatterndgrad_indices"]), u, tf.constant([3, 4]))
    d = tf.gradients(s, [u], Gradients.dx([tf.constant(TF["scatterndgrad_seed"])])).dy(0)
    assertMatches(run(d), TF["scatterndgrad_dupdates"], TFloat64)


@pytest.mark.parametrize("name", ["update", "add"])
def test_tensorScatterAndItsGradientsMatchTensorFlow(tf: Ops, run: Any, name: str) -> None:
    t, u = tf.constant(TF["tscatter_tensor"]), tf.constant(TF["tscatter_updates"])
    make = tf.tensorScatterNdUpdate if name == "update" else tf.tensorScatterNdAdd
    y = make(t, tf.constant(TF["tscatter_indices"]), u)
    d = tf.gradients(y, [t, u], Gradients.dx([tf.constant(TF["tscatter_seed"])]))
    got, dt, du = run(y, d.dy(0), d.dy(1))
    assertMatches(got, TF[f"tscatter_{name}_out"], TFloat64)
    assertMatches(dt, TF[f"tscatter_{name}_dtensor"], TFloat64)
    assertMatches(du, TF[f"tscatter_{name}_dupdates"], TFloat64)


def test_tensorScatterAddOfRepeatedIndicesMatchesTensorFlow(tf: Ops, run: Any) -> None:
    y = tf.tensorScatterNdAdd(tf.constant(TF["tscatter_tensor"]),
                              tf.constant(TF["tscatter_add_repeated_indices"]),
                              tf.constant(TF["tscatter_add_repeated_updates"]))
    assertMatches(run(y), TF["tscatter_add_repeated_out"], TFloat64)
