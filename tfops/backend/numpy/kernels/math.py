"""numpy kernels of the math ops (``tfops.spec.math``): elementwise functions, the basic binary
ops with broadcasting, AddN and Mean."""

from __future__ import annotations

import numpy as np

from tfops.backend.numpy.registry import (
    Array,
    Kernel,
    KernelSite,
    broadcasting,
    elementwise,
    registerKernel,
)
from tfops.errors import InvalidArgumentError
from tfops.spec.rules import reductionAxes
from tfops.types import TBool, TFloating

# -- unary ---------------------------------------------------------------------------------
registerKernel("Exp", elementwise(np.exp), fresh=True)
registerKernel("Log", elementwise(np.log), fresh=True)
registerKernel("Neg", elementwise(np.negative), fresh=True)
registerKernel("Square", elementwise(np.square), fresh=True)
registerKernel("Reciprocal", elementwise(np.reciprocal), fresh=True)


# -- binary with broadcasting --------------------------------------------------------------
def _squaredDifference(x: Array, y: Array) -> Array:
    return np.square(np.subtract(x, y))


registerKernel("Add", broadcasting(np.add), fresh=True)
registerKernel("AddV2", broadcasting(np.add), fresh=True)
registerKernel("Sub", broadcasting(np.subtract), fresh=True)
registerKernel("Mul", broadcasting(np.multiply), fresh=True)
registerKernel("SquaredDifference", broadcasting(_squaredDifference), fresh=True)
registerKernel("Equal", broadcasting(np.equal, TBool), fresh=True)


def _integerDivide(x: Array, y: Array) -> Array:
    if np.any(y == 0) and np.broadcast(x, y).size:
        raise InvalidArgumentError(None, "Integer division by zero")
    q: Array = np.floor_divide(x, y)
    # TensorFlow's integer Div truncates towards zero, numpy floors.
    q += ((np.remainder(x, y) != 0) & ((x < 0) != (y < 0))).astype(q.dtype)
    return q


@registerKernel("Div", fresh=True)
def _div(site: KernelSite) -> Kernel:
    fn = np.true_divide if issubclass(site.attr("T"), TFloating) else _integerDivide
    return broadcasting(fn)(site)


# -- AddN ----------------------------------------------------------------------------------
def _addAll(*xs: Array) -> Array:
    total = xs[0]
    for x in xs[1:]:
        total = np.add(total, x)
    # np.asarray makes a scalar sum an array; a single input is copied, never returned
    return np.array(total) if len(xs) == 1 else np.asarray(total)


def _checkedAddAll(*xs: Array) -> Array:
    for x in xs[1:]:
        if np.shape(x) != np.shape(xs[0]):
            raise InvalidArgumentError(
                None, f"all inputs must have the same shape, got {list(np.shape(xs[0]))} "
                f"and {list(np.shape(x))}"
            )
    return _addAll(*xs)


@registerKernel("AddN", fresh=True)
def _addN(site: KernelSite) -> Kernel:
    """Inputs of one statically known shape need no check at run time (and two tensors are
    added by ``np.add`` itself, which a plan can run in place)."""
    shapes = site.shapes
    if not shapes or not shapes[0].isFullyKnown() or any(s != shapes[0] for s in shapes):
        return _checkedAddAll
    if len(shapes) == 2 and shapes[0].numDimensions() > 0:
        return np.add
    return _addAll


# -- Mean ----------------------------------------------------------------------------------
@registerKernel("Mean", fresh=True)
def _mean(site: KernelSite) -> Kernel:
    keep = bool(site.attr("keep_dims"))

    def run(x: Array, axes: Array) -> Array:
        ax = reductionAxes(x, axes)
        count = 1
        for a in ax:
            count *= x.shape[a]
        if x.dtype.kind == "f":
            if count == 0:  # the mean of no elements is nan, as 0 / 0
                return np.full(np.sum(x, axis=ax, keepdims=keep).shape, np.nan, x.dtype)
            # float16 is summed and divided in float32, rounded once (as Sum)
            wide = np.float32 if x.dtype == np.float16 else x.dtype
            result: Array = np.mean(x, axis=ax, keepdims=keep, dtype=wide).astype(x.dtype,
                                                                                copy=False)
            return result
        if count == 0:  # TensorFlow's integer mean of no elements is 0
            return np.zeros(np.sum(x, axis=ax, keepdims=keep).shape, x.dtype)
        total = np.sum(x, axis=ax, keepdims=keep, dtype=np.int64)
        # integer mean truncates towards zero, as TensorFlow's
        mean: Array = (np.sign(total) * (np.abs(total) // count)).astype(x.dtype)
        return mean

    return run
