"""Run-time checks (``tfops.op.core``): Assert."""

from __future__ import annotations

from collections.abc import Sequence

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, registerOp
from tfops.shape import Shape
from tfops.spec.grad import notDifferentiable
from tfops.types import TBool


def _assertShape(ctx: InferContext) -> Sequence[Shape]:
    if ctx.shapes[0].numDimensions() > 0:
        raise ctx.error(f"condition must be a scalar, got a tensor of shape {ctx.shapes[0]}")
    return []


registerOp(
    OpDef(
        type="Assert",
        group="core",
        className="AssertThat",
        facadeName="assertThat",
        defaultName="AssertThat",
        summary="Asserts that the given condition is true.",
        description=(
            "When the op runs and ``condition`` is false, the run fails with\n"
            "``InvalidArgumentError`` whose message is ``assertion failed:`` followed by each\n"
            "tensor of ``data`` summarized as TensorFlow does: in brackets, its first\n"
            "``summarize`` elements (all of them for a negative ``summarize``) nested as the\n"
            "tensor's dimensions, ``...`` where some are left out (``[[0 1...]...]``), bools\n"
            "as 1 and 0, floats in the fewest digits that read back the same (up to 9 for\n"
            "float32, 17 for float64). It has no outputs: make other ops depend on it\n"
            "(``tf.withControlDependencies([check])``) or run it as a target. Data may mix\n"
            "data types (TensorFlow's ``T`` attribute, a list of types, is not kept on the\n"
            "op; ``N`` counts the data); strings, which tfops does not have, cannot be data.\n"
            "A condition of known\n"
            "shape that is not a scalar is rejected when the op is created (TensorFlow rejects\n"
            "it when the op runs)."
        ),
        inputs=(
            InputDef("condition", "the condition to check, a bool scalar", dtype=TBool),
            InputDef("data", "the tensors the error message shows when the condition is "
                     "false", isList=True),
        ),
        outputs=(),
        attrs=(AttrDef("summarize", "int", "how many elements of each tensor the message "
                       "shows (all when negative)", default=3, option="summarize"),),
        infer=_assertShape,
        stateful=True,
        example=(
            ">>> from tfops.errors import InvalidArgumentError\n"
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> x = tf.constant([1.0, -2.0])\n"
            ">>> check = tf.assertThat(tf.all(tf.math.greater(x, 0.0), 0), [x])\n"
            ">>> y = tf.withControlDependencies([check]).identity(x)\n"
            ">>> try:\n"
            "...     Session(g).runner().fetch(y).run()\n"
            "... except InvalidArgumentError as e:\n"
            "...     print(e.message)\n"
            "assertion failed: [1 -2]"
        ),
    )
)
notDifferentiable("Assert")
