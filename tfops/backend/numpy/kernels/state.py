"""numpy kernels of the state and training ops (``tfops.spec.state``): variables, assignment,
NoOp, and the optimizers' update ops.

A variable's value lives in the session's :class:`~tfops.backend.numpy.state.Resources`. The
stateful kernels get the session's :class:`~tfops.backend.numpy.state.KernelContext` first,
whose ``refs`` name the variables their reference inputs point to. Values are replaced, never
changed in place, under the session's lock, so concurrent updates are not lost.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tfops.backend.numpy.registry import Array, Kernel, KernelSite, registerKernel
from tfops.backend.numpy.state import KernelContext
from tfops.errors import FailedPreconditionError, InvalidArgumentError

_INIT_HINT = (
    "give it a value first: create it with tf.variable(init) (a session runs its initializer "
    "by itself) or run an assign to it"
)


def read(ctx: KernelContext, name: str) -> Array:
    """The current value of variable ``name`` in this session."""
    value = ctx.resources.variables.get(name)
    if value is None:
        raise FailedPreconditionError(
            None, f"variable '{name}' is read before it was initialized; {_INIT_HINT}"
        )
    return value


def _store(ctx: KernelContext, name: str, value: Array) -> Array:
    frozen = np.array(value, copy=True)
    frozen.flags.writeable = False
    ctx.resources.variables[name] = frozen
    return frozen


# The results of these kernels are the variables' stored values: never fresh.
@registerKernel("VariableV2")
def _variable(site: KernelSite) -> Kernel:
    def run(ctx: KernelContext) -> Array:
        return read(ctx, ctx.op.name())

    return run


def _update(update: Callable[[Array, Array], Array] | None) -> Callable[[KernelSite], Kernel]:
    """The kernel of Assign (``update`` None) or of an in-place update such as AssignAdd."""

    def factory(site: KernelSite) -> Kernel:
        validate = site.attrs.get("validate_shape", True)

        def run(ctx: KernelContext, value: Array) -> Array:
            name = ctx.refs[0]
            declared = ctx.op.input(0).shape()
            dtype = ctx.op.output(0).dataType().DTYPE
            with ctx.resources.lock:
                if update is None:
                    old = ctx.resources.variables.get(name)
                    expected = old.shape if old is not None else None
                    new = value
                else:
                    old = read(ctx, name)
                    expected = old.shape
                    if np.shape(value) != old.shape:
                        raise InvalidArgumentError(
                            None, f"the update of shape {list(np.shape(value))} must have the "
                            f"shape of variable '{name}', {list(old.shape)}"
                        )
                    new = update(old, value)
                if validate and (
                    (expected is not None and np.shape(new) != expected)
                    or not declared.isCompatibleWithArray(np.shape(new))
                ):
                    shape = list(expected) if expected is not None else str(declared)
                    raise InvalidArgumentError(
                        None, f"cannot assign a value of shape {list(np.shape(new))} to variable "
                        f"'{name}' of shape {shape}"
                    )
                return _store(ctx, name, np.asarray(new, dtype=dtype))

        return run

    return factory


registerKernel("Assign", _update(None))
registerKernel("AssignAdd", _update(np.add))
registerKernel("AssignSub", _update(np.subtract))


@registerKernel("NoOp")
def _noOp(site: KernelSite) -> Kernel:
    return lambda: ()


# -- training ------------------------------------------------------------------------------
def _trainingOp(
    opType: str, values: tuple[str, ...], step: Callable[..., tuple[Array, ...]]
) -> None:
    """Registers the kernel of an optimizer's update op: ``step`` maps the current values of the
    reference inputs and the ``values`` inputs (by name, in order) to the new values."""

    def factory(site: KernelSite) -> Kernel:
        useNesterov = bool(site.attrs.get("use_nesterov", False))

        def run(ctx: KernelContext, *inputs: Array) -> Array:
            with ctx.resources.lock:
                current = [read(ctx, name) for name in ctx.refs]
                dtype = current[0].dtype
                for name, value in zip(values, inputs, strict=True):
                    if name in ("grad", "delta") and np.shape(value) != current[0].shape:
                        raise InvalidArgumentError(
                            None, f"'{name}' has shape {list(np.shape(value))}, the variable "
                            f"'{ctx.refs[0]}' has shape {list(current[0].shape)}"
                        )
                    if name not in ("grad", "delta") and np.ndim(value) != 0:
                        raise InvalidArgumentError(
                            None, f"'{name}' must be a scalar, got shape {list(np.shape(value))}"
                        )
                updated = step(*current, *inputs, nesterov=useNesterov)
                for name, old, new in zip(ctx.refs, current, updated, strict=True):
                    if np.shape(new) != old.shape:
                        raise InvalidArgumentError(
                            None, f"update of shape {list(np.shape(new))} for variable '{name}' "
                            f"of shape {list(old.shape)}"
                        )
                    _store(ctx, name, np.asarray(new, dtype=dtype))
                return ctx.resources.variables[ctx.refs[0]]

        return run

    registerKernel(opType, factory)


def _gradientDescent(var: Array, alpha: Array, delta: Array, nesterov: bool) -> tuple[Array]:
    return (var - alpha * delta,)


def _momentum(var: Array, accum: Array, lr: Array, grad: Array, momentum: Array,
              nesterov: bool) -> tuple[Array, Array]:
    accum = accum * momentum + grad
    if nesterov:
        return var - (grad * lr + accum * momentum * lr), accum
    return var - accum * lr, accum


def _adam(var: Array, m: Array, v: Array, beta1Power: Array, beta2Power: Array, lr: Array,
          beta1: Array, beta2: Array, epsilon: Array, grad: Array,
          nesterov: bool) -> tuple[Array, Array, Array]:
    alpha = lr * np.sqrt(1 - beta2Power) / (1 - beta1Power)
    m = m + (grad - m) * (1 - beta1)
    v = v + (grad * grad - v) * (1 - beta2)
    if nesterov:
        return var - (m * beta1 + (1 - beta1) * grad) * alpha / (np.sqrt(v) + epsilon), m, v
    return var - m * alpha / (np.sqrt(v) + epsilon), m, v


_trainingOp("ApplyGradientDescent", ("alpha", "delta"), _gradientDescent)
_trainingOp("ApplyMomentum", ("lr", "grad", "momentum"), _momentum)
_trainingOp(
    "ApplyAdam",
    ("beta1Power", "beta2Power", "lr", "beta1", "beta2", "epsilon", "grad"),
    _adam,
)
