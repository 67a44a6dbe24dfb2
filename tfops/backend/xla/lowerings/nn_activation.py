"""The XLA lowerings of :mod:`tfops.spec.nn_activation`: LeakyRelu, Selu, Softsign and their
gradient ops, with TensorFlow's formulas (each computed in the features' data type)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError
from tfops.spec.nn_activation import SELU_SCALE, SELU_SCALE_ALPHA


def _const(value: float, like: Any) -> Any:
    return jnp.asarray(value, like.dtype)


def _alpha(site: LoweringSite) -> float:
    # a TensorFlow float attribute is single precision
    return float(np.float32(site.attr("alpha")))


# -- activations ---------------------------------------------------------------------------
@registerLowering("LeakyRelu")
def _leakyRelu(site: LoweringSite, x: Any) -> Any:
    return jnp.where(x > 0, x, x * _const(_alpha(site), x))


@registerLowering("Selu")
def _selu(site: LoweringSite, x: Any) -> Any:
    negative = _const(SELU_SCALE_ALPHA, x) * (jnp.exp(x) - _const(1.0, x))
    return jnp.where(x < 0, negative, _const(SELU_SCALE, x) * x)


@registerLowering("Softsign")
def _softsign(site: LoweringSite, x: Any) -> Any:
    return x / (jnp.abs(x) + _const(1.0, x))


# -- the gradient ops ----------------------------------------------------------------------
def _gradOp(opType: str, fn: Callable[[LoweringSite, Any, Any], Any]) -> None:
    def lower(site: LoweringSite, gradients: Any, other: Any) -> Any:
        if gradients.shape != other.shape:
            raise InvalidArgumentError(
                None, f"inputs must have the same shape, got {list(gradients.shape)} and "
                f"{list(other.shape)}"
            )
        return fn(site, jnp.asarray(gradients), jnp.asarray(other)).astype(site.dtype())

    registerLowering(opType, lower)


_gradOp("LeakyReluGrad",
        lambda site, g, x: jnp.where(x > 0, g, g * _const(_alpha(site), g)))
_gradOp("SeluGrad", lambda site, g, y: jnp.where(
    y < 0, g * (y + _const(SELU_SCALE_ALPHA, y)), g * _const(SELU_SCALE, g)))
_gradOp("SoftsignGrad", lambda site, g, x: g / jnp.square(jnp.abs(x) + _const(1.0, x)))
