"""``Gradients``: the op class that adds the gradient generator's ops to a graph."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Generic, Literal, cast, final, overload

from attrs import frozen

from scope import Scope
from tfops.errors import IllegalArgumentError
from tfops.gradients import addGradients
from tfops.graph import Graph
from tfops.op._typevars import T2, T, T_co
from tfops.output import AnyOperand, Operand, Output
from tfops.types import TType

__all__ = ["Gradients"]


def _outputs(what: str, operands: object) -> list[Output[TType]]:
    if hasattr(operands, "asOutput"):
        operands = [operands]
    if not isinstance(operands, (list, tuple)):
        raise IllegalArgumentError(f"Gradients: {what} must be an operand or a list of operands")
    outs = []
    for o in operands:
        asOutput = getattr(o, "asOutput", None)
        if asOutput is None:
            raise IllegalArgumentError(f"Gradients: {what} element {o!r} is not an Operand")
        outs.append(asOutput())
    return outs


@final
class Gradients(Generic[T_co]):
    """Adds operations to compute the partial derivatives of sum of ``y`` w.r.t. ``x``.

    The gradient generator works as TensorFlow's: it adds ops to the graph that compute the
    derivatives of ``y`` by recursively finding the inputs that contributed to it, so the
    gradients are themselves graph tensors (they can be run, inspected and differentiated
    again). ``StopGradient`` and other non-differentiable ops mask their inputs. For an ``x``
    that no ``y`` depends on, ``dy(i)`` is ``None``, or zeros with
    ``Gradients.unconnectedGradients("zero")``. Gradient ops are named under
    ``scope.makeOpName("Gradients")``.

    Example:
        >>> g = Graph(); tf = Ops.create(g)
        >>> x = tf.constant(3.0)
        >>> y0 = tf.math.square(x)
        >>> y1 = tf.math.square(y0)
        >>> grads = tf.withSubScope("sub").gradients(y1, [x, y0])
        >>> grads.dy(0).op().name().startswith("sub/Gradients/")
        True
        >>> [float(v) for v in Session(g).runner().fetch(grads.dy(0)).fetch(grads.dy(1)).run()]
        [108.0, 18.0]
    """

    @frozen
    class Options:
        """Optional attributes for :class:`Gradients`."""

        dx: Sequence[Output[TType]] | None = None
        unconnectedGradients: Literal["none", "zero"] | None = None

    def __init__(self, dy: list[Output[T_co] | None]) -> None:
        self._dy = dy

    @overload
    @staticmethod
    def create(
        scope: Scope,
        y: Operand[T2] | Sequence[Operand[T2]],
        x: Sequence[Operand[T]],
        *options: Gradients.Options,
    ) -> Gradients[T]: ...

    @overload
    @staticmethod
    def create(
        scope: Scope,
        y: AnyOperand | Sequence[AnyOperand],
        x: Sequence[AnyOperand],
        *options: Gradients.Options,
    ) -> Gradients[TType]: ...

    @staticmethod
    def create(
        scope: Scope,
        y: Operand[T2] | Sequence[Operand[T2]] | AnyOperand | Sequence[AnyOperand],
        x: Sequence[Operand[T]] | Sequence[AnyOperand],
        *options: Gradients.Options,
    ) -> Gradients[T] | Gradients[TType]:
        """Adds gradients computation ops to the graph according to scope.

        The result is a ``Gradients[T]`` for ``x`` of one data type ``T``; for ``x`` of
        several, a ``Gradients[TType]``.

        Args:
            scope: current graph scope.
            y: output(s) of the function to derive; the sum of several is derived.
            x: inputs of the function for which partial derivatives are computed.
            options: carries optional attributes values (``dx``, ``unconnectedGradients``).

        Returns:
            a new instance of Gradients.

        Raises:
            ValueError: ``dx`` has the wrong length or shape, an operand is from another graph.
            LookupError: an op on a path from ``y`` to ``x`` has no gradient registered.
        """
        graph = scope.env()
        if not isinstance(graph, Graph):
            raise IllegalArgumentError("Gradients: the scope's environment is not a tfops Graph")
        ys, xs = _outputs("y", y), _outputs("x", x)
        dx: list[Output[TType]] | None = None
        unconnected: Literal["none", "zero"] = "none"
        for option in options:
            if not isinstance(option, Gradients.Options):
                raise IllegalArgumentError(f"Gradients: {option!r} is not a Gradients option")
            if option.dx is not None:
                dx = list(option.dx)
            if option.unconnectedGradients is not None:
                unconnected = option.unconnectedGradients
        with graph._transaction():
            prefix = scope.makeOpName("Gradients")
            dy = addGradients(graph, prefix, ys, xs, dx, unconnected)
            return Gradients(cast("list[Output[T] | None]", dy))  # each has its x's type

    @staticmethod
    def dx(dx: Sequence[Operand[T]] | Sequence[AnyOperand]) -> Gradients.Options:
        """Sets the initial gradients of ``y`` (one per ``y``; by default ones).

        Args:
            dx: partial derivatives of some loss function ``L`` w.r.t. ``y``.

        Returns:
            this Options instance.
        """
        return Gradients.Options(dx=_outputs("dx", list(dx)))

    @staticmethod
    def unconnectedGradients(mode: Literal["none", "zero"]) -> Gradients.Options:
        """Sets what an ``x`` that no ``y`` depends on gets: ``"none"`` or ``"zero"``.

        Args:
            mode: ``"none"`` (the default, as TensorFlow) or ``"zero"``.

        Returns:
            this Options instance.
        """
        if mode not in ("none", "zero"):
            raise IllegalArgumentError(
                f"Gradients: unconnectedGradients must be 'none' or 'zero', got {mode!r}"
            )
        return Gradients.Options(unconnectedGradients=mode)

    @overload
    def dy(self) -> list[Output[T_co] | None]: ...

    @overload
    def dy(self, index: int) -> Output[T_co]: ...

    def dy(self, index: int | None = None) -> list[Output[T_co] | None] | Output[T_co]:
        """Returns the partial derivatives (all, or the ``index``-th), ``None`` where unconnected.

        Each has its ``x``'s data type. ``dy(index)`` is typed ``Output[T]``, as TF Java's
        ``dy(index)`` is an ``Output``: the ``None`` of an ``x`` that no ``y`` depends on (without
        ``Gradients.unconnectedGradients("zero")``) is left out of its type, so that the
        common case, a connected ``x``, needs no narrowing; ``dy()`` lists them typed with
        ``None``, for a caller that checks.
        """
        if index is None:
            return list(self._dy)
        return cast("Output[T_co]", self._dy[index])

    def __iter__(self) -> Iterator[Output[T_co]]:
        """The partial derivatives in the order of ``x``, typed as ``dy(index)`` is."""
        return iter(cast("list[Output[T_co]]", self._dy))

    def __len__(self) -> int:
        return len(self._dy)

    def __repr__(self) -> str:
        names = ", ".join("None" if d is None else d.name() for d in self._dy)
        return f"<Gradients [{names}]>"
