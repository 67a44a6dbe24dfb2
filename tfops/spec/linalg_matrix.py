"""Matrix structure ops (``tfops.op.linalg``): MatrixDiagV3, MatrixDiagPartV3, MatrixSetDiagV3
(TensorFlow Java's ``MatrixSetDiag``) and MatrixBandPart (Java's ``BandPart``).

The diagonal ops address a band of diagonals ``k = (lower, upper)`` of the innermost matrices:
diagonal ``d`` holds the elements ``(i, j)`` with ``j - i == d``. A band of several diagonals
is stored as rows ``upper`` (first) down to ``lower``, each padded to the longest one's length;
``align`` says on which side each row's elements sit: its first word for superdiagonals, its
second for subdiagonals (``"RIGHT_LEFT"``: superdiagonals right-aligned, subdiagonals
left-aligned).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import numpy as np

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, registerGradient
from tfops.spec.indexing import scalarConstant
from tfops.spec.rules import ANY, INDEX_TYPES
from tfops.types import TFloating, TInt32, TInt64

if TYPE_CHECKING:
    from tfops.ops import Ops

ALIGNMENTS = ("LEFT_RIGHT", "RIGHT_LEFT", "LEFT_LEFT", "RIGHT_RIGHT")

_ALIGN = AttrDef(
    "align", "string", "where the elements of each stored diagonal sit: the first word for "
    "superdiagonals, the second for subdiagonals (``LEFT``: at the start of the row, padding "
    "after; ``RIGHT``: at its end)", default="RIGHT_LEFT", option="align",
)
_K_DOC = ("the diagonal offset: a scalar, or a pair ``(lower, upper)`` for a band; 0 is the main "
          "diagonal, positive above it, negative below")


def _k(op: GradOp, i: int) -> Output[TInt32]:
    """The ``k`` input ``i`` of a diagonal op."""
    return cast("Output[TInt32]", op.input(i))


def _checkAlign(ctx: InferContext) -> None:
    align = ctx.attrs["align"]
    if align not in ALIGNMENTS:
        raise ctx.error(f"align must be one of {', '.join(ALIGNMENTS)}; got {align!r}")


def _band(ctx: InferContext, i: int) -> tuple[int, int] | None:
    """``(lower, upper)`` from the ``k`` input ``i`` when it is a constant; checks its shape."""
    shape = ctx.shapes[i]
    if shape.numDimensions() > 1 or (shape.numDimensions() == 1 and shape.size(0) not in
                                     (-1, 1, 2)):
        raise ctx.error(f"k must be a scalar or a vector of one or two elements, got shape "
                        f"{shape}")
    value = ctx.constants[i]
    if value is None:
        return None
    flat = np.asarray(value).reshape(-1)
    lower, upper = int(flat[0]), int(flat[-1])
    if lower > upper:
        raise ctx.error(f"the lower diagonal {lower} must not be above the upper one {upper}")
    return lower, upper


def _checkBandFits(ctx: InferContext, band: tuple[int, int], rows: int, cols: int) -> None:
    for which, d in zip(("lower", "upper"), band, strict=True):
        if rows >= 0 and cols >= 0 and not (-rows < d < cols or d == 0):
            raise ctx.error(f"the {which} diagonal {d} is out of range for {rows}x{cols} "
                            f"matrices: it must be in ({-rows}, {cols})")


# -- MatrixDiagV3 ----------------------------------------------------------------------------
def _diagShape(ctx: InferContext) -> Sequence[Shape]:
    _checkAlign(ctx)
    for i, what in ((2, "num_rows"), (3, "num_cols"), (4, "padding_value")):
        if ctx.shapes[i].numDimensions() > 0:
            raise ctx.error(f"{what} must be a scalar, got shape {ctx.shapes[i]}")
    band = _band(ctx, 1)
    dims = ctx.shapes[0].asArray()
    if dims is not None and not dims:
        raise ctx.error("diagonal must have at least one dimension, got a scalar")
    if band is None or dims is None:
        return [Shape.unknown()]
    lower, upper = band
    count = upper - lower + 1
    if count > 1:
        if len(dims) < 2 or dims[-2] not in (-1, count):
            raise ctx.error(f"diagonal of shape {ctx.shapes[0]} must hold the {count} diagonals "
                            f"from {lower} to {upper} in its second-last dimension")
        batch = dims[:-2]
    else:
        batch = dims[:-1]
    rows, cols = scalarConstant(ctx, 2, "num_rows"), scalarConstant(ctx, 3, "num_cols")
    if rows is None or cols is None or dims[-1] < 0:
        return [Shape.of(*batch, -1, -1)]
    length = dims[-1]
    minRows, minCols = length - min(upper, 0), length + max(lower, 0)
    if rows != -1 and rows < minRows or cols != -1 and cols < minCols:
        raise ctx.error(f"{rows}x{cols} matrices are too small for diagonals of length {length} "
                        f"from {lower} to {upper} (at least {minRows}x{minCols})")
    rows, cols = _fillSize(rows, cols, minRows, minCols)
    if rows != minRows and cols != minCols:
        raise ctx.error(f"{rows}x{cols} matrices do not fit diagonals of length {length} from "
                        f"{lower} to {upper} (one of the sizes must be {minRows}x{minCols}'s)")
    return [Shape.of(*batch, rows, cols)]


def _fillSize(rows: int, cols: int, minRows: int, minCols: int) -> tuple[int, int]:
    """TensorFlow's: -1 for both gives the smallest square; -1 for one, its smallest size."""
    if rows == -1 and cols == -1:
        side = max(minRows, minCols)
        return side, side
    return (minRows if rows == -1 else rows), (minCols if cols == -1 else cols)


registerOp(
    OpDef(
        type="MatrixDiagV3",
        group="linalg",
        className="MatrixDiagV3",
        facadeName="matrixDiagV3",
        summary="Returns a batched diagonal tensor with given batched diagonal values.",
        description=(
            "The innermost matrices of the result (``num_rows`` by ``num_cols``) hold the\n"
            "diagonals ``k`` given by ``diagonal`` and ``padding_value`` everywhere else. With\n"
            "one diagonal, ``diagonal`` has shape ``[..., length]``; with a band ``k = (lower,\n"
            "upper)``, ``[..., upper - lower + 1, length]``, the rows stored from ``upper``\n"
            "down and aligned by ``align``. ``num_rows`` and ``num_cols`` of -1 are inferred:\n"
            "both give the smallest square matrices, one the smallest size that fits. ``k``,\n"
            "``num_rows`` and ``num_cols`` must be known when the XLA backend compiles."
        ),
        inputs=(
            InputDef("diagonal", "the diagonals, of rank 1 or more (2 or more for a band)",
                     typeAttr="T"),
            InputDef("k", _K_DOC, dtype=TInt32),
            InputDef("num_rows", "the number of rows of the result's matrices, or -1",
                     dtype=TInt32),
            InputDef("num_cols", "the number of columns of the result's matrices, or -1",
                     dtype=TInt32),
            InputDef("padding_value", "the value outside the band, a scalar", typeAttr="T"),
        ),
        outputs=(OutputDef("output", "the matrices of shape ``[..., num_rows, num_cols]``",
                           typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=ANY), _ALIGN),
        infer=_diagShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> d = tf.linalg.matrixDiagV3(tf.constant([1, 2]), 1, -1, -1, 9)\n"
            ">>> Session(g).runner().fetch(d).run()[0].tolist()\n"
            "[[9, 1, 9], [9, 9, 2], [9, 9, 9]]"
        ),
    )
)


@registerGradient("MatrixDiagV3")
def _matrixDiagGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    zero = np.zeros((), g.dataType().DTYPE)
    return [tf.linalg.matrixDiagPartV3(g, _k(op, 1), zero, align=op.attr("align")),
            None, None, None, None]


# -- MatrixDiagPartV3 ------------------------------------------------------------------------
def _diagPartShape(ctx: InferContext) -> Sequence[Shape]:
    _checkAlign(ctx)
    if ctx.shapes[2].numDimensions() > 0:
        raise ctx.error(f"padding_value must be a scalar, got shape {ctx.shapes[2]}")
    band = _band(ctx, 1)
    dims = ctx.shapes[0].asArray()
    if dims is not None and len(dims) < 2:
        raise ctx.error(f"input must have at least two dimensions, got shape {ctx.shapes[0]}")
    if band is None or dims is None:
        return [Shape.unknown()]
    rows, cols = dims[-2], dims[-1]
    _checkBandFits(ctx, band, rows, cols)
    lower, upper = band
    count = [upper - lower + 1] if upper > lower else []
    length = -1 if rows < 0 or cols < 0 else min(rows + min(upper, 0), cols - max(lower, 0))
    return [Shape.of(*dims[:-2], *count, length)]


registerOp(
    OpDef(
        type="MatrixDiagPartV3",
        group="linalg",
        className="MatrixDiagPartV3",
        facadeName="matrixDiagPartV3",
        summary="Returns the batched diagonal part of a batched tensor.",
        description=(
            "Takes the diagonals ``k`` of the innermost matrices of ``input``: for one\n"
            "diagonal the result has shape ``[..., length]``; for a band ``k = (lower, upper)``,\n"
            "``[..., upper - lower + 1, length]``, the rows from ``upper`` down, each as long as\n"
            "the longest diagonal of the band, aligned by ``align`` and filled out with\n"
            "``padding_value``. Each diagonal must lie in the matrices: ``-rows < k < cols``\n"
            "(or 0). ``k`` must be known when the XLA backend compiles."
        ),
        inputs=(
            InputDef("input", "the matrices, of rank 2 or more", typeAttr="T"),
            InputDef("k", _K_DOC, dtype=TInt32),
            InputDef("padding_value", "the value that fills out the shorter diagonals",
                     typeAttr="T"),
        ),
        outputs=(OutputDef("diagonal", "the diagonals", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=ANY), _ALIGN),
        infer=_diagPartShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> m = tf.constant([[1, 2, 3], [4, 5, 6]])\n"
            ">>> d = tf.linalg.matrixDiagPartV3(m, [-1, 1], 0)\n"
            ">>> Session(g).runner().fetch(d).run()[0].tolist()\n"
            "[[2, 6], [1, 5], [4, 0]]"
        ),
    )
)


@registerGradient("MatrixDiagPartV3")
def _matrixDiagPartGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: the diagonals placed in matrices of the input's size (zeros elsewhere)."""
    x, k, align = op.x(0), _k(op, 1), op.attr("align")
    dims = x.shape().asArray()
    if dims is not None and dims[-2] >= 0 and dims[-1] >= 0:
        zero = np.zeros((), g.dataType().DTYPE)
        return [tf.linalg.matrixDiagV3(g, k, dims[-2], dims[-1], zero, align=align), None, None]
    return [tf.linalg.matrixSetDiag(tf.zerosLike(x), g, k, align=align), None, None]


# -- MatrixSetDiagV3 -------------------------------------------------------------------------
def _setDiagShape(ctx: InferContext) -> Sequence[Shape]:
    _checkAlign(ctx)
    band = _band(ctx, 2)
    dims, diag = ctx.shapes[0].asArray(), ctx.shapes[1].asArray()
    if dims is not None and len(dims) < 2:
        raise ctx.error(f"input must have at least two dimensions, got shape {ctx.shapes[0]}")
    if diag is not None and not diag:
        raise ctx.error("diagonal must have at least one dimension, got a scalar")
    if band is None or dims is None:
        return [ctx.shapes[0]]
    rows, cols = dims[-2], dims[-1]
    _checkBandFits(ctx, band, rows, cols)
    lower, upper = band
    if diag is not None and rows >= 0 and cols >= 0:
        count = [upper - lower + 1] if upper > lower else []
        length = min(rows + min(upper, 0), cols - max(lower, 0))
        expected = Shape.of(*dims[:-2], *count, length)
        if not expected.isCompatibleWith(ctx.shapes[1]):
            raise ctx.error(f"diagonal of shape {ctx.shapes[1]} does not match the diagonals "
                            f"{lower} to {upper} of input of shape {ctx.shapes[0]} (expected "
                            f"{expected})")
    return [ctx.shapes[0]]


registerOp(
    OpDef(
        type="MatrixSetDiagV3",
        group="linalg",
        className="MatrixSetDiag",
        facadeName="matrixSetDiag",
        summary="Returns a batched matrix tensor with new batched diagonal values.",
        description=(
            "The result is ``input`` with its diagonals ``k`` replaced by ``diagonal``, which\n"
            "has the shape ``MatrixDiagPartV3`` would return for them (``[..., length]`` for\n"
            "one diagonal, ``[..., upper - lower + 1, length]`` for a band, aligned by\n"
            "``align``); its padding is ignored. ``k`` must be known when the XLA backend\n"
            "compiles."
        ),
        inputs=(
            InputDef("input", "the matrices, of rank 2 or more", typeAttr="T"),
            InputDef("diagonal", "the new diagonals", typeAttr="T"),
            InputDef("k", _K_DOC, dtype=TInt32),
        ),
        outputs=(OutputDef("output", "the matrices with their new diagonals", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=ANY), _ALIGN),
        infer=_setDiagShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> m = tf.linalg.matrixSetDiag(tf.constant([[1, 2], [3, 4]]), [8, 9], 0)\n"
            ">>> Session(g).runner().fetch(m).run()[0].tolist()\n"
            "[[8, 2], [3, 9]]"
        ),
    )
)


@registerGradient("MatrixSetDiagV3")
def _matrixSetDiagGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: the gradient off the diagonals to ``input``, on them to ``diagonal``."""
    k, align = _k(op, 2), op.attr("align")
    zero = np.zeros((), g.dataType().DTYPE)
    return [tf.linalg.matrixSetDiag(g, tf.zerosLike(op.x(1)), k, align=align),
            tf.linalg.matrixDiagPartV3(g, k, zero, align=align), None]


# -- MatrixBandPart --------------------------------------------------------------------------
def _bandPartShape(ctx: InferContext) -> Sequence[Shape]:
    dims = ctx.shapes[0].asArray()
    if dims is not None and len(dims) < 2:
        raise ctx.error(f"input must have at least two dimensions, got shape {ctx.shapes[0]}")
    for i, what, which, axis in ((1, "num_lower", "rows", -2), (2, "num_upper", "columns", -1)):
        value = scalarConstant(ctx, i, what)
        size = -1 if dims is None else dims[axis]
        if value is not None and size >= 0 and value > size:
            raise ctx.error(f"{what} must be negative or at most the number of {which} ({size}),"
                            f" got {value}")
    return [ctx.shapes[0]]


registerOp(
    OpDef(
        type="MatrixBandPart",
        group="linalg",
        className="BandPart",
        facadeName="bandPart",
        summary="Keeps a central band of each innermost matrix, with zeros outside it.",
        description=(
            "Keeps element ``(i, j)`` of each innermost matrix where ``i - j <= num_lower`` and\n"
            "``j - i <= num_upper``; a negative bound keeps the whole triangle on its side\n"
            "(``bandPart(x, -1, 0)`` is the lower triangle, ``bandPart(x, 0, 0)`` the\n"
            "diagonal). A bound larger than the number of rows (``num_lower``) or columns\n"
            "(``num_upper``) raises ``InvalidArgumentError``."
        ),
        inputs=(
            InputDef("input", "the matrices, of rank 2 or more", typeAttr="T"),
            InputDef("num_lower", "the number of subdiagonals to keep; negative keeps all",
                     typeAttr="Tindex"),
            InputDef("num_upper", "the number of superdiagonals to keep; negative keeps all",
                     typeAttr="Tindex"),
        ),
        outputs=(OutputDef("band", "the band of ``input``, zeros outside", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=ANY),
               AttrDef("Tindex", "type", allowed=INDEX_TYPES, default=TInt64)),
        infer=_bandPartShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> b = tf.linalg.bandPart(tf.constant([[1, 2, 3], [4, 5, 6], [7, 8, 9]]), 1, 0)\n"
            ">>> Session(g).runner().fetch(b).run()[0].tolist()\n"
            "[[1, 0, 0], [4, 5, 0], [0, 8, 9]]"
        ),
    )
)


@registerGradient("MatrixBandPart")
def _bandPartGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.linalg.bandPart(g, op.ints(1), op.ints(2)), None, None]
