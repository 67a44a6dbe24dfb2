"""Splitting and reversing (``tfops.op.core``): Split, SplitV, ReverseV2, ClipByValue, Where,
ListDiff.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, notDifferentiable, registerGradient
from tfops.spec.indexing import example, scalarConstant, unknownDims, vectorLength
from tfops.spec.rules import ANY, INDEX_TYPES, NUMBERS
from tfops.types import TBool, TFloating, TInt32, TInt64

if TYPE_CHECKING:
    from tfops.ops import Ops


def _splitAxis(ctx: InferContext, i: int, rank: int) -> int | None:
    """The constant split dimension (input ``i``) normalized to ``[0, rank)``, or ``None``."""
    axis = scalarConstant(ctx, i, "split_dim")
    if axis is None or rank < 0:
        return None
    if not -rank <= axis < rank:
        raise ctx.error(f"split_dim {axis} is out of range [{-rank}, {rank}) for a value of "
                        f"shape {ctx.shapes[1 if i == 0 else 0]}")
    return axis % rank


# -- Split ---------------------------------------------------------------------------------
def _splitShape(ctx: InferContext) -> Sequence[Shape]:
    num = ctx.attrs["num_split"]
    if num < 1:
        raise ctx.error(f"num_split must be at least 1, got {num}")
    dims = ctx.shapes[1].asArray()
    if dims is not None and not dims:
        raise ctx.error("cannot split a scalar: value must have at least one dimension")
    axis = _splitAxis(ctx, 0, -1 if dims is None else len(dims))
    if dims is None:
        return [Shape.unknown()] * num
    if axis is None:
        return [unknownDims(len(dims))] * num
    size = dims[axis]
    if size >= 0 and size % num:
        raise ctx.error(f"num_split {num} does not evenly divide dimension {axis} of the value "
                        f"(size {size}, shape {ctx.shapes[1]})")
    piece = list(dims)
    piece[axis] = size // num if size >= 0 else -1
    return [Shape.of(*piece)] * num


registerOp(
    OpDef(
        type="Split",
        group="core",
        summary="Splits a tensor into ``num_split`` tensors along one dimension.",
        description=(
            "The value is cut along ``split_dim`` into ``num_split`` pieces of equal size, so\n"
            "that dimension's size must be a multiple of ``num_split``; a negative\n"
            "``split_dim`` counts from the end. The class is iterable over its outputs. The\n"
            "gradient concatenates the pieces' gradients (zeros for pieces nothing reached)."
        ),
        inputs=(
            InputDef("split_dim", "the dimension to split along, a scalar in ``[-rank, rank)``",
                     dtype=TInt32),
            InputDef("value", "the tensor to split", typeAttr="T"),
        ),
        outputs=(OutputDef("output", "the ``num_split`` pieces, in order", typeAttr="T",
                           countAttr="num_split"),),
        attrs=(
            AttrDef("num_split", "int", "the number of pieces, at least 1", param="numSplit"),
            AttrDef("T", "type", allowed=ANY),
        ),
        infer=_splitShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> parts = tf.split(tf.constant(1), tf.constant([[1, 2, 3, 4], [5, 6, 7, 8]]), 2)\n"
            ">>> a, b = parts.output()\n"
            ">>> [p.tolist() for p in Session(g).runner().fetch(a).fetch(b).run()]\n"
            "[[[1, 2], [5, 6]], [[3, 4], [7, 8]]]"
        ),
    )
)


@registerGradient("Split")
def _splitGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: the pieces' gradients concatenated back along the split dimension."""
    return [None, tf.concat(op.grads(), op.ints(0))]


# -- SplitV --------------------------------------------------------------------------------
def _splitVShape(ctx: InferContext) -> Sequence[Shape]:
    num = ctx.attrs["num_split"]
    if num < 1:
        raise ctx.error(f"num_split must be at least 1, got {num}")
    length = vectorLength(ctx, 1, "size_splits")
    if length >= 0 and length != num:
        raise ctx.error(f"size_splits has {length} entries but num_split is {num}")
    dims = ctx.shapes[0].asArray()
    if dims is not None and not dims:
        raise ctx.error("cannot split a scalar: value must have at least one dimension")
    axis = _splitAxis(ctx, 2, -1 if dims is None else len(dims))
    if dims is None:
        return [Shape.unknown()] * num
    if axis is None:
        return [unknownDims(len(dims))] * num
    sizes = ctx.constants[1]
    if sizes is None:
        piece = list(dims)
        piece[axis] = -1
        return [Shape.of(*piece)] * num
    try:
        resolved = splitSizes([int(s) for s in sizes.tolist()], dims[axis])
    except ValueError as e:
        raise ctx.error(str(e)) from None
    return [Shape.of(*dims[:axis], s, *dims[axis + 1:]) for s in resolved]


def splitSizes(sizes: list[int], total: int) -> list[int]:
    """SplitV's sizes with its one -1 resolved to what the others leave of ``total`` (-1 when
    ``total`` is unknown), checked as TensorFlow checks them; raises ``ValueError``."""
    unknown = [i for i, s in enumerate(sizes) if s == -1]
    if len(unknown) > 1:
        raise ValueError(f"only one entry of size_splits may be -1, got {sizes}")
    for i, s in enumerate(sizes):
        if s < -1:
            raise ValueError(f"size_splits[{i}] = {s} must be >= 0 (or -1 for the rest)")
    known = sum(s for s in sizes if s >= 0)
    if total < 0:
        return sizes
    if (not unknown and known != total) or (unknown and known > total):
        raise ValueError(f"size_splits {sizes} must sum to the size of the split dimension "
                         f"({total}) or, with one -1, to at most that size")
    return [total - known if s == -1 else s for s in sizes]


registerOp(
    OpDef(
        type="SplitV",
        group="core",
        summary="Splits a tensor into ``num_split`` tensors of given sizes along one dimension.",
        description=(
            "Piece ``i`` has size ``size_splits[i]`` along ``split_dim``; the sizes must add up\n"
            "to that dimension's size, except that one of them may be -1: it gets what the\n"
            "others leave. A negative ``split_dim`` counts from the end. The class is iterable\n"
            "over its outputs. The gradient concatenates the pieces' gradients (zeros for\n"
            "pieces nothing reached)."
        ),
        inputs=(
            InputDef("value", "the tensor to split", typeAttr="T"),
            InputDef("size_splits", "the size of each piece along ``split_dim`` (one may be "
                     "-1), a vector of ``num_split`` entries", typeAttr="Tlen"),
            InputDef("split_dim", "the dimension to split along, a scalar in ``[-rank, rank)``",
                     dtype=TInt32),
        ),
        outputs=(OutputDef("output", "the ``num_split`` pieces, in order", typeAttr="T",
                           countAttr="num_split"),),
        attrs=(
            AttrDef("num_split", "int", "the number of pieces, at least 1", param="numSplit"),
            AttrDef("T", "type", allowed=ANY),
            AttrDef("Tlen", "type", allowed=INDEX_TYPES, default=TInt64),
        ),
        infer=_splitVShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> parts = tf.splitV(tf.constant([1, 2, 3, 4, 5]), tf.constant([1, -1]), "
            "tf.constant(0), 2)\n"
            ">>> a, b = parts.output()\n"
            ">>> [p.tolist() for p in Session(g).runner().fetch(a).fetch(b).run()]\n"
            "[[1], [2, 3, 4, 5]]"
        ),
    )
)


@registerGradient("SplitV")
def _splitVGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: the pieces' gradients concatenated back along the split dimension."""
    return [tf.concat(op.grads(), op.ints(2)), None, None]


# -- ReverseV2 -----------------------------------------------------------------------------
def _reverseShape(ctx: InferContext) -> Sequence[Shape]:
    dims = ctx.shapes[0].asArray()
    if dims is not None and len(dims) > 8:
        raise ctx.error(f"cannot reverse a tensor of rank {len(dims)} (at most 8)")
    vectorLength(ctx, 1, "axis")
    axes = ctx.constants[1]
    if axes is not None and dims is not None:
        try:
            reversedAxes(axes.tolist(), len(dims))
        except ValueError as e:
            raise ctx.error(str(e)) from None
    return [ctx.shapes[0]]


def reversedAxes(axes: list[int], rank: int) -> tuple[int, ...]:
    """ReverseV2's axes in ``[0, rank)``, each at most once; raises ``ValueError``."""
    seen: list[int] = []
    for i, a in enumerate(axes):
        if not -rank <= a < rank:
            raise ValueError(f"axis[{i}] = {a} is out of range [{-rank}, {rank})")
        if a % rank in seen:
            raise ValueError(f"axis {a % rank} is given more than once in {axes}")
        seen.append(a % rank)
    return tuple(seen)


registerOp(
    OpDef(
        type="ReverseV2",
        group="core",
        className="Reverse",
        facadeName="reverse",
        defaultName="Reverse",
        summary="Reverses specific dimensions of a tensor.",
        description=(
            "Each dimension listed in ``axis`` (negative ones count from the end) is reversed:\n"
            "for ``axis`` ``[1]`` and a matrix, each row is reversed. An axis may be listed\n"
            "once; an empty ``axis`` returns the tensor unchanged. The tensor may have at most\n"
            "8 dimensions, as in TensorFlow. The gradient is the gradient reversed the same\n"
            "way."
        ),
        inputs=(
            InputDef("tensor", "the tensor to reverse, of rank at most 8", typeAttr="T"),
            InputDef("axis", "the dimensions to reverse, a vector", typeAttr="Tidx"),
        ),
        outputs=(OutputDef("output", "the tensor with those dimensions reversed",
                           typeAttr="T"),),
        attrs=(AttrDef("Tidx", "type", allowed=INDEX_TYPES, default=TInt32),
               AttrDef("T", "type", allowed=ANY)),
        infer=_reverseShape,
        example=example("tf.reverse(tf.constant([[1, 2, 3], [4, 5, 6]]), tf.constant([1]))",
                        "[[3, 2, 1], [6, 5, 4]]"),
    )
)


@registerGradient("ReverseV2")
def _reverseGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: the gradient reversed along the same axes."""
    return [tf.reverse(g, op.ints(1)), None]


# -- ClipByValue ---------------------------------------------------------------------------
def _clipShape(ctx: InferContext) -> Sequence[Shape]:
    t = ctx.shapes[0]
    for i, name in ((1, "clip_value_min"), (2, "clip_value_max")):
        s = ctx.shapes[i]
        if s.numDimensions() != 0 and not s.isCompatibleWith(t):
            raise ctx.error(f"{name} must be a scalar or have the shape of t {t}, got {s}")
    return [t]


registerOp(
    OpDef(
        type="ClipByValue",
        group="core",
        summary="Clips tensor values to a specified min and max.",
        description=(
            "Each element of ``t`` below ``clip_value_min`` becomes ``clip_value_min``, each\n"
            "above ``clip_value_max`` becomes ``clip_value_max``; the bounds are scalars or\n"
            "tensors of ``t``'s shape (no other broadcasting, as in TensorFlow). As TensorFlow\n"
            "computes it, ``max(min(t, clip_value_max), clip_value_min)`` where a comparison\n"
            "with NaN keeps the first operand: a NaN in ``t`` stays NaN, a NaN bound clips\n"
            "nothing, and where ``clip_value_min > clip_value_max`` the result is\n"
            "``clip_value_min``. The gradient flows to ``t`` where it lies within the bounds,\n"
            "else to the bound it was clipped to (summed when the bound is a scalar)."
        ),
        inputs=(
            InputDef("t", "the tensor to clip", typeAttr="T"),
            InputDef("clip_value_min", "the lower bound, a scalar or of ``t``'s shape",
                     typeAttr="T"),
            InputDef("clip_value_max", "the upper bound, a scalar or of ``t``'s shape",
                     typeAttr="T"),
        ),
        outputs=(OutputDef("output", "the clipped tensor, of ``t``'s shape", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=NUMBERS),),
        infer=_clipShape,
        example=example("tf.clipByValue(tf.constant([-2.0, 0.5, 3.0]), tf.constant(0.0), "
                        "tf.constant(1.0))", "[0.0, 0.5, 1.0]"),
    )
)


@registerGradient("ClipByValue")
def _clipGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: the gradient goes to ``t`` where it was not clipped, to the bound where it
    was, summed back to each bound's shape."""
    x, low, high = op.x(0), op.x(1), op.x(2)
    zeros = tf.zerosLike(g)
    below = tf.math.less(x, low)
    above = tf.math.greater(x, high)
    xShape, lowShape, highShape = tf.shape(x), tf.shape(low), tf.shape(high)
    lowAxes = tf.broadcastGradientArgs(xShape, lowShape).r1()
    highAxes = tf.broadcastGradientArgs(xShape, highShape).r1()
    xGrad = tf.select(tf.math.logicalOr(below, above), zeros, g)
    lowGrad = tf.reshape(tf.sum(tf.select(below, g, zeros), lowAxes), lowShape)
    highGrad = tf.reshape(tf.sum(tf.select(above, g, zeros), highAxes), highShape)
    return [xGrad, lowGrad, highGrad]


# -- Where ---------------------------------------------------------------------------------
def _whereShape(ctx: InferContext) -> Sequence[Shape]:
    rank = ctx.shapes[0].numDimensions()
    if rank == 0:
        raise ctx.error("input must have at least one dimension, got a scalar")
    return [Shape.of(-1, rank) if rank > 0 else Shape.of(-1, -1)]


registerOp(
    OpDef(
        type="Where",
        group="core",
        summary="Returns the coordinates of the true (nonzero) elements of a tensor.",
        description=(
            "The result is an int64 matrix with a row per true element of ``input`` (for a\n"
            "number, nonzero: NaN counts, -0.0 does not) and a column per dimension, the rows\n"
            "in row-major order of the elements. Its number of rows depends on the values, so\n"
            "on the XLA backend ``input`` must be known when the request is compiled: computed\n"
            "from constants and fed values (XLA compiles it in, once per distinct value), not\n"
            "from variables or random ops.\n"
            "TensorFlow accepts a scalar when the graph is built and fails when it runs; here a\n"
            "scalar of known shape is rejected when the op is created. Not differentiable."
        ),
        inputs=(InputDef("input", "the tensor whose true elements are wanted, at least a "
                         "vector", typeAttr="T"),),
        outputs=(OutputDef("index", "the coordinates of the true elements, of shape "
                           "``[count, rank]``", dtype=TInt64),),
        attrs=(AttrDef("T", "type", allowed=ANY, default=TBool),),
        infer=_whereShape,
        example=example("tf.where(tf.constant([[True, False], [False, True]]))",
                        "[[0, 0], [1, 1]]"),
    )
)
notDifferentiable("Where")


# -- ListDiff ------------------------------------------------------------------------------
def _listDiffShape(ctx: InferContext) -> Sequence[Shape]:
    vectorLength(ctx, 0, "x")
    vectorLength(ctx, 1, "y")
    return [Shape.of(-1), Shape.of(-1)]


registerOp(
    OpDef(
        type="ListDiff",
        group="core",
        className="SetDiff1d",
        facadeName="setDiff1d",
        defaultName="SetDiff1d",
        summary="Computes the difference between two lists of numbers.",
        description=(
            "``out`` holds the elements of the vector ``x`` that are not in the vector ``y``,\n"
            "in their order in ``x`` (repeats kept), and ``idx`` their positions in ``x``, so\n"
            "that ``out[i] == x[idx[i]]``. Equality is numbers' (``-0.0`` equals ``0.0``, NaN\n"
            "equals nothing). The result's length depends on the values, so on the XLA backend\n"
            "``x`` and ``y`` must be known when the request is compiled: computed from\n"
            "constants and fed values (XLA compiles them in, once per distinct value), not from\n"
            "variables or random ops. Bool is not allowed (TensorFlow has no kernel for it).\n"
            "Not differentiable."
        ),
        inputs=(
            InputDef("x", "the values to keep, a vector", typeAttr="T"),
            InputDef("y", "the values to remove, a vector", typeAttr="T"),
        ),
        outputs=(
            OutputDef("out", "the values of ``x`` not in ``y``", typeAttr="T"),
            OutputDef("idx", "their positions in ``x``", typeAttr="out_idx"),
        ),
        attrs=(
            AttrDef("T", "type", allowed=NUMBERS),
            AttrDef("out_idx", "type", "the data type of ``idx``", allowed=INDEX_TYPES,
                    default=TInt32, option="outIdx"),
        ),
        infer=_listDiffShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> d = tf.setDiff1d(tf.constant([1, 2, 3, 4, 2, 6]), tf.constant([2, 5, 1]))\n"
            ">>> [v.tolist() for v in Session(g).runner().fetch(d.out()).fetch(d.idx()).run()]\n"
            "[[3, 4, 6], [2, 3, 5]]"
        ),
    )
)
notDifferentiable("ListDiff")
