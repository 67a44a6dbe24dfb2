"""numpy kernels of the unary math ops (``tfops.spec.math_unary``)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tfops.backend.numpy.registry import Array, elementwise, registerKernel


def _rsqrt(x: Array) -> Array:
    result: Array = np.reciprocal(np.sqrt(x))
    return result


def _sigmoid(x: Array) -> Array:
    result: Array = np.reciprocal(1 + np.exp(np.negative(x)))
    return result


def _softplus(x: Array) -> Array:
    result: Array = np.logaddexp(0, x)
    return result


_FUNCTIONS: dict[str, Callable[[Array], Array]] = {
    "Abs": np.abs,
    "Sign": np.sign,
    "Sqrt": np.sqrt,
    "Rsqrt": _rsqrt,
    "Expm1": np.expm1,
    "Log1p": np.log1p,
    "Tanh": np.tanh,
    "Sigmoid": _sigmoid,
    "Softplus": _softplus,
    "IsFinite": np.isfinite,
    "IsNan": np.isnan,
    "LogicalNot": np.logical_not,
}
for _name, _function in _FUNCTIONS.items():
    registerKernel(_name, elementwise(_function), fresh=True)
