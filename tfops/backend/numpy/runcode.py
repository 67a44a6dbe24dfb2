"""Generating the straight-line run functions of a plan, and mapping failures to their ops."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from tfops.backend.numpy.base import Array, _checkSize, _FailedInError, _sizeUnknown, _Step
from tfops.backend.numpy.buffers import _Buffers, _release
from tfops.backend.numpy.fused import _Fused
from tfops.errors import InvalidArgumentError, OpError, ResourceExhaustedError
from tfops.operation import Operation


def _generate(
    units: list[_Step],
    feedIds: list[int],
    fetchIds: list[int],
    constants: dict[int, Any],
    checkNumerics: bool,
    pooled: set[int],
    limit: int,
    buffers: _Buffers | None = None,
) -> Callable[..., list[Array]]:
    """A function of the fed values that runs ``units`` and returns the fetched values.

    A fetched value is memory of the caller's own: never a fed array (``Identity`` of a feed,
    a feed fetched), a constant or a view of one (``_ownArray``). A result whose shape the plan
    did not know is checked against the memory limit ``limit`` when made (``_checkSize``).

    ``pooled`` values (fresh results of fused groups that nothing else can see, as the plan
    found) go to the run's pool of free buffers where they die, unless a fused group that reads
    them last takes them itself.
    """
    dying = _dying(units, feedIds, fetchIds, constants)
    read = {v for u in units for v in u.ins}
    kept = set(fetchIds) | set(feedIds)

    def name(v: int) -> str:
        return f"_c{v}" if v in constants else f"v{v}"

    namespace: dict[str, Any] = {f"_c{v}": c for v, c in constants.items()}
    namespace.update(_own=_ownArray, _fail=None, _rel=_release)
    if buffers is not None:
        namespace.update(_take=buffers.take, _give=buffers.give)
        buffers.limit = len(pooled)  # a run frees each of these values once at most
    lines = [f"def _run({', '.join(f'v{v}' for v in feedIds)}):"]
    grouped = any(u.pooled for u in units)
    pool = "    _pool = _take()" if buffers is not None else "    _pool = []"
    lines.append(pool if grouped else "    pass")
    lines.append("    try:")
    first = len(lines) + 1  # line numbers start at 1
    for n, u in enumerate(units):
        namespace[f"_k{n}"] = u.kernel
        args = ", ".join((["_pool"] if u.pooled else []) + [name(v) for v in u.ins])
        call = f"_k{n}({args})"
        targets = [f"v{v}" if v is not None and (v in read or v in kept) else "_"
                   for v in u.outs]
        if checkNumerics and u.outs:
            namespace[f"_chk{n}"] = partial(_checkFinite, u.op, u.single)
            call = f"_chk{n}({call})"
        if u.outs and not isinstance(u.kernel, _Fused) and _sizeUnknown(u.op):
            namespace[f"_lim{n}"] = partial(_checkSize, u.single, limit)
            call = f"_lim{n}({call})"
        if not u.outs:
            statement = call
        elif u.single:
            statement = f"{targets[0]} = {call}"
        else:
            statement = f"{', '.join(targets)}, = {call}"
        free = dying.get(n, ())
        if isinstance(u.kernel, _Fused):  # the group takes its dying inputs itself
            u.kernel.dying = tuple(k for k, v in enumerate(u.ins) if v in free and v in pooled)
        released = [] if u.pooled else [f"_rel(_pool, v{v})" for v in free if v in pooled]
        if free:
            statement += "; " + "; ".join(released + [f"del {', '.join(f'v{v}' for v in free)}"])
        lines.append("        " + statement)
    fed = f"({''.join(f'v{v}, ' for v in feedIds)})"
    fetched = f"[{', '.join(f'_own({name(v)}, {fed})' for v in fetchIds)}]"
    if grouped and buffers is not None:
        lines.append(f"        _r = {fetched}")
        lines.append("        _give(_pool)")
        lines.append("        return _r")
    else:
        lines.append(f"        return {fetched}")
    lines.append("    except Exception as _e:")
    lines.append("        _x = _fail(_e)")
    lines.append("        if _x is None:")
    lines.append("            raise")
    lines.append("        raise _x[0] from _x[1]")
    namespace["_fail"] = partial(_translate, [u.op for u in units], first)
    exec(compile("\n".join(lines), "<tfops plan>", "exec"), namespace)
    run: Callable[..., list[Array]] = namespace["_run"]
    return run


def _dying(
    units: list[_Step], feedIds: list[int], fetchIds: list[int], constants: dict[int, Any]
) -> dict[int, list[int]]:
    """For each unit, the values it reads for the last time (not the fed, fetched or constant
    ones, which the run does not own)."""
    lastUse: dict[int, int] = {}
    for n, u in enumerate(units):
        for v in u.ins:
            lastUse[v] = n
    kept = set(fetchIds) | set(feedIds)
    dying: dict[int, list[int]] = {}
    for v, n in lastUse.items():
        if v not in kept and v not in constants:
            dying.setdefault(n, []).append(v)
    return dying


def _translate(
    ops: list[Operation], first: int, error: Exception
) -> tuple[BaseException, BaseException | None] | None:
    """What to raise for ``error``, raised on a line of a generated function (see
    :func:`_explain`)."""
    tb = error.__traceback__
    index = tb.tb_lineno - first if tb is not None else -1
    if isinstance(error, _FailedInError) or 0 <= index < len(ops):
        return _explain(ops[index] if 0 <= index < len(ops) else None, error)
    return None


def _explain(
    op: Operation | None, error: Exception
) -> tuple[BaseException, BaseException | None] | None:
    """The error to raise for ``error``, raised while running ``op``: one that names the op
    (``None``: re-raise ``error`` as it is)."""
    original = error
    if isinstance(error, _FailedInError):
        op, error = error.op, error.error
    if op is None:
        return None
    if isinstance(error, OpError):
        if error.op is None:
            return type(error)(op, error.message), None
    elif isinstance(error, MemoryError):
        return ResourceExhaustedError(op, "out of memory while running"), None
    elif isinstance(error, (ValueError, TypeError, IndexError, ArithmeticError)):
        return InvalidArgumentError(op, str(error)), error
    return (error, error.__cause__) if error is not original else None


def _checkFinite(op: Operation, single: bool, result: Any) -> Any:
    for i, r in enumerate([result] if single else result):
        arr = np.asarray(r)
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            what = "nan" if np.isnan(arr).any() else "inf"
            raise InvalidArgumentError(
                op, f"output {i} of '{op.name()}' contains {what} (the session checks numerics: "
                "this is the first op of the run to produce a non-finite value)"
            )
    return result


def _ownArray(value: Any, fed: tuple[Any, ...] = ()) -> Array:
    """``value`` as an array of the caller's own: a copy when it is read-only (a constant, a
    variable's value), a view (of anything), or one of the ``fed`` arrays (TensorFlow copies a
    fed tensor it returns)."""
    arr: Array = np.asarray(value)
    if not arr.flags.writeable or not arr.flags.owndata:
        copied: Array = arr.copy()
        return copied
    for f in fed:
        if f is value:
            copied = arr.copy()
            return copied
    return arr
