"""Specification of ``tfops.op.math.LogicalNot``: the negation of a bool tensor element-wise."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.core import Placeholder
from tfops.op.math import LogicalNot
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

Run = Callable[..., Any]


def placeholder(tf: Ops, shape: Shape) -> Placeholder[Any]:
    return tf.placeholder(TBool, Placeholder.shape(shape))


# -- construction ---------------------------------------------------------------------------
def test_defaultNameIsTheOpTypeThenNumbered(tf: Ops) -> None:
    x = tf.constant(True)
    assert tf.math.logicalNot(x).op().name() == "LogicalNot"
    assert tf.math.logicalNot(x).op().name() == "LogicalNot_1"


def test_withNameNamesTheOp(tf: Ops) -> None:
    x = tf.constant(True)
    assert tf.withName("invalid").math.logicalNot(x).op().name() == "invalid"
    assert tf.withName("invalid").math.logicalNot(x).op().name() == "invalid_1"


def test_subScopePrefixesTheName(tf: Ops) -> None:
    y = tf.withSubScope("mask").math.logicalNot(tf.constant(True))
    assert y.op().name() == "mask/LogicalNot"


def test_createAddsOneLogicalNotOperation(tf: Ops, graph: Graph) -> None:
    x = tf.constant([True, False])
    y = LogicalNot.create(tf.scope(), x)
    assert isinstance(y, LogicalNot)
    assert LogicalNot.OP_NAME == "LogicalNot"
    assert y.op().type() == "LogicalNot"
    assert [op.name() for op in graph.operations()] == ["Const", "LogicalNot"]
    assert y.op().numInputs() == 1
    assert y.op().input(0) == x.asOutput()


def test_yIsTheOnlyOutputAndIsBool(tf: Ops) -> None:
    y = tf.math.logicalNot(tf.constant(True))
    assert y.op().numOutputs() == 1
    assert y.y() == y.asOutput() == y.op().output(0)
    assert y.y().name() == "LogicalNot:0"
    assert y.y().dataType() is TBool


@pytest.mark.parametrize(
    "shape",
    [Shape.scalar(), Shape.of(3), Shape.of(2, 3), Shape.of(0, 4), Shape.of(-1, 3), Shape.unknown()],
    ids=str,
)
def test_outputShapeIsTheInputShape(tf: Ops, shape: Shape) -> None:
    assert tf.math.logicalNot(placeholder(tf, shape)).asOutput().shape() == shape


def test_pythonAndNumpyBoolsAreAccepted(tf: Ops, run: Run) -> None:
    assert run(tf.math.logicalNot([True, False])).tolist() == [False, True]
    assert run(tf.math.logicalNot(np.bool_(False))).tolist() is True


# -- kernel ---------------------------------------------------------------------------------
def test_kernelNegatesEachElement(tf: Ops, run: Run) -> None:
    x = np.array([[True, False, True], [False, False, True]])
    result = run(tf.math.logicalNot(x))
    assert result.dtype == np.bool_
    assert result.tolist() == [[False, True, False], [True, True, False]]


def test_doubleNegationIsTheIdentity(tf: Ops, run: Run) -> None:
    x = np.array([True, False, False, True])
    assert run(tf.math.logicalNot(tf.math.logicalNot(x))).tolist() == x.tolist()


def test_negatesAComparison(tf: Ops, run: Run) -> None:
    notEqual = tf.math.logicalNot(tf.math.equal(tf.constant([1, 2, 3]), 2))
    assert run(notEqual).tolist() == [True, False, True]


def test_kernelOfAFedPartiallyKnownPlaceholder(tf: Ops, run: Run) -> None:
    x = placeholder(tf, Shape.of(-1, 2))
    value = np.array([[True, False], [False, False], [True, True]])
    result = run(tf.math.logicalNot(x), feeds={x: value})
    assert result.tolist() == [[False, True], [True, True], [False, False]]


def test_kernelOfAScalar(tf: Ops, run: Run) -> None:
    result = run(tf.math.logicalNot(True))
    assert result.shape == ()
    assert result.dtype == np.bool_
    assert not result


def test_kernelOfAnEmptyTensor(tf: Ops, run: Run) -> None:
    result = run(tf.math.logicalNot(np.zeros((0, 3), np.bool_)))
    assert result.shape == (0, 3)
    assert result.dtype == np.bool_


# -- gradient -------------------------------------------------------------------------------
def test_isRegisteredAsNotDifferentiable() -> None:
    assert lookupGradient("LogicalNot") == (True, None)


def test_noGradientFlowsThroughABoolPath(tf: Ops) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(3)))
    y = tf.dtypes.cast(tf.math.logicalNot(tf.math.isNan(x)), TFloat64)
    assert tf.gradients(y, [x]).dy(0) is None


# -- bad inputs -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "dtype", [TFloat16, TFloat32, TFloat64, TInt32, TInt64, TUint8], ids=lambda t: t.NAME
)
def test_rejectsNonBoolTypes(tf: Ops, graph: Graph, dtype: type[TType]) -> None:
    x = tf.placeholder(dtype)
    before = list(graph.operations())
    with pytest.raises(TypeError) as info:
        tf.math.logicalNot(x)
    message = str(info.value)
    assert "LogicalNot 'LogicalNot'" in message
    assert "must be bool" in message
    assert dtype.NAME in message
    assert f"created at {__file__}:" in message
    assert list(graph.operations()) == before


@pytest.mark.parametrize("value", [1, [0, 1], 1.0], ids=repr)
def test_rejectsPythonNumbers(tf: Ops, graph: Graph, value: object) -> None:
    with pytest.raises(TypeError, match="LogicalNot"):
        tf.math.logicalNot(value)
    assert list(graph.operations()) == []


def test_rejectsAnOperandFromAnotherGraph(tf: Ops, graph: Graph) -> None:
    with Graph() as other:
        foreign = Ops.create(other).constant(True)
        with pytest.raises(ValueError, match="LogicalNot 'LogicalNot'.*another graph"):
            tf.math.logicalNot(foreign)
    assert list(graph.operations()) == []
