"""Data type ops (``tfops.op.dtypes``): Cast."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfops.opdef import AttrDef, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.spec.grad import GradOp, Grads, registerGradient
from tfops.spec.rules import ANY, sameShape
from tfops.types import TFloating

if TYPE_CHECKING:
    from tfops.ops import Ops


registerOp(
    OpDef(
        type="Cast",
        group="dtypes",
        summary="Cast x of type SrcT to y of DstT.",
        description=(
            "Floating point values cast to integers are truncated towards zero; any non-zero\n"
            "value cast to ``TBool`` is true. The gradient flows only between floating point\n"
            "types."
        ),
        inputs=(InputDef("x", "the tensor to cast", typeAttr="SrcT"),),
        outputs=(OutputDef("y", "``x`` converted to ``DstT``", typeAttr="DstT"),),
        attrs=(
            AttrDef("SrcT", "type", allowed=ANY),
            AttrDef("DstT", "type", "the data type to cast to", allowed=ANY, param="DstT"),
            AttrDef("Truncate", "bool", "kept for TensorFlow compatibility", default=False,
                    option="Truncate"),
        ),
        infer=sameShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> y = tf.dtypes.cast(tf.constant([1.7, -1.7]), TInt32)\n"
            ">>> Session(g).runner().fetch(y).run()[0].tolist()\n"
            "[1, -1]"
        ),
    )
)


@registerGradient("Cast")
def _castGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    source = op.input(0).dataType()
    if not issubclass(source, TFloating) or not issubclass(op.output(0).dataType(), TFloating):
        return [None]
    return [tf.dtypes.cast(g, source)]
