"""Errors raised by tfops.

Every error derives from :class:`TfopsError` and from the builtin exception TensorFlow Python uses
for the same case, so ``except TfopsError`` and ``except ValueError`` both work.

Example:
    >>> from tfops.errors import IllegalArgumentError, TfopsError
    >>> issubclass(IllegalArgumentError, ValueError), issubclass(IllegalArgumentError, TfopsError)
    (True, True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tfops.operation import Operation

__all__ = [
    "TfopsError",
    "IllegalArgumentError",
    "DataTypeError",
    "NoGradientError",
    "IllegalStateError",
    "IndexOutOfBoundsError",
    "OpError",
    "InvalidArgumentError",
    "FailedPreconditionError",
    "ResourceExhaustedError",
    "InternalError",
    "UnimplementedError",
    "MissingDependencyError",
]


class TfopsError(Exception):
    """Base of every error raised by tfops."""


class IllegalArgumentError(TfopsError, ValueError):
    """An invalid argument at graph construction: a bad name, incompatible shapes, a foreign
    operand, a ``dx`` list of the wrong length."""


class DataTypeError(TfopsError, TypeError):
    """A data type that an op does not accept, or two inputs whose data types disagree."""


class NoGradientError(TfopsError, LookupError):
    """An op on the path from ``y`` to ``x`` has no gradient registered."""


class MissingDependencyError(TfopsError, ImportError):
    """An optional dependency a feature needs is not installed (the message names the extra
    that installs it)."""


class IllegalStateError(TfopsError, RuntimeError):
    """A closed graph or session was used."""


class IndexOutOfBoundsError(TfopsError, IndexError):
    """A position out of range: ``Result.get(5)`` on a run that fetched fewer values."""


class OpError(TfopsError):
    """An error while running an op; ``op`` is the failing :class:`~tfops.Operation`.

    The message names the op and the file:line where the user's code created it.
    """

    def __init__(self, op: Operation | None, message: str) -> None:
        self.op = op
        self.message = message
        where = ""
        if op is not None:
            where = f" [op '{op.name()}' of type {op.type()}, created at {op.creationSite()}]"
        super().__init__(message + where)


class InvalidArgumentError(OpError):
    """A run-time argument is invalid: an unfed placeholder, a feed of the wrong shape or dtype,
    integer division by zero."""


class FailedPreconditionError(OpError):
    """The system is not in a state the op needs (for example a variable read before
    initialisation)."""


class ResourceExhaustedError(OpError):
    """A run needs more memory than allowed."""


class InternalError(OpError):
    """A kernel failed in a way no other error describes."""


class UnimplementedError(OpError):
    """An op that the session's backend cannot run (raised when a request is compiled)."""
