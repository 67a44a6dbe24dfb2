"""Masking composites (``tf``): booleanMask, booleanMaskUpdate (TensorFlow Java's
``BooleanMask`` and ``BooleanMaskUpdate``)."""

from __future__ import annotations

import math
from typing import Any, Generic, final

from attrs import frozen

from scope import Scope
from tfops.composite._endpoint import composite
from tfops.errors import IllegalArgumentError
from tfops.op._typevars import T, T_co
from tfops.op.core import (
    BroadcastTo,
    Concat,
    Constant,
    ExpandDims,
    Gather,
    Prod,
    Reshape,
    Shape,
    Slice,
    Squeeze,
    TensorScatterNdUpdate,
    Where,
)
from tfops.operation import userSite
from tfops.output import Operand, Output, PrimitiveOp
from tfops.shape import Shape as StaticShape
from tfops.types import TBool, TensorValue, TInt32, TType

__all__ = ["BooleanMask", "BooleanMaskUpdate"]


def _operand(scope: Scope, value: Any, dtype: type[TType] | None = None) -> Output[Any]:
    """``value`` as an output: an operand's own, else a new constant's (of ``dtype``, when
    given)."""
    if hasattr(value, "asOutput"):
        out: Output[Any] = value.asOutput()
        return out
    return Constant.create(scope, value, dtype).asOutput()


def _checkMask(name: str, tensor: Output[Any], mask: Output[Any], axis: int) -> tuple[int, int]:
    """The axis (made non-negative) and the rank of the mask, checked as TF Java checks them:
    the mask's shape must be that of ``tensor``'s dimensions from ``axis`` on."""

    def error(message: str) -> IllegalArgumentError:
        return IllegalArgumentError(f"{name} (created at {userSite()}): {message}")

    if mask.dataType() is not TBool:
        raise error(f"mask must be bool, got {mask.dataType().NAME}")
    maskShape, tensorShape = mask.shape(), tensor.shape()
    k, rank = maskShape.numDimensions(), tensorShape.numDimensions()
    if k == 0:
        raise error("mask cannot be a scalar")
    if k < 0:
        raise error("mask must have a known number of dimensions")
    if axis < 0:
        if rank < 0:
            raise error(f"a negative axis ({axis}) needs a tensor of known rank")
        axis += rank
    if axis < 0 or (rank >= 0 and axis + k > rank):
        raise error(f"axis {axis} and a mask of rank {k} do not fit a tensor of shape "
                    f"{tensorShape}: axis + rank(mask) must be at most rank(tensor)")
    dims = tensorShape.asArray()
    required = StaticShape.unknown() if dims is None else StaticShape.of(*dims[axis:axis + k])
    if not required.isCompatibleWith(maskShape):
        raise error(f"mask shape {maskShape} is not compatible with the required mask shape "
                    f"{required} (dimensions {axis} to {axis + k - 1} of the tensor)")
    return axis, k


def _dims(scope: Scope, tensor: Output[Any], begin: int, end: int | None) -> Output[TInt32]:
    """Dimensions ``begin:end`` of ``tensor``'s shape (all from ``begin`` for ``None``): a
    constant when they are known, else a slice of its live shape."""
    dims = tensor.shape().asArray()
    if dims is not None and all(d >= 0 for d in dims[begin:end]):
        return Constant.create(scope, list(dims[begin:end]), TInt32).asOutput()
    size = -1 if end is None else end - begin
    return Slice.create(scope, Shape.create(scope, tensor), [begin], [size]).asOutput()


class _Masked(PrimitiveOp, Generic[T_co]):
    """A composite whose result is its last op's output: ``op()`` is that op."""

    __slots__ = ("_output",)

    def __init__(self, last: PrimitiveOp, output: Output[T_co]) -> None:
        super().__init__(last.op())
        self._output = output

    def asOutput(self) -> Output[T_co]:
        """Returns the symbolic handle of the masked tensor."""
        return self._output


@composite("core")
@final
class BooleanMask(_Masked[T_co]):
    """Applies a boolean mask to a tensor (TF Java's ``BooleanMask``); numpy's
    ``tensor[mask]``.

    For a mask of rank ``K`` whose shape is that of dimensions ``axis .. axis+K-1`` of the
    tensor, the result keeps, along those dimensions flattened into one, the slices where the
    mask is true, in row-major order: its shape is ``tensor.shape[:axis] + [n] +
    tensor.shape[axis+K:]`` for ``n`` true elements. The graph holds, under the sub-scope
    ``BooleanMask``, a ``Reshape`` of the tensor, a ``Where`` of the flattened mask and a
    ``Gather`` (``op()``). ``n`` depends on the mask's values, so on the XLA backend the mask
    must be known when the request is compiled: computed from constants and fed values, not
    from variables or random ops (see ``Where``). The gradient flows to the tensor through
    the ``Gather``.

    Example:
        >>> g = Graph(); tf = Ops.create(g)
        >>> t = tf.constant([[1, 2], [3, 4], [5, 6]])
        >>> y = tf.booleanMask(t, tf.constant([True, False, True]))
        >>> Session(g).runner().fetch(y).run()[0].tolist()
        [[1, 2], [5, 6]]
    """

    @frozen
    class Options:
        """Optional attributes for :class:`BooleanMask`."""

        axis: int | None = None

    @staticmethod
    def axis(axis: int) -> BooleanMask.Options:
        """Sets the ``axis`` option: the first dimension of the tensor the mask applies to."""
        return BooleanMask.Options(axis=axis)

    @staticmethod
    def create(
        scope: Scope,
        tensor: Operand[T] | TensorValue,
        mask: Operand[TBool] | TensorValue,
        *options: BooleanMask.Options,
        axis: int | None = None,
    ) -> BooleanMask[T]:
        """Applies a boolean mask to a tensor: the slices where the mask is true.

        Args:
            scope: current scope.
            tensor: the tensor to mask.
            mask: a bool tensor of rank at least 1 whose shape is that of the tensor's
                dimensions from ``axis`` on.
            options: carries optional attribute values (``BooleanMask.axis(...)``).
            axis: the first dimension of the tensor the mask applies to (default 0; negative
                counts from the end); the same as the option.

        Returns:
            the masked tensor.

        Raises:
            IllegalArgumentError: the mask is a scalar, of unknown rank, or of a shape that
                does not match the tensor's dimensions from ``axis`` on.
        """
        for o in options:
            axis = o.axis if o.axis is not None else axis
        inner = scope.withSubScope("BooleanMask")
        t: Output[T] = _operand(inner, tensor)
        m = _operand(inner, mask, TBool)
        start, k = _checkMask("BooleanMask", t, m, axis or 0)
        dims = t.shape().asArray()
        flatShape: Output[TInt32]
        if dims is not None and all(d >= 0 for d in dims):  # known: the result's shape is too
            flat = [*dims[:start], math.prod(dims[start:start + k]), *dims[start + k:]]
            flatShape = Constant.create(inner, flat, TInt32).asOutput()
        else:  # as TF Java builds it, from the tensor's live shape
            leading = Prod.create(inner, _dims(inner, t, start, start + k), [0], keepDims=True)
            flatShape = Concat.create(
                inner, [_dims(inner, t, 0, start), leading, _dims(inner, t, start + k, None)],
                0).asOutput()
        flattened = Reshape.create(inner, t, flatShape)
        flatMask = Reshape.create(inner, m, [-1])
        indices = Squeeze.create(inner, Where.create(inner, flatMask), axis=[1])
        gathered = Gather.create(inner, flattened, indices, start)
        return BooleanMask(gathered, gathered.asOutput())


@composite("core")
@final
class BooleanMaskUpdate(_Masked[T_co]):
    """Updates a tensor where a boolean mask is true (TF Java's ``BooleanMaskUpdate``); numpy's
    ``tensor[mask] = updates`` on a copy.

    The mask (rank ``K``) applies to dimensions ``axis .. axis+K-1`` of the tensor as in
    :class:`BooleanMask`; ``updates`` holds the new slices, of the shape ``booleanMask(tensor,
    mask)`` has (``tensor.shape[:axis] + [n] + tensor.shape[axis+K:]`` for ``n`` true
    elements), and is broadcast to it unless ``broadcast`` is false. The graph holds, under the
    sub-scope ``BooleanMaskUpdate``, a ``Where`` of the mask (broadcast over the dimensions
    before ``axis``) and a ``TensorScatterNdUpdate`` (``op()``), so gradients flow to the
    tensor (zero where it was replaced) and to the updates. On the XLA backend the mask must be
    known when the request is compiled, as for :class:`BooleanMask`.

    TF Java reshapes the tensor to ``[prod(shape[:axis+K])] + shape[axis+K:]`` and scatters
    the mask's coordinates into that, which is right only for ``axis`` 0 and a vector mask;
    this composite scatters into the tensor itself, so any ``axis`` and mask rank give
    numpy's result.

    Example:
        >>> g = Graph(); tf = Ops.create(g)
        >>> t = tf.constant([[1, 2], [3, 4], [5, 6]])
        >>> y = tf.booleanMaskUpdate(t, tf.constant([True, False, True]), tf.constant(0))
        >>> Session(g).runner().fetch(y).run()[0].tolist()
        [[0, 0], [3, 4], [0, 0]]
    """

    @frozen
    class Options:
        """Optional attributes for :class:`BooleanMaskUpdate`."""

        axis: int | None = None
        broadcast: bool | None = None

    @staticmethod
    def axis(axis: int) -> BooleanMaskUpdate.Options:
        """Sets the ``axis`` option: the first dimension of the tensor the mask applies to."""
        return BooleanMaskUpdate.Options(axis=axis)

    @staticmethod
    def broadcast(broadcast: bool) -> BooleanMaskUpdate.Options:
        """Sets the ``broadcast`` option: whether ``updates`` is broadcast (default true)."""
        return BooleanMaskUpdate.Options(broadcast=broadcast)

    @staticmethod
    def create(
        scope: Scope,
        tensor: Operand[T] | TensorValue,
        mask: Operand[TBool] | TensorValue,
        updates: Operand[T] | TensorValue,
        *options: BooleanMaskUpdate.Options,
        axis: int | None = None,
        broadcast: bool | None = None,
    ) -> BooleanMaskUpdate[T]:
        """Updates a tensor at the masked positions; the tensor itself is not changed.

        Args:
            scope: current scope.
            tensor: the tensor to update.
            mask: a bool tensor of rank at least 1 whose shape is that of the tensor's
                dimensions from ``axis`` on.
            updates: the new values, of the shape of ``booleanMask(tensor, mask)`` or
                broadcastable to it.
            options: carries optional attribute values (``BooleanMaskUpdate.axis(...)``,
                ``BooleanMaskUpdate.broadcast(...)``).
            axis: the first dimension of the tensor the mask applies to (default 0; negative
                counts from the end); the same as the option.
            broadcast: whether ``updates`` is broadcast to the shape of the masked slices
                (default true); the same as the option.

        Returns:
            the updated copy of the tensor.

        Raises:
            IllegalArgumentError: the mask is a scalar, of unknown rank, or of a shape that
                does not match the tensor's dimensions from ``axis`` on.
        """
        for o in options:
            axis = o.axis if o.axis is not None else axis
            broadcast = o.broadcast if o.broadcast is not None else broadcast
        inner = scope.withSubScope("BooleanMaskUpdate")
        t: Output[T] = _operand(inner, tensor)
        m = _operand(inner, mask, TBool)
        start, k = _checkMask("BooleanMaskUpdate", t, m, axis or 0)
        u: Output[T] = _operand(inner, updates, t.dataType())
        full: Output[Any] = m
        if start > 0:  # the mask repeated for each position of the dimensions before axis
            for _ in range(start):
                full = ExpandDims.create(inner, full, 0).asOutput()
            full = BroadcastTo.create(inner, full, _dims(inner, t, 0, start + k)).asOutput()
        where = Where.create(inner, full)
        if broadcast is None or broadcast:
            count = where if start == 0 else Where.create(inner, m)
            n = Slice.create(inner, Shape.create(inner, count), [0], [1])
            shape = Concat.create(
                inner, [_dims(inner, t, 0, start), n, _dims(inner, t, start + k, None)], 0)
            u = BroadcastTo.create(inner, u, shape).asOutput()
        if start > 0:  # one slice per row of where, as the rows run
            rows = Concat.create(inner, [[-1], _dims(inner, t, start + k, None)], 0)
            u = Reshape.create(inner, u, rows).asOutput()
        updated = TensorScatterNdUpdate.create(inner, t, where, u)
        return BooleanMaskUpdate(updated, updated.asOutput())
