"""numpy kernels of the binary math ops with broadcasting (``tfops.spec.math_binary``): the
division and remainder variants, Pow, Maximum and Minimum, the comparisons and the logical
connectives."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
from tfops.types import TBool, TFloating

Binary = Callable[[Array, Array], Array]


def _checkedInteger(fn: Binary, isBad: Callable[[Array], Any], message: str) -> Binary:
    """``fn`` for integer tensors, raising as TensorFlow when some ``isBad(y)`` element is used.

    When the result is empty no element is computed, so nothing can fail; otherwise broadcasting
    uses every element of ``y``.
    """

    def run(x: Array, y: Array) -> Array:
        if np.broadcast(x, y).size and np.any(isBad(y)):
            raise InvalidArgumentError(None, message)
        return np.asarray(fn(x, y))

    return run


def _floatOrInteger(forFloats: Binary, forIntegers: Binary) -> Factory:
    """The factory of a broadcasting kernel chosen by the op's data type ``T``."""

    def factory(site: KernelSite) -> Kernel:
        fn = forFloats if issubclass(site.attr("T"), TFloating) else forIntegers
        return broadcasting(fn)(site)

    return factory


def _isZero(y: Array) -> Array:
    return np.equal(y, 0)


def _isNegative(y: Array) -> Array:
    return np.less(y, 0)


_ZERO_DIVISOR = "Integer division by zero"


# -- division and remainder ----------------------------------------------------------------
def _divNoNan(x: Array, y: Array) -> Array:
    q = np.true_divide(x, y)
    return np.where(y == 0, np.zeros((), q.dtype), q)


def _floorDivFloat(x: Array, y: Array) -> Array:
    return np.floor(np.true_divide(x, y))


def _floorModFloat(x: Array, y: Array) -> Array:
    # TensorFlow's: the truncated remainder, moved by y when its sign differs from y's.
    # Unlike numpy's remainder, a zero result keeps the sign fmod gives it.
    r = np.fmod(x, y)
    return np.where((r != 0) & ((y < 0) != (r < 0)), r + y, r)


registerKernel("DivNoNan", broadcasting(_divNoNan), fresh=True)
registerKernel("RealDiv", broadcasting(np.true_divide), fresh=True)
registerKernel(
    "FloorDiv",
    _floatOrInteger(_floorDivFloat, _checkedInteger(np.floor_divide, _isZero, _ZERO_DIVISOR)),
    fresh=True,
)
registerKernel(
    "FloorMod",
    _floatOrInteger(_floorModFloat, _checkedInteger(np.remainder, _isZero, _ZERO_DIVISOR)),
    fresh=True,
)

# -- Pow, Maximum and Minimum --------------------------------------------------------------
registerKernel(
    "Pow",
    _floatOrInteger(np.power, _checkedInteger(
        np.power, _isNegative, "Integers to negative integer powers are not allowed")),
    fresh=True,
)
registerKernel("Maximum", broadcasting(np.maximum), fresh=True)
registerKernel("Minimum", broadcasting(np.minimum), fresh=True)


# -- comparisons ---------------------------------------------------------------------------
@registerKernel("NotEqual", fresh=True)
def _notEqual(site: KernelSite) -> Kernel:
    if site.attr("incompatible_shape_error"):
        return broadcasting(np.not_equal, TBool)(site)

    def run(x: Array, y: Array) -> Array:
        try:
            np.broadcast_shapes(x.shape, y.shape)
        except ValueError:
            return np.array(True)
        return np.asarray(np.not_equal(x, y))

    return broadcasting(run, TBool)(site)


registerKernel("Less", broadcasting(np.less, TBool), fresh=True)
registerKernel("LessEqual", broadcasting(np.less_equal, TBool), fresh=True)
registerKernel("Greater", broadcasting(np.greater, TBool), fresh=True)
registerKernel("GreaterEqual", broadcasting(np.greater_equal, TBool), fresh=True)

# -- logical connectives -------------------------------------------------------------------
registerKernel("LogicalAnd", broadcasting(np.logical_and, TBool), fresh=True)
registerKernel("LogicalOr", broadcasting(np.logical_or, TBool), fresh=True)
