"""Ops that pick or scatter rows by index: Gather (TensorFlow's GatherV2, ``tfops.op.core``) and
UnsortedSegmentSum (``tfops.op.math``), each the other's gradient."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Operand, Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, registerGradient
from tfops.spec.indexing import example, scalarConstant, unknownDims
from tfops.spec.rules import ANY, INDEX_TYPES, NUMBERS
from tfops.types import TFloating, TInt32, TIntegral

if TYPE_CHECKING:
    from tfops.ops import Ops


# -- Gather --------------------------------------------------------------------------------
def _gatherShape(ctx: InferContext) -> Sequence[Shape]:
    if ctx.attrs["batch_dims"] != 0:
        raise ctx.error(f"batch_dims {ctx.attrs['batch_dims']} is not supported (only 0)")
    axis = scalarConstant(ctx, 2, "axis")
    params, indices = ctx.shapes[0].asArray(), ctx.shapes[1].asArray()
    if params is not None and not params:
        raise ctx.error("params must have at least one dimension, got a scalar")
    if params is None or indices is None:
        return [Shape.unknown()]
    rank = len(params)
    if axis is None:
        return [unknownDims(rank + len(indices) - 1)]
    if not -rank <= axis < rank:
        raise ctx.error(f"axis {axis} is out of range [{-rank}, {rank}) for params of shape "
                        f"{ctx.shapes[0]}")
    axis %= rank
    return [Shape.of(*params[:axis], *indices, *params[axis + 1:])]


registerOp(
    OpDef(
        type="GatherV2",
        group="core",
        className="Gather",
        facadeName="gather",
        defaultName="Gather",
        summary="Gather slices from ``params`` axis ``axis`` according to ``indices``.",
        description=(
            "The result takes, for each entry of ``indices``, the slice of ``params`` at that\n"
            "position along ``axis``: its shape is ``params.shape[:axis] + indices.shape +\n"
            "params.shape[axis + 1:]``. Indices must be in ``[0, params.shape[axis])``; one\n"
            "outside raises ``InvalidArgumentError`` when the op runs. Only ``batchDims`` 0 is\n"
            "supported. The gradient sums the incoming slices back into the rows they came\n"
            "from (a dense ``UnsortedSegmentSum``)."
        ),
        inputs=(
            InputDef("params", "the tensor to gather from, at least a vector",
                     typeAttr="Tparams"),
            InputDef("indices", "the positions to gather, of any shape", typeAttr="Tindices"),
            InputDef("axis", "the dimension of ``params`` to gather along, a scalar",
                     typeAttr="Taxis"),
        ),
        outputs=(OutputDef("output", "the gathered slices", typeAttr="Tparams"),),
        attrs=(
            AttrDef("batch_dims", "int", "the number of leading batch dimensions (only 0)",
                    default=0, option="batchDims"),
            AttrDef("Tparams", "type", allowed=ANY),
            AttrDef("Tindices", "type", allowed=INDEX_TYPES),
            AttrDef("Taxis", "type", allowed=INDEX_TYPES, default=TInt32),
        ),
        infer=_gatherShape,
        example=example("tf.gather(tf.constant([[1, 2], [3, 4], [5, 6]]), [2, 0], 0)",
                        "[[5, 6], [1, 2]]"),
    )
)


@registerGradient("GatherV2")
def _gatherGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: the gradient, with the indices flattened and the axis moved to the front,
    summed by index into the rows of ``params``, and the axis moved back."""
    indices, axis = op.ints(1), op.ints(2)
    index = axis.dataType()
    scalar = np.array([], np.int32)
    shape = tf.shape(op.input(0), outType=index)
    rank = tf.reshape(tf.shape(shape, outType=index), scalar)
    at = tf.reshape(tf.math.floorMod(axis, rank), [1])
    after = tf.math.add(at, 1)
    count = tf.reshape(tf.size(indices, outType=index), [1])
    parts: list[Operand[TIntegral]] = [tf.slice(shape, [0], at), count,
                                       tf.slice(shape, after, [-1])]
    values = tf.reshape(g, tf.concat(parts, 0))
    dims = tf.range(0, rank, 1)
    toFront = tf.concat([at, tf.slice(dims, [0], at), tf.slice(dims, after, [-1])], 0)
    rows = tf.reshape(tf.slice(shape, at, [1]), scalar)
    summed = tf.math.unsortedSegmentSum(tf.linalg.transpose(values, toFront),
                                        tf.reshape(indices, count), rows)
    back = tf.linalg.transpose(summed, tf.math.invertPermutation(toFront))
    # the reshape to params' shape is a no-op that gives the result params' static shape
    return [tf.reshape(back, shape), None, None]


# -- UnsortedSegmentSum --------------------------------------------------------------------
def _segmentSumShape(ctx: InferContext) -> Sequence[Shape]:
    count = scalarConstant(ctx, 2, "num_segments")
    if count is not None and count < 0:
        raise ctx.error(f"num_segments must not be negative, got {count}")
    data, ids = ctx.shapes[0].asArray(), ctx.shapes[1].asArray()
    if data is None or ids is None:
        return [Shape.unknown()]
    if len(ids) > len(data) or not Shape.of(*data[:len(ids)]).isCompatibleWith(ctx.shapes[1]):
        raise ctx.error(f"the shape of segment_ids {ctx.shapes[1]} must begin the shape of "
                        f"data {ctx.shapes[0]}")
    return [Shape.of(-1 if count is None else count, *data[len(ids):])]


registerOp(
    OpDef(
        type="UnsortedSegmentSum",
        group="math",
        summary="Computes the sum along segments of a tensor.",
        description=(
            "``segment_ids`` gives each slice of ``data`` (along its leading dimensions, as\n"
            "many as ``segment_ids`` has) the segment it belongs to; the result's row ``k`` is\n"
            "the sum of the slices of segment ``k``, zero for a segment with none. The ids\n"
            "need not be sorted; a negative id drops its slice, an id of ``num_segments`` or\n"
            "more raises ``InvalidArgumentError``. The result has shape ``[num_segments] +\n"
            "data.shape[rank(segment_ids):]``."
        ),
        inputs=(
            InputDef("data", "the slices to sum", typeAttr="T"),
            InputDef("segment_ids", "the segment of each slice, a prefix of ``data``'s shape",
                     typeAttr="Tindices"),
            InputDef("num_segments", "the number of segments, a scalar",
                     typeAttr="Tnumsegments"),
        ),
        outputs=(OutputDef("output", "the sum of each segment", typeAttr="T"),),
        attrs=(
            AttrDef("T", "type", allowed=NUMBERS),
            AttrDef("Tindices", "type", allowed=INDEX_TYPES),
            AttrDef("Tnumsegments", "type", allowed=INDEX_TYPES, default=TInt32),
        ),
        infer=_segmentSumShape,
        example=example("tf.math.unsortedSegmentSum(tf.constant([1, 2, 3, 4]), "
                        "tf.constant([0, 2, 0, -1]), 3)", "[4, 0, 2]"),
    )
)


@registerGradient("UnsortedSegmentSum")
def _segmentSumGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """The gradient's row of each slice's segment, zeros for dropped (negative) ids."""
    ids = op.ints(1)
    gathered = tf.gather(g, tf.math.maximum(ids, tf.zerosLike(ids)), 0)
    kept = tf.math.greaterEqual(ids, tf.zerosLike(ids))
    # the mask gets a dimension of 1 for each dimension of a slice, to broadcast over it
    gShape = tf.shape(g)
    idsShape = tf.shape(ids)
    sliceDims = tf.slice(gShape, [1], [-1])
    maskShape = tf.concat([idsShape, tf.onesLike(sliceDims)], 0)
    mask = tf.reshape(kept, maskShape)
    zeros = tf.zerosLike(gathered)
    return [tf.select(mask, gathered, zeros), None, None]
