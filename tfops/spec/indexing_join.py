"""Ops that join tensors or grow them (``tfops.op.core``): Concat (TensorFlow's ConcatV2), Stack
(TensorFlow's Pack) and Pad."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Operand, Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, integral, registerGradient
from tfops.spec.indexing import constantValue, example, scalarConstant, unknownDims
from tfops.spec.rules import ANY, INDEX_TYPES
from tfops.types import TFloating, TInt32, TIntegral

if TYPE_CHECKING:
    from tfops.ops import Ops


# -- Concat --------------------------------------------------------------------------------
def _concatShape(ctx: InferContext) -> Sequence[Shape]:
    n = ctx.attrs["N"]
    shapes = ctx.shapes[:n]
    axis = scalarConstant(ctx, n, "axis")
    known = [dims for s in shapes if (dims := s.asArray()) is not None]
    if not known:
        return [Shape.unknown()]
    rank = len(known[0])
    for s in shapes:
        if s.numDimensions() not in (-1, rank):
            raise ctx.error(f"all values must have the same rank, got {shapes[0]} and {s}")
    if rank == 0:
        raise ctx.error("cannot concatenate scalars (use Stack instead)")
    if axis is None:
        return [unknownDims(rank)]
    if not -rank <= axis < rank:
        raise ctx.error(f"axis {axis} is out of range [{-rank}, {rank})")
    axis %= rank
    result = []
    for i in range(rank):
        sizes = [d[i] for d in known]
        if i == axis:
            complete = len(known) == n and -1 not in sizes
            result.append(sum(sizes) if complete else -1)
            continue
        fixed = {d for d in sizes if d >= 0}
        if len(fixed) > 1:
            raise ctx.error(f"dimension {i} of the values differs: {sorted(fixed)} (shapes "
                            f"{', '.join(map(str, shapes))}); only dimension {axis} may")
        result.append(fixed.pop() if fixed else -1)
    return [Shape.of(*result)]


registerOp(
    OpDef(
        type="ConcatV2",
        group="core",
        className="Concat",
        facadeName="concat",
        defaultName="Concat",
        summary="Concatenates tensors along one dimension.",
        description=(
            "The values must have the same rank (at least 1) and the same sizes in every\n"
            "dimension but ``axis``; the result's size in ``axis`` is the sum of theirs. A\n"
            "negative ``axis`` counts from the end. One value is accepted (the result is a\n"
            "copy of it), as ``tf.concat([x], 0)`` in TensorFlow Python, which builds an\n"
            "Identity there; TensorFlow's ConcatV2 registration itself asks for at least two\n"
            "values (graph mode and TF Java reject one), which would make every rule that\n"
            "joins a list of any length (the gradient of a Split into one part) a special\n"
            "case."
        ),
        inputs=(
            InputDef("values", "the tensors to concatenate", typeAttr="T", isList=True),
            InputDef("axis", "the dimension to concatenate along, a scalar in "
                     "``[-rank, rank)``", typeAttr="Tidx"),
        ),
        outputs=(OutputDef("output", "the concatenated tensor", typeAttr="T"),),
        attrs=(
            AttrDef("N", "int", "number of values"),
            AttrDef("T", "type", allowed=ANY),
            AttrDef("Tidx", "type", allowed=INDEX_TYPES, default=TInt32),
        ),
        infer=_concatShape,
        example=example("tf.concat([tf.constant([[1, 2]]), tf.constant([[3, 4], [5, 6]])], 0)",
                        "[[1, 2], [3, 4], [5, 6]]"),
    )
)


@registerGradient("ConcatV2")
def _concatGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """Slices of the gradient, one per value, each at the value's offset along the axis."""
    n = op.numInputs() - 1
    axis = op.ints(n)
    shapes = [tf.shape(op.input(i), outType=axis.dataType()) for i in range(n)]
    oneHot = _axisOneHot(tf, axis, op.output(0).shape().numDimensions(), shapes[0])
    result: list[Operand[TFloating] | None] = []
    offset: Operand[TIntegral] = tf.zerosLike(shapes[0])
    for shape in shapes:
        result.append(tf.slice(g, tf.math.mul(offset, oneHot), shape))
        offset = tf.math.add(offset, shape)
    return [*result, None]


def _axisOneHot(
    tf: Ops, axis: Output[TIntegral], rank: int, shape: Operand[TIntegral]
) -> Operand[TIntegral]:
    """A vector as long as ``shape`` (a value's shape) with 1 at ``axis``, 0 elsewhere."""
    axisValue = constantValue(axis)
    if axisValue is not None and rank >= 0:
        oneHot = np.zeros(rank, axis.dataType().DTYPE)
        oneHot[int(axisValue) % rank] = 1
        return integral(tf.constant(oneHot).asOutput())
    # known at run time only: a 1 scattered to the axis (mod the rank)
    rankVector = tf.shape(shape, outType=axis.dataType())
    rankValue = tf.reshape(rankVector, np.array([], np.int32))
    position = tf.reshape(tf.math.floorMod(axis, rankValue), [1])
    one = np.ones(1, axis.dataType().DTYPE)
    return tf.math.unsortedSegmentSum(one, position, rankValue)


# -- Stack ---------------------------------------------------------------------------------
def _merge(ctx: InferContext, shapes: Sequence[Shape]) -> Shape:
    """The most specific shape compatible with all ``shapes``; raises if there is none."""
    merged = Shape.unknown()
    for s in shapes:
        if not merged.isCompatibleWith(s):
            raise ctx.error(f"all values must have the same shape, got {merged} and {s}")
        old, new = merged.asArray(), s.asArray()
        if old is None or new is None:
            merged = s if old is None else merged
        else:
            merged = Shape.of(*(a if a >= 0 else b for a, b in zip(old, new, strict=True)))
    return merged


def _stackShape(ctx: InferContext) -> Sequence[Shape]:
    n, axis = ctx.attrs["N"], ctx.attrs["axis"]
    dims = _merge(ctx, ctx.shapes[:n]).asArray()
    if dims is None:
        return [Shape.unknown()]
    rank = len(dims) + 1
    if not -rank <= axis < rank:
        raise ctx.error(f"axis {axis} is out of range [{-rank}, {rank}) for values of shape "
                        f"{ctx.shapes[0]}")
    axis %= rank
    return [Shape.of(*dims[:axis], n, *dims[axis:])]


registerOp(
    OpDef(
        type="Pack",
        group="core",
        className="Stack",
        facadeName="stack",
        defaultName="Stack",
        summary="Packs a list of N rank-R tensors into one rank-(R+1) tensor.",
        description=(
            "The values, all of one shape, are stacked along a new dimension ``axis`` of size\n"
            "N: for values of shape ``(A, B)``, the result has shape ``(N, A, B)`` with\n"
            "``axis`` 0 and ``(A, B, N)`` with ``axis`` 2 or -1. The opposite of Unstack."
        ),
        inputs=(InputDef("values", "the tensors to stack, of one shape and data type",
                         typeAttr="T", isList=True),),
        outputs=(OutputDef("output", "the stacked tensor", typeAttr="T"),),
        attrs=(
            AttrDef("N", "int", "number of values"),
            AttrDef("T", "type", allowed=ANY),
            AttrDef("axis", "int", "the dimension to stack along, in ``[-(R+1), R+1)``",
                    default=0, option="axis"),
        ),
        infer=_stackShape,
        example=example("tf.stack([tf.constant([1, 4]), tf.constant([2, 5])], Stack.axis(1))",
                        "[[1, 2], [4, 5]]"),
    )
)


@registerGradient("Pack")
def _stackGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """The gradient unstacked: its slices along the axis, one per value."""
    axis: int = op.attr("axis")
    return [unstacked(tf, g, i, axis) if op.needs(i) else None for i in range(op.numInputs())]


def _unstackShape(ctx: InferContext) -> Sequence[Shape]:
    num, axis = ctx.attrs["num"], ctx.attrs["axis"]
    if num < 0:
        raise ctx.error(f"num must be non-negative, got {num}")
    dims = ctx.shapes[0].asArray()
    if dims is None:
        return [Shape.unknown()] * num
    rank = len(dims)
    if not -rank <= axis < rank:
        raise ctx.error(f"axis {axis} is out of range [{-rank}, {rank}) for a value of shape "
                        f"{ctx.shapes[0]}")
    axis %= rank
    if dims[axis] not in (-1, num):
        raise ctx.error(f"num is {num} but dimension {axis} of the value has size {dims[axis]}")
    return [Shape.of(*dims[:axis], *dims[axis + 1 :])] * num


registerOp(
    OpDef(
        type="Unpack",
        group="core",
        className="Unstack",
        facadeName="unstack",
        defaultName="Unstack",
        summary="Unpacks a given dimension of a rank-R tensor into num rank-(R-1) tensors.",
        description=(
            "The value is cut along dimension ``axis`` (which must have size ``num``) into\n"
            "``num`` tensors, that dimension removed. The opposite of Stack; the class is\n"
            "iterable over its outputs."
        ),
        inputs=(InputDef("value", "the tensor to unstack", typeAttr="T"),),
        outputs=(OutputDef("output", "the tensors unpacked from ``value``", typeAttr="T",
                           countAttr="num"),),
        attrs=(
            AttrDef("num", "int", "the size of dimension ``axis``", param="num"),
            AttrDef("T", "type", allowed=ANY),
            AttrDef("axis", "int", "the dimension to unstack along, in ``[-R, R)``",
                    default=0, option="axis"),
        ),
        infer=_unstackShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> rows = tf.unstack(tf.constant([[1, 2], [3, 4], [5, 6]]), 3)\n"
            ">>> last, first = Session(g).runner().fetch(rows.output()[2])"
            ".fetch(rows.output()[0]).run()\n"
            ">>> [last.tolist(), first.tolist()]\n"
            "[[5, 6], [1, 2]]"
        ),
    )
)


@registerGradient("Unpack")
def _unstackGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """The gradients of the pieces (zeros for those nothing reached), stacked back along the
    axis."""
    return [tf.stack(op.grads(), axis=op.attr("axis"))]


def unstacked(tf: Ops, t: Output[TFloating], i: int, axis: int) -> Output[TFloating]:
    """Element ``i`` of ``t`` along ``axis`` (that dimension removed): what Unstack gives."""
    if axis >= 0:  # whole dimensions before the axis, then index i
        n, whole, ellipsis = axis + 1, (1 << axis) - 1, 0
    else:  # an ellipsis, index i, then -axis-1 whole dimensions
        n, ellipsis = 1 - axis, 1
        whole = ((1 << n) - 1) & ~0b11
    position = n - 1 if axis >= 0 else 1
    begin = np.zeros(n, np.int32)
    begin[position] = i
    end = begin.copy()
    end[position] = i + 1
    return tf.stridedSlice(
        t, begin, end, np.ones(n, np.int32), beginMask=whole, endMask=whole,
        ellipsisMask=ellipsis, shrinkAxisMask=1 << position,
    ).asOutput()


# -- Pad -----------------------------------------------------------------------------------
def _padShape(ctx: InferContext) -> Sequence[Shape]:
    dims = ctx.shapes[0].asArray()
    matrix = ctx.shapes[1].asArray()
    if matrix is not None and (len(matrix) != 2 or matrix[1] not in (2, -1)):
        raise ctx.error(f"paddings must be a matrix of shape [rank, 2], got {ctx.shapes[1]}")
    rows = matrix[0] if matrix is not None else -1
    if dims is not None and rows >= 0 and rows != len(dims):
        raise ctx.error(f"paddings has {rows} rows for a tensor of rank {len(dims)}")
    paddings = ctx.constants[1]
    if paddings is None:
        return [unknownDims(len(dims) if dims is not None else rows)]
    if (paddings < 0).any():
        raise ctx.error(f"paddings must not be negative, got {paddings.tolist()}")
    extra = paddings.sum(axis=1).tolist()
    return [Shape.of(*(d + e if d >= 0 else -1
                       for d, e in zip(dims if dims is not None else [-1] * len(extra), extra,
                                       strict=True)))]


registerOp(
    OpDef(
        type="Pad",
        group="core",
        summary="Pads a tensor with zeros.",
        description=(
            "``paddings`` is an integer matrix of shape ``[rank(input), 2]``: row ``i`` tells\n"
            "how many zeros go before and after the contents of dimension ``i``, so the\n"
            "result's dimension ``i`` has size ``paddings[i, 0] + input.shape[i] +\n"
            "paddings[i, 1]``. Paddings must not be negative."
        ),
        inputs=(
            InputDef("input", "the tensor to pad", typeAttr="T"),
            InputDef("paddings", "the number of zeros before and after each dimension",
                     typeAttr="Tpaddings"),
        ),
        outputs=(OutputDef("output", "the padded tensor", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=ANY),
               AttrDef("Tpaddings", "type", allowed=INDEX_TYPES, default=TInt32)),
        infer=_padShape,
        example=example("tf.pad(tf.constant([[1, 2]]), [[1, 0], [0, 2]])",
                        "[[0, 0, 0, 0], [1, 2, 0, 0]]"),
    )
)


@registerGradient("Pad")
def _padGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """The part of the gradient where the input sits: a slice from the leading paddings."""
    paddings = op.ints(1)
    before = tf.slice(paddings, [0, 0], [-1, 1])
    begin = tf.reshape(before, [-1])
    size = tf.shape(op.input(0), outType=paddings.dataType())
    return [tf.slice(g, begin, size), None]
