"""TF Java's ``Indices`` (``org.tensorflow.ndarray.index``) and ``StridedSliceHelper``: a
strided slice written index by index, ``tf.stridedSlice(x, Indices.at(0), Indices.all())``, as
``x[0, :]`` in Python."""

from __future__ import annotations

from typing import final

from attrs import frozen

from scope import Scope
from tfops.composite._endpoint import _atomic
from tfops.op._typevars import T
from tfops.op.core import Constant, StridedSlice
from tfops.output import Operand
from tfops.types import TensorValue, TInt32

__all__ = ["Index", "Indices", "StridedSliceHelper"]

_INT32 = 2**31


@frozen
class Index:
    """One entry of a strided slice, as TF Java's ``Index``: where it begins and ends, its
    stride, whether the begin or end is the dimension's own (a mask), and whether it is a
    single position (the dimension removed), a new axis or an ellipsis. Made by
    :class:`Indices`."""

    name: str
    begin: int = 0
    end: int = 0
    stride: int = 1
    beginMask: bool = False
    endMask: bool = False
    isPoint: bool = False
    isNewAxis: bool = False
    isEllipsis: bool = False

    def __repr__(self) -> str:
        return self.name


def _stride(stride: int) -> int:
    if stride == 0:
        raise ValueError("Indices: can not have a stride of 0")
    return stride


@final
class Indices:
    """The indices of a strided slice (TF Java's ``Indices``); ``tf.stridedSlice(x, *indices)``
    takes one per dimension, as Python's ``x[...]`` does.

    Example:
        >>> from tfops.composite.indices import Indices
        >>> g = Graph(); tf = Ops.create(g)
        >>> x = tf.constant([[1, 2, 3], [4, 5, 6]])
        >>> y = tf.stridedSlice(x, Indices.at(1), Indices.flip())  # x[1, ::-1]
        >>> z = tf.stridedSlice(x, Indices.all(), Indices.newAxis(), Indices.sliceFrom(1))
        >>> [v.tolist() for v in Session(g).runner().fetch(y).fetch(z).run()]
        [[6, 5, 4], [[[2, 3]], [[5, 6]]]]
    """

    @staticmethod
    def at(coord: int, keepDim: bool = False) -> Index:
        """The element at ``coord`` (from the end when negative): ``x[coord]``; with
        ``keepDim``, the dimension stays, of size 1 (``x[coord:coord + 1]``)."""
        return Index(f"at({coord}, keepDim={keepDim})", begin=coord, end=coord + 1,
                     isPoint=not keepDim)

    @staticmethod
    def all() -> Index:
        """Every element of the dimension: ``x[:]``."""
        return Index("all()", beginMask=True, endMask=True)

    @staticmethod
    def even() -> Index:
        """The elements at even positions: ``x[::2]``."""
        return Indices.step(2)

    @staticmethod
    def odd() -> Index:
        """The elements at odd positions: ``x[1::2]``."""
        return Indices.sliceFrom(1, 2)

    @staticmethod
    def step(stride: int) -> Index:
        """Every ``stride``-th element, from the last one for a negative stride: ``x[::stride]``."""
        return Index(f"step({stride})", stride=_stride(stride), beginMask=True, endMask=True)

    @staticmethod
    def sliceFrom(start: int, stride: int = 1) -> Index:
        """The elements from ``start`` on: ``x[start::stride]``."""
        return Index(f"sliceFrom({start}, {stride})", begin=start, stride=_stride(stride),
                     endMask=True)

    @staticmethod
    def sliceTo(end: int, stride: int = 1) -> Index:
        """The elements before ``end``: ``x[:end:stride]``."""
        return Index(f"sliceTo({end}, {stride})", end=end, stride=_stride(stride),
                     beginMask=True)

    @staticmethod
    def range(start: int, end: int) -> Index:
        """The elements from ``start`` to before ``end``: ``x[start:end]``."""
        return Indices.slice(start, end)

    @staticmethod
    def flip() -> Index:
        """The elements in reverse order: ``x[::-1]``."""
        return Indices.slice(None, None, -1)

    @staticmethod
    def newAxis() -> Index:
        """A new dimension of size 1: ``x[None]`` (``tf.newaxis``)."""
        return Index("newAxis()", isNewAxis=True)

    @staticmethod
    def ellipsis() -> Index:
        """As many whole dimensions as the other indices leave: ``x[...]`` (at most one)."""
        return Index("ellipsis()", isEllipsis=True)

    @staticmethod
    def slice(start: int | None, end: int | None, stride: int = 1) -> Index:
        """The elements from ``start`` to before ``end`` by ``stride``: ``x[start:end:stride]``;
        a ``None`` bound is the dimension's own (as Python's omitted one)."""
        if start is None and end is None:
            return Indices.all() if stride == 1 else Indices.step(stride)
        if start is None:
            assert end is not None
            return Indices.sliceTo(end, stride)
        if end is None:
            return Indices.sliceFrom(start, stride)
        return Index(f"slice({start}, {end}, {stride})", begin=start, end=end,
                     stride=_stride(stride))


@final
class StridedSliceHelper:
    """TF Java's ``StridedSliceHelper``: the ``StridedSlice`` op of a list of indices."""

    @staticmethod
    def stridedSlice(scope: Scope, input: Operand[T] | TensorValue, *indices: Index
                     ) -> StridedSlice[T]:
        """Returns the strided slice of ``input`` that ``indices`` say, one per dimension (an
        ellipsis for several, a new axis for none); the dimensions after the last index are
        whole. The op's begin, end and strides are ``TInt32`` constants and its masks the
        indices' (TF Java's ``tf.stridedSlice(input, Index...)``).

        Args:
            scope: current scope.
            input: the tensor to slice.
            indices: the indices, made by :class:`Indices`.

        Returns:
            a new instance of StridedSlice.

        Raises:
            TypeError: an index is not an ``Index``.
            ValueError: two ellipses, or a bound beyond the int32 range.
        """
        begin, end, strides = [], [], []
        masks = {"beginMask": 0, "endMask": 0, "ellipsisMask": 0, "newAxisMask": 0,
                 "shrinkAxisMask": 0}
        for i, index in enumerate(indices):
            if not isinstance(index, Index):
                raise TypeError(f"stridedSlice: index {i} must be an Index (made by Indices), "
                                f"got {index!r}")
            for what, value in (("begin", index.begin), ("end", index.end),
                                ("stride", index.stride)):
                if not -_INT32 <= value < _INT32:
                    raise ValueError(f"stridedSlice: the {what} of {index!r} is out of the "
                                     "int32 range")
            begin.append(index.begin)
            end.append(index.end)
            strides.append(index.stride)
            bit = 1 << i
            if index.isEllipsis:
                if masks["ellipsisMask"]:
                    raise ValueError("stridedSlice: can not have two ellipses in a slice")
                masks["ellipsisMask"] |= bit
            for mask, on in (("beginMask", index.beginMask), ("endMask", index.endMask),
                             ("newAxisMask", index.isNewAxis),
                             ("shrinkAxisMask", index.isPoint)):
                if on:
                    masks[mask] |= bit
        return StridedSlice.create(
            scope, input, Constant.vectorOf(scope, begin, TInt32),
            Constant.vectorOf(scope, end, TInt32), Constant.vectorOf(scope, strides, TInt32),
            **masks,
        )


# one construction step: if the op is rejected, its constants go too
StridedSliceHelper.stridedSlice = staticmethod(  # type: ignore[method-assign]
    _atomic(vars(StridedSliceHelper)["stridedSlice"].__func__)
)

