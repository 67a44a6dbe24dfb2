"""Facade methods and helpers written by hand into ``tfops/ops.py`` beside the generated ones:
TF Java's ``tf.stridedSlice(input, Index...)`` overload of the op's facade method, and the
group that is also a core op's method (``tf.shape(x)`` and ``tf.shape.flatten(x)``)."""

from __future__ import annotations

# TF Java's ``tf.stridedSlice(input, Index...)`` (``StridedSliceHelper``) beside the op's own
# ``tf.stridedSlice(input, begin, end, strides, options...)``: one facade method, overloaded.
STRIDED_SLICE_FACADE = '''
    @overload
    def stridedSlice(
        self, input: Operand[T] | TensorValue, *indices: Index
    ) -> StridedSlice[T]: ...

    @overload
    def stridedSlice(
        self,
        input: Operand[T] | TensorValue,
        begin: Operand[TI2] | TensorValue,
        end: Operand[TI2] | TensorValue,
        strides: Operand[TI2] | TensorValue,
        *options: StridedSlice.Options,
        beginMask: int | None = None,
        endMask: int | None = None,
        ellipsisMask: int | None = None,
        newAxisMask: int | None = None,
        shrinkAxisMask: int | None = None,
    ) -> StridedSlice[T]: ...

    def stridedSlice(
        self,
        input: Operand[T] | TensorValue,
        begin: Operand[TI2] | TensorValue | Index | None = None,
        end: Operand[TI2] | TensorValue | Index | None = None,
        strides: Operand[TI2] | TensorValue | Index | None = None,
        *options: StridedSlice.Options | Index,
        beginMask: int | None = None,
        endMask: int | None = None,
        ellipsisMask: int | None = None,
        newAxisMask: int | None = None,
        shrinkAxisMask: int | None = None,
    ) -> StridedSlice[T]:
        """{SUMMARY}

        Either TF Java's indices, one per dimension (``tf.stridedSlice(x, Indices.at(0),
        Indices.all())``, see :class:`~tfops.composite.indices.Indices`), or the op's own
        inputs and masks.

        Args:
            input: the tensor to slice.
            begin: the first index of each entry (or the first ``Index``).
            end: the index each entry stops before (or the second ``Index``).
            strides: the step of each entry, non-zero (or the third ``Index``).
            options: carries optional attribute values (``StridedSlice.beginMask(...)``...), or
                the further indices.
            beginMask: a bit ``i`` set ignores ``begin[i]`` (the same as the option).
            endMask: a bit ``i`` set ignores ``end[i]`` (the same as the option).
            ellipsisMask: a bit ``i`` set makes entry ``i`` an ellipsis (the same as the
                option).
            newAxisMask: a bit ``i`` set makes entry ``i`` a new dimension of size 1 (the
                same as the option).
            shrinkAxisMask: a bit ``i`` set makes entry ``i`` a single index, removing that
                dimension (the same as the option).

        Returns:
            a new instance of StridedSlice.

        Raises:
            TypeError: indices mixed with tensors or masks.
        """
        parts = (begin, end, strides)
        if begin is None or isinstance(begin, Index):
            indices = [i for i in (*parts, *options) if i is not None]
            masks = (beginMask, endMask, ellipsisMask, newAxisMask, shrinkAxisMask)
            if any(not isinstance(i, Index) for i in indices) or any(
                m is not None for m in masks
            ):
                raise TypeError(
                    "stridedSlice: give either indices (Indices.at(0)...) only, or begin, "
                    "end, strides and masks"
                )
            return StridedSliceHelper.stridedSlice(
                self._scope, input, *(i for i in indices if isinstance(i, Index))
            )
        if end is None or strides is None or any(isinstance(i, Index) for i in (*parts, *options)):
            raise TypeError(
                "stridedSlice: give either indices (Indices.at(0)...) only, or begin, end, "
                "strides and masks"
            )
        return StridedSlice.create(
            self._scope,
            input,
            begin,
            cast("Operand[TI2] | TensorValue", end),
            cast("Operand[TI2] | TensorValue", strides),
            *(o for o in options if not isinstance(o, Index)),
            beginMask=beginMask,
            endMask=endMask,
            ellipsisMask=ellipsisMask,
            newAxisMask=newAxisMask,
            shrinkAxisMask=shrinkAxisMask,
        )
'''


CALLABLE_GROUP = '''

_G = TypeVar("_G")


@final
class _CallableGroup(Generic[_G]):
    """A group of :class:`Ops` that is also an op's facade method, as TF Java's ``tf.shape``
    is both the method ``tf.shape(x)`` and the group ``tf.shape.flatten(x)``: on an ``Ops``,
    the group (made once per ``Ops``), whose ``__call__`` creates the op; on the class, that
    ``__call__``, as the method it stands for."""

    def __init__(self, group: type[_G]) -> None:
        self._group = group
        self._slot = ""

    def __set_name__(self, owner: type[object], name: str) -> None:
        self._slot = "_" + name

    @overload
    def __get__(self, obj: None, owner: type[object]) -> Callable[..., object]: ...

    @overload
    def __get__(self, obj: Ops, owner: type[object]) -> _G: ...

    def __get__(self, obj: Ops | None, owner: type[object]) -> _G | Callable[..., object]:
        if obj is None:
            method: Callable[..., object] = vars(self._group)["__call__"]
            return method
        group: _G | None = getattr(obj, self._slot)
        if group is None:
            group = self._group(obj.scope())  # type: ignore[call-arg]
            setattr(obj, self._slot, group)
        return group
'''
