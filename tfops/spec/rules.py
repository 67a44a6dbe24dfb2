"""What op specs share: the families of data types ops allow, and the common shape rules.

Public to op authors as ``tfops.op.FLOATS``, ``tfops.op.sameShape``... A shape rule runs when an
op is created: it returns the static shape of each output, and raises ``ctx.error(...)`` (a
``ValueError`` naming the op and where it was created) for inputs the op cannot take.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfops.errors import InvalidArgumentError
from tfops.opdef import InferContext
from tfops.shape import Shape
from tfops.types import ALL_TYPES, TFloating, TIntegral, TNumber, TType

__all__ = [
    "ANY",
    "FLOATS",
    "INDEX_TYPES",
    "INTEGERS",
    "NUMBERS",
    "SIGNED",
    "broadcast",
    "broadcastShape",
    "normalizeAxes",
    "reductionAxes",
    "reductionShape",
    "reshapeTarget",
    "sameShape",
    "shapeValue",
]

FLOATS: tuple[type[TType], ...] = tuple(t for t in ALL_TYPES if issubclass(t, TFloating))
INTEGERS: tuple[type[TType], ...] = tuple(t for t in ALL_TYPES if issubclass(t, TIntegral))
NUMBERS: tuple[type[TType], ...] = tuple(t for t in ALL_TYPES if issubclass(t, TNumber))
SIGNED: tuple[type[TType], ...] = FLOATS + tuple(
    t for t in INTEGERS if t.NAME in ("int32", "int64")
)
INDEX_TYPES: tuple[type[TType], ...] = tuple(t for t in INTEGERS if t.NAME in ("int32", "int64"))
ANY: tuple[type[TType], ...] = ALL_TYPES

Array = np.ndarray[Any, Any]


# -- shape rules ---------------------------------------------------------------------------
def sameShape(ctx: InferContext) -> Sequence[Shape]:
    """The output has the shape of the first input."""
    return [ctx.shapes[0]]


def broadcastShape(ctx: InferContext) -> Sequence[Shape]:
    """The output has the broadcast shape of the inputs (numpy / TensorFlow rules)."""
    result = ctx.shapes[0]
    for other in ctx.shapes[1:]:
        result = broadcast(ctx, result, other)
    return [result]


def broadcast(ctx: InferContext, a: Shape, b: Shape) -> Shape:
    """The broadcast of two static shapes; raises naming the op when they are incompatible."""
    da, db = a.asArray(), b.asArray()
    if da is None or db is None:
        return Shape.unknown()
    n = max(len(da), len(db))
    da = (1,) * (n - len(da)) + da
    db = (1,) * (n - len(db)) + db
    dims = []
    for x, y in zip(da, db, strict=True):
        if x == y:
            dims.append(x)
        elif x == 1:
            dims.append(y)
        elif y == 1:
            dims.append(x)
        elif x == -1:
            dims.append(y)
        elif y == -1:
            dims.append(x)
        else:
            raise ctx.error(f"incompatible shapes {a} and {b} for broadcasting")
    return Shape.of(*dims)


def normalizeAxes(ctx: InferContext | None, axes: Array, rank: int) -> tuple[int, ...]:
    """Axes in [0, rank), sorted; raises for an axis out of range, and at run time (``ctx`` is
    None) for a repeated axis, as TensorFlow's kernels do."""
    result: list[int] = []
    for a in np.asarray(axes).reshape(-1).tolist():
        if not -rank <= a < rank:
            message = f"reduction axis {a} is out of range for a tensor of rank {rank}"
            if ctx is not None:
                raise ctx.error(message)
            raise InvalidArgumentError(None, message)
        a = a % rank if rank else a
        if a in result and ctx is None:
            raise InvalidArgumentError(None, f"axes {np.asarray(axes).tolist()} contain the "
                                       f"dimension {a} twice")
        result.append(a)
    return tuple(sorted(set(result)))


def reductionShape(ctx: InferContext) -> Sequence[Shape]:
    """Shape of a reduction of input 0 over the axes in input 1 (``keep_dims`` attribute)."""
    shape, keep = ctx.shapes[0], bool(ctx.attrs["keep_dims"])
    axisShape = ctx.shapes[1]
    if axisShape.numDimensions() > 1:
        raise ctx.error(f"reduction axes must be a scalar or a vector, got shape {axisShape}")
    axes = ctx.constants[1]
    rank = shape.numDimensions()
    if axes is None or rank < 0:
        if keep and rank >= 0:
            return [Shape.of(*([-1] * rank))]
        return [Shape.unknown()]
    dims = shape.asArray() or ()
    reduced = normalizeAxes(ctx, axes, rank)
    if keep:
        return [Shape.of(*(1 if i in reduced else d for i, d in enumerate(dims)))]
    return [Shape.of(*(d for i, d in enumerate(dims) if i not in reduced))]


def shapeValue(ctx: InferContext, i: int) -> Shape:
    """What a shape-valued input (e.g. Reshape's ``shape``) is known to hold at construction,
    as TensorFlow's ``constant_value_as_shape``.

    A constant gives its values; a computed shape gives the entries its subgraph tells
    (``ctx.values``: ``shape(x)`` gives ``x``'s static shape, ``concat([shape(x)[0:1], [12]])``
    its first dimension and 12...), unknown (-1) elsewhere, as do negative entries; a shape of
    unknown length is ``Shape.unknown()``.
    """
    rank = ctx.shapes[i].numDimensions()
    if rank not in (-1, 1):
        raise ctx.error(f"a shape argument must be a vector, got a tensor of shape {ctx.shapes[i]}")
    value = ctx.constants[i]
    if value is not None:
        if value.ndim != 1:
            raise ctx.error(f"shape argument must be a vector, got a tensor of rank {value.ndim}")
        return Shape.of(*(int(v) if v >= 0 else -1 for v in value.tolist()))
    known = ctx.values[i]
    if known is None or known.scalar:
        return Shape.unknown()
    return Shape.of(*(e if e is not None and e >= 0 else -1 for e in known.entries))


def reshapeTarget(inputDims: Sequence[int], sizes: Sequence[int]) -> tuple[int, ...] | None:
    """The shape ``Reshape`` makes of a tensor of ``inputDims`` given ``sizes`` (at most one
    -1), or ``None`` when the sizes do not fit. As TensorFlow, when ``sizes`` has a zero, zero
    dimensions of the input are left out in computing the -1, so ``(0, 3)`` reshaped to
    ``[0, -1]`` is ``(0, 3)``."""
    hasZero = 0 in sizes
    product = 1
    for d in sizes:
        if d != -1 and (d != 0 or not hasZero):
            product *= d
    total = 1
    for d in inputDims:
        total *= d
    if -1 not in sizes:
        return tuple(sizes) if total == product or (hasZero and total == 0) else None
    counted = 1
    for d in inputDims:
        if d > 0 or not hasZero:
            counted *= d
    if product == 0 or counted % product:
        return None
    missing = counted // product
    result = tuple(missing if d == -1 else d for d in sizes)
    size = 1
    for d in result:
        size *= d
    return result if size == total else None


def reductionAxes(x: Array, axes: Array) -> tuple[int, ...]:
    """The axes of ``x`` that a reduction over ``axes`` (run-time values) covers; raises
    ``InvalidArgumentError`` as TensorFlow's kernels do for an axis out of range or repeated."""
    return normalizeAxes(None, axes, x.ndim)
