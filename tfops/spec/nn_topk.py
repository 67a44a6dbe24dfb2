"""Top-k ops (``tfops.op.nn``): TopKV2 (TF Java's ``TopK``, ``tf.nn.topK``), the k largest
entries of each row with their positions, and InTopKV2 (``InTopK``, ``tf.nn.inTopK``), whether
each target is among the k largest predictions of its row."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, notDifferentiable, registerGradient
from tfops.spec.indexing import scalarConstant
from tfops.spec.rules import INDEX_TYPES, NUMBERS
from tfops.types import TBool, TFloat32, TFloating, TInt32

if TYPE_CHECKING:
    from tfops.ops import Ops


# -- TopKV2 --------------------------------------------------------------------------------
def _topKShape(ctx: InferContext) -> Sequence[Shape]:
    k = scalarConstant(ctx, 1, "k")
    if k is not None and k < 0:
        raise ctx.error(f"k must be non-negative, got {k}")
    dims = ctx.shapes[0].asArray()
    if dims is None:
        return [Shape.unknown(), Shape.unknown()]
    if not dims:
        raise ctx.error("input must have at least one dimension, got a scalar")
    if k is not None and 0 <= dims[-1] < k:
        raise ctx.error(f"input must have a last dimension of at least k = {k}, got shape "
                        f"{ctx.shapes[0]}")
    shape = Shape.of(*dims[:-1], -1 if k is None else k)
    return [shape, shape]


registerOp(
    OpDef(
        type="TopKV2",
        group="nn",
        className="TopK",
        facadeName="topK",
        defaultName="TopK",
        summary="Finds values and indices of the `k` largest elements for the last dimension.",
        description=(
            "For each row (every index of all but the last dimension of ``input``),\n"
            "``values[..., j]`` is the j-th largest entry of the row and ``indices[..., j]``\n"
            "its position in the row, so ``values[..., j] == input[..., indices[..., j]]``.\n"
            "Equal entries come in the order of their positions, the lower index first\n"
            "(``0.0`` and ``-0.0`` are equal). ``k`` is a scalar in ``[0, input.shape[-1]]``;\n"
            "a constant ``k`` gives the result a static last dimension, a bad one raises\n"
            "``ValueError`` at construction and ``InvalidArgumentError`` at run time. The\n"
            "gradient of ``values`` flows back to the positions picked; ``indices`` and\n"
            "``k`` get none.\n"
            "\n"
            "Differences from TensorFlow: the result is always sorted, also with ``sorted``\n"
            "false (TensorFlow leaves the order unspecified then); a NaN is taken as larger\n"
            "than every number, so NaNs come first (TensorFlow's order of NaNs depends on its\n"
            "algorithm and on ``k``). On the XLA backend ``k`` must be known when the request\n"
            "is compiled."
        ),
        inputs=(
            InputDef("input", "a tensor of rank 1 or more", typeAttr="T"),
            InputDef("k", "a scalar: the number of top elements to find along the last "
                     "dimension", typeAttr="Tk"),
        ),
        outputs=(
            OutputDef("values", "the k largest elements of each row, largest first",
                      typeAttr="T"),
            OutputDef("indices", "the positions of ``values`` in the last dimension of "
                      "``input``", typeAttr="index_type"),
        ),
        attrs=(
            AttrDef("sorted", "bool", "whether the k elements are sorted in descending order "
                    "(they always are here)", default=True, option="sorted"),
            AttrDef("T", "type", allowed=NUMBERS),
            AttrDef("Tk", "type", allowed=INDEX_TYPES, default=TInt32),
            AttrDef("index_type", "type", "the data type of ``indices``", allowed=INDEX_TYPES,
                    default=TInt32, option="indexType"),
        ),
        infer=_topKShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> top = tf.nn.topK(tf.constant([[1.0, 5.0, 3.0, 5.0], [4.0, 0.0, 2.0, 8.0]]), 2)\n"
            ">>> values, indices = Session(g).runner().fetch(top.values())"
            ".fetch(top.indices()).run()\n"
            ">>> values.tolist(), indices.tolist()\n"
            "([[5.0, 5.0], [8.0, 4.0]], [[1, 3], [3, 0]])"
        ),
    )
)


@registerGradient("TopKV2")
def _topKGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: each row's indices offset by the row's start in the flattened input, and
    the gradient of ``values`` summed into those positions (TensorFlow scatters with ScatterNd;
    no position repeats, so the segment sum is the same), reshaped to the input's shape."""
    scalar = np.array([], np.int32)
    inShape = tf.shape(op.input(0))
    indices = tf.dtypes.cast(op.output(1), TInt32)
    columns = tf.reshape(tf.gather(inShape, tf.math.sub(tf.rank(op.input(0)), 1), 0), scalar)
    k = tf.reshape(tf.gather(tf.shape(indices), tf.math.sub(tf.rank(indices), 1), 0), scalar)
    rows2d = tf.reshape(indices, tf.stack([tf.constant(-1), k]))
    rows = tf.reshape(tf.slice(tf.shape(rows2d), [0], [1]), scalar)
    starts = tf.expandDims(tf.range(0, tf.math.mul(rows, columns), columns), -1)
    flat = tf.reshape(tf.math.add(rows2d, starts), [-1])
    total = tf.reshape(tf.prod(inShape, 0), scalar)
    summed = tf.math.unsortedSegmentSum(tf.reshape(g, [-1]), flat, total)
    return [tf.reshape(summed, inShape), None]


# -- InTopKV2 ------------------------------------------------------------------------------
def _inTopKShape(ctx: InferContext) -> Sequence[Shape]:
    predictions, targets, k = ctx.shapes
    if predictions.numDimensions() not in (-1, 2):
        raise ctx.error(f"predictions must be a matrix [batch_size, classes], got shape "
                        f"{predictions}")
    if targets.numDimensions() not in (-1, 1):
        raise ctx.error(f"targets must be a vector [batch_size], got shape {targets}")
    if k.numDimensions() not in (-1, 0):
        raise ctx.error(f"k must be a scalar, got a tensor of shape {k}")
    batch = predictions.size(0) if predictions.numDimensions() == 2 else -1
    length = targets.size(0) if targets.numDimensions() == 1 else -1
    if batch >= 0 and length >= 0 and batch != length:
        raise ctx.error(f"the first dimension of predictions {predictions} must match the "
                        f"length of targets {targets}")
    return [Shape.of(batch if batch >= 0 else length)]


registerOp(
    OpDef(
        type="InTopKV2",
        group="nn",
        className="InTopK",
        facadeName="inTopK",
        defaultName="InTopK",
        summary="Says whether the targets are in the top `k` predictions.",
        description=(
            "``precision[i]`` is true when ``predictions[i, targets[i]]`` is among the ``k``\n"
            "largest entries of row ``i``: when fewer than ``k`` entries of the row are\n"
            "strictly larger. Ties count in the target's favour, so with ``k`` 1 and a tie\n"
            "for the largest every tied class is in. A row with a NaN or an infinity\n"
            "anywhere, a target outside ``[0, classes)`` and a ``k`` of 0 or less give\n"
            "false (TensorFlow's rule: the kernel cannot say). Not differentiable."
        ),
        inputs=(
            InputDef("predictions", "a matrix [batch_size, classes] of scores",
                     dtype=TFloat32),
            InputDef("targets", "a vector [batch_size] of class indices", typeAttr="T"),
            InputDef("k", "a scalar: how many of the largest predictions count",
                     typeAttr="T"),
        ),
        outputs=(OutputDef("precision", "a vector [batch_size]: whether each target is in "
                           "the top k", dtype=TBool),),
        attrs=(AttrDef("T", "type", allowed=INDEX_TYPES, default=TInt32),),
        infer=_inTopKShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> p = tf.constant([[0.1, 0.7, 0.2], [0.5, 0.5, 0.0], [0.3, float('nan'), 0.1]])\n"
            ">>> hit = tf.nn.inTopK(p, tf.constant([2, 1, 0]), tf.constant(1))\n"
            ">>> Session(g).runner().fetch(hit).run()[0].tolist()\n"
            "[False, True, False]"
        ),
    )
)
notDifferentiable("InTopKV2")
