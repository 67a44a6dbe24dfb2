"""What the op test tables share: data type families, tolerances, and checks of one behaviour
each (a kernel against numpy, a gradient against finite differences, a rejected construction
that names the op and leaves the graph as it was)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Session, Shape, testing
from tfops.op.core import Placeholder
from tfops.output import Operand
from tfops.testing import GradientCheck
from tfops.types import (
    TBool,
    TFloat16,
    TFloat32,
    TFloat64,
    TInt32,
    TInt64,
    TType,
    TUint8,
)

Array = np.ndarray[Any, Any]

BACKEND = os.environ.get("TFOPS_TEST_BACKEND", "numpy")
"""The backend :func:`run` and :func:`assertGradient` run on (``TFOPS_TEST_BACKEND``)."""

FLOATS: tuple[type[TType], ...] = (TFloat16, TFloat32, TFloat64)
INTEGERS: tuple[type[TType], ...] = (TInt32, TInt64, TUint8)
SIGNED_INTEGERS: tuple[type[TType], ...] = (TInt32, TInt64)
NUMBERS: tuple[type[TType], ...] = FLOATS + INTEGERS
ALL: tuple[type[TType], ...] = NUMBERS + (TBool,)

RTOL: dict[type[TType], float] = {TFloat16: 1e-3, TFloat32: 1e-6, TFloat64: 1e-12}
"""Relative tolerance of a kernel against numpy, by data type (exact for integers and bools)."""


def rtol(dtype: type[TType]) -> float:
    """The tolerance of ``dtype`` (0 for integers and bools: they must be exact)."""
    return RTOL.get(dtype, 0.0)


def placeholder(tf: Ops, dtype: type[TType], shape: Shape | Sequence[int] | None = None) -> Any:
    """A placeholder of ``dtype`` and ``shape`` (unknown when ``None``)."""
    if shape is None:
        return tf.placeholder(dtype)
    if not isinstance(shape, Shape):
        shape = Shape.of(*shape)
    return tf.placeholder(dtype, Placeholder.shape(shape))


def run(graph: Graph, *fetches: Operand[Any], feeds: dict[Any, Any] | None = None) -> Any:
    """The fetched values in a new session (one array for one fetch)."""
    with Session(graph, backend=BACKEND) as s:
        runner = s.runner()
        for k, v in (feeds or {}).items():
            runner.feed(k, v)
        for f in fetches:
            runner.fetch(f)
        values = [np.asarray(v) for v in runner.run()]
    return values[0] if len(values) == 1 else values


def assertMatches(got: Array, expected: Array, dtype: type[TType]) -> None:
    """``got`` has ``expected``'s shape, ``dtype``'s numpy dtype and values (nan where nan)."""
    got = np.asarray(got)
    assert got.dtype == dtype.DTYPE, f"dtype {got.dtype}, expected {dtype.DTYPE}"
    assert got.shape == np.shape(expected), f"shape {got.shape}, expected {np.shape(expected)}"
    tolerance = rtol(dtype)
    if tolerance:
        np.testing.assert_allclose(got, np.asarray(expected, dtype.DTYPE), rtol=tolerance,
                                   atol=tolerance, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, np.asarray(expected, dtype.DTYPE))


def assertGradient(
    tf: Ops, build: Callable[..., Operand[Any]], values: Sequence[Array],
    shapes: Sequence[Shape | None] | None = None, tolerance: float = 1e-6,
) -> None:
    """``build(*placeholders)``'s symbolic gradient matches finite differences (float64) at
    ``values``; ``shapes`` gives the placeholders' static shapes (default: the values')."""
    xs = [
        placeholder(tf, TFloat64, Shape.of(*np.shape(v)) if shapes is None else shapes[i])
        for i, v in enumerate(values)
    ]
    y = build(*xs)
    assertGradientsClose(y, xs, {x: np.asarray(v, np.float64) for x, v in zip(xs, values,
                                                                              strict=True)},
                         tolerance=tolerance)


def assertGradientsClose(
    y: Operand[Any], xs: Sequence[Operand[Any]], values: Any, feeds: Any = None,
    tolerance: float = 1e-6,
) -> GradientCheck:
    """``tfops.testing.assertGradientsClose`` on the backend the tables run on."""
    return testing.assertGradientsClose(y, xs, values, feeds, tolerance, backend=BACKEND)


def assertRejected(
    graph: Graph, create: Callable[[], object], error: type[Exception], *fragments: str
) -> str:
    """``create()`` raises ``error`` whose message holds every fragment (the op's name, where the
    user created it: the caller passes what its message must say), and the graph keeps exactly
    the ops it had; returns the message."""
    before = [op.name() for op in graph.operations()]
    with pytest.raises(error) as info:
        create()
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in {message!r}"
    assert [op.name() for op in graph.operations()] == before
    return message
