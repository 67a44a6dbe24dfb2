"""Matrix factorizations (``tfops.op.linalg``): Cholesky and Qr.

The inputs are batches of matrices: the last two dimensions index a matrix, the others the
batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from tfops.errors import UnimplementedError
from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, registerGradient
from tfops.spec.linalg_solve import (
    SINGLE_AND_DOUBLE,
    adjoint,
    matrices,
    product,
    squareMatrices,
    triangle,
)
from tfops.spec.rules import FLOATS
from tfops.types import TFloating

if TYPE_CHECKING:
    from tfops.ops import Ops


# -- Cholesky ------------------------------------------------------------------------------
def _choleskyShape(ctx: InferContext) -> Sequence[Shape]:
    dims = squareMatrices(ctx, ctx.shapes[0], "input")
    return [Shape.unknown() if dims is None else Shape.of(*dims)]


registerOp(
    OpDef(
        type="Cholesky",
        group="linalg",
        summary="Computes the Cholesky decomposition of one or more square matrices.",
        description=(
            "The input is a tensor of shape ``[..., M, M]`` whose inner-most 2 dimensions form\n"
            "square matrices, each symmetric and positive definite. Only the lower triangle of\n"
            "each matrix (its diagonal included) is read; the strictly upper triangle is\n"
            "ignored, as if it mirrored the lower one. The output has the input's shape: for\n"
            "each matrix ``A`` the lower triangular ``L`` with a positive diagonal such that\n"
            "``A = L * adjoint(L)``, zeros above its diagonal. A matrix that is not positive\n"
            "definite is not an error (TensorFlow's CPU kernel raises none either): the lower\n"
            "triangle of its result, diagonal included, is NaN. TensorFlow leaves the upper\n"
            "triangle of such a result uninitialized; here it is zero.\n"
            "Half precision is not accepted: TensorFlow's op definition lists it, but it has\n"
            "no CPU kernel for it."
        ),
        inputs=(InputDef("input", "a batch of symmetric positive definite matrices, shape "
                         "``[..., M, M]``", typeAttr="T"),),
        outputs=(OutputDef("output", "their lower triangular factors, shape ``[..., M, M]``",
                           typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=SINGLE_AND_DOUBLE),),
        infer=_choleskyShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> l = tf.linalg.cholesky(tf.constant([[4.0, 2.0], [2.0, 5.0]]))\n"
            ">>> Session(g).runner().fetch(l).run()[0].tolist()\n"
            "[[2.0, 0.0], [1.0, 2.0]]"
        ),
    )
)


def identityLike(tf: Ops, x: Output[TFloating]) -> Output[TFloating]:
    """A batch of identity matrices of the shape of the batch of square matrices ``x``."""
    ones = tf.onesLike(x)
    row, col = tf.math.cumsum(ones, tf.constant(-2)), tf.math.cumsum(ones, tf.constant(-1))
    return tf.dtypes.cast(tf.math.equal(row, col), x.dataType()).asOutput()


@registerGradient("Cholesky")
def _choleskyGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    # L^-H ((L^H g) * (tril(ones) - eye / 2)) L^-1, made symmetric
    factor = op.y()
    lInverse = tf.linalg.triangularSolve(factor, identityLike(tf, factor)).asOutput()
    middle = triangle(tf, product(tf, factor, g, adjX=True), lower=True, diagonal=0.5)
    gradInput = product(tf, product(tf, lInverse, middle, adjX=True), lInverse)
    return [tf.math.mul(tf.math.add(gradInput, adjoint(tf, gradInput)), 0.5)]


# -- Qr ------------------------------------------------------------------------------------
def _qrShape(ctx: InferContext) -> Sequence[Shape]:
    dims = matrices(ctx, ctx.shapes[0], "input")
    if dims is None:
        return [Shape.unknown(), Shape.unknown()]
    *batch, m, n = dims
    if ctx.attrs["full_matrices"]:
        return [Shape.of(*batch, m, m), Shape.of(*batch, m, n)]
    p = min(m, n) if m >= 0 and n >= 0 else -1
    return [Shape.of(*batch, m, p), Shape.of(*batch, p, n)]


registerOp(
    OpDef(
        type="Qr",
        group="linalg",
        summary="Computes the QR decompositions of one or more matrices.",
        description=(
            "The input is a tensor of shape ``[..., M, N]`` whose inner-most 2 dimensions form\n"
            "matrices. Each matrix is decomposed as ``Q * R`` with ``Q`` having orthonormal\n"
            "columns and ``R`` upper triangular, by Householder reflections as in TensorFlow\n"
            "(the diagonal of ``R`` may be negative: the signs are those of LAPACK's and\n"
            "Eigen's Householder QR). With ``full_matrices`` false (the default) ``q`` has\n"
            "shape ``[..., M, P]`` and ``r`` ``[..., P, N]``, ``P = min(M, N)``; with it true\n"
            "``q`` is ``[..., M, M]`` and ``r`` ``[..., M, N]``. Half precision is computed in\n"
            "single precision and rounded. The gradient needs the last two dimensions of the\n"
            "outputs known when it is built, and is not defined for ``M > N`` with\n"
            "``full_matrices`` true (TensorFlow's rule has the same limits)."
        ),
        inputs=(InputDef("input", "a batch of matrices, shape ``[..., M, N]``", typeAttr="T"),),
        outputs=(
            OutputDef("q", "the orthonormal factors", typeAttr="T"),
            OutputDef("r", "the upper triangular factors", typeAttr="T"),
        ),
        attrs=(
            AttrDef("full_matrices", "bool", "if true, compute the full-sized ``q`` and ``r``",
                    default=False, option="fullMatrices"),
            AttrDef("T", "type", allowed=FLOATS),
        ),
        infer=_qrShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> qr = tf.linalg.qr(tf.constant([[3.0, 1.0], [4.0, 2.0]]))\n"
            ">>> q, r = Session(g).runner().fetch(qr.q()).fetch(qr.r()).run()\n"
            ">>> q.round(4).tolist(), r.round(4).tolist()\n"
            "([[-0.6, -0.8], [-0.8, 0.6]], [[-5.0, -2.2], [0.0, 0.4]])"
        ),
    )
)


def _columns(tf: Ops, x: Output[TFloating], start: int | None, stop: int | None
             ) -> Output[TFloating]:
    """``x[..., :, start:stop]``."""
    begin, end = np.array([0, 0, start or 0], np.int32), np.array([0, 0, stop or 0], np.int32)
    return tf.stridedSlice(
        x, begin, end, np.ones(3, np.int32), ellipsisMask=1,
        beginMask=2 | (4 if start is None else 0), endMask=2 | (4 if stop is None else 0),
    ).asOutput()


def _timesInverseOfAdjoint(tf: Ops, x: Output[TFloating], r: Output[TFloating]
                           ) -> Output[TFloating]:
    """``x * adjoint(inverse(r))`` for upper triangular ``r``, by a triangular solve."""
    solved = tf.linalg.triangularSolve(r, adjoint(tf, x), lower=False).asOutput()
    return adjoint(tf, solved)


def _qrGradSquareOrDeep(tf: Ops, q: Output[TFloating], r: Output[TFloating],
                        dq: Output[TFloating], dr: Output[TFloating]) -> Output[TFloating]:
    """The gradient for ``M >= N`` and reduced factors (arXiv:2009.10071, as TensorFlow)."""
    qdq = product(tf, q, dq, adjX=True)
    rdr = product(tf, r, dr, adjY=True)
    skew = tf.math.add(tf.math.sub(qdq, adjoint(tf, qdq)), tf.math.sub(rdr, adjoint(tf, rdr)))
    lowerPart = triangle(tf, skew.asOutput(), lower=True)
    fromR = product(tf, q, tf.math.add(dr, _timesInverseOfAdjoint(tf, lowerPart, r)).asOutput())
    fromQ = _timesInverseOfAdjoint(tf, tf.math.sub(dq, product(tf, q, qdq)).asOutput(), r)
    return tf.math.add(fromR, fromQ).asOutput()


@registerGradient("Qr")
def _qrGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    q, r, dq, dr = op.y(0), op.y(1), op.grad(0), op.grad(1)
    dims = r.shape().asArray()
    if dims is None or dims[-2] < 0 or dims[-1] < 0:
        raise UnimplementedError(op.operation(), "the gradient of Qr needs the last two "
                                 f"dimensions of 'r' known when it is built, got {r.shape()}")
    rows, cols = dims[-2], dims[-1]
    if rows > cols:
        raise UnimplementedError(op.operation(), "the gradient of Qr is not defined for more "
                                 f"rows than columns with full_matrices true (r {r.shape()})")
    if rows == cols:
        return [_qrGradSquareOrDeep(tf, q, r, dq, dr)]
    # a wide matrix: with a = [x, y] and r = [u, v], the square case gives the part of x
    y = _columns(tf, op.x(), rows, None)
    u, du, dv = _columns(tf, r, None, rows), _columns(tf, dr, None, rows), _columns(
        tf, dr, rows, None)
    dx = _qrGradSquareOrDeep(tf, q, u, tf.math.add(dq, product(tf, y, dv, adjY=True)
                                                   ).asOutput(), du)
    return [tf.concat([dx, product(tf, q, dv)], tf.constant(-1))]
