"""Ops that rearrange the dimensions of a tensor: Transpose (``tfops.op.linalg``, as in Java)
with InvertPermutation (``tfops.op.math``), Squeeze and Tile (``tfops.op.core``); and the helpers
the other indexing modules share.

The indexing ops continue in ``indexing_join`` (Concat, Stack, Pad), ``indexing_slice`` (Slice,
StridedSlice) and ``indexing_gather`` (Gather, UnsortedSegmentSum).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, notDifferentiable, registerGradient
from tfops.spec.rules import ANY, INDEX_TYPES
from tfops.types import TFloating, TInt32

if TYPE_CHECKING:
    from tfops.ops import Ops


# -- helpers shared by the indexing modules ------------------------------------------------
def vectorLength(ctx: InferContext, i: int, what: str) -> int:
    """The static length of input ``i``, which must be a vector; -1 when unknown."""
    shape = ctx.shapes[i]
    if shape.numDimensions() not in (-1, 1):
        raise ctx.error(f"{what} must be a vector, got a tensor of shape {shape}")
    return shape.size(0) if shape.numDimensions() == 1 else -1


def scalarConstant(ctx: InferContext, i: int, what: str) -> int | None:
    """The value of input ``i``, which must be a scalar; ``None`` when not a constant."""
    shape = ctx.shapes[i]
    if shape.numDimensions() not in (-1, 0):
        raise ctx.error(f"{what} must be a scalar, got a tensor of shape {shape}")
    value = ctx.constants[i]
    return None if value is None else int(value)


def unknownDims(rank: int) -> Shape:
    """A shape of ``rank`` unknown dimensions, or of unknown rank when ``rank`` is -1."""
    return Shape.unknown() if rank < 0 else Shape.of(*([-1] * rank))


def constantValue(t: Output[Any]) -> np.ndarray[Any, Any] | None:
    """The value of ``t`` when a ``Const`` op produces it (for gradient rules)."""
    return np.asarray(t.op().attr("value")) if t.op().type() == "Const" else None


def example(call: str, result: str) -> str:
    """A doctest that fetches ``y = call`` and shows its value as a list."""
    return (
        ">>> g = Graph(); tf = Ops.create(g)\n"
        f">>> y = {call}\n"
        ">>> Session(g).runner().fetch(y).run()[0].tolist()\n"
        f"{result}"
    )


# -- Transpose and InvertPermutation -------------------------------------------------------
def _isPermutation(p: list[int]) -> bool:
    return sorted(p) == list(range(len(p)))


def normalizedPermutation(p: list[int]) -> list[int] | None:
    """``p`` with its negative entries counted from the end (TensorFlow's Transpose takes
    ``-1`` for the last dimension), or ``None`` when it is not then a permutation."""
    n = len(p)
    if any(not -n <= i < n for i in p):
        return None
    q = [i % n for i in p]
    return q if _isPermutation(q) else None


def _transposeShape(ctx: InferContext) -> Sequence[Shape]:
    dims = ctx.shapes[0].asArray()
    length = vectorLength(ctx, 1, "perm")
    if dims is not None and length >= 0 and length != len(dims):
        raise ctx.error(f"perm has {length} entries for a tensor of rank {len(dims)}")
    perm = ctx.constants[1]
    if perm is None:
        return [unknownDims(len(dims) if dims is not None else length)]
    p = normalizedPermutation(perm.tolist())
    if p is None:
        raise ctx.error(f"perm {perm.tolist()} is not a permutation of [0, {len(perm)}) "
                        "(an entry may also count from the end, as -1)")
    return [Shape.of(*(dims[i] for i in p)) if dims is not None else unknownDims(len(p))]


registerOp(
    OpDef(
        type="Transpose",
        group="linalg",
        summary="Permutes the dimensions of x according to perm.",
        description=(
            "Dimension ``i`` of the result is dimension ``perm[i]`` of ``x``, so\n"
            "``y.shape[i] == x.shape[perm[i]]``; ``perm`` must hold each of ``0 .. rank-1``\n"
            "once, where a negative entry counts from the end as in TensorFlow (``[-1, 0]``\n"
            "is ``[1, 0]``). The gradient is the gradient transposed by the inverse\n"
            "permutation."
        ),
        inputs=(
            InputDef("x", "the tensor to transpose", typeAttr="T"),
            InputDef("perm", "the permutation of the dimensions of ``x``", typeAttr="Tperm"),
        ),
        outputs=(OutputDef("y", "the transposed tensor", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=ANY),
               AttrDef("Tperm", "type", allowed=INDEX_TYPES, default=TInt32)),
        infer=_transposeShape,
        example=example("tf.linalg.transpose(tf.constant([[1, 2, 3], [4, 5, 6]]), [1, 0])",
                        "[[1, 4], [2, 5], [3, 6]]"),
    )
)


@registerGradient("Transpose")
def _transposeGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    perm = op.ints(1)
    value = constantValue(perm)
    if value is not None:  # a constant inverse keeps the static shape
        return [tf.linalg.transpose(g, np.argsort(value % max(value.size, 1))), None]
    # negative entries count from the end: taken modulo the rank before inverting
    rank = tf.size(perm, outType=perm.dataType())
    return [tf.linalg.transpose(g, tf.math.invertPermutation(tf.math.floorMod(perm, rank))),
            None]


def _invertPermutationShape(ctx: InferContext) -> Sequence[Shape]:
    length = vectorLength(ctx, 0, "x")
    p = ctx.constants[0]
    if p is not None and not _isPermutation(p.tolist()):
        raise ctx.error(f"x {p.tolist()} is not a permutation of [0, {length})")
    return [Shape.of(length)]


registerOp(
    OpDef(
        type="InvertPermutation",
        group="math",
        summary="Computes the inverse permutation of a tensor.",
        description=(
            "``x`` is a permutation of ``0 .. n-1``; the result ``y`` undoes it:\n"
            "``y[x[i]] == i`` for every ``i``. Not differentiable."
        ),
        inputs=(InputDef("x", "a permutation, a vector", typeAttr="T"),),
        outputs=(OutputDef("y", "the inverse permutation", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=INDEX_TYPES, default=TInt32),),
        infer=_invertPermutationShape,
        example=example("tf.math.invertPermutation(tf.constant([3, 4, 0, 2, 1]))",
                        "[2, 4, 3, 0, 1]"),
    )
)
notDifferentiable("InvertPermutation")


# -- Squeeze -------------------------------------------------------------------------------
def _squeezeShape(ctx: InferContext) -> Sequence[Shape]:
    dims = ctx.shapes[0].asArray()
    axes: tuple[int, ...] = ctx.attrs["squeeze_dims"]
    if dims is None:
        return [Shape.unknown()]
    rank = len(dims)
    for a in axes:
        if not -rank <= a < rank:
            raise ctx.error(f"axis {a} is out of range [{-rank}, {rank})")
        if dims[a] not in (1, -1):
            raise ctx.error(f"cannot squeeze dimension {a % rank} of size {dims[a]} "
                            f"(shape {ctx.shapes[0]}): it must be 1")
    if not axes:
        if -1 in dims:  # whether an unknown dimension goes depends on the value
            return [Shape.unknown()]
        return [Shape.of(*(d for d in dims if d != 1))]
    squeezed = {a % rank for a in axes}
    return [Shape.of(*(d for i, d in enumerate(dims) if i not in squeezed))]


registerOp(
    OpDef(
        type="Squeeze",
        group="core",
        summary="Removes dimensions of size 1 from the shape of a tensor.",
        description=(
            "Without ``axis``, every dimension of size 1 is removed (``[1, 2, 1, 3]`` becomes\n"
            "``[2, 3]``). With ``axis``, only the listed dimensions are removed, and each of\n"
            "them must have size 1; negative entries count from the end."
        ),
        inputs=(InputDef("input", "the tensor to squeeze", typeAttr="T"),),
        outputs=(OutputDef("output", "``input`` without the removed dimensions",
                           typeAttr="T"),),
        attrs=(
            AttrDef("T", "type", allowed=ANY),
            AttrDef("squeeze_dims", "list(int)", "the dimensions to remove, in "
                    "``[-rank, rank)``; all dimensions of size 1 when empty", default=(),
                    option="axis"),
        ),
        infer=_squeezeShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> x = tf.constant(np.zeros((1, 2, 1, 3)))\n"
            ">>> tf.squeeze(x).asOutput().shape(), "
            "tf.squeeze(x, Squeeze.axis([-2])).asOutput().shape()\n"
            "(Shape.of(2, 3), Shape.of(1, 2, 3))"
        ),
    )
)


@registerGradient("Squeeze")
def _squeezeGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.reshape(g, tf.shape(op.x(0)))]


# -- Tile ----------------------------------------------------------------------------------
def _tileShape(ctx: InferContext) -> Sequence[Shape]:
    dims = ctx.shapes[0].asArray()
    length = vectorLength(ctx, 1, "multiples")
    if dims is not None and length >= 0 and length != len(dims):
        raise ctx.error(f"multiples has {length} entries for a tensor of rank {len(dims)}")
    multiples = ctx.values[1]  # constant or computed, entries known where the graph tells
    if multiples is None or multiples.scalar:
        return [unknownDims(len(dims) if dims is not None else length)]
    m = list(multiples.entries)
    if any(k is not None and k < 0 for k in m):
        raise ctx.error(f"multiples must not be negative, got {_listed(m)}")
    if dims is not None and len(m) != len(dims):
        raise ctx.error(f"multiples has {len(m)} entries for a tensor of rank {len(dims)}")
    return [Shape.of(*(0 if k == 0 else d * k if d >= 0 and k is not None else -1
                       for d, k in zip(dims if dims is not None else [-1] * len(m), m,
                                       strict=True)))]


def _listed(entries: Sequence[int | None]) -> str:
    """Partly known entries as a list, ``?`` where unknown."""
    return "[" + ", ".join("?" if e is None else str(e) for e in entries) + "]"


registerOp(
    OpDef(
        type="Tile",
        group="core",
        summary="Constructs a tensor by tiling a given tensor.",
        description=(
            "The result repeats ``input`` ``multiples[i]`` times along dimension ``i``: its\n"
            "dimension ``i`` has size ``input.shape[i] * multiples[i]``. ``multiples`` has one\n"
            "non-negative entry per dimension of ``input``; computed in the graph\n"
            "(``stack([2, n])``), each entry it is known to hold gives a static dimension."
        ),
        inputs=(
            InputDef("input", "the tensor to tile", typeAttr="T"),
            InputDef("multiples", "how many times to repeat each dimension",
                     typeAttr="Tmultiples"),
        ),
        outputs=(OutputDef("output", "the tiled tensor", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=ANY),
               AttrDef("Tmultiples", "type", allowed=INDEX_TYPES, default=TInt32)),
        infer=_tileShape,
        example=example("tf.tile(tf.constant([[1, 2]]), [2, 2])",
                        "[[1, 2, 1, 2], [1, 2, 1, 2]]"),
    )
)


@registerGradient("Tile")
def _tileGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """Sums the copies: the gradient reshaped to ``[m0, d0, m1, d1, ...]``, summed over the
    ``m`` axes."""
    x, multiples = op.x(0), op.ints(1)
    value = constantValue(multiples)
    dims = x.shape().asArray()
    if value is not None and dims is not None and x.shape().isFullyKnown():
        split = np.stack([value, np.array(dims, value.dtype)], axis=1).reshape(-1)
        axes = np.arange(0, split.size, 2, dtype=np.int32)
        return [tf.sum(tf.reshape(g, split), axes), None]
    shape = tf.shape(x, outType=multiples.dataType())
    pairs = tf.linalg.transpose(tf.stack([multiples, shape]), [1, 0])
    splitShape = tf.reshape(pairs, [-1])
    axesOp = tf.range(0, tf.size(splitShape), 2)
    summed = tf.sum(tf.reshape(g, splitShape), axesOp)
    # the sum's static shape is lost in the dynamic reshape: restore it as TF's set_shape does
    return [tf.reshape(summed, tf.shape(x)), None]
