"""The symbolic gradient generator: ``Gradients.create`` / ``tf.gradients`` / ``addGradients``.

Covers TensorFlow Java's GradientsTest, prefixes and ``dx`` validation, the StopGradient seed's
stable softmax, masking by StopGradient and by integer paths, unconnected inputs, Max ties,
higher-order derivatives, op types without (and with user-registered) gradients, and unknown or
partially known shapes.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import numpy as np
import pytest

from tfops import Graph, Ops, Output, Shape
from tfops.backend import backendNames
from tfops.backend.numpy import registerKernel
from tfops.backend.xla import registerLowering
from tfops.op import (
    AttrDef,
    GradOp,
    Grads,
    InputDef,
    OpDef,
    OutputDef,
    registerGradient,
    registerOp,
)
from tfops.op.core import Gradients, Max, Placeholder, Sum
from tfops.op.math import Mean
from tfops.output import Operand
from tfops.testing import assertGradientsClose
from tfops.types import TFloat32, TFloat64, TFloating, TInt32, TType

Run = Callable[..., Any]
Array = np.ndarray[Any, Any]


# -- helpers -------------------------------------------------------------------------------
@pytest.fixture(params=backendNames())
def backend(request: pytest.FixtureRequest) -> str:
    """The gradients these tests build run on every backend (the ``run`` fixture's session)."""
    name: str = request.param
    return name


def dy(grads: Gradients, i: int = 0) -> Output[TType]:
    """The ``i``-th gradient, which the test expects to exist."""
    d = grads.dy(i)
    assert d is not None, f"expected a gradient for x[{i}], got None"
    return d


def opNames(graph: Graph) -> list[str]:
    return [op.name() for op in graph.operations()]


def newOps(graph: Graph, before: Sequence[str]) -> list[str]:
    known = set(before)
    return [name for name in opNames(graph) if name not in known]


def placeholder(tf: Ops, dims: tuple[int, ...] | None) -> Placeholder[TFloat64]:
    """A float64 placeholder of the given (possibly partial) shape; ``None``: unknown rank."""
    if dims is None:
        return tf.placeholder(TFloat64)
    return tf.placeholder(TFloat64, Placeholder.shape(Shape.of(*dims)))


def softmaxJacobianProduct(x: Array, w: Array) -> Array:
    """``J^T w`` with ``J = diag(p) - p p^T``, ``p`` the softmax of ``x`` (computed stably)."""
    e = np.exp(x - np.max(x))
    p = e / np.sum(e)
    jacobian = np.diag(p) - np.outer(p, p)
    result: Array = jacobian.T @ w
    return result


def softmax(tf: Ops, x: Operand[TFloat64], stable: bool, stop: bool = True) -> Output[TFloat64]:
    """The seed's softmax: ``exp(x - stop_gradient(max(x))) / sum(...)`` (or the naive one)."""
    if stable:
        m: Operand[TFloat64] = tf.max(x, 0)
        if stop:
            m = tf.stopGradient(m)
        z: Operand[TFloat64] = tf.math.sub(x, m)
    else:
        z = x
    numerator = tf.math.exp(z)
    return tf.math.div(numerator, tf.sum(numerator, 0)).asOutput()


F32_3 = np.float32(3.0)


# -- TensorFlow Java's GradientsTest ---------------------------------------------------------
def test_createGradients(graph: Graph, tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat32)
    y0 = tf.math.square(x)
    y1 = tf.math.square(y0)

    grads = tf.withSubScope("sub").gradients(y1, [x, y0])

    assert len(grads) == 2
    dx, dy0 = run(dy(grads, 0), dy(grads, 1), feeds={x: F32_3})
    assert dx.dtype == np.float32 and dy0.dtype == np.float32
    assert float(dx) == 108.0  # d(x^4)/dx = 4 x^3
    assert float(dy0) == 18.0  # d(y0^2)/dy0 = 2 y0
    assert dy(grads, 0).op().name().startswith("sub/Gradients/")
    assert dy(grads, 1).op().name().startswith("sub/Gradients/")


def test_createGradientsWithSum(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat32)
    y0 = tf.math.square(x)
    y1 = tf.math.square(y0)

    grads = tf.gradients([y0, y1], [x])

    assert len(grads) == 1
    assert float(run(dy(grads), feeds={x: F32_3})) == 114.0  # 2x + 4x^3


def test_createGradientsWithInitialValues(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat32)
    y0 = tf.math.square(x)
    y1 = tf.math.square(y0)

    plain = tf.gradients(y0, [x])
    grads0 = tf.gradients(y1, [y0])
    grads1 = tf.gradients(y0, [x], Gradients.dx([dy(grads0)]))

    plainValue, chained = run(dy(plain), dy(grads1), feeds={x: F32_3})
    assert float(plainValue) == 6.0
    assert float(chained) == 108.0  # dy1/dy0 * dy0/dx = 18 * 6


def test_validateGradientsNames(graph: Graph) -> None:
    tf = Ops.create(graph).withSubScope("sub")
    x = tf.placeholder(TFloat32)
    y = tf.math.square(x)

    before = opNames(graph)
    grad0 = Gradients.create(tf.scope(), y, [x])
    added0 = newOps(graph, before)
    assert dy(grad0).op().name().startswith("sub/Gradients/")
    assert added0 and all(name.startswith("sub/Gradients/") for name in added0), added0

    before = opNames(graph)
    grad1 = Gradients.create(tf.withName("MyGradients").scope(), y, [x])
    added1 = newOps(graph, before)
    assert dy(grad1).op().name().startswith("sub/MyGradients/")
    assert added1 and all(name.startswith("sub/MyGradients/") for name in added1), added1


# -- Graph.addGradients: prefixes and dx -----------------------------------------------------
def test_addGradientsDefaultPrefixes(graph: Graph, tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat32)
    y = tf.math.square(x).asOutput()

    before = opNames(graph)
    first = graph.addGradients(None, [y], [x.asOutput()])
    added = newOps(graph, before)
    assert added and all(name.startswith("gradients/") for name in added), added

    before = opNames(graph)
    second = graph.addGradients(None, [y], [x.asOutput()])
    added = newOps(graph, before)
    assert added and all(name.startswith("gradients_1/") for name in added), added

    assert first[0] is not None and second[0] is not None
    assert first[0].name().startswith("gradients/")
    assert second[0].name().startswith("gradients_1/")
    assert [float(v) for v in run(first[0], second[0], feeds={x: F32_3})] == [6.0, 6.0]


def test_addGradientsExplicitPrefixAlreadyUsedRaises(graph: Graph, tf: Ops) -> None:
    x = tf.placeholder(TFloat32)
    y = tf.math.square(x).asOutput()
    graph.addGradients(None, [y], [x.asOutput()])  # uses "gradients"
    mine = graph.addGradients("mine", [y], [x.asOutput()])
    assert mine[0] is not None and mine[0].name().startswith("mine/")

    before = opNames(graph)
    for used in ("gradients", "mine", y.op().name()):
        with pytest.raises(ValueError, match="already used"):
            graph.addGradients(used, [y], [x.asOutput()])
    assert opNames(graph) == before


def test_dxOfWrongLengthRaises(graph: Graph, tf: Ops) -> None:
    x = tf.placeholder(TFloat32)
    y = tf.math.square(x)
    one, two = tf.constant(1.0, TFloat32), tf.constant(2.0, TFloat32)

    before = opNames(graph)
    with pytest.raises(ValueError, match="dx"):
        tf.gradients(y, [x], Gradients.dx([one, two]))
    with pytest.raises(ValueError, match="dx"):
        graph.addGradients(None, [y.asOutput()], [x.asOutput()], [])
    assert opNames(graph) == before


def test_dxOfIncompatibleShapeRaises(graph: Graph, tf: Ops) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(Shape.of(2)))
    y = tf.math.square(x)
    wrong = tf.constant([1.0, 2.0, 3.0], TFloat32)

    before = opNames(graph)
    with pytest.raises(ValueError, match="shape"):
        tf.gradients(y, [x], Gradients.dx([wrong]))
    with pytest.raises(ValueError, match="shape"):
        graph.addGradients(None, [y.asOutput()], [x.asOutput()], [wrong.asOutput()])
    assert opNames(graph) == before


def test_gradientsAccessors(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat32)
    unused = tf.placeholder(TFloat32)
    y = tf.math.square(x)

    grads = tf.gradients(y, [x, unused])

    assert len(grads) == 2
    everything = grads.dy()
    assert len(everything) == 2
    assert everything[0] == grads.dy(0) and everything[1] is None and grads.dy(1) is None
    assert list(grads) == everything
    assert isinstance(everything[0], Output)
    assert float(run(dy(grads, 0), feeds={x: F32_3})) == 6.0


# -- the StopGradient seed: the stable softmax -----------------------------------------------
@pytest.mark.parametrize(
    "xValue",
    [
        np.array([0.5, -1.25, 2.0, 0.125]),
        np.array([1.0, 3.0, 3.0]),  # tied maxima
    ],
    ids=["ordinary", "tiedMaxima"],
)
@pytest.mark.parametrize("stop", [True, False], ids=["stopGradient", "noStopGradient"])
def test_stableSoftmaxGradientIsTheAnalyticOne(
    tf: Ops, run: Run, xValue: Array, stop: bool
) -> None:
    x = tf.placeholder(TFloat64)
    w = tf.placeholder(TFloat64)
    p = softmax(tf, x, stable=True, stop=stop)
    loss = tf.sum(tf.math.mul(w, p), 0)
    wValue = np.linspace(-1.5, 2.5, xValue.size)

    grads = tf.gradients(loss, [x])
    pValue, gValue = run(p, dy(grads), feeds={x: xValue, w: wValue})

    e = np.exp(xValue - np.max(xValue))
    np.testing.assert_allclose(pValue, e / e.sum(), rtol=0, atol=1e-15)
    assert gValue.dtype == np.float64 and gValue.shape == xValue.shape
    np.testing.assert_allclose(gValue, softmaxJacobianProduct(xValue, wValue), rtol=0, atol=1e-10)


def test_naiveSoftmaxOverflowsWhereStableOneDoesNot(tf: Ops, run: Run) -> None:
    xValue = np.array([1000.0, 1001.0, 999.5])
    wValue = np.array([0.5, -1.0, 2.0])
    x = tf.placeholder(TFloat64)
    w = tf.placeholder(TFloat64)
    naive = softmax(tf, x, stable=False)
    stable = softmax(tf, x, stable=True)
    naiveGrad = tf.gradients(tf.sum(tf.math.mul(w, naive), 0), [x])
    stableGrad = tf.gradients(tf.sum(tf.math.mul(w, stable), 0), [x])

    naiveP, naiveG, stableP, stableG = run(
        naive, dy(naiveGrad), stable, dy(stableGrad), feeds={x: xValue, w: wValue}
    )

    assert np.all(np.isnan(naiveP))
    assert np.all(np.isnan(naiveG))
    assert np.all(np.isfinite(stableP)) and np.all(np.isfinite(stableG))
    e = np.exp(xValue - xValue.max())
    np.testing.assert_allclose(stableP, e / e.sum(), rtol=0, atol=1e-15)
    np.testing.assert_allclose(stableG, softmaxJacobianProduct(xValue, wValue), rtol=0, atol=1e-10)


# -- StopGradient, unconnected inputs, integer paths -----------------------------------------
def test_stopGradientKeepsOnlyTheDirectPath(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64)
    y = tf.math.mul(tf.stopGradient(x), x)  # d/dx = stopGradient(x), not 2x

    xValue = np.array([2.0, -3.0, 0.5])
    np.testing.assert_array_equal(run(dy(tf.gradients(y, [x])), feeds={x: xValue}), xValue)


def test_inputReachedOnlyThroughStopGradient(graph: Graph, tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64)
    y = tf.math.exp(tf.math.square(tf.stopGradient(x)))

    assert tf.gradients(y, [x]).dy() == [None]

    zero = tf.gradients(y, [x], Gradients.unconnectedGradients("zero"))
    value = run(dy(zero), feeds={x: np.array([[1.0, 2.0, 3.0]])})
    assert value.dtype == np.float64
    np.testing.assert_array_equal(value, np.zeros((1, 3)))


def test_inputNoOutputDependsOn(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64)
    other = tf.placeholder(TFloat64)
    y = tf.math.square(x)

    grads = tf.gradients(y, [x, other])
    assert grads.dy(1) is None
    np.testing.assert_array_equal(run(dy(grads, 0), feeds={x: np.array([1.5])}), [3.0])

    zero = tf.gradients(y, [x, other], Gradients.unconnectedGradients("zero"))
    dxValue, dOther = run(
        dy(zero, 0), dy(zero, 1), feeds={x: np.array([1.5]), other: np.array([[4.0, 5.0]])}
    )
    np.testing.assert_array_equal(dxValue, [3.0])
    np.testing.assert_array_equal(dOther, np.zeros((1, 2)))


def test_integerPathsCarryNoGradient(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64)
    throughInt = tf.dtypes.cast(tf.dtypes.cast(x, TInt32), TFloat64)

    assert tf.gradients(tf.math.square(throughInt), [x]).dy() == [None]
    zero = tf.gradients(tf.math.square(throughInt), [x], Gradients.unconnectedGradients("zero"))
    np.testing.assert_array_equal(run(dy(zero), feeds={x: np.array([1.5, 2.5])}), [0.0, 0.0])

    # a float path next to the integer one: only the float path counts
    mixed = tf.math.add(tf.math.mul(x, np.float64(3.0)), throughInt)
    value = run(dy(tf.gradients(mixed, [x])), feeds={x: np.array([1.5, 2.5])})
    np.testing.assert_array_equal(value, [3.0, 3.0])


# -- Max ties and summed consumers -----------------------------------------------------------
def test_maxSplitsTheGradientAmongTies(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64)
    grads = tf.gradients(tf.max(x, 0), [x])
    np.testing.assert_array_equal(
        run(dy(grads), feeds={x: np.array([1.0, 3.0, 3.0])}), [0.0, 0.5, 0.5]
    )

    m = tf.placeholder(TFloat64)
    rowMax = tf.max(m, 1, Max.keepDims(True))
    value = run(dy(tf.gradients(rowMax, [m])), feeds={m: np.array([[1, 3, 3], [2, 2, 2.0]])})
    np.testing.assert_allclose(value, [[0, 0.5, 0.5], [1 / 3, 1 / 3, 1 / 3]], rtol=0, atol=1e-15)


def test_gradientsOfSeveralConsumersAreSummed(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64)
    # x feeds Mul (twice), Exp and Add directly
    y = tf.math.add(tf.math.add(tf.math.mul(x, x), tf.math.exp(x)), x)

    xValue = np.array([0.5, -1.0, 2.0])
    value = run(dy(tf.gradients(y, [x])), feeds={x: xValue})
    np.testing.assert_allclose(value, 2 * xValue + np.exp(xValue) + 1, rtol=1e-15, atol=0)


# -- higher order ------------------------------------------------------------------------------
def test_higherOrderDerivatives(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat32)
    f = tf.math.square(tf.math.square(x))  # x^4
    d1 = dy(tf.gradients(f, [x]))  # 4x^3
    d2 = dy(tf.gradients(d1, [x]))  # 12x^2
    d3 = dy(tf.gradients(d2, [x]))  # 24x
    d4 = dy(tf.gradients(d3, [x]))  # 24

    assert [float(v) for v in run(d1, d2, d3, d4, feeds={x: np.float32(2.0)})] == [
        32.0, 48.0, 48.0, 24.0,
    ]
    assert [float(v) for v in run(d1, d2, d3, d4, feeds={x: F32_3})] == [
        108.0, 108.0, 72.0, 24.0,
    ]


def test_stopGradientMasksInTheSecondPass(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat32)
    y = tf.math.mul(tf.stopGradient(x), tf.math.square(x))  # s * x^2 with s = x held constant
    d1 = dy(tf.gradients(y, [x]))  # 2 s x
    d2 = dy(tf.gradients(d1, [x]))  # 2 s (6x were s not masked)

    assert [float(v) for v in run(d1, d2, feeds={x: np.float32(2.0)})] == [8.0, 4.0]


# -- op types without a gradient, and user-registered gradients ------------------------------
def _registerCube(opType: str) -> None:
    registerOp(
        OpDef(
            type=opType,
            group="test",
            summary="Computes x^3 element-wise (a user-defined test op).",
            description="I.e., y = x * x * x.",
            inputs=(InputDef("x", "the input tensor", typeAttr="T"),),
            outputs=(OutputDef("y", "the cube of ``x``", typeAttr="T"),),
            attrs=(AttrDef("T", "type", allowed=(TFloat32, TFloat64)),),
            infer=lambda ctx: [ctx.shapes[0]],
        )
    )
    registerKernel(opType, lambda site: lambda x: x * x * x)
    registerLowering(opType, lambda site, x: x * x * x)


NO_GRAD_TYPE = f"TestCubeNoGrad{uuid.uuid4().hex}"  # unique: the registry is global
_registerCube(NO_GRAD_TYPE)


def _cubeGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    three = np.asarray(3.0, dtype=op.x().dataType().DTYPE)
    return [tf.math.mul(g, tf.math.mul(three, tf.math.square(op.x())))]


def cube(tf: Ops, opType: str, x: Operand[TFloat64]) -> Output[TFloat64]:
    op = tf.scope().opBuilder(opType, "Cube").addInput(x).build()
    return cast("Output[TFloat64]", op.output(0))


def test_opWithoutGradientRaisesAndLeavesTheGraphUnchanged(
    graph: Graph, tf: Ops, run: Run
) -> None:
    x = tf.placeholder(TFloat64)
    c = cube(tf, NO_GRAD_TYPE, tf.math.exp(x))
    y = tf.math.square(c)
    np.testing.assert_allclose(run(c, feeds={x: np.array([0.5])}), np.exp([1.5]), rtol=1e-15)

    before = opNames(graph)
    with pytest.raises(LookupError) as info:
        tf.gradients(y, [x])
    message = str(info.value)
    assert NO_GRAD_TYPE in message
    assert f"'{c.op().name()}'" in message
    assert opNames(graph) == before
    with pytest.raises(LookupError, match=NO_GRAD_TYPE):
        graph.addGradients(None, [y.asOutput()], [x.asOutput()])
    assert opNames(graph) == before

    # the failed attempts left no name behind: the next gradients get the first names
    grads = tf.gradients(tf.math.exp(x), [x])
    assert dy(grads).op().name().startswith("Gradients/")
    added = graph.addGradients(None, [tf.math.exp(x).asOutput()], [x.asOutput()])[0]
    assert added is not None and added.name().startswith("gradients/")


def test_xProducedByAnOpWithoutGradientNeedsNoGradientOfThatOp(
    graph: Graph, tf: Ops, run: Run
) -> None:
    # As TensorFlow (Python's stop ops, C++'s stop nodes): the gradient with respect to the
    # output of an op is not propagated into that op, so its missing gradient does not matter.
    x = tf.placeholder(TFloat64)
    c = cube(tf, NO_GRAD_TYPE, tf.math.exp(x))
    y = tf.math.square(c)

    grads = tf.gradients(y, [c])
    value = run(dy(grads), feeds={x: np.array([0.5, -1.0])})
    np.testing.assert_allclose(value, 2 * np.exp(3 * np.array([0.5, -1.0])), rtol=1e-15)


def test_userRegisteredGradientWorksLikeABuiltInOne(
    graph: Graph, tf: Ops, run: Run, backend: str
) -> None:
    opType = f"TestCubeWithGrad{uuid.uuid4().hex}"
    _registerCube(opType)
    x = tf.placeholder(TFloat64)
    y = tf.math.exp(cube(tf, opType, x))  # exp(x^3)
    with pytest.raises(LookupError, match=opType):
        tf.gradients(y, [x])

    registerGradient(opType)(_cubeGrad)

    d1 = dy(tf.gradients(y, [x]))  # 3x^2 exp(x^3)
    d2 = dy(tf.gradients(d1, [x]))  # (6x + 9x^4) exp(x^3)
    xValue = np.array([0.5, -0.75, 1.0])
    first, second = run(d1, d2, feeds={x: xValue})

    e = np.exp(xValue**3)
    np.testing.assert_allclose(first, 3 * xValue**2 * e, rtol=1e-14, atol=0)
    np.testing.assert_allclose(second, (6 * xValue + 9 * xValue**4) * e, rtol=1e-14, atol=0)
    assert d1.op().name().startswith("Gradients/Cube_grad/")
    assertGradientsClose(y, [x], {x: xValue}, backend=backend)


# -- unknown and partially known shapes -----------------------------------------------------
SHAPES: dict[str, tuple[tuple[int, ...] | None, tuple[int, ...] | None, tuple[int, ...] | None]] = {
    "static": ((2, 3), (3,), (2, 1)),
    "unknown": (None, None, None),
    "partial": ((-1, 3), (-1,), (-1, 1)),
    "partialMixed": ((2, -1), None, (-1, -1)),
}
X_VALUE = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
B_VALUE = np.array([0.1, -0.2, 0.3])
C_VALUE = np.array([[2.0], [-3.0]])


@pytest.mark.parametrize("shapes", list(SHAPES.values()), ids=list(SHAPES))
def test_broadcastingGradientsWithAnyKnownShape(
    tf: Ops,
    run: Run,
    shapes: tuple[tuple[int, ...] | None, tuple[int, ...] | None, tuple[int, ...] | None],
) -> None:
    x, b, c = (placeholder(tf, s) for s in shapes)
    y = tf.math.mul(tf.math.add(x, b), c)  # (2, 3), b broadcast over rows and c over columns

    grads = tf.gradients(y, [x, b, c])
    for d, p in zip(grads, (x, b, c), strict=True):
        assert d is not None and d.shape().isCompatibleWith(p.asOutput().shape())
    feeds: Mapping[Operand[TType], Array] = {x: X_VALUE, b: B_VALUE, c: C_VALUE}
    dX, dB, dC = run(dy(grads, 0), dy(grads, 1), dy(grads, 2), feeds=feeds)

    np.testing.assert_array_equal(dX, np.broadcast_to(C_VALUE, (2, 3)))
    np.testing.assert_array_equal(dB, np.full(3, C_VALUE.sum()))
    np.testing.assert_allclose(dC, (X_VALUE + B_VALUE).sum(axis=1, keepdims=True), rtol=1e-15)
    if shapes == SHAPES["static"]:
        assert [d.shape() for d in grads.dy() if d is not None] == [
            Shape.of(2, 3), Shape.of(3), Shape.of(2, 1),
        ]


@pytest.mark.parametrize("dims", [(2, 3), None, (-1, 3), (2, -1), (-1, -1)],
                         ids=["static", "unknown", "partialRows", "partialColumns", "rankOnly"])
def test_reductionGradientsWithKeepDimsAndAnyKnownShape(
    tf: Ops, run: Run, dims: tuple[int, ...] | None
) -> None:
    x = placeholder(tf, dims)
    # sum(x * mean_row(x)) = sum_i S_i^2 / n: d/dx_ij = 2 m_i
    meanTerm = tf.sum(tf.math.mul(x, tf.math.mean(x, 1, Mean.keepDims(True))), [0, 1])
    # sum(x * colsum(x)) = sum_j C_j^2: d/dx_ij = 2 C_j
    sumTerm = tf.sum(tf.math.mul(x, tf.sum(x, 0, Sum.keepDims(True))), [0, 1])
    # sum(x - colmax(x)): d/dx_ij = 1 - rows * [x_ij is the column's maximum] / ties
    maxTerm = tf.sum(tf.math.sub(x, tf.max(x, 0, Max.keepDims(True))), [0, 1])
    xValue = np.array([[0.5, 2.0, 2.0], [1.5, 2.0, -0.75]])

    dMean = dy(tf.gradients(meanTerm, [x]))
    dSum = dy(tf.gradients(sumTerm, [x]))
    dMax = dy(tf.gradients(maxTerm, [x]))
    mean, total, maximum = run(dMean, dSum, dMax, feeds={x: xValue})

    np.testing.assert_allclose(
        mean, np.broadcast_to(2 * xValue.mean(axis=1, keepdims=True), (2, 3)), rtol=1e-15
    )
    np.testing.assert_allclose(
        total, np.broadcast_to(2 * xValue.sum(axis=0, keepdims=True), (2, 3)), rtol=1e-15
    )
    np.testing.assert_array_equal(maximum, [[1.0, 0.0, -1.0], [-1.0, 0.0, 1.0]])
    if dims == (2, 3):
        assert dMean.shape() == dSum.shape() == dMax.shape() == Shape.of(2, 3)


def test_reductionGradientWithRunTimeAxes(tf: Ops, run: Run) -> None:
    x = tf.placeholder(TFloat64)
    axis = tf.placeholder(TInt32)
    y = tf.math.mul(tf.sum(tf.math.square(x), axis, Sum.keepDims(True)), x)

    grads = tf.gradients(y, [x])
    xValue = np.arange(6.0).reshape(2, 3)
    for a, expected in [
        # sum_i r_i S_i with r = rowsum(x^2), S = rowsum(x): d/dx_ij = r_i + 2 x_ij S_i
        (1, [[5.0, 11.0, 17.0], [122.0, 146.0, 170.0]]),
        # by columns: d/dx_ij = c_j + 2 x_ij T_j with c = colsum(x^2), T = colsum(x)
        (0, [[9.0, 27.0, 57.0], [27.0, 57.0, 99.0]]),
    ]:
        value = run(dy(grads), feeds={x: xValue, axis: np.array(a, np.int32)})
        np.testing.assert_array_equal(value, expected)
