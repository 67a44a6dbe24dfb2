"""XLA lowerings of the nn ops (``tfops.spec.nn``): the activations, their gradient ops, BiasAdd
and BiasAddGrad."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError


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


_gradOp("ReluGrad", lambda g, f: jnp.where(f > 0, g, _zero(g)))
_gradOp("Relu6Grad", lambda g, f: jnp.where((f > 0) & (f < 6), g, _zero(g)))
_gradOp("EluGrad", lambda g, y: jnp.where(y < 0, g * (y + jnp.ones((), y.dtype)), g))


# -- BiasAdd -------------------------------------------------------------------------------
def _checkDataFormat(site: LoweringSite) -> None:
    fmt = site.attrs.get("data_format", "NHWC")
    if fmt != "NHWC":  # the spec rejects any other layout when the op is created
        raise InvalidArgumentError(None, f"data_format {fmt!r} is not supported, only 'NHWC'")


@registerLowering("BiasAdd")
def _biasAdd(site: LoweringSite, value: Any, bias: Any) -> Any:
    _checkDataFormat(site)
    if value.ndim < 2 or bias.ndim != 1 or value.shape[-1] != bias.shape[0]:
        raise InvalidArgumentError(
            None, f"bias of shape {list(bias.shape)} does not match the last dimension of "
            f"value {list(value.shape)} (value must have rank 2 or more)"
        )
    return jnp.add(value, bias).astype(site.dtype())


@registerLowering("BiasAddGrad")
def _biasAddGrad(site: LoweringSite, outBackprop: Any) -> Any:
    _checkDataFormat(site)
    if outBackprop.ndim < 2:
        raise InvalidArgumentError(
            None, f"out_backprop must have rank 2 or more, got shape {list(outBackprop.shape)}"
        )
    axes = tuple(range(outBackprop.ndim - 1))
    return jnp.sum(outBackprop, axis=axes, dtype=outBackprop.dtype)
