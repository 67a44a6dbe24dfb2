"""The op specs and their gradient rules, one module per family; importing this package
registers them (their order is the order of the generated classes)."""

from tfops.opdef import OpDef, registeredOps
from tfops.spec import (
    array,
    array_reduce,
    core,
    dtypes,
    indexing,
    indexing_gather,
    indexing_join,
    indexing_slice,
    linalg,
    math,
    math_axis,
    math_binary,
    math_unary,
    nn,
    nn_losses,
    random,
    shapes,
    state,
)

__all__ = [
    "array",
    "array_reduce",
    "builtinOps",
    "core",
    "dtypes",
    "indexing",
    "indexing_gather",
    "indexing_join",
    "indexing_slice",
    "linalg",
    "math",
    "math_axis",
    "math_binary",
    "math_unary",
    "nn",
    "nn_losses",
    "random",
    "shapes",
    "state",
]

_BUILTIN = tuple(registeredOps())


def builtinOps() -> list[OpDef]:
    """The ops defined by tfops itself (not those a user registers), in registration order."""
    return list(_BUILTIN)
