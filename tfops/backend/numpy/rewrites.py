"""Rewrites of a request's compiled steps that keep every result bit for bit.

Common subexpressions computed once, negations moved towards the end (``_simplify``), and a
ufunc reading through an op that only repeats its input (``_readThroughRepeats``): rewrites of
the kind of TensorFlow's grappler, applied by ``tfops.backend.numpy.compiler``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfops.backend.numpy.base import _Step
from tfops.output import Output
from tfops.types import TFloating, TType

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
                add(
                    _Step(
                        st.op,
                        st.kernel,
                        [*st.ins[:k], neg.ins[0], *st.ins[k + 1 :]],
                        [made],
                        fresh=st.fresh,
                    )
                )  # may be one computed already
                add(_Step(neg.op, neg.kernel, [alias.get(made, made)], st.outs, fresh=neg.fresh))
                moved = True  # the negation read by st now has no reader: dropped
                break
        if not moved:
            add(st)
    return out


def _floating(step: _Step) -> bool:
    op = step.op
    return all(issubclass(o.dataType(), TFloating) for o in op.outputs()) and all(
        issubclass(i.dataType(), TFloating) for i in op.inputs()[:1]
    )


def _pureKey(step: _Step) -> tuple[Any, ...] | None:
    """What makes two steps compute the same values, or ``None`` for a step that may not be
    shared (stateful, with control or reference inputs, kept for its effects, with a fed
    output)."""
    op = step.op
    if (
        op._opdef.stateful
        or op.controlInputs()
        or op._refInputs()
        or step.keep
        or None in step.outs
    ):
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
                        np.broadcast_shapes(shapeOf[inner], *others) == result
                    )
                except ValueError:
                    same = False
                if not same:
                    break
                v = inner
            if v != s.ins[k]:
                s.ins = [*s.ins[:k], v, *s.ins[k + 1 :]]
