"""XLA lowerings of the state ops (``tfops.spec.state``): variables, assignment, NoOp, and the
optimizers' update ops.

A variable's value is the session's state under the variable op's name: a VariableV2 reads its
own, the updates read and write the ones their reference inputs point to
(``LoweringSite.variableRef``). The engine threads the state through the traced request and
keeps it on the device between runs; as with the numpy kernels, the updates output the new value
of the (first) variable.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError


@registerLowering("VariableV2")
def _variable(site: LoweringSite) -> Any:
    return site.read(site.op.name())


def _update(update: Callable[[Any, Any], Any] | None) -> Callable[..., Any]:
    """The lowering of Assign (``update`` None) or of an in-place update such as AssignAdd."""

    def lower(site: LoweringSite, value: Any) -> Any:
        name = site.variableRef(0)
        declared = site.shapes[0]
        dtype = site.dtype()
        validate = site.attrs.get("validate_shape", True)
        if update is None:
            expected = tuple(site.read(name).shape) if site.has(name) else None
            new = jnp.asarray(value)
        else:
            old = site.read(name)
            expected = tuple(old.shape)
            if tuple(np.shape(value)) != expected:
                raise InvalidArgumentError(
                    None, f"the update of shape {list(np.shape(value))} must have the shape of "
                    f"variable '{name}', {list(expected)}"
                )
            new = update(old, value)
        shape = tuple(new.shape)
        if validate and ((expected is not None and shape != expected)
                         or not declared.isCompatibleWithArray(shape)):
            was = list(expected) if expected is not None else str(declared)
            raise InvalidArgumentError(
                None, f"cannot assign a value of shape {list(shape)} to variable '{name}' of "
                f"shape {was}"
            )
        new = new.astype(dtype)
        site.write(name, new)
        return new

    return lower


registerLowering("Assign", _update(None))
registerLowering("AssignAdd", _update(jnp.add))
registerLowering("AssignSub", _update(jnp.subtract))


@registerLowering("NoOp")
def _noOp(site: LoweringSite) -> Any:
    return ()


# -- training ------------------------------------------------------------------------------
def _trainingOp(
    opType: str, refs: int, values: tuple[str, ...], step: Callable[..., tuple[Any, ...]]
) -> None:
    """Registers the lowering of an optimizer's update op: ``step`` maps the current values of
    the ``refs`` reference inputs and the ``values`` inputs (by name, in order) to the new
    values."""

    def lower(site: LoweringSite, *inputs: Any) -> Any:
        useNesterov = bool(site.attrs.get("use_nesterov", False))
        names = [site.variableRef(i) for i in range(refs)]
        current = [site.read(name) for name in names]
        dtype = current[0].dtype
        shape = tuple(current[0].shape)
        for name, value in zip(values, inputs, strict=True):
            if name in ("grad", "delta") and tuple(np.shape(value)) != shape:
                raise InvalidArgumentError(
                    None, f"'{name}' has shape {list(np.shape(value))}, the variable "
                    f"'{names[0]}' has shape {list(shape)}"
                )
            if name not in ("grad", "delta") and np.ndim(value) != 0:
                raise InvalidArgumentError(
                    None, f"'{name}' must be a scalar, got shape {list(np.shape(value))}"
                )
        updated = step(*current, *(jnp.asarray(v) for v in inputs), nesterov=useNesterov)
        results = []
        for name, old, new in zip(names, current, updated, strict=True):
            if tuple(np.shape(new)) != tuple(old.shape):
                raise InvalidArgumentError(
                    None, f"update of shape {list(np.shape(new))} for variable '{name}' of "
                    f"shape {list(old.shape)}"
                )
            new = jnp.asarray(new).astype(dtype)
            site.write(name, new)
            results.append(new)
        return results[0]

    registerLowering(opType, lower)


def _gradientDescent(var: Any, alpha: Any, delta: Any, nesterov: bool) -> tuple[Any]:
    return (var - alpha * delta,)


def _momentum(var: Any, accum: Any, lr: Any, grad: Any, momentum: Any,
              nesterov: bool) -> tuple[Any, Any]:
    accum = accum * momentum + grad
    if nesterov:
        return var - (grad * lr + accum * momentum * lr), accum
    return var - accum * lr, accum


def _adam(var: Any, m: Any, v: Any, beta1Power: Any, beta2Power: Any, lr: Any,
          beta1: Any, beta2: Any, epsilon: Any, grad: Any,
          nesterov: bool) -> tuple[Any, Any, Any]:
    alpha = lr * jnp.sqrt(1 - beta2Power) / (1 - beta1Power)
    m = m + (grad - m) * (1 - beta1)
    v = v + (grad * grad - v) * (1 - beta2)
    if nesterov:
        return var - (m * beta1 + (1 - beta1) * grad) * alpha / (jnp.sqrt(v) + epsilon), m, v
    return var - m * alpha / (jnp.sqrt(v) + epsilon), m, v


_trainingOp("ApplyGradientDescent", 1, ("alpha", "delta"), _gradientDescent)
_trainingOp("ApplyMomentum", 2, ("lr", "grad", "momentum"), _momentum)
_trainingOp(
    "ApplyAdam", 3,
    ("beta1Power", "beta2Power", "lr", "beta1", "beta2", "epsilon", "grad"),
    _adam,
)
