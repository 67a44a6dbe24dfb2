"""Variables created with their initial value, and the init op (TensorFlow Java's helpers)."""

from __future__ import annotations

from typing import TypeVar, cast

from scope import Scope
from tfops.errors import IllegalArgumentError
from tfops.graph import Graph
from tfops.op._build import TensorValue, toOperand
from tfops.op.core import Assign, NoOp, Variable
from tfops.output import Operand
from tfops.types import TType

__all__ = ["variableWithInit", "initOp"]

T = TypeVar("T", bound=TType)


def _graph(scope: Scope) -> Graph:
    env = scope.env()
    if not isinstance(env, Graph):
        raise IllegalArgumentError("variables need a tfops Graph")
    return env


def variableWithInit(scope: Scope, init: Operand[T] | TensorValue) -> Variable[T]:
    """Creates a variable of ``init``'s shape and type, initialized to ``init``.

    The variable and the ``Assign`` that initializes it are built in the init scope (as TF
    Java's ``Ops.variable(init)``): a session runs the assign before its first run that follows
    (or at ``session.initialize()``, or when ``tf.init()`` runs).

    Raises:
        ValueError: ``init`` does not have a fully known shape.
    """
    graph = _graph(scope)
    with graph._transaction():
        value = cast("Operand[T]", toOperand(scope, init, what="the variable's initial value"))
        out = value.asOutput()
        if not out.shape().isFullyKnown():
            raise IllegalArgumentError(
                f"a variable's initial value needs a fully known shape, '{out.name()}' has "
                f"shape {out.shape()}"
            )
        initScope = scope.withInitScope()
        variable = Variable.create(initScope, out.shape(), out.dataType())
        Assign.create(initScope._atPrefix(scope.prefix()), variable, value)
        return variable


def initOp(scope: Scope) -> NoOp:
    """A ``NoOp`` (named ``init`` unless the scope names it) that runs every initializer
    registered so far. It is not an initializer itself: running it runs them again."""
    graph = _graph(scope)
    named = scope if scope._opName is not None else scope.withName("init")
    with graph._transaction():
        builder = named.opBuilder(NoOp.OP_NAME, "init")
        for op in graph._initTargets(graph.initializers()):
            builder.addControlInput(op)
        return NoOp(builder.build())
