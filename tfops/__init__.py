"""tfops: TensorFlow's Java op API for Python.

Typed, builder-style construction of dataflow graphs (``Scope``, ``Ops``, op classes with a
static ``create``), run by a ``Session`` on a backend (the embedded numpy executor by default),
with a symbolic gradient generator that honours ``StopGradient`` (``Gradients``).

Example:
    >>> from tfops import Graph, Ops, Session
    >>> with Graph() as g, Session(g) as s:
    ...     tf = Ops.create(g)
    ...     x = tf.constant([1000.0, 1001.0, 1002.0])
    ...     z = tf.math.sub(x, tf.stopGradient(tf.max(x, 0)))
    ...     e = tf.math.exp(z)
    ...     p = tf.math.div(e, tf.sum(e, 0))
    ...     s.runner().fetch(p).run()[0].round(4).tolist()
    [0.09, 0.2447, 0.6652]
"""

from tfops import errors, summary, types
from tfops.builder import OperationBuilder
from tfops.eager import EagerSession
from tfops.explain import GradientReport, explainGradient
from tfops.graph import Graph
from tfops.op import _operators  # noqa: F401 - installs the Python operators
from tfops.operation import Operation
from tfops.ops import Ops
from tfops.output import Operand, Output, PrimitiveOp
from tfops.session import Result, Runner, Session
from tfops.shape import Shape

__version__ = "0.1.0"
"""The version of tfops (the ``tfops-java`` distribution)."""

__all__ = [
    "__version__",
    "Graph",
    "Operation",
    "Output",
    "Operand",
    "PrimitiveOp",
    "OperationBuilder",
    "Session",
    "EagerSession",
    "Runner",
    "Result",
    "Shape",
    "Ops",
    "explainGradient",
    "GradientReport",
    "errors",
    "summary",
    "types",
]
