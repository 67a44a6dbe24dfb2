"""Neural network composites (``tf.nn``): dropout, as TensorFlow Python's ``tf.nn.dropout``
(TensorFlow Java has no dropout endpoint)."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Generic, cast, final

from scope import Scope
from tfops.composite._endpoint import composite
from tfops.errors import DataTypeError
from tfops.op._typevars import TF, TF2, TI, TF_co
from tfops.op.core import Constant, Select, Shape
from tfops.op.dtypes import Cast
from tfops.op.math import GreaterEqual, Mul, RealDiv, Sub
from tfops.op.random import RandomUniform
from tfops.operation import Operation
from tfops.output import Operand, Output, PrimitiveOp
from tfops.types import TensorValue, TFloating, TIntegral

__all__ = ["Dropout"]

# TensorFlow's seed for the graph when an op has a seed and the graph has none
_DEFAULT_GRAPH_SEED = 87654321


@composite("nn")
@final
class Dropout(PrimitiveOp, Generic[TF_co]):
    """Computes dropout: randomly sets elements to zero to prevent overfitting (TensorFlow
    Python's ``tf.nn.dropout``).

    Each element of ``x`` is kept with probability ``1 - rate`` and scaled by
    ``1 / (1 - rate)``, so the expected sum is unchanged; the others become 0. A uniform
    number in ``[0, 1)`` is drawn per element of ``noiseShape`` (by default ``x``'s shape)
    and the element kept where it is at least ``rate``; a ``noiseShape`` that broadcasts to
    ``x`` (a 1 where ``x`` has more) keeps or drops whole slices together. The graph holds,
    under the sub-scope ``Dropout``, TensorFlow's ops: ``Mul`` (or ``RealDiv`` for a tensor
    rate), ``RandomUniform``, ``GreaterEqual`` and ``SelectV2``; with a Python ``rate`` of 0
    it holds none and the result is ``x``. The gradient is the incoming gradient scaled
    where kept and 0 elsewhere. The random numbers are tfops' own (see the random ops), not
    TensorFlow's; a ``seed`` makes them reproducible.

    Example:
        >>> g = Graph(); tf = Ops.create(g)
        >>> y = tf.nn.dropout(tf.ones([2, 4], TFloat32), 0.5, noiseShape=[2, 1], seed=1)
        >>> kept = Session(g).runner().fetch(y).run()[0]
        >>> sorted(set(kept.ravel().tolist())) in ([0.0], [2.0], [0.0, 2.0])
        True
        >>> bool((kept == kept[:, :1]).all())  # each row kept or dropped as a whole
        True
    """

    __slots__ = ("_output",)

    def __init__(self, operation: Operation, output: Output[TF_co]) -> None:
        super().__init__(operation)
        self._output = output

    def asOutput(self) -> Output[TF_co]:
        """Returns the symbolic handle of the result."""
        return self._output

    @staticmethod
    def create(
        scope: Scope,
        x: Operand[TF] | TensorValue,
        rate: float | Operand[TF2],
        noiseShape: Sequence[int | None] | Operand[TI] | None = None,
        seed: int | None = None,
    ) -> Dropout[TF]:
        """Computes dropout: keeps each element with probability ``1 - rate``, scaled by
        ``1 / (1 - rate)``, and sets the others to 0.

        Args:
            scope: current scope.
            x: a floating point tensor.
            rate: the probability that each element is dropped, a Python number in
                ``[0, 1)`` or a scalar floating point tensor (cast to ``x``'s type).
            noiseShape: the shape of the keep/drop decisions, which must broadcast to
                ``x``'s shape; ``None`` entries take ``x``'s dimension. By default ``x``'s
                shape.
            seed: seeds the random numbers (reproducible); by default they are fresh in
                each session.

        Returns:
            a new instance of Dropout.

        Raises:
            TypeError: ``x`` or a tensor ``rate`` is not floating point.
            ValueError: ``rate`` is a number outside ``[0, 1)``, a tensor ``rate`` is not a
                scalar, or ``noiseShape`` does not fit ``x``.
        """
        isNumber = isinstance(rate, numbers.Real)
        if isNumber and not 0 <= cast(float, rate) < 1:
            raise ValueError(f"Dropout: rate must be a scalar tensor or a number in [0, 1), "
                             f"got {rate!r}")
        inner = scope.withSubScope("Dropout")
        value = _floating(inner, x)
        dtype = value.dataType()
        if isNumber and rate == 0:
            return Dropout(value.op(), value)  # TensorFlow's fast path: x itself
        if isNumber:
            scale = Constant.scalarOf(inner, 1 / (1 - cast(float, rate)), dtype)
            scaled: Output[TF] = Mul.create(inner, value, scale).asOutput()
            threshold: Operand[TF] = Constant.scalarOf(inner, cast(float, rate), dtype)
        else:
            threshold = _rateTensor(inner, cast("Operand[TFloating]", rate), dtype)
            one = Constant.scalarOf(inner, 1, dtype)
            scaled = RealDiv.create(inner, value, Sub.create(inner, one, threshold)).asOutput()
        shape = _noiseShape(inner, value, noiseShape)
        options = {} if seed is None else {"seed": _DEFAULT_GRAPH_SEED, "seed2": seed}
        uniform = RandomUniform.create(inner, shape, dtype, **options)
        keep = GreaterEqual.create(inner, uniform, threshold)
        zero = Constant.scalarOf(inner, 0, dtype)
        result = Select.create(inner, keep, scaled, zero)
        out = result.asOutput()
        if not out.shape().isCompatibleWith(value.shape()):
            raise ValueError(f"Dropout: noiseShape broadcast with x gives the shape "
                             f"{out.shape()}, not the shape of x {value.shape()}")
        return Dropout(result.op(), out)


def _floating(scope: Scope, x: Operand[TF] | TensorValue) -> Output[TF]:
    if isinstance(x, Operand):
        value = x.asOutput()
    else:
        value = cast("Output[TF]", Constant.create(scope, x).asOutput())
    if not issubclass(value.dataType(), TFloating):
        raise DataTypeError(f"Dropout: x must be a floating point tensor, got "
                            f"{value.dataType().NAME}")
    return value


def _rateTensor(scope: Scope, rate: Operand[TFloating], dtype: type[TF]) -> Operand[TF]:
    out = rate.asOutput()
    if not issubclass(out.dataType(), TFloating):
        raise DataTypeError(f"Dropout: rate must be floating point, got {out.dataType().NAME}")
    if out.shape().numDimensions() not in (-1, 0):
        raise ValueError(f"Dropout: rate must be a scalar, got a tensor of shape {out.shape()}")
    if out.dataType() is dtype:
        return cast("Operand[TF]", out)
    return Cast.create(scope.withName("rate"), out, dtype)


def _noiseShape(
    scope: Scope, x: Output[TF], noiseShape: Sequence[int | None] | Operand[TI] | None
) -> Operand[TIntegral] | list[int]:
    """``x``'s shape by default; ``None`` entries of a given shape filled from ``x``'s."""
    # some integer type (Operand is invariant in it, the casts widen it to the family)
    if noiseShape is None:
        return cast("Operand[TIntegral]", Shape.create(scope, x))
    if isinstance(noiseShape, Operand):
        return cast("Operand[TIntegral]", noiseShape)
    dims = x.shape().asArray()
    filled: list[int] = []
    for i, d in enumerate(noiseShape):
        if d is None:
            if dims is None or len(dims) != len(noiseShape) or dims[i] < 0:
                raise ValueError(f"Dropout: noiseShape {list(noiseShape)} has None at {i}, "
                                 f"which the shape of x {x.shape()} does not tell")
            d = dims[i]
        filled.append(int(d))
    return filled
