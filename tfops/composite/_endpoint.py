"""The registry of composite endpoints: hand-written static methods that the ``Ops`` facade
exposes beside the generated op methods (TensorFlow Java's ``@Endpoint``)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from attrs import frozen

__all__ = ["Endpoint", "composite", "registeredEndpoints"]

C = TypeVar("C", bound=type[Any])


@frozen
class Endpoint:
    """One facade method: ``tf.<group>.<name>(...)`` calls ``owner.<method>(scope, ...)``."""

    owner: type[Any]
    method: str
    group: str
    name: str

    def function(self) -> Callable[..., Any]:
        """The static method the facade calls."""
        fn: Callable[..., Any] = getattr(self.owner, self.method)
        return fn


_ENDPOINTS: list[Endpoint] = []


def composite(group: str, **names: str) -> Callable[[C], C]:
    """Registers a hand-written class's static methods as endpoints of the ``Ops`` facade.

    ``@composite("core")`` exposes ``create`` as ``tf.<lowerCamelClassName>``;
    ``@composite("shape", flatten="flatten", size="size")`` exposes each named static method
    under the facade name given. Each method takes the ``Scope`` first; the facade method has
    the remaining parameters, overloads and docstring of the method, as written. Each runs as
    one construction step: if an op it builds is rejected, the graph keeps none of them.

    Args:
        group: the facade group (``"core"`` for methods of ``Ops`` itself).
        names: method name -> facade name; by default ``create`` -> the class name in
            lowerCamelCase.

    Returns:
        the decorator, which returns the class unchanged.
    """

    def register(cls: C) -> C:
        table = names or {"create": cls.__name__[0].lower() + cls.__name__[1:]}
        for method, name in table.items():
            fn = vars(cls).get(method)
            if not isinstance(fn, staticmethod):
                raise TypeError(f"{cls.__name__}.{method} is not a static method")
            setattr(cls, method, staticmethod(_atomic(fn.__func__)))
            _ENDPOINTS.append(Endpoint(cls, method, group, name))
        return cls

    return register


def _atomic(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(scope, ...)`` as one construction step of the scope's graph: if any of the ops it
    builds is rejected, none stays, and no other thread sees a part of it (its errors name
    where the user called it)."""

    @functools.wraps(fn)
    def atomic(scope: Any, *args: Any, **kwargs: Any) -> Any:
        transaction = getattr(scope.env(), "_transaction", None)
        if transaction is None:
            return fn(scope, *args, **kwargs)
        with transaction():
            return fn(scope, *args, **kwargs)

    return atomic


def registeredEndpoints() -> list[Endpoint]:
    """Every registered endpoint, in registration order."""
    return list(_ENDPOINTS)
