"""Inverses and solvers (``tfops.op.linalg``): MatrixInverse, MatrixDeterminant, MatrixSolve,
MatrixTriangularSolve. The factorizations (Cholesky, Qr) are in :mod:`tfops.spec.linalg_factor`.

The inputs are batches of matrices: the last two dimensions index a matrix, the others the
batch. TensorFlow's CPU kernels of MatrixDeterminant, MatrixSolve and MatrixTriangularSolve take
single and double precision only (its op definitions list half precision, but no CPU kernel
runs it), so half precision is rejected here when the op is created.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, registerGradient, sumToShape
from tfops.spec.rules import FLOATS, broadcast
from tfops.types import TFloat32, TFloat64, TFloating, TType

if TYPE_CHECKING:
    from tfops.ops import Ops

SINGLE_AND_DOUBLE: tuple[type[TType], ...] = (TFloat32, TFloat64)
"""The data types of TensorFlow's CPU kernels of the solvers and of Cholesky."""


def squareMatrices(ctx: InferContext, s: Shape, name: str) -> tuple[int, ...] | None:
    """The dimensions of input ``name`` (``None`` when its rank is unknown), checked to be a
    batch of square matrices (rank 2 or more, the last two dimensions equal where known)."""
    dims = s.asArray()
    if dims is None:
        return None
    if len(dims) < 2:
        raise ctx.error(f"input '{name}' must have rank 2 or more (a batch of matrices), "
                        f"got shape {s}")
    rows, cols = dims[-2], dims[-1]
    if rows >= 0 and cols >= 0 and rows != cols:
        raise ctx.error(f"input '{name}' must be a batch of square matrices, got shape {s} "
                        f"({rows} rows, {cols} columns)")
    n = max(rows, cols)
    return (*dims[:-2], n, n)


def matrices(ctx: InferContext, s: Shape, name: str) -> tuple[int, ...] | None:
    """The dimensions of input ``name`` (``None`` when its rank is unknown), checked to have
    rank 2 or more."""
    dims = s.asArray()
    if dims is not None and len(dims) < 2:
        raise ctx.error(f"input '{name}' must have rank 2 or more (a batch of matrices), "
                        f"got shape {s}")
    return dims


def _merged(a: int, b: int) -> int:
    return a if a >= 0 else b


def adjoint(tf: Ops, x: Output[TFloating]) -> Output[TFloating]:
    """The adjoint (transpose, for real numbers) of each matrix of the batch ``x``."""
    rank = x.shape().numDimensions()
    if rank >= 0:
        return tf.linalg.transpose(x, tf.constant([*range(rank - 2), rank - 1, rank - 2])
                                   ).asOutput()
    batch = tf.math.sub(tf.rank(x), 2)
    perm = tf.concat([tf.range(0, batch, 1), tf.stack([tf.math.add(batch, 1), batch])], 0)
    return tf.linalg.transpose(x, perm).asOutput()


def triangle(tf: Ops, x: Output[TFloating], lower: bool, diagonal: float = 1.0
             ) -> Output[TFloating]:
    """The lower (or upper) triangle of each matrix of ``x``, its diagonal scaled by
    ``diagonal``, zeros elsewhere: TensorFlow's ``matrix_band_part(x, -1, 0)`` (``(0, -1)``),
    built from ops that take any shape (the row and column of each element are cumulative
    sums of ones)."""
    ones = tf.onesLike(x)
    row, col = tf.math.cumsum(ones, tf.constant(-2)), tf.math.cumsum(ones, tf.constant(-1))
    strict = tf.math.greater(row, col) if lower else tf.math.less(row, col)
    mask = tf.dtypes.cast(strict, x.dataType()).asOutput()
    if diagonal:
        onDiagonal = tf.dtypes.cast(tf.math.equal(row, col), x.dataType())
        mask = tf.math.add(mask, tf.math.mul(onDiagonal, diagonal)).asOutput()
    return tf.math.mul(x, mask).asOutput()


def product(tf: Ops, x: Output[TFloating], y: Output[TFloating], adjX: bool = False,
            adjY: bool = False) -> Output[TFloating]:
    """The batch matrix product of ``x`` and ``y``, each adjointed when flagged."""
    return tf.linalg.batchMatMul(x, y, adjX=adjX, adjY=adjY).asOutput()


# -- MatrixInverse -------------------------------------------------------------------------
def _sameSquareShape(ctx: InferContext) -> Sequence[Shape]:
    dims = squareMatrices(ctx, ctx.shapes[0], "input")
    return [Shape.unknown() if dims is None else Shape.of(*dims)]


registerOp(
    OpDef(
        type="MatrixInverse",
        group="linalg",
        className="Inv",
        summary="Computes the inverse of one or more square invertible matrices or their "
                "adjoints.",
        description=(
            "The input is a tensor of shape ``[..., M, M]`` whose inner-most 2 dimensions form\n"
            "square matrices. The output is a tensor of the same shape where each matrix is\n"
            "the inverse of the corresponding input matrix (of its adjoint, the conjugate\n"
            "transpose, when ``adjoint`` is true). The inverse is computed by LU decomposition\n"
            "with partial pivoting; a matrix whose decomposition meets a pivot of exactly zero\n"
            "is not invertible, and running the op then raises ``InvalidArgumentError``\n"
            "(\"Input is not invertible.\"). A matrix that is only nearly singular gives large,\n"
            "inaccurate entries, as in TensorFlow. Half precision is computed in single\n"
            "precision and rounded."
        ),
        inputs=(InputDef("input", "a batch of square matrices, shape ``[..., M, M]``",
                         typeAttr="T"),),
        outputs=(OutputDef("output", "their inverses, shape ``[..., M, M]``", typeAttr="T"),),
        attrs=(
            AttrDef("adjoint", "bool", "if true, invert the adjoint of each matrix",
                    default=False, option="adjoint"),
            AttrDef("T", "type", allowed=FLOATS),
        ),
        infer=_sameSquareShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> inv = tf.linalg.inv(tf.constant([[2.0, 0.0], [1.0, 1.0]]))\n"
            ">>> Session(g).runner().fetch(inv).run()[0].tolist()\n"
            "[[0.5, 0.0], [-0.5, 1.0]]"
        ),
    )
)


@registerGradient("MatrixInverse")
def _matrixInverseGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    inverse, adj = op.y(), bool(op.attr("adjoint"))
    inner = product(tf, g, inverse, adjX=adj, adjY=not adj)
    return [tf.math.neg(product(tf, inverse, inner, adjX=not adj))]


# -- MatrixDeterminant ---------------------------------------------------------------------
def _determinantShape(ctx: InferContext) -> Sequence[Shape]:
    dims = squareMatrices(ctx, ctx.shapes[0], "input")
    return [Shape.unknown() if dims is None else Shape.of(*dims[:-2])]


registerOp(
    OpDef(
        type="MatrixDeterminant",
        group="linalg",
        className="Det",
        summary="Computes the determinant of one or more square matrices.",
        description=(
            "The input is a tensor of shape ``[..., M, M]`` whose inner-most 2 dimensions form\n"
            "square matrices. The output is a tensor of shape ``[...]`` holding the determinant\n"
            "of each matrix: the product of the pivots of its LU decomposition with partial\n"
            "pivoting, negated once per row exchange, as TensorFlow's CPU kernel computes it\n"
            "(so an exactly singular matrix may give ``-0.0``, and one that is singular only\n"
            "in exact arithmetic a tiny value; the XLA backend's LU, LAPACK's, may round such\n"
            "a value differently). The determinant of an empty (0 x 0) matrix is 1. Overflow\n"
            "gives an infinity, as in TensorFlow; no error is raised.\n"
            "Half precision is not accepted: TensorFlow's op definition lists it, but it has\n"
            "no CPU kernel for it."
        ),
        inputs=(InputDef("input", "a batch of square matrices, shape ``[..., M, M]``",
                         typeAttr="T"),),
        outputs=(OutputDef("output", "their determinants, shape ``[...]``", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=SINGLE_AND_DOUBLE),),
        infer=_determinantShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> d = tf.linalg.det(tf.constant([[[1.0, 2.0], [3.0, 4.0]], [[2.0, 0.0], "
            "[0.0, 5.0]]]))\n"
            ">>> d.asOutput().shape(), Session(g).runner().fetch(d).run()[0].round(6).tolist()\n"
            "(Shape.of(2), [-2.0, 10.0])"
        ),
    )
)


@registerGradient("MatrixDeterminant")
def _matrixDeterminantGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    # d det(a) / da = det(a) * inverse(a)^H; a singular matrix fails as in TensorFlow
    inverseAdjoint = tf.linalg.inv(op.x(), adjoint=True)
    multipliers = tf.expandDims(tf.expandDims(tf.math.mul(g, op.y()), tf.constant(-1)),
                                tf.constant(-1))
    return [tf.math.mul(multipliers, inverseAdjoint)]


# -- MatrixSolve ---------------------------------------------------------------------------
def _solveShape(ctx: InferContext) -> Sequence[Shape]:
    a = squareMatrices(ctx, ctx.shapes[0], "matrix")
    b = matrices(ctx, ctx.shapes[1], "rhs")
    if a is None and b is None:
        return [Shape.unknown()]
    # one of unknown rank takes the other's: the result is [..., M, K] either way
    a = a if a is not None else (*(b or ())[:-1], -1)
    b = b if b is not None else (*a[:-1], -1)
    if len(a) != len(b):
        raise ctx.error(f"input 'matrix' {ctx.shapes[0]} and input 'rhs' {ctx.shapes[1]} must "
                        "have the same rank")
    batch: list[int] = []
    for i, (x, y) in enumerate(zip(a[:-1], b[:-1], strict=True)):
        if x >= 0 and y >= 0 and x != y:
            what = "rows" if i == len(a) - 2 else f"batch dimension {i}"
            raise ctx.error(f"input 'matrix' {ctx.shapes[0]} and input 'rhs' "
                            f"{ctx.shapes[1]} differ in their {what}: {x} and {y}")
        batch.append(_merged(x, y))
    return [Shape.of(*batch[:-1], _merged(a[-1], batch[-1]), b[-1])]


registerOp(
    OpDef(
        type="MatrixSolve",
        group="linalg",
        className="Solve",
        summary="Solves systems of linear equations.",
        description=(
            "``matrix`` is a tensor of shape ``[..., M, M]`` whose inner-most 2 dimensions form\n"
            "square matrices; ``rhs`` is a tensor of shape ``[..., M, K]`` with the same batch\n"
            "dimensions (they do not broadcast). The output is a tensor of shape\n"
            "``[..., M, K]``: each of its matrices ``X`` solves ``matrix[..., :, :] * X =\n"
            "rhs[..., :, :]`` (``adjoint(matrix[..., :, :]) * X = rhs[..., :, :]`` when\n"
            "``adjoint`` is true). The systems are solved by LU decomposition with partial\n"
            "pivoting; a matrix whose decomposition meets a pivot of exactly zero makes the op\n"
            "raise ``InvalidArgumentError`` (\"Input matrix is not invertible.\") when run.\n"
            "Half precision is not accepted: TensorFlow's op definition lists it, but it has\n"
            "no CPU kernel for it."
        ),
        inputs=(
            InputDef("matrix", "a batch of square matrices, shape ``[..., M, M]``",
                     typeAttr="T"),
            InputDef("rhs", "the right-hand sides, shape ``[..., M, K]``", typeAttr="T"),
        ),
        outputs=(OutputDef("output", "the solutions, shape ``[..., M, K]``", typeAttr="T"),),
        attrs=(
            AttrDef("adjoint", "bool", "if true, solve with the adjoint of each matrix",
                    default=False, option="adjoint"),
            AttrDef("T", "type", allowed=SINGLE_AND_DOUBLE),
        ),
        infer=_solveShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> a = tf.constant([[2.0, 0.0], [1.0, 1.0]])\n"
            ">>> x = tf.linalg.solve(a, tf.constant([[2.0], [3.0]]))\n"
            ">>> Session(g).runner().fetch(x).run()[0].tolist()\n"
            "[[1.0], [2.0]]"
        ),
    )
)


@registerGradient("MatrixSolve")
def _matrixSolveGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    adj, x = bool(op.attr("adjoint")), op.y()
    gradRhs = tf.linalg.solve(op.x(0), g, adjoint=not adj).asOutput()
    gradMatrix = product(tf, x, gradRhs, adjY=True) if adj else product(tf, gradRhs, x,
                                                                        adjY=True)
    return [tf.math.neg(gradMatrix), gradRhs]


# -- MatrixTriangularSolve -----------------------------------------------------------------
def _triangularSolveShape(ctx: InferContext) -> Sequence[Shape]:
    a = squareMatrices(ctx, ctx.shapes[0], "matrix")
    b = matrices(ctx, ctx.shapes[1], "rhs")
    if a is None or b is None:
        return [Shape.unknown()]
    if a[-2] >= 0 and b[-2] >= 0 and a[-2] != b[-2]:
        raise ctx.error(f"input 'matrix' {ctx.shapes[0]} and input 'rhs' {ctx.shapes[1]} "
                        f"differ in their rows: {a[-2]} and {b[-2]}")
    batch = broadcast(ctx, Shape.of(*a[:-2]), Shape.of(*b[:-2])).asArray() or ()
    return [Shape.of(*batch, _merged(b[-2], a[-2]), b[-1])]


registerOp(
    OpDef(
        type="MatrixTriangularSolve",
        group="linalg",
        className="TriangularSolve",
        summary="Solves systems of linear equations with upper or lower triangular matrices.",
        description=(
            "``matrix`` is a tensor of shape ``[..., M, M]`` whose inner-most 2 dimensions form\n"
            "square matrices. With ``lower`` true (the default) only the lower triangle of each\n"
            "matrix (its diagonal included) is read, as if the strictly upper triangle were\n"
            "zero; with ``lower`` false only the upper triangle. ``rhs`` is a tensor of shape\n"
            "``[..., M, N]``; the batch dimensions of the two inputs broadcast against each\n"
            "other. The output ``X`` of shape ``[..., M, N]`` solves ``matrix * X = rhs``\n"
            "(``adjoint(matrix) * X = rhs`` when ``adjoint`` is true) for each matrix of the\n"
            "batch, by substitution. A zero on the diagonal is not an error: it gives\n"
            "infinities or NaN, as in TensorFlow.\n"
            "Half precision is not accepted: TensorFlow's op definition lists it, but it has\n"
            "no CPU kernel for it."
        ),
        inputs=(
            InputDef("matrix", "a batch of triangular matrices, shape ``[..., M, M]``",
                     typeAttr="T"),
            InputDef("rhs", "the right-hand sides, shape ``[..., M, N]``", typeAttr="T"),
        ),
        outputs=(OutputDef("output", "the solutions, shape ``[..., M, N]``", typeAttr="T"),),
        attrs=(
            AttrDef("lower", "bool", "whether the matrices are lower (else upper) triangular",
                    default=True, option="lower"),
            AttrDef("adjoint", "bool", "if true, solve with the adjoint of each matrix",
                    default=False, option="adjoint"),
            AttrDef("T", "type", allowed=SINGLE_AND_DOUBLE),
        ),
        infer=_triangularSolveShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> a = tf.constant([[2.0, 0.0], [1.0, 1.0]])\n"
            ">>> x = tf.linalg.triangularSolve(a, tf.constant([[2.0], [3.0]]))\n"
            ">>> Session(g).runner().fetch(x).run()[0].tolist()\n"
            "[[1.0], [2.0]]"
        ),
    )
)


@registerGradient("MatrixTriangularSolve")
def _matrixTriangularSolveGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    a, b, x = op.x(0), op.x(1), op.y()
    adj, lower = bool(op.attr("adjoint")), bool(op.attr("lower"))
    gradRhs = tf.linalg.triangularSolve(a, g, lower=lower, adjoint=not adj).asOutput()
    full = product(tf, x, gradRhs, adjY=True) if adj else product(tf, gradRhs, x, adjY=True)
    gradMatrix = triangle(tf, tf.math.neg(full).asOutput(), lower)
    # the batch dimensions that broadcast are summed back to each input's own shape
    return [sumToShape(tf, gradMatrix, a), sumToShape(tf, gradRhs, b)]
