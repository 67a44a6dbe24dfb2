"""More random ops (``tfops.op.random``): RandomShuffle and Multinomial, seeded as the other
random ops (``tfops.spec.random``: one generator per op and session, seeded by ``seed`` and
``seed2``); and the stateless StatelessRandomUniform, StatelessRandomNormal and
StatelessTruncatedNormal, whose numbers are a function of their ``seed`` input only: TensorFlow's
Philox 4x32-10 counter-based generator, keyed and advanced exactly as TensorFlow's CPU kernels.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.shape import Shape
from tfops.spec.grad import notDifferentiable
from tfops.spec.indexing import scalarConstant
from tfops.spec.rules import ANY, FLOATS, INDEX_TYPES, NUMBERS, shapeValue
from tfops.types import TFloat32, TInt32, TInt64

_SEEDS = (
    AttrDef("seed", "int", "if either seed or seed2 is non-zero, the generator is seeded by "
            "them (reproducible numbers); otherwise it is seeded randomly", default=0,
            option="seed"),
    AttrDef("seed2", "int", "a second seed to avoid seed collision", default=0, option="seed2"),
)


# -- RandomShuffle ---------------------------------------------------------------------------
registerOp(
    OpDef(
        type="RandomShuffle",
        group="random",
        summary="Randomly shuffles a tensor along its first dimension.",
        description=(
            "The slices ``value[j]`` are put in a random order, each permutation equally likely:\n"
            "the result has the shape and type of ``value``; a scalar is returned as it is.\n"
            "The permutation comes from the op's generator (seeded by ``seed`` and ``seed2``, as\n"
            "the other random ops): TensorFlow's statistics, not its numbers. Not\n"
            "differentiable."
        ),
        inputs=(InputDef("value", "the tensor to shuffle", typeAttr="T"),),
        outputs=(OutputDef("output", "the shuffled tensor", typeAttr="T"),),
        attrs=(*_SEEDS, AttrDef("T", "type", allowed=ANY)),
        infer=lambda ctx: [ctx.shapes[0]],
        stateful=True,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> s = tf.random.randomShuffle(tf.constant([1, 2, 3, 4]), RandomShuffle.seed(3))\n"
            ">>> sorted(Session(g).runner().fetch(s).run()[0].tolist())\n"
            "[1, 2, 3, 4]"
        ),
    )
)
notDifferentiable("RandomShuffle")


# -- Multinomial -----------------------------------------------------------------------------
def _multinomialShape(ctx: InferContext) -> Sequence[Shape]:
    logits = ctx.shapes[0]
    if logits.numDimensions() not in (-1, 2):
        raise ctx.error(f"logits must be a matrix [batch, classes], got shape {logits}")
    if logits.numDimensions() == 2 and logits.size(1) == 0:
        raise ctx.error("logits must have at least one class, got shape " + str(logits))
    count = scalarConstant(ctx, 1, "num_samples")
    if count is not None and count < 0:
        raise ctx.error(f"num_samples must not be negative, got {count}")
    batch = logits.size(0) if logits.numDimensions() == 2 else -1
    return [Shape.of(batch, -1 if count is None else count)]


registerOp(
    OpDef(
        type="Multinomial",
        group="random",
        summary="Draws samples from a multinomial distribution.",
        description=(
            "Each row ``i`` of the result holds ``num_samples`` classes drawn independently with\n"
            "probabilities ``softmax(logits[i])``; a class whose logit is ``-inf`` is never\n"
            "drawn. The draws come from the op's generator (seeded by ``seed`` and ``seed2``,\n"
            "as the other random ops): TensorFlow's distribution, not its numbers. The result\n"
            "has the data type ``outputDtype``, a parameter here (TensorFlow Java also has an\n"
            "overload without it, for ``TInt64``). The XLA backend needs ``num_samples`` when\n"
            "it compiles. Not differentiable."
        ),
        inputs=(
            InputDef("logits", "the unnormalized log-probabilities, ``[batch, classes]``",
                     typeAttr="T"),
            InputDef("num_samples", "the number of samples per row, a scalar", dtype=TInt32),
        ),
        outputs=(OutputDef("output", "the drawn classes, ``[batch, num_samples]``",
                           typeAttr="output_dtype"),),
        attrs=(
            *_SEEDS,
            AttrDef("T", "type", allowed=NUMBERS),
            AttrDef("output_dtype", "type", "the data type of the classes (TensorFlow's default "
                    "is ``TInt64``)", allowed=INDEX_TYPES, param="outputDtype"),
        ),
        infer=_multinomialShape,
        stateful=True,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> logits = tf.constant([[0.0, float('-inf')], [float('-inf'), 0.0]])\n"
            ">>> m = tf.random.multinomial(logits, 3, TInt64, Multinomial.seed(1))\n"
            ">>> Session(g).runner().fetch(m).run()[0].tolist()\n"
            "[[0, 0, 0], [1, 1, 1]]"
        ),
    )
)
notDifferentiable("Multinomial")


# -- StatelessRandomUniform, StatelessRandomNormal, StatelessTruncatedNormal -----------------
def _statelessShape(ctx: InferContext) -> Sequence[Shape]:
    seed = ctx.shapes[1]
    if not seed.isCompatibleWith(Shape.of(2)):
        raise ctx.error(f"seed must have shape [2], got {seed}")
    if ctx.shapes[0].numDimensions() > 1:
        raise ctx.error(f"shape must be a vector, got a tensor of shape {ctx.shapes[0]}")
    value = ctx.constants[0]
    if value is not None and any(d < 0 for d in np.asarray(value).reshape(-1).tolist()):
        raise ctx.error(f"shape {np.asarray(value).tolist()} has a negative dimension")
    return [shapeValue(ctx, 0)]


def _stateless(opType: str, summary: str, description: str, example: str) -> None:
    registerOp(
        OpDef(
            type=opType,
            group="random",
            summary=summary,
            description=(
                f"{description}\n"
                "The values are a function of ``seed`` (two integers) and the shape alone: the\n"
                "same seed gives the same tensor in every run, session and process, and the\n"
                "same numbers as TensorFlow's CPU kernel (its Philox 4x32-10 stream, keyed and\n"
                "advanced as TensorFlow does, converted to floats bit for bit as it does)."
            ),
            inputs=(
                InputDef("shape", "the shape of the output tensor", typeAttr="T"),
                InputDef("seed", "two integers, the seed", typeAttr="Tseed"),
            ),
            outputs=(OutputDef("output", "random values of the given shape",
                               typeAttr="dtype"),),
            attrs=(
                AttrDef("dtype", "type", "the data type of the output (``TFloat32`` unless set)",
                        allowed=FLOATS, default=TFloat32, option="dtype"),
                AttrDef("T", "type", allowed=INDEX_TYPES, default=TInt32),
                AttrDef("Tseed", "type", allowed=INDEX_TYPES, default=TInt64),
            ),
            infer=_statelessShape,
            example=example,
        )
    )
    notDifferentiable(opType)


_NORMAL_NOTE = (
    "Normal values use TensorFlow's Box-Muller transform; its logarithm, sine and cosine are\n"
    "computed here correctly rounded, where TensorFlow uses the C library's, which rounds the\n"
    "other way for a small fraction of arguments: about 1.4% of float32 values (0.2% of\n"
    "float64 values) then differ from TensorFlow's by one or two units in the last place."
)

_stateless(
    "StatelessRandomUniform",
    "Outputs deterministic pseudorandom values from a uniform distribution.",
    "The values are uniform in [0, 1): the lower bound is included, the upper bound excluded.",
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> u = tf.random.statelessRandomUniform(tf.constant([3]), tf.constant([1, 2]))\n"
    ">>> Session(g).runner().fetch(u).run()[0].tolist()\n"
    "[0.8440604209899902, 0.19204533100128174, 0.9962232112884521]",
)
_stateless(
    "StatelessRandomNormal",
    "Outputs deterministic pseudorandom values from a normal distribution.",
    "The values have mean 0 and standard deviation 1. " + _NORMAL_NOTE,
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> n = tf.random.statelessRandomNormal(tf.constant([1000]), tf.constant([7, 0]))\n"
    ">>> v = Session(g).runner().fetch(n).run()[0]\n"
    ">>> v.dtype.name, bool(abs(v.mean()) < 0.1 and abs(v.std() - 1) < 0.1)\n"
    "('float32', True)",
)
_stateless(
    "StatelessTruncatedNormal",
    "Outputs deterministic pseudorandom values from a truncated normal distribution.",
    "The values follow a normal distribution with mean 0 and standard deviation 1, except\n"
    "that values whose magnitude is 2 or more are dropped and drawn again (as TensorFlow's:\n"
    "each group of outputs draws from its own stretch of the stream). " + _NORMAL_NOTE,
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> t = tf.random.statelessTruncatedNormal(tf.constant([1000]), tf.constant([7, 0]))\n"
    ">>> bool((abs(Session(g).runner().fetch(t).run()[0]) < 2).all())\n"
    "True",
)

