"""XLA lowerings of the math ops (``tfops.spec.math``): elementwise functions, the basic binary
ops with broadcasting, AddN and Mean."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.lowerings.core import axesOf
from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError

__all__ = ["binary", "broadcast", "divide", "integerDivide", "isFloat", "size"]

ZERO_DIVISOR = "Integer division by zero"

_barrier: Callable[[Any], Any] = jax.lax.optimization_barrier  # (untyped in jax)


def isFloat(x: Any) -> bool:
    """Whether ``x`` (an array) holds floating point numbers."""
    return bool(np.dtype(x.dtype).kind == "f")


def size(shape: tuple[int, ...]) -> int:
    """The number of elements of a tensor of ``shape``."""
    return int(np.prod(shape, dtype=np.int64))


def broadcast(x: Any, y: Any) -> tuple[Any, Any]:
    """``x`` and ``y`` broadcast to their common shape (``lax`` functions take equal shapes)."""
    shape = jnp.broadcast_shapes(jnp.shape(x), jnp.shape(y))
    return jnp.broadcast_to(x, shape), jnp.broadcast_to(y, shape)


def divide(x: Any, y: Any) -> Any:
    """``x / y`` of floats, rounded once as numpy's. XLA rewrites a division by a constant or by
    a broadcast value into a product with its reciprocal (rounded twice), unless the divisor is
    hidden behind an optimization barrier; and on GPUs its float32 division is approximate, so
    float16 and float32 are divided in float64 (whose quotient, rounded to the narrower type,
    is the correctly rounded quotient: 53 bits are more than twice 24, plus 2)."""
    x, y = broadcast(x, y)
    dtype = np.dtype(x.dtype)
    if dtype.itemsize < 8:
        wide = jax.lax.div(x.astype(np.float64), _barrier(y.astype(np.float64)))
        return wide.astype(dtype)
    return jax.lax.div(x, _barrier(y))


# -- unary ---------------------------------------------------------------------------------
def _unary(fn: Callable[[Any], Any]) -> Callable[..., Any]:
    return lambda site, x: fn(x)


registerLowering("Exp", _unary(jnp.exp))
registerLowering("Log", _unary(jnp.log))
registerLowering("Neg", _unary(jnp.negative))
registerLowering("Square", _unary(lambda x: jnp.multiply(x, x)))
registerLowering("Reciprocal", _unary(lambda x: divide(jnp.ones((), x.dtype), x)))


# -- binary with broadcasting --------------------------------------------------------------
def binary(fn: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    """The lowering of a broadcasting binary op that is ``fn`` of its two inputs."""
    return lambda site, x, y: fn(x, y)


def _squaredDifference(x: Any, y: Any) -> Any:
    d = jnp.subtract(x, y)
    return jnp.multiply(d, d)


registerLowering("Add", binary(jnp.add))
registerLowering("AddV2", binary(jnp.add))
registerLowering("Sub", binary(jnp.subtract))
registerLowering("Mul", binary(jnp.multiply))
registerLowering("SquaredDifference", binary(_squaredDifference))
registerLowering("Equal", binary(jnp.equal))


def integerDivide(site: LoweringSite, x: Any, y: Any, operation: Callable[[Any, Any], Any]
                  ) -> Any:
    """``operation(x, y)`` of integer tensors, with the run-time check that no element of ``y`` is
    zero (when the result has elements: broadcasting then uses every element of ``y``); the
    divisor is made safe so that the computation itself never divides by zero."""
    x, y = broadcast(x, y)
    zero = jnp.equal(y, 0)
    if size(x.shape):
        site.check(jnp.logical_not(jnp.any(zero)), ZERO_DIVISOR)
    return operation(x, jnp.where(zero, jnp.ones((), y.dtype), y))


@registerLowering("Div")
def _div(site: LoweringSite, x: Any, y: Any) -> Any:
    if isFloat(x):
        return divide(x, y)
    # TensorFlow's integer Div truncates towards zero, as XLA's (INT_MIN / -1 is INT_MIN)
    return integerDivide(site, x, y, jax.lax.div)


# -- AddN ----------------------------------------------------------------------------------
@registerLowering("AddN")
def _addN(site: LoweringSite, *xs: Any) -> Any:
    for x in xs[1:]:
        if jnp.shape(x) != jnp.shape(xs[0]):
            raise InvalidArgumentError(
                None, f"all inputs must have the same shape, got {list(jnp.shape(xs[0]))} "
                f"and {list(jnp.shape(x))}"
            )
    total = jnp.asarray(xs[0])
    for x in xs[1:]:
        total = jnp.add(total, x)
    return total


# -- Mean ----------------------------------------------------------------------------------
@registerLowering("Mean", static=(1,))
def _mean(site: LoweringSite, x: Any, axes: Any) -> Any:
    keep = bool(site.attr("keep_dims"))
    covered = axesOf(site, x)
    count = 1
    for a in covered:
        count *= x.shape[a]
    shape = tuple(1 if k in covered else d for k, d in enumerate(x.shape)) if keep else tuple(
        d for k, d in enumerate(x.shape) if k not in covered)
    if isFloat(x):
        if count == 0:  # the mean of no elements is nan, as 0 / 0
            return jnp.full(shape, np.nan, x.dtype)
        # float16 is summed and divided in float32, rounded once, as the numpy kernel
        wide = np.float32 if x.dtype == np.float16 else x.dtype
        total = jnp.sum(x.astype(wide), axis=covered, keepdims=keep)
        return divide(total, np.asarray(count, wide)).astype(x.dtype)
    if count == 0:  # TensorFlow's integer mean of no elements is 0
        return jnp.zeros(shape, x.dtype)
    total = jnp.sum(x, axis=covered, keepdims=keep, dtype=np.int64)
    # integer mean truncates towards zero, as TensorFlow's
    mean = jnp.sign(total) * jnp.floor_divide(jnp.abs(total), np.int64(count))
    return mean.astype(x.dtype)
