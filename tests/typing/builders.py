"""What type checkers infer for the main builders (checked by tests/test_typing.py, not run).

Each ``assert_type`` fails the check when the inferred type changes; ``--warn-unused-ignores``
and pyright's ``reportUnnecessaryTypeIgnoreComment`` are on, so no line here may need an ignore.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from scope import Scope
from tfops import Graph, Ops, Session, Shape
from tfops.composite import Zeros
from tfops.op.core import (
    Constant,
    Gradients,
    Identity,
    Max,
    Placeholder,
    StopGradient,
    StridedSlice,
    Sum,
    Variable,
)
from tfops.op.core import Shape as ShapeOp
from tfops.op.dtypes import Cast
from tfops.op.linalg import MatMul
from tfops.op.math import (
    Abs,
    Add,
    ArgMax,
    Equal,
    Exp,
    FloorDiv,
    FloorMod,
    GreaterEqual,
    Less,
    Mul,
    Neg,
    Pow,
    RealDiv,
    Sub,
)
from tfops.op.nn import Softmax
from tfops.ops import MathOps
from tfops.output import AnyOperand, Operand, Output
from tfops.types import (
    TBool,
    TFloat16,
    TFloat32,
    TFloat64,
    TFloating,
    TInt32,
    TInt64,
    TNumber,
    TType,
    TUint8,
)

if TYPE_CHECKING:  # only type checkers read this file; typing.assert_type is Python 3.11+
    from typing_extensions import assert_type


def opClasses(scope: Scope, x: Output[TFloat32], b: Output[TBool]) -> None:
    """An op class is generic in the data type of its input; ``create`` solves it."""
    stop = StopGradient.create(scope, x)
    assert_type(stop, StopGradient[TFloat32])
    assert_type(stop.output(), Output[TFloat32])
    assert_type(stop.asOutput(), Output[TFloat32])
    assert_type(Identity.create(scope, b), Identity[TBool])
    assert_type(Exp.create(scope, x).y(), Output[TFloat32])
    assert_type(Sub.create(scope, x, 1.0), Sub[TFloat32])  # the value takes the operand's type
    assert_type(Mul.create(scope, [1.0, 2.0], x).z(), Output[TFloat32])
    assert_type(Max.create(scope, x, 0, Max.keepDims(True)), Max[TFloat32])
    assert_type(Sum.create(scope, x, [0, 1]).output(), Output[TFloat32])
    assert_type(Equal.create(scope, x, x).z(), Output[TBool])
    assert_type(Cast.create(scope, x, TFloat64), Cast[TFloat64])
    assert_type(MatMul.create(scope, x, x).product(), Output[TFloat32])
    assert_type(Softmax.create(scope, x), Softmax[TFloat32])


def outputTypedByAnOption(scope: Scope, x: Output[TFloat32]) -> None:
    """An output type that only an option sets has the attribute's default without it."""
    assert_type(ArgMax.create(scope, x, 0), ArgMax[TInt64])
    assert_type(ArgMax.create(scope, x, 0, ArgMax.outputType(TInt32)), ArgMax[TInt32])
    assert_type(ArgMax.outputType(TInt32), ArgMax.Options[TInt32])
    assert_type(ShapeOp.create(scope, x), ShapeOp[TInt32])
    assert_type(ShapeOp.create(scope, x, ShapeOp.outType(TInt64)).output(), Output[TInt64])


def placeholdersAndVariables(scope: Scope) -> None:
    """The data type token given to ``create`` is the class's type."""
    assert_type(Placeholder.create(scope, TFloat32), Placeholder[TFloat32])
    p = Placeholder.create(scope, TInt64, Placeholder.shape(Shape.of(-1, 3)))
    assert_type(p.output(), Output[TInt64])
    assert_type(p.asOutput().dataType(), type[TInt64])
    assert_type(Variable.create(scope, Shape.of(2), TFloat64), Variable[TFloat64])


def constants(
    scope: Scope,
    array: np.ndarray[Any, Any],
    a32: NDArray[np.float32],
    a64: NDArray[np.float64],
    i64s: NDArray[np.int64],
    f64: np.float64,
    i64: np.int64,
    f16: np.float16,
    u8: np.uint8,
) -> None:
    """A constant's type follows the value as the run-time conversion does, or ``dtype``."""
    assert_type(Constant.create(scope, True), Constant[TBool])
    assert_type(Constant.create(scope, 1), Constant[TInt32])
    assert_type(Constant.create(scope, 1.0), Constant[TFloat32])
    assert_type(Constant.create(scope, [[1.0, 2.0], [3.0, 4.0]]), Constant[TFloat32])
    assert_type(Constant.create(scope, [1, 2.5]), Constant[TFloat32])
    assert_type(Constant.create(scope, [[True], [False]]), Constant[TBool])
    assert_type(Constant.create(scope, f64), Constant[TFloat64])
    assert_type(Constant.create(scope, i64), Constant[TInt64])
    assert_type(Constant.create(scope, f16), Constant[TFloat16])
    assert_type(Constant.create(scope, u8), Constant[TUint8])
    assert_type(Constant.create(scope, 1, TFloat64), Constant[TFloat64])
    assert_type(Constant.create(scope, array, TFloat64), Constant[TFloat64])
    assert_type(Constant.create(scope, a32), Constant[TFloat32])  # the array's dtype
    assert_type(Constant.create(scope, a64), Constant[TFloat64])
    assert_type(Constant.create(scope, i64s), Constant[TInt64])
    assert_type(Constant.create(scope, np.zeros(3)), Constant[TFloat64])
    assert_type(Constant.scalarOf(scope, 2), Constant[TInt32])
    assert_type(Constant.scalarOf(scope, 2, TInt64), Constant[TInt64])
    assert_type(Constant.vectorOf(scope, [1.0, 2.0]), Constant[TFloat32])
    assert_type(Constant.tensorOf(scope, [[1, 2]]), Constant[TInt32])
    assert_type(Constant.create(scope, 1.0).output(), Output[TFloat32])


def facade(g: Graph) -> None:
    """The ``Ops`` methods return what the classes' ``create`` return."""
    tf = Ops.create(g)
    assert_type(tf, Ops)
    assert_type(tf.withSubScope("layer").withName("x"), Ops)
    assert_type(tf.math, MathOps)
    x = tf.placeholder(TFloat64)
    assert_type(x, Placeholder[TFloat64])
    assert_type(tf.constant(1.0), Constant[TFloat32])
    assert_type(tf.constant(3), Constant[TInt32])
    assert_type(tf.constant([True]), Constant[TBool])
    assert_type(tf.constant(0.5, TFloat64), Constant[TFloat64])
    assert_type(tf.stopGradient(x), StopGradient[TFloat64])
    assert_type(tf.max(x, 0), Max[TFloat64])
    assert_type(tf.sum(x, 0, Sum.keepDims(True)), Sum[TFloat64])
    assert_type(tf.sum(x, 0, keepDims=True), Sum[TFloat64])
    assert_type(tf.math.exp(x), Exp[TFloat64])
    assert_type(tf.math.sub(x, tf.stopGradient(tf.max(x, 0))), Sub[TFloat64])
    assert_type(tf.math.argMax(x, 0), ArgMax[TInt64])
    assert_type(tf.math.argMax(x, 0, ArgMax.outputType(TInt32)), ArgMax[TInt32])
    assert_type(tf.math.argMax(x, 0, outputType=TInt32), ArgMax[TInt32])
    assert_type(tf.dtypes.cast(x, TFloat32), Cast[TFloat32])
    assert_type(tf.linalg.matMul(x, x), MatMul[TFloat64])
    assert_type(tf.nn.softmax(x).softmax(), Output[TFloat64])
    assert_type(tf.variable(x), Variable[TFloat64])
    assert_type(tf.variable(1.0), Variable[TFloat32])
    assert_type(tf.variable([1, 2]), Variable[TInt32])
    assert_type(tf.variable(np.zeros(3)), Variable[TFloat64])
    assert_type(tf.variable(tf.constant(np.zeros((2, 2)))), Variable[TFloat64])
    assert_type(tf.variable(np.ones(3, np.float32)), Variable[TFloat32])
    assert_type(tf.constant(np.zeros((2, 3), dtype=np.int32)), Constant[TInt32])
    assert_type(tf.constant(np.zeros(3).astype(np.float16)), Constant[TFloat16])
    assert_type(tf.variable(np.arange(3)), Variable[TInt64])


def gradients(g: Graph) -> None:
    """A gradient has its ``x``'s data type; ``dy(i)`` is typed as an output (TF Java's
    ``Output``), ``dy()`` lists them with the ``None`` of an unconnected ``x``."""
    tf = Ops.create(g)
    x = tf.placeholder(TFloat32)
    grads = tf.gradients(tf.sum(tf.math.square(x), 0), [x])
    assert_type(grads, Gradients[TFloat32])
    assert_type(Gradients.create(g.baseScope(), x, [x]), Gradients[TFloat32])
    assert_type(grads.dy(), list[Output[TFloat32] | None])
    dx = grads.dy(0)
    assert_type(dx, Output[TFloat32])
    assert_type(tf.math.sub(x, tf.math.mul(dx, 0.1)), Sub[TFloat32])  # a gradient step
    (dw,) = grads
    assert_type(dw, Output[TFloat32])
    w = tf.variable(np.zeros(3))
    assert_type(tf.gradients(tf.sum(w, 0), [w]).dy(0), Output[TFloat64])
    both = tf.gradients([tf.sum(w, 0), tf.sum(x, 0)], [w, x])  # x of several data types
    assert_type(both, Gradients[TType])
    seeded = tf.gradients(x, [x], Gradients.dx([tf.constant([1.0, 0.0, 0.0])]))
    assert_type(seeded, Gradients[TFloat32])
    assert_type(g.addGradients(None, [x.asOutput()], [w.asOutput()]), list[Output[TFloat64] | None])
    feeds: dict[AnyOperand, np.ndarray[Any, Any]] = {x: np.ones(3), w: np.zeros(3)}
    runner = Session(g).runner()
    for operand, array in feeds.items():
        runner.feed(operand, array)
    with Session(g) as session:
        value = session.runner().feed(x, np.ones(3)).fetch(dx).run()[0]
        assert_type(value, np.ndarray[Any, Any])


TF = TypeVar("TF", bound=TFloating)
TN = TypeVar("TN", bound=TNumber)


def _step(w: Output[TF], dw: Output[TF], rate: float) -> Sub[TF]:
    """Code generic in the data type names it with a type variable, as Java's ``<T>``."""
    return w - dw * rate


def _sumOfSquares(tf: Ops, x: Operand[TN]) -> Output[TN]:
    return (tf.sum(tf.math.mul(x, x), 0) + tf.math.add(x, 1)[0]).asOutput()


def invariance(tf: Ops, x: Output[TFloat32], e: Exp[TFloat64]) -> None:
    """The data type parameter is invariant: generic code keeps the exact type."""
    assert_type(_step(x, x, 0.1), Sub[TFloat32])
    assert_type(_step(e.y(), e.asOutput(), 0.1), Sub[TFloat64])
    assert_type(_sumOfSquares(tf, e), Output[TFloat64])
    assert_type(tf.math.add(x, x + 1.0), Add[TFloat32])


def composites(tf: Ops, dims: Output[TInt64]) -> None:
    """A composite's facade method is typed as its ``create``: generic in the data type asked."""
    assert_type(tf.zeros([2, 3], TFloat32), Zeros[TFloat32])
    assert_type(tf.ones(dims, TInt32).asOutput(), Output[TInt32])
    assert_type(Zeros.create(tf.scope(), dims, TBool), Zeros[TBool])


def operators(x: Output[TFloat32], e: Exp[TFloat32], i: Output[TInt32], u: Output[TUint8]) -> None:
    """Python operators build the op TF Python's do, typed like its ``create``."""
    assert_type(x + 1.0, Add[TFloat32])
    assert_type(2.0 * e, Mul[TFloat32])
    assert_type(e - x, Sub[TFloat32])
    assert_type(x / e, RealDiv[TFloat32])
    assert_type(i / 2, RealDiv[TFloat64])
    assert_type(i / i, RealDiv[TFloat64])
    assert_type(u / u, RealDiv[TFloat32])
    assert_type(i // 2, FloorDiv[TInt32])
    assert_type(x % 2.0, FloorMod[TFloat32])
    assert_type(x**2.0, Pow[TFloat32])
    assert_type(-e, Neg[TFloat32])
    assert_type(abs(i), Abs[TInt32])
    assert_type(x < e, Less)
    assert_type(x >= 0.0, GreaterEqual)
    assert_type(x[1:, ..., None, 0], StridedSlice[TFloat32])
    assert_type((x + 1.0)[0], StridedSlice[TFloat32])
