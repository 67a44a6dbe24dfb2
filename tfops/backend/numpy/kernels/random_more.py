"""The numpy kernels of :mod:`tfops.spec.random_more`: RandomShuffle and Multinomial (the op's
generator in the session, as :mod:`tfops.backend.numpy.kernels.random`), and the stateless ops,
through TensorFlow's Philox 4x32-10 stream (:mod:`tfops.backend.numpy.kernels.philox`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfops.backend.numpy.kernels import philox
from tfops.backend.numpy.kernels.indexing import check
from tfops.backend.numpy.kernels.random import generator
from tfops.backend.numpy.registry import (
    Array,
    Kernel,
    KernelSite,
    checkAllocation,
    registerKernel,
)
from tfops.backend.numpy.state import KernelContext


# -- RandomShuffle ---------------------------------------------------------------------------
@registerKernel("RandomShuffle", fresh=True)
def _randomShuffle(site: KernelSite) -> Kernel:
    attrs = site.attrs

    def run(ctx: KernelContext, value: Array) -> Array:
        if value.ndim == 0 or value.shape[0] <= 1:
            same: Array = value.copy()
            return same
        with ctx.resources.lock:
            order = generator(ctx, attrs).permutation(value.shape[0])
        result: Array = np.take(value, order, axis=0)
        return result

    return run


# -- Multinomial -----------------------------------------------------------------------------
def checkMultinomial(logits: Any, numSamples: Any) -> int:
    """Checks the inputs as TensorFlow's kernel does; returns the number of samples."""
    check(np.ndim(logits) == 2, f"logits must be a matrix [batch, classes], got shape "
          f"{list(np.shape(logits))}")
    check(np.shape(logits)[1] > 0, f"logits must have at least one class, got shape "
          f"{list(np.shape(logits))}")
    check(np.ndim(numSamples) == 0, f"num_samples must be a scalar, got shape "
          f"{list(np.shape(numSamples))}")
    count = int(numSamples)
    check(count >= 0, f"num_samples must not be negative, got {count}")
    return count


@registerKernel("Multinomial", fresh=True)
def _multinomial(site: KernelSite) -> Kernel:
    attrs, limit = site.attrs, site.memoryLimit
    dtype = site.attr("output_dtype").DTYPE

    def run(ctx: KernelContext, logits: Array, numSamples: Array) -> Array:
        count = checkMultinomial(logits, numSamples)
        batch, classes = logits.shape
        checkAllocation([batch, count], np.float64, limit)
        x = logits.astype(np.float64)
        # each row's probabilities, from its largest finite logit (-inf logits weigh nothing)
        finite = np.where(np.isfinite(x), x, -np.inf)
        top = np.max(finite, axis=1, keepdims=True)
        weights = np.exp(x - np.where(np.isfinite(top), top, 0.0))
        cumulative = np.cumsum(weights, axis=1)
        cumulative /= np.where(cumulative[:, -1:] > 0, cumulative[:, -1:], 1.0)
        with ctx.resources.lock:
            draws = generator(ctx, attrs).random((batch, count))
        # one sorted search over all rows: row r's cumulative weights shifted into (r, r + 1]
        rows = np.arange(batch, dtype=np.float64)[:, None]
        picked = np.searchsorted((cumulative + rows).reshape(-1), (draws + rows).reshape(-1),
                                 side="right").reshape(batch, count)
        classIndex = np.minimum(picked - rows.astype(np.int64) * classes, classes - 1)
        result: Array = classIndex.astype(dtype)
        return result

    return run


# -- StatelessRandomUniform, StatelessRandomNormal, StatelessTruncatedNormal -----------------
Sampler = Callable[[Any, int, Any], Array]


def statelessDims(shape: Array, seed: Array) -> tuple[int, ...]:
    """The output's dimensions, checked, and the seed's shape checked."""
    check(seed.shape == (2,), f"seed must have shape [2], got {list(seed.shape)}")
    check(shape.ndim <= 1, f"shape must be a vector, got a tensor of shape {list(shape.shape)}")
    dims = tuple(int(d) for d in shape.reshape(-1))
    check(all(d >= 0 for d in dims), f"shape {list(dims)} has a negative dimension")
    return dims


def _stateless(sample: Sampler) -> Callable[[KernelSite], Kernel]:
    def factory(site: KernelSite) -> Kernel:
        dtype, limit = np.dtype(site.attr("dtype").DTYPE), site.memoryLimit

        def run(shape: Array, seed: Array) -> Array:
            dims = statelessDims(shape, seed)
            checkAllocation(dims, dtype, limit)
            size = int(np.prod(dims, dtype=np.int64))
            stream = philox.NUMPY.seedKeyCounter(seed.astype(np.int64))
            result: Array = np.asarray(sample(stream, size, dtype)).reshape(dims)
            return result

        return run

    return factory


registerKernel("StatelessRandomUniform", _stateless(philox.NUMPY.uniform), fresh=True)
registerKernel("StatelessRandomNormal", _stateless(philox.NUMPY.normal), fresh=True)
registerKernel("StatelessTruncatedNormal", _stateless(philox.NUMPY.truncatedNormal), fresh=True)
