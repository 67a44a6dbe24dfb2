"""Reliability under attack: what another thread may see, which names a failure gives back,
feeds, memory, aliasing, and raw errors that must be tfops errors (issue 17)."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from scope import Scope
from tfops import Graph, Ops, Shape
from tfops.op import InferContext, InputDef, OpDef, OutputDef, lookupOp, registerOp
from tfops.op._build import build
from tfops.types import TFloat64


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

