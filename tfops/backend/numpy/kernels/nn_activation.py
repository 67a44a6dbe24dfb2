"""The numpy kernels of :mod:`tfops.spec.nn_activation`: LeakyRelu, Selu, Softsign and their
gradient ops, with TensorFlow's formulas (each computed in the features' data type)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tfops.backend.numpy.registry import Array, Kernel, KernelSite, elementwise, registerKernel
from tfops.errors import InvalidArgumentError
from tfops.spec.nn_activation import SELU_SCALE, SELU_SCALE_ALPHA


def _const(value: float, like: Array) -> Array:
    return np.asarray(value, like.dtype)


def _alpha(site: KernelSite) -> float:
    # a TensorFlow float attribute is single precision
    return float(np.float32(site.attr("alpha")))


# -- activations ---------------------------------------------------------------------------
@registerKernel("LeakyRelu", fresh=True)
def _leakyRelu(site: KernelSite) -> Kernel:
    alpha = _alpha(site)

    def run(x: Array) -> Array:
        result: Array = np.where(x > 0, x, x * _const(alpha, x))
        return result

    return run


def _selu(x: Array) -> Array:
    with np.errstate(over="ignore"):  # exp of large positive features is not selected
        negative = _const(SELU_SCALE_ALPHA, x) * (np.exp(x) - _const(1.0, x))
    result: Array = np.where(x < 0, negative, _const(SELU_SCALE, x) * x)
    return result


def _softsign(x: Array) -> Array:
    with np.errstate(invalid="ignore"):  # inf / inf is nan, as in TensorFlow
        result: Array = x / (np.abs(x) + _const(1.0, x))
    return result


registerKernel("Selu", elementwise(_selu), fresh=True)
registerKernel("Softsign", elementwise(_softsign), fresh=True)


# -- the gradient ops ----------------------------------------------------------------------
def _sameShapes(g: Array, other: Array) -> None:
    if g.shape != other.shape:
        raise InvalidArgumentError(
            None, f"inputs must have the same shape, got {list(g.shape)} and {list(other.shape)}"
        )


def _gradKernel(fn: Callable[[Array, Array], Array]) -> Callable[[KernelSite], Kernel]:
    def run(gradients: Array, other: Array) -> Array:
        _sameShapes(gradients, other)
        return fn(gradients, other)

    return lambda site: run


@registerKernel("LeakyReluGrad", fresh=True)
def _leakyReluGrad(site: KernelSite) -> Kernel:
    alpha = _alpha(site)

    def run(g: Array, x: Array) -> Array:
        _sameShapes(g, x)
        result: Array = np.where(x > 0, g, g * _const(alpha, g))
        return result

    return run


def _seluGrad(g: Array, y: Array) -> Array:
    result: Array = np.where(y < 0, g * (y + _const(SELU_SCALE_ALPHA, y)),
                             g * _const(SELU_SCALE, g))
    return result


def _softsignGrad(g: Array, x: Array) -> Array:
    with np.errstate(over="ignore", invalid="ignore"):
        result: Array = g / np.square(np.abs(x) + _const(1.0, x))
    return result


registerKernel("SeluGrad", _gradKernel(_seluGrad), fresh=True)
registerKernel("SoftsignGrad", _gradKernel(_softsignGrad), fresh=True)
