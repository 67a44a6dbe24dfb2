"""Assert (``AssertThat``): a run-time check with no outputs, used as a control dependency or a
target; its message summarizes the data exactly as TensorFlow 2.21's ``Assert`` does (the
expected messages below are TensorFlow's own)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from opchecks import assertRejected, placeholder

from tfops import Graph, Ops, Session
from tfops.errors import InvalidArgumentError
from tfops.op.core import AssertThat
from tfops.types import TBool, TFloat64

HERE = f"created at {__file__}:"


def test_assertHasNoOutputsAndIsStateful(tf: Ops) -> None:
    a = tf.assertThat(tf.constant(True), [tf.constant([1, 2])])
    assert isinstance(a, AssertThat) and a.op().numOutputs() == 0
    assert a.op().type() == "Assert" and a.op().name() == "AssertThat"
    assert a.op().attr("summarize") == 3 and a.op().attr("N") == 1
    assert tf.assertThat(tf.constant(True), [1.0], AssertThat.summarize(7)).op().attr(
        "summarize") == 7


@pytest.mark.parametrize(
    ("data", "summarize", "expected"),
    [
        ([np.array([1, 2, 3, 4, 5], np.int32)], 3, "[1 2 3...]"),
        ([np.array([[1.5, 2], [3, 4]], np.float32), np.array(7, np.int32),
          np.array([True, False])], 10, "[[1.5 2][3 4]] [7] [1 0]"),
        ([np.arange(12, dtype=np.int32).reshape(3, 4)], 2, "[[0 1...]...]"),
        ([np.arange(24).reshape(2, 3, 4)], 5, "[[[0 1 2 3][4...]]...]"),
        ([np.arange(6).reshape(2, 3)], 0, "[...]"),
        ([np.arange(6).reshape(2, 3)], -1, "[[0 1 2][3 4 5]]"),
        ([np.zeros((0, 3))], 3, "[]"),
        ([np.array(3.0, np.float32)], 3, "[3]"),
        ([np.array([0.1, 1e10, np.nan, -np.inf], np.float32)], 3, "[0.1 1e+10 nan...]"),
        ([np.array([1.0, 2.5, 1 / 3], np.float32)], 3, "[1 2.5 0.333333343]"),
        ([np.array([0.1, 1e-7, 123456789.0, 1 / 3])], -1,
         "[0.1 1e-07 123456789 0.33333333333333331]"),
        ([np.array([1.5, 2.25], np.float16), np.array([200, 3], np.uint8),
          np.array([-5], np.int64)], 3, "[1.5 2.25] [200 3] [-5]"),
    ],
    ids=["truncated", "mixed", "matrixTruncated", "rank3", "zero", "all", "empty", "scalar",
         "specials", "float32Digits", "float64Digits", "smallTypes"],
)
def test_falseConditionRaisesWithTensorFlowsSummary(
    tf: Ops, run: Any, data: list[Any], summarize: int, expected: str
) -> None:
    condition = tf.placeholder(TBool)
    check = tf.assertThat(condition, [tf.constant(d) for d in data], summarize=summarize)
    y = tf.withControlDependencies([check]).identity(tf.constant(1.0))
    assert run(y, feeds={condition: np.array(True)}) == 1.0
    with pytest.raises(InvalidArgumentError) as info:
        run(y, feeds={condition: np.array(False)})
    assert info.value.message == f"assertion failed: {expected}"
    assert info.value.op == check.op() and f"of type Assert, {HERE}" in str(info.value)


def test_assertRunsAsATarget(graph: Graph, tf: Ops, backend: str) -> None:
    x = tf.placeholder(TFloat64)
    check = tf.assertThat(tf.all(tf.math.greater(x, 0.0), 0), [tf.constant(-1), x])
    with Session(graph, backend=backend) as s:
        s.runner().feed(x, np.array([1.0, 2.0])).addTarget(check).run()
        with pytest.raises(InvalidArgumentError, match=r"assertion failed: \[-1\] \[1 -2\]"):
            s.runner().feed(x, np.array([1.0, -2.0])).addTarget(check).run()


def test_dataComputedInTheRunIsShown(tf: Ops, run: Any) -> None:
    x = tf.placeholder(TFloat64)
    check = tf.assertThat(tf.constant(False), [tf.math.square(x)])
    y = tf.withControlDependencies([check]).identity(x)
    with pytest.raises(InvalidArgumentError, match=r"assertion failed: \[4 9\]"):
        run(y, feeds={x: np.array([2.0, 3.0])})


def test_aConditionFedAsAVectorFailsAtRunTime(tf: Ops, run: Any) -> None:
    condition = tf.placeholder(TBool)
    check = tf.assertThat(condition, [tf.constant(1)])
    y = tf.withControlDependencies([check]).identity(tf.constant(1))
    with pytest.raises(InvalidArgumentError, match=r"condition must be a scalar, got a tensor "
                       r"of shape \[1\]"):
        run(y, feeds={condition: np.array([True])})


def test_theGradientDoesNotFlowThroughTheCheck(tf: Ops, run: Any) -> None:
    x = tf.constant([1.0, 2.0])
    check = tf.assertThat(tf.constant(True), [x])
    y = tf.withControlDependencies([check]).identity(tf.math.square(x))
    assert run(tf.gradients(y, [x]).dy(0)).tolist() == [2.0, 4.0]


@pytest.mark.parametrize(
    ("condition", "data", "error", "fragment"),
    [
        ([True], [1], ValueError, "condition must be a scalar, got a tensor of shape [1]"),
        (1, [1], TypeError, "1 cannot be converted to bool"),
        (True, [], ValueError, "input list 'data' must not be empty"),
    ],
    ids=["vectorCondition", "intCondition", "noData"],
)
def test_badArgumentsAreRejected(
    graph: Graph, tf: Ops, condition: Any, data: list[Any], error: type[Exception],
    fragment: str,
) -> None:
    assertRejected(graph, lambda: tf.assertThat(condition, data), error, "Assert ", HERE,
                   fragment)


def test_anIntOperandAsConditionIsRejected(graph: Graph, tf: Ops) -> None:
    condition = tf.constant(1)
    assertRejected(graph, lambda: tf.assertThat(condition, [1]), TypeError,
                   f"Assert 'AssertThat' ({HERE}", "input 'condition' must be bool")


def test_conditionOfUnknownShapeIsAccepted(tf: Ops) -> None:
    assert tf.assertThat(placeholder(tf, TBool), [1]).op().numInputs() == 2
