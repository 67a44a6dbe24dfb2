"""XLA lowerings of the random ops (``tfops.spec.random``).

Each op draws from its own ``jax.random`` key in the session (``LoweringSite.rngKey``), seeded
from ``seed``/``seed2`` (the same sequence in every session) or from fresh entropy when both are
0; successive runs continue the sequence. The numbers are not the numpy backend's, the
distributions are: uniform floats are multiples of 2^-m (m mantissa bits) in [0, 1), never 1;
normal values are drawn in at least single precision and rounded once; truncated normal values
lie within two standard deviations; integers are uniform in [minval, maxval).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError, ResourceExhaustedError

Draw = Callable[[Any, tuple[int, ...], np.dtype[Any]], Any]


def _shapeOf(site: LoweringSite) -> tuple[int, ...]:
    """The output's dimensions, from the static shape input, checked as the numpy kernels do:
    no negative dimension, and (with float64's size, as they do) within the memory limit."""
    value = site.constants[0]
    assert value is not None, "register the lowering with the shape input static"
    dims = tuple(int(d) for d in np.asarray(value).reshape(-1))
    if any(d < 0 for d in dims):
        raise InvalidArgumentError(None, f"shape {list(dims)} has a negative dimension")
    size = int(np.dtype(np.float64).itemsize)
    for d in dims:
        size *= d
    if size > site.memoryLimit:
        raise ResourceExhaustedError(
            None, f"the result of shape {list(dims)} needs {size:,} bytes, more than the "
            f"session's memory limit of {site.memoryLimit:,} bytes"
        )
    return dims


def _working(dtype: np.dtype[Any]) -> Any:
    """The precision normal values are drawn in: float64 for float64, else float32."""
    return jnp.float64 if dtype == np.float64 else jnp.float32


def _uniform(key: Any, dims: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    # jax builds them from random mantissa bits: multiples of 2^-m in [0, 1 - 2^-m]
    return jax.random.uniform(key, dims, dtype)


def _standardNormal(key: Any, dims: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    return jax.random.normal(key, dims, _working(dtype)).astype(dtype)


def _truncatedNormal(key: Any, dims: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    return jax.random.truncated_normal(key, -2.0, 2.0, dims, _working(dtype)).astype(dtype)


def _sampler(opType: str, draw: Draw) -> None:
    def lower(site: LoweringSite, shape: Any) -> Any:
        dims = _shapeOf(site)
        return draw(site.rngKey(), dims, site.dtype())

    registerLowering(opType, lower, static=(0,))


_sampler("RandomUniform", _uniform)
_sampler("RandomStandardNormal", _standardNormal)
_sampler("TruncatedNormal", _truncatedNormal)


def boundsMessage(low: Any, high: Any) -> str:
    """The numpy kernel's message for bounds (numpy values) with ``minval >= maxval``."""
    return f"need minval < maxval, got {int(low)} >= {int(high)}"


@registerLowering("RandomUniformInt", static=(0,))
def _uniformInt(site: LoweringSite, shape: Any, minval: Any, maxval: Any) -> Any:
    dims = _shapeOf(site)
    for name, bound in (("minval", minval), ("maxval", maxval)):
        if np.ndim(bound) != 0:
            raise InvalidArgumentError(
                None, f"{name} must be a scalar, got shape {list(np.shape(bound))}"
            )
    dtype = site.dtype()
    low, high = site.constants[1], site.constants[2]
    if low is not None and high is not None:  # known: the numpy kernel's message, exactly
        if not int(low) < int(high):
            site.check(np.asarray(False), boundsMessage(low, high))
    else:  # only the values tell: checked when the request runs, the bounds read back then
        site.check(jnp.asarray(minval) < jnp.asarray(maxval), boundsMessage, minval, maxval)
    return jax.random.randint(site.rngKey(), dims, jnp.asarray(minval, dtype),
                              jnp.asarray(maxval, dtype), dtype)
