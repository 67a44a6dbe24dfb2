"""Norm reductions (``tfops.op.linalg``, as TensorFlow Java's ``LinalgOps``): EuclideanNorm."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfops.opdef import AttrDef, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.spec.core import keptDims
from tfops.spec.grad import GradOp, Grads, registerGradient
from tfops.spec.rules import INDEX_TYPES, NUMBERS, reductionShape
from tfops.types import TFloating, TInt32

if TYPE_CHECKING:
    from tfops.ops import Ops

registerOp(
    OpDef(
        type="EuclideanNorm",
        group="linalg",
        summary="Computes the euclidean norm of elements across dimensions of a tensor.",
        description=(
            "sqrt(sum(input^2)) over the dimensions given in ``axis``: the squares are summed\n"
            "as they are (no rescaling), so a norm whose squares overflow is ``inf``, as\n"
            "TensorFlow's. Integer tensors give the square root of the sum of squares truncated\n"
            "towards zero (the squares and their sum wrap around on overflow, as TensorFlow's).\n"
            "The norm of no elements is 0. Unless ``keepDims`` is true, the rank of the tensor\n"
            "is reduced by 1 for each entry in ``axis``; with ``keepDims``, the reduced\n"
            "dimensions are kept with length 1.\n\n"
            "Its gradient is input / (norm / grad), as TensorFlow's: NaN where the norm is 0."
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
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> n = tf.linalg.euclideanNorm(tf.constant([[3.0, 4.0], [5.0, 12.0]]), 1)\n"
            ">>> Session(g).runner().fetch(n).run()[0].tolist()\n"
            "[5.0, 13.0]"
        ),
    )
)


@registerGradient("EuclideanNorm")
def _euclideanNormGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    norm = keptDims(tf, op, op.y())
    return [tf.math.div(op.x(0), tf.math.div(norm, keptDims(tf, op, g))), None]
