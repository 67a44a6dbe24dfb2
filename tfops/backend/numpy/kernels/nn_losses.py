"""numpy kernels of the softmax family and the losses (``tfops.spec.nn_losses``).

Every softmax kernel subtracts the row maximum before exponentiating, so large logits neither
overflow nor lose the result; half precision is computed in single precision and rounded once.
"""

from __future__ import annotations

import numpy as np

from tfops.backend.numpy.registry import Array, Kernel, KernelSite, registerKernel
from tfops.errors import InvalidArgumentError


def _working(x: Array) -> Array:
    """``x`` in the precision the kernels compute in (float16 is widened to float32)."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def softmax(x: Array) -> Array:
    """The softmax of ``x`` over its last axis, computed stably (in ``x``'s dtype)."""
    if x.size == 0:
        return np.array(x)
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    result: Array = e / np.sum(e, axis=-1, keepdims=True)
    return result


def logSoftmax(x: Array) -> Array:
    """The log-softmax of ``x`` over its last axis, computed stably (in ``x``'s dtype)."""
    if x.size == 0:
        return np.array(x)
    shifted = x - np.max(x, axis=-1, keepdims=True)
    result: Array = shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))
    return result


def _checkLogits(x: Array) -> None:
    if x.ndim == 0:
        raise InvalidArgumentError(None, "logits must have 1 or more dimensions, got a scalar")


@registerKernel("Softmax", fresh=True)
def _softmax(site: KernelSite) -> Kernel:
    def run(logits: Array) -> Array:
        _checkLogits(logits)
        return softmax(_working(logits)).astype(logits.dtype)

    return run


@registerKernel("LogSoftmax", fresh=True)
def _logSoftmax(site: KernelSite) -> Kernel:
    def run(logits: Array) -> Array:
        _checkLogits(logits)
        return logSoftmax(_working(logits)).astype(logits.dtype)

    return run


# -- cross entropies -----------------------------------------------------------------------
@registerKernel("SoftmaxCrossEntropyWithLogits", fresh=True)
def _crossEntropy(site: KernelSite) -> Kernel:
    def run(features: Array, labels: Array) -> tuple[Array, Array]:
        if features.ndim != 2 or labels.ndim != 2:
            raise InvalidArgumentError(
                None, f"features and labels must be matrices, got shapes "
                f"{list(features.shape)} and {list(labels.shape)}"
            )
        try:
            f, y = np.broadcast_arrays(_working(features), _working(labels))
        except ValueError:
            raise InvalidArgumentError(
                None, f"features {list(features.shape)} and labels {list(labels.shape)} do "
                "not broadcast"
            ) from None
        loss = -np.sum(y * logSoftmax(f), axis=-1)
        backprop = softmax(f) - y
        return loss.astype(features.dtype), backprop.astype(features.dtype)

    return run


@registerKernel("SparseSoftmaxCrossEntropyWithLogits", fresh=True)
def _sparseCrossEntropy(site: KernelSite) -> Kernel:
    def run(features: Array, labels: Array) -> tuple[Array, Array]:
        if features.ndim != 2 or labels.ndim != 1 or features.shape[0] != labels.shape[0]:
            raise InvalidArgumentError(
                None, f"features must be a matrix [batch_size, num_classes] and labels a vector "
                f"[batch_size], got shapes {list(features.shape)} and {list(labels.shape)}"
            )
        classes = features.shape[1]
        bad = labels[(labels < 0) | (labels >= classes)]
        if bad.size:
            raise InvalidArgumentError(
                None, f"received a label value of {int(bad[0])} which is outside the valid "
                f"range of [0, {classes}); label values: {labels.tolist()}"
            )
        f, rows = _working(features), np.arange(labels.shape[0])
        loss = -logSoftmax(f)[rows, labels]
        backprop = softmax(f)
        backprop[rows, labels] -= 1
        return loss.astype(features.dtype), backprop.astype(features.dtype)

    return run


# -- L2Loss --------------------------------------------------------------------------------
@registerKernel("L2Loss", fresh=True)
def _l2Loss(site: KernelSite) -> Kernel:
    def run(t: Array) -> Array:
        w = _working(t)
        return np.asarray(np.sum(w * w, dtype=w.dtype) / 2, dtype=t.dtype)

    return run
