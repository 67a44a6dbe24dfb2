"""Compiling a request into steps: needed ops, pass-through, bound kernels, constant folding.

``_compile`` walks the ops a request needs, checks their placement and static sizes, binds each
op's kernel to what is known before running (``_kernel``), computes what it can once for every
run (``_fold``), lets the rewrites of ``tfops.backend.numpy.rewrites`` simplify the steps, and
keeps only the live ones.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import numpy as np
from attrs import frozen

from tfops.backend.base import SessionConfig
from tfops.backend.numpy.base import Array, _single, _Step
from tfops.backend.numpy.options import NumpyOptions
from tfops.backend.numpy.registry import Kernel, KernelSite, checkAllocation, lookupKernel
from tfops.backend.numpy.rewrites import _readThroughRepeats, _simplify
from tfops.backend.numpy.state import KernelContext, Resources
from tfops.backend.requests import describe, neededOps, parseDevice
from tfops.errors import InvalidArgumentError, ResourceExhaustedError, UnimplementedError
from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TType


@frozen
class _Context:
    """What every plan of one session shares: its state, settings and thread pool."""

    resources: Resources
    config: SessionConfig
    options: NumpyOptions
    pool: Callable[[], ThreadPoolExecutor]


def _compile(
    context: _Context,
    feeds: tuple[Output[TType], ...],
    fetches: tuple[Output[TType], ...],
    targets: tuple[Operation, ...],
) -> tuple[list[_Step], list[int], list[int], dict[int, Any]]:
    """The steps of a request over numbered values, and the values' numbers and constants."""
    checkNumerics = context.config.checkNumerics
    limit = context.config.memoryLimit
    fed = set(feeds)
    values: dict[Output[TType], int] = {f: n for n, f in enumerate(feeds)}
    constants: dict[int, Any] = {}
    steps: list[_Step] = []
    for op in neededOps(fed, fetches, targets):
        if op._device and not context.config.allowSoftPlacement:
            _checkDevice(op)
        _checkStaticAllocation(op, limit)
        opdef = op._opdef
        refs = op._refInputs()
        ins = [values[i] for k, i in enumerate(op.inputs()) if k not in refs]
        outs = op.outputs()
        if (
            opdef.passThrough
            and not checkNumerics
            and not op.controlInputs()
            and (outs[0] not in fed)
        ):
            values[outs[0]] = ins[0]
            continue
        known = [None if k in refs else constants.get(values[i]) for k, i in enumerate(op.inputs())]
        kernel, fresh = _kernel(op, context, known)
        folded = (
            None
            if any(o in fed for o in outs)
            else _fold(op, kernel, ins, constants, checkNumerics, context.options.foldLimit)
        )
        ids: list[int | None] = []
        for k, o in enumerate(outs):
            if o in fed:
                ids.append(None)
                continue
            values[o] = len(values)
            ids.append(values[o])
            if isinstance(folded, list):
                constants[values[o]] = folded[k]
        if not isinstance(folded, list):
            keep = opdef.stateful or folded is _FAILS or op in targets
            steps.append(_Step(op, kernel, ins, ids, keep, fresh=fresh))
    fetchIds = [values[f] for f in fetches]
    _readThroughRepeats(steps, values)
    if not checkNumerics:  # with checks, each op's own result is checked
        steps = _simplify(steps, fetchIds, len(values))
    return _live(steps, fetchIds), [values[f] for f in feeds], fetchIds, constants


def _live(steps: list[_Step], fetchIds: list[int]) -> list[_Step]:
    """The steps that produce a value that is fetched or read, or that must run anyway."""
    live = set(fetchIds)
    controls: set[Operation] = set()
    kept: list[_Step] = []
    for s in reversed(steps):
        if s.keep or s.op in controls or any(v in live for v in s.outs if v is not None):
            kept.append(s)
            live.update(s.ins)
            controls.update(s.op.controlInputs())
    kept.reverse()
    return kept


class _Fails:
    def __repr__(self) -> str:
        return "FAILS"


_FAILS = _Fails()
"""What :func:`_fold` returns for an op whose kernel failed on its constant inputs."""


def _fold(
    op: Operation,
    kernel: Kernel,
    ins: list[int],
    constants: dict[int, Any],
    checkNumerics: bool,
    foldLimit: int,
) -> list[Any] | _Fails | None:
    """The op's output values when they can be computed now, once for every run."""
    opdef = op._opdef
    if opdef.stateful or op.controlInputs() or not op.numOutputs():
        return None
    if all(v in constants for v in ins):
        args = [constants[v] for v in ins]
    elif opdef.shapeOnly and all(i.shape().isFullyKnown() for i in op.inputs()):
        args = [  # stand-ins of the right shape and data type, holding no memory
            constants[v]
            if v in constants
            else np.broadcast_to(np.empty((), i.dataType().DTYPE), i.shape().asArray() or ())
            for v, i in zip(ins, op.inputs(), strict=True)
        ]
    else:
        return None
    for o in op.outputs():  # a large result is not computed now only to be dropped
        if (
            args
            and o.shape().isFullyKnown()
            and (o.shape().size() * np.dtype(o.dataType().DTYPE).itemsize > foldLimit)
        ):
            return None
    try:
        result = kernel(*args)
    except Exception:
        return _FAILS if all(v in constants for v in ins) else None
    results = [result] if _single(op) else list(result)
    if len(results) != op.numOutputs():
        return None
    held = [*args, *op._attrs.values()]  # memory the plan or the graph holds anyway
    roots = {id(_root(a)) for a in held if isinstance(a, np.ndarray)}
    for r in results:
        if isinstance(r, np.ndarray):
            root = _root(r)
            if id(root) not in roots and root.nbytes > foldLimit:
                return None
            r.flags.writeable = False
        elif not isinstance(r, np.generic):
            return None
        if checkNumerics and np.asarray(r).dtype.kind == "f" and not np.isfinite(r).all():
            return None  # left to run, so that the check names this op
    return results


def _root(a: Array) -> Array:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _checkDevice(op: Operation) -> None:
    """The numpy backend runs everything on the host's CPU: an op placed elsewhere fails."""
    name = parseDevice(op._device)
    if name is not None and not (name[0] == "cpu" and name[1] in (0, -1)):
        raise InvalidArgumentError(
            op,
            f"op '{op._name}' is placed on {describe(name)} (withDevice({op._device!r})), "
            "but the numpy backend runs on /device:CPU:0 only; run it on a backend that has "
            'the device (backend="xla"), or create the session with allowSoftPlacement=True',
        )


def _checkStaticAllocation(op: Operation, limit: int) -> None:
    for o in op.outputs():  # a statically known output too large fails before running
        if o.shape().isFullyKnown():
            try:
                checkAllocation(
                    o.shape().asArray() or (), o.dataType().DTYPE, limit, f"output '{o.name()}'"
                )
            except ResourceExhaustedError as e:
                raise ResourceExhaustedError(op, e.message) from None


def _kernel(op: Operation, context: _Context, known: list[Any]) -> tuple[Kernel, bool]:
    """The op's kernel bound to what the plan knows (its attributes, constant inputs, static
    shapes, the memory limit), and whether its results are fresh memory; a stateful op's kernel
    gets its context (this session's state) bound first.

    Raises:
        UnimplementedError: the numpy backend has no kernel for the op.
    """
    registered = lookupKernel(op._type)
    if registered is None:
        raise UnimplementedError(
            op,
            f"the numpy backend has no kernel for op type {op._type}; register one with "
            "tfops.backend.numpy.registerKernel",
        )
    site = KernelSite(
        op._attrs,
        tuple(known),
        tuple(i.shape() for i in op._inputs),
        context.config.memoryLimit,
    )
    kernel = registered.factory(site)
    if op._opdef.stateful:
        refs = tuple(op.input(k).op().name() for k in sorted(op._refInputs()))
        kernel = partial(kernel, KernelContext(context.resources, op, refs))
    return kernel, registered.fresh
