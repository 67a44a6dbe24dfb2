"""``Session.freeze``: a ``GraphDef`` for serving, variables replaced by their values."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from tfops.errors import IllegalArgumentError
from tfops.interop._proto import protos
from tfops.interop.attrs import attrToProto
from tfops.interop.graphdef import nodeDefOf, serialize
from tfops.operation import Operation

if TYPE_CHECKING:
    from tfops.output import AnyOperand
    from tfops.session import Session

__all__ = ["freezeSession"]


def _isVariable(op: Operation) -> bool:
    """A variable: an op without inputs whose output is a reference to its state."""
    outputs = op._opdef.outputs
    return bool(outputs) and outputs[0].isRef and not op.inputs()


def freezeSession(
    session: Session, fetches: Sequence[AnyOperand | str] | AnyOperand | str
) -> bytes:
    """The serialized ``GraphDef`` of the ops ``fetches`` need, each variable a ``Const`` of
    its value in ``session`` (TensorFlow's ``convert_variables_to_constants``); no
    initializers."""
    listed = [fetches] if isinstance(fetches, str) or not isinstance(fetches, Sequence) else fetches
    if not listed:
        raise IllegalArgumentError("freeze needs at least one fetch (the outputs to serve)")
    runner = session.runner()
    outputs = [runner._resolve(f) for f in listed]
    needed = _needed([o.op() for o in outputs])
    writers = [op for op in needed if op._refInputs()]
    if writers:
        op = writers[0]
        raise IllegalArgumentError(
            f"the fetches need {op.type()} '{op.name()}' (created at {op.creationSite()}), "
            "which writes a variable; a frozen graph has no variables: freeze the outputs that "
            "serving computes (the predictions), not a training step"
        )
    ordered = [op for op in session.graph().operations() if op in needed]
    variables = [op for op in ordered if _isVariable(op)]
    values: dict[Operation, np.ndarray[Any, Any]] = {}
    if variables:
        reader = session.runner()
        for v in variables:
            reader.fetch(v.output(0))
        values = dict(zip(variables, reader.run(), strict=True))
    nodes = [_constantOf(op, values[op]) if op in values else nodeDefOf(op) for op in ordered]
    return serialize(nodes, [])


def _needed(ops: list[Operation]) -> set[Operation]:
    """``ops`` and every op they read or wait for."""
    needed: set[Operation] = set()
    stack = list(ops)
    while stack:
        op = stack.pop()
        if op in needed:
            continue
        needed.add(op)
        stack.extend(i.op() for i in op.inputs())
        stack.extend(op.controlInputs())
    return needed


def _constantOf(variable: Operation, value: np.ndarray[Any, Any]) -> Any:
    """The ``Const`` node that stands for ``variable`` (same name, device, control inputs)."""
    node = protos().NodeDef()
    node.name = variable.name()
    node.op = "Const"
    node.input.extend(f"^{c.name()}" for c in variable.controlInputs())
    node.device = variable.device()
    node.attr["dtype"].CopyFrom(attrToProto("type", variable.output(0).dataType()))
    node.attr["value"].CopyFrom(attrToProto("tensor", value))
    return node
