"""The numpy kernels of :mod:`tfops.spec.nn_topk`: TopKV2 and InTopKV2."""

from __future__ import annotations

import numpy as np

from tfops.backend.numpy.registry import Array, Kernel, KernelSite, registerKernel
from tfops.errors import InvalidArgumentError


def _scalar(value: Array, what: str) -> int:
    if value.ndim != 0:
        raise InvalidArgumentError(None, f"{what} must be a scalar, got shape {list(value.shape)}")
    return int(value)


def descendingOrder(x: Array) -> Array:
    """The positions of each row of ``x`` (along the last axis) from the largest entry to the
    smallest, equal entries in the order of their positions, NaNs first (the largest)."""
    if x.dtype.kind == "f":
        # negation reverses the order exactly (0.0 and -0.0 stay equal); a stable sort keeps
        # equal entries in position order; NaNs, which numpy sorts last, are moved first
        key = -x
        nan = np.isnan(x)
        if nan.any():
            return np.lexsort((key, ~nan), axis=-1)
        return np.argsort(key, axis=-1, kind="stable")
    # for integers the bitwise complement reverses the order without overflow (also unsigned)
    return np.argsort(~x, axis=-1, kind="stable")


@registerKernel("TopKV2", fresh=True)
def _topK(site: KernelSite) -> Kernel:
    indexType = site.attr("index_type").DTYPE

    def run(x: Array, kValue: Array) -> tuple[Array, Array]:
        k = _scalar(kValue, "k")
        if k < 0:
            raise InvalidArgumentError(None, f"k must be non-negative, got {k}")
        if x.ndim == 0:
            raise InvalidArgumentError(None, "input must have at least one dimension, got a "
                                       "scalar")
        if x.shape[-1] < k:
            raise InvalidArgumentError(
                None, f"input must have a last dimension of at least k = {k}, got shape "
                f"{list(x.shape)}"
            )
        order = descendingOrder(x)[..., :k]
        values = np.take_along_axis(x, order, axis=-1)
        return np.ascontiguousarray(values), order.astype(indexType)

    return run


@registerKernel("InTopKV2", fresh=True)
def _inTopK(site: KernelSite) -> Kernel:
    def run(predictions: Array, targets: Array, kValue: Array) -> Array:
        if predictions.ndim != 2:
            raise InvalidArgumentError(None, "predictions must be a matrix [batch_size, "
                                       f"classes], got shape {list(predictions.shape)}")
        if targets.ndim != 1:
            raise InvalidArgumentError(None, "targets must be a vector [batch_size], got shape "
                                       f"{list(targets.shape)}")
        k = _scalar(kValue, "k")
        batch, classes = predictions.shape
        if targets.shape[0] != batch:
            raise InvalidArgumentError(
                None, f"the first dimension of predictions {list(predictions.shape)} must "
                f"match the length of targets {list(targets.shape)}"
            )
        valid = (targets >= 0) & (targets < classes)
        if classes == 0:
            return np.zeros(batch, np.bool_)
        picked = np.take_along_axis(predictions, np.where(valid, targets, 0)[:, None], axis=1)
        larger = np.count_nonzero(predictions > picked, axis=1)
        finite = np.isfinite(predictions).all(axis=1)
        result: Array = valid & finite & (larger < k)
        return result

    return run
