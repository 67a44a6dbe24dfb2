"""Core ops (``tfops.op.core``): constants, placeholders, identity, StopGradient and the
reductions Max, Min and Sum (the shape ops are in ``shapes.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tfops.opdef import AttrDef, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, notDifferentiable, registerGradient
from tfops.spec.rules import ANY, INDEX_TYPES, NUMBERS, normalizeAxes, reductionShape, sameShape
from tfops.types import TFloating, TInt32, TType

if TYPE_CHECKING:
    from tfops.ops import Ops


CONST = registerOp(
    OpDef(
        type="Const",
        group="core",
        className="Constant",
        facadeName="constant",
        defaultName="Const",
        summary="An operator producing a constant value.",
        description=(
            "The value is stored in the graph. Python floats become ``TFloat32``, ints\n"
            "``TInt32``, bools ``TBool``; numpy arrays and scalars keep their dtype, unless\n"
            "``dtype`` asks for another one."
        ),
        inputs=(),
        outputs=(OutputDef("output", "the constant tensor", typeAttr="dtype"),),
        attrs=(
            AttrDef("value", "tensor", "the value of the constant", param="value",
                    typeAttr="dtype"),
            AttrDef("dtype", "type", "the data type of the constant", allowed=ANY),
        ),
        infer=lambda ctx: [Shape.of(*ctx.attrs["value"].shape)],
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> c = tf.constant([[1, 2], [3, 4]])\n"
            ">>> c.asOutput().dataType().NAME, c.asOutput().shape()\n"
            "('int32', Shape.of(2, 2))\n"
            ">>> Session(g).runner().fetch(c).run()[0].tolist()\n"
            "[[1, 2], [3, 4]]"
        ),
    )
)


registerOp(
    OpDef(
        type="Placeholder",
        group="core",
        summary="A placeholder for a value that will be fed into the computation.",
        description=(
            "Running an op that depends on a placeholder without feeding it raises\n"
            "``InvalidArgumentError``. A fed value must have the placeholder's data type (or\n"
            "one that converts to it without loss of kind) and be compatible with its shape."
        ),
        inputs=(),
        outputs=(OutputDef("output", "a placeholder tensor that must be fed", typeAttr="dtype"),),
        attrs=(
            AttrDef("dtype", "type", "the type of elements in the tensor", allowed=ANY,
                    param="dtype"),
            AttrDef("shape", "shape", "the (possibly partial) shape of the tensor; unknown by "
                    "default", default=Shape.unknown(), option="shape"),
        ),
        infer=lambda ctx: [ctx.attrs["shape"]],
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> x = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(-1, 3)))\n"
            ">>> x.asOutput().shape()\n"
            "Shape.of(-1, 3)\n"
            ">>> Session(g).runner().feed(x, np.ones((2, 3))).fetch(x).run()[0].shape\n"
            "(2, 3)"
        ),
    )
)


registerOp(
    OpDef(
        type="Identity",
        group="core",
        summary="Return a tensor with the same shape and contents as the input tensor or value.",
        description="The gradient passes through unchanged.",
        inputs=(InputDef("input", "the tensor to return", typeAttr="T"),),
        outputs=(OutputDef("output", "the same tensor", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=ANY),),
        infer=sameShape,
        passThrough=True,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> y = tf.identity(tf.constant([1.0, 2.0]))\n"
            ">>> Session(g).runner().fetch(y).run()[0].tolist()\n"
            "[1.0, 2.0]"
        ),
    )
)


@registerGradient("Identity")
def _identityGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [g]


_STOP_GRADIENT_DESCRIPTION = """\
When executed in a graph, this op outputs its input tensor as-is.

When building ops to compute gradients, this op prevents the contribution of
its inputs to be taken into account. Normally, the gradient generator adds ops
to a graph to compute the derivatives of a specified 'loss' by recursively
finding out inputs that contributed to its computation. If you insert this op
in the graph it inputs are masked from the gradient generator. They are not
taken into account for computing gradients.

This is useful any time you want to compute a value with TensorFlow but need
to pretend that the value was a constant. For example, the softmax function
for a vector x can be written as

```python

  def softmax(x):
    numerator = tf.exp(x)
    denominator = tf.reduce_sum(numerator)
    return numerator / denominator
```

This however is susceptible to overflow if the values in x are large. An
alternative more stable way is to subtract the maximum of x from each of the
values.

```python

  def stable_softmax(x):
    z = x - tf.reduce_max(x)
    numerator = tf.exp(z)
    denominator = tf.reduce_sum(numerator)
    return numerator / denominator
```

However, when we backprop through the softmax to x, we dont want to backprop
through the `tf.reduce_max(x)` (if the max values are not unique then the
gradient could flow to the wrong input) calculation and treat that as a
constant. Therefore, we should write this out as

```python

  def stable_softmax(x):
    z = x - tf.stop_gradient(tf.reduce_max(x))
    numerator = tf.exp(z)
    denominator = tf.reduce_sum(numerator)
    return numerator / denominator
```

Some other examples include:

*  The *EM* algorithm where the *M-step* should not involve backpropagation
   through the output of the *E-step*.
*  Contrastive divergence training of Boltzmann machines where, when
   differentiating the energy function, the training must not backpropagate
   through the graph that generated the samples from the model.
*  Adversarial training, where no backprop should happen through the adversarial
   example generation process."""

registerOp(
    OpDef(
        type="StopGradient",
        group="core",
        summary="Stops gradient computation.",
        description=_STOP_GRADIENT_DESCRIPTION,
        inputs=(InputDef("input", "the tensor whose gradient is stopped", typeAttr="T"),),
        outputs=(OutputDef("output", "the same tensor, a constant to the gradient generator",
                           typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=ANY),),
        infer=sameShape,
        passThrough=True,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> x = tf.constant([1.0, 2.0, 3.0])\n"
            ">>> z = tf.math.sub(x, tf.stopGradient(tf.max(x, 0)))\n"
            ">>> dz = tf.gradients(tf.sum(z, 0), [x])\n"
            ">>> values = Session(g).runner().fetch(z).fetch(dz.dy(0)).run()\n"
            ">>> values[0].tolist(), values[1].tolist()\n"
            "([-2.0, -1.0, 0.0], [1.0, 1.0, 1.0])"
        ),
    )
)
notDifferentiable("StopGradient")
# Ops without inputs pass no gradient anywhere; saying so keeps every op in the gradient table.
notDifferentiable("Const", "Placeholder")


# -- reductions ----------------------------------------------------------------------------
def _reduction(
    opType: str, summary: str, description: str, allowed: tuple[type[TType], ...], example: str
) -> None:
    """Registers a reduction of ``input`` over the axes in ``axis`` (``keep_dims`` option)."""
    registerOp(
        OpDef(
            type=opType,
            group="core",
            summary=summary,
            description=description + (
                "\n\nReduces ``input`` along the dimensions given in ``axis``. Unless\n"
                "``keepDims`` is true, the rank of the tensor is reduced by 1 for each entry in\n"
                "``axis``; with ``keepDims``, the reduced dimensions are kept with length 1."
            ),
            inputs=(
                InputDef("input", "the tensor to reduce", typeAttr="T"),
                InputDef("axis", "the dimensions to reduce, in ``[-rank(input), rank(input))``",
                         typeAttr="Tidx"),
            ),
            outputs=(OutputDef("output", "the reduced tensor", typeAttr="T"),),
            attrs=(
                AttrDef("keep_dims", "bool", "if true, retain reduced dimensions with length 1",
                        default=False, option="keepDims"),
                AttrDef("T", "type", allowed=allowed),
                AttrDef("Tidx", "type", allowed=INDEX_TYPES, default=TInt32),
            ),
            infer=reductionShape,
            example=example,
        )
    )


_reduction(
    "Max",
    "Computes the maximum of elements across dimensions of a tensor.",
    "The maximum of no elements is the lowest value of the data type (``-inf`` for floats).\n"
    "Its gradient is split equally among the elements that attain the maximum.",
    NUMBERS,
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> m = tf.max(tf.constant([[1, 5], [7, 2]]), 1, Max.keepDims(True))\n"
    ">>> Session(g).runner().fetch(m).run()[0].tolist()\n"
    "[[5], [7]]",
)
_reduction(
    "Min",
    "Computes the minimum of elements across dimensions of a tensor.",
    "The minimum of no elements is the highest value of the data type (``inf`` for floats).\n"
    "Its gradient is split equally among the elements that attain the minimum.",
    NUMBERS,
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> m = tf.min(tf.constant([[1, 5], [7, 2]]), [0, 1])\n"
    ">>> Session(g).runner().fetch(m).run()[0].tolist()\n"
    "1",
)
_reduction(
    "Sum",
    "Computes the sum of elements across dimensions of a tensor.",
    "The sum keeps the input's data type (integers wrap around as in TensorFlow). float16 is\n"
    "summed in float32 and rounded once, whatever the order of the elements in memory;\n"
    "TensorFlow's CPU kernel sums float16 in float16 in the order of its vectorized loops, so\n"
    "where a partial sum overflows it gives inf (``[60000, 60000, -60000, -60000]`` sums to\n"
    "inf there, to 0 here).",
    NUMBERS,
    ">>> g = Graph(); tf = Ops.create(g)\n"
    ">>> s = tf.sum(tf.constant([[1.0, 2.0], [3.0, 4.0]]), 0)\n"
    ">>> Session(g).runner().fetch(s).run()[0].tolist()\n"
    "[4.0, 6.0]",
)



def constantAxes(op: GradOp) -> tuple[int, ...] | None:
    """A reduction's axes in ``[0, rank)``, when they are a constant and the rank is known."""
    axis = op.input(1).op()
    rank = op.shape(0).numDimensions()
    if axis.type() != "Const" or rank < 0:
        return None
    return normalizeAxes(None, axis.attr("value"), rank)  # type: ignore[arg-type]


def keptDims(tf: Ops, op: GradOp, t: Output[TFloating]) -> Output[TFloating]:
    """``t``, of a reduction's output shape, with the reduced axes put back with length 1."""
    if op.attr("keep_dims"):
        return t
    axes = constantAxes(op)
    if axes is not None:
        for a in axes:
            t = tf.expandDims(t, a).asOutput()
        return t
    # Axes known only at run time: the kept-dims shape is that of a keep_dims reduction.
    kept = tf.sum(op.x(0), op.ints(1), keepDims=True)
    return tf.reshape(t, tf.shape(kept)).asOutput()


@registerGradient("Sum")
def _sumGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.broadcastTo(keptDims(tf, op, g), tf.shape(op.x(0))), None]


def _minOrMaxGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """Splits the gradient equally among the elements equal to the extremum, as TensorFlow."""
    grad = keptDims(tf, op, g)
    y = keptDims(tf, op, op.y())
    indicators = tf.dtypes.cast(tf.math.equal(y, op.x(0)), grad.dataType())
    selected = tf.sum(indicators, op.ints(1), keepDims=True)
    return [tf.math.mul(tf.math.div(indicators, selected), grad), None]


registerGradient("Max")(_minOrMaxGrad)
registerGradient("Min")(_minOrMaxGrad)
