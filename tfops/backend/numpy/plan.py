"""Compiling a request: the needed ops, constant folding, pass-through and bound kernels."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import Any

import numpy as np
from attrs import frozen

from tfops.backend.base import SessionConfig
from tfops.backend.numpy.base import Array, _checkSize, _single, _sizeUnknown, _Step
from tfops.backend.numpy.fusion import _Buffers, _fuse, _fusible
from tfops.backend.numpy.options import NumpyOptions
from tfops.backend.numpy.registry import Kernel, KernelSite, checkAllocation, lookupKernel
from tfops.backend.numpy.runcode import _checkFinite, _dying, _explain, _generate, _ownArray
from tfops.backend.numpy.state import KernelContext, Resources
from tfops.backend.requests import describe, neededOps, parseDevice
from tfops.errors import InvalidArgumentError, ResourceExhaustedError, UnimplementedError
from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TFloating, TType


@frozen
class _Context:
    """What every plan of one session shares: its state, settings and thread pool."""

    resources: Resources
    config: SessionConfig
    options: NumpyOptions
    pool: Callable[[], ThreadPoolExecutor]


class _Plan:
    """A compiled request: its steps, and the functions generated to run them.

    The first run interprets the steps; the second generates the straight-line function that
    every later run calls (so that a request run once does not pay for generating code). A run
    with large inputs takes the fused function instead, generated when the first such run
    comes.
    """

    __slots__ = ("feeds", "numSteps", "_context", "_steps", "_feedIds", "_fetchIds",
                 "_constants", "_checkNumerics", "_small", "_large", "_fusible", "_largeAlways",
                 "_runs", "_lock", "_buffers")

    def __init__(
        self,
        context: _Context,
        feeds: tuple[Output[TType], ...],
        fetches: tuple[Output[TType], ...],
        targets: tuple[Operation, ...],
    ) -> None:
        self.feeds = feeds
        self._context = context
        checkNumerics = context.config.checkNumerics
        with np.errstate(all="ignore"):  # folding constants runs kernels
            compiled = _compile(context, feeds, fetches, targets)
        self._steps, self._feedIds, self._fetchIds, self._constants = compiled
        self._checkNumerics = checkNumerics
        self.numSteps = len(self._steps)
        self._small: Callable[..., list[Array]] | None = None
        self._large: Callable[..., list[Array]] | None = None
        self._fusible = not checkNumerics and any(_fusible(s) for s in self._steps)
        large = context.options.large
        self._largeAlways = any(np.size(c) >= large for c in self._constants.values())
        self._runs = 0
        self._lock = threading.Lock()
        self._buffers = _Buffers()  # what large runs left free, for the next one

    def run(self, values: Sequence[Any]) -> list[Array]:
        """Runs the plan on the fed values, in feed order; returns the fetched values."""
        with np.errstate(all="ignore"):  # numpy's errors are the kernels' to report
            if self._fusible:
                large = self._largeAlways
                if not large:
                    threshold = self._context.options.large
                    for v in values:
                        if v.size >= threshold:
                            large = True
                            break
                if large:
                    return (self._large or self._generateLarge())(*values)
            small = self._small
            if small is None:
                self._runs += 1
                if self._runs == 1:
                    return self._interpret(values)
                small = self._generateSmall()
            return small(*values)

    def _generateSmall(self) -> Callable[..., list[Array]]:
        with self._lock:
            if self._small is None:
                self._small = _generate(self._steps, self._feedIds, self._fetchIds,
                                        self._constants, self._checkNumerics, set(),
                                        self._context.config.memoryLimit)
            return self._small

    def _generateLarge(self) -> Callable[..., list[Array]]:
        with self._lock:
            if self._large is None:
                context = self._context
                units = _fuse(self._steps, self._fetchIds, context.options,
                              context.config.memoryLimit, context.pool)
                self._large = _generate(units, self._feedIds, self._fetchIds, self._constants,
                                        False, _releasable(units, self._fetchIds),
                                        context.config.memoryLimit, self._buffers)
            return self._large

    def _interpret(self, values: Sequence[Any]) -> list[Array]:
        """Runs the steps one by one, as the generated function would."""
        units = self._steps
        dying = _dying(units, self._feedIds, self._fetchIds, self._constants)
        slots: dict[int, Any] = dict(self._constants)
        slots.update(zip(self._feedIds, values, strict=True))
        for n, u in enumerate(units):
            try:
                result = u.kernel(*[slots[v] for v in u.ins])
                if self._checkNumerics and u.outs:
                    _checkFinite(u.op, u.single, result)
                if u.outs and _sizeUnknown(u.op):
                    _checkSize(u.single, self._context.config.memoryLimit, result)
                if u.single:
                    slots[u.outs[0]] = result  # type: ignore[index]
                else:
                    for v, r in zip(u.outs, result, strict=True):
                        if v is not None:
                            slots[v] = r
            except Exception as e:
                failure = _explain(u.op, e)
                if failure is None:
                    raise
                raise failure[0] from failure[1]
            for v in dying.get(n, ()):
                del slots[v]
        fed = tuple(values)
        return [_ownArray(slots[v], fed) for v in self._fetchIds]


def _releasable(units: list[_Step], fetchIds: list[int]) -> set[int]:
    """The values whose memory a run may reuse once they die: fresh results of fused groups
    that nobody fetches and that only steps with fresh results read (such a step never
    returns the value itself nor a view of it, so nothing else can see its memory)."""
    produced = {u.outs[0] for u in units if u.pooled and u.outs[0] is not None}
    produced -= set(fetchIds)
    for u in units:
        if not u.fresh:
            produced.difference_update(u.ins)
    return produced


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
        if opdef.passThrough and not checkNumerics and not op.controlInputs() and (
            outs[0] not in fed
        ):
            values[outs[0]] = ins[0]
            continue
        known = [None if k in refs else constants.get(values[i])
                 for k, i in enumerate(op.inputs())]
        kernel, fresh = _kernel(op, context, known)
        folded = None if any(o in fed for o in outs) else _fold(
            op, kernel, ins, constants, checkNumerics, context.options.foldLimit)
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


_NEGATION_PASSES = {"Mul": (0, 1), "Div": (0, 1), "RealDiv": (0, 1)}
"""Op types ``f`` and the inputs ``k`` through which a negation moves exactly: ``f(.., -a, ..)
= -f(.., a, ..)`` bit for bit, zeros' signs included (IEEE rounding is symmetric: ``(-a) / b``
and ``-(a / b)`` are the same number), floating point only. ``Sum`` is not one of them: a sum of
negated terms that cancel is +0, the negated sum -0 (and ``1 / x`` tells them apart)."""


def _simplify(steps: list[_Step], fetchIds: list[int], numValues: int) -> list[_Step]:
    """The steps with what is computed twice computed once, and negations moved towards the
    end, where they apply to fewer elements (rewrites of the kind of TensorFlow's grappler, its
    common subgraph elimination and its arithmetic optimizer's handling of negations).

    - Common subexpressions: a step of the same op type, attributes and inputs as an earlier
      one reads the earlier one's outputs instead (pure ops only: not stateful, without control
      inputs; not when its own outputs are fetched, each fetch being an array of its own).
    - Negations: ``f(-a)`` becomes ``-f(a)`` for the op types of ``_NEGATION_PASSES`` when
      ``-a`` is read only there, so that ``-e / s / s`` (the gradient of a division) is
      ``-((e / s) / s)``, ``e / s`` the softmax computed already.

    Both keep every result bit for bit, and the ops a failure
    names are the ops that fail.
    """
    fetched = set(fetchIds)
    readers: dict[int, int] = {}
    for st in steps:
        for v in st.ins:
            readers[v] = readers.get(v, 0) + 1
    negations: dict[int, _Step] = {}  # a value that is a negation -> its step
    seen: dict[tuple[Any, ...], list[int | None]] = {}
    alias: dict[int, int] = {}
    out: list[_Step] = []

    def add(st: _Step) -> None:
        if alias:
            st.ins = [alias.get(v, v) for v in st.ins]
        key = _pureKey(st)
        if key is not None:
            earlier = seen.get(key)
            if earlier is not None and not any(v in fetched for v in st.outs):
                for v, w in zip(st.outs, earlier, strict=True):
                    if v is not None and w is not None:  # (no output is fed: _pureKey)
                        alias[v] = w
                        readers[w] = readers.get(w, 0) + readers.get(v, 0)
                return
            seen.setdefault(key, st.outs)
        if st.op._type == "Neg" and st.single and _floating(st):
            first = st.outs[0]
            if first is not None:
                negations[first] = st
        out.append(st)

    for st in steps:
        if alias:
            st.ins = [alias.get(v, v) for v in st.ins]
        moved = False
        where = _NEGATION_PASSES.get(st.op._type, ())
        if where and st.single and st.outs[0] is not None and _floating(st):
            for k in where:
                if k >= len(st.ins):
                    continue
                v = st.ins[k]
                neg = negations.get(v)
                if neg is None or readers.get(v) != 1 or v in fetched:
                    continue
                made = numValues
                numValues += 1
                readers[made] = 1
                add(_Step(st.op, st.kernel, [*st.ins[:k], neg.ins[0], *st.ins[k + 1:]],
                          [made], fresh=st.fresh))  # may be one computed already
                add(_Step(neg.op, neg.kernel, [alias.get(made, made)], st.outs,
                          fresh=neg.fresh))
                moved = True  # the negation read by st now has no reader: dropped
                break
        if not moved:
            add(st)
    return out


def _floating(step: _Step) -> bool:
    op = step.op
    return all(issubclass(o.dataType(), TFloating) for o in op.outputs()) and all(
        issubclass(i.dataType(), TFloating) for i in op.inputs()[:1])


def _pureKey(step: _Step) -> tuple[Any, ...] | None:
    """What makes two steps compute the same values, or ``None`` for a step that may not be
    shared (stateful, with control or reference inputs, kept for its effects, with a fed
    output)."""
    op = step.op
    if (op._opdef.stateful or op.controlInputs() or op._refInputs() or step.keep
            or None in step.outs):
        return None
    attrs = []
    for name, value in sorted(op._attrs.items()):
        key = _attrKey(value)
        if key is None:
            return None
        attrs.append((name, key))
    return (op._type, tuple(attrs), tuple(step.ins))


def _attrKey(value: Any) -> Any:
    """An attribute value as a hashable key, or ``None`` when it cannot be compared safely."""
    if isinstance(value, (list, tuple)):
        keys = [_attrKey(v) for v in value]
        return None if any(k is None for k in keys) else (type(value).__name__, tuple(keys))
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, float) and value != value:
        return None  # nan equals nothing
    try:
        hash(value)
    except TypeError:
        return None
    return (type(value).__name__, value)


def _readThroughRepeats(steps: list[_Step], values: dict[Output[TType], int]) -> None:
    """A numpy ufunc reading the output of an op that only repeats its input
    (``OpDef.repeatsInput``: ``BroadcastTo``, ``ExpandDims``) reads the input instead when
    static shapes show its result is the same: numpy broadcasts it alike. The repeating op is
    then left without a reader (and dropped)."""
    shapeOf: dict[int, tuple[int, ...]] = {}
    for o, v in values.items():
        dims = o.shape().asArray()
        if dims is not None and o.shape().isFullyKnown():
            shapeOf[v] = dims
    source: dict[int, int] = {}  # the output of a repeating step -> its input 0
    for s in steps:
        op = s.op
        if op._opdef.repeatsInput and s.single and s.outs[0] is not None and s.ins:
            source[s.outs[0]] = s.ins[0]
    if not source:
        return
    for s in steps:
        out = s.outs[0] if s.single else None
        if not isinstance(s.kernel, np.ufunc) or out is None or out not in shapeOf:
            continue
        result = shapeOf[out]
        for k, v in enumerate(s.ins):
            others = [shapeOf[w] for j, w in enumerate(s.ins) if j != k and w in shapeOf]
            if len(others) != len(s.ins) - 1:
                break
            while v in source and source[v] in shapeOf and v in shapeOf:
                inner = source[v]
                try:
                    same = np.broadcast_shapes(shapeOf[inner], shapeOf[v]) == shapeOf[v] and (
                        np.broadcast_shapes(shapeOf[inner], *others) == result)
                except ValueError:
                    same = False
                if not same:
                    break
                v = inner
            if v != s.ins[k]:
                s.ins = [*s.ins[:k], v, *s.ins[k + 1:]]


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
    op: Operation, kernel: Kernel, ins: list[int], constants: dict[int, Any],
    checkNumerics: bool, foldLimit: int,
) -> list[Any] | _Fails | None:
    """The op's output values when they can be computed now, once for every run."""
    opdef = op._opdef
    if opdef.stateful or op.controlInputs() or not op.numOutputs():
        return None
    if all(v in constants for v in ins):
        args = [constants[v] for v in ins]
    elif opdef.shapeOnly and all(i.shape().isFullyKnown() for i in op.inputs()):
        args = [  # stand-ins of the right shape and data type, holding no memory
            constants[v] if v in constants
            else np.broadcast_to(np.empty((), i.dataType().DTYPE), i.shape().asArray() or ())
            for v, i in zip(ins, op.inputs(), strict=True)
        ]
    else:
        return None
    for o in op.outputs():  # a large result is not computed now only to be dropped
        if args and o.shape().isFullyKnown() and (
            o.shape().size() * np.dtype(o.dataType().DTYPE).itemsize > foldLimit
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
            op, f"op '{op._name}' is placed on {describe(name)} (withDevice({op._device!r})), "
            "but the numpy backend runs on /device:CPU:0 only; run it on a backend that has "
            "the device (backend=\"xla\"), or create the session with allowSoftPlacement=True"
        )


def _checkStaticAllocation(op: Operation, limit: int) -> None:
    for o in op.outputs():  # a statically known output too large fails before running
        if o.shape().isFullyKnown():
            try:
                checkAllocation(o.shape().asArray() or (), o.dataType().DTYPE, limit,
                                f"output '{o.name()}'")
            except ResourceExhaustedError as e:
                raise ResourceExhaustedError(op, e.message) from None


def _kernel(
    op: Operation, context: _Context, known: list[Any]
) -> tuple[Kernel, bool]:
    """The op's kernel bound to what the plan knows (its attributes, constant inputs, static
    shapes, the memory limit), and whether its results are fresh memory; a stateful op's kernel
    gets its context (this session's state) bound first.

    Raises:
        UnimplementedError: the numpy backend has no kernel for the op.
    """
    registered = lookupKernel(op._type)
    if registered is None:
        raise UnimplementedError(
            op, f"the numpy backend has no kernel for op type {op._type}; register one with "
            "tfops.backend.numpy.registerKernel"
        )
    site = KernelSite(
        op._attrs, tuple(known), tuple(i.shape() for i in op._inputs),
        context.config.memoryLimit,
    )
    kernel = registered.factory(site)
    if op._opdef.stateful:
        refs = tuple(op.input(k).op().name() for k in sorted(op._refInputs()))
        kernel = partial(kernel, KernelContext(context.resources, op, refs))
    return kernel, registered.fresh
