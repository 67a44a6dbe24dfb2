"""What a run of a session returns: the ``Result`` (public as ``tfops.session.Result``), and
the keys that name a fetched output (``FetchKey``: an operand, or a name ``"op"``/``"op:N"``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, TypeAlias, TypeVar, overload

import numpy as np

from tfops.errors import DataTypeError, IllegalArgumentError, IndexOutOfBoundsError
from tfops.operation import userSite
from tfops.output import AnyOperand, Operand, Output
from tfops.types import TType

__all__ = ["Result"]

Array: TypeAlias = "np.ndarray[Any, Any]"
_T = TypeVar("_T", bound=TType)
FetchKey: TypeAlias = "Operand[_T] | AnyOperand | str"
"""An operand (of any data type: ``FetchKey[_T]``), or an output's name."""


def parseName(key: str) -> tuple[str, int]:
    """``"op"`` or ``"op:N"`` as the op's name and the output's index (decimal digits only)."""
    name, colon, index = key.partition(":")
    if not colon:
        return name, 0
    if not (index.isascii() and index.isdigit()):
        raise IllegalArgumentError(
            f"invalid output name {key!r}: name an output 'op' or 'op:N', N its index in "
            "decimal digits"
        )
    return name, int(index)


class Result(Sequence[Array]):
    """The values of one run, in fetch order.

    ``result[i]``, ``result.get(i)``, ``result.get(operand)`` or ``result.get("name:0")``.

    Args:
        fetches: the fetched outputs, in order.
        values: their values.
    """

    def __init__(self, fetches: Sequence[Output[TType]], values: list[Array]) -> None:
        self._fetches = list(fetches)
        self._values = values

    @overload
    def __getitem__(self, index: int) -> Array: ...

    @overload
    def __getitem__(self, index: slice) -> list[Array]: ...

    def __getitem__(self, index: int | slice) -> Array | list[Array]:
        if not isinstance(index, (int, slice)) and not isinstance(index, np.integer):
            raise DataTypeError(
                f"result[{index!r}] (at {userSite()}): a Result is indexed by fetch position; "
                "get a value by operand or name with result.get(operand) or result.get('op:0')"
            )
        return self._values[index]

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator[Array]:
        return iter(self._values)

    def get(self, key: int | FetchKey[_T]) -> Array:
        """Returns the value fetched at position ``key``, or for an operand or name."""
        if isinstance(key, int) and not isinstance(key, bool):
            if not -len(self._values) <= key < len(self._values):
                raise IndexOutOfBoundsError(
                    f"position {key} is out of range: this run fetched {len(self._values)} "
                    f"value(s); give a position from 0 to {len(self._values) - 1}, an operand "
                    "or a name"
                )
            return self._values[key]
        if isinstance(key, str):
            name, index = parseName(key)
            matches = [
                i
                for i, f in enumerate(self._fetches)
                if f.op().name() == name and f.index() == index
            ]
        else:
            asOutput = getattr(key, "asOutput", None)
            out = asOutput() if asOutput is not None else None
            if not isinstance(out, Output):
                raise DataTypeError(
                    f"{key!r} is not a position, an operand or a name; give the fetch's "
                    "position (an int), the operand fetched, or its name ('op' or 'op:0')"
                )
            matches = [i for i, f in enumerate(self._fetches) if f == out]
        if not matches:
            raise IllegalArgumentError(f"{key!r} was not fetched in this run")
        return self._values[matches[0]]

    def __repr__(self) -> str:
        return f"Result({', '.join(f.name() for f in self._fetches)})"
