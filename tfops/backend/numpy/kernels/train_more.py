"""numpy kernels of the update ops of ``tfops.spec.train_more``: Adagrad, RMSProp (plain and
centered), with TensorFlow's formulas (training_ops.cc).

As the update ops of ``kernels/state.py``: under the session's lock, the variables' values are
read, checked, and replaced by new (read-only) arrays; the output is ``var``'s new value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from tfops.backend.numpy.kernels.train_apply import trainingOp
from tfops.backend.numpy.registry import Array


def _adagrad(var: Array, accum: Array, lr: Array, grad: Array,
             attrs: Mapping[str, Any]) -> tuple[Array, Array]:
    if attrs.get("update_slots", True):
        accum = accum + grad * grad
    return var - grad * lr / np.sqrt(accum), accum


def _rmsProp(var: Array, ms: Array, mom: Array, lr: Array, rho: Array, momentum: Array,
             epsilon: Array, grad: Array, attrs: Mapping[str, Any]) -> tuple[Array, ...]:
    ms = ms + (grad * grad - ms) * (1 - rho)
    mom = mom * momentum + grad * lr / np.sqrt(ms + epsilon)
    return var - mom, ms, mom


def _centeredRmsProp(var: Array, mg: Array, ms: Array, mom: Array, lr: Array, rho: Array,
                     momentum: Array, epsilon: Array, grad: Array,
                     attrs: Mapping[str, Any]) -> tuple[Array, ...]:
    ms = ms + (grad * grad - ms) * (1 - rho)
    mg = mg + (grad - mg) * (1 - rho)
    mom = mom * momentum + grad * lr / np.sqrt(ms - mg * mg + epsilon)
    return var - mom, mg, ms, mom


trainingOp("ApplyAdagrad", _adagrad)
trainingOp("ApplyRMSProp", _rmsProp)
trainingOp("ApplyCenteredRMSProp", _centeredRmsProp)
