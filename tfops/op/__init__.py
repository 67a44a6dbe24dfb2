"""The op classes by group (``tfops.op.core``, ``tfops.op.math``, ``tfops.op.nn``...), and what an
op author needs to define an op: its spec, its gradient rule, and the shared shape rules.

An op is defined by three entries keyed by its type (``docs/adding_an_op.md``): a spec
(:class:`OpDef`, :func:`registerOp`), a gradient rule (:func:`registerGradient`, receiving the
facade ``tf`` and a :class:`GradOp`) or a :func:`notDifferentiable` mark, and a kernel on every
backend (``tfops.backend.numpy.registerKernel``...).
"""

from tfops.opdef import (
    AttrDef,
    InferContext,
    InputDef,
    OpDef,
    OutputDef,
    lookupOp,
    registeredOps,
    registerOp,
)
from tfops.spec.grad import (
    GradientRule,
    GradOp,
    Grads,
    floating,
    integral,
    lookupGradient,
    notDifferentiable,
    registerGradient,
    sumToShape,
)
from tfops.spec.rules import (
    ANY,
    FLOATS,
    INDEX_TYPES,
    INTEGERS,
    NUMBERS,
    SIGNED,
    broadcast,
    broadcastShape,
    normalizeAxes,
    reductionAxes,
    reductionShape,
    reshapeTarget,
    sameShape,
    shapeValue,
)

__all__ = [
    "ANY",
    "FLOATS",
    "INDEX_TYPES",
    "INTEGERS",
    "NUMBERS",
    "SIGNED",
    "AttrDef",
    "GradOp",
    "GradientRule",
    "Grads",
    "InferContext",
    "InputDef",
    "OpDef",
    "OutputDef",
    "broadcast",
    "broadcastShape",
    "floating",
    "integral",
    "lookupGradient",
    "lookupOp",
    "normalizeAxes",
    "notDifferentiable",
    "reductionAxes",
    "reductionShape",
    "registerGradient",
    "registerOp",
    "registeredOps",
    "reshapeTarget",
    "sameShape",
    "shapeValue",
    "sumToShape",
]
