"""Batch normalization ops (``tfops.op.nn``): FusedBatchNormV3 and FusedBatchNormGradV3 (TF
Java's ``FusedBatchNorm`` and ``FusedBatchNormGrad``), and their gradients. Local response
normalization is :mod:`tfops.spec.nn_norm_lrn`.

Batch normalization computes in single precision (``U``) whatever the type of ``x`` (``T``,
half or single precision), as TensorFlow's CPU kernels do. Its reserve spaces are TensorFlow's
on the CPU: ``reserve_space_1`` and ``reserve_space_2`` hold the mean and the (biased) variance
that normalized ``x``, ``reserve_space_3``, ``reserve_space_4`` and ``reserve_space_5`` are empty
vectors.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Operand, Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, floating, registerGradient
from tfops.types import TFloat16, TFloat32, TFloating

if TYPE_CHECKING:
    from tfops.ops import Ops

BATCH_NORM_FORMATS = ("NHWC", "NCHW", "NDHWC", "NCDHW")
"""The layouts batch normalization takes: channels last or second, 2 or 3 spatial axes."""


def channelAxis(dataFormat: str, rank: int) -> int:
    """The axis of the channels of a ``rank``-dimensional tensor in ``dataFormat``."""
    return 1 if dataFormat[1] == "C" else rank - 1


def formatRank(dataFormat: str) -> int:
    """The rank of ``x`` in ``dataFormat``: 4, or 5 with 3 spatial axes."""
    return len(dataFormat)


_EPSILON = AttrDef(
    "epsilon",
    "float",
    "a small float added to the variance of ``x``",
    default=0.0001,
    option="epsilon",
)
_FACTOR = AttrDef(
    "exponential_avg_factor",
    "float",
    "the weight of this batch in the running mean and variance (1: they are the batch's)",
    default=1.0,
    option="exponentialAvgFactor",
)
_FORMAT = AttrDef(
    "data_format",
    "string",
    'the layout of ``x`` and ``y``: "NHWC" (channels last), "NCHW", "NDHWC" or "NCDHW"',
    default="NHWC",
    option="dataFormat",
)
_TRAINING = AttrDef(
    "is_training",
    "bool",
    "whether to normalize with the batch's own mean and "
    "variance (training) or with the given ones (inference)",
    default=True,
    option="isTraining",
)
_T = AttrDef("T", "type", allowed=(TFloat16, TFloat32))
_U = AttrDef("U", "type", allowed=(TFloat32,))


def _checkedX(ctx: InferContext, i: int, name: str) -> tuple[Shape, int]:
    """Input ``i`` as the 4-D (5-D) tensor of the layout, and the number of its channels (-1
    when unknown)."""
    fmt = str(ctx.attrs["data_format"])
    if fmt not in BATCH_NORM_FORMATS:
        raise ctx.error(f"data_format must be one of {', '.join(BATCH_NORM_FORMATS)}, got {fmt!r}")
    rank, shape = formatRank(fmt), ctx.shapes[i]
    if shape.numDimensions() not in (-1, rank):
        raise ctx.error(f"{name} must be {rank}-dimensional in the {fmt} layout, got shape {shape}")
    if shape.numDimensions() == -1:
        return Shape.of(*([-1] * rank)), -1
    return shape, shape.size(channelAxis(fmt, rank))


def _channelVectors(
    ctx: InferContext, channels: int, inputs: Sequence[tuple[int, str]], of: str
) -> int:
    """Checks that each of ``inputs`` (position, name) is a vector of ``channels`` elements;
    returns the number of channels as precisely as any of them knows it."""
    for i, name in inputs:
        shape = ctx.shapes[i]
        if shape.numDimensions() not in (-1, 1):
            raise ctx.error(f"{name} must be a vector, got shape {shape}")
        size = shape.size(0) if shape.numDimensions() == 1 else -1
        if size >= 0 and channels >= 0 and size != channels:
            raise ctx.error(
                f"{name} must have the same number of elements as the channels of "
                f"{of}, got {size} and {channels}"
            )
        channels = size if channels < 0 else channels
    return channels


def _withChannels(ctx: InferContext, shape: Shape, channels: int) -> Shape:
    dims = list(shape.asArray() or ())
    dims[channelAxis(str(ctx.attrs["data_format"]), len(dims))] = channels
    return Shape.of(*dims)


def _batchNormShape(ctx: InferContext) -> Sequence[Shape]:
    x, channels = _checkedX(ctx, 0, "x")
    everyVector = not ctx.attrs["is_training"] or float(ctx.attrs["exponential_avg_factor"]) != 1
    named = [(1, "scale"), (2, "offset")] + ([(3, "mean"), (4, "variance")] if everyVector else [])
    channels = _channelVectors(ctx, channels, named, "x")
    y = ctx.shapes[0] if ctx.shapes[0].isUnknown() else _withChannels(ctx, x, channels)
    vector = Shape.of(channels)
    return [y, vector, vector, vector, vector, Shape.of(0)]


registerOp(
    OpDef(
        type="FusedBatchNormV3",
        group="nn",
        className="FusedBatchNorm",
        summary="Batch normalization.",
        description=(
            "``y = (x - mean) / sqrt(variance + epsilon) * scale + offset`` per channel. In\n"
            "training (``is_training``) the mean and the variance are the batch's (over every\n"
            "axis but the channels'); ``batch_mean`` and ``batch_variance`` are then the running\n"
            "statistics to keep: ``(1 - exponential_avg_factor) * mean +\n"
            "exponential_avg_factor * batch mean`` and the same of ``variance`` and the\n"
            "unbiased batch variance (``n / (n - 1)`` times the biased one that normalizes).\n"
            "With ``exponential_avg_factor == 1`` the inputs ``mean`` and ``variance`` are not\n"
            "read and may be empty. In inference, ``mean`` and ``variance`` normalize and are\n"
            "returned as ``batch_mean`` and ``batch_variance``. ``reserve_space_1`` and\n"
            "``reserve_space_2`` hold the mean and variance that normalized (what\n"
            "FusedBatchNormGradV3 takes), ``reserve_space_3`` is an empty vector. Computed in\n"
            "single precision for half precision ``x``. An empty ``x`` gives NaN batch\n"
            "statistics and zero reserve spaces, as in TensorFlow. Differences: TensorFlow's\n"
            "CPU kernel without oneDNN leaves the reserve spaces of inference unset and makes\n"
            "``reserve_space_3`` a scalar; tfops always gives what its oneDNN kernel (the\n"
            "default) gives for single precision."
        ),
        inputs=(
            InputDef("x", "a 4-D (5-D for NDHWC, NCDHW) tensor", typeAttr="T"),
            InputDef("scale", "a vector of one scale per channel", typeAttr="U"),
            InputDef("offset", "a vector of one offset per channel", typeAttr="U"),
            InputDef(
                "mean",
                "the population mean per channel, for inference or for the "
                "running mean; may be empty in training when exponential_avg_factor is 1",
                typeAttr="U",
            ),
            InputDef("variance", "the population variance per channel, as ``mean``", typeAttr="U"),
        ),
        outputs=(
            OutputDef("y", "the normalized ``x``, of its shape", typeAttr="T"),
            OutputDef(
                "batch_mean", "the running mean (training) or ``mean`` (inference)", typeAttr="U"
            ),
            OutputDef(
                "batch_variance",
                "the running variance (training) or ``variance`` (inference)",
                typeAttr="U",
            ),
            OutputDef(
                "reserve_space_1", "the mean that normalized, for the gradient", typeAttr="U"
            ),
            OutputDef(
                "reserve_space_2", "the variance that normalized, for the gradient", typeAttr="U"
            ),
            OutputDef("reserve_space_3", "an empty vector", typeAttr="U"),
        ),
        attrs=(_T, _U, _EPSILON, _FACTOR, _FORMAT, _TRAINING),
        infer=_batchNormShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> x = tf.constant(np.array([1.0, 3.0], np.float32).reshape(2, 1, 1, 1))\n"
            ">>> one, zero = tf.constant([1.0]), tf.constant([0.0])\n"
            ">>> bn = tf.nn.fusedBatchNorm(x, one, zero, zero, one, epsilon=0.0)\n"
            ">>> runner = Session(g).runner().fetch(bn.y()).fetch(bn.batch_mean())\n"
            ">>> y, mean, variance = runner.fetch(bn.batch_variance()).run()\n"
            ">>> y.ravel().tolist(), mean.tolist(), variance.tolist()\n"
            "([-1.0, 1.0], [2.0], [2.0])"
        ),
    )
)


def _single(t: Output[TFloating]) -> Output[TFloat32]:
    """``t``, a tensor of type ``U`` (single precision, the only type it allows)."""
    return cast("Output[TFloat32]", t)


@registerGradient("FusedBatchNormV3")
def _batchNormGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    # as TensorFlow: only y's gradient flows back, to x, scale and offset (not to the
    # population mean and variance of inference)
    training = bool(op.attr("is_training"))
    mean, variance = (op.y(3), op.y(4)) if training else (op.x(3), op.x(4))
    grads = tf.nn.fusedBatchNormGrad(
        g,
        op.x(0),
        _single(op.x(1)),
        _single(mean),
        _single(variance),
        _single(op.y(5)),
        epsilon=float(op.attr("epsilon")),
        dataFormat=str(op.attr("data_format")),
        isTraining=training,
    )
    return [grads.x_backprop(), grads.scale_backprop(), grads.offset_backprop(), None, None]


def _batchNormGradShape(ctx: InferContext) -> Sequence[Shape]:
    dy, channels = _checkedX(ctx, 0, "y_backprop")
    x, xChannels = _checkedX(ctx, 1, "x")
    if not dy.isCompatibleWith(x):
        raise ctx.error(
            f"x and y_backprop must have the same shape, got {ctx.shapes[1]} and {ctx.shapes[0]}"
        )
    channels = channels if channels >= 0 else xChannels
    channels = _channelVectors(
        ctx, channels, [(2, "scale"), (3, "reserve_space_1"), (4, "reserve_space_2")], "x"
    )
    known = [a if a >= 0 else b for a, b in zip(dy.asArray() or (), x.asArray() or (), strict=True)]
    shape = (
        Shape.unknown()
        if ctx.shapes[0].isUnknown() and ctx.shapes[1].isUnknown()
        else _withChannels(ctx, Shape.of(*known), channels)
    )
    return [shape, Shape.of(channels), Shape.of(channels), Shape.of(0), Shape.of(0)]


registerOp(
    OpDef(
        type="FusedBatchNormGradV3",
        group="nn",
        className="FusedBatchNormGrad",
        summary="Gradient for batch normalization.",
        description=(
            "The gradients of FusedBatchNormV3's ``y`` with respect to ``x``, ``scale`` and\n"
            "``offset``, given ``y_backprop``, the gradient of ``y``. ``reserve_space_1`` and\n"
            "``reserve_space_2`` are the mean and variance that normalized: FusedBatchNormV3's\n"
            "reserve spaces in training, the population mean and variance in inference.\n"
            "``reserve_space_3`` is not read. In training,\n"
            "``x_backprop = scale / sqrt(variance + epsilon) * (y_backprop - mean(y_backprop) -\n"
            "(x - mean) * mean(y_backprop * (x - mean)) / (variance + epsilon))``; in inference\n"
            "``x_backprop = y_backprop * scale / sqrt(variance + epsilon)``. Both give\n"
            "``scale_backprop = sum(y_backprop * (x - mean) / sqrt(variance + epsilon))`` and\n"
            "``offset_backprop = sum(y_backprop)`` over every axis but the channels'. Unlike\n"
            "TensorFlow's CPU kernel without oneDNN, inference takes every layout."
        ),
        inputs=(
            InputDef("y_backprop", "the gradient of ``y``, of the shape of ``x``", typeAttr="T"),
            InputDef("x", "the input of the batch normalization", typeAttr="T"),
            InputDef("scale", "the scale per channel", dtype=TFloat32),
            InputDef("reserve_space_1", "the mean that normalized", typeAttr="U"),
            InputDef("reserve_space_2", "the variance that normalized", typeAttr="U"),
            InputDef(
                "reserve_space_3", "FusedBatchNormV3's third reserve space (unused)", typeAttr="U"
            ),
        ),
        outputs=(
            OutputDef("x_backprop", "the gradient of ``x``", typeAttr="T"),
            OutputDef("scale_backprop", "the gradient of ``scale``", typeAttr="U"),
            OutputDef("offset_backprop", "the gradient of ``offset``", typeAttr="U"),
            OutputDef("reserve_space_4", "an empty vector", typeAttr="U"),
            OutputDef("reserve_space_5", "an empty vector", typeAttr="U"),
        ),
        attrs=(_T, _U, _EPSILON, _FORMAT, _TRAINING),
        infer=_batchNormGradShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> x = tf.constant(np.array([1.0, 3.0], np.float32).reshape(2, 1, 1, 1))\n"
            ">>> dy = tf.constant(np.array([1.0, 1.0], np.float32).reshape(2, 1, 1, 1))\n"
            ">>> one, zero = tf.constant([1.0]), tf.constant([0.0])\n"
            ">>> d = tf.nn.fusedBatchNormGrad(dy, x, one, zero, one, zero, epsilon=0.0, "
            "isTraining=False)\n"
            ">>> runner = Session(g).runner().fetch(d.x_backprop())\n"
            ">>> dx, dscale, doffset = runner.fetch(d.scale_backprop())"
            ".fetch(d.offset_backprop()).run()\n"
            ">>> dx.ravel().tolist(), dscale.tolist(), doffset.tolist()\n"
            "([1.0, 1.0], [4.0], [2.0])"
        ),
    )
)


def _composedBatchNormGrad(
    tf: Ops,
    dy: Operand[TFloating],
    x: Operand[TFloating],
    scale: Operand[TFloating],
    mean: Operand[TFloating],
    variance: Operand[TFloating],
    epsilon: float,
    fmt: str,
    training: bool,
) -> tuple[Operand[TFloating], Operand[TFloating], Operand[TFloating]]:
    """FusedBatchNormGradV3's outputs from differentiable ops, as TensorFlow composes them to
    differentiate it (``_BatchNormGrad`` of its ``nn_grad.py``)."""
    rank = formatRank(fmt)
    axis = channelAxis(fmt, rank)
    axes = [a for a in range(rank) if a != axis]
    channelsFirst = axis == 1
    if channelsFirst:  # the per-channel vectors broadcast as [1, C, 1, 1(, 1)]
        shape = [1, -1] + [1] * (rank - 2)
        scale = tf.reshape(scale, tf.constant(shape))
        mean = tf.reshape(mean, tf.constant(shape))
        variance = tf.reshape(variance, tf.constant(shape))
    if training:
        meanDy = tf.math.mean(dy, axes, keepDims=channelsFirst)
        meanX = tf.math.mean(x, axes, keepDims=channelsFirst)
        varX = tf.math.mean(
            tf.math.squaredDifference(x, tf.stopGradient(meanX)), axes, keepDims=channelsFirst
        )
        xOffset = tf.math.sub(x, meanX)
        rsqrt = tf.math.rsqrt(tf.math.add(varX, epsilon))
        meanDyX = tf.math.mean(tf.math.mul(dy, xOffset), axes, keepDims=channelsFirst)
        correction = tf.math.mul(
            tf.math.mul(tf.math.reciprocal(tf.math.add(varX, epsilon)), meanDyX), xOffset
        )
        dx = tf.math.mul(
            tf.math.mul(scale, rsqrt), tf.math.sub(tf.math.sub(dy, meanDy), correction)
        )
        dscale: Operand[TFloating] = tf.math.mul(
            rsqrt, tf.sum(tf.math.mul(dy, xOffset), axes, keepDims=channelsFirst)
        )
        doffset = tf.sum(dy, axes)
        if channelsFirst:
            dscale = tf.reshape(dscale, tf.constant([-1]))
        return dx, dscale, doffset
    rsqrt = tf.math.rsqrt(tf.math.add(variance, epsilon))
    doffset = tf.sum(dy, axes)
    dscale = tf.sum(tf.math.mul(tf.math.mul(dy, tf.math.sub(x, mean)), rsqrt), axes)
    dx = tf.math.mul(tf.math.mul(dy, scale), rsqrt)
    return dx, dscale, doffset


@registerGradient("FusedBatchNormGradV3")
def _batchNormGradGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    # as TensorFlow: the vector-Jacobian product of the composed gradient with the gradients
    # of x_backprop, scale_backprop and offset_backprop, to y_backprop, x and scale
    dy, x, scale = op.x(0), op.x(1), op.x(2)
    half = x.dataType() is TFloat16
    if half:  # composed in single precision
        dy = floating(tf.dtypes.cast(dy, TFloat32).asOutput())
        x = floating(tf.dtypes.cast(x, TFloat32).asOutput())
    outputs = _composedBatchNormGrad(
        tf,
        dy,
        x,
        scale,
        op.x(3),
        op.x(4),
        float(op.attr("epsilon")),
        str(op.attr("data_format")),
        bool(op.attr("is_training")),
    )
    seeds = [tf.stopGradient(op.grad(i)) for i in range(3)]
    if half:
        seeds[0] = tf.stopGradient(tf.dtypes.cast(seeds[0], TFloat32))
    rank = formatRank(str(op.attr("data_format")))
    products = [
        tf.sum(tf.math.mul(o, s), list(range(r)))
        for o, s, r in zip(outputs, seeds, (rank, 1, 1), strict=True)
    ]
    grads = tf.gradients(tf.math.addN(products), [dy, x, scale]).dy()
    result: list[Operand[TFloating] | None] = []
    for i, d in enumerate(grads):
        if d is not None and half and i < 2:
            d = floating(tf.dtypes.cast(d, TFloat16).asOutput())
        result.append(None if d is None else floating(d))
    return [*result, None, None, None]
