"""The XLA lowerings of :mod:`tfops.spec.random_more`.

RandomShuffle and Multinomial draw from the op's ``jax.random`` key in the session (as
:mod:`tfops.backend.xla.lowerings.random`): the same distributions as the numpy backend, not
its numbers. The stateless ops run the numpy kernels' Philox stream over JAX (the seed may be a
value known only when the request runs; the shape is static), with the transcendental functions
of the Box-Muller transform computed in float64.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tfops.backend.numpy.kernels.philox import Philox
from tfops.backend.numpy.kernels.random_more import checkMultinomial
from tfops.backend.xla.lowerings.indexing import check
from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import ResourceExhaustedError


# -- RandomShuffle ---------------------------------------------------------------------------
@registerLowering("RandomShuffle")
def _randomShuffle(site: LoweringSite, value: Any) -> Any:
    key = site.rngKey()
    if value.ndim == 0 or value.shape[0] <= 1:
        return value
    return jnp.take(value, jax.random.permutation(key, value.shape[0]), axis=0)


# -- Multinomial -----------------------------------------------------------------------------
@registerLowering("Multinomial", static=(1,))
def _multinomial(site: LoweringSite, logits: Any, numSamples: Any) -> Any:
    count = checkMultinomial(np.broadcast_to(np.float32(0), logits.shape), numSamples)
    batch = int(logits.shape[0])
    key = site.rngKey()
    x = logits.astype(jnp.float64 if logits.dtype == jnp.float64 else jnp.float32)
    drawn = jax.random.categorical(key, x, axis=-1, shape=(count, batch))
    return jnp.transpose(drawn).astype(site.dtype())


# -- StatelessRandomUniform, StatelessRandomNormal, StatelessTruncatedNormal -----------------
class _JaxPhilox(Philox):
    """The Philox stream over JAX; truncated normal groups draw in a ``while_loop``."""

    def truncatedNormal(self, stream: tuple[Any, Any], size: int, dtype: Any) -> Any:
        per = self.perBlock(dtype)
        groups = -(-size // per)
        skip = per * 256 // 4
        work = jnp.float64 if np.dtype(dtype) == np.float64 else jnp.float32
        starts = jnp.arange(groups, dtype=jnp.uint64) * jnp.uint64(skip)
        rows = jnp.broadcast_to(jnp.arange(groups)[:, None], (groups, 4 if per == 4 else 2))

        def draw(state: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
            values, found, step = state
            drawn = self.normals(self.blocks(stream, starts + step), dtype)
            kept = jnp.abs(drawn) < 2.0
            slot = found[:, None] + jnp.cumsum(kept, axis=1) - 1
            slot = jnp.where(kept & (slot < per), slot, per)  # per: out of range, dropped
            values = values.at[rows, slot].set(drawn.astype(work), mode="drop")
            return values, found + kept.sum(axis=1), step + jnp.uint64(1)

        def short(state: tuple[Any, Any, Any]) -> Any:
            return jnp.any(state[1] < per)

        start = (jnp.zeros((groups, per), work), jnp.zeros(groups, jnp.int64), jnp.uint64(0))
        values, _, _ = jax.lax.while_loop(short, draw, start)
        return values.reshape(-1)[:size].astype(dtype)


def _bitcast(x: Any, dtype: Any) -> Any:
    return jax.lax.bitcast_convert_type(jnp.asarray(x), dtype)


def _precise(name: str, x: Any, dtype: Any) -> Any:
    function = {"log": jnp.log, "sin": jnp.sin, "cos": jnp.cos}[name]
    return function(jnp.asarray(x).astype(jnp.float64)).astype(dtype)


_JAX = _JaxPhilox(jnp, _bitcast, _precise)


def _stateless(opType: str, sampler: str) -> None:
    def lower(site: LoweringSite, shape: Any, seed: Any) -> Any:
        check(tuple(np.shape(seed)) == (2,), f"seed must have shape [2], got "
              f"{list(np.shape(seed))}")
        dims = tuple(int(d) for d in np.asarray(shape).reshape(-1))
        check(np.ndim(shape) <= 1, f"shape must be a vector, got a tensor of shape "
              f"{list(np.shape(shape))}")
        check(all(d >= 0 for d in dims), f"shape {list(dims)} has a negative dimension")
        dtype = site.dtype()
        size = int(np.prod(dims, dtype=np.int64))
        if size * np.dtype(dtype).itemsize > site.memoryLimit:
            raise ResourceExhaustedError(
                None, f"the result of shape {list(dims)} needs {size * np.dtype(dtype).itemsize:,}"
                f" bytes, more than the session's memory limit of {site.memoryLimit:,} bytes")
        stream = _JAX.seedKeyCounter(jnp.asarray(seed).astype(jnp.int64))
        return getattr(_JAX, sampler)(stream, size, dtype).reshape(dims)

    registerLowering(opType, lower, static=(0,))


_stateless("StatelessRandomUniform", "uniform")
_stateless("StatelessRandomNormal", "normal")
_stateless("StatelessTruncatedNormal", "truncatedNormal")
