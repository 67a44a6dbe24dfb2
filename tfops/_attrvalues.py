"""The values an op's attributes may have, by kind: what ``OperationBuilder`` converts a given
attribute value to (an int for an ``int`` attribute, a ``Shape`` for a ``shape``...) and the
errors it gives when it cannot."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from tfops.errors import IllegalArgumentError
from tfops.shape import Shape
from tfops.types import TType, dataTypeOf

__all__ = ["INT64_MAX", "INT64_MIN", "checkAttrValue", "dataTypeHint"]

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def checkAttrValue(
    name: str,
    kind: str,
    allowed: tuple[type[TType], ...],
    value: Any,
    fail: Callable[[bool, str], Exception],
) -> Any:
    """Attribute ``name``'s ``value`` as an op keeps an attribute of its ``kind`` (an int for an
    int attribute, a ``Shape`` for a shape...), or raises ``fail(isTypeError, message)``: the
    builder's error, which names the op and where it was created."""
    if kind == "type":
        if isinstance(value, type) and value in allowed:
            return value
        if not (isinstance(value, type) and issubclass(value, TType)) or value in (TType,):
            raise fail(
                True,
                f"attribute {name!r} must be a data type (such as TFloat32), got {value!r}"
                + dataTypeHint(value),
            )
        if allowed and value not in allowed:
            names = ", ".join(t.NAME for t in allowed)
            raise fail(
                True, f"data type {value.NAME} is not allowed for {name!r} (allowed: {names})"
            )
        return value
    if kind == "bool":
        if not isinstance(value, (bool, np.bool_)):
            raise fail(True, f"attribute {name!r} must be a bool, got {value!r}")
        return bool(value)
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise fail(True, f"attribute {name!r} must be an int, got {value!r}")
        value = int(value)
        if not INT64_MIN <= value <= INT64_MAX:
            raise fail(False, f"attribute {name!r} is {value}, out of range for int64")
        return value
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
            raise fail(True, f"attribute {name!r} must be a float, got {value!r}")
        try:
            return float(value)
        except OverflowError:
            raise fail(False, f"attribute {name!r} is {value}, out of range for a float") from None
    if kind == "shape":
        if isinstance(value, Shape):
            return value
        if isinstance(value, Iterable) and not isinstance(value, (str, bytes)):
            dims = list(value)
            if all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in dims):
                try:
                    return Shape.fromIterable(dims)
                except IllegalArgumentError as e:
                    raise fail(False, f"attribute {name!r}: {e}") from None
        unknown = (
            "; an unknown dimension is -1, as in Shape.of(-1, 3) (TF Python's None)"
            if isinstance(value, (list, tuple)) and None in value
            else ""
        )
        raise fail(
            True,
            f"attribute {name!r} must be a Shape or a sequence of int sizes, got {value!r}"
            + unknown,
        )
    if kind == "tensor":
        if not isinstance(value, np.ndarray):
            raise fail(True, f"attribute {name!r} must be a numpy array")
        return value
    if kind == "string":
        if not isinstance(value, str):
            raise fail(True, f"attribute {name!r} must be a str, got {value!r}")
        return value
    if kind == "list(int)":
        if (
            isinstance(value, (int, np.integer))
            or not isinstance(value, Iterable)
            or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in value)
        ):
            raise fail(True, f"attribute {name!r} must be a list of ints, got {value!r}")
        ints = tuple(int(v) for v in value)
        for v in ints:
            if not INT64_MIN <= v <= INT64_MAX:
                raise fail(False, f"attribute {name!r} holds {v}, out of range for int64")
        return ints
    return value


def dataTypeHint(value: object) -> str:
    """``; give TFloat32``: the tfops data type for a numpy or Python dtype given in its place."""
    if value is None or isinstance(value, (bool, int, float)):
        return ""
    try:
        found = dataTypeOf(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return ""
    return f"; give {found.__name__} (from tfops.types), the data type of numpy's {found.DTYPE}"
