"""numpy kernels of the update ops of ``tfops.spec.train_more``: Adagrad, RMSProp (plain and
centered), with TensorFlow's formulas (training_ops.cc).

As the update ops of ``kernels/state.py``: under the session's lock, the variables' values are
read, checked, and replaced by new (read-only) arrays; the output is ``var``'s new value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tfops.backend.numpy.kernels.state import read
from tfops.backend.numpy.registry import Array, Kernel, KernelSite, registerKernel
from tfops.backend.numpy.state import KernelContext
from tfops.errors import InvalidArgumentError


def _trainingOp(
    opType: str, values: tuple[str, ...],
    step: Callable[..., tuple[Array, ...]],
) -> None:
    """Registers the kernel of an update op: ``step(*variables, *values, attrs=...)`` maps the
    variables' current values and the ``values`` inputs (by name, in order; ``grad`` has the
    variables' shape, the others are scalars) to the variables' new values."""

    def factory(site: KernelSite) -> Kernel:
        attrs: Mapping[str, Any] = site.attrs

        def run(ctx: KernelContext, *inputs: Array) -> Array:
            with ctx.resources.lock:
                current = [read(ctx, name) for name in ctx.refs]
                dtype = current[0].dtype
                for name, value in zip(values, inputs, strict=True):
                    if name == "grad" and np.shape(value) != current[0].shape:
                        raise InvalidArgumentError(
                            None, f"'grad' has shape {list(np.shape(value))}, the variable "
                            f"'{ctx.refs[0]}' has shape {list(current[0].shape)}"
                        )
                    if name != "grad" and np.ndim(value) != 0:
                        raise InvalidArgumentError(
                            None, f"'{name}' must be a scalar, got shape {list(np.shape(value))}"
                        )
                for name, old in zip(ctx.refs[1:], current[1:], strict=True):
                    if old.shape != current[0].shape:
                        raise InvalidArgumentError(
                            None, f"variable '{name}' has shape {list(old.shape)}, the variable "
                            f"'{ctx.refs[0]}' has shape {list(current[0].shape)}"
                        )
                updated = step(*current, *inputs, attrs=attrs)
                for name, new in zip(ctx.refs, updated, strict=True):
                    frozen = np.array(new, dtype=dtype, copy=True)
                    frozen.flags.writeable = False
                    ctx.resources.variables[name] = frozen
                return ctx.resources.variables[ctx.refs[0]]

        return run

    registerKernel(opType, factory)


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


_trainingOp("ApplyAdagrad", ("lr", "grad"), _adagrad)
_trainingOp("ApplyRMSProp", ("lr", "rho", "momentum", "epsilon", "grad"), _rmsProp)
_trainingOp("ApplyCenteredRMSProp", ("lr", "rho", "momentum", "epsilon", "grad"),
            _centeredRmsProp)
