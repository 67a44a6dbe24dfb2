"""Random ops (``tfops.op.random``): seeded, reproducible random tensors.

Each op keeps one numpy generator per session. With ``seed`` or ``seed2`` set, the generator is
seeded from them, so the same graph gives the same numbers in every session and process; with
both 0 (the default), each session draws fresh entropy, as TensorFlow does without seeds.
Successive runs of one op in one session continue its sequence.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.shape import Shape
from tfops.spec.grad import notDifferentiable
from tfops.spec.rules import FLOATS, INDEX_TYPES, shapeValue

_SEEDS = (
    AttrDef("seed", "int", "if either seed or seed2 is non-zero, the generator is seeded by "
            "them (reproducible numbers); otherwise it is seeded randomly", default=0,
            option="seed"),
    AttrDef("seed2", "int", "a second seed to avoid seed collision", default=0, option="seed2"),
)


def _shapeRule(ctx: InferContext) -> Sequence[Shape]:
    if ctx.shapes[0].numDimensions() > 1:
        raise ctx.error(f"shape must be a vector, got a tensor of shape {ctx.shapes[0]}")
    target = shapeValue(ctx, 0)
    dims = target.asArray()
    if ctx.constants[0] is not None and dims is not None and any(
        d < 0 for d in np.asarray(ctx.constants[0]).reshape(-1).tolist()
    ):
        raise ctx.error(f"shape {ctx.constants[0].tolist()} has a negative dimension")
    return [target]


def _floatSampler(
    opType: str,
    summary: str,
    description: str,
    example: str,
) -> None:
    registerOp(
        OpDef(
            type=opType,
            group="random",
            summary=summary,
            description=description,
            inputs=(InputDef("shape", "the shape of the output tensor", typeAttr="T"),),
            outputs=(OutputDef("output", "a tensor of the given shape", typeAttr="dtype"),),
            attrs=(
                AttrDef("dtype", "type", "the data type of the output", allowed=FLOATS,
                        param="dtype"),
                *_SEEDS,
                AttrDef("T", "type", allowed=INDEX_TYPES),
            ),
            infer=_shapeRule,
            stateful=True,
            example=example,
        )
    )
    notDifferentiable(opType)


_floatSampler(
    "RandomUniform",
    "Outputs random values from a uniform distribution.",
    "The values are uniform in the range [0, 1): the lower bound is included, the upper\n"
    "bound excluded.",
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> u = tf.random.randomUniform(tf.constant([2, 3]), TFloat32, RandomUniform.seed(7))\n"
    ">>> a = Session(g).runner().fetch(u).run()[0]\n"
    ">>> b = Session(g).runner().fetch(u).run()[0]\n"
    ">>> a.shape, bool((a == b).all()), bool(((0 <= a) & (a < 1)).all())\n"
    "((2, 3), True, True)",
)
_floatSampler(
    "RandomStandardNormal",
    "Outputs random values from a normal distribution.",
    "The values have mean 0 and standard deviation 1.",
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> n = tf.random.randomStandardNormal(tf.constant([1000]), TFloat64,\n"
    "...                                    RandomStandardNormal.seed(1))\n"
    ">>> v = Session(g).runner().fetch(n).run()[0]\n"
    ">>> bool(abs(v.mean()) < 0.1 and abs(v.std() - 1) < 0.1)\n"
    "True",
)
_floatSampler(
    "TruncatedNormal",
    "Outputs random values from a truncated normal distribution.",
    "The values follow a normal distribution with mean 0 and standard deviation 1, except\n"
    "that values more than 2 standard deviations from the mean are dropped and drawn again.",
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> t = tf.random.truncatedNormal(tf.constant([1000]), TFloat32, TruncatedNormal.seed(3))\n"
    ">>> bool((abs(Session(g).runner().fetch(t).run()[0]) <= 2).all())\n"
    "True",
)


def _uniformIntShape(ctx: InferContext) -> Sequence[Shape]:
    for name, s in zip(("minval", "maxval"), ctx.shapes[1:], strict=True):
        if s.numDimensions() > 0:
            raise ctx.error(f"{name} must be a scalar, got shape {s}")
    low, high = ctx.constants[1], ctx.constants[2]
    if low is not None and high is not None and not int(low) < int(high):
        raise ctx.error(f"need minval < maxval, got {int(low)} >= {int(high)}")
    return _shapeRule(ctx)


registerOp(
    OpDef(
        type="RandomUniformInt",
        group="random",
        summary="Outputs random integers from a uniform distribution.",
        description=(
            "The integers are uniform in the range [minval, maxval): the lower bound is\n"
            "included, the upper bound excluded. ``minval`` must be less than ``maxval``."
        ),
        inputs=(
            InputDef("shape", "the shape of the output tensor", typeAttr="T"),
            InputDef("minval", "the lower bound (inclusive), a scalar", typeAttr="Tout"),
            InputDef("maxval", "the upper bound (exclusive), a scalar", typeAttr="Tout"),
        ),
        outputs=(OutputDef("output", "a tensor of the given shape", typeAttr="Tout"),),
        attrs=(*_SEEDS, AttrDef("Tout", "type", allowed=INDEX_TYPES),
               AttrDef("T", "type", allowed=INDEX_TYPES)),
        infer=_uniformIntShape,
        stateful=True,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> seed = RandomUniformInt.seed(2)\n"
            ">>> r = tf.random.randomUniformInt(tf.constant([5]), 10, 13, seed)\n"
            ">>> v = Session(g).runner().fetch(r).run()[0]\n"
            ">>> v.dtype.name, bool(((10 <= v) & (v < 13)).all())\n"
            "('int32', True)"
        ),
    )
)
notDifferentiable("RandomUniformInt")
