"""Integer division and bitwise ops (``tfops.op.math``, ``tfops.op.bitwise``): Mod, TruncateDiv,
TruncateMod, BitwiseAnd/Or/Xor.
"""

from __future__ import annotations

from tfops.spec.grad import notDifferentiable
from tfops.spec.indexing import example
from tfops.spec.math_trig import binaryOp
from tfops.spec.rules import FLOATS, NUMBERS
from tfops.types import TInt32, TInt64, TUint8

_ZERO = (
    "A zero integer divisor raises ``InvalidArgumentError`` (\"Integer division by zero\")."
)

binaryOp(
    "Mod",
    "Returns element-wise remainder of division.",
    "The remainder of the division truncated towards zero, as C's ``%`` and ``fmod``: the\n"
    "result has the sign of ``x`` (or is zero), and ``truncatediv(x, y) * y + mod(x, y) ==\n"
    "x``; ``mod(-7, 3)`` is -1 (``tf.math.floorMod`` gives 2). The most negative integer mod\n"
    f"-1 is 0. {_ZERO} A zero floating point divisor, or an infinite ``x``, gives NaN; an\n"
    "infinite ``y`` gives ``x``. Mod has no gradient in TensorFlow: it is registered as not\n"
    "differentiable. TensorFlow has no float16 CPU kernel for Mod; tfops computes it.",
    (TInt32, TInt64, *FLOATS),
    example("tf.math.mod(tf.constant([7, -7, 7]), tf.constant([3, 3, -3]))", "[1, -1, 1]"),
)
binaryOp(
    "TruncateMod",
    "Returns element-wise remainder of division.",
    "The same as ``Mod``: the remainder of the division truncated towards zero, of the sign\n"
    "of ``x`` (``fmod`` for floating point numbers). TensorFlow's CPU kernel raises an\n"
    "``InternalError`` (\"Unexpected error in binary operator\") for a zero integer divisor;\n"
    "tfops raises ``InvalidArgumentError`` (\"Integer division by zero\"), as for ``Mod``.\n"
    "TruncateMod has no gradient: it is registered as not differentiable. TensorFlow has no\n"
    "float16 CPU kernel for it; tfops computes it.",
    (TInt32, TInt64, *FLOATS),
    example("tf.math.truncateMod(tf.constant([7, -7, 7]), tf.constant([3, 3, -3]))",
            "[1, -1, 1]"),
)
binaryOp(
    "TruncateDiv",
    "Returns x / y element-wise, rounded towards zero.",
    "Truncation designates that negative numbers will round fractional quantities toward\n"
    "zero: ``truncatediv(-7, 2)`` is -3 (``tf.math.floorDiv`` gives -4). Floating point\n"
    "quotients are truncated too (``truncatediv(-7.5, 2.0)`` is -3.0), and a zero divisor gives\n"
    "``inf``, ``-inf`` or NaN. The most negative integer divided by -1 wraps around to itself.\n"
    "TensorFlow's CPU kernel raises an ``InternalError`` (\"Unexpected error in binary\n"
    "operator\") for a zero integer divisor; tfops raises ``InvalidArgumentError`` (\"Integer\n"
    "division by zero\"), as ``Div`` does. TruncateDiv passes no gradient (TensorFlow's rule\n"
    "returns none).",
    NUMBERS,
    example("tf.math.truncateDiv(tf.constant([7, -7, 7]), tf.constant([3, 3, -3]))",
            "[2, -2, -2]"),
)
notDifferentiable("Mod", "TruncateMod", "TruncateDiv")

_BITWISE = (TInt32, TInt64, TUint8)
for _type, _word, _result in [
    ("BitwiseAnd", "AND", "[0, 1, 2, 1]"),
    ("BitwiseOr", "OR", "[5, 5, 7, 15]"),
    ("BitwiseXor", "XOR", "[5, 4, 5, 14]"),
]:
    binaryOp(
        _type,
        f"Elementwise computes the bitwise {_word} of ``x`` and ``y``.",
        f"The result is set in the bits where the bitwise {_word} of the corresponding bits of\n"
        "``x`` and ``y`` is; signed integers are in two's complement. Integer types only; not\n"
        "differentiable.",
        _BITWISE,
        example(f"tf.bitwise.{_type[0].lower()}{_type[1:]}(tf.constant([0, 1, 2, 15]), "
                "tf.constant([5, 5, 7, 1]))", _result),
        group="bitwise",
    )
notDifferentiable("BitwiseAnd", "BitwiseOr", "BitwiseXor")
