"""Ops of ``tfops.op.core`` that reduce a tensor to fewer elements: Prod, All and Any along
axes (beside Sum, Max and Min), and Rank and Size, its number of dimensions and of elements."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from tfops.opdef import AttrDef, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Operand, Output
from tfops.shape import Shape
from tfops.spec.core import _reduction, keptDims
from tfops.spec.grad import GradOp, Grads, notDifferentiable, registerGradient
from tfops.spec.rules import ANY, INDEX_TYPES, NUMBERS
from tfops.types import TBool, TFloating, TInt32

if TYPE_CHECKING:
    from tfops.ops import Ops

_reduction(
    "Prod",
    "Computes the product of elements across dimensions of a tensor.",
    "The product of no elements is 1; integer products wrap around as in TensorFlow. The\n"
    "gradient of an element is the product of the other elements reduced with it, with\n"
    "TensorFlow's values where the input has zeros, infinities or NaN (``[inf, 1, -1, 2]``\n"
    "gives ``[-2, -inf, inf, -inf]``). TensorFlow multiplies exclusive cumulative products\n"
    "from both ends, tfops divides the product of the finite elements by the element: where\n"
    "a partial product overflows or underflows in one order and not the other, the two\n"
    "differ (``[1e200, 1e200, 1e-200, 1e-200]``).",
    NUMBERS,
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> p = tf.prod(tf.constant([[1, 2], [3, 4]]), 1)\n"
    ">>> Session(g).runner().fetch(p).run()[0].tolist()\n"
    "[2, 12]",
)


@registerGradient("Prod")
def _prodGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """The incoming gradient times, for each element, the product of the others in its group.

    TensorFlow multiplies exclusive cumulative products from both ends; this computes the same
    product of the others without dividing by zero or infinity. Over the finite elements it is
    the group's product divided by the element, but at a zero the product of the group's
    non-zero elements when that zero is the only one, else 0 (next to a zero the division gives
    0, as it should). The infinities and NaN among the others then multiply it: NaN where one
    is NaN, or where that product is 0 (a zero and an infinity); an infinity of the right sign
    otherwise.
    """
    x, axis = op.x(0), op.ints(1)
    dtype = x.dataType()
    zero, one = np.zeros((), dtype.DTYPE), np.ones((), dtype.DTYPE)

    def others(mask: Operand[TBool]) -> Output[TFloating]:
        """How many elements of the group, other than this one, ``mask`` holds."""
        counts = tf.dtypes.cast(mask, dtype)
        return tf.math.sub(tf.sum(counts, axis, keepDims=True), counts).asOutput()

    isNan = tf.math.isNan(x)
    isInf = tf.math.logicalNot(tf.math.logicalOr(tf.math.isFinite(x), isNan))
    finite = tf.select(tf.math.logicalOr(isNan, isInf), one, x)
    isZero = tf.math.equal(finite, zero)
    safe = tf.select(isZero, one, finite)
    zeros = tf.sum(tf.dtypes.cast(isZero, dtype), axis, keepDims=True)
    nonZeroProduct = tf.prod(safe, axis, keepDims=True)
    atZero = tf.select(tf.math.equal(zeros, one), nonZeroProduct, zero)
    product = tf.prod(finite, axis, keepDims=True)
    finiteOthers = tf.select(isZero, atZero, tf.math.div(product, safe))
    # the infinities among the others: their signs, and one infinity standing for them all
    signs = tf.prod(tf.select(isInf, tf.math.sign(x), one), axis, keepDims=True)
    sign = tf.select(isInf, tf.math.mul(signs, tf.math.sign(x)), signs)
    special = tf.select(tf.math.greater(others(isNan), zero), np.array(np.nan, dtype.DTYPE),
                        tf.select(tf.math.greater(others(isInf), zero),
                                  tf.math.mul(np.array(np.inf, dtype.DTYPE), sign), one))
    return [tf.math.mul(keptDims(tf, op, g), tf.math.mul(finiteOthers, special)), None]


_reduction(
    "All",
    'Computes the "logical and" of elements across dimensions of a tensor.',
    "``input`` is a ``TBool`` tensor; the \"and\" of no elements is true. Not differentiable.",
    (TBool,),
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> a = tf.all(tf.constant([[True, False], [True, True]]), 1)\n"
    ">>> Session(g).runner().fetch(a).run()[0].tolist()\n"
    "[False, True]",
)
_reduction(
    "Any",
    'Computes the "logical or" of elements across dimensions of a tensor.',
    "``input`` is a ``TBool`` tensor; the \"or\" of no elements is false. Not differentiable.",
    (TBool,),
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> a = tf.any(tf.constant([[True, False], [False, False]]), 1, Any.keepDims(True))\n"
    ">>> Session(g).runner().fetch(a).run()[0].tolist()\n"
    "[[True], [False]]",
)
notDifferentiable("All", "Any")


# -- Rank and Size -------------------------------------------------------------------------
registerOp(
    OpDef(
        type="Rank",
        group="core",
        summary="Returns the rank of a tensor.",
        description=(
            "The rank is the number of dimensions of ``input`` (0 for a scalar, 2 for a matrix),\n"
            "also called its order or ndims; it is not the rank of a matrix in the sense of\n"
            "linear algebra. The result is a ``TInt32`` scalar."
        ),
        inputs=(InputDef("input", "the tensor whose rank is returned", typeAttr="T"),),
        outputs=(OutputDef("output", "the rank of ``input``", dtype=TInt32),),
        attrs=(AttrDef("T", "type", allowed=ANY),),
        infer=lambda ctx: [Shape.scalar()],
        shapeOnly=True,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> r = tf.rank(tf.constant([[1, 2, 3], [4, 5, 6]]))\n"
            ">>> Session(g).runner().fetch(r).run()[0].tolist()\n"
            "2"
        ),
    )
)
notDifferentiable("Rank")

registerOp(
    OpDef(
        type="Size",
        group="core",
        summary="Returns the size of a tensor.",
        description=(
            "The size is the number of elements of ``input``: the product of its dimensions,\n"
            "1 for a scalar. The result is a scalar of type ``outType`` (``TInt32`` unless\n"
            "given)."
        ),
        inputs=(InputDef("input", "the tensor whose size is returned", typeAttr="T"),),
        outputs=(OutputDef("output", "the number of elements of ``input``",
                           typeAttr="out_type"),),
        attrs=(
            AttrDef("T", "type", allowed=ANY),
            AttrDef("out_type", "type", "the data type of the result", allowed=INDEX_TYPES,
                    default=TInt32, option="outType"),
        ),
        infer=lambda ctx: [Shape.scalar()],
        shapeOnly=True,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> s = tf.size(tf.constant([[1, 2, 3], [4, 5, 6]]), Size.outType(TInt64))\n"
            ">>> Session(g).runner().fetch(s).run()[0].tolist()\n"
            "6"
        ),
    )
)
notDifferentiable("Size")
