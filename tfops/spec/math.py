"""Math ops (``tfops.op.math``): elementwise functions, binary ops with broadcasting, Mean."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tfops.opdef import AttrDef, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.core import constantAxes, keptDims
from tfops.spec.grad import GradOp, Grads, notDifferentiable, registerGradient
from tfops.spec.indexing import example
from tfops.spec.rules import (
    ANY,
    FLOATS,
    INDEX_TYPES,
    NUMBERS,
    SIGNED,
    broadcastShape,
    reductionShape,
    sameShape,
)
from tfops.types import TBool, TFloating, TInt32, TType

if TYPE_CHECKING:
    from tfops.ops import Ops


# -- unary ---------------------------------------------------------------------------------
def _unary(
    opType: str,
    summary: str,
    description: str,
    allowed: tuple[type[TType], ...],
    example: str,
) -> None:
    registerOp(
        OpDef(
            type=opType,
            group="math",
            summary=summary,
            description=description,
            inputs=(InputDef("x", "the input tensor", typeAttr="T"),),
            outputs=(OutputDef("y", "the result, of the shape and type of ``x``", typeAttr="T"),),
            attrs=(AttrDef("T", "type", allowed=allowed),),
            infer=sameShape,
            example=example,
            elementwise=True,
        )
    )


_unary(
    "Exp",
    "Computes exponential of x element-wise. (y = e^x).",
    "Overflows to ``inf`` for large inputs (above about 88 in float32, 709 in float64).",
    FLOATS,
    example("tf.math.exp(tf.constant([0.0, 1.0]))", "[1.0, 2.718]"),
)


@registerGradient("Exp")
def _expGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, op.y())]


_unary(
    "Log",
    "Computes natural logarithm of x element-wise.",
    "I.e., y = log(x); ``-inf`` at 0 and ``nan`` for negative inputs.",
    FLOATS,
    example("tf.math.log(tf.constant([1.0, 4.0]))", "[0.0, 1.386]"),
)


@registerGradient("Log")
def _logGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.reciprocal(op.x()))]


_unary(
    "Neg",
    "Computes numerical negative value element-wise.",
    "I.e., y = -x.",
    SIGNED,
    example("tf.math.neg(tf.constant([1, -2]))", "[-1, 2]"),
)


@registerGradient("Neg")
def _negGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.neg(g)]


_unary(
    "Square",
    "Computes square of x element-wise.",
    "I.e., y = x * x = x^2.",
    NUMBERS,
    example("tf.math.square(tf.constant([2.0, -3.0]))", "[4.0, 9.0]"),
)


@registerGradient("Square")
def _squareGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.mul(2.0, op.x()))]


_unary(
    "Reciprocal",
    "Computes the reciprocal of x element-wise.",
    "I.e., y = 1 / x.",
    FLOATS,
    example("tf.math.reciprocal(tf.constant([2.0, 0.5]))", "[0.5, 2.0]"),
)


@registerGradient("Reciprocal")
def _reciprocalGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.neg(tf.math.mul(op.y(), op.y())))]


# -- binary with broadcasting --------------------------------------------------------------
def _binary(
    opType: str,
    summary: str,
    description: str,
    allowed: tuple[type[TType], ...],
    example: str,
    out: type[TType] | None = None,
) -> None:
    registerOp(
        OpDef(
            type=opType,
            group="math",
            summary=summary,
            description=description
            + "\n\nThe inputs broadcast against each other as in numpy and TensorFlow.",
            inputs=(
                InputDef("x", "the first operand", typeAttr="T"),
                InputDef("y", "the second operand, of the same data type", typeAttr="T"),
            ),
            outputs=(
                OutputDef("z", "the result, of the broadcast shape",
                          typeAttr=None if out else "T", dtype=out),
            ),
            attrs=(AttrDef("T", "type", allowed=allowed),),
            infer=broadcastShape,
            example=example,
            elementwise=True,
        )
    )


_binary(
    "Add",
    "Returns x + y element-wise.",
    "Integer addition wraps around on overflow. A Python number on either side takes the\n"
    "other operand's data type (``tf.math.add(1.0, x)`` of a float64 ``x`` is float64), as\n"
    "Python's operators do in TensorFlow (``1.0 + x``). TensorFlow's graph-mode op function\n"
    "instead converts the inputs in order, so there ``tf.add(1.0, x)`` is a ``TypeError``\n"
    "(float32 against float64) while ``tf.add(x, 1.0)`` is not; tfops keeps one rule for\n"
    "both sides, for every binary op.",
    NUMBERS,
    example("tf.math.add(tf.constant([1.0, 2.0]), 10.0)", "[11.0, 12.0]"),
)
_binary(
    "AddV2",
    "Returns x + y element-wise (the op TensorFlow 2 builds for ``x + y``).",
    "The same sum as ``Add``, which it replaces in TensorFlow 2's graphs: ``tf.add`` and the\n"
    "``+`` operator of TensorFlow Python write ``AddV2``. tfops builds ``Add`` for ``+`` and\n"
    "``tf.math.add`` (TF Java's choice); ``AddV2`` is here for graphs that TensorFlow wrote\n"
    "(``Graph.importGraphDef``) and for programs that name it. Integer addition wraps around\n"
    "on overflow.",
    NUMBERS,
    example("tf.math.addV2(tf.constant([1.0, 2.0]), 10.0)", "[11.0, 12.0]"),
)
_binary(
    "Sub",
    "Returns x - y element-wise.",
    "Integer subtraction wraps around on overflow.",
    NUMBERS,
    example("tf.math.sub(tf.constant([[1, 2], [3, 4]]), tf.constant([1, 1]))",
             "[[0, 1], [2, 3]]"),
)
_binary(
    "Mul",
    "Returns x * y element-wise.",
    "Integer multiplication wraps around on overflow.",
    NUMBERS,
    example("tf.math.mul(tf.constant([1.5, 2.0]), tf.constant([2.0, 3.0]))", "[3.0, 6.0]"),
)


_binary(
    "Div",
    "Returns x / y element-wise.",
    "Integer division truncates towards zero and raises ``InvalidArgumentError`` when ``y``\n"
    "has a zero; floating point division follows IEEE 754 (``inf`` or ``nan``).",
    NUMBERS,
    example("tf.math.div(tf.constant([7, -7]), tf.constant([2, 2]))", "[3, -3]"),
)
_binary(
    "SquaredDifference",
    "Returns conj(x - y)(x - y) element-wise.",
    "For real numbers this is (x - y)^2.",
    SIGNED,
    example("tf.math.squaredDifference(tf.constant([1.0, 5.0]), 2.0)", "[1.0, 9.0]"),
)
_binary(
    "Equal",
    "Returns the truth value of (x == y) element-wise.",
    "The result is a ``TBool`` tensor.",
    ANY,
    example("tf.math.equal(tf.constant([1, 2]), 2)", "[False, True]"),
    out=TBool,
)
notDifferentiable("Equal")


@registerGradient("Add")
@registerGradient("AddV2")
def _addGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [g, g]


@registerGradient("Sub")
def _subGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [g, tf.math.neg(g)]


@registerGradient("Mul")
def _mulGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, op.x(1)), tf.math.mul(op.x(0), g)]


@registerGradient("Div")
def _divGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    x, y = op.x(0), op.x(1)
    return [tf.math.div(g, y), tf.math.mul(g, tf.math.div(tf.math.div(tf.math.neg(x), y), y))]


@registerGradient("SquaredDifference")
def _squaredDifferenceGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    xGrad = tf.math.mul(tf.math.mul(2.0, g), tf.math.sub(op.x(0), op.x(1)))
    return [xGrad, tf.math.neg(xGrad)]


# -- AddN ----------------------------------------------------------------------------------
def _addNShape(ctx: Any) -> Sequence[Shape]:
    """All inputs have one shape: each contributes the dimensions it knows."""
    result = ctx.shapes[0]
    for s in ctx.shapes[1:]:
        if not result.isCompatibleWith(s):
            raise ctx.error(f"all inputs must have the same shape, got {result} and {s}")
        if result.isUnknown():
            result = s
        elif not s.isUnknown():
            result = Shape.of(*(a if a >= 0 else b for a, b in zip(result.asArray(),
                                                                    s.asArray(), strict=True)))
    return [result]


registerOp(
    OpDef(
        type="AddN",
        group="math",
        summary="Add all input tensors element wise.",
        description="All inputs must have the same shape and data type (no broadcasting).",
        inputs=(InputDef("inputs", "the tensors to add", typeAttr="T", isList=True),),
        outputs=(OutputDef("sum", "the element-wise sum", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=NUMBERS), AttrDef("N", "int", "number of inputs")),
        infer=_addNShape,
        elementwise=True,
        example=example("tf.math.addN([tf.constant([1, 2]), tf.constant([3, 4]), "
                         "tf.constant([5, 6])])", "[9, 12]"),
    )
)


@registerGradient("AddN")
def _addNGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [g] * op.numInputs()


# -- Mean ----------------------------------------------------------------------------------
registerOp(
    OpDef(
        type="Mean",
        group="math",
        summary="Computes the mean of elements across dimensions of a tensor.",
        description=(
            "Reduces ``input`` along the dimensions given in ``axis``. Unless ``keepDims`` is\n"
            "true, the rank of the tensor is reduced by 1 for each entry in ``axis``; with\n"
            "``keepDims``, the reduced dimensions are kept with length 1. The mean of integers\n"
            "truncates towards zero. The mean of no elements is NaN for floats and 0 for\n"
            "integers, as in TensorFlow. float16 is summed and divided in float32 and rounded\n"
            "once (TensorFlow's CPU kernel sums float16 in float16: see Sum)."
        ),
        inputs=(
            InputDef("input", "the tensor to reduce", typeAttr="T"),
            InputDef("axis", "the dimensions to reduce, in ``[-rank(input), rank(input))``",
                     typeAttr="Tidx"),
        ),
        outputs=(OutputDef("output", "the reduced tensor", typeAttr="T"),),
        attrs=(
            AttrDef("keep_dims", "bool", "if true, retain reduced dimensions with length 1",
                    default=False, option="keepDims"),
            AttrDef("T", "type", allowed=NUMBERS),
            AttrDef("Tidx", "type", allowed=INDEX_TYPES, default=TInt32),
        ),
        infer=reductionShape,
        example=example("tf.math.mean(tf.constant([[1.0, 2.0], [3.0, 5.0]]), 1)",
                         "[1.5, 4.0]"),
    )
)


@registerGradient("Mean")
def _meanGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    x = op.x(0)
    sumGrad = tf.broadcastTo(keptDims(tf, op, g), tf.shape(x))
    axes = constantAxes(op)
    dims = x.shape().asArray() or ()
    if axes is not None and all(dims[a] >= 0 for a in axes):
        count = np.array(np.prod([dims[a] for a in axes]), dtype=x.dataType().DTYPE)
        return [tf.math.div(sumGrad, count), None]
    # the number of elements averaged, known at run time only
    return [tf.math.div(sumGrad, tf.sum(tf.onesLike(x), op.ints(1), keepDims=True)), None]
