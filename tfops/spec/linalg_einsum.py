"""Einsum (``tfops.op.linalg``): a tensor contraction written in Einstein summation notation,
with TensorFlow's equation grammar; :func:`parseEquation` and :func:`resolve` are shared with
the kernels, which check the same things when the op runs."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from attrs import frozen

from tfops.opdef import AttrDef, InferContext, InputDef, OpDef, OutputDef, registerOp
from tfops.output import Operand, Output
from tfops.shape import Shape
from tfops.spec.grad import GradOp, Grads, registerGradient
from tfops.spec.rules import NUMBERS
from tfops.types import TFloating, TInt32, TUint8

if TYPE_CHECKING:
    from tfops.ops import Ops

ELLIPSIS = "..."
_TERM = re.compile(r"[A-Za-z]*(\.\.\.)?[A-Za-z]*")


@frozen
class Equation:
    """A parsed equation: each input's and the output's labels, ``"."`` standing for the
    ellipsis (at most one per term)."""

    inputs: tuple[str, ...]
    output: str


def parseEquation(equation: str) -> Equation:
    """Parses ``equation``; raises ``ValueError`` with the reason when it is malformed."""
    if equation.count("->") != 1:
        raise ValueError(f"equation {equation!r} must have exactly one '->'")
    left, output = equation.split("->")
    inputs = left.split(",")
    if len(inputs) not in (1, 2):
        raise ValueError(f"equation {equation!r} must have one or two inputs, got {len(inputs)}")
    for term in (*inputs, output):
        if not _TERM.fullmatch(term):
            raise ValueError(f"the term {term!r} of equation {equation!r} must be letters with "
                             "at most one '...'")
    terms = [t.replace(ELLIPSIS, ".") for t in inputs]
    out = output.replace(ELLIPSIS, ".")
    for label in out:
        if label != "." and not any(label in t for t in terms):
            raise ValueError(f"the output label {label!r} of equation {equation!r} is in no "
                             "input")
    return Equation(tuple(terms), out)


def resolve(eq: Equation, shapes: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """The output dimensions of ``eq`` on inputs of ``shapes`` (-1 for unknown sizes);
    raises ``ValueError`` when the shapes do not fit the equation."""
    sizes: dict[str, int] = {}
    broadcast: list[int] = []
    for n, (term, dims) in enumerate(zip(eq.inputs, shapes, strict=True)):
        named = len(term) - ("." in term)
        if len(dims) != named and ("." not in term or len(dims) < named):
            raise ValueError(f"input {n} has rank {len(dims)}, but its subscripts {term!r} "
                             f"need {'at least ' if '.' in term else ''}{named}")
        at = term.find(".")
        before = term if at < 0 else term[:at]
        after = "" if at < 0 else term[at + 1:]
        middle = dims[len(before):len(dims) - len(after)]
        labelled = list(zip(before, dims[:len(before)], strict=True)) + list(
            zip(after, dims[len(dims) - len(after):], strict=True))
        for label, d in labelled:
            known = sizes.get(label, -1)
            if known >= 0 and d >= 0 and known != d:
                raise ValueError(f"label {label!r} has size {known} but size {d} in input {n}")
            sizes[label] = d if d >= 0 else known
        broadcast = _broadcast(broadcast, list(middle), n)
    if broadcast and "." not in eq.output:
        raise ValueError(f"the inputs have {len(broadcast)} dimension(s) under '...' but the "
                         "output has no '...'")
    out: list[int] = []
    for label in eq.output:
        out.extend(broadcast if label == "." else [sizes[label]])
    return tuple(out)


def _broadcast(a: list[int], b: list[int], n: int) -> list[int]:
    """numpy's broadcast of two shapes (-1: unknown); raises when they cannot broadcast."""
    if len(a) < len(b):
        a, b = b, a
    result = list(a)
    for i in range(1, len(b) + 1):
        x, y = a[-i], b[-i]
        if x == y or y == 1:
            continue
        if x == 1:
            result[-i] = y
        elif x < 0 or y < 0:
            result[-i] = max(x, y) if max(x, y) > 1 else -1
        else:
            raise ValueError(f"the dimensions under '...' of input {n} do not broadcast with "
                             "the other input's")
    return result


def _einsumShape(ctx: InferContext) -> Sequence[Shape]:
    equation = str(ctx.attrs["equation"])
    try:
        eq = parseEquation(equation)
    except ValueError as e:
        raise ctx.error(str(e)) from None
    if len(eq.inputs) != len(ctx.shapes):
        raise ctx.error(f"equation {equation!r} has {len(eq.inputs)} input(s), got "
                        f"{len(ctx.shapes)} tensor(s)")
    dims = [s.asArray() for s in ctx.shapes]
    if any(d is None for d in dims):
        return [Shape.unknown()]
    try:
        out = resolve(eq, [d for d in dims if d is not None])
    except ValueError as e:
        raise ctx.error(str(e)) from None
    return [Shape.of(*out)]


registerOp(
    OpDef(
        type="Einsum",
        group="linalg",
        summary="Tensor contraction according to Einstein summation convention.",
        description=(
            "``equation`` names each dimension of the one or two inputs with a letter, then,\n"
            "after ``->``, the output's: ``\"ij,jk->ik\"`` is a matrix product, ``\"ij->ji\"`` a\n"
            "transpose, ``\"ii->i\"`` a diagonal, ``\"bij,bjk->bik\"`` a batch of products.\n"
            "Dimensions that share a letter must have the same size; letters missing from the\n"
            "output are summed over; a letter repeated in the output places the values on a\n"
            "diagonal (zeros elsewhere). ``...`` stands for the dimensions not named (at most\n"
            "one per term), broadcast between the inputs as numpy does; the output must have\n"
            "``...`` when they are not empty. As TensorFlow's op (not its Python wrapper), the\n"
            "``->`` is required. An output label that is in no input is rejected (TensorFlow\n"
            "gives an arbitrary result). Integer sums wrap around on overflow."
        ),
        inputs=(InputDef("inputs", "the one or two tensors to contract", typeAttr="T",
                         isList=True),),
        outputs=(OutputDef("output", "the contraction", typeAttr="T"),),
        attrs=(
            AttrDef("equation", "string", "the subscripts of the inputs and the output, e.g. "
                    '``"ij,jk->ik"``', param="equation"),
            AttrDef("N", "int"),
            AttrDef("T", "type", allowed=tuple(t for t in NUMBERS if t is not TUint8)),
        ),
        infer=_einsumShape,
        example=(
            ">>> g = Graph(); tf = Ops.create(g)\n"
            ">>> a = tf.constant([[1, 2], [3, 4]])\n"
            ">>> y = tf.linalg.einsum([a, tf.constant([5, 6])], 'ij,j->i')\n"
            ">>> Session(g).runner().fetch(y).run()[0].tolist()\n"
            "[17, 39]"
        ),
    )
)


# -- the gradient (TensorFlow's) -------------------------------------------------------------
def _axis(subscripts: str, label: str) -> int:
    """The axis of ``label``'s first occurrence: from the start before the ellipsis, from the
    end (negative) after it."""
    before, _, after = subscripts.partition(".")
    if label in before:
        return before.index(label)
    return after.index(label) - len(after)


def _gradReduced(tf: Ops, grad: Output[TFloating], outputSubs: str, inputSubs: str,
                 shape: Output[TInt32], reduced: str) -> Output[TFloating]:
    """The gradient of a one-input einsum ``inputSubs -> outputSubs`` that sums over the
    labels ``reduced``: ``grad`` broadcast along them, then placed by an einsum."""
    axes = [_axis(inputSubs, label) for label in reduced]
    dims = tf.gather(shape, tf.math.floorMod(tf.constant(axes), tf.size(shape)), 0)
    gradShape = tf.shape(grad)
    ones = tf.fill(tf.constant([len(reduced)]), tf.constant(1))
    lifted = tf.reshape(grad, tf.concat([ones, gradShape], 0))
    full = tf.broadcastTo(lifted, tf.concat([dims, gradShape], 0))
    return _einsum(tf, [full], f"{reduced}{outputSubs}->{inputSubs}")


def _einsum(tf: Ops, inputs: list[Operand[TFloating]], equation: str) -> Output[TFloating]:
    return tf.linalg.einsum(inputs, equation.replace(".", ELLIPSIS)).asOutput()


def _gradWrt(tf: Ops, grad: Output[TFloating], other: Output[TFloating],
             shape: Output[TInt32], inputSubs: str, otherSubs: str,
             outputSubs: str) -> Output[TFloating]:
    reduced = "".join(sorted(set(inputSubs) - set(outputSubs + otherSubs + ".")))
    left = "".join(s for s in inputSubs if s not in reduced)
    partial = _einsum(tf, [grad, other], f"{outputSubs},{otherSubs}->{left}")
    if not reduced:
        return partial
    return _gradReduced(tf, partial, left, inputSubs, shape, reduced)


def _unbroadcast(tf: Ops, grad: Output[TFloating], shape: Output[TInt32], subs: str,
                 axes: Output[TInt32]) -> Output[TFloating]:
    """``grad`` summed over the ``axes`` (counted from the ellipsis) that broadcast, reshaped
    to ``shape``."""
    start = subs.find(".")
    return tf.reshape(tf.sum(grad, tf.math.add(axes, start)), shape).asOutput()


def _ellipsisDims(tf: Ops, shape: Output[TInt32], subs: str) -> Output[TInt32]:
    start = subs.find(".")
    rest = len(subs) - start - 1
    size = tf.math.sub(tf.math.sub(tf.size(shape), start), rest)
    return tf.slice(shape, tf.constant([start]), tf.reshape(size, [1])).asOutput()


@registerGradient("Einsum")
def _einsumGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    """TensorFlow's: each input's gradient is an einsum of the incoming gradient with the other
    input, broadcast along the labels only that input has, and summed over the dimensions
    under ``...`` that it broadcast."""
    eq = parseEquation(str(op.attr("equation")))
    outputSubs = eq.output
    if len(eq.inputs) == 1:
        inputSubs = eq.inputs[0]
        reduced = "".join(sorted(set(inputSubs) - set(outputSubs + ".")))
        if not reduced:
            return [_einsum(tf, [g], f"{outputSubs}->{inputSubs}")]
        return [_gradReduced(tf, g, outputSubs, inputSubs, tf.shape(op.x(0)).asOutput(),
                             reduced)]
    xSubs, ySubs = eq.inputs
    if "." in outputSubs:
        xSubs += "" if "." in xSubs else "."
        ySubs += "" if "." in ySubs else "."
    x, y = op.x(0), op.x(1)
    xShape, yShape = tf.shape(x).asOutput(), tf.shape(y).asOutput()
    gx = _gradWrt(tf, g, y, xShape, xSubs, ySubs, outputSubs)
    gy = _gradWrt(tf, g, x, yShape, ySubs, xSubs, outputSubs)
    if "." not in outputSubs:
        return [gx, gy]
    xd, yd = x.shape().asArray(), y.shape().asArray()
    if xd is not None and yd is not None and x.shape().isFullyKnown() and \
            y.shape().isFullyKnown() and _static(xd, xSubs) == _static(yd, ySubs):
        return [gx, gy]
    args = tf.broadcastGradientArgs(_ellipsisDims(tf, xShape, xSubs),
                                    _ellipsisDims(tf, yShape, ySubs))
    return [_unbroadcast(tf, gx, xShape, xSubs, args.r0()),
            _unbroadcast(tf, gy, yShape, ySubs, args.r1())]


def _static(dims: Sequence[int], subs: str) -> list[int]:
    start = subs.find(".")
    return list(dims[start:len(dims) - (len(subs) - start - 1)])
