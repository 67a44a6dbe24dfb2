"""Array ops of ``tfops.op.core`` that make or pick elements: Fill, Range, OneHot, Select, and
CheckNumerics.

Those that reduce a tensor (Prod, All, Any, Rank, Size) are beside them, in ``array_reduce``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from tfops.errors import DataTypeError, InvalidArgumentError
from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, notDifferentiable, registerGradient
from tfops.spec.rules import ANY, FLOATS, INDEX_TYPES, INTEGERS, broadcastShape, shapeValue
from tfops.types import TBool, TFloat32, TFloat64, TFloating, TInt32, TInt64

if TYPE_CHECKING:
    from tfops.ops import Ops


def _requireScalars(ctx: InferContext, names: Mapping[int, str]) -> None:
    """Raises naming the op when an input of ``names`` (position to name) is not a scalar."""
    for i, name in names.items():
        if ctx.shapes[i].numDimensions() not in (-1, 0):
            raise ctx.error(f"{name} must be a scalar, got a tensor of shape {ctx.shapes[i]}")


# -- Fill ----------------------------------------------------------------------------------
def _fillShape(ctx: InferContext) -> Sequence[Shape]:
    _requireScalars(ctx, {1: "value"})
    dims = ctx.constants[0]
    if dims is not None and dims.ndim == 1 and (dims < 0).any():
        raise ctx.error(f"dims must be non-negative, got {dims.tolist()}")
    return [shapeValue(ctx, 0)]


registerOp(
    OpDef(
        type="Fill",
        group="core",
        summary="Creates a tensor filled with a scalar value.",
        description=(
            "Every element of the result, of shape ``dims``, is ``value``. Unlike ``Constant``,\n"
            "which keeps its whole value in the graph, ``Fill`` makes the tensor when the graph\n"
            "runs, so ``dims`` may be known only then.\n\n"
            "The gradient with respect to ``value`` is the sum of the incoming gradient; ``dims``\n"
            "gets none."
        ),
        inputs=(
            InputDef("dims", "the shape of the result, a vector of non-negative sizes",
                     typeAttr="index_type"),
            InputDef("value", "the scalar every element is set to", typeAttr="T"),
        ),
        outputs=(OutputDef("output", "a tensor of shape ``dims`` filled with ``value``",
                           typeAttr="T"),),
        attrs=(
            AttrDef("T", "type", allowed=ANY),
            AttrDef("index_type", "type", allowed=INDEX_TYPES, default=TInt32),
        ),
        infer=_fillShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> f = tf.fill([2, 3], 9)\n"
            ">>> f.asOutput().shape(), Session(g).runner().fetch(f).run()[0].tolist()\n"
            "(Shape.of(2, 3), [[9, 9, 9], [9, 9, 9]])"
        ),
    )
)


@registerGradient("Fill")
def _fillGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    rank = g.shape().numDimensions()
    if rank >= 0:
        return [None, tf.sum(g, np.arange(rank, dtype=np.int32))]
    return [None, tf.sum(g, tf.range(0, tf.rank(g), 1))]


# -- Range ---------------------------------------------------------------------------------
def rangeSize(start: Any, limit: Any, delta: Any) -> int:
    """The number of elements of a range, as TensorFlow counts them (in the inputs' type): what
    the shape rule knows of constant inputs, and what the kernels compute at run time."""
    if delta == 0:
        raise InvalidArgumentError(None, "delta must not be 0")
    if delta > 0 and start > limit:
        raise InvalidArgumentError(
            None, f"start ({start}) must be at most limit ({limit}) when delta > 0")
    if delta < 0 and start < limit:
        raise InvalidArgumentError(
            None, f"start ({start}) must be at least limit ({limit}) when delta < 0")
    if isinstance(start, np.integer):
        span, step = abs(int(limit) - int(start)), abs(int(delta))
        return (span + step - 1) // step
    with np.errstate(all="ignore"):
        size = np.ceil(np.abs((limit - start) / delta))
    if not np.isfinite(size):
        raise InvalidArgumentError(
            None, f"a range from {start} to {limit} by {delta} has no finite number of elements")
    return int(size)


def _rangeShape(ctx: InferContext) -> Sequence[Shape]:
    _requireScalars(ctx, {0: "start", 1: "limit", 2: "delta"})
    values = ctx.constants[:3]
    if any(v is None or v.ndim != 0 for v in values):
        return [Shape.of(-1)]
    try:
        return [Shape.of(rangeSize(*(cast("np.ndarray[Any, Any]", v)[()] for v in values)))]
    except InvalidArgumentError as e:
        raise ctx.error(e.message) from None


registerOp(
    OpDef(
        type="Range",
        group="core",
        summary="Creates a sequence of numbers.",
        description=(
            "The sequence begins at ``start`` and goes by increments of ``delta`` up to, but not\n"
            "including, ``limit``: element ``i`` is ``start + i * delta``, and there are\n"
            "``ceil((limit - start) / delta)`` of them. The three inputs are scalars of one\n"
            "data type. ``delta`` must not be 0 and must lead from ``start`` towards ``limit``\n"
            "(``start`` equal to ``limit`` gives an empty sequence); otherwise the op raises,\n"
            "at construction when the inputs are constants. Not differentiable."
        ),
        inputs=(
            InputDef("start", "the first number of the sequence, a scalar", typeAttr="Tidx"),
            InputDef("limit", "the bound the sequence stops before, a scalar", typeAttr="Tidx"),
            InputDef("delta", "the increment, a non-zero scalar", typeAttr="Tidx"),
        ),
        outputs=(OutputDef("output", "the vector of numbers", typeAttr="Tidx"),),
        attrs=(AttrDef("Tidx", "type", allowed=(TInt32, TInt64, TFloat32, TFloat64)),),
        infer=_rangeShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> r = tf.range(3, 18, 3)\n"
            ">>> r.asOutput().shape(), Session(g).runner().fetch(r).run()[0].tolist()\n"
            "(Shape.of(5), [3, 6, 9, 12, 15])"
        ),
    )
)
notDifferentiable("Range")


# -- OneHot --------------------------------------------------------------------------------
def _oneHotShape(ctx: InferContext) -> Sequence[Shape]:
    axis = ctx.attrs["axis"]
    if axis < -1:
        raise ctx.error(f"axis must be -1 or a dimension of the result, got {axis}")
    _requireScalars(ctx, {1: "depth", 2: "on_value", 3: "off_value"})
    depth = ctx.constants[1]
    size = -1 if depth is None else int(depth)
    if depth is not None and size < 0:
        raise ctx.error(f"depth must be non-negative, got {size}")
    dims = ctx.shapes[0].asArray()
    if dims is None:
        return [Shape.unknown()]
    at = len(dims) if axis == -1 else axis
    if at > len(dims):
        raise ctx.error(f"axis {axis} is out of range for indices of rank {len(dims)} "
                        f"(it must be -1 or in [0, {len(dims)}])")
    return [Shape.of(*dims[:at], size, *dims[at:])]


registerOp(
    OpDef(
        type="OneHot",
        group="core",
        summary="Returns a one-hot tensor.",
        description=(
            "The positions that ``indices`` name take the value ``onValue``, all the others\n"
            "``offValue``. For ``indices`` of rank N the result has rank N + 1: a new dimension\n"
            "of length ``depth`` is inserted at ``axis`` (the last one by default). An index\n"
            "outside ``[0, depth)``, a negative one included, gives a row of ``offValue``.\n\n"
            "Not differentiable."
        ),
        inputs=(
            InputDef("indices", "the positions of the ``onValue`` entries", typeAttr="TI"),
            InputDef("depth", "the length of the one-hot dimension, a scalar", dtype=TInt32),
            InputDef("on_value", "the scalar at ``indices``", typeAttr="T"),
            InputDef("off_value", "the scalar everywhere else", typeAttr="T"),
        ),
        outputs=(OutputDef("output", "the one-hot tensor", typeAttr="T"),),
        attrs=(
            AttrDef("axis", "int", "the position of the new dimension; -1 for the last one",
                    default=-1, option="axis"),
            AttrDef("T", "type", allowed=ANY),
            AttrDef("TI", "type", allowed=INTEGERS, default=TInt64),
        ),
        infer=_oneHotShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> h = tf.oneHot(tf.constant([0, 2, -1]), 3, 1.0, 0.0)\n"
            ">>> Session(g).runner().fetch(h).run()[0].tolist()\n"
            "[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]"
        ),
    )
)
notDifferentiable("OneHot")


# -- Select --------------------------------------------------------------------------------
registerOp(
    OpDef(
        type="SelectV2",
        group="core",
        className="Select",
        facadeName="select",
        defaultName="Select",
        summary="Selects elements from ``t`` or ``e``, depending on ``condition``.",
        description=(
            "Where ``condition`` is true the result has the element of ``t``, elsewhere the\n"
            "element of ``e``. The three inputs broadcast against each other as in numpy\n"
            "(``np.where``).\n\n"
            "The gradient flows to ``t`` where the condition holds and to ``e`` where it does\n"
            "not, each summed back to its own shape; ``condition`` gets none."
        ),
        inputs=(
            InputDef("condition", "where to take the element of ``t``", dtype=TBool),
            InputDef("t", "the elements taken where ``condition`` is true", typeAttr="T"),
            InputDef("e", "the elements taken where ``condition`` is false", typeAttr="T"),
        ),
        outputs=(OutputDef("output", "the selected elements, of the broadcast shape",
                           typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=ANY),),
        infer=broadcastShape,
        elementwise=True,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> s = tf.select(tf.constant([True, False]), tf.constant([[1, 2], [3, 4]]), 0)\n"
            ">>> Session(g).runner().fetch(s).run()[0].tolist()\n"
            "[[1, 0], [3, 0]]"
        ),
    )
)


@registerGradient("SelectV2")
def _selectGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    condition = cast("Output[TBool]", op.input(0))
    zero = np.zeros((), g.dataType().DTYPE)
    return [
        None,
        tf.select(condition, g, zero) if op.needs(1) else None,
        tf.select(condition, zero, g) if op.needs(2) else None,
    ]


# -- CheckNumerics -------------------------------------------------------------------------
def _checkNumericsShape(ctx: InferContext) -> Sequence[Shape]:
    message = ctx.attrs["message"]
    if not isinstance(message, str):
        raise DataTypeError(f"{ctx.opType} '{ctx.opName}' (created at {ctx.site}): message "
                            f"must be a str, got {message!r}")
    return [ctx.shapes[0]]


registerOp(
    OpDef(
        type="CheckNumerics",
        group="core",
        summary="Checks a tensor for NaN and Inf values.",
        description=(
            "Passes ``tensor`` on unchanged when all its elements are finite. When it has a\n"
            "NaN or an infinity, running the op raises ``InvalidArgumentError`` with a message\n"
            "that begins with ``message`` and says which of the two it found.\n\n"
            "The gradient passes through a CheckNumerics op of its own, which reports NaN or\n"
            "Inf values in the gradient."
        ),
        inputs=(InputDef("tensor", "the tensor to check", typeAttr="T"),),
        outputs=(OutputDef("output", "``tensor``, once checked", typeAttr="T"),),
        attrs=(
            AttrDef("T", "type", allowed=FLOATS),
            AttrDef("message", "string", "the beginning of the error message", param="message"),
        ),
        infer=_checkNumericsShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> x = tf.placeholder(TFloat32)\n"
            ">>> c = tf.checkNumerics(x, 'x is broken')\n"
            ">>> runner = Session(g).runner().feed(x, np.array([1.0, np.inf]))\n"
            ">>> runner.fetch(c).run()  # doctest: +ELLIPSIS\n"
            "Traceback (most recent call last):\n"
            "...\n"
            "tfops.errors.InvalidArgumentError: x is broken : Tensor had Inf values ..."
        ),
    )
)


@registerGradient("CheckNumerics")
def _checkNumericsGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    message = "Not a number (NaN) or infinity (Inf) values detected in gradient. "
    return [tf.checkNumerics(g, message + str(op.attr("message")))]
