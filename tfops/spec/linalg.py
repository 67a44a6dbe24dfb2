"""Linear algebra ops (``tfops.op.linalg``): MatMul and the broadcasting BatchMatMul."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeAlias

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, registerGradient, sumToShape
from tfops.spec.rules import NUMBERS, broadcast
from tfops.types import TFloating

if TYPE_CHECKING:
    from tfops.ops import Ops


_Product: TypeAlias = "tuple[Output[TFloating], Output[TFloating], bool, bool]"
"""The operands of a gradient's product and whether each is transposed (adjointed)."""


def _innerDimensionsAgree(ctx: InferContext, k1: int, k2: int, what: str) -> None:
    if k1 >= 0 and k2 >= 0 and k1 != k2:
        raise ctx.error(f"inner dimensions differ: {k1} and {k2} ({what})")


# -- MatMul --------------------------------------------------------------------------------
def _matMulShape(ctx: InferContext) -> Sequence[Shape]:
    a, b = ctx.shapes
    for name, s in (("a", a), ("b", b)):
        if s.numDimensions() not in (-1, 2):
            raise ctx.error(f"input '{name}' must be a matrix (rank 2), got shape {s}")
    ta, tb = ctx.attrs["transpose_a"], ctx.attrs["transpose_b"]
    rowsA, colsA = a.asArray() or (-1, -1)
    rowsB, colsB = b.asArray() or (-1, -1)
    m, ka = (colsA, rowsA) if ta else (rowsA, colsA)
    kb, n = (colsB, rowsB) if tb else (rowsB, colsB)
    _innerDimensionsAgree(
        ctx, ka, kb, f"a {a}{' transposed' if ta else ''}, b {b}{' transposed' if tb else ''}"
    )
    return [Shape.of(m, n)]


registerOp(
    OpDef(
        type="MatMul",
        group="linalg",
        summary='Multiply the matrix "a" by the matrix "b".',
        description=(
            'Both inputs must be matrices (rank 2). The inner dimension of "a" (after\n'
            'transposing it when ``transposeA`` is true) must equal the outer dimension of "b"\n'
            "(after transposing it when ``transposeB`` is true). Integer products wrap around on\n"
            "overflow; half precision accumulates in single precision."
        ),
        inputs=(
            InputDef("a", "the left matrix", typeAttr="T"),
            InputDef("b", "the right matrix, of the same data type", typeAttr="T"),
        ),
        outputs=(OutputDef("product", "the matrix product", typeAttr="T"),),
        attrs=(
            AttrDef("transpose_a", "bool", 'if true, "a" is transposed before multiplication',
                    default=False, option="transposeA"),
            AttrDef("transpose_b", "bool", 'if true, "b" is transposed before multiplication',
                    default=False, option="transposeB"),
            AttrDef("T", "type", allowed=NUMBERS),
        ),
        infer=_matMulShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> a = tf.constant([[1.0, 2.0], [3.0, 4.0]])\n"
            ">>> p = tf.linalg.matMul(a, tf.constant([[1.0], [1.0]]))\n"
            ">>> p.asOutput().shape(), Session(g).runner().fetch(p).run()[0].tolist()\n"
            "(Shape.of(2, 1), [[3.0], [7.0]])\n"
            ">>> q = tf.linalg.matMul(a, a, MatMul.transposeA(True))\n"
            ">>> Session(g).runner().fetch(q).run()[0].tolist()\n"
            "[[10.0, 14.0], [14.0, 20.0]]"
        ),
    )
)


@registerGradient("MatMul")
def _matMulGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    a, b = op.x(0), op.x(1)
    ta, tb = bool(op.attr("transpose_a")), bool(op.attr("transpose_b"))
    da: _Product
    db: _Product
    if not ta and not tb:
        da, db = (g, b, False, True), (a, g, True, False)
    elif not ta and tb:
        da, db = (g, b, False, False), (g, a, True, False)
    elif ta and not tb:
        da, db = (b, g, False, True), (a, g, False, False)
    else:
        da, db = (b, g, True, True), (g, a, True, True)

    def mm(x: Output[TFloating], y: Output[TFloating], tx: bool, ty: bool) -> Output[TFloating]:
        return tf.linalg.matMul(x, y, transposeA=tx, transposeB=ty).asOutput()

    return [mm(*da) if op.needs(0) else None, mm(*db) if op.needs(1) else None]


# -- BatchMatMulV2 -------------------------------------------------------------------------
def _batchMatMulShape(ctx: InferContext) -> Sequence[Shape]:
    x, y = ctx.shapes
    for name, s in (("x", x), ("y", y)):
        if 0 <= s.numDimensions() < 2:
            raise ctx.error(f"input '{name}' must have rank 2 or more, got shape {s}")
    xd, yd = x.asArray(), y.asArray()
    if xd is None or yd is None:
        return [Shape.unknown()]
    adjX, adjY = ctx.attrs["adj_x"], ctx.attrs["adj_y"]
    rows, kx = (xd[-1], xd[-2]) if adjX else (xd[-2], xd[-1])
    ky, cols = (yd[-1], yd[-2]) if adjY else (yd[-2], yd[-1])
    _innerDimensionsAgree(
        ctx, kx, ky, f"x {x}{' adjoint' if adjX else ''}, y {y}{' adjoint' if adjY else ''}"
    )
    batch = broadcast(ctx, Shape.of(*xd[:-2]), Shape.of(*yd[:-2])).asArray() or ()
    return [Shape.of(*batch, rows, cols)]


registerOp(
    OpDef(
        type="BatchMatMulV2",
        group="linalg",
        className="BatchMatMul",
        defaultName="BatchMatMul",
        summary="Multiplies slices of two tensors in batches.",
        description=(
            "Each of ``x`` and ``y`` is a batch of matrices, of shape ``[..., r_x, c_x]`` and\n"
            "``[..., r_y, c_y]`` (rank 2 or more). Every matrix of ``x`` is multiplied by the\n"
            "matrix of ``y`` at the same batch index; the batch dimensions broadcast against\n"
            "each other as in numpy. With ``adjX`` (``adjY``) the matrices of ``x`` (``y``) are\n"
            "adjointed (transposed, for real numbers) first. The result has shape\n"
            "``[..., r_o, c_o]`` with ``r_o = c_x if adjX else r_x`` and\n"
            "``c_o = r_y if adjY else c_y``."
        ),
        inputs=(
            InputDef("x", "a tensor of shape ``[..., r_x, c_x]``", typeAttr="T"),
            InputDef("y", "a tensor of shape ``[..., r_y, c_y]``, of the same data type",
                     typeAttr="T"),
        ),
        outputs=(OutputDef("output", "the products, of shape ``[..., r_o, c_o]``",
                           typeAttr="T"),),
        attrs=(
            AttrDef("adj_x", "bool", "if true, adjoint the slices of ``x``", default=False,
                    option="adjX"),
            AttrDef("adj_y", "bool", "if true, adjoint the slices of ``y``", default=False,
                    option="adjY"),
            AttrDef("T", "type", allowed=NUMBERS),
        ),
        infer=_batchMatMulShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> x = tf.constant(np.ones((4, 2, 3)))\n"
            ">>> p = tf.linalg.batchMatMul(x, tf.constant(np.ones((3, 5))))\n"
            ">>> p.asOutput().shape()\n"
            "Shape.of(4, 2, 5)\n"
            ">>> Session(g).runner().fetch(p).run()[0][0].tolist()\n"
            "[[3.0, 3.0, 3.0, 3.0, 3.0], [3.0, 3.0, 3.0, 3.0, 3.0]]"
        ),
    )
)


@registerGradient("BatchMatMulV2")
def _batchMatMulGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    x, y = op.x(0), op.x(1)
    adjX, adjY = bool(op.attr("adj_x")), bool(op.attr("adj_y"))
    dx: _Product
    dy: _Product
    if not adjX and not adjY:
        dx, dy = (g, y, False, True), (x, g, True, False)
    elif not adjX and adjY:
        dx, dy = (g, y, False, False), (g, x, True, False)
    elif adjX and not adjY:
        dx, dy = (y, g, False, True), (x, g, False, False)
    else:
        dx, dy = (y, g, True, True), (g, x, True, True)

    def mm(a: Output[TFloating], b: Output[TFloating], ta: bool, tb: bool) -> Output[TFloating]:
        return tf.linalg.batchMatMul(a, b, adjX=ta, adjY=tb).asOutput()

    # the batch dimensions that broadcast are summed back to each input's own shape
    return [
        sumToShape(tf, mm(*dx), x) if op.needs(0) else None,
        sumToShape(tf, mm(*dy), y) if op.needs(1) else None,
    ]
