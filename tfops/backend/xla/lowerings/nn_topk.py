"""The XLA lowerings of :mod:`tfops.spec.nn_topk`: TopKV2 (``k`` static: it sets the result's
shape) and InTopKV2."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
from jax import lax

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError


@registerLowering("TopKV2", static=(1,))
def _topK(site: LoweringSite, x: Any, kValue: Any) -> tuple[Any, Any]:
    kArray = np.asarray(kValue)
    if kArray.ndim != 0:
        raise InvalidArgumentError(None, f"k must be a scalar, got shape {list(kArray.shape)}")
    k = int(kArray)
    if k < 0:
        raise InvalidArgumentError(None, f"k must be non-negative, got {k}")
    if x.ndim == 0:
        raise InvalidArgumentError(None, "input must have at least one dimension, got a scalar")
    if x.shape[-1] < k:
        raise InvalidArgumentError(
            None, f"input must have a last dimension of at least k = {k}, got shape "
            f"{list(x.shape)}"
        )
    key = x
    if jnp.issubdtype(x.dtype, jnp.floating):
        # XLA orders floats totally (-0.0 below 0.0, a negative NaN below everything):
        # TensorFlow's 0.0 and -0.0 are equal, and every NaN counts as the largest
        key = jnp.where(jnp.isnan(x), jnp.array(jnp.nan, x.dtype), x + jnp.array(0, x.dtype))
    # lax.top_k puts equal entries in the order of their positions, as TensorFlow
    _, indices = lax.top_k(key, k)
    values = jnp.take_along_axis(x, indices, axis=-1)
    return values, indices.astype(site.dtype(1))


@registerLowering("InTopKV2")
def _inTopK(site: LoweringSite, predictions: Any, targets: Any, kValue: Any) -> Any:
    if predictions.ndim != 2:
        raise InvalidArgumentError(None, "predictions must be a matrix [batch_size, classes], "
                                   f"got shape {list(predictions.shape)}")
    if targets.ndim != 1:
        raise InvalidArgumentError(None, "targets must be a vector [batch_size], got shape "
                                   f"{list(targets.shape)}")
    if kValue.ndim != 0:
        raise InvalidArgumentError(None, f"k must be a scalar, got shape {list(kValue.shape)}")
    batch, classes = predictions.shape
    if targets.shape[0] != batch:
        raise InvalidArgumentError(
            None, f"the first dimension of predictions {list(predictions.shape)} must match "
            f"the length of targets {list(targets.shape)}"
        )
    if classes == 0:
        return jnp.zeros((batch,), jnp.bool_)
    valid = (targets >= 0) & (targets < classes)
    picked = jnp.take_along_axis(predictions, jnp.where(valid, targets, 0)[:, None], axis=1)
    larger = jnp.sum(predictions > picked, axis=1, dtype=targets.dtype)
    finite = jnp.all(jnp.isfinite(predictions), axis=1)
    return valid & finite & (larger < kValue)
