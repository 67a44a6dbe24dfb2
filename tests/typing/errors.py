"""Lines that type checkers must reject (checked by tests/test_typing.py, not run).

Each line carries mypy's ``# type: ignore[<code>]`` and pyright's ``# pyright: ignore[<rule>]``.
Both checkers run with unused ignores reported as errors, so the check fails when a line stops
being a type error, or fails for another reason than the one named.
"""

from __future__ import annotations

import numpy as np

from scope import Scope
from tfops import Ops
from tfops.op.core import Constant, Max, Placeholder, Sum, Variable
from tfops.op.math import Exp, Sub
from tfops.output import Output
from tfops.types import TBool, TFloat32, TFloat64, TFloating, TInt32, TInt64


def wrongDataTypeFamily(scope: Scope, tf: Ops, b: Output[TBool], i: Output[TInt32]) -> None:
    """``Exp`` is generic in floating types, ``Max`` in numbers, ``ArgMax``'s axis integral."""
    Exp.create(scope, b)  # type: ignore[type-var]  # pyright: ignore[reportArgumentType]
    tf.math.exp(b)  # type: ignore[type-var]  # pyright: ignore[reportArgumentType]
    tf.math.exp(i)  # type: ignore[type-var]  # pyright: ignore[reportArgumentType]
    Max.create(scope, b, 0)  # type: ignore[type-var]  # pyright: ignore[reportArgumentType]
    tf.max(b, 0)  # type: ignore[type-var]  # pyright: ignore[reportArgumentType]
    tf.math.argMax(i, b)  # type: ignore[type-var]  # pyright: ignore[reportCallIssue, reportArgumentType]


def missingInput(scope: Scope, tf: Ops, x: Output[TFloat32]) -> None:
    """Every input is a required parameter."""
    Sub.create(scope, x)  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]
    tf.math.sub(x)  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]
    tf.max(x)  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]
    Placeholder.create(scope)  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]


def wrongOption(scope: Scope, tf: Ops, x: Output[TFloat32]) -> None:
    """Options belong to their op class; their values are typed."""
    Max.create(scope, x, 0, Sum.keepDims(True))  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    tf.max(x, 0, Sum.keepDims(True))  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    tf.placeholder(TFloat32, Max.keepDims(True))  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    tf.math.argMax(x, 0, Max.keepDims(True))  # type: ignore[call-overload]  # pyright: ignore[reportArgumentType]
    Max.keepDims("yes")  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    tf.max(x, 0, keepDims="yes")  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    tf.max(x, 0, keep_dims=True)  # type: ignore[call-arg]  # pyright: ignore[reportCallIssue]


def wrongValue(scope: Scope, tf: Ops, x: Output[TFloat32]) -> None:
    """A list of operands is not a tensor value, a data type is a class, not its name."""
    tf.math.exp([x, x])  # type: ignore[list-item]  # pyright: ignore[reportArgumentType]
    Constant.create(scope, 1.0, "float32")  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue, reportArgumentType]
    tf.placeholder("float32")  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    tf.constant(None)  # type: ignore[call-overload]  # pyright: ignore[reportCallIssue, reportArgumentType]


def wrongResultType(tf: Ops, x: Output[TFloat32]) -> None:
    """The result keeps the input's type: a float32 output is not a float64 one."""
    y: Output[TFloat64] = tf.math.exp(x).y()  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
    z: Output[TFloat32] = tf.math.argMax(x, 0).output()  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
    del y, z


def mixedDataTypes(
    scope: Scope, tf: Ops, x: Output[TFloat32], y: Output[TFloat64], i: Output[TInt32],
    j: Output[TInt64],
) -> None:
    """Inputs that share a data type take one, as TF Java's ``<T> Sub<T> create(Operand<T>
    x, Operand<T> y)``: a float32 and a float64 make no ``Sub`` (nor their family's)."""
    Sub.create(scope, x, y)  # type: ignore[misc]  # pyright: ignore[reportArgumentType]
    Sub.create(scope, x, tf.constant(1.0, TFloat64))  # type: ignore[misc]  # pyright: ignore[reportArgumentType]
    tf.math.sub(x, y)  # type: ignore[misc]  # pyright: ignore[reportArgumentType]
    tf.math.less(x, y)  # type: ignore[misc]  # pyright: ignore[reportArgumentType]
    tf.linalg.matMul(x, y)  # type: ignore[misc]  # pyright: ignore[reportArgumentType]
    tf.concat([x, y], 0)  # type: ignore[misc]  # pyright: ignore[reportArgumentType]
    tf.slice(x, i, j)  # type: ignore[misc]  # pyright: ignore[reportArgumentType]
    tf.math.add(x, tf.variable(np.zeros(3)))  # type: ignore[misc]  # pyright: ignore[reportArgumentType]


def mixedOperators(
    x: Output[TFloat32], y: Output[TFloat64], e: Exp[TFloat64], i: Output[TInt32],
    j: Output[TInt64],
) -> None:
    """Operators are typed as ``create``: both operands of one data type."""
    x + y  # type: ignore[operator]  # pyright: ignore[reportOperatorIssue, reportUnusedExpression]
    x - e  # type: ignore[operator]  # pyright: ignore[reportOperatorIssue, reportUnusedExpression]
    e * x  # type: ignore[operator]  # pyright: ignore[reportOperatorIssue, reportUnusedExpression]
    x / y  # type: ignore[operator]  # pyright: ignore[reportOperatorIssue, reportUnusedExpression]
    less = x < y  # type: ignore[operator]  # pyright: ignore[reportOperatorIssue, reportUnknownVariableType]
    x @ y  # type: ignore[operator]  # pyright: ignore[reportOperatorIssue, reportUnusedExpression]
    i / j  # type: ignore[operator]  # pyright: ignore[reportOperatorIssue, reportUnusedExpression]
    del less


def _floating(output: Output[TFloating]) -> Output[TFloating]:
    return output


def familyIsNotAWildcard(x: Output[TFloat32], e: Exp[TFloat64]) -> None:
    """The parameter is invariant: a float32 output is not an ``Output[TFloating]`` (code
    generic in the type takes a type variable, ``Output[TF]``)."""
    _floating(x)  # type: ignore[arg-type]  # pyright: ignore[reportArgumentType]
    f: Exp[TFloating] = e  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
    del f


def typedVariablesAndGradients(tf: Ops, x: Output[TFloat32]) -> None:
    """A variable has its initial value's type, a gradient its ``x``'s."""
    v: Variable[TFloat32] = tf.variable(np.zeros(3))  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
    d: Output[TFloat64] = tf.gradients(tf.sum(x, 0), [x]).dy(0)  # type: ignore[assignment]  # pyright: ignore[reportAssignmentType]
    del v, d


def compositeArguments(tf: Ops, x: Output[TFloat32]) -> None:
    """A composite's data type is a tfops type class and its dims integers."""
    tf.zeros([2], float)  # type: ignore[type-var]  # pyright: ignore[reportArgumentType]
    tf.ones(x, TFloat32)  # type: ignore[type-var]  # pyright: ignore[reportArgumentType]


def operatorsOfTheWrongKind(x: Output[TFloat32]) -> None:
    """Operators take operands, numbers and arrays; slicing integers, slices, ``...``, None.
    (Arithmetic on bools, ``b + b``, is rejected by pyright only: mypy does not hold a self
    argument's type variable to its bound.)"""
    x["a"]  # type: ignore[index]  # pyright: ignore[reportArgumentType]
    x + "a"  # type: ignore[operator]  # pyright: ignore[reportOperatorIssue, reportUnusedExpression]
