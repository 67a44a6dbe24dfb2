"""Backends: the engines a ``Session`` runs a graph on (``Session(graph, backend=...)``).

``"numpy"`` (:class:`NumpyBackend`, the embedded default) needs nothing beyond numpy;
``"xla"`` (``tfops.backend.xla.XlaBackend``) compiles with XLA through JAX, from the optional
extra ``tfops[xla]``. A :class:`Backend` object may be given instead of a name, e.g.
``NumpyBackend(NumpyOptions(...))`` or ``XlaBackend(devices=[...])``.
Every backend gives the same results within floating point tolerance, raises the same
``tfops.errors`` classes and honours the same Session API; an op a backend cannot run raises
``UnimplementedError`` naming the op and the backend when a request is compiled.
"""

from __future__ import annotations

from tfops.backend.base import DEFAULT_MEMORY_LIMIT, Backend, Executor, Request, SessionConfig
from tfops.backend.numpy import NumpyBackend, NumpyOptions
from tfops.errors import IllegalArgumentError, MissingDependencyError

__all__ = [
    "DEFAULT_MEMORY_LIMIT",
    "Backend",
    "Executor",
    "NumpyBackend",
    "NumpyOptions",
    "Request",
    "SessionConfig",
    "backendNames",
    "resolveBackend",
]

_DEFAULT = NumpyBackend()


def backendNames() -> tuple[str, ...]:
    """The names ``Session(backend=...)`` accepts."""
    return ("numpy", "xla")


def _xla() -> Backend:
    try:
        # JAX is an optional dependency (the xla extra): its backend is imported when a session
        # first asks for it, so that numpy users never load it.
        from tfops.backend.xla import XlaBackend
    except ImportError as e:
        raise MissingDependencyError(
            f"the xla backend needs JAX, which is not installed ({e}): install the extra, "
            "pip install 'tfops[xla]', or run on the default numpy backend"
        ) from e
    global _XLA
    if _XLA is None:
        _XLA = XlaBackend()
    return _XLA


_XLA: Backend | None = None


def resolveBackend(backend: str | Backend) -> Backend:
    """The backend a ``Session`` was asked for, by name or as an object.

    Raises:
        ValueError: an unknown name, or an object that is not a :class:`Backend`.
    """
    if isinstance(backend, str):
        if backend == "numpy":
            return _DEFAULT
        if backend == "xla":
            return _xla()
        raise IllegalArgumentError(
            f"unknown backend {backend!r}; the backends are {', '.join(backendNames())}, "
            "or a tfops.backend.Backend object"
        )
    if not isinstance(backend, Backend):
        raise IllegalArgumentError(
            f"backend must be a name ({', '.join(backendNames())}) or a tfops.backend.Backend "
            f"object, got {backend!r}"
        )
    return backend
