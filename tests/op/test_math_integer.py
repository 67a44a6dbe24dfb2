"""Specification of ``tfops.op.bitwise``: BitwiseAnd, BitwiseOr and BitwiseXor (Mod,
TruncateMod and TruncateDiv are rows of ``test_binary.py``; all are compared with TensorFlow in
``test_math_tf.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import ALL, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.op import lookupGradient
from tfops.op.bitwise import BitwiseAnd, BitwiseOr, BitwiseXor
from tfops.types import TInt32, TInt64, TType, TUint8

Array = np.ndarray[Any, Any]
Run = Callable[..., Any]  # the conftest fixture: fetches in the test's session
TYPES = (TInt32, TInt64, TUint8)
OPS: list[tuple[type[Any], str, Callable[[Array, Array], Array]]] = [
    (BitwiseAnd, "bitwiseAnd", np.bitwise_and),
    (BitwiseOr, "bitwiseOr", np.bitwise_or),
    (BitwiseXor, "bitwiseXor", np.bitwise_xor),
]


def overOps(*more: Any) -> Any:
    if not more:
        return pytest.mark.parametrize(("op", "method", "reference"), OPS,
                                       ids=[o[0].OP_NAME for o in OPS])
    return pytest.mark.parametrize(("op", "method", "reference", "arg"), [
        pytest.param(*o, m, id=f"{o[0].OP_NAME}-{getattr(m, 'NAME', m)}") for o in OPS
        for m in more])


def call(tf: Ops, method: str, x: Any, y: Any) -> Any:
    return getattr(tf.bitwise, method)(x, y)


@overOps()
def test_createInTheBitwiseGroup(tf: Ops, graph: Graph, op: type[Any], method: str,
                                 reference: Any) -> None:
    x, y = placeholder(tf, TInt32, (2, 1)), placeholder(tf, TInt32, (3,))
    z = op.create(tf.scope(), x, y)
    assert isinstance(z, op) and z.z() == z.asOutput()
    assert z.asOutput().name() == f"{op.OP_NAME}:0"
    assert z.asOutput().shape() == Shape.of(2, 3) and z.asOutput().dataType() is TInt32
    assert isinstance(call(tf, method, x, y), op)


@overOps(*[t for t in ALL if t not in TYPES])
def test_rejectsOtherDataTypes(tf: Ops, graph: Graph, op: type[Any], method: str,
                               reference: Any, arg: type[TType]) -> None:
    x, y = tf.placeholder(arg), tf.placeholder(arg)
    assertRejected(graph, lambda: call(tf, method, x, y), TypeError,
                   f"{op.OP_NAME} '{op.OP_NAME}'", "is not allowed for 'T'",
                   f"created at {__file__}:")


@overOps(((2, 3), (4,)), ((-1, 3), (-1, 2)))
def test_rejectsShapesThatDoNotBroadcast(tf: Ops, graph: Graph, op: type[Any], method: str,
                                         reference: Any, arg: Any) -> None:
    x, y = (placeholder(tf, TInt64, s) for s in arg)
    assertRejected(graph, lambda: call(tf, method, x, y), ValueError, f"'{op.OP_NAME}'",
                   f"created at {__file__}:")


@overOps(*TYPES)
def test_kernelMatchesNumpyAndBroadcasts(tf: Ops, run: Run, op: type[Any], method: str,
                                         reference: Callable[[Array, Array], Array],
                                         arg: type[TType]) -> None:
    info = np.iinfo(arg.DTYPE)
    rng = np.random.default_rng(0)
    xv = rng.integers(info.min, info.max, (4, 1), dtype=arg.DTYPE, endpoint=True)
    yv = np.array([info.min, info.max, 0, 1, 5], arg.DTYPE)
    x, y = placeholder(tf, arg, (-1, 1)), placeholder(tf, arg)
    got = run(call(tf, method, x, y), feeds={x: xv, y: yv})
    assert got.dtype == arg.DTYPE
    np.testing.assert_array_equal(got, reference(xv, yv))


def test_signedIntegersAreTwosComplement(tf: Ops, run: Run) -> None:
    x, y = tf.constant(np.array([-1, -8, 12], np.int32)), tf.constant(np.array([5, 7, -3],
                                                                                np.int32))
    got = run(tf.bitwise.bitwiseAnd(x, y), tf.bitwise.bitwiseOr(x, y), tf.bitwise.bitwiseXor(x, y))
    assert [g.tolist() for g in got] == [[5, 0, 12], [-1, -1, -3], [-6, -1, -15]]


def test_emptyOperands(tf: Ops, run: Run) -> None:
    got = run(tf.bitwise.bitwiseXor(tf.constant(np.zeros((0, 3), np.uint8)),
                                    tf.constant(np.ones(3, np.uint8))))
    assert got.shape == (0, 3) and got.dtype == np.uint8


@overOps()
def test_isRegisteredAsNotDifferentiable(op: type[Any], method: str, reference: Any) -> None:
    assert lookupGradient(op.OP_NAME) == (True, None)
