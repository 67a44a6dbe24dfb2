"""The numpy kernels of :mod:`tfops.spec.math_integer`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tfops.backend.numpy.registry import (
    Array,
    Factory,
    Kernel,
    KernelSite,
    broadcasting,
    registerKernel,
)
from tfops.errors import InvalidArgumentError

Binary = Callable[[Array, Array], Array]
ZERO_DIVISOR = "Integer division by zero"


def _floatOrInteger(forFloats: Binary, forIntegers: Binary) -> Factory:
    """A broadcasting kernel: ``forFloats`` for floating point ``T``; for integers
    ``forIntegers``, raising as TensorFlow's Div when some element of ``y`` is zero (when the
    result has elements: broadcasting then uses every element of ``y``)."""

    def checked(x: Array, y: Array) -> Array:
        if np.broadcast(x, y).size and not np.all(y):
            raise InvalidArgumentError(None, ZERO_DIVISOR)
        with np.errstate(over="ignore"):  # INT_MIN / -1 wraps around to INT_MIN
            return np.asarray(forIntegers(x, y))

    def factory(site: KernelSite) -> Kernel:
        floating = site.attr("T").DTYPE.kind == "f"
        return broadcasting(forFloats if floating else checked)(site)

    return factory


def _truncateDivide(x: Array, y: Array) -> Array:
    """Integer division rounding towards zero: the floor, moved up by one where the division
    is inexact and the signs differ."""
    q = np.floor_divide(x, y)
    if x.dtype.kind == "u":
        return q
    inexact = np.fmod(x, y) != 0
    return np.where(inexact & ((x < 0) != (y < 0)), q + np.ones((), q.dtype), q)


def _truncateDivideFloats(x: Array, y: Array) -> Array:
    return np.trunc(np.true_divide(x, y))


# fmod is the remainder of truncated division, for integers (INT_MIN fmod -1 is 0) and floats
registerKernel("Mod", _floatOrInteger(np.fmod, np.fmod), fresh=True)
registerKernel("TruncateMod", _floatOrInteger(np.fmod, np.fmod), fresh=True)
registerKernel("TruncateDiv", _floatOrInteger(_truncateDivideFloats, _truncateDivide), fresh=True)
registerKernel("BitwiseAnd", broadcasting(np.bitwise_and), fresh=True)
registerKernel("BitwiseOr", broadcasting(np.bitwise_or), fresh=True)
registerKernel("BitwiseXor", broadcasting(np.bitwise_xor), fresh=True)
