"""DynamicStitch and ParallelDynamicStitch: values and gradients against TensorFlow's
``tf.raw_ops.DynamicStitch`` (tests/fixtures/tf/make_dynamic_stitch.py: repeated indices, scalar
indices, higher-rank data, rows no index names, empty inputs, every data type), gradients
against finite differences, static shapes, and bad arguments at construction and at run time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from opchecks import assertGradient, assertMatches, assertRejected, placeholder

from tfops import Graph, Ops, Session, Shape
from tfops.errors import InvalidArgumentError, ResourceExhaustedError
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

HERE = f"created at {__file__}:"
FIXTURES = np.load(Path(__file__).parent.parent / "fixtures" / "tf" / "dynamic_stitch.npz")
CASES = sorted({k.split("/")[0] for k in FIXTURES.files if "/n" in k})
GRADIENT_CASES = [c for c in CASES if f"{c}/weights" in FIXTURES.files]
DTYPES: dict[str, type[TType]] = {
    t.DTYPE.name: t for t in (TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8, TBool)
}
STITCHES = ("dynamicStitch", "parallelDynamicStitch")


def lists(case: str, kind: str) -> list[Any]:
    return [FIXTURES[f"{case}/{kind}{i}"] for i in range(int(FIXTURES[f"{case}/n"]))]


@pytest.mark.parametrize("method", STITCHES)
@pytest.mark.parametrize("case", CASES)
def test_kernelMatchesTensorFlow(tf: Ops, run: Any, case: str, method: str) -> None:
    data = lists(case, "data")
    y = getattr(tf, method)(
        [tf.constant(i) for i in lists(case, "indices")], [tf.constant(d) for d in data]
    )
    expected = FIXTURES[f"{case}/out"]
    assert y.asOutput().shape() == Shape.of(*expected.shape)  # constant indices: all known
    assertMatches(run(y), expected, DTYPES[data[0].dtype.name])


@pytest.mark.parametrize("case", GRADIENT_CASES)
def test_gradientMatchesTensorFlowAlsoForRepeatedIndices(tf: Ops, run: Any, case: str) -> None:
    """Each data tensor gets the result's gradient at its indices: a data row that a later
    index overwrites gets it too, as TensorFlow's gradient (a gather) gives it."""
    data = lists(case, "data")
    xs = [placeholder(tf, TFloat64, d.shape) for d in data]
    y = tf.dynamicStitch([tf.constant(i) for i in lists(case, "indices")], xs)
    weights = FIXTURES[f"{case}/weights"]
    loss = tf.sum(tf.math.mul(y, tf.constant(weights)), list(range(weights.ndim)))
    grads = tf.gradients(loss, xs).dy()
    got = run(*grads, feeds=dict(zip(xs, data, strict=True)))
    for g, expected in zip(got if len(xs) > 1 else [got], lists(case, "grad"), strict=True):
        np.testing.assert_allclose(g, expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("method", STITCHES)
@pytest.mark.parametrize(
    ("indices", "shapes"),
    [
        ([[0, 2], [1, 3]], [(2,), (2,)]),
        ([2, [[0], [1]]], [(3,), (2, 1, 3)]),
        ([[[3, 0], [1, 2]]], [(2, 2, 2)]),
        ([[4], [0, 2]], [(1, 2), (2, 2)]),
    ],  # rows 1 and 3 are zeros
    ids=["vectors", "scalarIndex", "matrixIndices", "gaps"],
)
def test_gradientMatchesFiniteDifferences(tf: Ops, method: str, indices: Any, shapes: Any) -> None:
    values = [np.linspace(-1.0, 2.0, int(np.prod(s))).reshape(s) + k for k, s in enumerate(shapes)]
    stitch = getattr(tf, method)
    assertGradient(
        tf, lambda *xs: stitch([np.array(i, np.int32) for i in indices], list(xs)), values
    )


def test_secondDerivativeMatchesFiniteDifferences(tf: Ops) -> None:
    def firstDerivative(x: Any) -> Any:
        y = tf.dynamicStitch([np.array([1, 0], np.int32)], [tf.math.square(x)])
        return tf.gradients(tf.sum(tf.math.mul(y, y), 0), [x]).dy(0)

    assertGradient(tf, firstDerivative, [np.array([0.5, -1.5])])


def test_indicesHaveNoGradient(tf: Ops) -> None:
    i = tf.constant([1, 0])
    x = tf.constant([1.0, 2.0])
    y = tf.dynamicStitch([i], [x])
    assert tf.gradients(tf.sum(y, 0), [x]).dy(0) is not None
    assert tf.gradients(tf.sum(tf.dtypes.cast(y, TFloat32), 0), [x]).dy(0) is not None


@pytest.mark.parametrize(
    ("indices", "data", "expected"),
    [
        ([Shape.of(2), Shape.of(3)], [Shape.of(2, 4), Shape.of(3, 4)], Shape.of(-1, 4)),
        ([Shape.of(2), Shape.of(3)], [Shape.of(2, -1), Shape.of(-1, 4)], Shape.of(-1, 4)),
        ([Shape.unknown()], [Shape.of(2, 4)], Shape.unknown()),
        ([Shape.of(2)], [Shape.unknown()], Shape.unknown()),
        ([Shape.of(-1), Shape.of(2, 2)], [Shape.of(5, 3), Shape.unknown()], Shape.of(-1, 3)),
        ([Shape.scalar()], [Shape.of(2, 3)], Shape.of(-1, 2, 3)),
    ],
    ids=["rows", "mergedRows", "unknownIndices", "unknownData", "someUnknown", "scalar"],
)
def test_staticShapeOfFedIndices(tf: Ops, indices: Any, data: Any, expected: Shape) -> None:
    y = tf.dynamicStitch(
        [placeholder(tf, TInt32, s) for s in indices], [placeholder(tf, TFloat32, s) for s in data]
    )
    assert y.asOutput().shape() == expected
    assert y.op().attr("N") == len(indices) and y.asOutput().dataType() is TFloat32


def test_constantIndicesGiveTheRowCount(tf: Ops) -> None:
    y = tf.dynamicStitch(
        [tf.constant([0, 6]), tf.constant(3)],
        [placeholder(tf, TFloat32, (2, 5)), placeholder(tf, TFloat32, (5,))],
    )
    assert y.asOutput().shape() == Shape.of(7, 5)
    empty = tf.dynamicStitch([np.zeros(0, np.int32)], [np.zeros((0, 2), np.float32)])
    assert empty.asOutput().shape() == Shape.of(0, 2)


@pytest.mark.parametrize(
    ("indices", "data", "error", "fragment"),
    [
        (
            [[0, 1]],
            [[1.0], [2.0]],
            ValueError,
            "got 1 indices tensor(s) and 2 data tensor(s); "
            "give one int32 indices tensor per data tensor",
        ),
        ([[0], [1]], [[1.0]], ValueError, "got 2 indices tensor(s) and 1 data tensor(s)"),
        (
            [[0, 1]],
            [[1.0, 2.0, 3.0]],
            ValueError,
            "data[0] has shape [3], which does not start "
            "with the shape of indices[0], [2] (one data row per index)",
        ),
        ([[[0, 1]]], [[1.0, 2.0]], ValueError, "data[0] has shape [2], which does not start"),
        (
            [[0], [1]],
            [[[1.0, 2.0]], [[1.0, 2.0, 3.0]]],
            ValueError,
            "data[1].shape[1:] = [3] differs from the rows of the data before it, [2]: every data "
            "row must have one shape R",
        ),
        ([[0, -1]], [[1.0, 2.0]], ValueError, "indices[0] holds -1; indices must not be negative"),
        ([np.array([0.0], np.float32)], [[1.0]], TypeError, "input 'indices' must be int32"),
        ([np.array([0], np.int64)], [[1.0]], TypeError, "input 'indices' must be int32"),
        ([], [], ValueError, "input list 'indices' must not be empty"),
    ],
    ids=[
        "fewerIndices",
        "fewerData",
        "shortData",
        "rankTooSmall",
        "rowsDiffer",
        "negative",
        "floatIndices",
        "int64Indices",
        "empty",
    ],
)
def test_badArgumentsAreRejected(
    graph: Graph, tf: Ops, indices: Any, data: Any, error: type[Exception], fragment: str
) -> None:
    assertRejected(
        graph,
        lambda: tf.dynamicStitch(indices, data),
        error,
        f"DynamicStitch 'DynamicStitch' ({HERE}",
        fragment,
    )


def test_mixedDataTypesAreRejected(graph: Graph, tf: Ops) -> None:
    data = [np.array([1.0], np.float32), np.array([1], np.int32)]
    assertRejected(
        graph,
        lambda: tf.dynamicStitch([[0], [1]], data),
        TypeError,
        "DynamicStitch 'DynamicStitch'",
        "inputs of one type attribute must have the same data type",
    )


@pytest.mark.parametrize(
    ("indices", "data", "fragment"),
    [
        (
            [[0, 1]],
            [[1.0, 2.0, 3.0]],
            "data[0] has shape [3], which does not start with the shape of indices[0], [2]",
        ),
        (
            [[0], [1]],
            [[[1.0]], [[1.0, 2.0]]],
            "data[1].shape[1:] = [2] differs from data[0].shape[1:] = [1]",
        ),
    ],
    ids=["shortData", "rowsDiffer"],
)
def test_badDataShapesFedAtRunTime(
    tf: Ops, run: Any, indices: Any, data: Any, fragment: str
) -> None:
    """Data whose shapes are known only at run time are checked by the kernel."""
    fed = [tf.placeholder(TFloat32) for _ in data]
    y = tf.dynamicStitch([np.array(i, np.int32) for i in indices], fed)
    with pytest.raises(InvalidArgumentError) as info:
        run(y, feeds={p: np.array(d, np.float32) for p, d in zip(fed, data, strict=True)})
    assert info.value.op == y.op()
    assert fragment in str(info.value) and f"of type DynamicStitch, {HERE}" in str(info.value)


@pytest.mark.parametrize(
    ("given", "expected"),
    [([2, 0], [3.0, 0.0, 1.0]), ([0, -2], "indices[0] holds -2; indices must not be negative")],
    ids=["valid", "negative"],
)
def test_indicesFedAtRunTime(tf: Ops, run: Any, given: Any, expected: Any) -> None:
    """Indices are taken at run time and checked; the xla backend compiles the result's shape
    from them (fed indices are static arguments of its compiled function, as a fed axis is)."""
    fed = tf.placeholder(TInt32)
    y = tf.dynamicStitch([fed, tf.constant([0])], [tf.constant([1.0, 2.0]), tf.constant([3.0])])
    feeds = {fed: np.array(given, np.int32)}
    if not isinstance(expected, str):
        np.testing.assert_array_equal(run(y, feeds=feeds), expected)
        # other indices in the same session: another result shape (xla: compiled again)
        again = {fed: np.array([3, 1], np.int32)}
        np.testing.assert_array_equal(run(y, feeds=again), [3.0, 2.0, 0.0, 1.0])
        return
    with pytest.raises(InvalidArgumentError) as info:
        run(y, feeds=feeds)
    assert info.value.op == y.op()
    assert expected in str(info.value) and f"of type DynamicStitch, {HERE}" in str(info.value)


def test_indicesComputedFromShapesRunOnEveryBackend(tf: Ops, run: Any) -> None:
    """As TensorFlow's reduction gradients build them: a range over a fed tensor's rank."""
    x = tf.placeholder(TFloat32)
    shape = tf.shape(x)
    rank = tf.size(shape)
    y = tf.dynamicStitch([tf.range(0, rank, 1), tf.constant([1])], [shape, tf.constant([1])])
    np.testing.assert_array_equal(run(y, feeds={x: np.zeros((4, 3, 2), np.float32)}), [4, 1, 2])


def test_aHugeIndexExceedsTheMemoryLimitWithAClearError(graph: Graph, backend: str) -> None:
    """The result has as many rows as the largest index plus one: checked against the
    session's memory limit before anything is allocated."""
    tf = Ops.create(graph)
    x = tf.placeholder(TFloat32)
    y = tf.dynamicStitch([np.array([0, 2**31 - 1], np.int32)], [x])
    with Session(graph, backend=backend, memoryLimit=1 << 20) as session:
        with pytest.raises(ResourceExhaustedError) as info:
            session.runner().feed(x, np.ones((2, 4), np.float32)).fetch(y).run()
    assert info.value.op == y.op()
    assert "of shape [2147483648, 4] needs 34,359,738,368 bytes, more than the session's " in (
        str(info.value)
    )
