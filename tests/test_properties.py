"""Properties checked on random inputs (hypothesis).

For every elementwise and reduction op: on random shapes (scalars, empty and broadcast ones
included), random data types the op accepts, and shapes known statically or only when fed, the
kernel agrees with numpy and the shape rule agrees with the kernel; in float64 the symbolic
gradient agrees with central finite differences. Random names follow the Scope rules: a name
matching ``[A-Za-z0-9.][A-Za-z0-9_.\\-]*`` is accepted and made unique, anything else raises
``ValueError``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
import scipy.special
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from scope import NAME_PATTERN, Scope
from tfops import Graph, Output, Session
from tfops import Shape as TShape
from tfops.op import broadcastShape, lookupGradient, reductionShape, sameShape
from tfops.op.core import Placeholder
from tfops.output import Operand
from tfops.spec import builtinOps
from tfops.testing import computeGradientError
from tfops.types import ALL_TYPES, TFloat64, TType, dataTypeOf

Array = np.ndarray[Any, Any]

KERNEL = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
GRADIENT = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
NAMES = settings(max_examples=200, deadline=None)


# -- the ops and their numpy references ---------------------------------------------------------


def _truncatingDivide(x: Array, y: Array) -> Array:
    """TensorFlow's Div: true division for floats, rounding towards zero for integers."""
    if x.dtype.kind == "f":
        return np.asarray(np.true_divide(x, y))
    wide, by = x.astype(np.int64), y.astype(np.int64)
    return np.asarray(np.sign(wide) * np.sign(by) * (np.abs(wide) // np.abs(by)), dtype=x.dtype)


def _floorDivide(x: Array, y: Array) -> Array:
    return np.floor(np.true_divide(x, y)) if x.dtype.kind == "f" else np.floor_divide(x, y)


def _inFloat(fn: Callable[..., Any]) -> Callable[..., Array]:
    """``fn`` computed in float64 and rounded once to the first input's type (the special
    functions, which tfops computes in a wider type for half precision)."""
    return lambda *xs: np.asarray(fn(*[x.astype(np.float64) for x in xs])).astype(xs[0].dtype)


def _truncatingMod(x: Array, y: Array) -> Array:
    """The remainder of division rounding towards zero (C's ``%``, ``fmod``): TF's Mod and
    TruncateMod."""
    if x.dtype.kind == "f":
        return np.asarray(np.fmod(x, y))
    wide, by = x.astype(np.int64), y.astype(np.int64)
    return np.asarray(wide - by * (np.sign(wide) * np.sign(by) * (np.abs(wide) // np.abs(by))),
                      dtype=x.dtype)


def _digamma(x: Array) -> Array:
    """scipy's digamma with TensorFlow's poles: nan at 0 and at the negative integers."""
    pole = (x <= 0) & (x == np.floor(x))
    return np.where(pole, np.nan, scipy.special.digamma(x))


def _zeta(x: Array, q: Array) -> Array:
    """scipy's Hurwitz zeta with TensorFlow's poles: at q a non-positive integer, inf for an
    even integer x, nan otherwise."""
    pole = (q <= 0) & (q == np.floor(q))
    even = (x == np.floor(x)) & (np.mod(x, 2) == 0)
    value = np.where(pole, np.where(even, np.inf, np.nan), scipy.special.zeta(x, q))
    return np.where(x < 1, np.nan, np.where(x == 1, np.inf, value))


def _polygamma(n: Array, x: Array) -> Array:
    """TensorFlow's polygamma: digamma for n = 0, else (-1)^(n+1) n! zeta(n+1, x)."""
    sign = np.where(np.mod(n, 2) == 0, -1.0, 1.0)
    rest = sign * scipy.special.gamma(n + 1) * _zeta(n + 1, x)
    return np.where(n == 0, _digamma(x), np.where(n == np.floor(n), rest, np.nan))


def _euclideanNorm(x: Array, axis: tuple[int, ...], keepdims: bool) -> Array:
    """TensorFlow's EuclideanNorm: for integers the squares summed in the integer type (so
    they wrap, as TF's do) and the square root truncated; floats in float64, rounded once."""
    if x.dtype.kind == "f":
        wide = x.astype(np.float64)
        return np.sqrt(np.sum(wide * wide, axis=axis, keepdims=keepdims)).astype(x.dtype)
    with np.errstate(over="ignore"):
        squares = np.sum(np.multiply(x, x), axis=axis, keepdims=keepdims, dtype=x.dtype)
    return np.trunc(np.sqrt(squares.astype(np.float64))).astype(x.dtype)


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _selu(x: Array) -> Array:
    wide = x.astype(np.float64)
    return np.asarray(_SELU_SCALE * np.where(wide > 0, wide, _SELU_ALPHA * np.expm1(wide)),
                      dtype=x.dtype)


def _lowest(dtype: np.dtype[Any]) -> Any:
    return -np.inf if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype: np.dtype[Any]) -> Any:
    return np.inf if dtype.kind == "f" else np.iinfo(dtype).max


def _mean(x: Array, axis: tuple[int, ...], keepdims: bool) -> Array:
    count = int(np.prod([x.shape[a] for a in axis]))
    if count == 0 and x.dtype.kind != "f":  # the mean of no integers is 0, as TensorFlow's
        return np.zeros(np.sum(x, axis=axis, keepdims=keepdims).shape, x.dtype)
    if x.dtype.kind == "f":  # the mean of no elements is 0 / 0: nan
        total = np.sum(x, axis=axis, keepdims=keepdims, dtype=np.float64)
        return np.asarray(total / count, dtype=x.dtype)
    total = np.sum(x, axis=axis, keepdims=keepdims, dtype=np.int64)
    return np.asarray(np.sign(total) * (np.abs(total) // count), dtype=x.dtype)


@dataclass(frozen=True)
class Spec:
    """An op under test: its inputs' layout, its numpy reference, and the input values it is
    defined for."""

    type: str
    reference: Callable[..., Any]
    layout: str  # "unary", "broadcast" (n inputs), "same" (2 equal shapes), "list", "reduction"
    arity: int = 1
    attrs: Mapping[str, object] = field(default_factory=dict)
    nonzero: tuple[int, ...] = ()  # inputs that must not be 0 for integers (divisors)
    exponent: tuple[int, ...] = ()  # inputs that are small non-negative integer exponents
    small: bool = False  # values in [-2, 2] (products that would overflow)
    positive: bool = False  # for the gradient check: inputs in the function's smooth domain
    domain: tuple[tuple[float, float], ...] = ()  # per input, an open interval for the check
    constant: tuple[int, ...] = ()  # inputs TensorFlow's rule gives no gradient (held fixed)


UNARY = [
    Spec("Identity", lambda x: x, "unary"),
    Spec("StopGradient", lambda x: x, "unary"),
    Spec("ZerosLike", np.zeros_like, "unary"),
    Spec("OnesLike", np.ones_like, "unary"),
    Spec("Exp", np.exp, "unary"),
    Spec("Log", np.log, "unary", positive=True),
    Spec("Neg", np.negative, "unary"),
    Spec("Square", np.square, "unary"),
    Spec("Reciprocal", lambda x: np.divide(1, x, dtype=x.dtype), "unary"),
    Spec("Abs", np.abs, "unary"),
    Spec("Sign", np.sign, "unary"),
    Spec("Sqrt", np.sqrt, "unary", positive=True),
    Spec("Rsqrt", lambda x: np.divide(1, np.sqrt(x), dtype=x.dtype), "unary", positive=True),
    Spec("Expm1", np.expm1, "unary"),
    Spec("Log1p", np.log1p, "unary", positive=True),
    Spec("Tanh", np.tanh, "unary"),
    Spec("Sigmoid", lambda x: np.divide(1, 1 + np.exp(-x), dtype=x.dtype), "unary"),
    Spec("Softplus", lambda x: np.logaddexp(np.zeros((), x.dtype), x), "unary"),
    Spec("IsFinite", np.isfinite, "unary"),
    Spec("IsNan", np.isnan, "unary"),
    Spec("LogicalNot", np.logical_not, "unary"),
    Spec("Relu", lambda x: np.maximum(x, np.zeros((), x.dtype)), "unary"),
    Spec("Relu6", lambda x: np.clip(x, np.zeros((), x.dtype), np.asarray(6, x.dtype)), "unary"),
    Spec("Elu", lambda x: np.where(x > 0, x, np.expm1(x)), "unary"),
    Spec("Cast", lambda x, dst: x.astype(dst.DTYPE), "unary", attrs={"DstT": TFloat64}),
    # the rest of elementwise math (values outside a function's domain are nan on both sides)
    Spec("Sin", np.sin, "unary"),
    Spec("Cos", np.cos, "unary"),
    Spec("Tan", np.tan, "unary", small=True),
    Spec("Asin", np.arcsin, "unary", small=True, domain=((-0.95, 0.95),)),
    Spec("Acos", np.arccos, "unary", small=True, domain=((-0.95, 0.95),)),
    Spec("Atan", np.arctan, "unary"),
    Spec("Sinh", np.sinh, "unary", small=True),
    Spec("Cosh", np.cosh, "unary", small=True),
    Spec("Asinh", np.arcsinh, "unary"),
    Spec("Acosh", np.arccosh, "unary", positive=True, domain=((1.05, 2.0),)),
    Spec("Atanh", np.arctanh, "unary", small=True, domain=((-0.95, 0.95),)),
    Spec("Floor", np.floor, "unary"),
    Spec("Ceil", np.ceil, "unary"),
    Spec("Round", np.round, "unary"),  # half to even, as TF's
    Spec("Rint", np.rint, "unary"),
    Spec("IsInf", np.isinf, "unary"),
    Spec("Erf", _inFloat(scipy.special.erf), "unary"),
    Spec("Erfc", _inFloat(scipy.special.erfc), "unary"),
    Spec("Lgamma", _inFloat(scipy.special.gammaln), "unary", positive=True),
    Spec("Digamma", _inFloat(_digamma), "unary", positive=True),
    Spec("Softsign", lambda x: np.asarray(x / (1 + np.abs(x)), dtype=x.dtype), "unary"),
    Spec("LeakyRelu", lambda x: np.where(x > 0, x, x * np.asarray(np.float32(0.2), x.dtype)),
         "unary"),
    Spec("Selu", _selu, "unary"),
]

BINARY = [
    Spec("Add", np.add, "broadcast", 2),
    Spec("AddV2", np.add, "broadcast", 2),
    Spec("Sub", np.subtract, "broadcast", 2),
    Spec("Mul", np.multiply, "broadcast", 2),
    Spec("Div", _truncatingDivide, "broadcast", 2, nonzero=(1,)),
    Spec("RealDiv", np.true_divide, "broadcast", 2),
    Spec("DivNoNan", lambda x, y: np.where(y == 0, np.zeros((), x.dtype), np.true_divide(x, y)),
         "broadcast", 2),
    Spec("FloorDiv", _floorDivide, "broadcast", 2, nonzero=(1,)),
    Spec("FloorMod", np.remainder, "broadcast", 2, nonzero=(1,)),
    Spec("Pow", np.power, "broadcast", 2, exponent=(1,), positive=True),
    Spec("SquaredDifference", lambda x, y: np.square(x - y), "broadcast", 2),
    Spec("Maximum", np.maximum, "broadcast", 2),
    Spec("Minimum", np.minimum, "broadcast", 2),
    Spec("Equal", np.equal, "broadcast", 2),
    Spec("NotEqual", np.not_equal, "broadcast", 2),
    Spec("Less", np.less, "broadcast", 2),
    Spec("LessEqual", np.less_equal, "broadcast", 2),
    Spec("Greater", np.greater, "broadcast", 2),
    Spec("GreaterEqual", np.greater_equal, "broadcast", 2),
    Spec("LogicalAnd", np.logical_and, "broadcast", 2),
    Spec("LogicalOr", np.logical_or, "broadcast", 2),
    Spec("SelectV2", np.where, "broadcast", 3),
    Spec("ReluGrad", lambda g, f: np.where(f > 0, g, np.zeros((), g.dtype)), "same", 2),
    Spec("Relu6Grad", lambda g, f: np.where((f > 0) & (f < 6), g, np.zeros((), g.dtype)),
         "same", 2),
    Spec("EluGrad", lambda g, y: np.where(y > 0, g, g * (y + 1)), "same", 2),
    Spec("AddN", lambda *xs: np.sum(np.stack(xs), axis=0, dtype=xs[0].dtype), "list", 3),
    Spec("Atan2", np.arctan2, "broadcast", 2),
    Spec("Mod", _truncatingMod, "broadcast", 2, nonzero=(1,)),
    Spec("TruncateMod", _truncatingMod, "broadcast", 2, nonzero=(1,)),
    Spec("TruncateDiv", lambda x, y: np.trunc(np.true_divide(x, y)) if x.dtype.kind == "f"
         else _truncatingDivide(x, y), "broadcast", 2, nonzero=(1,)),
    Spec("BitwiseAnd", np.bitwise_and, "broadcast", 2),
    Spec("BitwiseOr", np.bitwise_or, "broadcast", 2),
    Spec("BitwiseXor", np.bitwise_xor, "broadcast", 2),
    Spec("Xlogy", _inFloat(scipy.special.xlogy), "broadcast", 2, positive=True),
    Spec("Xdivy", _inFloat(lambda x, y: np.where(x == 0, x, x / y)), "broadcast", 2,
         positive=True),
    Spec("Polygamma", _inFloat(_polygamma), "broadcast", 2,
         exponent=(0,), positive=True, constant=(0,)),
    Spec("Zeta", _inFloat(_zeta), "broadcast", 2, positive=True, domain=((1.5, 2.0), (0.5, 2.0)),
         constant=(0,)),
]

REDUCTIONS = [
    Spec("Sum", lambda x, a, k: np.sum(x, axis=a, keepdims=k, dtype=x.dtype), "reduction"),
    Spec("Prod", lambda x, a, k: np.prod(x, axis=a, keepdims=k, dtype=x.dtype), "reduction",
         small=True),
    Spec("Max", lambda x, a, k: np.max(x, axis=a, keepdims=k, initial=_lowest(x.dtype)),
         "reduction"),
    Spec("Min", lambda x, a, k: np.min(x, axis=a, keepdims=k, initial=_highest(x.dtype)),
         "reduction"),
    Spec("Mean", _mean, "reduction"),
    Spec("All", lambda x, a, k: np.all(x, axis=a, keepdims=k), "reduction"),
    Spec("Any", lambda x, a, k: np.any(x, axis=a, keepdims=k), "reduction"),
    Spec("EuclideanNorm", lambda x, a, k: _euclideanNorm(x, a, k), "reduction"),
]

SPECS = UNARY + BINARY + REDUCTIONS
OPDEFS = {d.type: d for d in builtinOps()}


def test_everyElementwiseAndReductionOpIsCovered() -> None:
    byRule = {
        d.type for d in builtinOps() if d.infer in (sameShape, broadcastShape, reductionShape)
    }
    assert byRule <= {s.type for s in SPECS}


# -- building and running one op -----------------------------------------------------------------


def _inputTypes(spec: Spec) -> list[list[type[TType]]]:
    """Per input, the data types it accepts; inputs of one type attribute share a type."""
    opdef = OPDEFS[spec.type]
    result: list[list[type[TType]]] = []
    for i in opdef.inputs[: 1 if spec.layout in ("reduction", "list") else None]:
        if i.dtype is not None:
            result.append([i.dtype])
        else:
            attr = opdef.attrDef(i.typeAttr or "")
            assert attr is not None
            result.append(list(attr.allowed or ALL_TYPES))
    if spec.layout == "list":
        result = result * spec.arity
    return result


def _values(spec: Spec, dtype: np.dtype[Any], index: int) -> st.SearchStrategy[Any]:
    if dtype.kind == "b":
        return st.booleans()
    if spec.type == "Cast":  # values every type holds exactly enough (no negative uint8)
        low, high = 0, 10
    elif index in spec.exponent and dtype.kind in "iu":  # no negative integer powers
        low, high = 0, 3
    elif spec.small:
        low, high = (0 if dtype.kind == "u" else -2), 2
    elif dtype.kind == "u":
        low, high = 0, 15
    else:
        low, high = -20, 20
    if dtype.kind == "f":
        width = dtype.itemsize * 8
        return st.floats(low, high, width=width)  # type: ignore[arg-type]
    ints = st.integers(low, high)
    return ints.filter(lambda v: v != 0) if index in spec.nonzero else ints


@dataclass
class Drawn:
    """The inputs drawn for one example, and how the op sees them."""

    arrays: list[Array]
    attrs: dict[str, object] = field(default_factory=dict)
    axes: Array | None = None
    keepDims: bool = False
    staticShapes: bool = True
    staticAxes: bool = True

    def reducedAxes(self) -> tuple[int, ...]:
        """The axes a reduction covers, in [0, rank), sorted."""
        assert self.axes is not None
        rank = self.arrays[0].ndim
        return tuple(sorted({int(a) % rank for a in self.axes.reshape(-1)})) if rank else ()


def _draw(data: st.DataObject, spec: Spec) -> Drawn:
    types = _inputTypes(spec)
    if spec.layout == "broadcast":
        shapes = list(data.draw(hnp.mutually_broadcastable_shapes(
            num_shapes=spec.arity, min_dims=0, max_dims=3, min_side=0, max_side=3
        )).input_shapes)
    else:
        shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=3))
        shapes = [shape] * len(types)
    shared = data.draw(st.sampled_from(types[-1]))  # the type attribute's type
    dtypes = [np.dtype(t[0].DTYPE if len(t) == 1 else shared.DTYPE) for t in types]
    arrays = [
        data.draw(hnp.arrays(dt, s, elements=_values(spec, dt, i)))
        for i, (dt, s) in enumerate(zip(dtypes, shapes, strict=True))
    ]
    drawn = Drawn(arrays, dict(spec.attrs), staticShapes=data.draw(st.booleans()))
    if spec.type == "Cast":
        drawn.attrs["DstT"] = data.draw(st.sampled_from(ALL_TYPES))
    if spec.layout == "reduction":
        rank = arrays[0].ndim
        axes = data.draw(st.lists(st.integers(0, max(rank - 1, 0)), unique=True, max_size=rank))
        negative = data.draw(st.lists(st.booleans(), min_size=len(axes), max_size=len(axes)))
        signed = [a - rank if n else a for a, n in zip(axes, negative, strict=True)]
        scalar = len(signed) == 1 and data.draw(st.booleans())
        drawn.axes = np.array(signed[0] if scalar else signed, np.int32)
        drawn.keepDims = data.draw(st.booleans())
        drawn.staticAxes = data.draw(st.booleans())
    return drawn


def _placeholder(scope: Scope, value: Array, static: bool) -> Output[TType]:
    options = [Placeholder.shape(TShape.of(*value.shape))] if static else []
    return Placeholder.create(scope, dataTypeOf(value.dtype), *options).asOutput()


def _build(scope: Scope, spec: Spec, inputs: list[Output[TType]], drawn: Drawn) -> Output[TType]:
    builder = scope.opBuilder(spec.type, spec.type)
    if spec.layout == "list":
        builder.addInputList(inputs)
    else:
        for i in inputs:
            builder.addInput(i)
    for name, value in drawn.attrs.items():
        builder.setAttr(name, value)
    if spec.layout == "reduction":
        builder.setAttr("keep_dims", drawn.keepDims)
    return builder.build().output(0)


def _reference(spec: Spec, drawn: Drawn) -> Array:
    with np.errstate(all="ignore"):
        if spec.layout == "reduction":
            x = drawn.arrays[0]
            return np.asarray(spec.reference(x, drawn.reducedAxes(), drawn.keepDims))
        if spec.type == "Cast":
            return np.asarray(spec.reference(drawn.arrays[0], drawn.attrs["DstT"]))
        return np.asarray(spec.reference(*drawn.arrays))


def _tolerance(dtype: np.dtype[Any], reduction: bool) -> dict[str, float]:
    if dtype.kind != "f":
        return {"rtol": 0.0, "atol": 0.0}
    if dtype.itemsize == 2:
        return {"rtol": 1e-2, "atol": 0.5} if reduction else {"rtol": 2e-3, "atol": 1e-3}
    if dtype.itemsize == 4:
        return {"rtol": 1e-5, "atol": 1e-5}
    return {"rtol": 1e-12, "atol": 1e-12}


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.type)
@KERNEL
@given(data=st.data())
def test_kernelAgreesWithNumpyAndTheShapeRule(spec: Spec, data: st.DataObject) -> None:
    drawn = _draw(data, spec)
    graph = Graph()
    scope = graph.baseScope()
    inputs = [_placeholder(scope, a, drawn.staticShapes) for a in drawn.arrays]
    feeds: list[tuple[Output[TType], Array]] = list(zip(inputs, drawn.arrays, strict=True))
    if drawn.axes is not None:
        if drawn.staticAxes:
            axes = scope.opBuilder("Const", "axes").setAttr("value", drawn.axes)
            inputs.append(axes.setAttr("dtype", dataTypeOf(np.int32)).build().output(0))
        else:
            inputs.append(_placeholder(scope, drawn.axes, True))
            feeds.append((inputs[-1], drawn.axes))
    out = _build(scope, spec, inputs, drawn)
    with Session(graph) as session:
        runner = session.runner()
        for k, v in feeds:
            runner.feed(k, v)
        got = runner.fetch(out).run()[0]
    expected = _reference(spec, drawn)

    assert got.dtype == np.dtype(out.dataType().DTYPE)
    assert got.shape == expected.shape
    assert out.shape().isCompatibleWithArray(got.shape)
    if drawn.staticShapes and drawn.staticAxes:
        assert out.shape() == TShape.of(*got.shape)
    reduction = spec.layout in ("reduction", "list")
    if got.dtype.kind == "b":
        assert got.tolist() == expected.tolist()
    else:
        tolerance = _tolerance(got.dtype, reduction)
        np.testing.assert_allclose(
            got.astype(np.float64), expected.astype(got.dtype).astype(np.float64),
            rtol=tolerance["rtol"], atol=tolerance["atol"], equal_nan=True,
        )


# -- gradients against finite differences --------------------------------------------------------


def _differentiable(spec: Spec) -> bool:
    registered, fn = lookupGradient(spec.type)
    opdef = OPDEFS[spec.type]
    floats = any(t is TFloat64 for t in _inputTypes(spec)[-1])
    return registered and fn is not None and floats and opdef.outputs[0].typeAttr is not None


GRADIENT_SPECS = [s for s in SPECS if _differentiable(s)]

STEP = 0.05
OFFSETS = (0.013, 0.037, 0.029)
"""Inputs lie on grids k * STEP + offset, one offset per input: never 0, never equal to each
other, so no input sits on a kink (0 for Abs or Relu) or a tie (Maximum), and every difference
is far larger than the finite-difference step."""


def _gridValues(spec: Spec, index: int) -> st.SearchStrategy[float]:
    low, high = (1 if spec.positive and index not in spec.exponent else -40), 40
    if index < len(spec.domain):  # the grid points inside the function's smooth domain
        lo, hi = spec.domain[index]
        low = max(low, int(np.floor((lo - OFFSETS[index]) / STEP)) + 1)
        high = min(high, int(np.ceil((hi - OFFSETS[index]) / STEP)) - 1)
    return st.integers(low, high).map(lambda k: k * STEP + OFFSETS[index])


def _gradientInputs(data: st.DataObject, spec: Spec) -> Drawn:
    floatInputs = len(_inputTypes(spec))
    if spec.layout == "broadcast":
        shapes = list(data.draw(hnp.mutually_broadcastable_shapes(
            num_shapes=spec.arity, min_dims=0, max_dims=2, min_side=0, max_side=3
        )).input_shapes)
    else:
        shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=3))
        shapes = [shape] * floatInputs
    unique = spec.type in ("Max", "Min")  # no ties: a tie has no derivative
    arrays = []
    for i, s in enumerate(shapes):
        if spec.type == "SelectV2" and i == 0:
            arrays.append(data.draw(hnp.arrays(np.bool_, s)))
        else:
            arrays.append(data.draw(hnp.arrays(np.float64, s, elements=_gridValues(spec, i),
                                               unique=unique)))
    drawn = Drawn(arrays, dict(spec.attrs), staticShapes=data.draw(st.booleans()))
    if spec.layout == "reduction":
        rank = arrays[0].ndim
        drawn.axes = np.array(
            data.draw(st.lists(st.integers(0, max(rank - 1, 0)), unique=True, max_size=rank)),
            np.int32,
        )
        drawn.keepDims = data.draw(st.booleans())
    return drawn


@pytest.mark.parametrize("spec", GRADIENT_SPECS, ids=lambda s: s.type)
@GRADIENT
@given(data=st.data())
def test_gradientAgreesWithFiniteDifferencesInFloat64(spec: Spec, data: st.DataObject) -> None:
    drawn = _gradientInputs(data, spec)
    if spec.type == "FloorMod":  # away from the jumps of floor(x / y)
        q = np.true_divide(*drawn.arrays)
        assume(bool(np.all(np.abs(q - np.round(q)) > 1e-3)))
    graph = Graph()
    scope = graph.baseScope()
    inputs = [_placeholder(scope, a, drawn.staticShapes) for a in drawn.arrays]
    if drawn.axes is not None:
        axes = scope.opBuilder("Const", "axes").setAttr("value", drawn.axes)
        inputs.append(axes.setAttr("dtype", dataTypeOf(np.int32)).build().output(0))
    y = _build(scope, spec, inputs, drawn)
    pairs = list(enumerate(zip(inputs, drawn.arrays, strict=False)))
    xs: dict[Operand[TType], object] = {
        k: v for i, (k, v) in pairs if v.dtype == np.float64 and i not in spec.constant}
    others: dict[Operand[TType], object] = {
        k: v for i, (k, v) in pairs if v.dtype != np.float64 or i in spec.constant}
    check = computeGradientError(y, list(xs), xs, others)
    scale = max([1.0] + [float(np.max(np.abs(t))) for t in check.theoretical if t.size])
    assert check.maxError <= 1e-5 * scale, check.describe()


# -- names ----------------------------------------------------------------------------------------

VALID_NAMES = st.from_regex(NAME_PATTERN, fullmatch=True).filter(lambda s: len(s) <= 40)
INVALID_NAMES = st.text(max_size=12).filter(lambda s: NAME_PATTERN.fullmatch(s) is None)
INVALID_PARTS = INVALID_NAMES.filter(lambda s: "/" not in s)
NOT_STRINGS = st.one_of(st.none(), st.integers(), st.floats(), st.binary(max_size=4))


@NAMES
@given(name=VALID_NAMES)
def test_aValidNameNamesTheNextOp(name: str) -> None:
    graph = Graph()
    op = graph.baseScope().withName(name).opBuilder("NoOp", "NoOp").build()
    assert op.name() == name and graph.operation(name) == op


@NAMES
@given(name=VALID_NAMES)
def test_aValidSubScopeNamePrefixesTheOpsInIt(name: str) -> None:
    graph = Graph()
    sub = Scope(graph).withSubScope(name)
    assert sub.makeOpName("op") == f"{name}/op"


@NAMES
@given(parts=st.lists(VALID_NAMES, min_size=1, max_size=4))
def test_aValidExplicitPathNamesAnOpThroughTheGraphsBuilder(parts: list[str]) -> None:
    graph = Graph()
    name = "/".join(parts)
    assert graph.opBuilder("NoOp", name).build().name() == name


@NAMES
@given(name=INVALID_NAMES)
def test_anInvalidNameIsRejectedEverywhere(name: str) -> None:
    scope = Scope(Graph())
    for use in (scope.withName, scope.withSubScope, scope.makeOpName, scope.makeUnique):
        with pytest.raises(ValueError):
            use(name)


@NAMES
@given(parts=st.lists(VALID_NAMES, max_size=3), bad=INVALID_PARTS, position=st.integers(0, 3))
def test_anExplicitPathWithAnInvalidPartIsRejected(
    parts: list[str], bad: str, position: int
) -> None:
    name = "/".join([*parts[:position], bad, *parts[position:]])
    with pytest.raises(ValueError):
        Graph().opBuilder("NoOp", name)


@NAMES
@given(value=NOT_STRINGS)
def test_aNameThatIsNotAStringIsRejected(value: object) -> None:
    scope = Scope(Graph())
    for use in (scope.withName, scope.withSubScope, scope.makeOpName):
        with pytest.raises(ValueError):
            use(value)  # type: ignore[arg-type]


@NAMES
@given(requests=st.lists(st.sampled_from(["a", "a_1", "a_2", "a_1_1", "0"]) | VALID_NAMES,
                         max_size=30))
def test_madeNamesAreUniqueAndKeepTheirRequestOrASuffix(requests: list[str]) -> None:
    graph = Graph()
    roots = [Scope(graph), Scope(graph)]  # names are unique per graph, whichever root asks
    made = [roots[i % 2].makeOpName(r) for i, r in enumerate(requests)]
    assert len(set(made)) == len(made)
    for request, name in zip(requests, made, strict=True):
        suffix = name[len(request) + 1:]
        assert name == request or (name.startswith(request + "_") and suffix.isdigit())


@NAMES
@given(name=VALID_NAMES, count=st.integers(1, 6))
def test_aNameAskedForRepeatedlyGetsSuffixesInOrder(name: str, count: int) -> None:
    scope = Scope(Graph())
    assert [scope.makeOpName(name) for _ in range(count)] == [name] + [
        f"{name}_{i}" for i in range(1, count)
    ]
