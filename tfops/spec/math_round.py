"""Rounding (``tfops.op.math``): Floor, Ceil, Round, Rint."""

from __future__ import annotations

from tfops.spec.grad import notDifferentiable
from tfops.spec.indexing import example
from tfops.spec.math_trig import unaryOp
from tfops.spec.rules import FLOATS
from tfops.types import TInt32, TInt64

unaryOp(
    "Floor",
    "Returns element-wise largest integer not greater than x.",
    "The result keeps the floating point type of ``x``; -0.0, infinities and NaN stay as they\n"
    "are. Its gradient is zero almost everywhere: Floor passes no gradient (TensorFlow's rule\n"
    "returns none).",
    FLOATS,
    example("tf.math.floor(tf.constant([-1.5, 0.5, 2.0]))", "[-2.0, 0.0, 2.0]"),
)
unaryOp(
    "Ceil",
    "Returns element-wise smallest integer not less than x.",
    "The result keeps the floating point type of ``x``; values in (-1, 0) give -0.0, and\n"
    "infinities and NaN stay as they are. Ceil passes no gradient (TensorFlow's rule returns\n"
    "none).",
    FLOATS,
    example("tf.math.ceil(tf.constant([-1.5, 0.5, 2.0]))", "[-1.0, 1.0, 2.0]"),
)
unaryOp(
    "Round",
    "Rounds the values of a tensor to the nearest integer, element-wise.",
    "Rounds half to even, also known as banker's rounding: 0.5 and 1.5 give 0 and 2, -2.5\n"
    "gives -2 (not away from zero as C's ``round``). The sign of zero is kept. Integer tensors\n"
    "are returned unchanged, as by TensorFlow Python's ``tf.math.round`` (which does not run\n"
    "the op for them: TensorFlow 2.21's CPU kernel of Round gives zeros for integer tensors, a\n"
    "bug tfops does not reproduce). Round passes no gradient (TensorFlow's rule returns none).",
    (*FLOATS, TInt32, TInt64),
    example("tf.math.round(tf.constant([0.5, 1.5, 2.5, -2.5, 2.7]))",
            "[0.0, 2.0, 2.0, -2.0, 3.0]"),
)
unaryOp(
    "Rint",
    "Returns element-wise integer closest to x.",
    "If the result is midway between two representable values, the even representable is\n"
    "chosen: as Round for floating point tensors (rint(-1.5) is -2, rint(0.5) is 0). Rint\n"
    "passes no gradient (TensorFlow's rule returns none). TensorFlow has no float16 CPU\n"
    "kernel for Rint; tfops computes it in float16 as the other types.",
    FLOATS,
    example("tf.math.rint(tf.constant([-1.7, -1.5, 0.5, 1.5]))", "[-2.0, -2.0, 0.0, 2.0]"),
)
notDifferentiable("Floor", "Ceil", "Round", "Rint")
