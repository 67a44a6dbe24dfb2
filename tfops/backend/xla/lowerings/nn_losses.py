"""XLA lowerings of the softmax family and the losses (``tfops.spec.nn_losses``).

As the numpy kernels: every softmax subtracts the row maximum before exponentiating, and half
precision is computed in single precision and rounded once.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError


def _working(x: Any) -> Any:
    """``x`` in the precision the lowerings compute in (float16 is widened to float32)."""
    x = jnp.asarray(x)
    return x.astype(jnp.float32) if x.dtype == jnp.float16 else x


def softmax(x: Any) -> Any:
    """The softmax of ``x`` over its last axis, computed stably (in ``x``'s dtype)."""
    if x.size == 0:
        return x
    e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
    return e / jnp.sum(e, axis=-1, keepdims=True)


def logSoftmax(x: Any) -> Any:
    """The log-softmax of ``x`` over its last axis, computed stably (in ``x``'s dtype)."""
    if x.size == 0:
        return x
    shifted = x - jnp.max(x, axis=-1, keepdims=True)
    return shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=-1, keepdims=True))


def _checkLogits(x: Any) -> None:
    if x.ndim == 0:
        raise InvalidArgumentError(None, "logits must have 1 or more dimensions, got a scalar")


@registerLowering("Softmax")
def _softmax(site: LoweringSite, logits: Any) -> Any:
    _checkLogits(logits)
    return softmax(_working(logits)).astype(site.dtype())


@registerLowering("LogSoftmax")
def _logSoftmax(site: LoweringSite, logits: Any) -> Any:
    _checkLogits(logits)
    return logSoftmax(_working(logits)).astype(site.dtype())


# -- cross entropies -----------------------------------------------------------------------
@registerLowering("SoftmaxCrossEntropyWithLogits")
def _crossEntropy(site: LoweringSite, features: Any, labels: Any) -> tuple[Any, Any]:
    if features.ndim != 2 or labels.ndim != 2:
        raise InvalidArgumentError(
            None, f"features and labels must be matrices, got shapes {list(features.shape)} "
            f"and {list(labels.shape)}"
        )
    try:
        shape = np.broadcast_shapes(features.shape, labels.shape)
    except ValueError:
        raise InvalidArgumentError(
            None, f"features {list(features.shape)} and labels {list(labels.shape)} do not "
            "broadcast"
        ) from None
    f = jnp.broadcast_to(_working(features), shape)
    y = jnp.broadcast_to(_working(labels), shape)
    loss = -jnp.sum(y * logSoftmax(f), axis=-1)
    backprop = softmax(f) - y
    dtype = site.dtype()
    return loss.astype(dtype), backprop.astype(dtype)


def labelMessage(labels: Any, classes: int) -> str:
    """The numpy kernel's message for ``labels`` (numpy values) with one out of range."""
    labels = np.asarray(labels)
    bad = labels[(labels < 0) | (labels >= classes)]
    return (f"received a label value of {int(bad[0])} which is outside the valid range of "
            f"[0, {classes}); label values: {labels.tolist()}")


@registerLowering("SparseSoftmaxCrossEntropyWithLogits")
def _sparseCrossEntropy(site: LoweringSite, features: Any, labels: Any) -> tuple[Any, Any]:
    if features.ndim != 2 or labels.ndim != 1 or features.shape[0] != labels.shape[0]:
        raise InvalidArgumentError(
            None, f"features must be a matrix [batch_size, num_classes] and labels a vector "
            f"[batch_size], got shapes {list(features.shape)} and {list(labels.shape)}"
        )
    batch, classes = features.shape
    dtype = site.dtype()
    known = site.constants[1]
    if known is not None:  # the labels are known: the numpy kernel's message, exactly
        if np.any((known < 0) | (known >= classes)):
            site.check(np.asarray(False), labelMessage(known, classes))
    else:  # only the values tell: checked when the request runs, the labels read back then
        site.check((labels >= 0) & (labels < classes),
                   lambda values: labelMessage(values, classes), labels)
    if classes == 0:  # every label is out of range (reported above); nothing to select
        return jnp.zeros((batch,), dtype), jnp.asarray(features).astype(dtype)
    f = _working(features)
    safe = jnp.clip(jnp.asarray(labels), 0, classes - 1)  # a result for bad labels anyway
    loss = -jnp.take_along_axis(logSoftmax(f), safe[:, None], axis=1)[:, 0]
    oneHot = safe[:, None] == jnp.arange(classes, dtype=safe.dtype)[None, :]
    backprop = softmax(f) - oneHot.astype(f.dtype)
    return loss.astype(dtype), backprop.astype(dtype)


# -- L2Loss --------------------------------------------------------------------------------
@registerLowering("L2Loss")
def _l2Loss(site: LoweringSite, t: Any) -> Any:
    w = _working(t)
    return (jnp.sum(w * w, dtype=w.dtype) / 2).astype(site.dtype())
