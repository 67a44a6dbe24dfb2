"""The numpy kernels of :mod:`tfops.spec.math_special`, with ``scipy.special``'s functions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfops.backend.numpy.registry import Array, broadcasting, elementwise, registerKernel


def _special() -> Any:
    """``scipy.special``, imported when a kernel first runs: it is a large module (0.2 s to
    import, and some 16,000 objects that Python's cycle collector would walk in every full
    collection of every program) that most programs never call."""
    # imported on first use, not at the top (the docstring says why)
    import scipy.special  # type: ignore[import-untyped]

    return scipy.special


def _inType(fn: Callable[..., Any], *args: Array) -> Array:
    """``fn(*args)`` (a scipy function) in the arguments' data type: float16 arguments are
    computed in float32, as TensorFlow's Eigen functions compute them; scipy would compute
    them in float64."""
    dtype = args[0].dtype
    wide = [a.astype(np.float32) if dtype == np.float16 else a for a in args]
    with np.errstate(all="ignore"):
        return np.asarray(fn(*wide)).astype(dtype, copy=False)


def _isPole(x: Array) -> Array:
    """Where ``x`` is 0 or a negative integer (the poles of the gamma function)."""
    return np.asarray((x <= 0) & (np.floor(x) == x))


def _lgamma(x: Array) -> Array:
    y = _inType(_special().gammaln, x)
    return np.where(np.isneginf(x), np.array(np.inf, y.dtype), y)  # TensorFlow's: inf


def _digamma(x: Array) -> Array:
    y = _inType(_special().psi, x)
    return np.where(_isPole(x), np.array(np.nan, y.dtype), y)  # TensorFlow's: nan, not inf


def _zetaWide(x: Array, q: Array) -> Array:
    """Hurwitz's zeta with TensorFlow's (Eigen's) values at the poles q = 0, -1, -2...:
    ``inf`` where ``x`` is an even integer, else NaN (scipy says ``inf``); x = 1 gives ``inf``
    and x < 1 NaN before that."""
    pole = _isPole(q) & (x > 1)
    evenX = (np.floor(x) == x) & (np.fmod(x, 2) == 0)
    return np.where(pole, np.where(evenX, np.inf, np.nan), _special().zeta(x, q))


def _polygammaWide(n: Array, x: Array) -> Array:
    """psi^(n)(x): digamma for n = 0, (-1)^(n+1) n! zeta(n + 1, x) for n = 1, 2...; NaN for
    orders that are not non-negative integers."""
    order = np.where(n >= 1, n, 1.0)  # the formula only where it applies (no warnings)
    sign = np.where(np.fmod(order, 2) == 1, 1.0, -1.0)
    y = sign * _special().gamma(order + 1) * _zetaWide(order + 1, x)
    digamma = np.where(_isPole(x), np.nan, _special().psi(x))
    valid = (n >= 0) & (np.floor(n) == n)
    return np.where(valid, np.where(n == 0, digamma, y), np.nan)


def _zeta(x: Array, q: Array) -> Array:
    return _inType(_zetaWide, x, q)


def _xlogy(x: Array, y: Array) -> Array:
    with np.errstate(all="ignore"):
        return np.where(x == 0, x, x * np.log(y))  # x itself: -0.0 stays -0.0


def _xdivy(x: Array, y: Array) -> Array:
    with np.errstate(all="ignore"):
        return np.where(x == 0, x, np.true_divide(x, y))


registerKernel("IsInf", elementwise(np.isinf), fresh=True)
registerKernel("Erf", elementwise(lambda x: _inType(_special().erf, x)), fresh=True)
registerKernel("Erfc", elementwise(lambda x: _inType(_special().erfc, x)), fresh=True)
registerKernel("Lgamma", elementwise(_lgamma), fresh=True)
registerKernel("Digamma", elementwise(_digamma), fresh=True)
registerKernel("Polygamma", broadcasting(lambda n, x: _inType(_polygammaWide, n, x)), fresh=True)
registerKernel("Zeta", broadcasting(_zeta), fresh=True)
registerKernel("Xlogy", broadcasting(_xlogy), fresh=True)
registerKernel("Xdivy", broadcasting(_xdivy), fresh=True)
