"""How a loss reduces its per-sample values to what ``call`` returns."""

from __future__ import annotations

from enum import Enum
from typing import cast

from tfops.errors import DataTypeError, IllegalArgumentError

__all__ = ["Reduction", "checkReduction"]


class Reduction(Enum):
    """The reduction of a loss's weighted per-sample values (TensorFlow Java's ``Reduction``).

    - ``SUM_OVER_BATCH_SIZE`` (the default): their sum divided by their number (0 when there
      are none), a scalar;
    - ``SUM``: their sum, a scalar;
    - ``NONE``: the weighted values themselves, one per sample.

    Example:
        >>> Reduction.ofName("sum") is Reduction.SUM
        True
    """

    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"
    SUM = "sum"
    NONE = "none"

    @staticmethod
    def ofName(name: str) -> Reduction:
        """The reduction named ``name``, in any case (``"SUM"``, ``"sum_over_batch_size"``).

        Raises:
            ValueError: no reduction has that name.
        """
        key = cast(object, name)  # callers may pass anything
        found = _BY_NAME.get(key.lower()) if isinstance(key, str) else None
        if found is None:
            raise IllegalArgumentError(f"unknown reduction {name!r}; {_CHOICES}")
        return found


_BY_NAME = {r.value: r for r in Reduction}
_CHOICES = (
    "use Reduction.SUM_OVER_BATCH_SIZE (the default), Reduction.SUM or Reduction.NONE "
    "(from tfops.framework.losses import Reduction)"
)


def checkReduction(owner: str, reduction: object) -> Reduction:
    """``reduction`` (a :class:`Reduction` or its name) as a Reduction, or an error naming
    ``owner`` and the choices."""
    if isinstance(reduction, Reduction):
        return reduction
    if isinstance(reduction, str):
        found = _BY_NAME.get(reduction.lower())
        if found is None:
            raise IllegalArgumentError(f"{owner}: unknown reduction {reduction!r}; {_CHOICES}")
        return found
    raise DataTypeError(
        f"{owner}: reduction must be a Reduction, got "
        f"{type(reduction).__name__} {reduction!r}; {_CHOICES}"
    )
