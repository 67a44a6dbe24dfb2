"""A fused group at run time: elementwise steps computing one value slice by slice, on all
cores, with every intermediate in cache (``_Fused``): the slice programs it generates, and
which layout (``slices.py``) it takes for inputs of given shapes.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from math import prod
from typing import Any

import numpy as np

from tfops.backend.numpy.base import Array, _checkSize, _FailedInError, _owned, _Step
from tfops.backend.numpy.options import NumpyOptions
from tfops.backend.numpy.slices import _Layout, _parallel

_ONE_BY_ONE = None
"""The layout of inputs a group cannot run slice by slice: its steps run one by one."""

_LAYOUTS = 8
"""Layouts a group keeps (one per distinct set of input shapes it met)."""


class _Fused:
    """Elementwise steps computing one value, run together slice by slice on all cores.

    Called with the run's pool of free buffers and the group's inputs. When those are large and
    broadcast to one shape along whose first axis each of them is either sliced (it has that
    shape) or the same (a scalar, a bias row), each slice of the result is computed with every
    intermediate still in cache (in scratch buffers that numpy ufuncs write into, kept by the
    group for its next calls), the slices shared among ``options.threads`` threads from
    ``options.parallel`` elements; the result is written into a dying input, a pooled buffer or
    new memory. Otherwise the steps run one by one on whole arrays. Each element goes through
    the same kernels either way. What to do for given input shapes is worked out once
    (``_Layout``).
    """

    __slots__ = (
        "args",
        "ops",
        "program",
        "kernels",
        "dtypes",
        "dtype",
        "sliceBytes",
        "dying",
        "steps",
        "mixes",
        "programs",
        "layouts",
        "options",
        "limit",
        "pool",
    )

    def __init__(
        self,
        members: list[_Step],
        options: NumpyOptions,
        limit: int,
        pool: Callable[[], ThreadPoolExecutor],
    ) -> None:
        position: dict[int, int] = {}
        args: list[int] = []
        program: list[tuple[int, ...]] = []
        for k, s in enumerate(members):
            refs: list[int] = []
            for v in s.ins:
                if v in position:
                    refs.append(~position[v])
                else:
                    if v not in args:
                        args.append(v)
                    refs.append(args.index(v))
            position[s.outs[0]] = k  # type: ignore[index]
            program.append(tuple(refs))
        self.args = args
        self.ops = [s.op for s in members]
        self.program = program
        self.kernels = [s.kernel for s in members]
        self.dtypes = [np.dtype(s.op.output(0).dataType().DTYPE) for s in members]
        self.dtype = self.dtypes[-1]
        # kernels that are not ufuncs allocate their results: below 128 KiB glibc takes those
        # from its heap; ufuncs write into the scratch buffers, so their slices can be larger
        allUfuncs = all(isinstance(k, np.ufunc) for k in self.kernels)
        self.sliceBytes = options.sliceBytes if allUfuncs else options.allocatingSliceBytes
        # inputs whose memory the group may take: they die here and nothing else can see them
        # (set when the plan's run function is generated)
        self.dying: tuple[int, ...] = ()
        self.steps = members
        # per step and kind of unsliced input (0: one element, 1: more), whether its kernel
        # broadcasts it against a sliced one (worked out when first needed)
        self.mixes: dict[tuple[int, int], bool] = {}
        self.programs: dict[
            tuple[tuple[bool, ...], bool, bool], tuple[Callable[..., Any], list[np.dtype[Any]]]
        ] = {}
        self.layouts: dict[tuple[tuple[int, ...], ...], _Layout | None] = {}
        self.options = options
        self.limit = limit
        self.pool = pool

    def _program(
        self, full: tuple[bool, ...], whole: bool, direct: bool
    ) -> tuple[Callable[..., Any], list[np.dtype[Any]]]:
        """For inputs of which ``full`` are sliced (the others the same for every slice):
        ``run(out, s, e, buffers, *args)`` computing rows ``s`` to ``e`` of the result into
        ``out`` (``whole``: all rows, in one pass; ``direct``: returning the last kernel's result
        instead), a ufunc step's sliced result into one of the scratch ``buffers`` (reused once
        the value is dead), and the data types of those buffers."""
        known = self.programs.get((full, whole, direct))
        if known is not None:
            return known
        nargs = len(full)
        isFull = list(full)
        lastUse: dict[int, int] = {}
        for k, refs in enumerate(self.program):
            isFull.append(any(isFull[r] if r >= 0 else isFull[nargs + ~r] for r in refs))
            for r in refs:
                if r < 0:
                    lastUse[~r] = k
        names: dict[int, str] = {}
        slotOf: dict[int, int] = {}
        slots: list[np.dtype[Any]] = []
        free: list[int] = []
        namespace: dict[str, Any] = {"_copy": np.copyto}
        body: list[str] = []
        last = len(self.program) - 1
        for k, refs in enumerate(self.program):
            namespace[f"k{k}"] = self.kernels[k]
            call = f"k{k}({', '.join(f'a{r}' if r >= 0 else names[~r] for r in refs)}"
            for r in refs:  # a buffer dead after this step may take its result
                if r < 0 and lastUse.get(~r) == k and ~r in slotOf and slotOf[~r] not in free:
                    free.append(slotOf[~r])
            if k == last:
                target = "out" if whole else "out[s:e]"
                body.append(
                    f"    {call}, out={target})"
                    if isinstance(self.kernels[k], np.ufunc)
                    else f"    return {call})"
                    if direct
                    else f"    _copy({target}, {call}))"
                )
            elif isFull[nargs + k] and isinstance(self.kernels[k], np.ufunc):
                slot = next((b for b in free if slots[b] == self.dtypes[k]), None)
                if slot is None:
                    slot = len(slots)
                    slots.append(self.dtypes[k])
                else:
                    free.remove(slot)
                slotOf[k] = slot
                names[k] = f"b{slot}"
                body.append(f"    {call}, out=b{slot})")
            else:
                names[k] = f"t{k}"
                body.append(f"    t{k} = {call})")
        params = ", ".join(f"x{i}" if f else f"a{i}" for i, f in enumerate(full))
        head = f"def _slice(out, s, e, buffers, {params}):"
        sliced = [
            f"    a{i} = x{i}" if whole else f"    a{i} = x{i}[s:e]"
            for i, f in enumerate(full)
            if f
        ]
        buffers = ", ".join(f"b{i}" for i in range(len(slots)))
        unpack = [f"    {buffers}, = buffers"] if slots else []
        source = "\n".join([head, *sliced, *unpack, *body])
        exec(compile(source, "<tfops fused group>", "exec"), namespace)
        made = (namespace["_slice"], slots)
        self.programs[(full, whole, direct)] = made
        return made

    def __call__(self, pool: list[Array], *args: Any) -> Any:
        try:
            key = tuple([a.shape for a in args])
        except AttributeError:  # not an array: a Python number
            return self._oneByOne(pool, args)
        try:
            layout = self.layouts[key]
        except KeyError:
            layout = self._layout(args)
            if len(self.layouts) >= _LAYOUTS:
                self.layouts.clear()
            self.layouts[key] = layout
        if layout is _ONE_BY_ONE:
            return self._oneByOne(pool, args)
        if layout.direct:
            return self._direct(layout, pool, args)
        shape, dtype = layout.shape, self.dtype
        out = None
        for k in self.dying:
            a = args[k]
            if a.shape == shape and a.dtype == dtype and _owned(a):
                out = a
                break
        if out is None:
            for k, b in enumerate(pool):
                if b.shape == shape and b.dtype == dtype:
                    out = pool.pop(k)
                    break
            else:
                out = np.empty(shape, dtype)
        try:
            if layout.parallel:
                _parallel(
                    self.pool,
                    self.options.threads,
                    lambda lo, hi: layout.work(out, args, lo, hi),
                    layout.slices,
                )
            else:
                layout.work(out, args, 0, layout.slices)
        except Exception as e:
            raise _FailedInError(self.ops[-1], e) from None
        for k in self.dying:
            a = args[k]
            if a is not out and _owned(a):
                pool.append(a)
        return out

    def _direct(self, layout: _Layout, pool: list[Array], args: tuple[Any, ...]) -> Any:
        """One pass over whole arrays, the last kernel's result returned as it is."""
        buffers = layout.buffers()
        try:
            out = layout.run(None, 0, layout.rows, buffers, *args)
        except Exception as e:
            raise _FailedInError(self.ops[-1], e) from None
        finally:
            layout.scratch.append(buffers)
        for k in self.dying:
            if _owned(args[k]):
                pool.append(args[k])
        return out

    def _layout(self, args: tuple[Any, ...]) -> _Layout | None:
        """How the group runs on inputs of these shapes, or ``_ONE_BY_ONE``."""
        shapes = [np.shape(a) for a in args]
        try:
            shape = np.broadcast_shapes(*shapes)
        except ValueError:
            return _ONE_BY_ONE  # the ops raise their own errors
        size = prod(shape)
        if not shape or size < self.options.large:
            return _ONE_BY_ONE
        itemsize = max(d.itemsize for d in self.dtypes)
        if size * itemsize > self.limit:
            return _ONE_BY_ONE  # one by one, the ops' own checks of the memory limit raise
        full: list[bool] = []
        for s in shapes:
            if s == shape:
                full.append(True)
            elif len(s) < len(shape) or s[0] == 1:
                full.append(False)  # the same for every slice: passed whole
            else:
                return _ONE_BY_ONE  # varies along the first axis without being full
        nargs = len(args)
        isFull = list(full)
        for k, refs in enumerate(self.program):
            inputs = [isFull[r] if r >= 0 else isFull[nargs + ~r] for r in refs]
            if any(inputs) and not all(inputs):
                whole = [r for r, f in zip(refs, inputs, strict=True) if not f]
                kind = int(any(r >= 0 and prod(shapes[r]) != 1 for r in whole))
                if not self._mixes(k, kind):
                    return _ONE_BY_ONE
            isFull.append(any(inputs))
        parallel = size >= self.options.parallel
        if size * itemsize <= self.options.onePassBytes and not parallel:
            step = shape[0]  # in cache anyway: slices would only add calls
        else:
            step = max(1, self.sliceBytes // itemsize // max(1, prod(shape[1:])))
        whole = step >= shape[0]
        direct = whole and not isinstance(self.kernels[-1], np.ufunc)
        run, slots = self._program(tuple(full), whole, direct)
        return _Layout(shape, run, slots, step, parallel, direct)

    def _mixes(self, k: int, kind: int) -> bool:
        """Whether step ``k``'s kernel broadcasts an input the same for every slice (``kind``
        0: one element; 1: a row) against a sliced one, as numpy does."""
        known = self.mixes.get((k, kind))
        if known is None:
            kernel = self.kernels[k]
            known = isinstance(kernel, np.ufunc) or _broadcasts(self.steps[k], kind)
            self.mixes[(k, kind)] = known
        return known

    def _oneByOne(self, pool: list[Array], args: tuple[Any, ...]) -> Any:
        values = list(args)
        limit = self.limit
        for op, kernel, refs in zip(self.ops, self.kernels, self.program, strict=True):
            try:
                values.append(
                    _checkSize(
                        True,
                        limit,
                        kernel(*[values[r] if r >= 0 else values[len(args) + ~r] for r in refs]),
                    )
                )
            except Exception as e:
                raise _FailedInError(op, e) from None
        for k in self.dying:
            if _owned(args[k]):
                pool.append(args[k])
        return values[-1]


def _broadcasts(step: _Step, kind: int) -> bool:
    """Whether a fused step's kernel broadcasts an input that is the same for every slice
    (``kind`` 0: a scalar; 1: a row, of shape ``(3,)`` or ``(1, 3)``) against a sliced one
    (tried on ones)."""
    dtype = step.op.output(0).dataType().DTYPE
    n = len(step.ins)
    sliced, whole = ((2,), [()]) if kind == 0 else ((2, 3), [(3,), (1, 3)])
    for full in range(n):
        for other in whole:
            try:
                result = step.kernel(
                    *[np.ones(sliced if k == full else other, dtype) for k in range(n)]
                )
            except Exception:
                return False
            if np.shape(result) != sliced:
                return False
    return True
