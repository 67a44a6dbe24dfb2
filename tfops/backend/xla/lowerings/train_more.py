"""XLA lowerings of the update ops of ``tfops.spec.train_more``: Adagrad, RMSProp (plain and
centered), with TensorFlow's formulas (training_ops.cc).

As the update ops of ``lowerings/state.py``: the variables are read from and written to the
session's state (``LoweringSite.variableRef``); the output is ``var``'s new value.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax.numpy as jnp

from tfops.backend.xla.lowerings.train_apply import trainingOp


def _adagrad(var: Any, accum: Any, lr: Any, grad: Any,
             attrs: Mapping[str, Any]) -> tuple[Any, Any]:
    if attrs.get("update_slots", True):
        accum = accum + grad * grad
    return var - grad * lr / jnp.sqrt(accum), accum


def _rmsProp(var: Any, ms: Any, mom: Any, lr: Any, rho: Any, momentum: Any, epsilon: Any,
             grad: Any, attrs: Mapping[str, Any]) -> tuple[Any, ...]:
    ms = ms + (grad * grad - ms) * (1 - rho)
    mom = mom * momentum + grad * lr / jnp.sqrt(ms + epsilon)
    return var - mom, ms, mom


def _centeredRmsProp(var: Any, mg: Any, ms: Any, mom: Any, lr: Any, rho: Any, momentum: Any,
                     epsilon: Any, grad: Any, attrs: Mapping[str, Any]) -> tuple[Any, ...]:
    ms = ms + (grad * grad - ms) * (1 - rho)
    mg = mg + (grad - mg) * (1 - rho)
    mom = mom * momentum + grad * lr / jnp.sqrt(ms - mg * mg + epsilon)
    return var - mom, mg, ms, mom


trainingOp("ApplyAdagrad", _adagrad)
trainingOp("ApplyRMSProp", _rmsProp)
trainingOp("ApplyCenteredRMSProp", _centeredRmsProp)
