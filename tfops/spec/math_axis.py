"""Math ops along one axis (``tfops.op.math``): ArgMax and ArgMin, which return the position of
the extreme element along a dimension, and Cumsum, the cumulative sum along an axis."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, notDifferentiable, registerGradient
from tfops.spec.rules import ANY, INDEX_TYPES, NUMBERS
from tfops.types import TFloating, TInt32, TInt64

if TYPE_CHECKING:
    from tfops.ops import Ops


# -- shared axis checks -------------------------------------------------------------------
def _axisProblem(axis: int, rank: int, what: str) -> str | None:
    """Why ``axis`` cannot index a tensor of ``rank`` dimensions, or ``None`` when it can."""
    if -rank <= axis < rank:
        return None
    return f"{what} {axis} is out of range for a tensor of rank {rank} (must be in [-rank, rank))"


def _staticAxis(ctx: InferContext, what: str) -> int | None:
    """The scalar input 1 in ``[0, rank)`` when it is a constant and the rank is known."""
    if ctx.shapes[1].numDimensions() > 0:
        raise ctx.error(f"{what} must be a scalar, got a tensor of shape {ctx.shapes[1]}")
    value, rank = ctx.constants[1], ctx.shapes[0].numDimensions()
    if value is None or rank < 0:
        return None
    axis = int(value)
    problem = _axisProblem(axis, rank, what)
    if problem is not None:
        raise ctx.error(problem)
    return axis % rank


# -- ArgMax, ArgMin ------------------------------------------------------------------------
def _argShape(ctx: InferContext) -> Sequence[Shape]:
    axis = _staticAxis(ctx, "dimension")
    dims = ctx.shapes[0].asArray()
    if dims is None:
        return [Shape.unknown()]
    if axis is None:
        return [Shape.of(*([-1] * max(len(dims) - 1, 0)))]
    if dims[axis] == 0:
        raise ctx.error(f"dimension {axis} of shape {ctx.shapes[0]} is empty: no index to return")
    return [Shape.of(*dims[:axis], *dims[axis + 1 :])]


def _argOp(opType: str, which: str, example: str) -> None:
    registerOp(
        OpDef(
            type=opType,
            group="math",
            summary=f"Returns the index with the {which} value across dimensions of a tensor.",
            description=(
                "Reduces ``input`` along ``dimension``: each element of the result is the\n"
                f"position of the {which} element along that dimension, the smallest such\n"
                "position when several are equal. NaN is skipped, as in TensorFlow: the search\n"
                "starts at position 0 and moves only to a strictly more extreme value than the\n"
                "lowest finite one (the highest for ArgMin), so a row of NaN, or of NaN and\n"
                "values no more extreme than that, gives 0. The result has the shape of\n"
                "``input`` without ``dimension``, which must not be empty, and the data type\n"
                "``outputType`` (``TInt64`` unless set). Not differentiable."
            ),
            inputs=(
                InputDef("input", "the tensor to search", typeAttr="T"),
                InputDef("dimension", "the dimension to reduce, a scalar in "
                         "``[-rank(input), rank(input))``", typeAttr="Tidx"),
            ),
            outputs=(OutputDef("output", f"the indices of the {which} values",
                               typeAttr="output_type"),),
            attrs=(
                AttrDef("T", "type", allowed=ANY),
                AttrDef("Tidx", "type", allowed=INDEX_TYPES, default=TInt32),
                AttrDef("output_type", "type", "the data type of the indices",
                        allowed=INDEX_TYPES, default=TInt64, option="outputType"),
            ),
            infer=_argShape,
            example=example,
        )
    )
    notDifferentiable(opType)


_argOp(
    "ArgMax", "largest",
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> i = tf.math.argMax(tf.constant([[1, 9, 9], [7, 2, 3]]), 1)\n"
    ">>> Session(g).runner().fetch(i).run()[0].tolist()\n"
    "[1, 0]",
)
_argOp(
    "ArgMin", "smallest",
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> i = tf.math.argMin(tf.constant([[1.0, 0.5], [-2.0, 4.0]]), 0,"
    " ArgMin.outputType(TInt32))\n"
    ">>> i.asOutput().dataType().NAME, Session(g).runner().fetch(i).run()[0].tolist()\n"
    "('int32', [1, 0])",
)


# -- Cumsum ---------------------------------------------------------------------------------
def _cumsumShape(ctx: InferContext) -> Sequence[Shape]:
    _staticAxis(ctx, "axis")
    return [ctx.shapes[0]]


registerOp(
    OpDef(
        type="Cumsum",
        group="math",
        summary="Compute the cumulative sum of the tensor ``x`` along ``axis``.",
        description=(
            "By default the sum is inclusive: element i of the result adds elements 0 to i of\n"
            "``x`` along ``axis``, so ``[a, b, c]`` gives ``[a, a + b, a + b + c]``. With\n"
            "``exclusive``, element i itself is left out (``[0, a, a + b]``); with ``reverse``,\n"
            "the sums run from the end (``[a + b + c, b + c, c]``); both together give\n"
            "``[b + c, c, 0]``. ``axis`` is a scalar in ``[-rank(x), rank(x))``. Integer sums\n"
            "wrap around on overflow. The gradient is the cumulative sum in the other direction."
        ),
        inputs=(
            InputDef("x", "the tensor to sum", typeAttr="T"),
            InputDef("axis", "the dimension to sum along, a scalar in ``[-rank(x), rank(x))``",
                     typeAttr="Tidx"),
        ),
        outputs=(OutputDef("out", "the cumulative sums, of the shape and type of ``x``",
                           typeAttr="T"),),
        attrs=(
            AttrDef("exclusive", "bool", "if true, each sum leaves out its own element",
                    default=False, option="exclusive"),
            AttrDef("reverse", "bool", "if true, sum from the end of ``axis``", default=False,
                    option="reverse"),
            AttrDef("T", "type", allowed=NUMBERS),
            AttrDef("Tidx", "type", allowed=INDEX_TYPES, default=TInt32),
        ),
        infer=_cumsumShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> x = tf.constant([1, 2, 3])\n"
            ">>> both = tf.math.cumsum(x, 0, Cumsum.exclusive(True), Cumsum.reverse(True))\n"
            ">>> r = Session(g).runner().fetch(tf.math.cumsum(x, 0)).fetch(both).run()\n"
            ">>> r[0].tolist(), r[1].tolist()\n"
            "([1, 3, 6], [5, 3, 0])"
        ),
    )
)


@registerGradient("Cumsum")
def _cumsumGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    exclusive, reverse = bool(op.attr("exclusive")), bool(op.attr("reverse"))
    return [tf.math.cumsum(g, op.ints(1), exclusive=exclusive, reverse=not reverse), None]
