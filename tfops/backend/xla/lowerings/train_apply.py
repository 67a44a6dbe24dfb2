"""XLA lowerings of the update ops of ``tfops.spec.train_apply``: Adagrad dual averaging,
Adadelta, AdaMax, FTRL (V1 and V2), proximal gradient descent and Adagrad, PowerSign, AddSign,
with TensorFlow's formulas (training_ops.cc), as the numpy kernels compute them.

As the update ops of ``lowerings/state.py``: the variables are read from and written to the
session's state (``LoweringSite.variableRef``); the output is ``var``'s new value. Choices that
depend on a hyperparameter's value (``l1 > 0``, ``lr_power == -0.5``) are made per element with
``where``, since the values are known only when the step runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import InvalidArgumentError
from tfops.opdef import lookupOp
from tfops.spec.train_apply import GRADIENTS, STEPS

Checks = Callable[[LoweringSite, Mapping[str, Any]], None]


def trainingOp(
    opType: str, step: Callable[..., tuple[Any, ...]], checks: Checks | None = None
) -> None:
    """Registers the lowering of an update op: ``step(*variables, *values, attrs=...)`` maps
    the variables' current values and the other inputs (in the op's order) to the variables'
    new values; ``checks`` records the run-time checks of the inputs' values."""
    spec = lookupOp(opType)
    assert spec is not None, opType
    refs = sum(i.isRef for i in spec.inputs)
    names = [i.name for i in spec.inputs if not i.isRef]

    def lower(site: LoweringSite, *inputs: Any) -> Any:
        variables = [site.variableRef(i) for i in range(refs)]
        current = [site.read(name) for name in variables]
        dtype = current[0].dtype
        shape = tuple(current[0].shape)
        for name, value in zip(names, inputs, strict=True):
            if name in GRADIENTS and tuple(np.shape(value)) != shape:
                raise InvalidArgumentError(
                    None,
                    f"'{name}' has shape {list(np.shape(value))}, the variable "
                    f"'{variables[0]}' has shape {list(shape)}",
                )
            if name not in GRADIENTS and np.ndim(value) != 0:
                raise InvalidArgumentError(
                    None, f"'{name}' must be a scalar, got shape {list(np.shape(value))}"
                )
        for name, old in zip(variables[1:], current[1:], strict=True):
            if tuple(old.shape) != shape:
                raise InvalidArgumentError(
                    None,
                    f"variable '{name}' has shape {list(old.shape)}, the variable "
                    f"'{variables[0]}' has shape {list(shape)}",
                )
        if checks is not None:
            checks(site, dict(zip(names, inputs, strict=True)))
        values = [
            jnp.asarray(v) if n in STEPS else jnp.asarray(v).astype(dtype)
            for n, v in zip(names, inputs, strict=True)
        ]
        updated = step(*current, *values, attrs=site.attrs)
        results = []
        for name, new in zip(variables, updated, strict=True):
            new = jnp.asarray(new).astype(dtype)
            site.write(name, new)
            results.append(new)
        return results[0]

    registerLowering(opType, lower)


def _adagradDA(
    var: Any,
    gAcc: Any,
    ggAcc: Any,
    grad: Any,
    lr: Any,
    l1: Any,
    l2: Any,
    globalStep: Any,
    attrs: Mapping[str, Any],
) -> tuple[Any, ...]:
    dtype = var.dtype
    gAcc = gAcc + grad
    ggAcc = ggAcc + grad * grad
    wide = globalStep.astype(jnp.float32).astype(jnp.promote_types(jnp.float32, dtype))
    rate = (wide * lr.astype(wide.dtype)).astype(dtype)  # float(global_step) * lr
    denominator = l2 * rate + jnp.sqrt(ggAcc)
    shrunk = jnp.maximum(jnp.abs(gAcc) - wide.astype(dtype) * l1, jnp.zeros((), dtype))
    withL1 = lr * -jnp.ones((), dtype) * jnp.sign(gAcc) * shrunk / denominator
    withoutL1 = lr * gAcc * -jnp.ones((), dtype) / denominator
    return jnp.where(l1 > 0, withL1, withoutL1), gAcc, ggAcc


def _adadelta(
    var: Any,
    accum: Any,
    accumUpdate: Any,
    lr: Any,
    rho: Any,
    epsilon: Any,
    grad: Any,
    attrs: Mapping[str, Any],
) -> tuple[Any, ...]:
    accum = accum * rho + grad * grad * (1 - rho)
    update = jnp.sqrt(accumUpdate + epsilon) * (1 / jnp.sqrt(accum + epsilon)) * grad
    var = var - update * lr
    accumUpdate = accumUpdate * rho + update * update * (1 - rho)
    return var, accum, accumUpdate


def _adaMax(
    var: Any,
    m: Any,
    v: Any,
    beta1Power: Any,
    lr: Any,
    beta1: Any,
    beta2: Any,
    epsilon: Any,
    grad: Any,
    attrs: Mapping[str, Any],
) -> tuple[Any, ...]:
    m = m + (grad - m) * (1 - beta1)
    v = jnp.maximum(beta2 * v, jnp.abs(grad))
    return var - lr / (1 - beta1Power) * (m / (v + epsilon)), m, v


def _ftrl(
    var: Any,
    accum: Any,
    linear: Any,
    grad: Any,
    lr: Any,
    l1: Any,
    l2: Any,
    l2Shrinkage: Any,
    lrPower: Any,
    attrs: Mapping[str, Any],
) -> tuple[Any, ...]:
    """ApplyFtrl (``l2Shrinkage`` None) and ApplyFtrlV2, with or without
    ``multiply_linear_by_lr``."""
    shrunk = grad if l2Shrinkage is None else grad + 2 * l2Shrinkage * var
    newAccum = accum + grad * grad

    def power(x: Any) -> Any:
        return jnp.where(lrPower == -0.5, jnp.sqrt(x), jnp.power(x, -lrPower))

    if bool(attrs.get("multiply_linear_by_lr", False)):
        linear = linear + (shrunk * lr - (power(newAccum) - power(accum)) * var)
        threshold = l1 * lr
        y = power(newAccum) + 2 * l2 * lr
    else:
        linear = linear + (shrunk - (power(newAccum) - power(accum)) / lr * var)
        threshold = l1
        y = power(newAccum) / lr + 2 * l2
    x = threshold * jnp.sign(linear) - linear
    var = jnp.where(jnp.abs(linear) > threshold, x / y, jnp.zeros((), var.dtype))
    return var, newAccum, linear


def _ftrlV1(
    var: Any,
    accum: Any,
    linear: Any,
    grad: Any,
    lr: Any,
    l1: Any,
    l2: Any,
    lrPower: Any,
    attrs: Mapping[str, Any],
) -> tuple[Any, ...]:
    return _ftrl(var, accum, linear, grad, lr, l1, l2, None, lrPower, attrs)


def _proximal(prox: Any, rate: Any, l1: Any, l2: Any) -> Any:
    """FOBOS' shrinkage of ``prox`` with the learning rate ``rate``."""
    withL1 = (
        jnp.sign(prox)
        * jnp.maximum(jnp.abs(prox) - rate * l1, jnp.zeros((), prox.dtype))
        / (1 + l2 * rate)
    )
    return jnp.where(l1 > 0, withL1, prox / (1 + l2 * rate))


def _proximalGradientDescent(
    var: Any, alpha: Any, l1: Any, l2: Any, delta: Any, attrs: Mapping[str, Any]
) -> tuple[Any]:
    return (_proximal(var - delta * alpha, alpha, l1, l2),)


def _proximalAdagrad(
    var: Any, accum: Any, lr: Any, l1: Any, l2: Any, grad: Any, attrs: Mapping[str, Any]
) -> tuple[Any, ...]:
    accum = accum + grad * grad
    rate = lr * (1 / jnp.sqrt(accum))
    return _proximal(var - grad * rate, rate, l1, l2), accum


def _proximalAdagradChecks(site: LoweringSite, inputs: Mapping[str, Any]) -> None:
    site.check(inputs["lr"] > 0, lambda v: f"lr is not a positive scalar: {float(v)}", inputs["lr"])
    for name in ("l1", "l2"):
        site.check(
            inputs[name] >= 0,
            lambda v, name=name: (
                f"{name} regularization strength is not a non-negative scalar: {float(v)}"
            ),
            inputs[name],
        )


def _powerSign(
    var: Any,
    m: Any,
    lr: Any,
    logbase: Any,
    signDecay: Any,
    beta: Any,
    grad: Any,
    attrs: Mapping[str, Any],
) -> tuple[Any, ...]:
    m = m * beta + grad * (1 - beta)
    scale = jnp.exp(logbase * signDecay * (jnp.sign(grad) * jnp.sign(m)))
    return var - lr * scale * grad, m


def _addSign(
    var: Any,
    m: Any,
    lr: Any,
    alpha: Any,
    signDecay: Any,
    beta: Any,
    grad: Any,
    attrs: Mapping[str, Any],
) -> tuple[Any, ...]:
    m = m * beta + grad * (1 - beta)
    return var - lr * (alpha + signDecay * (jnp.sign(grad) * jnp.sign(m))) * grad, m


trainingOp("ApplyAdagradDA", _adagradDA)
trainingOp("ApplyAdadelta", _adadelta)
trainingOp("ApplyAdaMax", _adaMax)
trainingOp("ApplyFtrl", _ftrlV1)
trainingOp("ApplyFtrlV2", _ftrl)
trainingOp("ApplyProximalGradientDescent", _proximalGradientDescent)
trainingOp("ApplyProximalAdagrad", _proximalAdagrad, _proximalAdagradChecks)
trainingOp("ApplyPowerSign", _powerSign)
trainingOp("ApplyAddSign", _addSign)
