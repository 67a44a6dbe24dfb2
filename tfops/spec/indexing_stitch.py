"""Ops that interleave the rows of several tensors by index (``tfops.op.core``): DynamicStitch
and ParallelDynamicStitch, and the row plan their kernels share.

``merged[indices[i][j, ...], ...] = data[i][j, ..., ...]``: the result has as many rows as the
largest index plus one, each row taken from the data row its index names. TensorFlow's
``reduce_mean`` and ``reduce_sum`` gradients build the reduced shape with DynamicStitch when the
input's shape is known only at run time (``math_ops.reduced_shape``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, registerGradient
from tfops.spec.indexing import example
from tfops.spec.rules import ANY
from tfops.types import TFloating, TInt32

if TYPE_CHECKING:
    from tfops.ops import Ops
    from tfops.output import Output

__all__ = ["stitchRows", "stitchSize"]

_FIX = "give one int32 indices tensor per data tensor, data[i] of shape indices[i].shape + R"


# -- the row plan, shared by the kernels ---------------------------------------------------
def stitchSize(
    indices: Sequence[np.ndarray[Any, Any]], dataShapes: Sequence[tuple[int, ...]]
) -> tuple[int, tuple[int, ...]]:
    """The number of rows of the merged result and the shape ``R`` of one row, for these index
    values and data shapes.

    Raises:
        ValueError: a data tensor's shape does not start with its indices' shape, the data
            tensors' rows differ in shape, or an index is negative.
    """
    inner: tuple[int, ...] | None = None
    largest = -1
    for i, (idx, shape) in enumerate(zip(indices, dataShapes, strict=True)):
        if tuple(shape[: idx.ndim]) != idx.shape:
            raise ValueError(
                f"data[{i}] has shape {list(shape)}, which does not start with the shape of "
                f"indices[{i}], {list(idx.shape)} (one data row per index)"
            )
        rest = tuple(shape[idx.ndim :])
        if inner is None:
            inner = rest
        elif rest != inner:
            raise ValueError(
                f"data[{i}].shape[{idx.ndim}:] = {list(rest)} differs from "
                f"data[0].shape[{indices[0].ndim}:] = {list(inner)}: every data row must have "
                "one shape"
            )
        if idx.size:
            low = int(idx.min())
            if low < 0:
                raise ValueError(f"indices[{i}] holds {low}; indices must not be negative")
            largest = max(largest, int(idx.max()))
    assert inner is not None, "DynamicStitch has at least one data tensor"
    return largest + 1, inner


def stitchRows(indices: Sequence[np.ndarray[Any, Any]], size: int) -> np.ndarray[Any, Any]:
    """For each of the ``size`` merged rows, the row it takes among the data tensors' rows laid
    end to end: the last one whose index names it (later indices win, as TensorFlow's CPU
    kernel does); rows no index names take the row past the end (the caller's zeros)."""
    flat = np.concatenate([np.ravel(idx) for idx in indices]).astype(np.intp)
    rows = np.full(size, -1, np.intp)
    np.maximum.at(rows, flat, np.arange(flat.size, dtype=np.intp))
    rows[rows < 0] = flat.size
    return rows


# -- the shape rule ------------------------------------------------------------------------
def _stitchShape(ctx: InferContext) -> Sequence[Shape]:
    n: int = ctx.attrs["N"]  # the builder counts each list: the last one, data, is what it kept
    given = len(ctx.shapes) - n
    if given != n:
        raise ctx.error(f"got {given} indices tensor(s) and {n} data tensor(s); {_FIX}")
    inner: Shape = Shape.unknown()
    constants = ctx.constants
    largest = -1
    for i in range(n):
        idx, data = ctx.shapes[i].asArray(), ctx.shapes[n + i].asArray()
        value = constants[i]
        if value is not None and value.size:
            low = int(value.min())
            if low < 0:
                raise ctx.error(f"indices[{i}] holds {low}; indices must not be negative")
            largest = max(largest, int(value.max()))
        if idx is None:
            continue
        if data is None:
            continue  # its rows may have any shape
        prefix = data[: len(idx)]
        if len(data) < len(idx) or not Shape.of(*prefix).isCompatibleWith(Shape.of(*idx)):
            raise ctx.error(
                f"data[{i}] has shape {ctx.shapes[n + i]}, which does not start with the "
                f"shape of indices[{i}], {ctx.shapes[i]} (one data row per index); {_FIX}"
            )
        rest = Shape.of(*data[len(idx) :])
        inner = _merged(ctx, inner, rest, i, len(idx))
    known = all(c is not None for c in constants[:n])
    dims = inner.asArray()
    if dims is None:
        return [Shape.unknown()]
    return [Shape.of(largest + 1 if known else -1, *dims)]


def _merged(ctx: InferContext, inner: Shape, rest: Shape, i: int, rank: int) -> Shape:
    """``inner`` (the row shape so far) merged with data[i]'s row shape ``rest``."""
    old, new = inner.asArray(), rest.asArray()
    if old is None:
        return rest
    assert new is not None
    if not inner.isCompatibleWith(rest):
        raise ctx.error(
            f"data[{i}].shape[{rank}:] = {rest} differs from the rows of the data before it, "
            f"{inner}: every data row must have one shape R; {_FIX}"
        )
    return Shape.of(*(a if a >= 0 else b for a, b in zip(old, new, strict=True)))


# -- the ops -------------------------------------------------------------------------------
_INPUTS = (
    InputDef(
        "indices",
        "where each data row goes: ``indices[i]`` names a merged row for each row of ``data[i]``",
        dtype=TInt32,
        isList=True,
    ),
    InputDef(
        "data",
        "the rows to merge: ``data[i]`` has shape ``indices[i].shape + R``",
        typeAttr="T",
        isList=True,
    ),
)
_OUTPUT = OutputDef("merged", "the rows merged, of shape ``[max(indices) + 1] + R``", typeAttr="T")
_ATTRS = (
    AttrDef("N", "int", "number of indices tensors, and of data tensors"),
    AttrDef("T", "type", allowed=ANY),
)
_MERGED = (
    "``merged[indices[i][j, ...], ...] = data[i][j, ..., ...]``: each index names the row\n"
    "of the result that the data row at its position becomes. ``data[i]`` has shape\n"
    "``indices[i].shape + R`` for one row shape ``R``, and the result has shape\n"
    "``[max(indices) + 1] + R`` (``[0] + R`` when every indices tensor is empty); rows that\n"
    "no index names are zeros, as TensorFlow's CPU kernel leaves them. Indices must not be\n"
    "negative. "
)

registerOp(
    OpDef(
        type="DynamicStitch",
        group="core",
        summary="Interleaves the values from the ``data`` tensors into a single tensor.",
        description=(
            _MERGED + "When indices repeat, the last one wins (``indices[1]``\n"
            "over ``indices[0]``, a later position over an earlier one). The gradient of\n"
            "``data[i]`` is the result's gradient gathered at ``indices[i]`` (each repeated\n"
            "index gets it, as TensorFlow gives it); the indices have none."
        ),
        inputs=_INPUTS,
        outputs=(_OUTPUT,),
        attrs=_ATTRS,
        infer=_stitchShape,
        example=example(
            "tf.dynamicStitch([tf.constant([0, 2]), tf.constant([[1], [2]])],\n"
            "...                    [tf.constant([10, 30]), tf.constant([[20], [40]])])",
            "[10, 20, 40]",
        ),
    )
)

registerOp(
    OpDef(
        type="ParallelDynamicStitch",
        group="core",
        summary="Interleaves the values from the ``data`` tensors into a single tensor.",
        description=(
            _MERGED + "TensorFlow leaves open which data row a repeated\n"
            "index takes; tfops takes the last, as DynamicStitch does. The gradient is\n"
            "DynamicStitch's."
        ),
        inputs=_INPUTS,
        outputs=(_OUTPUT,),
        attrs=_ATTRS,
        infer=_stitchShape,
        example=example(
            "tf.parallelDynamicStitch([tf.constant([1, 0])],\n"
            "...                            [tf.constant([[1.5, 2.5], [3.5, 4.5]])])",
            "[[3.5, 4.5], [1.5, 2.5]]",
        ),
    )
)


def _stitchGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """Each data tensor's gradient is the result's gradient at its indices."""
    n = op.numInputs() // 2
    data = [tf.gather(g, op.ints(i), 0) if op.needs(n + i) else None for i in range(n)]
    return [*([None] * n), *data]


registerGradient("DynamicStitch")(_stitchGrad)
registerGradient("ParallelDynamicStitch")(_stitchGrad)
