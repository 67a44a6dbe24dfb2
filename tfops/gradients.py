"""The gradient generator: adds ops computing derivatives to the graph, honouring StopGradient.

The walk is TensorFlow's: find the ops between the ``y``s and the ``x``s (ancestors of a ``y``
through differentiable, floating point edges that descend from an ``x``), then visit them from
the ``y``s backwards, calling each op type's rule (``tfops.spec.grad``) with the summed
gradients of its outputs. An op marked not differentiable (StopGradient, Shape...) propagates
nothing, with no special case here; an op on the way with no registration at all is an error
naming it. Everything is iterative, so deep graphs hit no recursion limit.

Rules build through the op facade (``tf``), under ``<prefix>/<op name>_grad``. For an
elementwise op the walker itself sums each gradient back to its input's shape (a rule returns
gradients of the op's result shape). A gradient for an input that leads to no ``x`` is dropped,
with the ops made only for it, so the gradient graph holds no dead branches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, TypeVar, cast

from scope import Scope
from tfops.errors import DataTypeError, IllegalArgumentError, InternalError, NoGradientError
from tfops.graph import Graph
from tfops.operation import Operation
from tfops.output import Output
from tfops.spec.grad import GradOp, broadcastsInto, floating, lookupGradient, sumToShape
from tfops.types import TFloating, TType

if TYPE_CHECKING:
    from tfops.ops import Ops

__all__ = ["addGradients"]


def _facade(scope: Scope) -> Ops:
    # An upward call: rules are written against the op facade, a layer above this generator
    # (the facade's Gradients op calls it). Imported at first use, when both layers are loaded.
    from tfops.ops import Ops

    return Ops(scope)


def _differentiable(t: Output[TType]) -> bool:
    return issubclass(t.dataType(), TFloating)


def _toInputShape(
    tf: Ops, op: Operation, grad: Output[TFloating], x: Output[TType]
) -> Output[TFloating]:
    """A gradient of an elementwise op's result, summed back to the shape of its input ``x``."""
    if grad.shape() == x.shape() and grad.shape().isFullyKnown():
        return grad
    if all(broadcastsInto(i, x) for i in op._inputs if i != x):
        return grad  # x has the shape of the op's result
    return sumToShape(tf, grad, x)


def _between(ys: Sequence[Output[TType]], xs: Sequence[Output[TType]]) -> list[Operation]:
    """Ops on a differentiable path from some x to some y, in reverse creation order."""
    reachesY: set[Operation] = set()
    stack = [y.op() for y in ys]
    while stack:
        op = stack.pop()
        if op in reachesY:
            continue
        reachesY.add(op)
        registered, rule = lookupGradient(op.type())
        if registered and rule is None:
            continue  # not differentiable: its inputs are masked from the generator
        stack.extend(i.op() for i in op.inputs() if _differentiable(i))
    # From the consumers of the xs: an x's own op needs no gradient unless another x reaches it.
    found: set[Operation] = set()
    stack = [c for x in xs for c in x.consumers() if c in reachesY]
    while stack:
        op = stack.pop()
        if op in found:
            continue
        found.add(op)
        for consumer in op.consumers():
            if consumer in reachesY and consumer not in found:
                stack.append(consumer)
    return sorted(found, key=lambda o: o._id, reverse=True)


_TY = TypeVar("_TY", bound=TType)
_TX = TypeVar("_TX", bound=TType)


def _erased(out: Output[TFloating]) -> Output[TType]:
    """``out`` where an output of any data type is expected (``Output`` is invariant in it)."""
    return cast("Output[TType]", out)


def _sum(tf: Ops, grads: list[Output[TFloating]]) -> Output[TFloating]:
    if len(grads) == 1:
        return grads[0]
    return tf.math.addN(grads).asOutput()


def _opScope(base: Scope, op: Operation) -> Scope:
    """Where the gradient ops of ``op`` go: ``<prefix>/<op name>_grad``, as TensorFlow does."""
    path, _, name = op.name().rpartition("/")
    scope = base._atPrefix(f"{base.prefix()}/{path}") if path else base
    return scope.withSubScope(name + "_grad")


def addGradients(
    graph: Graph,
    prefix: str | None,
    y: Sequence[Output[_TY]],
    x: Sequence[Output[_TX]],
    dx: Sequence[Output[_TY]] | None = None,
    unconnected: Literal["none", "zero"] = "none",
) -> list[Output[_TX] | None]:
    """Adds the ops computing ``d(sum(y))/dx`` for each ``x``; see :meth:`Graph.addGradients`.

    Each gradient has its ``x``'s data type."""
    # the walk holds outputs of any data type (Output is invariant in it)
    grads = _addGradients(
        graph, prefix, cast("Sequence[Output[TType]]", y), cast("Sequence[Output[TType]]", x),
        cast("Sequence[Output[TType]] | None", dx), unconnected)
    return cast("list[Output[_TX] | None]", grads)


def _addGradients(
    graph: Graph,
    prefix: str | None,
    y: Sequence[Output[TType]],
    x: Sequence[Output[TType]],
    dx: Sequence[Output[TType]] | None,
    unconnected: Literal["none", "zero"],
) -> list[Output[TType] | None]:
    with graph._transaction():
        for t in [*y, *x, *(dx or ())]:
            if t.op().graph() is not graph:
                raise IllegalArgumentError(
                    f"'{t.name()}' belongs to another graph than the one gradients are added to"
                )
        if dx is not None and len(dx) != len(y):
            raise IllegalArgumentError(
                f"dx must have one initial gradient per y: got {len(dx)} for {len(y)} y(s) "
                f"({', '.join(repr(t.name()) for t in y)})"
            )
        base = graph.baseScope()
        if prefix is None:
            prefix = base.makeUnique("gradients")
        else:
            head, _, last = prefix.rpartition("/")
            if graph.operation(prefix) is not None or any(
                op.name().startswith(prefix + "/") for op in graph.operations()
            ):
                raise IllegalArgumentError(f"gradient prefix '{prefix}' is already used")
            if not graph.nameRegistry().isTaken(head, last):
                graph.nameRegistry().makeUnique(head, last)
        tf = _facade(base._atPrefix(prefix))
        grads = _seeds(tf, y, dx)
        _backward(graph, tf, grads, _between(y, x), set(x))

        result: list[Output[TType] | None] = []
        for out in x:
            if out in grads and _differentiable(out):
                grads[out] = [_sum(tf, grads[out])]
                result.append(_erased(grads[out][0]))
            elif unconnected == "zero":
                result.append(tf.zerosLike(out).asOutput())
            else:
                result.append(None)
        return result


def _seeds(
    tf: Ops, y: Sequence[Output[TType]], dx: Sequence[Output[TType]] | None
) -> dict[Output[TType], list[Output[TFloating]]]:
    """The initial gradient of each ``y``: its ``dx``, or ones."""
    grads: dict[Output[TType], list[Output[TFloating]]] = {}
    for i, out in enumerate(y):
        if dx is not None:
            seed = dx[i]
            if not seed.shape().isCompatibleWith(out.shape()):
                raise IllegalArgumentError(
                    f"dx[{i}] has shape {seed.shape()}, incompatible with y[{i}] "
                    f"'{out.name()}' of shape {out.shape()}"
                )
            if seed.dataType() is not out.dataType():
                raise DataTypeError(
                    f"dx[{i}] has data type {seed.dataType().NAME}, y[{i}] "
                    f"'{out.name()}' has {out.dataType().NAME}"
                )
        else:
            seed = tf.onesLike(out).asOutput()
        if _differentiable(out):  # as in TensorFlow, integer ys pass no gradient
            grads.setdefault(out, []).append(floating(seed))
    return grads


def _backward(
    graph: Graph,
    tf: Ops,
    grads: dict[Output[TType], list[Output[TFloating]]],
    between: list[Operation],
    xs: set[Output[TType]],
) -> None:
    """Visits ``between`` from the ys backwards, adding to ``grads`` each input's gradients."""
    onPath = set(between)
    scope = tf.scope()
    for op in between:
        outGrads: list[Output[TFloating] | None] = []
        for o in op._outs:
            if o in grads:
                grads[o] = [_sum(tf, grads[o])]
                outGrads.append(grads[o][0])
            else:
                outGrads.append(None)
        if all(g is None for g in outGrads) or not op._inputs:
            continue
        registered, rule = lookupGradient(op._type)
        if not registered:
            raise NoGradientError(
                f"no gradient is registered for op type {op.type()} (op '{op.name()}', "
                f"created at {op.creationSite()}); register one with "
                "tfops.op.registerGradient or mark it tfops.op.notDifferentiable"
            )
        if rule is None:
            continue
        opTf = _facade(_opScope(scope, op))
        # TensorFlow gives a rule zeros for the differentiable outputs nothing reached, and
        # None for the others (integer outputs: TopKV2's indices)
        given: list[Output[TFloating] | None] = [
            g if g is not None
            else opTf.zerosLike(floating(o)).asOutput() if _differentiable(o) else None
            for g, o in zip(outGrads, op._outs, strict=True)
        ]
        needed = frozenset(
            k for k, i in enumerate(op._inputs)
            if (i in xs or i._op in onPath) and _differentiable(i)
        )
        mark = graph.size()
        view = GradOp(op, given, needed)
        inGrads = rule(opTf, view, given[0] if given[0] is not None else view.grad(0))
        if len(inGrads) != len(op._inputs):
            raise InternalError(
                op, f"gradient rule returned {len(inGrads)} value(s) for "
                f"{len(op._inputs)} input(s)"
            )
        kept: list[Output[TType]] = []
        dropped = False
        for k, (inp, g) in enumerate(zip(op._inputs, inGrads, strict=True)):
            if g is None:
                continue
            if k not in needed:
                dropped = True
                continue
            out = cast("Output[TFloating]", g.asOutput())  # a rule's gradients are floats
            if op._opdef.elementwise:
                out = _toInputShape(opTf, op, out, inp)
            if not out.shape().isCompatibleWith(inp.shape()):
                raise InternalError(
                    op, f"gradient for input '{inp.name()}' has shape {out.shape()}, "
                    f"expected {inp.shape()}"
                )
            grads.setdefault(inp, []).append(out)
            kept.append(_erased(out))
        if dropped and graph.size() > mark:
            graph._removeUnused(mark, kept)
