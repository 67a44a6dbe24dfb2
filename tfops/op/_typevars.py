"""Type variables of the op classes, one per data type family an op can be generic in.

``T``, ``TF``, ``TN`` and ``TI`` are the type variables of functions (``create``, option
factories, the ``Ops`` methods); ``T2``, ``TF2``, ``TN2``, ``TI2`` and ``TI3`` type the other
inputs of a ``create`` whose data type is not the op's (``Slice``'s ``begin`` and ``size``,
``Less``'s operands): each such group of inputs must have one data type. ``T_co``... are the
classes' parameters. A ``create`` must not reuse its class's parameter: a type checker would
then read ``Exp.create(...)`` on the bare class as ``Exp[Unknown]``.

Every parameter is invariant (the ``_co`` names are historical): an ``Output[TFloat32]`` is
not an ``Output[TFloating]``, so that a type checker solving ``Sub.create(scope, x, y)`` for
a ``TFloat32`` ``x`` and a ``TFloat64`` ``y`` finds no data type (an error) instead of their
family. Code generic in the data type uses a type variable (``Output[TF]``), as Java code
uses ``Operand<T>``.
"""

from typing import TypeVar

import numpy as np

from tfops.types import TFloating, TIntegral, TNumber, TType

T = TypeVar("T", bound=TType)
TF = TypeVar("TF", bound=TFloating)
TN = TypeVar("TN", bound=TNumber)
TI = TypeVar("TI", bound=TIntegral)
T2 = TypeVar("T2", bound=TType)
TF2 = TypeVar("TF2", bound=TFloating)
TN2 = TypeVar("TN2", bound=TNumber)
TI2 = TypeVar("TI2", bound=TIntegral)
TI3 = TypeVar("TI3", bound=TIntegral)

T_co = TypeVar("T_co", bound=TType)
TF_co = TypeVar("TF_co", bound=TFloating)
TN_co = TypeVar("TN_co", bound=TNumber)
TI_co = TypeVar("TI_co", bound=TIntegral)

# numpy's scalar types, one type variable bounded by each: ``Constant.create`` is overloaded on
# ``NDArray[NpFloat64]``... rather than ``NDArray[np.float64]`` so that mypy infers a numpy call
# written inside the argument (``np.zeros(3, np.float32)``) from the call, not from the overload
NpFloat16 = TypeVar("NpFloat16", bound=np.float16)
NpFloat32 = TypeVar("NpFloat32", bound=np.float32)
NpFloat64 = TypeVar("NpFloat64", bound=np.float64)
NpInt32 = TypeVar("NpInt32", bound=np.int32)
NpInt64 = TypeVar("NpInt64", bound=np.int64)
NpUint8 = TypeVar("NpUint8", bound=np.uint8)
NpBool = TypeVar("NpBool", bound=np.bool_)

__all__ = [
    "T", "TF", "TN", "TI", "T2", "TF2", "TN2", "TI2", "TI3", "T_co", "TF_co", "TN_co", "TI_co",
    "NpFloat16", "NpFloat32", "NpFloat64", "NpInt32", "NpInt64", "NpUint8", "NpBool",
]
