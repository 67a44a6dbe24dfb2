"""Ops that cut a part out of a tensor (``tfops.op.core``): Slice, StridedSlice and the
StridedSliceGrad op its gradient is made of.

A strided slice is the numpy basic index it stands for (``x[1:5:2, ..., tf.newaxis, 3]``), built
from TensorFlow's begin, end and strides vectors and its five bit masks: ``sliceIndex`` makes
that index, ``slicedDims`` the shape it selects, checking it as TensorFlow's kernel does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, registerGradient
from tfops.spec.indexing import constantValue, example, unknownDims, vectorLength
from tfops.spec.rules import ANY, INDEX_TYPES, shapeValue
from tfops.types import TFloating, TInt32

if TYPE_CHECKING:
    from tfops.ops import Ops


# -- Slice ---------------------------------------------------------------------------------
def _sliceShape(ctx: InferContext) -> Sequence[Shape]:
    dims = ctx.shapes[0].asArray()
    lengths = (vectorLength(ctx, 1, "begin"), vectorLength(ctx, 2, "size"))
    if -1 not in lengths and lengths[0] != lengths[1]:
        raise ctx.error(f"begin and size must have the same length, got {lengths[0]} and "
                        f"{lengths[1]}")
    length = max(lengths)
    if dims is not None and length >= 0 and length != len(dims):
        raise ctx.error(f"begin and size have {length} entries for a tensor of rank {len(dims)}")
    rank = len(dims) if dims is not None else length
    begin, size = ctx.constants[1], ctx.constants[2]
    if size is None:  # the output of a Shape op tells the sizes it will hold
        known = shapeValue(ctx, 2)
        return [known if not known.isUnknown() else unknownDims(rank)]
    if rank < 0:
        rank = size.size
    result = []
    for i in range(rank):
        b = int(begin[i]) if begin is not None else -1
        s, d = int(size[i]), dims[i] if dims is not None else -1
        if s < -1:
            raise ctx.error(f"size[{i}] = {s} must be -1 (to the end) or at least 0")
        if begin is not None and (b < 0 or d >= 0 and b > d):
            raise ctx.error(f"begin[{i}] = {b} is not in [0, {d}] for shape {ctx.shapes[0]}"
                            if d >= 0 else f"begin[{i}] = {b} must not be negative")
        if s >= 0 and b >= 0 and d >= 0 and b + s > d:
            raise ctx.error(f"begin[{i}] + size[{i}] = {b + s} is beyond dimension {i} of "
                            f"size {d} (shape {ctx.shapes[0]})")
        result.append(s if s >= 0 else d - b if b >= 0 and d >= 0 else -1)
    return [Shape.of(*result)]


registerOp(
    OpDef(
        type="Slice",
        group="core",
        summary="Return a slice from 'input'.",
        description=(
            "The result is the part of ``input`` that starts at offset ``begin`` and has\n"
            "``size`` elements in each dimension: ``0 <= begin[i] <= begin[i] + size[i] <=\n"
            "input.shape[i]``. A ``size[i]`` of -1 takes every element from ``begin[i]`` to the\n"
            "end of dimension ``i``."
        ),
        inputs=(
            InputDef("input", "the tensor to slice", typeAttr="T"),
            InputDef("begin", "the starting offset in each dimension", typeAttr="Index"),
            InputDef("size", "the number of elements in each dimension (-1: to the end)",
                     typeAttr="Index"),
        ),
        outputs=(OutputDef("output", "the slice, of shape ``size``", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=ANY),
               AttrDef("Index", "type", allowed=INDEX_TYPES, default=TInt32)),
        infer=_sliceShape,
        example=example("tf.slice(tf.constant([[1, 2, 3], [4, 5, 6]]), [0, 1], [2, -1])",
                        "[[2, 3], [5, 6]]"),
    )
)


@registerGradient("Slice")
def _sliceGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """Pads the gradient with zeros back to the input's shape."""
    x, y = op.x(0), op.y(0)
    begin = op.ints(1)
    beginValue = constantValue(begin)
    if beginValue is not None and x.shape().isFullyKnown() and y.shape().isFullyKnown():
        after = np.array(x.shape().asArray()) - beginValue - np.array(y.shape().asArray())
        paddings = np.stack([beginValue, after], axis=1).astype(beginValue.dtype)
        return [tf.pad(g, paddings), None, None]
    index = begin.dataType()
    rest = tf.math.sub(tf.math.sub(tf.shape(x, outType=index), begin),
                       tf.shape(y, outType=index))
    column = np.array([-1, 1], np.int32)
    columns = [tf.reshape(begin, column), tf.reshape(rest, column)]
    padding = tf.concat(columns, 1)
    return [tf.pad(g, padding), None, None]


# -- StridedSlice --------------------------------------------------------------------------
MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
_OPTIONS = ("beginMask", "endMask", "ellipsisMask", "newAxisMask", "shrinkAxisMask")
_MASK_DOCS = (
    "a bit ``i`` set ignores ``begin[i]``: the slice starts at the first element (the last\n"
    "for a negative stride)",
    "a bit ``i`` set ignores ``end[i]``: the slice goes to the end of the dimension",
    "a bit ``i`` set makes entry ``i`` an ellipsis, standing for as many whole dimensions as\n"
    "the other entries leave (at most one bit)",
    "a bit ``i`` set makes entry ``i`` a new dimension of size 1 (``tf.newaxis``)",
    "a bit ``i`` set makes entry ``i`` the single index ``begin[i]``, removing that\n"
    "dimension",
)
_MASK_ATTRS = tuple(AttrDef(name, "int", doc, default=0, option=option)
                    for name, option, doc in zip(MASKS, _OPTIONS, _MASK_DOCS, strict=True))


def sliceIndex(
    attrs: Mapping[str, Any], begin: Sequence[int], end: Sequence[int], strides: Sequence[int],
    fail: Callable[[str], Exception],
) -> tuple[Any, ...]:
    """The numpy index of a strided slice; raises ``fail(message)`` for an invalid spec."""
    masks = [attrs[m] for m in MASKS]
    beginMask, endMask, ellipsisMask, newAxisMask, shrinkMask = masks
    if ellipsisMask & (ellipsisMask - 1):
        raise fail(f"ellipsis_mask {ellipsisMask} has more than one bit set: a slice can "
                   "have one ellipsis")
    items: list[Any] = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides, strict=True)):
        bit = 1 << i
        if ellipsisMask & bit:
            items.append(Ellipsis)
        elif newAxisMask & bit:
            items.append(None)
        elif s == 0:
            raise fail(f"strides[{i}] must not be 0")
        elif shrinkMask & bit:
            if s < 0:
                raise fail(f"strides[{i}] = {s}: a single index (shrink_axis_mask) needs a "
                           "positive stride")
            items.append(int(b))
        else:
            items.append(slice(None if beginMask & bit else int(b),
                               None if endMask & bit else int(e), int(s)))
    return tuple(items)


def slicedDims(
    dims: Sequence[int], index: tuple[Any, ...], fail: Callable[[str], Exception],
    known: bool = True,
) -> list[int]:
    """The dimensions ``index`` selects from ``dims`` (-1: unknown; every slice when the spec's
    values are not ``known``); raises ``fail(message)`` for too many entries or a single index
    out of range."""
    consumed = sum(1 for item in index if item is not None and item is not Ellipsis)
    if consumed > len(dims):
        raise fail(f"the slice indexes {consumed} dimensions of a tensor of rank {len(dims)}")
    result: list[int] = []
    axis = 0
    for item in index:
        if item is Ellipsis:
            span = len(dims) - consumed
            result.extend(dims[axis:axis + span])
            axis += span
        elif item is None:
            result.append(1)
        else:
            d = dims[axis]
            if isinstance(item, slice):
                result.append(len(range(*item.indices(d))) if d >= 0 and known else -1)
            elif known and d >= 0 and not -d <= item < d:
                raise fail(f"index {item} is out of range for dimension {axis} of size {d}")
            axis += 1
    return result + list(dims[axis:])


def stridedShape(ctx: InferContext, shape: Shape, first: int) -> Shape:
    """The shape that the spec in inputs ``first .. first+2`` (begin, end, strides) selects
    from a tensor of ``shape``."""
    lengths = [vectorLength(ctx, first + k, name)
               for k, name in enumerate(("begin", "end", "strides"))]
    if len(set(lengths) - {-1}) > 1:
        raise ctx.error(f"begin, end and strides must have the same length, got {lengths}")
    dims, length = shape.asArray(), max(lengths)
    values = ctx.constants[first:first + 3]
    known = all(v is not None for v in values)
    if dims is None or length < 0:
        return Shape.unknown()
    begin, end, strides = [v.tolist() if v is not None else [0] * length for v in values]
    if not known:  # the values are placeholders that give the spec's structure
        strides = [1] * length
    index = sliceIndex(ctx.attrs, begin, end, strides, ctx.error)
    return Shape.of(*slicedDims(dims, index, ctx.error, known))


registerOp(
    OpDef(
        type="StridedSlice",
        group="core",
        summary="Return a strided slice from ``input``.",
        description=(
            "Entry ``i`` of ``begin``, ``end`` and ``strides`` says what to take from one\n"
            "dimension, as a Python slice ``begin[i]:end[i]:strides[i]`` (negative values count\n"
            "from the end, out-of-range bounds are clamped, a negative stride walks backwards).\n"
            "The masks change entries: ``beginMask``/``endMask`` leave a bound out (``:e``,\n"
            "``b:``), ``shrinkAxisMask`` takes the single index ``begin[i]`` (``x[3]``),\n"
            "``newAxisMask`` inserts a dimension of size 1 and ``ellipsisMask`` stands for the\n"
            "dimensions not otherwise named (``...``). Dimensions after the last entry are taken\n"
            "whole. So ``x[1:, ..., 0]`` is begin ``[1, 0, 0]``, end ``[0, 0, 1]``, strides\n"
            "``[1, 1, 1]`` with endMask 1, ellipsisMask 2 and shrinkAxisMask 4."
        ),
        inputs=(
            InputDef("input", "the tensor to slice", typeAttr="T"),
            InputDef("begin", "the first index of each entry", typeAttr="Index"),
            InputDef("end", "the index each entry stops before", typeAttr="Index"),
            InputDef("strides", "the step of each entry, non-zero", typeAttr="Index"),
        ),
        outputs=(OutputDef("output", "the selected elements", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=ANY),
               AttrDef("Index", "type", allowed=INDEX_TYPES, default=TInt32)) + _MASK_ATTRS,
        infer=lambda ctx: [stridedShape(ctx, ctx.shapes[0], 1)],
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> x = tf.constant([[1, 2, 3, 4], [5, 6, 7, 8]])\n"
            ">>> y = tf.stridedSlice(x, [0, 3], [0, 0], [1, -2], StridedSlice.beginMask(1),\n"
            "...                     StridedSlice.endMask(3))\n"
            ">>> Session(g).runner().fetch(y).run()[0].tolist()  # x[:, ::-2]\n"
            "[[4, 2], [8, 6]]"
        ),
    )
)


def _masks(op: GradOp) -> dict[str, int]:
    """The masks of ``op`` (a StridedSlice or StridedSliceGrad) as keyword options."""
    return {option: op.attr(name) for name, option in zip(MASKS, _OPTIONS, strict=True)}


@registerGradient("StridedSlice")
def _stridedSliceGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """The gradient put back where the slice came from, zeros elsewhere."""
    begin, end, strides = op.ints(1), op.ints(2), op.ints(3)
    shape = tf.shape(op.input(0), outType=begin.dataType())
    return [tf.stridedSliceGrad(shape, begin, end, strides, g, **_masks(op)), None, None, None]


def _stridedSliceGradShape(ctx: InferContext) -> Sequence[Shape]:
    shape = shapeValue(ctx, 0)
    sliced = stridedShape(ctx, shape, 1)
    if not sliced.isCompatibleWith(ctx.shapes[4]):
        raise ctx.error(f"dy has shape {ctx.shapes[4]}, but the slice of a tensor of shape "
                        f"{shape} has shape {sliced}")
    return [shape]


registerOp(
    OpDef(
        type="StridedSliceGrad",
        group="core",
        summary="Returns the gradient of ``StridedSlice``.",
        description=(
            "The result has shape ``shape`` and holds ``dy`` at the elements that\n"
            "``StridedSlice`` with the same ``begin``, ``end``, ``strides`` and masks selects\n"
            "from a tensor of that shape, and zeros elsewhere. ``dy`` must have the shape of\n"
            "that slice."
        ),
        inputs=(
            InputDef("shape", "the shape of the sliced tensor", typeAttr="Index"),
            InputDef("begin", "the first index of each entry", typeAttr="Index"),
            InputDef("end", "the index each entry stops before", typeAttr="Index"),
            InputDef("strides", "the step of each entry, non-zero", typeAttr="Index"),
            InputDef("dy", "the gradient of the slice", typeAttr="T"),
        ),
        outputs=(OutputDef("output", "``dy`` scattered into zeros of ``shape``",
                           typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=ANY),
               AttrDef("Index", "type", allowed=INDEX_TYPES, default=TInt32)) + _MASK_ATTRS,
        infer=_stridedSliceGradShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> dy = tf.constant([1.0, 2.0])\n"
            ">>> y = tf.stridedSliceGrad([4], [1], [0], [2], dy, StridedSliceGrad.endMask(1))\n"
            ">>> Session(g).runner().fetch(y).run()[0].tolist()  # zeros(4)[1::2] = dy\n"
            "[0.0, 1.0, 0.0, 2.0]"
        ),
    )
)


@registerGradient("StridedSliceGrad")
def _stridedSliceGradGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """The slice of the gradient that the forward op scattered ``dy`` to."""
    grad = tf.stridedSlice(g, op.ints(1), op.ints(2), op.ints(3), **_masks(op))
    return [None, None, None, None, grad]
