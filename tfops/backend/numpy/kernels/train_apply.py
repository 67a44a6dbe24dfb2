"""numpy kernels of the update ops of ``tfops.spec.train_apply``: Adagrad dual averaging,
Adadelta, AdaMax, FTRL (V1 and V2), proximal gradient descent and Adagrad, PowerSign, AddSign,
with TensorFlow's formulas (training_ops.cc), in TensorFlow's order of operations.

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
from tfops.opdef import lookupOp
from tfops.spec.train_apply import GRADIENTS, STEPS

Checks = Callable[[Mapping[str, Array]], str | None]


def trainingOp(
    opType: str, step: Callable[..., tuple[Array, ...]], checks: Checks | None = None
) -> None:
    """Registers the kernel of an update op: ``step(*variables, *values, attrs=...)`` maps the
    variables' current values and the other inputs (in the op's order) to the variables' new
    values; ``checks`` (inputs by name) returns the message of a bad value, or None."""
    spec = lookupOp(opType)
    assert spec is not None, opType
    names = [i.name for i in spec.inputs if not i.isRef]

    def factory(site: KernelSite) -> Kernel:
        attrs: Mapping[str, Any] = site.attrs

        def run(ctx: KernelContext, *inputs: Array) -> Array:
            with ctx.resources.lock:
                current = [read(ctx, name) for name in ctx.refs]
                dtype = current[0].dtype
                for name, value in zip(names, inputs, strict=True):
                    if name in GRADIENTS and np.shape(value) != current[0].shape:
                        raise InvalidArgumentError(
                            None,
                            f"'{name}' has shape {list(np.shape(value))}, the variable "
                            f"'{ctx.refs[0]}' has shape {list(current[0].shape)}",
                        )
                    if name not in GRADIENTS and np.ndim(value) != 0:
                        raise InvalidArgumentError(
                            None, f"'{name}' must be a scalar, got shape {list(np.shape(value))}"
                        )
                for name, old in zip(ctx.refs[1:], current[1:], strict=True):
                    if old.shape != current[0].shape:
                        raise InvalidArgumentError(
                            None,
                            f"variable '{name}' has shape {list(old.shape)}, the variable "
                            f"'{ctx.refs[0]}' has shape {list(current[0].shape)}",
                        )
                if checks is not None:
                    message = checks(dict(zip(names, inputs, strict=True)))
                    if message is not None:
                        raise InvalidArgumentError(None, message)
                values = [
                    v if n in STEPS else np.asarray(v, dtype)
                    for n, v in zip(names, inputs, strict=True)
                ]
                with np.errstate(all="ignore"):  # inf and nan as TensorFlow's kernels give
                    updated = step(*current, *values, attrs=attrs)
                for name, new in zip(ctx.refs, updated, strict=True):
                    frozen = np.array(new, dtype=dtype, copy=True)
                    frozen.flags.writeable = False
                    ctx.resources.variables[name] = frozen
                return ctx.resources.variables[ctx.refs[0]]

        return run

    registerKernel(opType, factory)


def _stepAsFloat(step: Any, dtype: Any) -> Any:
    """The int64 ``global_step`` as TensorFlow's AdagradDA reads it: a float32 number, widened
    to ``dtype`` when that is wider (float64), and float32 otherwise."""
    return np.float32(step).astype(np.promote_types(np.float32, dtype))


def _adagradDA(
    var: Array,
    gAcc: Array,
    ggAcc: Array,
    grad: Array,
    lr: Array,
    l1: Array,
    l2: Array,
    globalStep: Array,
    attrs: Mapping[str, Any],
) -> tuple[Array, ...]:
    dtype = var.dtype
    gAcc = gAcc + grad
    ggAcc = ggAcc + grad * grad
    wide = _stepAsFloat(globalStep, dtype)
    rate = (wide * lr.astype(wide.dtype)).astype(dtype)  # float(global_step) * lr
    denominator = l2 * rate + np.sqrt(ggAcc)
    if l1 > 0:
        shrunk = np.maximum(np.abs(gAcc) - wide.astype(dtype) * l1, dtype.type(0))
        var = lr * dtype.type(-1) * np.sign(gAcc) * shrunk / denominator
    else:
        var = lr * gAcc * dtype.type(-1) / denominator
    return var, gAcc, ggAcc


def _adadelta(
    var: Array,
    accum: Array,
    accumUpdate: Array,
    lr: Array,
    rho: Array,
    epsilon: Array,
    grad: Array,
    attrs: Mapping[str, Any],
) -> tuple[Array, ...]:
    one = var.dtype.type(1)
    accum = accum * rho + grad * grad * (one - rho)
    update = np.sqrt(accumUpdate + epsilon) * (one / np.sqrt(accum + epsilon)) * grad
    var = var - update * lr
    accumUpdate = accumUpdate * rho + update * update * (one - rho)
    return var, accum, accumUpdate


def _adaMax(
    var: Array,
    m: Array,
    v: Array,
    beta1Power: Array,
    lr: Array,
    beta1: Array,
    beta2: Array,
    epsilon: Array,
    grad: Array,
    attrs: Mapping[str, Any],
) -> tuple[Array, ...]:
    one = var.dtype.type(1)
    m = m + (grad - m) * (one - beta1)
    v = np.maximum(beta2 * v, np.abs(grad))
    return var - lr / (one - beta1Power) * (m / (v + epsilon)), m, v


def _ftrl(
    var: Array,
    accum: Array,
    linear: Array,
    grad: Array,
    lr: Array,
    l1: Array,
    l2: Array,
    l2Shrinkage: Array | None,
    lrPower: Array,
    attrs: Mapping[str, Any],
) -> tuple[Array, ...]:
    """ApplyFtrl (``l2Shrinkage`` None) and ApplyFtrlV2, with or without
    ``multiply_linear_by_lr``."""
    two = var.dtype.type(2)
    shrunk = grad if l2Shrinkage is None else grad + two * l2Shrinkage * var
    newAccum = accum + grad * grad

    def power(x: Array) -> Array:
        return np.sqrt(x) if lrPower == -0.5 else np.power(x, -lrPower)

    byLr = bool(attrs.get("multiply_linear_by_lr", False))
    if byLr:
        linear = linear + (shrunk * lr - (power(newAccum) - power(accum)) * var)
        threshold = l1 * lr
        y = power(newAccum) + two * l2 * lr
    else:
        linear = linear + (shrunk - (power(newAccum) - power(accum)) / lr * var)
        threshold = l1
        y = power(newAccum) / lr + two * l2
    x = threshold * np.sign(linear) - linear
    var = np.where(np.abs(linear) > threshold, x / y, var.dtype.type(0))
    return var, newAccum, linear


def _ftrlV1(
    var: Array,
    accum: Array,
    linear: Array,
    grad: Array,
    lr: Array,
    l1: Array,
    l2: Array,
    lrPower: Array,
    attrs: Mapping[str, Any],
) -> tuple[Array, ...]:
    return _ftrl(var, accum, linear, grad, lr, l1, l2, None, lrPower, attrs)


def _proximal(prox: Array, rate: Array, l1: Array, l2: Array) -> Array:
    """FOBOS' shrinkage of ``prox`` with the learning rate ``rate``."""
    denominator: Array = prox.dtype.type(1) + l2 * rate
    if l1 > 0:
        shrunk: Array = np.maximum(np.abs(prox) - rate * l1, prox.dtype.type(0))
        return np.sign(prox) * shrunk / denominator
    return prox / denominator


def _proximalGradientDescent(
    var: Array, alpha: Array, l1: Array, l2: Array, delta: Array, attrs: Mapping[str, Any]
) -> tuple[Array]:
    return (_proximal(var - delta * alpha, alpha, l1, l2),)


def _proximalAdagrad(
    var: Array, accum: Array, lr: Array, l1: Array, l2: Array, grad: Array, attrs: Mapping[str, Any]
) -> tuple[Array, ...]:
    accum = accum + grad * grad
    rate = lr * (var.dtype.type(1) / np.sqrt(accum))
    return _proximal(var - grad * rate, rate, l1, l2), accum


def _proximalAdagradChecks(inputs: Mapping[str, Array]) -> str | None:
    if not inputs["lr"] > 0:
        return f"lr is not a positive scalar: {float(inputs['lr'])}"
    for name in ("l1", "l2"):
        if not inputs[name] >= 0:
            return (
                f"{name} regularization strength is not a non-negative scalar: "
                f"{float(inputs[name])}"
            )
    return None


def _powerSign(
    var: Array,
    m: Array,
    lr: Array,
    logbase: Array,
    signDecay: Array,
    beta: Array,
    grad: Array,
    attrs: Mapping[str, Any],
) -> tuple[Array, ...]:
    m = m * beta + grad * (var.dtype.type(1) - beta)
    scale = np.exp(logbase * signDecay * (np.sign(grad) * np.sign(m)))
    return var - lr * scale * grad, m


def _addSign(
    var: Array,
    m: Array,
    lr: Array,
    alpha: Array,
    signDecay: Array,
    beta: Array,
    grad: Array,
    attrs: Mapping[str, Any],
) -> tuple[Array, ...]:
    m = m * beta + grad * (var.dtype.type(1) - beta)
    return var - lr * (alpha + signDecay * (np.sign(grad) * np.sign(m))) * grad, m


trainingOp("ApplyAdagradDA", _adagradDA)
trainingOp("ApplyAdadelta", _adadelta)
trainingOp("ApplyAdaMax", _adaMax)
trainingOp("ApplyFtrl", _ftrlV1)
trainingOp("ApplyFtrlV2", _ftrl)
trainingOp("ApplyProximalGradientDescent", _proximalGradientDescent)
trainingOp("ApplyProximalAdagrad", _proximalAdagrad, _proximalAdagradChecks)
trainingOp("ApplyPowerSign", _powerSign)
trainingOp("ApplyAddSign", _addSign)
