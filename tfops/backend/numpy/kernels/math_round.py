"""The numpy kernels of :mod:`tfops.spec.math_round`."""

from __future__ import annotations

import numpy as np

from tfops.backend.numpy.registry import Array, elementwise, registerKernel


def _round(x: Array) -> Array:
    """Half to even (numpy's ``rint``); integers are copied unchanged."""
    return np.rint(x) if x.dtype.kind == "f" else np.array(x, copy=True)


registerKernel("Floor", elementwise(np.floor), fresh=True)
registerKernel("Ceil", elementwise(np.ceil), fresh=True)
registerKernel("Round", elementwise(_round), fresh=True)
registerKernel("Rint", elementwise(np.rint), fresh=True)
