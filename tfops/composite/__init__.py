"""Composite ops: hand-written classes whose ``create`` builds a small graph of primitive ops,
as TensorFlow Java's ``Zeros``, ``BooleanMask`` or ``Shapes``.

They are not op types (a graph holds only their primitive ops, named under a sub-scope), so
they have no spec, kernel or gradient rule of their own: they run on every backend and
differentiate through their parts. Each is registered with :func:`composite`, which makes its
static methods methods of the ``Ops`` facade (``tf.zeros``) and entries of the op reference.
"""

from tfops.composite import constants, mask, nn, shapes
from tfops.composite._endpoint import Endpoint, composite, registeredEndpoints
from tfops.composite.array import Ones, Zeros

__all__ = [
    "Endpoint",
    "Ones",
    "Zeros",
    "composite",
    "constants",
    "mask",
    "nn",
    "registeredEndpoints",
    "shapes",
]
