"""Segment reductions and cumulative products (``tfops.op.math``).

The sorted segment reductions (SegmentSum, SegmentMean, SegmentMax, SegmentMin, SegmentProd)
reduce the rows of ``data`` whose ``segment_ids`` (a sorted vector) are equal; the unsorted ones
(UnsortedSegmentMax, UnsortedSegmentMin, UnsortedSegmentProd; UnsortedSegmentSum is in
``indexing_gather``) take ids of any order and a given number of segments. Cumprod is the
cumulative product along an axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, registerGradient
from tfops.spec.indexing import example, scalarConstant
from tfops.spec.rules import INDEX_TYPES, NUMBERS
from tfops.types import TBool, TFloating, TInt32, TIntegral

if TYPE_CHECKING:
    from tfops.ops import Ops

_NAN_NOTE = (
    "A segment holding NaN gives NaN (TensorFlow's CPU kernels keep or drop a NaN depending on\n"
    "its position in the segment and the data's layout)."
)
_UNSORTED_NAN_NOTE = (
    "NaN is handled as TensorFlow's CPU kernel folds the values in order: a NaN is replaced by\n"
    "the next value of its segment, so the result is the extreme of the values after the\n"
    "segment's last NaN, and NaN when that NaN is the segment's last value."
)


# -- SegmentSum, SegmentMean, SegmentMax, SegmentMin, SegmentProd ---------------------------
def _sortedShape(ctx: InferContext) -> Sequence[Shape]:
    data, ids = ctx.shapes[0], ctx.shapes[1]
    if ids.numDimensions() not in (-1, 1):
        raise ctx.error(f"segment_ids must be a vector, got a tensor of shape {ids}")
    if data.numDimensions() == 0:
        raise ctx.error("data must have at least one dimension, got a scalar")
    dims = data.asArray()
    if dims is None:
        return [Shape.unknown()]
    if ids.numDimensions() == 1 and not Shape.of(dims[0]).isCompatibleWith(Shape.of(ids.size(0))):
        raise ctx.error(f"segment_ids of shape {ids} must have one id per row of data, whose "
                        f"shape is {data}")
    # as TensorFlow's: the number of segments is known only when the ids are
    return [Shape.of(-1, *dims[1:])]


def _sortedOp(opType: str, what: str, empty: str, extra: str, call: str, result: str) -> None:
    registerOp(
        OpDef(
            type=opType,
            group="math",
            summary=f"Computes the {what} along segments of a tensor.",
            description=(
                "``segment_ids`` gives each row of ``data`` (a slice along its first dimension)\n"
                f"the segment it belongs to; row ``k`` of the result is the {what} of the rows\n"
                f"of segment ``k``, {empty} for a segment with none. The ids must be sorted and\n"
                "not negative: the result has ``segment_ids[-1] + 1`` rows, and an id smaller\n"
                "than the one before it, or a negative one, raises ``InvalidArgumentError`` when\n"
                "the op runs. The XLA backend needs the ids when it compiles (they give the\n"
                f"number of rows).{extra}"
            ),
            inputs=(
                InputDef("data", "the rows to reduce, at least a vector", typeAttr="T"),
                InputDef("segment_ids", "the segment of each row of ``data``, a sorted vector",
                         typeAttr="Tindices"),
            ),
            outputs=(OutputDef("output", f"the {what} of each segment", typeAttr="T"),),
            attrs=(
                AttrDef("T", "type", allowed=NUMBERS),
                AttrDef("Tindices", "type", allowed=INDEX_TYPES),
            ),
            infer=_sortedShape,
            example=example(call, result),
        )
    )


_sortedOp("SegmentSum", "sum", "zero", "",
          "tf.math.segmentSum(tf.constant([1, 2, 3, 4]), tf.constant([0, 0, 2, 2]))",
          "[3, 0, 7]")
_sortedOp("SegmentMean", "mean", "zero",
          " Integer means\nround toward zero, as TensorFlow's.",
          "tf.math.segmentMean(tf.constant([1.0, 2.0, 6.0]), tf.constant([0, 0, 1]))",
          "[1.5, 6.0]")
_sortedOp("SegmentMax", "maximum", "zero", "\n" + _NAN_NOTE,
          "tf.math.segmentMax(tf.constant([1, 5, 3]), tf.constant([0, 0, 2]))", "[5, 0, 3]")
_sortedOp("SegmentMin", "minimum", "zero", "\n" + _NAN_NOTE,
          "tf.math.segmentMin(tf.constant([1, 5, 3]), tf.constant([0, 0, 2]))", "[1, 0, 3]")
_sortedOp("SegmentProd", "product", "one", " Integer products wrap around on overflow.",
          "tf.math.segmentProd(tf.constant([2, 5, 3]), tf.constant([0, 0, 2]))", "[10, 1, 3]")


@registerGradient("SegmentSum")
def _segmentSumGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.gather(g, op.ints(1), 0), None]


def _perRow(tf: Ops, counts: Output[TFloating], like: Output[TFloating]) -> Output[TFloating]:
    """``counts`` (one per segment) reshaped to broadcast over the rows of ``like``."""
    rest = tf.slice(tf.shape(like), [1], [-1])
    return tf.reshape(counts, tf.concat([tf.constant([-1]), tf.onesLike(rest)], 0)).asOutput()


@registerGradient("SegmentMean")
def _segmentMeanGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: the gradient divided by the size of its segment, gathered to each row."""
    ids = op.ints(1)
    counts = tf.math.segmentSum(tf.onesLike(tf.dtypes.cast(ids, g.dataType())), ids).asOutput()
    return [tf.gather(tf.math.div(g, _perRow(tf, counts, g)), ids, 0), None]


def _segmentExtremeGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: the gradient of a segment shared evenly by the rows that hold its
    extreme value."""
    x, ids = op.x(0), op.ints(1)
    selected = tf.math.equal(x, tf.gather(op.y(0), ids, 0))
    count = tf.math.segmentSum(tf.dtypes.cast(selected, g.dataType()), ids)
    shares = tf.gather(tf.math.div(g, count), ids, 0)
    return [tf.select(selected, shares, tf.zerosLike(x)), None]


registerGradient("SegmentMax")(_segmentExtremeGrad)
registerGradient("SegmentMin")(_segmentExtremeGrad)


@registerGradient("SegmentProd")
def _segmentProdGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: the product of the segment's other rows, found without dividing by zero
    (a segment with two zeros or more passes no gradient)."""
    x, ids = op.x(0), op.ints(1)
    isZero = tf.math.equal(x, tf.zerosLike(x))
    zeros = tf.math.segmentSum(tf.dtypes.cast(isZero, TInt32), ids)
    g = tf.select(tf.math.greater(zeros, 1), tf.zerosLike(g), g).asOutput()
    nonZero = tf.select(isZero, tf.onesLike(x), x)
    nonZeroProd = tf.math.segmentProd(nonZero, ids)
    others = tf.select(isZero, tf.gather(nonZeroProd, ids, 0),
                       tf.math.div(tf.gather(op.y(0), ids, 0), nonZero))
    return [tf.math.mul(tf.gather(g, ids, 0), others), None]


# -- UnsortedSegmentMax, UnsortedSegmentMin, UnsortedSegmentProd ----------------------------
def _unsortedShape(ctx: InferContext) -> Sequence[Shape]:
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


def _unsortedOp(opType: str, what: str, empty: str, extra: str, call: str, result: str) -> None:
    registerOp(
        OpDef(
            type=opType,
            group="math",
            summary=f"Computes the {what} along segments of a tensor.",
            description=(
                "``segment_ids`` gives each slice of ``data`` (along its leading dimensions, as\n"
                "many as ``segment_ids`` has) the segment it belongs to; the result's row ``k``\n"
                f"is the {what} of the slices of segment ``k``, {empty} for a segment with\n"
                "none. The ids need not be sorted; a negative id drops its slice, an id of\n"
                "``num_segments`` or more raises ``InvalidArgumentError``. The result has shape\n"
                f"``[num_segments] + data.shape[rank(segment_ids):]``.{extra}"
            ),
            inputs=(
                InputDef("data", "the slices to reduce", typeAttr="T"),
                InputDef("segment_ids", "the segment of each slice, a prefix of ``data``'s "
                         "shape", typeAttr="Tindices"),
                InputDef("num_segments", "the number of segments, a scalar",
                         typeAttr="Tnumsegments"),
            ),
            outputs=(OutputDef("output", f"the {what} of each segment", typeAttr="T"),),
            attrs=(
                AttrDef("T", "type", allowed=NUMBERS),
                AttrDef("Tindices", "type", allowed=INDEX_TYPES),
                AttrDef("Tnumsegments", "type", allowed=INDEX_TYPES, default=TInt32),
            ),
            infer=_unsortedShape,
            example=example(call, result),
        )
    )


_unsortedOp(
    "UnsortedSegmentMax", "maximum",
    "the lowest value of the data type (``-3.4028235e38`` for ``float32``, not ``-inf``)",
    "\n" + _UNSORTED_NAN_NOTE,
    "tf.math.unsortedSegmentMax(tf.constant([1, 5, 3, 7]), [2, 0, 2, -1], 3)",
    "[5, -2147483648, 3]",
)
_unsortedOp(
    "UnsortedSegmentMin", "minimum",
    "the highest value of the data type (``3.4028235e38`` for ``float32``, not ``inf``)",
    "\n" + _UNSORTED_NAN_NOTE,
    "tf.math.unsortedSegmentMin(tf.constant([1, 5, 3, 7]), [2, 0, 2, -1], 3)",
    "[5, 2147483647, 1]",
)
_unsortedOp(
    "UnsortedSegmentProd", "product", "one", " Integer products wrap around on overflow.",
    "tf.math.unsortedSegmentProd(tf.constant([2, 5, 3, 7]), [2, 0, 2, -1], 3)",
    "[5, 1, 6]",
)


def _gatherKept(tf: Ops, params: Output[TFloating], clipped: Output[TIntegral],
                kept: Output[TBool]) -> Output[TFloating]:
    """Row ``clipped[i]`` of ``params`` for each kept (non-negative) id, zeros for the others."""
    gathered = tf.gather(params, clipped, 0)
    return tf.select(kept, gathered, tf.zerosLike(gathered)).asOutput()


def _keptIds(tf: Ops, ids: Output[TIntegral], like: Output[TFloating]
             ) -> tuple[Output[TIntegral], Output[TBool]]:
    """The ids with negatives clipped to 0, and whether each id is kept, shaped to broadcast
    over the slices of ``like`` (the data)."""
    clipped = tf.math.maximum(ids, tf.zerosLike(ids)).asOutput()
    kept = tf.math.greaterEqual(ids, tf.zerosLike(ids))
    rest = tf.slice(tf.shape(like), tf.reshape(tf.rank(ids), [1]), [-1])
    shape = tf.concat([tf.shape(ids), tf.onesLike(rest)], 0)
    return clipped, tf.reshape(kept, shape).asOutput()


def _unsortedExtremeGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: the gradient of a segment shared evenly by the slices that hold its
    extreme value; dropped slices get none."""
    x, ids = op.x(0), op.ints(1)
    clipped, kept = _keptIds(tf, ids, x)
    selected = tf.math.logicalAnd(tf.math.equal(x, _gatherKept(tf, op.y(0), clipped, kept)),
                                  kept)
    count = tf.math.unsortedSegmentSum(tf.dtypes.cast(selected, g.dataType()), ids,
                                       op.ints(2))
    shares = _gatherKept(tf, tf.math.div(g, count).asOutput(), clipped, kept)
    return [tf.select(selected, shares, tf.zerosLike(shares)), None, None]


registerGradient("UnsortedSegmentMax")(_unsortedExtremeGrad)
registerGradient("UnsortedSegmentMin")(_unsortedExtremeGrad)


@registerGradient("UnsortedSegmentProd")
def _unsortedSegmentProdGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: as SegmentProd's, dropped slices getting none."""
    x, ids, count = op.x(0), op.ints(1), op.ints(2)
    isZero = tf.math.equal(x, tf.zerosLike(x))
    zeros = tf.math.unsortedSegmentSum(tf.dtypes.cast(isZero, TInt32), ids, count)
    g = tf.select(tf.math.greater(zeros, 1), tf.zerosLike(g), g).asOutput()
    nonZero = tf.select(isZero, tf.onesLike(x), x)
    nonZeroProd = tf.math.unsortedSegmentProd(nonZero, ids, count)
    clipped, kept = _keptIds(tf, ids, x)
    others = tf.select(isZero, tf.gather(nonZeroProd, clipped, 0),
                       tf.math.div(tf.gather(op.y(0), clipped, 0), x))
    return [tf.math.mul(_gatherKept(tf, g, clipped, kept), others), None, None]



# -- Cumprod ---------------------------------------------------------------------------------
def _cumprodShape(ctx: InferContext) -> Sequence[Shape]:
    if ctx.shapes[1].numDimensions() > 0:
        raise ctx.error(f"axis must be a scalar, got a tensor of shape {ctx.shapes[1]}")
    value, rank = ctx.constants[1], ctx.shapes[0].numDimensions()
    if value is not None and rank >= 0 and not -rank <= int(value) < rank:
        raise ctx.error(f"axis {int(value)} is out of range for a tensor of rank {rank} (must "
                        "be in [-rank, rank))")
    return [ctx.shapes[0]]


registerOp(
    OpDef(
        type="Cumprod",
        group="math",
        summary="Compute the cumulative product of the tensor ``x`` along ``axis``.",
        description=(
            "By default the product is inclusive: element i of the result multiplies elements\n"
            "0 to i of ``x`` along ``axis``, so ``[a, b, c]`` gives ``[a, a * b, a * b * c]``.\n"
            "With ``exclusive``, element i itself is left out (``[1, a, a * b]``); with\n"
            "``reverse``, the products run from the end (``[a * b * c, b * c, c]``); both\n"
            "together give ``[b * c, c, 1]``. ``axis`` is a scalar in ``[-rank(x), rank(x))``.\n"
            "Integer products wrap around on overflow. The gradient is TensorFlow's: the\n"
            "cumulative sum, in the other direction, of the products times the incoming\n"
            "gradient, divided by ``x`` (``DivNoNan``): it is zero, not the true derivative,\n"
            "where an element of ``x`` is zero."
        ),
        inputs=(
            InputDef("x", "the tensor to multiply", typeAttr="T"),
            InputDef("axis", "the dimension to multiply along, a scalar in "
                     "``[-rank(x), rank(x))``", typeAttr="Tidx"),
        ),
        outputs=(OutputDef("out", "the cumulative products, of the shape and type of ``x``",
                           typeAttr="T"),),
        attrs=(
            AttrDef("exclusive", "bool", "if true, each product leaves out its own element",
                    default=False, option="exclusive"),
            AttrDef("reverse", "bool", "if true, multiply from the end of ``axis``",
                    default=False, option="reverse"),
            AttrDef("T", "type", allowed=NUMBERS),
            AttrDef("Tidx", "type", allowed=INDEX_TYPES, default=TInt32),
        ),
        infer=_cumprodShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> x = tf.constant([1, 2, 3])\n"
            ">>> both = tf.math.cumprod(x, 0, Cumprod.exclusive(True), Cumprod.reverse(True))\n"
            ">>> r = Session(g).runner().fetch(tf.math.cumprod(x, 0)).fetch(both).run()\n"
            ">>> r[0].tolist(), r[1].tolist()\n"
            "([1, 2, 6], [6, 3, 1])"
        ),
    )
)


@registerGradient("Cumprod")
def _cumprodGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: ``cumsum(cumprod(x) * g)`` in the other direction, over ``x``."""
    x, axis = op.x(0), op.ints(1)
    exclusive, reverse = bool(op.attr("exclusive")), bool(op.attr("reverse"))
    products = tf.math.cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    sums = tf.math.cumsum(tf.math.mul(products, g), axis, exclusive=exclusive,
                          reverse=not reverse)
    return [tf.math.divNoNan(sums, x), None]
