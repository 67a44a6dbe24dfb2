"""Ops that pick or scatter rows by index: Gather (TensorFlow's GatherV2, ``tfops.op.core``) and
UnsortedSegmentSum (``tfops.op.math``), each the other's gradient."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tfops.errors import InvalidArgumentError
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
def batchDimsOf(batchDims: int, indicesRank: int) -> int | None:
    """``batch_dims`` in ``[0, rank(indices)]`` (a negative one counts from the end), or
    ``None`` when it is outside ``[-rank(indices), rank(indices)]``."""
    if not -indicesRank <= batchDims <= indicesRank:
        return None
    return batchDims + indicesRank if batchDims < 0 else batchDims


def batchProblem(axis: int, batchDims: int, params: Sequence[int],
                 indices: Sequence[int]) -> str | None:
    """Why a gather with ``batch_dims`` (normalized) along ``axis`` (normalized) cannot take
    ``params`` and ``indices`` of these dims (-1 unknown), or ``None``."""
    if batchDims >= len(params):
        return (f"batch_dims {batchDims} must be less than the rank of params "
                f"{len(params)}")
    if batchDims > axis:
        return f"batch_dims ({batchDims}) must be less than or equal to axis ({axis})"
    for i in range(batchDims):
        if params[i] >= 0 and indices[i] >= 0 and params[i] != indices[i]:
            return (f"params.shape[{i}]: {params[i]} should be equal to indices.shape[{i}]: "
                    f"{indices[i]} (a batch dimension)")
    return None


def batchedGather(take: Any, params: Any, indices: Any, axis: int, batchDims: int) -> Any:
    """``params`` gathered along ``axis`` by ``indices`` whose first ``batchDims`` dimensions
    are params' too: with params viewed as ``[b, m, n, i]`` (b the batch elements, n the
    gathered dimension) and indices as ``[b, j]``, the result is ``[b, m, j, i]`` picked by
    ``take(params, (batch, middle, index))``, one vectorized advanced index."""
    shape, ishape = tuple(params.shape), tuple(indices.shape)
    batch, middle, inner = shape[:batchDims], shape[batchDims:axis], shape[axis + 1:]
    b, m = int(np.prod(batch, dtype=np.int64)), int(np.prod(middle, dtype=np.int64))
    j = int(np.prod(ishape[batchDims:], dtype=np.int64))
    viewed = params.reshape((b, m, shape[axis], int(np.prod(inner, dtype=np.int64))))
    picks = indices.reshape((b, 1, j))
    taken = take(viewed, (np.arange(b).reshape(b, 1, 1), np.arange(m).reshape(1, m, 1), picks))
    return taken.reshape((*batch, *middle, *ishape[batchDims:], *inner))


def gatherBatchDims(given: int, params: tuple[int, ...], indices: tuple[int, ...],
                    axis: int) -> int:
    """``batch_dims`` normalized, checked against the run-time shapes as TensorFlow's kernel
    does (raises ``InvalidArgumentError``)."""
    batchDims = batchDimsOf(given, len(indices))
    if batchDims is None:
        raise InvalidArgumentError(None, f"batch_dims {given} is out of range "
                                   f"[{-len(indices)}, {len(indices)}] for indices of shape "
                                   f"{list(indices)}")
    problem = batchProblem(axis, batchDims, params, indices)
    if problem is not None:
        raise InvalidArgumentError(None, problem)
    return batchDims


def _gatherShape(ctx: InferContext) -> Sequence[Shape]:
    axis = scalarConstant(ctx, 2, "axis")
    params, indices = ctx.shapes[0].asArray(), ctx.shapes[1].asArray()
    if params is not None and not params:
        raise ctx.error("params must have at least one dimension, got a scalar")
    if params is None or indices is None:
        return [Shape.unknown()]
    given = int(ctx.attrs["batch_dims"])
    batchDims = batchDimsOf(given, len(indices))
    if batchDims is None:
        raise ctx.error(f"batch_dims {given} is out of range [{-len(indices)}, {len(indices)}] "
                        f"for indices of shape {ctx.shapes[1]}")
    rank = len(params)
    if axis is None:
        return [unknownDims(rank + len(indices) - 1 - batchDims)]
    if not -rank <= axis < rank:
        raise ctx.error(f"axis {axis} is out of range [{-rank}, {rank}) for params of shape "
                        f"{ctx.shapes[0]}")
    axis %= rank
    problem = batchProblem(axis, batchDims, params, indices)
    if problem is not None:
        raise ctx.error(problem)
    batch = [p if p >= 0 else i for p, i in zip(params[:batchDims], indices, strict=False)]
    return [Shape.of(*batch, *params[batchDims:axis], *indices[batchDims:],
                     *params[axis + 1:])]


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
            "outside raises ``InvalidArgumentError`` when the op runs. With ``batchDims`` b\n"
            "(negative: counted from the end of ``indices``' dimensions), the first b\n"
            "dimensions of ``params`` and ``indices`` are batch dimensions, equal in both: each\n"
            "batch element gathers from its own slice of ``params`` with its own indices, so\n"
            "the shape is ``params.shape[:axis] + indices.shape[b:] + params.shape[axis + 1:]``\n"
            "and ``axis`` must be at least b. The gradient sums the incoming slices back into\n"
            "the rows they came from (a dense ``UnsortedSegmentSum``), per batch element."
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
            AttrDef("batch_dims", "int", "the number of leading batch dimensions, shared by "
                    "``params`` and ``indices``",
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
    if int(op.attr("batch_dims")) != 0:
        return _batchGatherGrad(tf, op, g, int(op.attr("batch_dims")))
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


def _batchGatherGrad(tf: Ops, op: GradOp, g: Output[TFloating], batchDims: int) -> Grads:
    """TensorFlow's with batch dimensions: params' shape is ``B + M + [n] + I`` (B the batch
    dimensions); the gradient, of shape ``B + M + J + I``, is laid out as ``B + [k] + M + I``
    (the k = size(J) gathered slices of each batch element together), each index is offset
    by n times its batch element's position, the slices are summed into the ``size(B) * n``
    rows of ``B + [n] + M + I``, and the axis is moved back."""
    indices, axis = op.ints(1), op.ints(2)
    index = indices.dataType()

    def vector(*values: int) -> np.ndarray[Any, Any]:
        return np.array(values, index.DTYPE)

    shape = tf.shape(op.input(0), outType=index)
    rank = tf.reshape(tf.shape(shape, outType=index), vector()[:0].reshape(0))
    b: Operand[TIntegral] | np.ndarray[Any, Any] = vector(batchDims)
    if batchDims < 0:  # counted from the end of indices' dimensions
        indicesRank = tf.dtypes.cast(tf.rank(indices), index)
        b = tf.math.add(tf.reshape(indicesRank, vector(1)), vector(batchDims))
    at = tf.reshape(tf.math.floorMod(tf.dtypes.cast(axis, index), rank), vector(1))
    after = tf.math.add(at, vector(1))
    between = tf.math.sub(at, b)
    outer, middle = tf.slice(shape, vector(0), b), tf.slice(shape, b, between)
    rows, inner = tf.slice(shape, at, vector(1)), tf.slice(shape, after, vector(-1))
    values = tf.reshape(g, tf.concat([outer, middle, vector(-1), inner], 0))
    dims = tf.range(vector(0)[0], rank, vector(1)[0])
    perm = tf.concat([tf.slice(dims, vector(0), b), at, tf.slice(dims, b, between),
                      tf.slice(dims, after, vector(-1))], 0)
    slices = tf.reshape(tf.linalg.transpose(values, perm),
                        tf.concat([vector(-1), middle, inner], 0))
    batch = tf.prod(outer, vector(0)[0])
    n = tf.reshape(rows, vector()[:0].reshape(0))
    starts = tf.math.mul(tf.range(vector(0)[0], batch, vector(1)[0]), n)
    ones = tf.onesLike(tf.slice(tf.shape(indices, outType=index), b, vector(-1)))
    offsets = tf.reshape(starts, tf.concat([outer, ones], 0))
    flat = tf.reshape(tf.math.add(indices, offsets), vector(-1))
    summed = tf.math.unsortedSegmentSum(slices, flat, tf.math.mul(batch, n))
    grad = tf.reshape(summed, tf.concat([outer, rows, middle, inner], 0))
    back = tf.linalg.transpose(grad, tf.math.invertPermutation(perm))
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
