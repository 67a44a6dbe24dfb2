"""Data types of tensors, as in TensorFlow Java's ``org.tensorflow.types``.

Each data type is a class that is never instantiated: it serves both as the generic parameter of
``Output[TFloat32]`` and as the run-time token passed to ``Placeholder.create(scope, TFloat32)``.
The families ``TType``, ``TNumber``, ``TFloating`` and ``TIntegral`` are the bounds that op
classes use to restrict their inputs, so a type checker rejects a ``TBool`` given to ``Exp``.

Example:
    >>> from tfops.types import TFloat32, TFloating, dataTypeOf
    >>> TFloat32.NAME, TFloat32.DTYPE
    ('float32', dtype('float32'))
    >>> issubclass(TFloat32, TFloating)
    True
    >>> dataTypeOf("int64").NAME
    'int64'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, TypeAlias, Union, final

import numpy as np
from numpy.typing import DTypeLike

from tfops.errors import DataTypeError

__all__ = [
    "TType",
    "TNumber",
    "TFloating",
    "TIntegral",
    "TFloat16",
    "TFloat32",
    "TFloat64",
    "TInt32",
    "TInt64",
    "TUint8",
    "TBool",
    "ALL_TYPES",
    "TensorValue",
    "dataTypeOf",
]


class TType:
    """Base of every tensor data type.

    A data type class carries its TensorFlow name (``NAME``) and its numpy dtype (``DTYPE``).
    """

    NAME: ClassVar[str] = "type"
    DTYPE: ClassVar[np.dtype[np.generic]] = np.dtype(np.object_)

    def __init__(self) -> None:
        raise TypeError(f"{type(self).__name__} is a data type token and is not instantiated")


class TNumber(TType):
    """Family of numeric data types (integers and floating point)."""


class TFloating(TNumber):
    """Family of floating point data types; the only ones gradients flow through."""


class TIntegral(TNumber):
    """Family of integer data types."""


@final
class TFloat16(TFloating):
    """IEEE 754 half precision floating point."""

    NAME: ClassVar[str] = "float16"
    DTYPE: ClassVar[np.dtype[np.generic]] = np.dtype(np.float16)


@final
class TFloat32(TFloating):
    """IEEE 754 single precision floating point; the default for Python floats."""

    NAME: ClassVar[str] = "float32"
    DTYPE: ClassVar[np.dtype[np.generic]] = np.dtype(np.float32)


@final
class TFloat64(TFloating):
    """IEEE 754 double precision floating point."""

    NAME: ClassVar[str] = "float64"
    DTYPE: ClassVar[np.dtype[np.generic]] = np.dtype(np.float64)


@final
class TInt32(TIntegral):
    """32-bit signed integer; the default for Python ints and for axes."""

    NAME: ClassVar[str] = "int32"
    DTYPE: ClassVar[np.dtype[np.generic]] = np.dtype(np.int32)


@final
class TInt64(TIntegral):
    """64-bit signed integer."""

    NAME: ClassVar[str] = "int64"
    DTYPE: ClassVar[np.dtype[np.generic]] = np.dtype(np.int64)


@final
class TUint8(TIntegral):
    """8-bit unsigned integer."""

    NAME: ClassVar[str] = "uint8"
    DTYPE: ClassVar[np.dtype[np.generic]] = np.dtype(np.uint8)


@final
class TBool(TType):
    """Boolean."""

    NAME: ClassVar[str] = "bool"
    DTYPE: ClassVar[np.dtype[np.generic]] = np.dtype(np.bool_)


ALL_TYPES: tuple[type[TType], ...] = (
    TFloat16,
    TFloat32,
    TFloat64,
    TInt32,
    TInt64,
    TUint8,
    TBool,
)

_BY_DTYPE: dict[np.dtype[np.generic], type[TType]] = {t.DTYPE: t for t in ALL_TYPES}


TensorValue: TypeAlias = Union[
    bool, int, float, np.generic, "np.ndarray[Any, Any]", Sequence["TensorValue"]
]
"""A value that becomes a ``Const`` where an operand is expected.

A Python bool, int or float, a numpy scalar, a numpy array, or a (nested) sequence of them. The
alias is recursive, so a list of operands is not a tensor value. The one ``Any`` in it is numpy's
own spelling of "an array of any shape and dtype" (``np.ndarray[Any, Any]``): the dtype of an
array is checked when the op is created, not by the type checker. Public signatures use ``Any``
nowhere else.
"""


def dataTypeOf(dtype: DTypeLike) -> type[TType]:
    """Returns the data type class of a numpy dtype (or anything numpy reads as one).

    Raises:
        TypeError: the dtype has no tfops data type (complex, strings, objects...).
    """
    key = np.dtype(dtype)
    found = _BY_DTYPE.get(key)
    if found is None:
        supported = ", ".join(t.NAME for t in ALL_TYPES)
        raise DataTypeError(f"numpy dtype {key} has no tfops data type (supported: {supported})")
    return found
