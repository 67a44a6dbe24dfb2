"""numpy kernels of the random ops (``tfops.spec.random``).

Each op keeps one numpy generator per session (in the session's
:class:`~tfops.backend.numpy.state.Resources`). With ``seed`` or ``seed2`` set, the generator is
seeded from them, so the same graph gives the same numbers in every session and process; with
both 0, each session draws fresh entropy. Successive runs of one op in one session continue its
sequence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tfops.backend.numpy.registry import (
    Array,
    Kernel,
    KernelSite,
    checkAllocation,
    registerKernel,
)
from tfops.backend.numpy.state import KernelContext
from tfops.errors import InvalidArgumentError

Draw = Callable[[np.random.Generator, tuple[int, ...], Any], Array]


def generator(ctx: KernelContext, attrs: Mapping[str, Any]) -> np.random.Generator:
    """The op's generator in this session, created on first use (call with the lock held)."""
    name = ctx.op.name()
    found = ctx.resources.generators.get(name)
    if found is None:
        seed, seed2 = int(attrs["seed"]), int(attrs["seed2"])
        entropy = [seed & 0xFFFFFFFF, seed2 & 0xFFFFFFFF] if seed or seed2 else None
        found = np.random.Generator(np.random.PCG64(entropy))
        ctx.resources.generators[name] = found
    return found


def _shapeOf(value: Array, limit: int) -> tuple[int, ...]:
    dims = tuple(int(d) for d in np.asarray(value).reshape(-1))
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(None, f"shape {list(dims)} has a negative dimension")
    checkAllocation(dims, np.float64, limit)
    return dims


def _sampler(draw: Draw) -> Callable[[KernelSite], Kernel]:
    def factory(site: KernelSite) -> Kernel:
        attrs = site.attrs
        dtype = site.attr("dtype").DTYPE
        limit = site.memoryLimit

        def run(ctx: KernelContext, shape: Array) -> Array:
            dims = _shapeOf(shape, limit)
            with ctx.resources.lock:
                return draw(generator(ctx, attrs), dims, dtype)

        return run

    return factory


def _uniform(rng: np.random.Generator, dims: tuple[int, ...], dtype: Any) -> Array:
    """Uniform in [0, 1) exactly in ``dtype``: multiples of 2^-m for m mantissa bits, so no value
    rounds up to 1 (as TensorFlow builds them from random mantissa bits)."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        values: Array = rng.random(dims)
        return values
    bits = int(np.finfo(dtype).nmant)
    scaled: Array = (rng.integers(0, 2**bits, dims) * 2.0**-bits).astype(dtype)
    return scaled


def _standardNormal(rng: np.random.Generator, dims: tuple[int, ...], dtype: Any) -> Array:
    values: Array = rng.standard_normal(dims).astype(dtype)
    return values


def _truncatedNormal(rng: np.random.Generator, dims: tuple[int, ...], dtype: Any) -> Array:
    """Standard normal values, those beyond two standard deviations drawn again."""
    values = rng.standard_normal(dims)
    bad = np.abs(values) > 2
    while bad.any():
        values[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(values) > 2
    return values.astype(dtype)


registerKernel("RandomUniform", _sampler(_uniform), fresh=True)
registerKernel("RandomStandardNormal", _sampler(_standardNormal), fresh=True)
registerKernel("TruncatedNormal", _sampler(_truncatedNormal), fresh=True)


@registerKernel("RandomUniformInt", fresh=True)
def _uniformInt(site: KernelSite) -> Kernel:
    attrs = site.attrs
    dtype = site.attr("Tout").DTYPE
    limit = site.memoryLimit

    def run(ctx: KernelContext, shape: Array, minval: Array, maxval: Array) -> Array:
        dims = _shapeOf(shape, limit)
        low, high = int(minval), int(maxval)
        if not low < high:
            raise InvalidArgumentError(None, f"need minval < maxval, got {low} >= {high}")
        with ctx.resources.lock:
            values = generator(ctx, attrs).integers(low, high, dims)
        result: Array = values.astype(dtype)
        return result

    return run
