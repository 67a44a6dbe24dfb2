"""XLA lowerings of the update ops of ``tfops.spec.train_more``: Adagrad, RMSProp (plain and
centered), with TensorFlow's formulas (training_ops.cc).

As the update ops of ``lowerings/state.py``: the variables are read from and written to the
session's state (``LoweringSite.variableRef``); the output is ``var``'s new value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError


def _trainingOp(opType: str, refs: int, values: tuple[str, ...],
                step: Callable[..., tuple[Any, ...]]) -> None:
    """Registers the lowering of an update op with ``refs`` variables: ``step(*variables,
    *values, attrs=...)`` maps their current values and the ``values`` inputs (by name, in
    order) to the variables' new values."""

    def lower(site: LoweringSite, *inputs: Any) -> Any:
        names = [site.variableRef(i) for i in range(refs)]
        current = [site.read(name) for name in names]
        dtype = current[0].dtype
        shape = tuple(current[0].shape)
        for name, value in zip(values, inputs, strict=True):
            if name == "grad" and tuple(np.shape(value)) != shape:
                raise InvalidArgumentError(
                    None, f"'grad' has shape {list(np.shape(value))}, the variable "
                    f"'{names[0]}' has shape {list(shape)}"
                )
            if name != "grad" and np.ndim(value) != 0:
                raise InvalidArgumentError(
                    None, f"'{name}' must be a scalar, got shape {list(np.shape(value))}"
                )
        for name, old in zip(names[1:], current[1:], strict=True):
            if tuple(old.shape) != shape:
                raise InvalidArgumentError(
                    None, f"variable '{name}' has shape {list(old.shape)}, the variable "
                    f"'{names[0]}' has shape {list(shape)}"
                )
        updated = step(*current, *(jnp.asarray(v) for v in inputs), attrs=site.attrs)
        results = []
        for name, new in zip(names, updated, strict=True):
            new = jnp.asarray(new).astype(dtype)
            site.write(name, new)
            results.append(new)
        return results[0]

    registerLowering(opType, lower)


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


_trainingOp("ApplyAdagrad", 2, ("lr", "grad"), _adagrad)
_trainingOp("ApplyRMSProp", 3, ("lr", "rho", "momentum", "epsilon", "grad"), _rmsProp)
_trainingOp("ApplyCenteredRMSProp", 4, ("lr", "rho", "momentum", "epsilon", "grad"),
            _centeredRmsProp)
