"""What the numpy backend and the gradient generator do for speed, and that nobody can tell.

A compiled plan folds constants, passes values through Identity and StopGradient, gives kernels
what it knows in advance, runs a generated function (after a first, interpreted run), and, for
large inputs, fuses elementwise ops into groups that run slice by slice on several threads and
write into buffers that died (those the plan knows nothing else can see). Each test states one
behaviour: results bit-identical to the plain path, no buffer of the user's overwritten, errors
and effects as without the mechanism. Thresholds are ``NumpyOptions``, given to the backend.
The gradient generator builds nothing for inputs that lead to no ``x``.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Output, Session
from tfops import Shape as TShape
from tfops.backend import NumpyBackend, NumpyOptions
from tfops.backend.numpy.plan import _Plan
from tfops.errors import InvalidArgumentError, ResourceExhaustedError
from tfops.op import (
    GradOp,
    Grads,
    InputDef,
    OpDef,
    OutputDef,
    lookupOp,
    registerGradient,
    registerOp,
)
from tfops.op.core import Placeholder
from tfops.types import TFloat32, TFloat64, TFloating, TInt32, TType

Array = np.ndarray[Any, Any]
LARGE = NumpyOptions().large
BIG = 3 * LARGE + 17  # takes the fused path, in several slices, with a partial one


@pytest.fixture
def backend() -> str:
    """The numpy backend, whatever ``TFOPS_TEST_BACKEND`` says: these tests read its plans."""
    return "numpy"
UNFUSED = NumpyBackend(NumpyOptions(large=1 << 62))
THREADED = NumpyBackend(NumpyOptions(parallel=LARGE, threads=4))


def _plan(session: Session) -> _Plan:
    (plan,) = session._plans.values()
    assert isinstance(plan, _Plan)
    return plan


def _run(session: Session, feeds: dict[Any, Any], fetches: list[Any]) -> list[Array]:
    runner = session.runner()
    for k, v in feeds.items():
        runner.feed(k, v)
    for f in fetches:
        runner.fetch(f)
    return list(runner.run())


def _same(a: Array, b: Array) -> bool:
    """Equal bit for bit (nan included), with the same shape and data type."""
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


# -- constant folding ---------------------------------------------------------------------------


def test_aConstantSubgraphIsComputedOnceWhenThePlanIsMade(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32)
    c = tf.math.exp(tf.math.add(tf.constant([1.0, 2.0]), tf.constant(1.0)))
    y = tf.math.mul(x, c)
    value = _run(session, {x: np.float32(2.0)}, [y])[0]
    assert value.tolist() == (2 * np.exp(np.array([2.0, 3.0], np.float32))).tolist()
    assert [s.op.type() for s in _plan(session)._steps] == ["Mul"]


def test_aFetchedFoldedConstantIsTheUsersOwnArray(tf: Ops, session: Session) -> None:
    c = tf.math.add(tf.constant([1.0, 2.0]), tf.constant(1.0))
    first = _run(session, {}, [c])[0]
    first[0] = 100.0  # the user may change what was fetched
    assert _run(session, {}, [c])[0].tolist() == [2.0, 3.0]


def test_aStatefulOpIsNeverFolded(tf: Ops, session: Session) -> None:
    r = tf.random.randomUniform(tf.constant([4]), TFloat64)
    first, second = _run(session, {}, [r])[0], _run(session, {}, [r])[0]
    assert not np.array_equal(first, second)


def test_anOpThatFailsOnConstantsStillFailsWhenRunNamingIt(tf: Ops, session: Session) -> None:
    d = tf.withName("d").math.div(tf.constant(1), tf.constant(0))
    for _ in range(3):  # the interpreted first run and the generated function alike
        with pytest.raises(InvalidArgumentError) as raised:
            _run(session, {}, [d])
        assert raised.value.op == d.op()


def test_aShapeKnownStaticallyIsFoldedWithoutRunningItsInput(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(3)))
    y = tf.math.add(tf.shape(tf.math.exp(x)), 1)
    assert _run(session, {x: np.zeros(3, np.float32)}, [y])[0].tolist() == [4]
    assert [s.op.type() for s in _plan(session)._steps] == []


def test_anUnfedPlaceholderStillFailsWhenOnlyItsShapeIsRead(tf: Ops, session: Session) -> None:
    x = tf.withName("x").placeholder(TFloat32, Placeholder.shape(TShape.of(3)))
    with pytest.raises(InvalidArgumentError) as raised:
        _run(session, {}, [tf.shape(x)])
    assert raised.value.op == x.op()


def test_aLargeFoldedResultIsComputedAtRunTimeInstead(graph: Graph, tf: Ops) -> None:
    big = tf.math.exp(tf.constant(np.zeros(1000, np.float32), TFloat32))
    with Session(graph, backend=NumpyBackend(NumpyOptions(foldLimit=100))) as session:
        assert _run(session, {}, [big])[0].tolist() == [1.0] * 1000
        assert [s.op.type() for s in _plan(session)._steps] == ["Exp"]


def test_anOpWithControlInputsIsNotFoldedAndItsControlsRun(tf: Ops, session: Session) -> None:
    n = tf.variable(tf.constant(0))
    session.initialize()
    c = tf.withControlDependencies([tf.assignAdd(n, 1)]).math.add(tf.constant(1), 1)
    for expected in (1, 2):
        assert _run(session, {}, [c])[0] == 2
        assert _run(session, {}, [n])[0] == expected


def test_checkNumericsNamesAConstantOpThatMakesANan(graph: Graph, tf: Ops) -> None:
    bad = tf.withName("bad").math.log(tf.constant(-1.0))
    with Session(graph, checkNumerics=True) as s:
        for _ in range(2):
            with pytest.raises(InvalidArgumentError) as raised:
                s.runner().fetch(tf.math.add(bad, 1.0)).run()
            assert raised.value.op == bad.op()


# -- pass-through ops and the generated function --------------------------------------------------


def test_identityOfAFeedIsTheFedValue(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat64)
    y = tf.identity(tf.stopGradient(x))
    value = np.array([1.0, 2.0])
    assert _run(session, {x: value}, [y])[0].tolist() == [1.0, 2.0]
    assert _plan(session).numSteps == 0


def test_theFirstRunIsInterpretedAndLaterOnesRunTheGeneratedFunction(
    tf: Ops, session: Session
) -> None:
    x = tf.placeholder(TFloat64)
    y = tf.math.square(tf.math.add(x, 1.0))
    results = [_run(session, {x: np.array([float(i)])}, [y])[0].tolist() for i in range(3)]
    assert results == [[1.0], [4.0], [9.0]]
    assert _plan(session)._small is not None


def test_aFailureInTheGeneratedFunctionNamesTheOpOfItsLine(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TInt32)
    ok = tf.math.add(x, 1)
    bad = tf.withName("bad").math.div(ok, x)
    _run(session, {x: np.array([1])}, [bad])
    _run(session, {x: np.array([2])}, [bad])  # now generated
    with pytest.raises(InvalidArgumentError) as raised:
        _run(session, {x: np.array([0])}, [bad])
    assert raised.value.op == bad.op()


# -- specialized kernels ---------------------------------------------------------------------


@pytest.mark.parametrize("keep", [False, True])
@pytest.mark.parametrize("axes", [[0], [1], [-1], [0, 1], [1, 0]])
@pytest.mark.parametrize("reduction", ["sum", "max", "min"])
def test_aReductionWithConstantAxesEqualsTheGenericKernel(
    graph: Graph, tf: Ops, reduction: str, axes: list[int], keep: bool
) -> None:
    value = np.random.default_rng(1).standard_normal((4, 5)).astype(np.float32)
    x = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(4, 5)))
    op: Any = getattr(tf, reduction)
    option = type(op(x, 0)).keepDims(keep)
    y = op(x, axes, option)
    with Session(graph) as s:
        got = _run(s, {x: value}, [y])[0]
    reduce: Any = {"sum": np.sum, "max": np.max, "min": np.min}[reduction]
    expected = reduce(value, axis=tuple(axes), keepdims=keep)
    assert _same(got, np.asarray(expected, np.float32))


def test_shapeOpsWithConstantArgumentsEqualTheGenericKernels(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(2, 3)))
    s = tf.sum(x, [0, 1])  # a scalar
    e = tf.expandDims(s, 0)
    b = tf.broadcastTo(e, [2, 3])
    r = tf.reshape(x, [3, -1])
    n = tf.math.addN([x, b, x])
    value = np.arange(6, dtype=np.float32).reshape(2, 3)
    got = _run(session, {x: value}, [e, b, r, n])
    assert got[0].tolist() == [15.0] and got[1].tolist() == [[15.0] * 3] * 2
    assert got[2].shape == (3, 2) and got[2].ravel().tolist() == value.ravel().tolist()
    assert got[3].tolist() == (value + 15.0 + value).tolist()


def test_aUfuncReadsThroughABroadcastThatChangesNothing(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(3)))
    s = tf.sum(x, 0)
    y = tf.math.add(x, tf.broadcastTo(tf.expandDims(s, 0), [3]))
    value = np.array([1.0, 2.0, 4.0], np.float32)
    assert _same(_run(session, {x: value}, [y])[0], value + value.sum())
    assert [st.op.type() for st in _plan(session)._steps] == ["Sum", "Add"]


def test_aBroadcastThatMakesTheResultsShapeIsKept(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(3)))
    y = tf.math.mul(tf.broadcastTo(tf.sum(x, 0), [3]), 2.0)  # the broadcast makes the shape
    value = np.array([1.0, 2.0, 4.0], np.float32)
    assert _run(session, {x: value}, [y])[0].tolist() == [14.0, 14.0, 14.0]


# -- fused groups for large inputs -------------------------------------------------------------


def _elementwiseGraph(tf: Ops, dtype: type[TType], shape: tuple[int, ...]) -> tuple[
    Output[TType], Output[TType], list[Output[TType]]
]:
    """Two placeholders and a mix of elementwise ops: ufuncs and not, scalars broadcast, a
    value read by several ops, AddN, a reduction in the middle."""
    x: Any = tf.placeholder(dtype, Placeholder.shape(TShape.of(*shape))).asOutput()
    y: Any = tf.placeholder(dtype, Placeholder.shape(TShape.of(*shape))).asOutput()
    two = np.asarray(2.0, dtype.DTYPE)
    e = tf.math.exp(tf.math.sub(x, tf.stopGradient(tf.max(x, list(range(len(shape)))))))
    s = tf.sum(e, list(range(len(shape))))
    p = tf.math.div(e, s)
    q = tf.math.mul(tf.math.neg(tf.math.divNoNan(y, p)), two)
    r = tf.math.addN([q, tf.math.squaredDifference(p, y), e])
    t = tf.math.add(tf.math.square(r), tf.math.log1p(tf.math.abs(y)))
    return x, y, [p.asOutput(), t.asOutput(), tf.math.sqrt(tf.math.abs(t)).asOutput()]


@pytest.mark.parametrize("dtype", [TFloat32, TFloat64], ids=["float32", "float64"])
@pytest.mark.parametrize("shape", [(BIG,), (7, BIG // 7)], ids=["vector", "matrix"])
@pytest.mark.parametrize("threads", [False, True], ids=["one-thread", "threads"])
def test_fusedGroupsGiveTheResultsOfTheOpsOneByOne(
    graph: Graph, tf: Ops, dtype: type[TType], shape: tuple[int, ...], threads: bool
) -> None:
    x, y, fetches = _elementwiseGraph(tf, dtype, shape)
    rng = np.random.default_rng(2)
    xv = rng.standard_normal(shape).astype(dtype.DTYPE)
    yv = rng.standard_normal(shape).astype(dtype.DTYPE)
    yv.flat[::97] = 0.0  # divNoNan's zeros
    with Session(graph, backend=THREADED if threads else "numpy") as s:
        fused = [_run(s, {x: xv, y: yv}, fetches) for _ in range(3)]
        assert _plan(s)._large is not None
    with Session(graph, backend=UNFUSED) as s:
        expected = _run(s, {x: xv, y: yv}, fetches)
    for got in fused:
        assert all(_same(a, b) for a, b in zip(got, expected, strict=True))


def test_aFusedGroupTakesANonContiguousFeed(graph: Graph, tf: Ops) -> None:
    x = tf.placeholder(TFloat64, Placeholder.shape(TShape.of(BIG // 5, 5)))
    y = tf.math.mul(tf.math.exp(x), 3.0)
    value = np.random.default_rng(3).standard_normal((5, BIG // 5)).T  # a transposed view
    with Session(graph) as s:
        got = _run(s, {x: value}, [y])[0]
    assert _same(got, np.multiply(np.exp(value), 3.0))


def test_aFusedGroupBroadcastsAOneElementTensorToEverySlice(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(BIG)))
    one = tf.constant(np.array([1.5], np.float32), TFloat32)  # shape [1], not a scalar
    y = tf.math.exp(tf.math.mul(tf.math.sub(x, one), one))
    value = np.random.default_rng(8).standard_normal(BIG).astype(np.float32)
    half = np.array([1.5], np.float32)
    got = _run(session, {x: value}, [y])[0]
    assert _same(got, np.exp(np.multiply(np.subtract(value, half), half)))


def test_aFedBufferIsNeverWrittenInto(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(BIG)))
    y = tf.math.neg(tf.math.exp(tf.math.neg(x)))
    value = np.random.default_rng(4).standard_normal(BIG).astype(np.float32)
    copy = value.copy()
    for _ in range(3):
        _run(session, {x: value}, [y])
    assert _same(value, copy)


def test_aFedIntermediateIsNeverWrittenInto(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(BIG)))
    middle = tf.math.exp(x)
    y = tf.math.neg(tf.math.square(middle))
    value = np.ones(BIG, np.float32)
    for _ in range(3):
        got = _run(session, {middle: value}, [y])[0]
        assert value.tolist() == [1.0] * BIG and got.tolist() == [-1.0] * BIG


def test_aFetchedValueIsNotOverwrittenByTheOpsThatReadIt(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(BIG)))
    e = tf.math.exp(tf.math.mul(x, 0.5))
    later = tf.math.neg(tf.math.add(e, 1.0))  # e's last reader: its buffer could be taken
    value = np.random.default_rng(5).standard_normal(BIG).astype(np.float32)
    got = _run(session, {x: value}, [e, later])
    assert _same(got[0], np.exp(np.multiply(value, np.float32(0.5))))
    assert _same(got[1], np.negative(np.add(got[0], np.float32(1.0))))


def test_earlierResultsSurviveLaterRuns(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(BIG)))
    y = tf.math.square(tf.math.add(tf.math.exp(x), 1.0))
    first = _run(session, {x: np.zeros(BIG, np.float32)}, [y])[0]
    for i in range(3):
        _run(session, {x: np.full(BIG, float(i), np.float32)}, [y])
    assert first.tolist() == [4.0] * BIG


def test_aConstantIsNeverWrittenInto(tf: Ops, session: Session) -> None:
    c = np.random.default_rng(6).standard_normal(BIG).astype(np.float32)
    x = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(BIG)))
    y = tf.math.neg(tf.math.mul(tf.math.add(tf.constant(c, TFloat32), 1.0), x))
    ones = np.ones(BIG, np.float32)
    first = _run(session, {x: ones}, [y])[0]
    assert _same(_run(session, {x: ones}, [y])[0], first)
    assert _same(first, np.negative(np.add(c, np.float32(1.0))))


def test_aViewOfADyingValueKeepsItsValues(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(BIG)))
    e = tf.math.exp(x)
    view = tf.reshape(e, [-1, 1])  # a numpy view of e's buffer
    after = tf.math.neg(tf.math.add(e, 1.0))  # e dies here: its buffer must stay as it is
    value = np.random.default_rng(7).standard_normal(BIG).astype(np.float32)
    got = _run(session, {x: value}, [view, after])
    assert _same(got[0].ravel(), np.exp(value))


def test_fusedRunsFromSeveralThreadsAtOnceGiveTheirOwnResults(graph: Graph, tf: Ops) -> None:
    session = Session(graph, backend=THREADED)
    x = tf.placeholder(TFloat64, Placeholder.shape(TShape.of(BIG)))
    y = tf.math.add(tf.math.square(tf.math.add(x, 1.0)), tf.math.exp(tf.math.neg(x)))
    wrong: list[int] = []
    start = threading.Barrier(4)

    def work(t: int) -> None:
        start.wait()
        for i in range(5):
            value = np.full(BIG, t + i / 10)
            got = _run(session, {x: value}, [y])[0]
            if not _same(got, np.add(np.square(np.add(value, 1.0)), np.exp(np.negative(value)))):
                wrong.append(t)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert wrong == []


def test_aFusedGroupOverTheMemoryLimitRaisesAsTheOpsDo(graph: Graph, tf: Ops) -> None:
    x = tf.placeholder(TFloat32)  # of unknown shape: the size is checked when the ops run
    e = tf.withName("exp").math.exp(x)
    y = tf.withName("add").math.add(e, x)
    with Session(graph, memoryLimit=BIG) as s, pytest.raises(ResourceExhaustedError) as raised:
        _run(s, {x: np.zeros(BIG, np.float32)}, [y])
    assert raised.value.op == e.op()  # the first op whose result is past the limit


# -- the gradient generator --------------------------------------------------------------------


def test_noGradientOpIsBuiltForAConstantOperand(graph: Graph, tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    y = tf.math.mul(x, tf.constant(np.float64(3.0)))
    before = graph.size()
    dx = tf.gradients(y, [x]).dy(0)
    added = [op.type() for op in graph.operations()][before:]
    assert added == ["OnesLike", "Mul"]  # the seed, then dy * 3 (nothing for the 3)
    with Session(graph) as s:
        assert _run(s, {x: np.array([1.0, 2.0])}, [dx])[0].tolist() == [3.0, 3.0]


def test_aScalarOperandNeedsNoUnbroadcastOfAnUnknownShape(graph: Graph, tf: Ops) -> None:
    x = tf.placeholder(TFloat64)  # unknown shape
    y = tf.math.add(tf.math.mul(x, x), 1.0)
    dx = tf.gradients(y, [x]).dy(0)
    types = {op.type() for op in graph.operations()}
    assert "BroadcastGradientArgs" not in types and "Shape" not in types
    with Session(graph) as s:
        assert _run(s, {x: np.array([[1.0, 2.0]])}, [dx])[0].tolist() == [[2.0, 4.0]]


def test_aBroadcastOperandOfUnknownShapeIsStillReduced(graph: Graph, tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    w = tf.placeholder(TFloat64)
    dw = tf.gradients(tf.math.mul(x, w), [w]).dy(0)
    with Session(graph) as s:
        got = _run(s, {x: np.ones((2, 3)), w: np.array([1.0, 2.0, 3.0])}, [dw])[0]
    assert got.tolist() == [2.0, 2.0, 2.0]


if lookupOp("TfopsTestTwoInputs") is None:
    registerOp(OpDef(
        type="TfopsTestTwoInputs", group="test", summary="x + y (a test op).",
        description="", inputs=(InputDef("x", "x", dtype=TFloat64),
                                InputDef("y", "y", dtype=TFloat64)),
        outputs=(OutputDef("z", "z", dtype=TFloat64),),
        infer=lambda ctx: [ctx.shapes[0]],
    ))
    _NEEDED: list[tuple[bool, bool]] = []

    @registerGradient("TfopsTestTwoInputs")
    def _twoInputsGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
        _NEEDED.append((op.needs(0), op.needs(1)))
        return [g, g]


def test_aRuleIsToldWhichInputsNeedAGradient(graph: Graph, tf: Ops) -> None:
    a, b = tf.placeholder(TFloat64), tf.placeholder(TFloat64)
    z = graph.baseScope().opBuilder("TfopsTestTwoInputs", "z").addInput(a).addInput(
        b).build().output(0)
    graph.addGradients(None, [z], [b.asOutput()])
    assert _NEEDED[-1] == (False, True)
    graph.addGradients(None, [z], [a.asOutput(), b.asOutput()])
    assert _NEEDED[-1] == (True, True)


def test_aLargeRunReusesTheBuffersThatDied(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(BIG)))
    e = tf.math.exp(x)  # a group's result, read by Sum and by the next group, which takes it
    y = tf.math.neg(tf.math.add(tf.math.div(e, tf.sum(e, 0)), 1.0))
    total = tf.sum(y, 0)  # y dies here: its buffer (e's) is left for the next run
    value = np.zeros(BIG, np.float32)
    first = _run(session, {x: value}, [total])[0]
    plan = _plan(session)
    assert [b.shape for b in plan._buffers._free] == [(BIG,)]
    second = _run(session, {x: value}, [total])[0]
    assert _same(first, second)
    assert [b.shape for b in plan._buffers._free] == [(BIG,)]


def test_aValueReadByAnOpThatMayReturnAViewIsNeverReused(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat32, Placeholder.shape(TShape.of(BIG)))
    e = tf.math.exp(x)
    kept = tf.reshape(e, [-1])  # a view of e that lives on as a fetch
    y = tf.math.neg(tf.math.add(e, 1.0))
    value = np.zeros(BIG, np.float32)
    for _ in range(3):
        got = _run(session, {x: value}, [kept, y])
        assert got[0].tolist() == [1.0] * BIG and got[1].tolist() == [-2.0] * BIG
