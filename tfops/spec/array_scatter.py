"""Scatter and gather by index tuples (``tfops.op.core``): GatherNd, ScatterNd,
TensorScatterUpdate/Add.

Each row of ``indices`` (its last dimension, of length ``K``) is the position of one slice of a
tensor: the first ``K`` coordinates of an element, the slice being what the remaining
dimensions hold. GatherNd reads those slices, ScatterNd writes them into zeros (summing
repeated positions), TensorScatterUpdate and TensorScatterAdd into a copy of a tensor.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, registerGradient
from tfops.spec.indexing import example
from tfops.spec.rules import ANY, INDEX_TYPES, NUMBERS, shapeValue
from tfops.types import TFloating, TType

if TYPE_CHECKING:
    from tfops.ops import Ops

POLICIES = ("", "DEFAULT", "ERROR", "IGNORE")
"""The values of ``bad_indices_policy``: all but ``IGNORE`` raise on an index out of range."""


def _policy(ctx: InferContext) -> None:
    policy = ctx.attrs["bad_indices_policy"]
    if policy not in POLICIES:
        raise ctx.error(f"bad_indices_policy must be one of {', '.join(map(repr, POLICIES))}, "
                        f"got {policy!r}")


def _policyAttr() -> AttrDef:
    return AttrDef("bad_indices_policy", "string",
                   "what an index out of range does: ``''``, ``'DEFAULT'`` and ``'ERROR'`` "
                   "raise InvalidArgumentError, ``'IGNORE'`` skips it", default="",
                   option="badIndicesPolicy")


def _indexDepth(ctx: InferContext, i: int) -> tuple[Sequence[int] | None, int]:
    """The dimensions of ``indices`` (input ``i``), which must be at least a vector, and the
    length ``K`` of an index (-1 when unknown)."""
    dims = ctx.shapes[i].asArray()
    if dims is not None and not dims:
        raise ctx.error("indices must be at least a vector, got a scalar")
    return dims, (-1 if dims is None else dims[-1])


def _checkUpdates(ctx: InferContext, i: int, into: Shape) -> None:
    """Checks that ``updates`` (input ``i``) has the shape ``indices.shape[:-1] +
    into[K:]`` as far as the shapes are known; ``indices`` is input ``i - 1``."""
    dims, depth = _indexDepth(ctx, i - 1)
    target = into.asArray()
    if dims is None or target is None or depth < 0:
        return
    if depth > len(target):
        raise ctx.error(f"indices.shape[-1] = {depth} is more than the rank {len(target)} of "
                        f"the output shape {into}")
    expected = Shape.of(*dims[:-1], *target[depth:])
    if not ctx.shapes[i].isCompatibleWith(expected):
        raise ctx.error(f"updates must have shape indices.shape[:-1] + shape[{depth}:] = "
                        f"{expected}, got {ctx.shapes[i]}")


# -- GatherNd ------------------------------------------------------------------------------
def _gatherNdShape(ctx: InferContext) -> Sequence[Shape]:
    _policy(ctx)
    params = ctx.shapes[0].asArray()
    if params is not None and not params:
        raise ctx.error("params must be at least a vector, got a scalar")
    dims, depth = _indexDepth(ctx, 1)
    if params is not None and depth > len(params):
        raise ctx.error(f"indices.shape[-1] = {depth} must be at most the rank of params "
                        f"{ctx.shapes[0]}")
    if dims is None or params is None or depth < 0:
        return [Shape.unknown()]
    return [Shape.of(*dims[:-1], *params[depth:])]


registerOp(
    OpDef(
        type="GatherNd",
        group="core",
        summary="Gather slices from ``params`` into a tensor with shape specified by "
                "``indices``.",
        description=(
            "Each row of ``indices`` (its last dimension, of length ``K`` at most the rank of\n"
            "``params``) is the position of a slice of ``params``: the result has shape\n"
            "``indices.shape[:-1] + params.shape[K:]``. An index out of range raises\n"
            "``InvalidArgumentError`` when the op runs (``badIndicesPolicy('IGNORE')`` gives\n"
            "zeros for it instead). The gradient scatters the incoming slices back to their\n"
            "positions, summing repeated ones (``ScatterNd``); as in TensorFlow, that fails\n"
            "when it runs for indices of length 0 (``ScatterNd`` cannot scatter whole tensors)."
        ),
        inputs=(
            InputDef("params", "the tensor to gather from, at least a vector",
                     typeAttr="Tparams"),
            InputDef("indices", "the positions of the slices, at least a vector",
                     typeAttr="Tindices"),
        ),
        outputs=(OutputDef("output", "the gathered slices", typeAttr="Tparams"),),
        attrs=(
            AttrDef("Tparams", "type", allowed=ANY),
            AttrDef("Tindices", "type", allowed=INDEX_TYPES),
            _policyAttr(),
        ),
        infer=_gatherNdShape,
        example=example("tf.gatherNd(tf.constant([[1, 2], [3, 4]]), tf.constant([[1, 0], "
                        "[0, 1]]))", "[3, 2]"),
    )
)


@registerGradient("GatherNd")
def _gatherNdGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: the gradient's slices scattered into zeros of ``params``' shape."""
    indices = op.ints(1)
    shape = tf.shape(op.input(0), outType=indices.dataType())
    return [tf.scatterNd(indices, g, shape), None]


# -- ScatterNd -----------------------------------------------------------------------------
def _scatterNdShape(ctx: InferContext) -> Sequence[Shape]:
    _policy(ctx)
    value = ctx.constants[2]
    if value is not None and value.ndim == 1 and (value < 0).any():
        raise ctx.error(f"shape must not have negative sizes, got {value.tolist()}")
    into = shapeValue(ctx, 2)
    _checkUpdates(ctx, 1, into)
    return [into]


registerOp(
    OpDef(
        type="ScatterNd",
        group="core",
        summary="Scatters ``updates`` into a tensor of shape ``shape`` according to "
                "``indices``.",
        description=(
            "The result is zeros of ``shape`` with each slice of ``updates`` added at the\n"
            "position its row of ``indices`` gives (length ``K``): ``updates`` has shape\n"
            "``indices.shape[:-1] + shape[K:]``, and slices at one position are summed (for\n"
            "bool, or-ed). An index out of range raises ``InvalidArgumentError`` when the op\n"
            "runs (``badIndicesPolicy('IGNORE')`` skips it). The gradient of ``updates`` is\n"
            "the incoming gradient's slices at ``indices`` (``GatherNd``)."
        ),
        inputs=(
            InputDef("indices", "the positions of the slices, at least a vector",
                     typeAttr="Tindices"),
            InputDef("updates", "the slices to scatter", typeAttr="T"),
            InputDef("shape", "the shape of the result, a vector", typeAttr="Tindices"),
        ),
        outputs=(OutputDef("output", "zeros of ``shape`` with the updates added", typeAttr="T"),),
        attrs=(
            AttrDef("T", "type", allowed=ANY),
            AttrDef("Tindices", "type", allowed=INDEX_TYPES),
            _policyAttr(),
        ),
        infer=_scatterNdShape,
        example=example("tf.scatterNd(tf.constant([[1], [3], [1]]), tf.constant([1, 2, 3]), "
                        "tf.constant([4]))", "[0, 4, 0, 2]"),
    )
)


@registerGradient("ScatterNd")
def _scatterNdGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: the gradient's slices at ``indices``."""
    return [None, tf.gatherNd(g, op.ints(0)), None]


# -- TensorScatterUpdate and TensorScatterAdd ----------------------------------------------
def _tensorScatterShape(ctx: InferContext) -> Sequence[Shape]:
    _policy(ctx)
    if ctx.shapes[2].numDimensions() == 0:
        raise ctx.error("updates must be at least a vector, got a scalar")
    _checkUpdates(ctx, 2, ctx.shapes[0])
    return [ctx.shapes[0]]


def _tensorScatter(opType: str, verb: str, allowed: tuple[type[TType], ...], more: str,
                   example_: str) -> None:
    javaName = f"TensorScatterNd{opType.removeprefix('TensorScatter')}"  # TF Java's class
    registerOp(
        OpDef(
            type=opType,
            group="core",
            className=javaName,
            facadeName=javaName[0].lower() + javaName[1:],
            defaultName=javaName,
            summary=f"{verb} sparse ``updates`` to an existing tensor according to "
                    "``indices``.",
            description=(
                "The result is a copy of ``tensor`` in which the slice at each row of\n"
                "``indices`` (of length ``K``) is changed by the matching slice of ``updates``,\n"
                "whose shape is ``indices.shape[:-1] + tensor.shape[K:]``. " + more + " An index\n"
                "out of range raises ``InvalidArgumentError`` when the op runs\n"
                "(``badIndicesPolicy('IGNORE')`` skips it)."
            ),
            inputs=(
                InputDef("tensor", "the tensor to copy and change", typeAttr="T"),
                InputDef("indices", "the positions of the slices, at least a vector",
                         typeAttr="Tindices"),
                InputDef("updates", "the slices, at least a vector", typeAttr="T"),
            ),
            outputs=(OutputDef("output", "the changed copy of ``tensor``", typeAttr="T"),),
            attrs=(
                AttrDef("T", "type", allowed=allowed),
                AttrDef("Tindices", "type", allowed=INDEX_TYPES),
                _policyAttr(),
            ),
            infer=_tensorScatterShape,
            example=example_,
        )
    )


_tensorScatter(
    "TensorScatterUpdate", "Scatter", ANY,
    "Each slice replaces the tensor's; when several rows give one position, the numpy\n"
    "backend keeps the last (as TensorFlow's CPU kernel does) and XLA any one of them. The\n"
    "gradient of ``tensor`` is the incoming gradient with the updated slices zeroed, that of\n"
    "``updates`` the incoming gradient's slices at ``indices``.",
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> t = tf.constant([1, 2, 3, 4])\n"
    ">>> y = tf.tensorScatterNdUpdate(t, tf.constant([[1], [3]]), tf.constant([9, 8]))\n"
    ">>> Session(g).runner().fetch(y).run()[0].tolist()\n"
    "[1, 9, 3, 8]",
)
_tensorScatter(
    "TensorScatterAdd", "Adds", NUMBERS,
    "Each slice is added to the tensor's, repeated positions summed; bool is not allowed\n"
    "(TensorFlow has no kernel for it). The gradient of ``tensor`` is the incoming\n"
    "gradient, that of ``updates`` the incoming gradient's slices at ``indices``.",
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> t = tf.constant([1, 2, 3, 4])\n"
    ">>> y = tf.tensorScatterNdAdd(t, tf.constant([[1], [1]]), tf.constant([10, 20]))\n"
    ">>> Session(g).runner().fetch(y).run()[0].tolist()\n"
    "[1, 32, 3, 4]",
)


@registerGradient("TensorScatterUpdate")
def _tensorScatterUpdateGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: the gradient with the updated slices zeroed for ``tensor``, its slices at
    ``indices`` for ``updates``."""
    indices = op.ints(1)
    tensorGrad = tf.tensorScatterNdUpdate(tf.identity(g), indices, tf.zerosLike(op.x(2)))
    return [tensorGrad, None, tf.gatherNd(g, indices)]


@registerGradient("TensorScatterAdd")
def _tensorScatterAddGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: the gradient itself for ``tensor``, its slices at ``indices`` for
    ``updates``."""
    return [tf.identity(g), None, tf.gatherNd(g, op.ints(1))]
