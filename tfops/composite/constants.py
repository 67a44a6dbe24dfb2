"""Constant helpers: TF Java's ``tf.array`` (``Constant.arrayOf``: a vector of the elements
given). ``tf.constant(Shape)`` is an overload of ``Constant.create`` itself."""

from __future__ import annotations

from tfops.composite._endpoint import composite
from tfops.op.core import Constant

__all__ = ["Constant"]

# TF Java's ``Ops.array(data...)`` calls ``Constant.arrayOf(scope, data...)``
composite("core", arrayOf="array")(Constant)
