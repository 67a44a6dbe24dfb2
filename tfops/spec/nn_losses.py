"""Neural network ops (``tfops.op.nn``), continued: the softmax family and the losses.

Every softmax kernel subtracts the row maximum before exponentiating, so large logits neither
overflow nor lose the result; half precision is computed in single precision and rounded once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, registerGradient, sumToShape
from tfops.spec.rules import FLOATS, INDEX_TYPES, broadcast
from tfops.types import TFloating, TInt64

if TYPE_CHECKING:
    from tfops.ops import Ops


def _logitsShape(ctx: InferContext) -> Sequence[Shape]:
    if ctx.shapes[0].numDimensions() == 0:
        raise ctx.error("logits must have 1 or more dimensions, got a scalar")
    return [ctx.shapes[0]]


_LOGITS = (InputDef("logits", "a tensor of rank 1 or more, a row of logits per entry of all "
                    "but the last dimension", typeAttr="T"),)
_T_FLOAT = AttrDef("T", "type", allowed=FLOATS)

registerOp(
    OpDef(
        type="Softmax",
        group="nn",
        summary="Computes softmax activations.",
        description=(
            "For each row ``i`` (every index of all but the last dimension),\n"
            "``softmax[i, j] = exp(logits[i, j]) / sum_k(exp(logits[i, k]))``. The row maximum\n"
            "is subtracted first, so large logits do not overflow."
        ),
        inputs=_LOGITS,
        outputs=(OutputDef("softmax", "the probabilities, of the shape of ``logits``",
                           typeAttr="T"),),
        attrs=(_T_FLOAT,),
        infer=_logitsShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> y = tf.nn.softmax(tf.constant([[1000.0, 1000.0], [0.0, np.log(3.0)]]))\n"
            ">>> Session(g).runner().fetch(y).run()[0].tolist()\n"
            "[[0.5, 0.5], [0.25, 0.75]]"
        ),
    )
)


@registerGradient("Softmax")
def _softmaxGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [softmaxBackprop(tf, g, op.y())]


def softmaxBackprop(
    tf: Ops, g: Output[TFloating], softmax: Output[TFloating]
) -> Output[TFloating]:
    """``(g - sum(g * softmax, -1, keepdims)) * softmax``: ``g`` through a softmax backwards."""
    dot = tf.sum(tf.math.mul(g, softmax), -1, keepDims=True)
    return tf.math.mul(tf.math.sub(g, dot), softmax).asOutput()


registerOp(
    OpDef(
        type="LogSoftmax",
        group="nn",
        summary="Computes log softmax activations.",
        description=(
            "For each row ``i`` (every index of all but the last dimension),\n"
            "``logsoftmax[i, j] = logits[i, j] - log(sum_k(exp(logits[i, k])))``, computed\n"
            "after subtracting the row maximum, so it stays finite for large logits."
        ),
        inputs=_LOGITS,
        outputs=(OutputDef("logsoftmax", "the log-probabilities, of the shape of ``logits``",
                           typeAttr="T"),),
        attrs=(_T_FLOAT,),
        infer=_logitsShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> y = tf.nn.logSoftmax(tf.constant([1000.0, 1000.0]))\n"
            ">>> Session(g).runner().fetch(y).run()[0].tolist()\n"
            "[-0.6931, -0.6931]"
        ),
    )
)


@registerGradient("LogSoftmax")
def _logSoftmaxGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    total = tf.sum(g, -1, keepDims=True)
    softmax = tf.math.exp(op.y())
    return [tf.math.sub(g, tf.math.mul(total, softmax))]


# -- cross entropies -----------------------------------------------------------------------
def _matrix(ctx: InferContext, i: int, name: str) -> Shape:
    shape = ctx.shapes[i]
    if shape.numDimensions() not in (-1, 2):
        raise ctx.error(f"{name} must be a matrix [batch_size, num_classes], got shape {shape}")
    return Shape.of(-1, -1) if shape.isUnknown() else shape


def _crossEntropyShape(ctx: InferContext) -> Sequence[Shape]:
    shape = broadcast(ctx, _matrix(ctx, 0, "features"), _matrix(ctx, 1, "labels"))
    return [Shape.of(shape.size(0)), shape]


_CROSS_ENTROPY_OUTPUTS = (
    OutputDef("loss", "the loss per example, a vector of length batch_size", typeAttr="T"),
    OutputDef("backprop", "the gradient of the loss with respect to the features, "
              "``softmax(features) - labels``", typeAttr="T"),
)

registerOp(
    OpDef(
        type="SoftmaxCrossEntropyWithLogits",
        group="nn",
        summary="Computes softmax cross entropy cost and gradients to backpropagate.",
        description=(
            "For each example ``i`` of the batch,\n"
            "``loss[i] = -sum_j(labels[i, j] * log_softmax(features)[i, j])`` and\n"
            "``backprop[i] = softmax(features[i]) - labels[i]``. Each row of ``labels`` is a\n"
            "probability distribution over the classes. ``features`` and ``labels`` are\n"
            "matrices ``[batch_size, num_classes]`` that broadcast against each other. The log\n"
            "softmax is computed stably. The gradient with respect to ``labels`` is\n"
            "``-log_softmax(features)`` times the loss's gradient, as in TensorFlow, minus the\n"
            "gradient reaching ``backprop`` (which is ``softmax - labels``): TensorFlow leaves\n"
            "that term out, so its second derivatives through the labels are wrong; tfops keeps\n"
            "it on purpose."
        ),
        inputs=(
            InputDef("features", "the logits, a matrix [batch_size, num_classes]", typeAttr="T"),
            InputDef("labels", "the target distributions, a matrix [batch_size, num_classes]",
                     typeAttr="T"),
        ),
        outputs=_CROSS_ENTROPY_OUTPUTS,
        attrs=(_T_FLOAT,),
        infer=_crossEntropyShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> x = tf.nn.softmaxCrossEntropyWithLogits(tf.constant([[0.0, 0.0]]),\n"
            "...                                         tf.constant([[1.0, 0.0]]))\n"
            ">>> r = Session(g).runner().fetch(x.loss()).fetch(x.backprop()).run()\n"
            ">>> r[0].tolist(), r[1].tolist()\n"
            "([0.6931], [[-0.5, 0.5]])"
        ),
    )
)


def _featuresGrad(tf: Ops, op: GradOp) -> Output[TFloating]:
    """The gradient of a cross entropy op for its features, as TensorFlow's.

    ``g_loss`` scales ``backprop``; a gradient reaching ``backprop`` itself goes back through
    the softmax (skipped when it is the zeros the generator fills in for an unreached output).
    """
    gLoss, gBackprop = op.grad(0), op.grad(1)
    grad = tf.math.mul(tf.expandDims(gLoss, -1), op.y(1)).asOutput()
    if gBackprop.op().type() == "ZerosLike":
        return grad
    softmax = tf.nn.softmax(op.x(0)).asOutput()
    return tf.math.add(grad, softmaxBackprop(tf, gBackprop, softmax)).asOutput()


@registerGradient("SoftmaxCrossEntropyWithLogits")
def _softmaxCrossEntropyWithLogitsGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    features, labels = op.x(0), op.x(1)
    featuresGrad = sumToShape(tf, _featuresGrad(tf, op), features) if op.needs(0) else None
    if not op.needs(1):
        return [featuresGrad, None]
    gLoss, gBackprop = op.grad(0), op.grad(1)
    negLogp = tf.math.neg(tf.nn.logSoftmax(features))
    labelsGrad = tf.math.mul(tf.expandDims(gLoss, -1), negLogp).asOutput()
    if gBackprop.op().type() != "ZerosLike":
        # backprop = softmax - labels; TensorFlow drops this term, which second derivatives
        # through the labels need
        labelsGrad = tf.math.sub(labelsGrad, gBackprop).asOutput()
    return [featuresGrad, sumToShape(tf, labelsGrad, labels)]


def _sparseCrossEntropyShape(ctx: InferContext) -> Sequence[Shape]:
    features, labels = _matrix(ctx, 0, "features"), ctx.shapes[1]
    if labels.numDimensions() not in (-1, 1):
        raise ctx.error(f"labels must be a vector [batch_size], got shape {labels}")
    batch, given = features.size(0), labels.size(0) if labels.numDimensions() == 1 else -1
    if batch >= 0 and given >= 0 and batch != given:
        raise ctx.error(f"features {features} and labels {labels} must have the same batch size")
    batch = batch if batch >= 0 else given
    return [Shape.of(batch), Shape.of(batch, features.size(1))]


registerOp(
    OpDef(
        type="SparseSoftmaxCrossEntropyWithLogits",
        group="nn",
        summary="Computes softmax cross entropy cost and gradients to backpropagate.",
        description=(
            "Unlike SoftmaxCrossEntropyWithLogits, the labels are class indices: for each\n"
            "example ``i``, ``loss[i] = -log_softmax(features)[i, labels[i]]`` and\n"
            "``backprop[i] = softmax(features[i]) - one_hot(labels[i])``. A label outside\n"
            "``[0, num_classes)`` raises ``InvalidArgumentError`` when the op runs. The labels\n"
            "get no gradient."
        ),
        inputs=(
            InputDef("features", "the logits, a matrix [batch_size, num_classes]", typeAttr="T"),
            InputDef("labels", "the class of each example, a vector [batch_size] of indices in "
                     "``[0, num_classes)``", typeAttr="Tlabels"),
        ),
        outputs=_CROSS_ENTROPY_OUTPUTS,
        attrs=(_T_FLOAT, AttrDef("Tlabels", "type", allowed=INDEX_TYPES, default=TInt64)),
        infer=_sparseCrossEntropyShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> x = tf.nn.sparseSoftmaxCrossEntropyWithLogits(\n"
            "...     tf.constant([[0.0, np.log(3.0)]]), tf.constant([1]))\n"
            ">>> r = Session(g).runner().fetch(x.loss()).fetch(x.backprop()).run()\n"
            ">>> r[0].tolist(), r[1].tolist()\n"
            "([0.2877], [[0.25, -0.25]])"
        ),
    )
)


@registerGradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparseSoftmaxCrossEntropyWithLogitsGrad(
    tf: Ops, op: GradOp, g: Output[TFloating]
) -> Grads:
    return [_featuresGrad(tf, op), None]


# -- L2Loss --------------------------------------------------------------------------------
registerOp(
    OpDef(
        type="L2Loss",
        group="nn",
        summary="L2 Loss.",
        description=(
            "Computes half the L2 norm of a tensor without the sqrt:\n"
            "``output = sum(t ** 2) / 2``, a scalar. Typically used for weight decay."
        ),
        inputs=(InputDef("t", "the tensor, of any shape", typeAttr="T"),),
        outputs=(OutputDef("output", "the scalar half sum of squares", typeAttr="T"),),
        attrs=(_T_FLOAT,),
        infer=lambda ctx: [Shape.scalar()],
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> y = tf.nn.l2Loss(tf.constant([[1.0, 2.0], [3.0, 4.0]]))\n"
            ">>> Session(g).runner().fetch(y).run()[0].tolist()\n"
            "15.0"
        ),
    )
)


@registerGradient("L2Loss")
def _l2LossGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(op.x(0), g)]
