"""The composites of ``tfops.composite`` (TF Java's ``Zeros``, ``Ones``...), one row per facade
method in each table: its value against numpy on every backend, its gradient against finite
differences, the names of the ops it builds, and bad inputs (rejected naming the composite,
leaving the graph as it was). A new composite endpoint needs a ``VALUES`` row."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from opchecks import assertGradient, assertMatches, assertRejected, run

from tfops import Graph, Ops
from tfops.composite import registeredEndpoints
from tfops.types import TBool, TFloat32, TFloat64, TInt32, TInt64, TType

Array = np.ndarray[Any, Any]


@dataclass(frozen=True)
class Value:
    """``build(tf)`` runs to ``expected`` (of data type ``dtype``)."""

    endpoint: str  # "zeros", or "<group>.<name>"
    build: Callable[[Ops], Any]
    expected: Array
    dtype: type[TType]


VALUES = [
    Value("zeros", lambda tf: tf.zeros([2, 3], TFloat32), np.zeros((2, 3), np.float32), TFloat32),
    Value("zeros", lambda tf: tf.zeros(tf.constant([0, 2]), TInt64), np.zeros((0, 2), np.int64),
          TInt64),
    Value("zeros", lambda tf: tf.zeros([], TBool), np.zeros((), bool), TBool),
    Value("ones", lambda tf: tf.ones([3], TInt32), np.ones(3, np.int32), TInt32),
    Value("ones", lambda tf: tf.ones(tf.constant([2, 1], dtype=TInt64), TFloat64),
          np.ones((2, 1)), TFloat64),
    Value("ones", lambda tf: tf.ones([2], TBool), np.ones(2, bool), TBool),
    # arrays: booleanMask, booleanMaskUpdate (more in tests/op/test_boolean_mask.py)
    Value("booleanMask", lambda tf: tf.booleanMask(tf.constant([[1, 2], [3, 4], [5, 6]]),
                                                   tf.constant([True, False, True])),
          np.array([[1, 2], [5, 6]], np.int32), TInt32),
    Value("booleanMask", lambda tf: tf.booleanMask(
        tf.constant(np.arange(6.0).reshape(2, 3)), tf.constant([False, True, True]), axis=1),
          np.array([[1.0, 2.0], [4.0, 5.0]]), TFloat64),
    Value("booleanMaskUpdate", lambda tf: tf.booleanMaskUpdate(
        tf.constant([[1, 2], [3, 4], [5, 6]]), tf.constant([True, False, True]), 0),
          np.array([[0, 0], [3, 4], [0, 0]], np.int32), TInt32),
    # topk:
    Value("nn.dropout", lambda tf: tf.nn.dropout(tf.constant([1.0, -2.0]), 0.0),
          np.array([1.0, -2.0], np.float32), TFloat32),
    Value("nn.dropout", lambda tf: tf.nn.dropout(tf.constant([[1.0, 4.0]], TFloat64),
                                                 tf.constant(0.0), noiseShape=[1, None]),
          np.array([[1.0, 4.0]]), TFloat64),
    Value("array", lambda tf: tf.array(3, -1, 2), np.array([3, -1, 2], np.int32), TInt32),
    Value("array", lambda tf: tf.array(np.int64(2), np.int64(5)), np.array([2, 5], np.int64),
          TInt64),
    Value("array", lambda tf: tf.array(True), np.array([True]), TBool),
    Value("shape.flatten", lambda tf: tf.shape.flatten(tf.constant([[1, 2], [3, 4]])),
          np.array([1, 2, 3, 4], np.int32), TInt32),
    Value("shape.flatten", lambda tf: tf.shape.flatten(tf.shape(tf.zeros([2, 3], TBool))),
          np.array([6], np.int32), TInt32),
    Value("shape.size", lambda tf: tf.shape.size(tf.shape(tf.zeros([2, 3, 4], TBool))),
          np.array(24, np.int32), TInt32),
    Value("shape.size", lambda tf: tf.shape.size(tf.zeros([2, 3, 4], TBool), 2, TInt64),
          np.array([4], np.int64), TInt64),
    Value("shape.numDimensions",
          lambda tf: tf.shape.numDimensions(tf.shape(tf.zeros([2, 3, 4], TBool))),
          np.array(3, np.int32), TInt32),
    Value("shape.reduceDims",
          lambda tf: tf.shape.reduceDims(tf.shape(tf.zeros([2, 3, 4], TBool)), 1),
          np.array([2, 12], np.int32), TInt32),
    Value("shape.reduceDims", lambda tf: tf.shape.reduceDims(tf.ones([2, 2], TFloat64), -1),
          np.ones((2, 2)), TFloat64),
    Value("shape.squeeze", lambda tf: tf.shape.squeeze(tf.shape(tf.zeros([1, 3, 1, 2], TBool))),
          np.array([3, 2], np.int32), TInt32),
    Value("shape.head", lambda tf: tf.shape.head(tf.shape(tf.zeros([5, 3], TBool))),
          np.array([5], np.int32), TInt32),
    Value("shape.take", lambda tf: tf.shape.take(tf.shape(tf.zeros([5, 3, 2], TBool)), 2),
          np.array([5, 3], np.int32), TInt32),
    Value("shape.tail", lambda tf: tf.shape.tail(tf.shape(tf.zeros([5, 3], TBool))),
          np.array([3], np.int32), TInt32),
    Value("shape.takeLast",
          lambda tf: tf.shape.takeLast(tf.shape(tf.zeros([5, 3, 2], TBool), outType=TInt64), 2),
          np.array([3, 2], np.int64), TInt64),
    Value("shape.prepend", lambda tf: tf.shape.prepend(tf.shape(tf.zeros([5, 3], TBool)), 7),
          np.array([7, 5, 3], np.int32), TInt32),
    Value("shape.append", lambda tf: tf.shape.append(tf.shape(tf.zeros([5, 3], TBool)),
                                                     tf.constant([1, 2])),
          np.array([5, 3, 1, 2], np.int32), TInt32),
]


def _endpointName(group: str, name: str) -> str:
    return name if group == "core" else f"{group}.{name}"


def test_everyEndpointHasAValueRow() -> None:
    endpoints = {_endpointName(e.group, e.name) for e in registeredEndpoints()}
    assert endpoints <= {v.endpoint for v in VALUES}


@pytest.mark.parametrize("case", VALUES, ids=lambda v: v.endpoint)
def test_valueMatchesNumpy(case: Value) -> None:
    g = Graph()
    y = case.build(Ops.create(g))
    assert y.asOutput().dataType() is case.dtype
    assert y.asOutput().shape().isCompatibleWithArray(case.expected.shape)
    assertMatches(run(g, y), case.expected, case.dtype)


@pytest.mark.parametrize(("build", "names"), [
    (lambda tf: tf.zeros([2], TFloat32),
     ["Zeros/Const", "Zeros/Zero", "Zeros/Const_1", "Zeros/Fill"]),
    (lambda tf: tf.withName("z").zeros(tf.constant([2]), TFloat32),
     ["Const_1", "z/Const", "z/Zero", "z/Fill"]),
    (lambda tf: tf.ones([2], TFloat32), ["Ones/Const", "Ones/One", "Ones/Const_1", "Ones/Fill"]),
])
def test_opsAreNamedUnderTheCompositesSubScope(build: Callable[[Ops], Any],
                                              names: list[str]) -> None:
    g = Graph()
    tf = Ops.create(g)
    tf.constant(1)  # op names of the composite do not depend on what came before
    build(tf)
    assert [op.name() for op in g.operations()][-len(names):] == names


def test_zerosAndOnesShapeIsTheStaticDims() -> None:
    g = Graph()
    tf = Ops.create(g)
    assert tf.zeros([2, 3], TFloat32).asOutput().shape().asArray() == (2, 3)
    dims = tf.placeholder(TInt32)
    assert tf.ones(dims, TFloat32).asOutput().shape().isUnknown()


def test_gradientFlowsThroughAComposite() -> None:
    g = Graph()
    tf = Ops.create(g)
    assertGradient(tf, lambda x: tf.math.mul(x, tf.ones([3], TFloat64)), [np.array([1., 2, 3])])


@pytest.mark.parametrize(("build", "error", "fragments"), [
    (lambda tf: tf.zeros([[2]], TFloat32), ValueError, ("Fill", "vector")),
    (lambda tf: tf.zeros([2, -1], TFloat32), ValueError, ("Fill",)),
    (lambda tf: tf.ones([2], np.float32), TypeError, ("Ones", "TFloat32")),
    (lambda tf: tf.zeros([2.5], TFloat32), TypeError, ("Fill",)),
], ids=["dims matrix", "negative dims", "numpy dtype", "float dims"])
def test_badInputsLeaveTheGraphAsItWas(build: Callable[[Ops], Any], error: type[Exception],
                                       fragments: tuple[str, ...]) -> None:
    g = Graph()
    tf = Ops.create(g)
    tf.constant(1.0)
    message = assertRejected(g, lambda: build(tf), error, *fragments)
    assert "test_composites.py" in message or error is TypeError
