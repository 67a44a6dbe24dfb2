"""Fused groups of elementwise ops for large inputs: slices, threads, reused buffers.

Which buffers a run may write into is decided when the request is compiled: the plan knows
every value that is the fresh result of a fused group and that nothing else can see (no reader
that may return a view of it, not fetched). Only those go to the run's pool of free buffers
where they die, or are written over by the group that reads them last.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from math import prod
from typing import Any

import numpy as np

from tfops.backend.numpy.base import Array, _checkSize, _FailedInError, _owned, _Step
from tfops.backend.numpy.options import NumpyOptions
from tfops.types import TFloating


# -- fused groups for large inputs -------------------------------------------------------------
def _fusible(step: _Step) -> bool:
    op = step.op
    opdef = op._opdef
    return (
        opdef.elementwise and step.fresh and not opdef.stateful and step.single
        and step.outs[0] is not None
        and issubclass(op.output(0).dataType(), TFloating)
        and all(issubclass(i.dataType(), TFloating) for i in op.inputs())
    )


def _fuse(
    steps: list[_Step], fetchIds: list[int], options: NumpyOptions, limit: int,
    pool: Callable[[], ThreadPoolExecutor],
) -> list[_Step]:
    """The steps as the lines of the large-input function: each fusible step whose value only
    fusible steps read, and nobody fetches, is computed inside the groups of its readers (in at
    most ``options.fusionCopies`` of them: recomputing a cheap step costs less than writing its
    value to memory and reading it back), so that a group computes one value from its inputs
    without writing any intermediate to memory. A group is convex: every member leads to its
    root within it, so no path leaves the group and comes back."""
    fusible = [_fusible(s) for s in steps]
    readers: dict[int, list[int]] = {}
    for n, s in enumerate(steps):
        for v in s.ins:
            readers.setdefault(v, []).append(n)
    fetched = set(fetchIds)
    groups: list[frozenset[int]] = [frozenset()] * len(steps)  # the roots a step is part of
    for n in reversed(range(len(steps))):
        if not fusible[n]:
            continue
        out = steps[n].outs[0]
        reading = readers.get(out, []) if out is not None else []
        joined: frozenset[int] = frozenset().union(*(groups[r] for r in reading))
        inside = reading and out not in fetched and all(fusible[r] for r in reading)
        groups[n] = (
            joined if inside and len(joined) <= options.fusionCopies else frozenset((n,))
        )
    members: dict[int, list[_Step]] = {}
    for n, s in enumerate(steps):
        for root in groups[n]:
            members.setdefault(root, []).append(s)
    units: list[_Step] = []
    for n, s in enumerate(steps):
        if not fusible[n]:
            units.append(s)
        elif n in groups[n]:
            group = _Fused(members[n], options, limit, pool)
            units.append(_Step(s.op, group, group.args, s.outs, pooled=True, fresh=True))
    return units


class _Buffers:
    """The buffers a plan's large-input runs left free, kept for its next run: a run takes them
    all (another run at the same time gets none) and gives back what it freed. Reusing memory
    that is already mapped saves the page faults of new memory, a cost of the order of writing
    it once. Only buffers nothing else can see are ever kept (the plan's ``releasable``), and
    at most as many as one run frees (``limit``, set with the run function): a buffer no group
    took is not kept forever."""

    __slots__ = ("_lock", "_free", "limit")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free: list[Array] = []
        self.limit = 0

    def take(self) -> list[Array]:
        with self._lock:
            free, self._free = self._free, []
        return free

    def give(self, pool: list[Array]) -> None:
        if len(pool) > self.limit:  # the latest ones: those this run freed
            pool = pool[len(pool) - self.limit:] if self.limit else []
        with self._lock:
            self._free = pool


def _release(pool: list[Array], value: Any) -> None:
    """Puts a dying value that nothing else can see (the plan knows) into the run's pool."""
    if _owned(value):
        pool.append(value)


class _Layout:
    """How a group runs on inputs of some shapes: the result's shape, the slice program, the
    slices, and the free sets of scratch buffers for them (one taken by each thread running
    slices: at most as many as threads ever ran this group at once)."""

    __slots__ = ("shape", "run", "dtypes", "step", "rows", "slices", "parallel", "direct",
                 "scratch")

    def __init__(
        self, shape: tuple[int, ...], run: Callable[..., Any], dtypes: list[np.dtype[Any]],
        step: int, parallel: bool, direct: bool,
    ) -> None:
        self.shape = shape
        self.run = run
        self.dtypes = dtypes
        self.step = step
        self.rows = shape[0]
        self.slices = -(-shape[0] // step)
        self.parallel = parallel
        self.direct = direct  # one pass whose last kernel returns the result (not a ufunc)
        self.scratch: list[list[Array]] = []

    def buffers(self) -> list[Array]:
        """A free set of scratch buffers, or a new one."""
        try:
            return self.scratch.pop()
        except IndexError:
            rest = self.shape[1:]
            return [np.empty((self.step, *rest), d) for d in self.dtypes]

    def work(self, out: Array, args: tuple[Any, ...], lo: int, hi: int) -> None:
        """Computes slices ``lo`` to ``hi`` of the result into ``out``."""
        buffers = self.buffers()
        try:
            run, step, rows = self.run, self.step, self.rows
            for s in range(lo * step, hi * step, step):
                e = s + step
                if e <= rows:
                    run(out, s, e, buffers, *args)
                else:
                    run(out, s, rows, [b[:rows - s] for b in buffers], *args)
        finally:
            self.scratch.append(buffers)


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

    __slots__ = ("args", "ops", "program", "kernels", "dtypes", "dtype", "sliceBytes", "dying",
                 "steps", "mixes", "programs", "layouts", "options", "limit", "pool")

    def __init__(
        self, members: list[_Step], options: NumpyOptions, limit: int,
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
        self.programs: dict[tuple[tuple[bool, ...], bool, bool],
                            tuple[Callable[..., Any], list[np.dtype[Any]]]] = {}
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
                body.append(f"    {call}, out={target})" if isinstance(self.kernels[k], np.ufunc)
                            else f"    return {call})" if direct
                            else f"    _copy({target}, {call}))")
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
        sliced = [f"    a{i} = x{i}" if whole else f"    a{i} = x{i}[s:e]"
                  for i, f in enumerate(full) if f]
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
                _parallel(self.pool, self.options.threads,
                          lambda lo, hi: layout.work(out, args, lo, hi), layout.slices)
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
                values.append(_checkSize(True, limit, kernel(
                    *[values[r] if r >= 0 else values[len(args) + ~r] for r in refs])))
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
                result = step.kernel(*[np.ones(sliced if k == full else other, dtype)
                                       for k in range(n)])
            except Exception:
                return False
            if np.shape(result) != sliced:
                return False
    return True


def _quietly(work: Callable[[int, int], None], lo: int, hi: int) -> None:
    with np.errstate(all="ignore"):  # numpy's errors are the kernels' to report
        work(lo, hi)


def _parallel(
    pool: Callable[[], ThreadPoolExecutor], threads: int, work: Callable[[int, int], None],
    n: int,
) -> None:
    """Runs ``work(lo, hi)`` over ``[0, n)`` split among ``threads`` threads (this one too)."""
    k = min(threads, n)
    if k <= 1:
        work(0, n)
        return
    bounds = [n * i // k for i in range(k + 1)]
    executor = pool()
    futures: list[Future[None]] = [
        executor.submit(_quietly, work, bounds[i], bounds[i + 1]) for i in range(1, k)
    ]
    error: BaseException | None = None
    try:
        work(bounds[0], bounds[1])
    except BaseException as e:
        error = e
    for f in futures:  # every slice is finished before the buffers are used or reused
        try:
            f.result()
        except BaseException as e:
            error = error or e
    if error is not None:
        raise error
