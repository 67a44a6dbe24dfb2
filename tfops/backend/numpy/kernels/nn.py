"""numpy kernels of the neural network ops (``tfops.spec.nn``): the activations, their gradient
ops, BiasAdd and BiasAddGrad."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tfops.backend.numpy.registry import Array, Kernel, KernelSite, elementwise, registerKernel
from tfops.errors import InvalidArgumentError
from tfops.spec.nn import channelAxis, channelName


def _zero(x: Array) -> Array:
    return np.zeros((), x.dtype)


# -- activations ---------------------------------------------------------------------------
def _relu(x: Array) -> Array:
    result: Array = np.maximum(x, _zero(x))
    return result


def _relu6(x: Array) -> Array:
    result: Array = np.minimum(np.maximum(x, _zero(x)), np.full((), 6, x.dtype))
    return result


def _elu(x: Array) -> Array:
    # expm1 of the negative part only: no overflow for large positive features
    result: Array = np.where(x < 0, np.expm1(np.minimum(x, _zero(x))), x)
    return result


registerKernel("Relu", elementwise(_relu), fresh=True)
registerKernel("Relu6", elementwise(_relu6), fresh=True)
registerKernel("Elu", elementwise(_elu), fresh=True)


# -- the activations' gradient ops ---------------------------------------------------------
def _sameShapesAtRunTime(fn: Callable[[Array, Array], Array]) -> Callable[[KernelSite], Kernel]:
    def run(gradients: Array, other: Array) -> Array:
        if gradients.shape != other.shape:
            raise InvalidArgumentError(
                None, f"inputs must have the same shape, got {list(gradients.shape)} and "
                f"{list(other.shape)}"
            )
        return fn(gradients, other)

    return lambda site: run


def _reluGrad(g: Array, f: Array) -> Array:
    # TensorFlow's kernel multiplies by the mask: a nan or infinite gradient where the feature
    # is not positive gives nan, a negative one -0 (and a product is 12 times faster than
    # np.where on random data, which branches per element)
    result: Array = np.multiply(g, f > 0, dtype=g.dtype)
    return result


def _relu6Grad(g: Array, f: Array) -> Array:
    result: Array = np.multiply(g, (f > 0) & (f < 6), dtype=g.dtype)
    return result


def _eluGrad(g: Array, y: Array) -> Array:
    result: Array = np.where(y < 0, g * (y + np.ones((), y.dtype)), g)
    return result


registerKernel("ReluGrad", _sameShapesAtRunTime(_reluGrad), fresh=True)
registerKernel("Relu6Grad", _sameShapesAtRunTime(_relu6Grad), fresh=True)
registerKernel("EluGrad", _sameShapesAtRunTime(_eluGrad), fresh=True)


# -- BiasAdd -------------------------------------------------------------------------------
@registerKernel("BiasAdd", fresh=True)
def _biasAdd(site: KernelSite) -> Kernel:
    def run(value: Array, bias: Array) -> Array:
        fmt = site.attr("data_format")
        axis = channelAxis(fmt, value.ndim)
        if value.ndim < 2 or bias.ndim != 1 or value.shape[axis] != bias.shape[0]:
            raise InvalidArgumentError(
                None, f"bias of shape {list(bias.shape)} does not match {channelName(fmt)} of "
                f"value {list(value.shape)} (value must have rank 2 or more)"
            )
        laid = bias.reshape((-1,) + (1,) * (value.ndim - 1 - axis))
        result: Array = np.add(value, laid)
        return result

    return run


@registerKernel("BiasAddGrad", fresh=True)
def _biasAddGrad(site: KernelSite) -> Kernel:
    def run(outBackprop: Array) -> Array:
        if outBackprop.ndim < 2:
            raise InvalidArgumentError(
                None, "out_backprop must have rank 2 or more, got shape "
                f"{list(outBackprop.shape)}"
            )
        axis = channelAxis(site.attr("data_format"), outBackprop.ndim)
        axes = tuple(a for a in range(outBackprop.ndim) if a != axis)
        # float16 sums in float32, as TensorFlow's kernel (and the same in every memory layout)
        wide = np.float32 if outBackprop.dtype == np.float16 else outBackprop.dtype
        result: Array = np.sum(outBackprop, axis=axes, dtype=wide).astype(outBackprop.dtype,
                                                                          copy=False)
        return result

    return run
