"""Reliability under attack: what another thread may see, which names a failure gives back,
feeds, memory, aliasing, and raw errors that must be tfops errors (issue 17)."""

from __future__ import annotations

import inspect
import threading
import time

import numpy as np
import pytest

from scope import Scope
from tfops import Graph, Ops, Session, Shape
from tfops.errors import (
    DataTypeError,
    IllegalArgumentError,
    IndexOutOfBoundsError,
    InvalidArgumentError,
)
from tfops.op import InferContext, InputDef, OpDef, OutputDef, lookupOp, registerOp
from tfops.op._build import build
from tfops.op.core import Sum, Unstack
from tfops.types import TFloat32, TFloat64, TInt32, TUint8


# -- 1. another thread never sees an op that is later undone ---------------------------------
def _slowlyRejected(ctx: InferContext) -> list[Shape]:
    time.sleep(0.002)  # a shape rule that takes its time, then rejects the op
    raise ctx.error("rejected")


SLOW = "TfopsTestSlowlyRejected"
if lookupOp(SLOW) is None:
    registerOp(OpDef(type=SLOW, group="test", summary="Rejects every input, slowly.",
                     description="", inputs=(InputDef("x", "x", dtype=TFloat64),),
                     outputs=(OutputDef("y", "y", dtype=TFloat64),), infer=_slowlyRejected))


def test_anOpOfAFailedConstructionIsNeverSeenByAnotherThread(graph: Graph, tf: Ops) -> None:
    """Thread A keeps failing a construction that makes a Const of its Python value before it
    fails; thread B looks that Const up by name and builds on it. No op may be left with an
    input that is not in the graph, and every request compiles."""
    stop = threading.Event()

    def failing() -> None:
        while not stop.is_set():
            with pytest.raises(ValueError, match="rejected"):
                build(tf.scope(), SLOW, (np.float64(1.0),), {})

    def building() -> None:
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            found = graph.operation("Const")
            if found is not None:
                tf.math.neg(found.output(0))

    a, b = threading.Thread(target=failing), threading.Thread(target=building)
    a.start()
    b.start()
    b.join()
    stop.set()
    a.join()
    ops = list(graph.operations())
    names = {op.name() for op in ops}
    assert all(i.op().name() in names for op in ops for i in op.inputs())
    assert ops == []  # every Const was undone: nothing could be built on one


# -- 2. a failed build gives back only its own name --------------------------------------------
def test_aFailedBuildNeverFreesANameReservedAfterIt(graph: Graph, tf: Ops) -> None:
    root = Scope(graph)
    builder = root.opBuilder("Neg", "x")  # reserves "x"
    tf.constant(1.0)  # a construction that commits the names reserved so far
    assert root.withSubScope("layer").prefix() == "layer"
    with pytest.raises(ValueError, match="expects 1 input"):
        builder.build()  # fails: no input
    assert root.withSubScope("layer").prefix() == "layer_1"  # "layer" stayed taken
    assert root.makeOpName("x") == "x_1"  # "x" was committed: it stays taken too


def test_aFailedBuildFreesItsOwnNameWhenNothingCameAfter(graph: Graph) -> None:
    root = Scope(graph)
    with pytest.raises(ValueError):
        root.opBuilder("Neg", "y").build()
    assert root.makeOpName("y") == "y"


# -- 5. gradient construction is linear in fan-out (bench/fanout.py measures it) ------------
def test_whatARuleBuiltForAnUnneededInputLeavesNoConsumerBehind(graph: Graph, tf: Ops) -> None:
    """What a rule built for an input that needs no gradient is dropped (in constant time per
    op, however many consumers its inputs have): x keeps only the consumers that stay."""
    x = tf.placeholder(TFloat64)
    ys = [tf.math.mul(x, float(i)) for i in range(50)]
    tf.gradients(tf.math.addN(ys), [x])
    consumers = {op.type() for op in x.op().consumers()}
    assert consumers == {"Mul"}
    assert len(x.op().consumers()) == 50  # the dropped mul(x, g) of each rule went away



# -- 3. Python values fed convert as constants do ---------------------------------------------
def _site(offset: int = 0) -> str:
    """``file:line`` of the line that calls this (or of the line ``offset`` lines below)."""
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    return f"{frame.f_back.f_code.co_filename}:{frame.f_back.f_lineno + offset}"


def test_aPythonIntOutOfRangeFedToAnInt32PlaceholderIsATypeErrorNamingIt(
    graph: Graph, tf: Ops, session: Session
) -> None:
    site = _site(1)
    x = tf.withName("x").placeholder(TInt32)
    with pytest.raises(DataTypeError) as raised:
        session.runner().feed(x, 2**40)
    message = str(raised.value)
    assert isinstance(raised.value, TypeError)
    for text in ("'x:0'", "Placeholder 'x'", site, "out of range for int32", "TInt64"):
        assert text in message


def test_aPythonIntOutOfRangeInAListFedIsRefused(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TInt32)
    with pytest.raises(DataTypeError, match="out of range for int32"):
        session.runner().feed(x, [1, -(2**31) - 1])


def test_pythonIntsThatFitAreFedToAUint8Placeholder(tf: Ops, session: Session) -> None:
    u = tf.placeholder(TUint8)
    vector = session.runner().feed(u, [1, 2]).fetch(u).run()[0]
    scalar = session.runner().feed(u, 5).fetch(u).run()[0]
    assert vector.dtype == np.uint8 and vector.tolist() == [1, 2]
    assert scalar.dtype == np.uint8 and scalar.tolist() == 5


def test_aPythonIntBelowZeroFedToAUint8PlaceholderIsRefused(tf: Ops, session: Session) -> None:
    u = tf.placeholder(TUint8)
    with pytest.raises(DataTypeError, match="out of range for uint8"):
        session.runner().feed(u, [-1, 2])


def test_aPythonFloatFedToAnIntegerPlaceholderIsRefused(tf: Ops, session: Session) -> None:
    x = tf.withName("x").placeholder(TInt32)
    with pytest.raises(DataTypeError, match="Placeholder 'x'.*1.5.*int32"):
        session.runner().feed(x, 1.5)


def test_aPythonIntFedToAFloatPlaceholderIsConverted(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TFloat64)
    assert session.runner().feed(x, [1, 2]).fetch(x).run()[0].tolist() == [1.0, 2.0]


def test_numpyArraysFedKeepTheSameKindRule(tf: Ops, session: Session) -> None:
    x = tf.placeholder(TInt32)
    fed = session.runner().feed(x, np.array([1, 2], np.int64)).fetch(x).run()[0]
    assert fed.dtype == np.int32 and fed.tolist() == [1, 2]
    with pytest.raises(InvalidArgumentError, match="float64"):
        session.runner().feed(x, np.array([1.0]))


# -- 7. an op owns the arrays it is built with -------------------------------------------------
def test_aReadOnlyArrayGivenToConstantIsCopied(tf: Ops, session: Session) -> None:
    value = np.array([1.0, 2.0])
    value.flags.writeable = False  # read-only, but it owns its memory: it can be made writeable
    c = tf.constant(value)
    assert not np.shares_memory(c.op().attr("value"), value)
    value.flags.writeable = True
    value[0] = 99.0
    assert session.runner().fetch(c).run()[0].tolist() == [1.0, 2.0]


def test_aBuilderConstOwnsAFrozenCopyOfItsValue(graph: Graph, session: Session) -> None:
    value = np.array([1.0, 2.0])
    const = graph.baseScope().opBuilder("Const", "c").setAttr("value", value).setAttr(
        "dtype", TFloat64).build()
    assert not np.shares_memory(const.attr("value"), value)
    assert not const.attr("value").flags.writeable
    assert session.runner().fetch(const.output(0)).run()[0].tolist() == [1.0, 2.0]
    assert value.flags.writeable  # the run did not freeze the user's array
    value[0] = 99.0
    assert session.runner().fetch(const.output(0)).run()[0].tolist() == [1.0, 2.0]


def test_aBuilderConstRefusesAValueOfAnotherDataTypeThanItsDtype(graph: Graph) -> None:
    builder = graph.baseScope().opBuilder("Const", "c").setAttr("value", np.array([1.5]))
    with pytest.raises(DataTypeError, match="Const 'c'.*float64.*int32"):
        builder.setAttr("dtype", TInt32).build()
    assert list(graph.operations()) == []
    assert graph.baseScope().makeOpName("c") == "c"


# -- 8. what is not an Output, another op's option, None, huge ints, raw errors ----------------
class _Impostor:
    """An operand whose ``asOutput()`` returns something that is not an ``Output``."""

    def asOutput(self) -> object:
        return 5


def test_anOperandWhoseAsOutputIsNotAnOutputIsATypeErrorNamingTheOp(
    graph: Graph, tf: Ops
) -> None:
    one = tf.constant(1.0)
    with pytest.raises(DataTypeError, match="Neg input 'x'.*asOutput\\(\\) returned 5"):
        tf.math.neg(_Impostor())  # type: ignore[arg-type]
    with pytest.raises(DataTypeError, match="Add input 'y'.*asOutput\\(\\) returned 5"):
        tf.math.add(1.0, _Impostor())  # type: ignore[arg-type]
    with pytest.raises(DataTypeError, match="AddN input 'inputs'.*asOutput\\(\\) returned 5"):
        tf.math.addN([one, _Impostor()])  # type: ignore[list-item]
    assert list(graph.operations()) == [one.op()]  # the Const made for add's 1.0 was undone


def test_anOperandWhoseAsOutputIsNotAnOutputIsRefusedByTheBuilder(graph: Graph) -> None:
    builder = graph.baseScope().opBuilder("Neg", "n")
    with pytest.raises(DataTypeError, match="Neg 'n'.*asOutput\\(\\) returned 5"):
        builder.addInput(_Impostor())  # type: ignore[arg-type]
    assert graph.baseScope().makeOpName("n") == "n"  # the failure gave the name back


def test_anOperandWhoseAsOutputIsNotAnOutputIsATypeErrorWhenFetchedOrFed(
    session: Session,
) -> None:
    with pytest.raises(DataTypeError, match="asOutput\\(\\) returned 5"):
        session.runner().fetch(_Impostor())  # type: ignore[arg-type]
    with pytest.raises(DataTypeError, match="asOutput\\(\\) returned 5"):
        session.runner().feed(_Impostor(), 1.0)  # type: ignore[arg-type]


def test_aControlInputThatIsNotAnOpIsATypeErrorNamingTheOp(graph: Graph) -> None:
    builder = graph.baseScope().opBuilder("NoOp", "n")
    with pytest.raises(DataTypeError, match="NoOp 'n'.*control input None"):
        builder.addControlInput(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("dtype", [np.int8, np.uint64, np.complex64], ids=str)
def test_anArrayOfAnUnsupportedDtypeIsRefusedNamingTheOp(tf: Ops, dtype: type) -> None:
    value = np.array([1, 2], dtype)
    with pytest.raises(DataTypeError, match=f"Add input 'x'.*{np.dtype(dtype)}"):
        tf.math.add(value, 1)


def test_anOptionOfAnotherOpClassIsRefusedNamingBoth(graph: Graph, tf: Ops) -> None:
    x = tf.constant([1.0])
    with pytest.raises(DataTypeError, match="Max.*an option of Sum.*Max.Options"):
        tf.max(x, 0, Sum.keepDims(True))  # type: ignore[arg-type]
    assert [op.name() for op in graph.operations()] == ["Const"]


def test_noneAsADataTypeIsATypeError(tf: Ops) -> None:
    with pytest.raises(DataTypeError, match="Placeholder 'p'.*'dtype'.*None"):
        tf.withName("p").placeholder(None)  # type: ignore[arg-type]
    with pytest.raises(DataTypeError, match="Cast 'c'.*'DstT'.*None"):
        tf.withName("c").dtypes.cast(tf.constant(1.0), None)  # type: ignore[arg-type]


def test_noneAsTheDataTypeOfAConstantStillMeansItsValues(tf: Ops) -> None:
    assert tf.constant(1.0, None).asOutput().dataType() is TFloat32  # type: ignore[call-overload]


@pytest.mark.parametrize("big", [2**63, -(2**63) - 1, 2**70], ids=str)
def test_anIntAttributeBeyondInt64IsRefusedNamingTheOp(tf: Ops, big: int) -> None:
    x = tf.constant([[1.0]])
    with pytest.raises(IllegalArgumentError, match="Unpack 'u'.*'num'.*out of range for int64"):
        tf.withName("u").unstack(x, big)
    with pytest.raises(IllegalArgumentError, match="Unpack 'u'.*'axis'.*out of range for int64"):
        tf.withName("u").unstack(x, 1, Unstack.axis(big))


def test_aListOfIntsAttributeBeyondInt64IsRefusedNamingTheOp(tf: Ops) -> None:
    x = tf.constant([[1.0]])
    with pytest.raises(IllegalArgumentError, match="Squeeze 's'.*out of range for int64"):
        tf.withName("s").squeeze(x, axis=[2**64])


def test_aDimensionBeyondInt64IsRefused(tf: Ops) -> None:
    with pytest.raises(IllegalArgumentError, match=str(2**63)):
        Shape.of(2**63)
    with pytest.raises(IllegalArgumentError, match="Placeholder 'p'.*'shape'"):
        tf.withName("p").placeholder(TFloat32, shape=[2**70])  # type: ignore[arg-type]


def test_opsCreateOfSomethingThatIsNotAGraphIsATypeError() -> None:
    with pytest.raises(DataTypeError, match="Ops.create.*None.*Graph"):
        Ops.create(None)  # type: ignore[arg-type]


def test_aScopeOfSomethingThatIsNotAnEnvironmentIsATypeError() -> None:
    with pytest.raises(TypeError, match="Scope.*5.*Graph"):
        Scope(5)  # type: ignore[arg-type]


def test_sessionOfSomethingThatIsNotAGraphIsATypeError() -> None:
    with pytest.raises(DataTypeError, match="Session.*None.*Graph"):
        Session(None)  # type: ignore[arg-type]


def test_controlDependenciesThatAreNotAListAreATypeError(tf: Ops) -> None:
    with pytest.raises(DataTypeError, match="None.*list"):
        tf.withControlDependencies(None)  # type: ignore[arg-type]


def test_resultGetOfNoneIsATypeError(tf: Ops, session: Session) -> None:
    result = session.runner().fetch(tf.constant(1.0)).run()
    with pytest.raises(DataTypeError, match="None.*position.*operand.*name"):
        result.get(None)  # type: ignore[arg-type]


def test_resultGetOfAPositionOutOfRangeIsAnIndexError(tf: Ops, session: Session) -> None:
    result = session.runner().fetch(tf.constant(1.0)).run()
    with pytest.raises(IndexOutOfBoundsError, match="position 5.*1 value"):
        result.get(5)
    assert isinstance(IndexOutOfBoundsError("x"), IndexError)
    assert result.get(-1).tolist() == 1.0  # Python's own negative positions stay


def test_resultGetOfAMalformedNameIsAValueError(tf: Ops, session: Session) -> None:
    result = session.runner().fetch(tf.withName("out").constant(1.0)).run()
    with pytest.raises(IllegalArgumentError, match="'out:x'"):
        result.get("out:x")
    assert result.get("out:0").tolist() == 1.0


@pytest.mark.parametrize("name", ["inp:²", "inp:٣", "inp:", "inp:-1", "inp: 1"])
def test_aFetchOfAMalformedOutputNameIsAValueError(
    tf: Ops, session: Session, name: str
) -> None:
    tf.withName("inp").placeholder(TFloat32)
    with pytest.raises(IllegalArgumentError, match="invalid output name"):
        session.runner().fetch(name)
