"""Shape ops (``tfops.op.core``): Shape, Reshape, ExpandDims, BroadcastTo,
BroadcastGradientArgs, ZerosLike and OnesLike, which gradients are built from."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, notDifferentiable, registerGradient, sumToShape
from tfops.spec.rules import (
    ANY,
    INDEX_TYPES,
    broadcast,
    reshapeTarget,
    sameShape,
    shapeValue,
)
from tfops.types import TFloating, TInt32

if TYPE_CHECKING:
    from tfops.ops import Ops


registerOp(
    OpDef(
        type="Shape",
        group="core",
        className="Shape",
        facadeName="shape",
        summary="Returns the shape of a tensor.",
        description="The result is a vector of the sizes of ``input``'s dimensions.",
        inputs=(InputDef("input", "the tensor whose shape is returned", typeAttr="T"),),
        outputs=(OutputDef("output", "the shape of ``input``", typeAttr="out_type"),),
        attrs=(
            AttrDef("T", "type", allowed=ANY),
            AttrDef("out_type", "type", "the data type of the result", allowed=INDEX_TYPES,
                    default=TInt32, option="outType"),
        ),
        infer=lambda ctx: [Shape.of(ctx.shapes[0].numDimensions())],
        shapeOnly=True,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> s = tf.shape(tf.constant([[1.0, 2.0, 3.0]]))\n"
            ">>> Session(g).runner().fetch(s).run()[0].tolist()\n"
            "[1, 3]"
        ),
    )
)
notDifferentiable("Shape")


def _reshapeShape(ctx: InferContext) -> Sequence[Shape]:
    target = shapeValue(ctx, 1)
    dims = target.asArray()
    known = ctx.values[1]
    source = ctx.shapes[0]
    if dims is None or known is None:
        return [target]
    given = [e for e in known.entries if e is not None]
    if given.count(-1) > 1 or any(d < -1 for d in given):
        raise ctx.error(f"the new shape {_entries(known.entries)} may have one -1 and no other "
                        "negative size")
    if not source.isFullyKnown():
        return [target]
    # as TensorFlow: one entry that is -1 or not known is what the number of elements leaves
    sizes = [-1 if e is None else e for e in known.entries]
    result = reshapeTarget(source.asArray() or (), sizes) if sizes.count(-1) <= 1 else None
    if result is None and sizes.count(-1) <= 1:
        raise ctx.error(
            f"cannot reshape a tensor of {source.size()} elements (shape {source}) into shape "
            f"{_entries(known.entries)}"
        )
    return [Shape.of(*result) if result is not None else target]


def _entries(entries: Sequence[int | None]) -> str:
    """A partly known shape value as a list, ``?`` where unknown."""
    return "[" + ", ".join("?" if e is None else str(e) for e in entries) + "]"


registerOp(
    OpDef(
        type="Reshape",
        group="core",
        summary="Reshapes a tensor.",
        description=(
            "Returns a tensor with the values of ``tensor`` and the given ``shape``. One\n"
            "dimension of ``shape`` may be -1: its size is computed so the number of elements\n"
            "stays the same. A ``shape`` computed in the graph gives the static shape its\n"
            "subgraph tells, as in TensorFlow: ``concat([shape(x)[0:1], [12]])`` of an ``x`` of\n"
            "shape ``[?, 3, 4]`` gives ``[?, 12]``; with ``tensor``'s shape fully known, one\n"
            "entry that is -1 or unknown is computed from the number of elements."
        ),
        inputs=(
            InputDef("tensor", "the tensor to reshape", typeAttr="T"),
            InputDef("shape", "the new shape, a vector", typeAttr="Tshape"),
        ),
        outputs=(OutputDef("output", "the reshaped tensor", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=ANY),
               AttrDef("Tshape", "type", allowed=INDEX_TYPES, default=TInt32)),
        infer=_reshapeShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> r = tf.reshape(tf.constant([1, 2, 3, 4, 5, 6]), [2, -1])\n"
            ">>> r.asOutput().shape(), Session(g).runner().fetch(r).run()[0].tolist()\n"
            "(Shape.of(2, 3), [[1, 2, 3], [4, 5, 6]])"
        ),
    )
)


@registerGradient("Reshape")
def _reshapeGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.reshape(g, tf.shape(op.input(0))), None]


def _expandDimsShape(ctx: InferContext) -> Sequence[Shape]:
    dims = ctx.shapes[0].asArray()
    axis = ctx.constants[1]
    if dims is None:
        return [Shape.unknown()]
    if axis is None:
        return [Shape.of(*([-1] * (len(dims) + 1)))]
    if axis.size != 1:
        raise ctx.error(f"axis must be a single integer, got {axis.tolist()}")
    a = int(axis.reshape(-1)[0])
    rank = len(dims) + 1
    if not -rank <= a < rank:
        raise ctx.error(f"axis {a} is out of range for a result of rank {rank}")
    a %= rank
    return [Shape.of(*dims[:a], 1, *dims[a:])]


registerOp(
    OpDef(
        type="ExpandDims",
        group="core",
        summary="Inserts a dimension of 1 into a tensor's shape.",
        description=(
            "Given ``input``, inserts a dimension of length 1 at index ``axis``; a negative\n"
            "``axis`` counts from the end of the result's dimensions."
        ),
        inputs=(
            InputDef("input", "the tensor", typeAttr="T"),
            InputDef("axis", "where to insert the dimension, in ``[-rank-1, rank]``",
                     typeAttr="Tdim"),
        ),
        outputs=(OutputDef("output", "``input`` with one more dimension", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=ANY),
               AttrDef("Tdim", "type", allowed=INDEX_TYPES, default=TInt32)),
        infer=_expandDimsShape,
        repeatsInput=True,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> e = tf.expandDims(tf.constant([1.0, 2.0]), -1)\n"
            ">>> e.asOutput().shape()\n"
            "Shape.of(2, 1)"
        ),
    )
)


@registerGradient("ExpandDims")
def _expandDimsGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return _reshapeGrad(tf, op, g)


def _broadcastToShape(ctx: InferContext) -> Sequence[Shape]:
    target = shapeValue(ctx, 1)
    if ctx.shapes[0].isUnknown():
        return [target]
    result = broadcast(ctx, ctx.shapes[0], target)
    if result.numDimensions() != target.numDimensions() and not target.isUnknown():
        raise ctx.error(f"cannot broadcast shape {ctx.shapes[0]} to the lower rank {target}")
    return [target if target.isUnknown() else result]


registerOp(
    OpDef(
        type="BroadcastTo",
        group="core",
        summary="Broadcast an array for a compatible shape.",
        description=(
            "Makes ``input`` the given ``shape`` by repeating it along dimensions of size 1\n"
            "(and leading missing dimensions), with numpy's broadcasting rules."
        ),
        inputs=(
            InputDef("input", "the tensor to broadcast", typeAttr="T"),
            InputDef("shape", "the shape of the result", typeAttr="Tidx"),
        ),
        outputs=(OutputDef("output", "the broadcast tensor", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=ANY),
               AttrDef("Tidx", "type", allowed=INDEX_TYPES, default=TInt32)),
        infer=_broadcastToShape,
        repeatsInput=True,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> b = tf.broadcastTo(tf.constant([1, 2]), [2, 2])\n"
            ">>> Session(g).runner().fetch(b).run()[0].tolist()\n"
            "[[1, 2], [1, 2]]"
        ),
    )
)


@registerGradient("BroadcastTo")
def _broadcastToGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [sumToShape(tf, g, op.input(0)), None]


def _broadcastGradientArgsShape(ctx: InferContext) -> Sequence[Shape]:
    for name, shape in zip(("s0", "s1"), ctx.shapes, strict=True):
        if shape.numDimensions() not in (-1, 1):
            raise ctx.error(f"{name} must be a shape vector, got a tensor of shape {shape}")
    return [Shape.of(-1), Shape.of(-1)]


registerOp(
    OpDef(
        type="BroadcastGradientArgs",
        group="core",
        summary="Return the reduction indices for computing gradients of s0 op s1 with broadcast.",
        description=(
            "For two shapes that broadcast together, returns for each the dimensions along\n"
            "which a gradient of the broadcast result must be summed to get back to it."
        ),
        inputs=(
            InputDef("s0", "the first shape", typeAttr="T"),
            InputDef("s1", "the second shape", typeAttr="T"),
        ),
        outputs=(
            OutputDef("r0", "the dimensions to sum for ``s0``", typeAttr="T"),
            OutputDef("r1", "the dimensions to sum for ``s1``", typeAttr="T"),
        ),
        attrs=(AttrDef("T", "type", allowed=INDEX_TYPES, default=TInt32),),
        infer=_broadcastGradientArgsShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> args = tf.broadcastGradientArgs(tf.constant([2, 3]), tf.constant([3]))\n"
            ">>> r = Session(g).runner().fetch(args.r0()).fetch(args.r1()).run()\n"
            ">>> r[0].tolist(), r[1].tolist()\n"
            "([], [0])"
        ),
    )
)
notDifferentiable("BroadcastGradientArgs")


def _likeOp(opType: str, summary: str, value: int, example: str) -> None:
    registerOp(
        OpDef(
            type=opType,
            group="core",
            summary=summary,
            description="The result has the shape and data type of ``x``.",
            inputs=(InputDef("x", "the tensor whose shape and type are used", typeAttr="T"),),
            outputs=(OutputDef("y", f"a tensor of {value}s", typeAttr="T"),),
            attrs=(AttrDef("T", "type", allowed=ANY),),
            infer=sameShape,
            shapeOnly=True,
            example=example,
        )
    )
    notDifferentiable(opType)


_likeOp(
    "ZerosLike",
    "Returns a tensor of zeros with the same shape and type as x.",
    0,
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> z = tf.zerosLike(tf.constant([1.5, 2.5]))\n"
    ">>> Session(g).runner().fetch(z).run()[0].tolist()\n"
    "[0.0, 0.0]",
)
_likeOp(
    "OnesLike",
    "Returns a tensor of ones with the same shape and type as x.",
    1,
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> o = tf.onesLike(tf.constant([[7, 8]]))\n"
    ">>> Session(g).runner().fetch(o).run()[0].tolist()\n"
    "[[1, 1]]",
)
