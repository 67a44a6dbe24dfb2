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

from tfops.backend.numpy.base import Array, _FailedInError, _owned, _Step
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
    it once. Only buffers nothing else can see are ever kept (the plan's ``releasable``)."""

    __slots__ = ("_lock", "_free")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free: list[Array] = []

    def take(self) -> list[Array]:
        with self._lock:
            free, self._free = self._free, []
        return free

    def give(self, pool: list[Array]) -> None:
        with self._lock:
            self._free = pool


def _release(pool: list[Array], value: Any) -> None:
    """Puts a dying value that nothing else can see (the plan knows) into the run's pool."""
    if _owned(value):
        pool.append(value)


class _Fused:
    """Elementwise steps computing one value, run together slice by slice on all cores.

    Called with the run's pool of free buffers and the group's inputs. When those are large and
    have one shape (or are scalars), each slice of the result is computed with every
    intermediate still in cache (in scratch buffers that numpy ufuncs write into, kept by the
    group for its next calls), the slices shared among ``options.threads`` threads; the result
    is written into a dying input, a pooled buffer or new memory. Otherwise the steps run one by
    one on whole arrays. Each element goes through the same kernels either way.
    """

    __slots__ = ("args", "ops", "program", "kernels", "dtypes", "dtype", "sliceBytes", "dying",
                 "mixable", "programs", "options", "limit", "pool", "scratch", "lock")

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
        self.sliceBytes = options.sliceBytes * 4 if allUfuncs else options.sliceBytes
        # inputs whose memory the group may take: they die here and nothing else can see them
        # (set when the plan's run function is generated)
        self.dying: tuple[int, ...] = ()
        self.mixable = [len(s.ins) < 2 or _mixesScalars(s) for s in members]
        self.programs: dict[tuple[bool, ...], tuple[Callable[..., None], list[np.dtype[Any]]]] = {}
        self.options = options
        self.limit = limit
        self.pool = pool
        # free sets of scratch buffers, one taken by each thread running slices: at most as
        # many as threads ever ran this group at once, freed with the plan
        self.scratch: list[list[Array]] = []
        self.lock = threading.Lock()

    def _program(self, full: tuple[bool, ...]) -> tuple[Callable[..., None], list[np.dtype[Any]]]:
        """For inputs of which ``full`` are tensors (the others scalars): ``run(out, buffers,
        *args)`` computing one slice of the result into ``out``, a ufunc step's tensor result
        into one of the scratch ``buffers`` (reused once the value is dead), and the data
        types of those buffers."""
        known = self.programs.get(full)
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
                body.append(f"    {call}, out=out)" if isinstance(self.kernels[k], np.ufunc)
                            else f"    _copy(out, {call}))")
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
        head = f"def _slice(out, buffers, {', '.join(f'a{i}' for i in range(nargs))}):"
        buffers = ", ".join(f"b{i}" for i in range(len(slots)))
        unpack = [f"    {buffers}, = buffers"] if slots else []
        exec(compile("\n".join([head, *unpack, *body]), "<tfops fused group>", "exec"), namespace)
        made = (namespace["_slice"], slots)
        self.programs[full] = made
        return made

    def __call__(self, pool: list[Array], *args: Any) -> Any:
        sliceable = self._sliceable(args)
        if sliceable is None:
            return self._oneByOne(pool, args)
        shape, full = sliceable
        out = None
        for k in self.dying:
            if _owned(args[k]) and args[k].shape == shape and args[k].dtype == self.dtype:
                out = args[k]
                break
        if out is None:
            for k, b in enumerate(pool):
                if b.shape == shape and b.dtype == self.dtype:
                    out = pool.pop(k)
                    break
            else:
                out = np.empty(shape, self.dtype)
        run, slots = self._program(full)
        rows, rest = shape[0], shape[1:]
        step = max(1, self.sliceBytes // max(d.itemsize for d in self.dtypes) // max(1, prod(rest)))

        def work(lo: int, hi: int) -> None:
            buffers = self._takeScratch((step, *rest), slots)
            try:
                for s in range(lo * step, hi * step, step):
                    end = min(s + step, rows)
                    run(out[s:end],
                        buffers if end - s == step else [b[:end - s] for b in buffers],
                        *[a[s:end] if f else a for a, f in zip(args, full, strict=True)])
            finally:
                with self.lock:
                    self.scratch.append(buffers)

        try:
            slices = -(-rows // step)
            if prod(shape) >= self.options.parallel:
                _parallel(self.pool, self.options.threads, work, slices)
            else:
                work(0, slices)
        except Exception as e:
            raise _FailedInError(self.ops[-1], e) from None
        for k in self.dying:
            if args[k] is not out and _owned(args[k]):
                pool.append(args[k])
        return out

    def _takeScratch(self, shape: tuple[int, ...], dtypes: list[np.dtype[Any]]) -> list[Array]:
        """A set of scratch buffers of ``shape`` for a slice's intermediates, one per data type
        in ``dtypes``: a free one the group kept, when it fits, else a new one."""
        with self.lock:
            for k, buffers in enumerate(self.scratch):
                if len(buffers) == len(dtypes) and all(
                    b.shape == shape and b.dtype == d for b, d in zip(buffers, dtypes, strict=True)
                ):
                    return self.scratch.pop(k)
            if self.scratch:  # another shape of slice: the kept set no longer serves
                self.scratch.pop()
        return [np.empty(shape, d) for d in dtypes]

    def _sliceable(
        self, args: tuple[Any, ...]
    ) -> tuple[tuple[int, ...], tuple[bool, ...]] | None:
        """The shape of the result and which inputs are sliced (the others hold one element,
        broadcast alike to every slice), when the group can run slice by slice."""
        shape: tuple[int, ...] | None = None
        for a in args:
            if np.size(a) == 1:
                continue
            if shape is None:
                shape = a.shape
            elif a.shape != shape:
                return None
        if shape is None or prod(shape) < self.options.large:
            return None
        if prod(shape) * max(d.itemsize for d in self.dtypes) > self.limit:
            return None  # one by one, the ops' own checks of the memory limit raise
        full = tuple(np.size(a) != 1 for a in args)
        if any(not f and np.ndim(a) > len(shape) for a, f in zip(args, full, strict=True)):
            return None  # it would add dimensions to the result
        if not all(self.mixable):
            isFull = list(full)
            for refs, mixable in zip(self.program, self.mixable, strict=True):
                inputs = [isFull[r] if r >= 0 else isFull[len(args) + ~r] for r in refs]
                if not mixable and any(inputs) and not all(inputs):
                    return None
                isFull.append(any(inputs))
        return shape, full

    def _oneByOne(self, pool: list[Array], args: tuple[Any, ...]) -> Any:
        values = list(args)
        for op, kernel, refs in zip(self.ops, self.kernels, self.program, strict=True):
            try:
                values.append(kernel(*[values[r] if r >= 0 else values[len(args) + ~r]
                                       for r in refs]))
            except Exception as e:
                raise _FailedInError(op, e) from None
        for k in self.dying:
            if _owned(args[k]):
                pool.append(args[k])
        return values[-1]


def _mixesScalars(step: _Step) -> bool:
    """Whether a fused step's kernel broadcasts a scalar against a tensor (tried on ones)."""
    dtype = step.op.output(0).dataType().DTYPE
    n = len(step.ins)
    for full in range(n):
        try:
            result = step.kernel(*[np.ones(2 if k == full else (), dtype) for k in range(n)])
        except Exception:
            return False
        if np.shape(result) != (2,):
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
