"""What graph construction knows of the values of small integer tensors: shapes computed in the
graph, as TensorFlow's shape inference evaluates them (``constant_value_as_shape``).

A shape argument is often computed rather than constant: ``concat([shape(x)[0:1], [12]])``,
``stack([shape(x)[0], 12])``, ``cast(shape(y))``. :func:`partialValue` walks such a subgraph
and returns each entry of the value where the graph tells it, ``None`` where it does not (the
entries of ``shape(x)`` where ``x``'s static shape has unknown dimensions, a fed scalar). Shape
rules read it through ``InferContext.values`` (and ``tfops.op.shapeValue``), so every op that
takes a shape (Reshape, Fill, BroadcastTo, Tile, the random ops...) gets the same static
shapes from the same subgraphs.

The walk knows the ops that build shapes, each by its rule below: Const, Identity, Shape, Size,
Rank, Cast, StridedSlice and Slice of a vector, Pack of scalars, ConcatV2 of vectors, Fill,
ExpandDims of a scalar, and Add, Sub, Mul, FloorDiv of known entries. Any other op, a value of
rank above 1 or a walk deeper than :data:`MAX_DEPTH` gives ``None``: nothing known.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, cast

import numpy as np
from attrs import frozen

if TYPE_CHECKING:
    from tfops.output import Output
    from tfops.types import TType

__all__ = ["MAX_DEPTH", "PartialValue", "partialValue"]

MAX_DEPTH: Final = 32
"""How many ops deep :func:`partialValue` looks before it gives up."""

Entry = int | None


@frozen
class PartialValue:
    """The known entries of an integer scalar or vector: ``None`` where unknown."""

    entries: tuple[Entry, ...]
    scalar: bool = False

    def isExact(self) -> bool:
        """Whether every entry is known."""
        return None not in self.entries

    def exact(self) -> np.ndarray[Any, Any] | None:
        """The value as an int64 array (a scalar or a vector) when every entry is known."""
        if not self.isExact():
            return None
        value = np.array(self.entries, np.int64)
        return value.reshape(()) if self.scalar else value


def _vector(entries: Sequence[Entry]) -> PartialValue:
    return PartialValue(tuple(entries))


def _scalar(entry: Entry) -> PartialValue:
    return PartialValue((entry,), scalar=True)


def partialValue(t: Output[TType]) -> PartialValue | None:
    """What is known of the value of ``t``, an integer scalar or vector; ``None`` when nothing
    is (not even its length)."""
    return _Walk().value(t, MAX_DEPTH)


class _Walk:
    """One evaluation: each output is evaluated once, however many paths lead to it."""

    def __init__(self) -> None:
        self.seen: dict[tuple[int, int], PartialValue | None] = {}

    def value(self, t: Output[TType], depth: int) -> PartialValue | None:
        if depth <= 0 or t._dtype.DTYPE.kind not in "iu":
            return None
        key = (id(t._op), t._index)
        if key not in self.seen:
            rule = _RULES.get(t._op._type)
            found = rule(self, t, depth - 1) if rule is not None and t._index == 0 else None
            self.seen[key] = found or _unknown(t)
        return self.seen[key]


def _unknown(t: Output[TType]) -> PartialValue | None:
    """Only the static shape of ``t`` is known: how many entries a vector has."""
    dims = t._shape.asArray()
    if dims is None or len(dims) > 1 or (dims and dims[0] < 0):
        return None
    return _scalar(None) if not dims else _vector([None] * dims[0])


def _input(walk: _Walk, t: Output[TType], i: int, depth: int) -> PartialValue | None:
    return walk.value(t._op._inputs[i], depth)


def _exactInput(walk: _Walk, t: Output[TType], i: int, depth: int) -> np.ndarray[Any, Any] | None:
    value = _input(walk, t, i, depth)
    return None if value is None else value.exact()


# -- the rules, one per op type ------------------------------------------------------------
Rule = Callable[[_Walk, "Output[TType]", int], "PartialValue | None"]


def _const(walk: _Walk, t: Output[TType], depth: int) -> PartialValue | None:
    value = np.asarray(t._op._attrs["value"])
    if value.ndim > 1:
        return None
    entries = tuple(int(v) for v in value.reshape(-1).tolist())
    return PartialValue(entries, scalar=value.ndim == 0)


def _identity(walk: _Walk, t: Output[TType], depth: int) -> PartialValue | None:
    return _input(walk, t, 0, depth)


def _shape(walk: _Walk, t: Output[TType], depth: int) -> PartialValue | None:
    dims = t._op._inputs[0]._shape.asArray()
    return None if dims is None else _vector([d if d >= 0 else None for d in dims])


def _size(walk: _Walk, t: Output[TType], depth: int) -> PartialValue | None:
    shape = t._op._inputs[0]._shape
    return _scalar(shape.size() if shape.isFullyKnown() else None)


def _rank(walk: _Walk, t: Output[TType], depth: int) -> PartialValue | None:
    rank = t._op._inputs[0]._shape.numDimensions()
    return _scalar(rank if rank >= 0 else None)


def _cast(walk: _Walk, t: Output[TType], depth: int) -> PartialValue | None:
    # integers cast to integers keep their values (shapes never reach the wrap-around)
    source = t._op._inputs[0]
    return _input(walk, t, 0, depth) if source._dtype.DTYPE.kind in "iu" else None


def _stridedSlice(walk: _Walk, t: Output[TType], depth: int) -> PartialValue | None:
    """A slice of a vector: one range (or one element, with ``shrink_axis_mask``)."""
    value = _input(walk, t, 0, depth)
    begin, end, strides = (_exactInput(walk, t, i, depth) for i in (1, 2, 3))
    if value is None or value.scalar or begin is None or end is None or strides is None:
        return None
    masks = {name: cast("int", t._op._attrs[name]) for name in (
        "begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")}
    if begin.shape != (1,) or end.shape != (1,) or strides.shape != (1,):
        return None
    if masks["new_axis_mask"] & 1:
        return None
    stride = int(strides[0])
    if stride == 0:
        return None
    if masks["ellipsis_mask"] & 1:  # the whole vector
        return value
    n = len(value.entries)
    if masks["shrink_axis_mask"] & 1:
        index = int(begin[0])
        return _scalar(value.entries[index]) if -n <= index < n else None
    start = None if masks["begin_mask"] & 1 else int(begin[0])
    stop = None if masks["end_mask"] & 1 else int(end[0])
    return _vector(value.entries[slice(start, stop, stride)])


def _slice(walk: _Walk, t: Output[TType], depth: int) -> PartialValue | None:
    value = _input(walk, t, 0, depth)
    begin, size = _exactInput(walk, t, 1, depth), _exactInput(walk, t, 2, depth)
    if value is None or value.scalar or begin is None or size is None or begin.shape != (1,):
        return None
    start, count, n = int(begin[0]), int(size.reshape(-1)[0]), len(value.entries)
    stop = n if count == -1 else start + count
    if not 0 <= start <= stop <= n:
        return None
    return _vector(value.entries[start:stop])


def _pack(walk: _Walk, t: Output[TType], depth: int) -> PartialValue | None:
    if t._op._attrs["axis"] not in (0, -1):
        return None
    entries: list[Entry] = []
    for i in range(len(t._op._inputs)):
        value = _input(walk, t, i, depth)
        if value is not None and not value.scalar:
            return None  # a matrix: not a shape
        entries.append(None if value is None else value.entries[0])
    return _vector(entries)


def _concat(walk: _Walk, t: Output[TType], depth: int) -> PartialValue | None:
    n = len(t._op._inputs) - 1
    axis = _exactInput(walk, t, n, depth)
    if axis is None or int(axis.reshape(-1)[0]) not in (0, -1):
        return None
    entries: list[Entry] = []
    for i in range(n):
        value = _input(walk, t, i, depth)
        if value is None or value.scalar:
            return None  # a piece of unknown length: the length of the whole is unknown
        entries.extend(value.entries)
    return _vector(entries)


def _fill(walk: _Walk, t: Output[TType], depth: int) -> PartialValue | None:
    dims, value = _exactInput(walk, t, 0, depth), _input(walk, t, 1, depth)
    if dims is None or dims.ndim != 1 or dims.size > 1 or (dims.size and dims[0] < 0):
        return None
    entry = None if value is None or not value.scalar else value.entries[0]
    return _scalar(entry) if dims.size == 0 else _vector([entry] * int(dims[0]))


def _expandDims(walk: _Walk, t: Output[TType], depth: int) -> PartialValue | None:
    value, axis = _input(walk, t, 0, depth), _exactInput(walk, t, 1, depth)
    if value is None or not value.scalar or axis is None or int(axis.reshape(-1)[0]) not in (0, -1):
        return None
    return _vector(value.entries)


def _arithmetic(apply: Callable[[int, int], int | None]) -> Rule:
    """An elementwise binary op on known entries (a scalar broadcast against a vector)."""

    def rule(walk: _Walk, t: Output[TType], depth: int) -> PartialValue | None:
        x, y = _input(walk, t, 0, depth), _input(walk, t, 1, depth)
        if x is None or y is None:
            return None
        if not x.scalar and not y.scalar and len(x.entries) != len(y.entries):
            return None
        n = max(len(x.entries), len(y.entries)) if not (x.scalar and y.scalar) else 1
        xs = x.entries * n if x.scalar else x.entries
        ys = y.entries * n if y.scalar else y.entries
        entries = [None if a is None or b is None else apply(a, b) for a, b in zip(xs, ys,
                                                                               strict=True)]
        return PartialValue(tuple(entries), scalar=x.scalar and y.scalar)

    return rule


def _floorDiv(a: int, b: int) -> int | None:
    return None if b == 0 else a // b


_RULES: dict[str, Rule] = {
    "Const": _const,
    "Identity": _identity,
    "Shape": _shape,
    "Size": _size,
    "Rank": _rank,
    "Cast": _cast,
    "StridedSlice": _stridedSlice,
    "Slice": _slice,
    "Pack": _pack,
    "ConcatV2": _concat,
    "Fill": _fill,
    "ExpandDims": _expandDims,
    "Add": _arithmetic(lambda a, b: a + b),
    "Sub": _arithmetic(lambda a, b: a - b),
    "Mul": _arithmetic(lambda a, b: a * b),
    "FloorDiv": _arithmetic(_floorDiv),
}
