"""ShapeN (``tfops.op.core``): the shapes of several tensors in one op, as TensorFlow's
convolution gradients read them (``tf.compat.v1.gradients`` and ``GradientTape`` of a
``Conv2D`` write it)."""

from __future__ import annotations

from collections.abc import Sequence

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.shape import Shape
from tfops.spec.grad import notDifferentiable
from tfops.spec.rules import ANY, INDEX_TYPES
from tfops.types import TInt32


def _shapeNShape(ctx: InferContext) -> Sequence[Shape]:
    return [Shape.of(s.numDimensions()) for s in ctx.shapes]


registerOp(
    OpDef(
        type="ShapeN",
        group="core",
        className="ShapeN",
        facadeName="shapeN",
        summary="Returns shape of tensors.",
        description=(
            "Output ``i`` is the shape of ``input[i]``, a vector of the sizes of its dimensions,\n"
            "as Shape gives it for each tensor alone. The tensors share one data type. The class\n"
            "is iterable over its outputs."
        ),
        inputs=(
            InputDef("input", "the tensors whose shapes are returned", typeAttr="T", isList=True),
        ),
        outputs=(
            OutputDef(
                "output",
                "the shape of each tensor of ``input``",
                typeAttr="out_type",
                countAttr="N",
            ),
        ),
        attrs=(
            AttrDef("N", "int", "the number of tensors"),
            AttrDef("T", "type", allowed=ANY),
            AttrDef(
                "out_type",
                "type",
                "the data type of the results",
                allowed=INDEX_TYPES,
                default=TInt32,
                option="outType",
            ),
        ),
        infer=_shapeNShape,
        shapeOnly=True,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> shapes = tf.shapeN([tf.constant([[1.0, 2.0, 3.0]]), tf.constant([4.0, 5.0])])\n"
            ">>> first, second = shapes.output()\n"
            ">>> values = Session(g).runner().fetch(first).fetch(second).run()\n"
            ">>> [v.tolist() for v in values]\n"
            "[[1, 3], [2]]"
        ),
    )
)
notDifferentiable("ShapeN")
