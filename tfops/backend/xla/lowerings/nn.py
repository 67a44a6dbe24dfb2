"""XLA lowerings of the nn ops (``tfops.spec.nn``): the activations, their gradient ops, BiasAdd
and BiasAddGrad."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError
from tfops.spec.nn import channelAxis, channelName


def _zero(x: Any) -> Any:
    return jnp.zeros((), x.dtype)


# -- activations ---------------------------------------------------------------------------
@registerLowering("Relu")
def _relu(site: LoweringSite, x: Any) -> Any:
    return jnp.maximum(x, _zero(x))


@registerLowering("Relu6")
def _relu6(site: LoweringSite, x: Any) -> Any:
    return jnp.minimum(jnp.maximum(x, _zero(x)), jnp.full((), 6, x.dtype))


@registerLowering("Elu")
def _elu(site: LoweringSite, x: Any) -> Any:
    # expm1 of the negative part only: no overflow for large positive features
    return jnp.where(x < 0, jnp.expm1(jnp.minimum(x, _zero(x))), x)


# -- the activations' gradient ops ---------------------------------------------------------
def _gradOp(opType: str, fn: Callable[[Any, Any], Any]) -> None:
    def lower(site: LoweringSite, gradients: Any, other: Any) -> Any:
        if gradients.shape != other.shape:
            raise InvalidArgumentError(
                None, f"inputs must have the same shape, got {list(gradients.shape)} and "
                f"{list(other.shape)}"
            )
        return fn(jnp.asarray(gradients), jnp.asarray(other)).astype(site.dtype())

    registerLowering(opType, lower)


_gradOp("ReluGrad", lambda g, f: g * (f > 0).astype(g.dtype))  # as TF's kernel: nan * 0
_gradOp("Relu6Grad", lambda g, f: g * ((f > 0) & (f < 6)).astype(g.dtype))
_gradOp("EluGrad", lambda g, y: jnp.where(y < 0, g * (y + jnp.ones((), y.dtype)), g))


# -- BiasAdd -------------------------------------------------------------------------------
@registerLowering("BiasAdd")
def _biasAdd(site: LoweringSite, value: Any, bias: Any) -> Any:
    fmt = site.attr("data_format")
    axis = channelAxis(fmt, value.ndim)
    if value.ndim < 2 or bias.ndim != 1 or value.shape[axis] != bias.shape[0]:
        raise InvalidArgumentError(
            None, f"bias of shape {list(bias.shape)} does not match {channelName(fmt)} of "
            f"value {list(value.shape)} (value must have rank 2 or more)"
        )
    laid = jnp.reshape(bias, (-1,) + (1,) * (value.ndim - 1 - axis))
    return jnp.add(value, laid).astype(site.dtype())


@registerLowering("BiasAddGrad")
def _biasAddGrad(site: LoweringSite, outBackprop: Any) -> Any:
    if outBackprop.ndim < 2:
        raise InvalidArgumentError(
            None, "out_backprop must have rank 2 or more, got shape "
            f"{list(outBackprop.shape)}"
        )
    axis = channelAxis(site.attr("data_format"), outBackprop.ndim)
    axes = tuple(a for a in range(outBackprop.ndim) if a != axis)
    # float16 sums in float32, as TensorFlow's kernel and the numpy kernel
    wide = jnp.float32 if outBackprop.dtype == jnp.float16 else outBackprop.dtype
    return jnp.sum(outBackprop.astype(wide), axis=axes).astype(outBackprop.dtype)
