"""The XLA lowerings of every built-in op, one module per family of specs (``tfops.spec``);
importing this package registers them."""

from tfops.backend.xla.lowerings import (
    array,
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
