"""The numpy kernels of :mod:`tfops.spec.math_trig`."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tfops.backend.numpy.registry import Array, broadcasting, elementwise, registerKernel

_FUNCTIONS: dict[str, Callable[[Array], Array]] = {
    "Sin": np.sin,
    "Cos": np.cos,
    "Tan": np.tan,
    "Asin": np.arcsin,
    "Acos": np.arccos,
    "Atan": np.arctan,
    "Sinh": np.sinh,
    "Cosh": np.cosh,
    "Asinh": np.arcsinh,
    "Acosh": np.arccosh,
    "Atanh": np.arctanh,
}
for _name, _function in _FUNCTIONS.items():
    registerKernel(_name, elementwise(_function), fresh=True)
registerKernel("Atan2", broadcasting(np.arctan2), fresh=True)
