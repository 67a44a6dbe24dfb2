"""A gradient checker: the symbolic Jacobian against central finite differences.

For users writing their own ops and gradients, and for tfops' own tests.

Example:
    >>> g = Graph(); tf = Ops.create(g)
    >>> x = tf.placeholder(TFloat64)
    >>> y = tf.math.mul(tf.math.square(x), x)
    >>> check = computeGradientError(y, [x], {x: np.array([1.0, -2.0])})
    >>> check.maxError < 1e-6
    True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
from attrs import frozen

from tfops.backend import Backend
from tfops.errors import IllegalArgumentError
from tfops.graph import Graph
from tfops.op.core import Gradients, Placeholder
from tfops.output import Operand
from tfops.session import Session
from tfops.types import TType

# the data types of y, of the xs and of the feeds (Operand is invariant in its type)
_TY = TypeVar("_TY", bound=TType)
_TX = TypeVar("_TX", bound=TType)
_TF = TypeVar("_TF", bound=TType)

__all__ = ["GradientCheck", "computeGradientError", "assertGradientsClose"]

Array = np.ndarray[Any, Any]


@frozen
class GradientCheck:
    """The outcome of a gradient check.

    Attributes:
        theoretical: per ``x``, the Jacobian from the gradient generator, of shape
            ``(y.size, x.size)``.
        numerical: per ``x``, the Jacobian from central finite differences.
        maxError: the largest absolute difference between the two over every element.
        worst: ``(x index, y element, x element)`` where ``maxError`` occurs, or ``None``.
    """

    theoretical: list[Array]
    numerical: list[Array]
    maxError: float
    worst: tuple[int, int, int] | None

    def describe(self) -> str:
        """A sentence naming the worst element and both values there."""
        if self.worst is None:
            return "no elements to compare"
        i, row, col = self.worst
        return (
            f"max error {self.maxError:.3g} at x[{i}] element {col}, y element {row}: "
            f"symbolic {self.theoretical[i][row, col]!r}, numerical {self.numerical[i][row, col]!r}"
        )


def computeGradientError(
    y: Operand[_TY],
    xs: Sequence[Operand[_TX]],
    values: Mapping[Operand[_TX], object],
    feeds: Mapping[Operand[_TF], object] | None = None,
    delta: float = 1e-6,
    backend: str | Backend = "numpy",
) -> GradientCheck:
    """Compares ``d y / d x`` from :class:`~tfops.op.core.Gradients` with finite differences.

    Args:
        y: the output to differentiate (any shape).
        xs: the outputs to differentiate with respect to; each is fed its value from ``values``.
        values: the point at which to compare, one array per ``x`` (use float64).
        feeds: other values the graph needs (placeholders that are not ``x``).
        delta: the finite-difference step.
        backend: the backend both Jacobians are computed on.

    Returns:
        the two Jacobians per ``x`` and the worst difference between them.
    """
    yOut = y.asOutput()
    xOuts = [x.asOutput() for x in xs]
    graph: Graph = yOut.op().graph()
    base = {k.asOutput(): np.asarray(v) for k, v in (feeds or {}).items()}
    point = [np.array(values[x], dtype=xo.dataType().DTYPE) for x, xo in zip(xs, xOuts,
                                                                           strict=True)]
    if any(p.dtype.kind != "f" for p in point):
        raise IllegalArgumentError("gradients are checked at floating point values only")
    scope = graph.baseScope().withSubScope("gradient_check")
    session = Session(graph, backend=backend)

    def evaluate(at: list[Array]) -> Array:
        runner = session.runner()
        for k, v in base.items():
            runner.feed(k, v)
        for xo, v in zip(xOuts, at, strict=True):
            runner.feed(xo, v)
        return np.asarray(runner.fetch(yOut).run()[0], dtype=np.float64)

    y0 = evaluate(point)
    dy = Placeholder.create(scope, yOut.dataType(), Placeholder.shape(yOut.shape()))
    grads = Gradients.create(scope, yOut, xOuts, Gradients.dx([dy]))

    theoretical = [np.zeros((y0.size, p.size)) for p in point]
    for row in range(y0.size):
        seed = np.zeros(y0.size, dtype=yOut.dataType().DTYPE)
        seed[row] = 1
        runner = session.runner().feed(dy, seed.reshape(y0.shape))
        for k, v in base.items():
            runner.feed(k, v)
        for xo, v in zip(xOuts, point, strict=True):
            runner.feed(xo, v)
        fetched = [i for i, d in enumerate(grads) if d is not None]
        for i in fetched:
            d = grads.dy(i)
            assert d is not None
            runner.fetch(d)
        if fetched:
            for i, value in zip(fetched, runner.run(), strict=True):
                theoretical[i][row] = np.asarray(value, dtype=np.float64).reshape(-1)

    numerical = [np.zeros((y0.size, p.size)) for p in point]
    for i, p in enumerate(point):
        for col in range(p.size):
            plus, minus = [q.copy() for q in point], [q.copy() for q in point]
            plus[i].reshape(-1)[col] += delta
            minus[i].reshape(-1)[col] -= delta
            numerical[i][:, col] = ((evaluate(plus) - evaluate(minus)) / (2 * delta)).reshape(-1)

    maxError, worst = 0.0, None
    for i, (t, n) in enumerate(zip(theoretical, numerical, strict=True)):
        if t.size == 0:
            continue
        diff = np.abs(t - n)
        diff[np.isnan(t) != np.isnan(n)] = np.inf
        diff[np.isnan(t) & np.isnan(n)] = 0.0
        where = np.unravel_index(int(np.argmax(diff)), diff.shape)
        if worst is None or diff[where] > maxError:
            maxError, worst = float(diff[where]), (i, int(where[0]), int(where[1]))
    session.close()
    return GradientCheck(theoretical, numerical, maxError, worst)


def assertGradientsClose(
    y: Operand[_TY],
    xs: Sequence[Operand[_TX]],
    values: Mapping[Operand[_TX], object],
    feeds: Mapping[Operand[_TF], object] | None = None,
    tolerance: float = 1e-6,
    backend: str | Backend = "numpy",
) -> GradientCheck:
    """Raises ``AssertionError`` naming the worst element when the Jacobians differ by more
    than ``tolerance`` (relative to the largest Jacobian entry, or absolute below 1).

    Returns:
        the check, for further inspection.
    """
    check = computeGradientError(y, xs, values, feeds, backend=backend)
    scale = max([1.0] + [float(np.max(np.abs(t))) for t in check.theoretical if t.size])
    if not check.maxError <= tolerance * scale:
        raise AssertionError(f"gradient check failed: {check.describe()}")
    return check

