"""The gradient table: one rule per op type, or a mark that the op passes no gradient.

A rule is a function ``rule(tf, op, g)`` of the op facade ``tf`` (an :class:`~tfops.Ops` whose
ops go under ``gradients/<op name>_grad``), a :class:`GradOp` view of the forward op and ``g``,
the gradient of its first output. It returns one entry per input of the op: the gradient
(an operand) or ``None`` where none flows. Written against the facade, a rule reads like the
math, and is differentiable again::

    @registerGradient("Mul")
    def _mulGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
        return [tf.math.mul(g, op.x(1)), tf.math.mul(op.x(0), g)]

For an elementwise op (``OpDef.elementwise``) the rule returns gradients of the shape of the
op's result; the generator sums each back to its input's shape. The generator drops what a
rule returns for an input that leads to no ``x`` (:meth:`GradOp.needs` says which do).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar, cast, final

import numpy as np

from tfops.errors import DataTypeError, IllegalArgumentError
from tfops.operation import Operation
from tfops.output import Operand, Output
from tfops.shape import Shape
from tfops.types import TFloat16, TFloat32, TFloat64, TFloating, TIntegral, TType

if TYPE_CHECKING:  # rules receive the facade; they never import it
    from tfops.ops import Ops

__all__ = [
    "GradOp",
    "Grads",
    "GradientRule",
    "broadcastsInto",
    "floating",
    "integral",
    "lookupGradient",
    "notDifferentiable",
    "registerGradient",
    "sumToShape",
]

Grads: TypeAlias = Sequence[
    "Operand[TFloating] | Operand[TFloat16] | Operand[TFloat32] | Operand[TFloat64] | None"
]
"""What a rule returns: one gradient (or ``None``) per input of the op."""

GradientRule: TypeAlias = Callable[["Ops", "GradOp", "Output[TFloating]"], Grads]
"""A gradient rule: ``rule(tf, op, g) -> one gradient or None per input``."""


@final
class GradOp:
    """A gradient rule's view of the forward op: its inputs, outputs, attributes, and the
    gradients of its outputs.

    Inputs and outputs that gradients flow through are floating point: :meth:`x` and :meth:`y`
    give them typed so; :meth:`ints` gives an integer input (axes, shapes, indices).
    """

    __slots__ = ("_op", "_grads", "_needed")

    def __init__(
        self, op: Operation, grads: Sequence[Output[TFloating] | None], needed: frozenset[int]
    ) -> None:
        self._op = op
        self._grads = grads
        self._needed = needed

    def x(self, i: int = 0) -> Output[TFloating]:
        """The ``i``-th input, a floating point tensor."""
        return cast("Output[TFloating]", self._op._inputs[i])

    def y(self, i: int = 0) -> Output[TFloating]:
        """The ``i``-th output, a floating point tensor."""
        return cast("Output[TFloating]", self._op._outs[i])

    def ints(self, i: int) -> Output[TIntegral]:
        """The ``i``-th input, an integer tensor (axes, shapes, indices)."""
        return cast("Output[TIntegral]", self._op._inputs[i])

    def input(self, i: int) -> Output[TType]:
        """The ``i``-th input, of whatever data type."""
        return self._op._inputs[i]

    def output(self, i: int) -> Output[TType]:
        """The ``i``-th output, of whatever data type."""
        return self._op._outs[i]

    def grad(self, i: int = 0) -> Output[TFloating]:
        """The gradient of the ``i``-th output (zeros where nothing reached it, as
        TensorFlow gives a rule of an op with several outputs).

        Raises:
            TypeError: the output is not differentiable (an integer or bool tensor, such as
                TopKV2's indices): as in TensorFlow, it has no gradient, not even zeros.
        """
        g = self._grads[i]
        if g is None:
            raise DataTypeError(
                f"output {i} of {self._op.type()} '{self._op.name()}' is of type "
                f"{self._op._outs[i].dataType().NAME} and has no gradient: a rule reads only "
                "the gradients of floating point outputs"
            )
        return g

    def grads(self) -> list[Output[TFloating]]:
        """The gradients of every output, in order (each as :meth:`grad` gives it)."""
        return [self.grad(i) for i in range(len(self._grads))]

    def attr(self, name: str) -> Any:
        """The value of attribute ``name`` (TensorFlow's attribute names)."""
        return self._op.attr(name)

    def shape(self, i: int = 0) -> Shape:
        """The static shape of the ``i``-th input."""
        return self._op._inputs[i].shape()

    def numInputs(self) -> int:
        """The number of data inputs."""
        return len(self._op._inputs)

    def needs(self, i: int) -> bool:
        """Whether the ``i``-th input leads to an ``x``: what the rule returns for the others
        is dropped, so a rule may build nothing for them."""
        return i in self._needed

    def operation(self) -> Operation:
        """The forward operation itself."""
        return self._op

    def __repr__(self) -> str:
        return f"<GradOp of {self._op!r}>"


_RULES: dict[str, GradientRule | None] = {}
_LOCK = threading.Lock()


def _register(opType: str, rule: GradientRule | None) -> None:
    with _LOCK:
        if opType in _RULES:
            raise IllegalArgumentError(f"op type {opType!r} already has a gradient registered")
        _RULES[opType] = rule


def registerGradient(opType: str) -> Callable[[GradientRule], GradientRule]:
    """Decorator registering the gradient rule of ``opType`` (as TF's ``RegisterGradient``).

    Raises:
        ValueError: ``opType`` already has a rule or a not-differentiable mark.
    """

    def register(rule: GradientRule) -> GradientRule:
        _register(opType, rule)
        return rule

    return register


def notDifferentiable(*opTypes: str) -> None:
    """Declares that ``opTypes`` pass no gradient (as ``tf.no_gradient``): the generator treats
    their outputs as constants.

    Raises:
        ValueError: one of ``opTypes`` already has a rule or a mark.
    """
    for t in opTypes:
        _register(t, None)


def lookupGradient(opType: str) -> tuple[bool, GradientRule | None]:
    """``(registered, rule)``: ``rule`` is ``None`` for an op marked not differentiable."""
    if opType not in _RULES:
        return False, None
    return True, _RULES[opType]


_T = TypeVar("_T", bound=TType)  # an output of any data type (Output is invariant in it)


def floating(t: Output[_T]) -> Output[TFloating]:
    """``t`` typed as floating point (gradients flow only through floats).

    Raises:
        TypeError: ``t`` is not floating point.
    """
    if not issubclass(t.dataType(), TFloating):
        raise DataTypeError(f"'{t.name()}' is {t.dataType().NAME}, not floating point")
    return cast("Output[TFloating]", t)


def integral(t: Output[_T]) -> Output[TIntegral]:
    """``t`` typed as an integer tensor (axes, shapes).

    Raises:
        TypeError: ``t`` is not an integer tensor.
    """
    if not issubclass(t.dataType(), TIntegral):
        raise DataTypeError(f"'{t.name()}' is {t.dataType().NAME}, not an integer type")
    return cast("Output[TIntegral]", t)


def sumToShape(tf: Ops, grad: Output[TFloating], x: Output[_T]) -> Output[TFloating]:
    """Sums ``grad`` (of a shape ``x`` broadcasts to) back to the shape of ``x``.

    With static shapes the summed axes are known now; otherwise ``BroadcastGradientArgs`` finds
    them when the graph runs.
    """
    gs, xs = grad.shape(), x.shape()
    if gs == xs and gs.isFullyKnown():
        return grad
    gd, xd = gs.asArray(), xs.asArray()
    if gd is not None and xd is not None and gs.isFullyKnown() and xs.isFullyKnown():
        lead = len(gd) - len(xd)
        axes = [i for i in range(len(gd)) if i < lead or (xd[i - lead] == 1 and gd[i] != 1)]
        summed = tf.sum(grad, np.array(axes, np.int32)).asOutput() if axes else grad
        if summed.shape() == xs:
            return summed
        return tf.reshape(summed, np.array(xd, np.int32)).asOutput()
    xShape = tf.shape(x)
    reduced = tf.broadcastGradientArgs(xShape, tf.shape(grad)).r0()
    return tf.reshape(tf.sum(grad, reduced), xShape).asOutput()


def broadcastsInto(other: Output[TType], x: Output[TType]) -> bool:
    """Whether broadcasting ``other`` against ``x`` surely leaves ``x``'s shape unchanged: it
    is a scalar, or has ones only and no more dimensions than ``x``."""
    dims = other.shape().asArray()
    if dims is None:
        return False
    if not dims:
        return True
    rank = x.shape().numDimensions()
    return rank >= len(dims) and all(d == 1 for d in dims)
