"""AUC: the area under the ROC or precision-recall curve, from confusion counts per
threshold."""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Any, TypeVar

import numpy as np

from tfops.errors import DataTypeError, IllegalArgumentError
from tfops.framework.initializers._base import building
from tfops.framework.metrics._base import Metric, broadcasts, squeezeOrExpand
from tfops.op.core import NoOp, Variable
from tfops.ops import Ops
from tfops.output import Output, PrimitiveOp
from tfops.types import TBool, TFloat32, TFloating

__all__ = ["AUC", "AUCCurve", "AUCSummationMethod"]

E = TypeVar("E", bound=Enum)

_EPSILON = 1e-7
"""Keras' ``backend.epsilon()``: the first and last thresholds are ``-eps`` and ``1 + eps``."""


class AUCCurve(Enum):
    """The curve whose area ``AUC`` computes."""

    ROC = "ROC"
    """The receiver operating characteristic: recall over false positive rate."""
    PR = "PR"
    """Precision over recall."""


class AUCSummationMethod(Enum):
    """How ``AUC`` sums the area between thresholds."""

    INTERPOLATION = "INTERPOLATION"
    """Trapezoids (ROC); for PR, Davis and Goadrich's interpolation of precision."""
    MAJORING = "MAJORING"
    """Rectangles of the larger of the two heights."""
    MINORING = "MINORING"
    """Rectangles of the smaller of the two heights."""


class AUC(Metric):
    """The area under the ROC or PR curve (TF Java's and Keras' ``AUC``, one label).

    Each update counts, for every threshold ``t``, the (weighted) true positives, false
    positives, true negatives and false negatives of the batch, a prediction ``p`` being
    positive when ``p > t``; the result is the area under the curve those counts trace.
    ``numThresholds`` thresholds are spread evenly over [0, 1] (the first a little below 0, the
    last a little above 1, as Keras'), or given (``thresholds``, in [0, 1]). With evenly spread
    thresholds the predictions are clipped to [0, 1] first, as Keras does. Labels are 0 or 1
    (any non-zero label is positive); predictions are probabilities, of the labels' shape.

    Example:
        >>> from tfops.framework.metrics import AUC
        >>> g = Graph(); tf = Ops.create(g)
        >>> auc = AUC(tf, numThresholds=3)
        >>> s = Session(g); s.run(auc.updateState([0, 0, 1, 1], [0.0, 0.5, 0.3, 0.9]))
        >>> float(s.runner().fetch(auc.result()).run()[0])
        0.75
    """

    DEFAULT_NUM_THRESHOLDS = 200
    DEFAULT_NAME = "auc"
    TRUE_POSITIVES = "TRUE_POSITIVES"
    FALSE_POSITIVES = "FALSE_POSITIVES"
    TRUE_NEGATIVES = "TRUE_NEGATIVES"
    FALSE_NEGATIVES = "FALSE_NEGATIVES"

    def __init__(
        self,
        tf: Ops,
        name: str | None = None,
        numThresholds: int = DEFAULT_NUM_THRESHOLDS,
        curve: AUCCurve = AUCCurve.ROC,
        summationMethod: AUCSummationMethod = AUCSummationMethod.INTERPOLATION,
        thresholds: Sequence[float] | None = None,
        dtype: type[TFloating] = TFloat32,
    ) -> None:
        self._curve = _member("curve", curve, AUCCurve)
        self._summation = _member("summationMethod", summationMethod, AUCSummationMethod)
        inner = self._innerThresholds(numThresholds, thresholds)
        self._numThresholds = len(inner) + 2
        self._thresholds: np.ndarray[Any, Any] = np.array([0.0 - _EPSILON, *inner, 1.0 + _EPSILON])
        even = np.arange(len(inner) + 2, dtype=np.float32) / (len(inner) + 1)
        self._evenly = thresholds is None or (
            len(inner) >= 1 and bool(np.allclose([0.0, *inner, 1.0], even, atol=_EPSILON))
        )
        super().__init__(tf, name, dtype)
        with building(self._graph):
            shape = (self._numThresholds,)
            self._tp = self._addVariable(self.TRUE_POSITIVES, shape)
            self._fp = self._addVariable(self.FALSE_POSITIVES, shape)
            self._tn = self._addVariable(self.TRUE_NEGATIVES, shape)
            self._fn = self._addVariable(self.FALSE_NEGATIVES, shape)

    def defaultName(self) -> str:
        return self.DEFAULT_NAME

    def getNumThresholds(self) -> int:
        """The number of thresholds, the two outer ones included."""
        return self._numThresholds

    def getThresholds(self) -> list[float]:
        """The thresholds, from ``-1e-7`` to ``1 + 1e-7``."""
        return self._thresholds.tolist()  # type: ignore[no-any-return]

    def getCurve(self) -> AUCCurve:
        """The curve whose area is computed."""
        return self._curve

    def getSummationMethod(self) -> AUCSummationMethod:
        """How the area is summed."""
        return self._summation

    def getTruePositives(self) -> Variable[Any]:
        """The true positives per threshold."""
        return self._tp

    def getFalsePositives(self) -> Variable[Any]:
        """The false positives per threshold."""
        return self._fp

    def getTrueNegatives(self) -> Variable[Any]:
        """The true negatives per threshold."""
        return self._tn

    def getFalseNegatives(self) -> Variable[Any]:
        """The false negatives per threshold."""
        return self._fn

    def updateStateList(
        self, labels: Any, predictions: Any, sampleWeights: Any = None
    ) -> list[PrimitiveOp]:
        """The ops that add a batch's confusion counts per threshold.

        Args:
            labels: 0 or 1 per prediction (booleans or numbers).
            predictions: probabilities in [0, 1], of the labels' shape (a trailing dimension
                of 1 on either is squeezed).
            sampleWeights: optional weights, a scalar or one per sample (or per prediction).

        Returns:
            the updates of the four count variables.

        Raises:
            TypeError: an argument is not numbers.
            ValueError: the shapes of ``labels`` and ``predictions`` do not match,
                ``sampleWeights`` does not broadcast to them, or an operand's rank is unknown or
                it belongs to another graph.
        """
        method = "updateState"
        with building(self._graph):
            tf = self._tf.withSubScope(self._name)
            y0 = self._operand(method, "labels", labels, tf)
            p0 = self._operand(method, "predictions", predictions, tf)
            p, y = squeezeOrExpand(tf, self._cast(tf, p0), self._cast(tf, y0))
            if not p.shape().isCompatibleWith(y.shape()):
                raise self._shapesError(method, y0, p0, "give one label per prediction")
            weights = None
            if sampleWeights is not None:
                w = self._cast(tf, self._operand(method, "sampleWeights", sampleWeights, tf))
                w = tf.expandDims(w, tf.constant(-1)).asOutput()
                _, w = squeezeOrExpand(tf, y, w, expandRank1=False)
                if not broadcasts(w.shape(), p.shape()):
                    raise IllegalArgumentError(
                        f"AUC.{method}: sampleWeights of shape {w.shape()} do not broadcast to "
                        f"the predictions' shape {p.shape()}; give one weight per sample (or a "
                        "scalar)"
                    )
                weights = tf.reshape(tf.broadcastTo(w, tf.shape(p)), tf.constant([1, -1]))
            if self._evenly:
                zero, one = self._scalar(tf, 0), self._scalar(tf, 1)
                p = tf.clipByValue(p, zero, one).asOutput()
            row = tf.constant([1, -1])
            predicted = tf.reshape(p, row)
            positive = tf.reshape(tf.dtypes.cast(y, TBool), row)
            column: np.ndarray[Any, Any] = self._thresholds.astype(self._dtype.DTYPE)
            thresholds: Any = tf.constant(column[:, None])
            predPos = tf.math.greater(predicted, thresholds)  # [thresholds, predictions]
            predNeg, negative = tf.math.logicalNot(predPos), tf.math.logicalNot(positive)
            updates: list[PrimitiveOp] = []
            for variable, label, pred in (
                (self._tp, positive, predPos),
                (self._fn, positive, predNeg),
                (self._tn, negative, predNeg),
                (self._fp, negative, predPos),
            ):
                counted: Any = self._cast(tf, tf.math.logicalAnd(label, pred).asOutput())
                if weights is not None:
                    counted = tf.math.mul(counted, weights)
                updates.append(tf.assignAdd(variable, tf.sum(counted, tf.constant(1))))
            return updates

    def updateState(self, labels: Any, predictions: Any, sampleWeights: Any = None) -> NoOp:
        """One op running :meth:`updateStateList`'s updates (TF Java's ``updateState``)."""
        with building(self._graph):
            updates = self.updateStateList(labels, predictions, sampleWeights)
            scope = self._tf.withSubScope(self._name).withName("updateState")
            return scope.withControlDependencies(updates).noOp()

    def result(self) -> Output[Any]:
        with building(self._graph):
            tf = self._tf.withSubScope(self._name)
            m = self._numThresholds - 1
            tp: Any = self._tp.asOutput()
            fp: Any = self._fp.asOutput()
            tn: Any = self._tn.asOutput()
            fn: Any = self._fn.asOutput()
            if self._curve is AUCCurve.PR and self._summation is AUCSummationMethod.INTERPOLATION:
                return self._interpolatePR(tf, tp, fp, fn)
            recall = tf.math.divNoNan(tp, tf.math.add(tp, fn))
            x: Any
            y: Any
            heights: Any
            if self._curve is AUCCurve.ROC:
                x, y = tf.math.divNoNan(fp, tf.math.add(fp, tn)), recall
            else:
                x, y = recall, tf.math.divNoNan(tp, tf.math.add(tp, fp))
            if self._summation is AUCSummationMethod.INTERPOLATION:
                two = self._scalar(tf, 2)
                heights = tf.math.div(tf.math.add(y[:m], y[1:]), two)
            elif self._summation is AUCSummationMethod.MINORING:
                heights = tf.math.minimum(y[:m], y[1:])
            else:
                heights = tf.math.maximum(y[:m], y[1:])
            terms = tf.math.mul(tf.math.sub(x[:m], x[1:]), heights)
            return tf.withName("result").sum(terms, tf.constant(0)).asOutput()

    def _interpolatePR(self, tf: Ops, tp: Any, fp: Any, fn: Any) -> Output[Any]:
        """Davis and Goadrich's interpolation of precision between thresholds (Keras'
        ``interpolate_pr_auc``)."""
        m = self._numThresholds - 1
        zero = self._scalar(tf, 0)
        dtp = tf.math.sub(tp[:m], tp[1:])
        p: Any = tf.math.add(tp, fp)
        dp = tf.math.sub(p[:m], p[1:])
        slope = tf.math.divNoNan(dtp, tf.math.maximum(dp, zero))
        intercept = tf.math.sub(tp[1:], tf.math.mul(slope, p[1:]))
        bothPositive = tf.math.logicalAnd(
            tf.math.greater(p[:m], zero), tf.math.greater(p[1:], zero)
        )
        ratio = tf.select(
            bothPositive, tf.math.divNoNan(p[:m], tf.math.maximum(p[1:], zero)), tf.onesLike(p[1:])
        )
        increment = tf.math.divNoNan(
            tf.math.mul(slope, tf.math.add(dtp, tf.math.mul(intercept, tf.math.log(ratio)))),
            tf.math.maximum(tf.math.add(tp[1:], fn[1:]), zero),
        )
        return tf.withName("result").sum(increment, tf.constant(0)).asOutput()

    @staticmethod
    def _innerThresholds(numThresholds: object, thresholds: object) -> list[float]:
        if thresholds is not None:
            if isinstance(thresholds, (str, bytes)) or not isinstance(
                thresholds, (Sequence, np.ndarray)
            ):
                raise DataTypeError(
                    f"AUC: thresholds must be a list of floats in [0, 1], got "
                    f"{type(thresholds).__name__}"
                )
            values: np.ndarray[Any, Any] = np.asarray(thresholds, np.float64)
            values = values.ravel()
            if not ((values >= 0.0) & (values <= 1.0)).all():
                raise IllegalArgumentError(
                    f"AUC: threshold values must be in [0, 1], got {values.tolist()}"
                )
            return sorted(values.tolist())
        if isinstance(numThresholds, bool) or not isinstance(numThresholds, (int, np.integer)):
            raise DataTypeError(f"AUC: numThresholds must be an int, got {numThresholds!r}")
        if numThresholds <= 1:
            raise IllegalArgumentError(f"AUC: numThresholds must be > 1, got {numThresholds}")
        n = int(numThresholds)  # pyright: ignore[reportUnknownArgumentType]
        return [(i + 1) * 1.0 / (n - 1) for i in range(n - 2)]


def _member(what: str, value: object, enum: type[E]) -> E:
    if isinstance(value, enum):
        return value
    choices = ", ".join(f"{enum.__name__}.{m.name}" for m in enum)
    error = IllegalArgumentError if isinstance(value, str) else DataTypeError
    raise error(f"AUC: unknown {what} {value!r}; give one of {choices}")
