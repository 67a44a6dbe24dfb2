"""Tracing one op into a segment's JAX function: computed at once with its numpy kernel when
its inputs are known and small (``_fold``), else lowered, its outputs checked and stored
(``lower``).
"""

from __future__ import annotations

import math
from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.base import SessionConfig
from tfops.backend.numpy.registry import KernelSite, lookupKernel
from tfops.backend.xla.registry import LoweringSite, isStatic, lookupLowering
from tfops.errors import InternalError, InvalidArgumentError, OpError, ResourceExhaustedError
from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TFloating, TType

Array = np.ndarray[Any, Any]

FOLDED = 1 << 12
"""Elements: an op whose inputs are all known when the request is compiled is computed then,
with its numpy kernel, when they and its results are this small (shapes, axes, sizes: what
TensorFlow's XLA bridge calls compile-time constants); larger ones are lowered."""


def _fold(op: Operation, inputs: list[Array], config: SessionConfig) -> list[Array] | None:
    """The op's outputs computed now on its known inputs, or ``None`` to lower it."""
    if any(np.size(v) > FOLDED for v in inputs):
        return None
    registered = lookupKernel(op._type)
    if registered is None:
        return None
    site = KernelSite(
        op._attrs, tuple(inputs), tuple(i._shape for i in op._inputs), config.memoryLimit
    )
    try:
        with np.errstate(all="ignore"):
            result = registered.factory(site)(*inputs)
    except Exception:
        return None  # lowered instead: its lowering reports the failure as XLA would
    results = (
        [result] if len(op._outs) == 1 and not op._opdef.outputs[0].countAttr else list(result)
    )
    if len(results) != len(op._outs) or any(np.size(r) > FOLDED for r in results):
        return None
    return [np.asarray(r) for r in results]


def lower(
    op: Operation,
    values: dict[Output[TType], Any],
    state: dict[str, Any],
    checks: list[tuple[Operation, Any, Any, Any]],
    config: SessionConfig,
) -> None:
    """Traces one op: its lowering on its inputs' values, its outputs checked and stored."""
    registered = lookupLowering(op._type)
    assert registered is not None
    refs = op._refInputs()
    if (
        not op._opdef.stateful
        and op._inputs
        and not refs
        and all(isStatic(values[i]) for i in op._inputs)
    ):
        folded = _fold(op, [np.asarray(values[i]) for i in op._inputs], config)
        if folded is not None:
            values.update(zip(op._outs, folded, strict=True))
            return
    inputs: list[Any] = []
    constants: list[Array | None] = []
    static = registered.staticPositions(len(op._inputs) - len(refs))
    for n, i in enumerate(op._inputs):
        if n in refs:
            continue
        value = values[i]
        known = isStatic(value)
        position = len(inputs)
        if position in static and not known:
            raise InvalidArgumentError(
                op,
                f"input {n} of {op._type} ('{i.name()}') must be known when the request is "
                "compiled on the xla backend: a constant, a shape, or a value fed straight into "
                "it (XLA compiles its value in); the numpy backend takes it at run time",
            )
        inputs.append(np.asarray(value) if known else value)
        constants.append(np.asarray(value) if known else None)
    refNames = tuple(op._inputs[n]._op._name for n in sorted(refs))
    site = LoweringSite(op, tuple(constants), config.memoryLimit, state, checks, refNames)
    try:
        result = registered.lowering(site, *inputs)
    except OpError as e:
        if e.op is None:
            raise type(e)(op, e.message) from None
        raise
    except (ValueError, TypeError, IndexError, ArithmeticError) as e:
        raise InvalidArgumentError(op, str(e)) from e
    outs = op._outs
    results = (result,) if len(outs) == 1 and not op._opdef.outputs[0].countAttr else tuple(result)
    if len(results) != len(outs):
        raise InternalError(
            op, f"the XLA lowering returned {len(results)} value(s) for {len(outs)} output(s)"
        )
    for o, r in zip(outs, results, strict=True):
        if r.dtype != o._dtype.DTYPE:
            raise InternalError(
                op,
                f"the XLA lowering made output {o._index} of dtype {r.dtype}, not {o._dtype.NAME}",
            )
        # a variable's value may take another shape (Assign with validate_shape=False)
        if not o._shape.isCompatibleWithArray(r.shape) and not op._opdef.outputs[0].isRef:
            raise InvalidArgumentError(
                op,
                f"output {o._index} has shape {list(r.shape)}, incompatible with its static "
                f"shape {o._shape}",
            )
        size = math.prod(r.shape) * r.dtype.itemsize
        if size > config.memoryLimit:
            raise ResourceExhaustedError(
                op,
                f"output '{o.name()}' of shape {list(r.shape)} needs {size:,} bytes, more "
                f"than the session's memory limit of {config.memoryLimit:,} bytes",
            )
        if config.checkNumerics and issubclass(o._dtype, TFloating):
            checks.append(
                (
                    op,
                    f"output {o._index} of '{op._name}' contains nan or inf (the "
                    "session checks numerics: this is the first op of the run to "
                    "produce a non-finite value)",
                    jnp.all(jnp.isfinite(r)),
                    (),
                )
            )
        values[o] = r
