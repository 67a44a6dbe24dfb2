"""Graph, Operation, Output, the Operand protocol, PrimitiveOp and OperationBuilder."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Callable

import numpy as np
import pytest

from scope import Scope
from tfops import Graph, Operand, Operation, OperationBuilder, Ops, Output, PrimitiveOp, Session
from tfops import Shape as TShape
from tfops.errors import IllegalArgumentError, IllegalStateError
from tfops.op.core import Constant, Gradients, Identity, Placeholder
from tfops.types import TFloat32, TInt32


def _names(graph: Graph) -> list[str]:
    return [op.name() for op in graph.operations()]


# -- Graph ------------------------------------------------------------------------------------


def test_newGraphHasNoOperations(graph: Graph) -> None:
    assert _names(graph) == []


def test_operationFindsAnOpByName(graph: Graph, tf: Ops) -> None:
    c = tf.withName("c").constant(1.0)
    assert graph.operation("c") == c.op()


def test_operationFindsAnOpInASubScopeByItsFullName(graph: Graph, tf: Ops) -> None:
    c = tf.withSubScope("outer").withName("c").constant(1.0)
    assert graph.operation("outer/c") == c.op()


def test_operationReturnsNoneForAnUnknownName(graph: Graph, tf: Ops) -> None:
    tf.withName("c").constant(1.0)
    assert graph.operation("d") is None


def test_operationsIteratesInCreationOrder(graph: Graph, tf: Ops) -> None:
    x = tf.withName("x").placeholder(TFloat32)
    tf.withName("y").math.square(x)
    tf.withName("z").constant(2.0)
    assert _names(graph) == ["x", "y", "z"]


def test_baseScopeBuildsIntoTheGraph(graph: Graph) -> None:
    c = Constant.create(graph.baseScope(), 1.0)
    assert graph.baseScope().env() is graph
    assert graph.operation("Const") == c.op()


def test_graphIsAContextManagerThatClosesOnExit() -> None:
    with Graph() as g:
        Ops.create(g).constant(1.0)
    with pytest.raises(IllegalStateError):
        g.operation("Const")


def _closedGraphUses() -> dict[str, Callable[[Graph], object]]:
    return {
        "operation": lambda g: g.operation("x"),
        "operations": lambda g: g.operations(),
        "baseScope": lambda g: g.baseScope(),
        "opBuilder": lambda g: g.opBuilder("Const", "c", Scope(g)),
        "createAnOp": lambda g: Constant.create(Scope(g), 1.0),
        "opsFacade": lambda g: Ops.create(g).constant(1.0),
        "session": lambda g: Session(g),
    }


@pytest.mark.parametrize("use", sorted(_closedGraphUses()))
def test_closedGraphRaisesIllegalStateError(use: str) -> None:
    g = Graph()
    g.close()
    with pytest.raises(IllegalStateError):
        _closedGraphUses()[use](g)


def test_closedGraphRejectsAddGradients() -> None:
    g = Graph()
    tf = Ops.create(g)
    x = tf.placeholder(TFloat32)
    y = tf.math.square(x)
    g.close()
    with pytest.raises(IllegalStateError):
        g.addGradients(None, [y.asOutput()], [x.asOutput()])


def test_closingReleasesTheOpsNobodyHoldsWithoutTheCycleCollector() -> None:
    """As TF Java's Graph.close frees the native graph: the graph stops holding its ops, and
    an op and its outputs form no reference cycle any more, so what nobody holds is freed at
    once (the collector is paused only so that it cannot be what freed them)."""
    g = Graph()
    tf = Ops.create(g)
    x = tf.withName("x").placeholder(TFloat32)
    hidden = tf.withName("hidden").math.exp(x)
    kept = tf.withName("kept").math.log(hidden)
    dropped = weakref.ref(tf.withName("dropped").math.neg(x).op())
    hiddenOp = weakref.ref(hidden.op())
    del hidden
    gc.disable()
    try:
        g.close()
        assert dropped() is None
        assert hiddenOp() is not None  # kept's input
        y = kept.asOutput()
        del kept
        assert hiddenOp() is not None
        del y
        assert hiddenOp() is None
    finally:
        gc.enable()


def test_opsOfAClosedGraphKeepTheirFacts() -> None:
    g = Graph()
    tf = Ops.create(g)
    x = tf.withName("x").placeholder(TFloat32, shape=TShape.of(2))
    y = tf.withName("y").math.exp(x)
    split = tf.withName("split").split(tf.constant(0), tf.math.exp(x), 2)
    g.close()
    op = y.op()
    assert (op.name(), op.type(), op.numOutputs(), op.numInputs()) == ("y", "Exp", 1, 1)
    assert op.output(0) == y.asOutput() and op.outputs() == [y.asOutput()]
    assert op.output(0).shape() == TShape.of(2) and op.output(0).dataType() is TFloat32
    assert op.input(0) == x.asOutput() and op.input(0).op().output(0) == x.asOutput()
    parts = split.op().outputs()
    assert [p.name() for p in parts] == ["split:0", "split:1"]
    assert parts == list(split.output()) and hash(parts[1]) == hash(split.output()[1])
    with pytest.raises(IllegalArgumentError, match="there is no output 2"):
        split.op().output(2)


@pytest.mark.parametrize(
    "use",
    ["consumers", "outputConsumers", "size", "initializers"],
)
def test_askingAClosedGraphForWhatItNoLongerKeepsRaises(use: str) -> None:
    g = Graph()
    tf = Ops.create(g)
    x = tf.placeholder(TFloat32)
    tf.math.exp(x)
    g.close()
    calls: dict[str, Callable[[], object]] = {
        "consumers": lambda: x.op().consumers(),
        "outputConsumers": lambda: x.asOutput().consumers(),
        "size": lambda: g.size(),
        "initializers": lambda: g.initializers(),
    }
    with pytest.raises(IllegalStateError, match="closed"):
        calls[use]()


def test_closingTwiceDoesNothing() -> None:
    g = Graph()
    y = Ops.create(g).math.exp(Ops.create(g).constant(1.0))
    g.close()
    g.close()
    assert y.op().output(0) == y.asOutput()


def test_illegalStateErrorIsARuntimeError() -> None:
    g = Graph()
    g.close()
    with pytest.raises(RuntimeError):
        g.operations()


# -- Graph.addGradients -----------------------------------------------------------------------


def _square(tf: Ops) -> tuple[Output[TFloat32], Output[TFloat32]]:
    x = tf.withName("x").placeholder(TFloat32)
    return tf.withName("y").math.square(x).asOutput(), x.asOutput()


def test_addGradientsWithoutPrefixNamesOpsUnderGradients(graph: Graph, tf: Ops) -> None:
    y, x = _square(tf)
    before = set(_names(graph))
    (dx,) = graph.addGradients(None, [y], [x])
    added = [n for n in _names(graph) if n not in before]
    assert dx is not None and dx.op().name().startswith("gradients/")
    assert added and all(n.startswith("gradients/") for n in added)


def test_addGradientsWithoutPrefixTwiceUsesGradients1(graph: Graph, tf: Ops) -> None:
    y, x = _square(tf)
    graph.addGradients(None, [y], [x])
    before = set(_names(graph))
    (dx,) = graph.addGradients(None, [y], [x])
    added = [n for n in _names(graph) if n not in before]
    assert dx is not None and dx.op().name().startswith("gradients_1/")
    assert added and all(n.startswith("gradients_1/") for n in added)


def test_addGradientsWithoutPrefixAvoidsAUserSubScopeNamedGradients(graph: Graph, tf: Ops) -> None:
    y, x = _square(tf)
    tf.withSubScope("gradients").constant(1.0)
    (dx,) = graph.addGradients(None, [y], [x])
    assert dx is not None and dx.op().name().startswith("gradients_1/")


def test_addGradientsPrefixIsReservedForScopes(graph: Graph, tf: Ops) -> None:
    y, x = _square(tf)
    graph.addGradients(None, [y], [x])
    graph.addGradients("mygrads", [y], [x])
    root = Scope(graph)
    assert root.withSubScope("gradients").makeOpName("a") == "gradients_1/a"
    assert root.withSubScope("mygrads").makeOpName("a") == "mygrads_1/a"


def test_addGradientsWithAPrefixNamesOpsUnderIt(graph: Graph, tf: Ops) -> None:
    y, x = _square(tf)
    before = set(_names(graph))
    graph.addGradients("mygrads", [y], [x])
    added = [n for n in _names(graph) if n not in before]
    assert added and all(n.startswith("mygrads/") for n in added)


def test_addGradientsComputesTheDerivative(graph: Graph, tf: Ops, session: Session) -> None:
    y, x = _square(tf)
    (dx,) = graph.addGradients(None, [y], [x])
    assert dx is not None
    value = session.runner().feed(x, np.float32(3.0)).fetch(dx).run()[0]
    assert value == np.float32(6.0)


def test_addGradientsWithAPrefixAlreadyUsedRaisesValueError(graph: Graph, tf: Ops) -> None:
    y, x = _square(tf)
    graph.addGradients("mygrads", [y], [x])
    with pytest.raises(ValueError):
        graph.addGradients("mygrads", [y], [x])


def test_addGradientsWithAPrefixThatIsAnOpNameRaisesValueError(graph: Graph, tf: Ops) -> None:
    y, x = _square(tf)
    with pytest.raises(ValueError):
        graph.addGradients("y", [y], [x])


def test_addGradientsWithAPrefixThatIsASubScopeRaisesValueError(graph: Graph, tf: Ops) -> None:
    y, x = _square(tf)
    tf.withSubScope("used").constant(1.0)
    with pytest.raises(ValueError):
        graph.addGradients("used", [y], [x])


def test_failedAddGradientsLeavesTheGraphUnchanged(graph: Graph, tf: Ops) -> None:
    y, x = _square(tf)
    before = _names(graph)
    with pytest.raises(ValueError):
        graph.addGradients(None, [y], [x], dx=[y, y])  # one dx per y
    assert _names(graph) == before
    assert graph.baseScope().makeOpName("gradients") == "gradients"


# -- Operation --------------------------------------------------------------------------------


def test_operationNameAndType(tf: Ops) -> None:
    op = tf.withSubScope("s").withName("sq").math.square(tf.constant(2.0)).op()
    assert (op.name(), op.type()) == ("s/sq", "Square")


def test_operationInputs(tf: Ops) -> None:
    a, b = tf.constant(1.0), tf.constant(2.0)
    op = tf.math.sub(a, b).op()
    assert op.numInputs() == 2
    assert [op.input(0), op.input(1)] == [a.asOutput(), b.asOutput()]
    assert list(op.inputs()) == [a.asOutput(), b.asOutput()]


def test_operationOutputs(tf: Ops) -> None:
    op = tf.broadcastGradientArgs(tf.constant([2, 3]), tf.constant([3])).op()
    assert op.numOutputs() == 2
    assert [(op.output(i).op(), op.output(i).index()) for i in range(2)] == [(op, 0), (op, 1)]


def test_constantHasNoInputsAndOneOutput(tf: Ops) -> None:
    op = tf.constant(1.0).op()
    assert (op.numInputs(), op.numOutputs(), list(op.inputs())) == (0, 1, [])


def test_consumersAreTheOpsThatReadAnOutput(tf: Ops) -> None:
    x = tf.constant(1.0)
    a = tf.math.neg(x)
    b = tf.math.square(x)
    tf.math.neg(a)
    assert x.op().consumers() == [a.op(), b.op()]


def test_consumersListAnOpOnceWhenItReadsAnOutputTwice(tf: Ops) -> None:
    x = tf.constant(1.0)
    m = tf.math.mul(x, x)
    assert x.op().consumers() == [m.op()]


def test_consumersOfAnUnusedOpIsEmpty(tf: Ops) -> None:
    assert tf.constant(1.0).op().consumers() == []


def test_attrReturnsAnAttributeValue(tf: Ops) -> None:
    p = tf.placeholder(TInt32, Placeholder.shape(TShape.of(-1, 3)))
    assert p.op().attr("dtype") is TInt32
    assert p.op().attr("shape") == TShape.of(-1, 3)


def test_attrOfAConstantIsItsValue(tf: Ops) -> None:
    c = tf.constant([1.0, 2.0])
    value = c.op().attr("value")
    assert isinstance(value, np.ndarray) and value.tolist() == [1.0, 2.0]


def test_operationsAreEqualByGraphAndName(graph: Graph, tf: Ops) -> None:
    op = tf.withName("c").constant(1.0).op()
    same = graph.operation("c")
    assert same == op and hash(same) == hash(op)


def test_operationsOfDifferentNamesDiffer(tf: Ops) -> None:
    assert tf.constant(1.0).op() != tf.constant(1.0).op()


def test_operationsOfTheSameNameInTwoGraphsDiffer() -> None:
    a = Ops.create(Graph()).constant(1.0).op()
    b = Ops.create(Graph()).constant(1.0).op()
    assert a.name() == b.name()
    assert a != b


# -- Output -----------------------------------------------------------------------------------


def test_outputAccessors(tf: Ops) -> None:
    c = tf.withName("c").constant([[1.0, 2.0, 3.0]])
    out = c.asOutput()
    assert (out.op(), out.index(), out.shape(), out.dataType()) == (
        c.op(),
        0,
        TShape.of(1, 3),
        TFloat32,
    )
    assert out.dataType() is TFloat32


def test_outputNameIsOpNameColonIndex(tf: Ops) -> None:
    args = tf.withSubScope("s").withName("b").broadcastGradientArgs([2, 3], [3])
    assert [args.r0().name(), args.r1().name()] == ["s/b:0", "s/b:1"]


def test_asOutputOfAnOutputIsItself(tf: Ops) -> None:
    out = tf.constant(1.0).asOutput()
    assert out.asOutput() is out


def test_outputsAreEqualByOperationAndIndex(tf: Ops) -> None:
    c = tf.constant(1.0)
    a, b = c.op().output(0), c.op().output(0)
    assert a == b and hash(a) == hash(b)
    assert {a: "value"}[b] == "value"


def test_outputsOfDifferentIndicesDiffer(tf: Ops) -> None:
    op = tf.broadcastGradientArgs([2, 3], [3]).op()
    assert op.output(0) != op.output(1)


def test_outputsOfDifferentOperationsDiffer(tf: Ops) -> None:
    assert tf.constant(1.0).asOutput() != tf.constant(1.0).asOutput()


# -- Operand ----------------------------------------------------------------------------------


def test_outputIsAnOperand(tf: Ops) -> None:
    assert isinstance(tf.constant(1.0).asOutput(), Operand)


def test_singleOutputOpClassIsAnOperand(tf: Ops) -> None:
    c = tf.constant(1.0)
    assert isinstance(c, Operand)
    assert c.asOutput() == c.op().output(0)


def test_multiOutputOpClassIsNotAnOperand(tf: Ops) -> None:
    assert not isinstance(tf.broadcastGradientArgs([2, 3], [3]), Operand)


def test_anOperandIsAcceptedWhereAnInputIsExpected(tf: Ops) -> None:
    c = tf.constant(2.0)
    assert tf.math.square(c).op().input(0) == tf.math.square(c.asOutput()).op().input(0)


# -- PrimitiveOp ------------------------------------------------------------------------------


def test_opClassesArePrimitiveOps(tf: Ops) -> None:
    ops: list[object] = [tf.constant(1.0), tf.math.exp(1.0), tf.broadcastGradientArgs([1], [1])]
    assert all(isinstance(op, PrimitiveOp) for op in ops)


def test_primitiveOpWrapsItsOperation(graph: Graph, tf: Ops) -> None:
    c = tf.withName("c").constant(1.0)
    assert c.op() == graph.operation("c")


def test_primitiveOpsAreEqualByOperation(tf: Ops) -> None:
    c = tf.constant(1.0)
    again = Constant(c.op())
    assert again == c and hash(again) == hash(c)


def test_primitiveOpsWrappingTheSameOperationAreEqualWhateverTheirClass(tf: Ops) -> None:
    # TensorFlow Java's PrimitiveOp.equals: equal no matter their implementation.
    c = tf.constant(1.0)
    assert Identity(c.op()) == c


def test_primitiveOpsOfDifferentOperationsDiffer(tf: Ops) -> None:
    assert tf.constant(1.0) != tf.constant(1.0)


def test_primitiveOpIsNotEqualToItsOperation(tf: Ops) -> None:
    c = tf.constant(1.0)
    assert c != c.op()


def test_primitiveOpReprShowsTypeAndName(tf: Ops) -> None:
    assert repr(tf.withSubScope("s").withName("c").constant(1.0)) == "<Const 's/c'>"


# -- OperationBuilder -------------------------------------------------------------------------


def test_scopeOpBuilderBuildsANamedOperation(graph: Graph) -> None:
    op = graph.baseScope().opBuilder("Placeholder", "x").setAttr("dtype", TFloat32).build()
    assert isinstance(op, Operation)
    assert (op.name(), op.type(), op.output(0).dataType()) == ("x", "Placeholder", TFloat32)
    assert graph.operation("x") == op


def test_scopeOpBuilderMakesTheNameUnique(graph: Graph) -> None:
    s = Scope(graph).withSubScope("sub")
    a = s.opBuilder("Placeholder", "x").setAttr("dtype", TFloat32).build()
    b = s.opBuilder("Placeholder", "x").setAttr("dtype", TFloat32).build()
    assert [a.name(), b.name()] == ["sub/x", "sub/x_1"]


def test_opBuilderIsAnOperationBuilder(graph: Graph) -> None:
    assert isinstance(graph.baseScope().opBuilder("Placeholder", "x"), OperationBuilder)


def test_addInput(graph: Graph, tf: Ops) -> None:
    x = tf.constant([1.0, 2.0])
    op = graph.baseScope().opBuilder("Identity", "id").addInput(x).build()
    assert (op.numInputs(), op.input(0), op.output(0).shape()) == (1, x.asOutput(), TShape.of(2))


def test_addInputList(graph: Graph, tf: Ops, session: Session) -> None:
    a, b = tf.constant(1.0), tf.constant(2.0)
    op = graph.baseScope().opBuilder("AddN", "sum").addInputList([a, b.asOutput()]).build()
    assert list(op.inputs()) == [a.asOutput(), b.asOutput()]
    assert session.runner().fetch(op.output(0)).run()[0] == np.float32(3.0)


def test_addControlInput(graph: Graph, tf: Ops) -> None:
    a = tf.constant(1.0)
    b = tf.constant(2.0)
    op = (
        graph.baseScope()
        .opBuilder("Identity", "id")
        .addInput(a)
        .addControlInput(b)
        .addControlInput(a.op())
        .build()
    )
    assert op.controlInputs() == (b.op(), a.op())


def test_setAttr(graph: Graph) -> None:
    op = (
        graph.baseScope()
        .opBuilder("Placeholder", "x")
        .setAttr("dtype", TInt32)
        .setAttr("shape", TShape.of(2))
        .build()
    )
    assert (op.attr("dtype"), op.output(0).shape()) == (TInt32, TShape.of(2))


def test_setDevice(graph: Graph) -> None:
    op = (
        graph.baseScope()
        .opBuilder("Placeholder", "x")
        .setAttr("dtype", TFloat32)
        .setDevice("/device:CPU:0")
        .build()
    )
    assert op.device() == "/device:CPU:0"


def test_scopeOpBuilderAppliesTheScopesControlsAndDevice(graph: Graph, tf: Ops) -> None:
    a = tf.constant(1.0)
    s = Scope(graph).withControlDependencies([a]).withDevice("/device:CPU:0")
    op = s.opBuilder("Placeholder", "x").setAttr("dtype", TFloat32).build()
    assert (op.controlInputs(), op.device()) == ((a.op(),), "/device:CPU:0")


def test_graphOpBuilderUsesTheNameExactly(graph: Graph) -> None:
    s = Scope(graph)
    a = graph.opBuilder("Placeholder", "x", s).setAttr("dtype", TFloat32).build()
    b = graph.opBuilder("Placeholder", "outer/inner", s).setAttr("dtype", TFloat32).build()
    assert [a.name(), b.name()] == ["x", "outer/inner"]


def test_graphOpBuilderNameIsReservedForScopes(graph: Graph) -> None:
    s = Scope(graph)
    graph.opBuilder("Placeholder", "x", s).setAttr("dtype", TFloat32).build()
    graph.opBuilder("Placeholder", "outer/inner", s).setAttr("dtype", TFloat32).build()
    assert s.makeOpName("x") == "x_1"
    assert s.withSubScope("outer").makeOpName("inner") == "outer/inner_1"


@pytest.mark.parametrize(
    "name", ["", "_x", "-x", "a$", "/a", "a/", "a//b", "a/_b", "a b"], ids=repr
)
def test_graphOpBuilderRejectsAnInvalidName(graph: Graph, name: str) -> None:
    with pytest.raises(ValueError):
        graph.opBuilder("Placeholder", name, Scope(graph)).setAttr("dtype", TFloat32).build()
    assert _names(graph) == []


def test_graphOpBuilderRejectsADuplicateName(graph: Graph) -> None:
    s = Scope(graph)
    first = graph.opBuilder("Placeholder", "x", s).setAttr("dtype", TFloat32).build()
    with pytest.raises(ValueError):
        graph.opBuilder("Placeholder", "x", s).setAttr("dtype", TInt32).build()
    assert list(graph.operations()) == [first]
    assert first.attr("dtype") is TFloat32


def test_buildRejectsAnUnknownOpType(graph: Graph) -> None:
    with pytest.raises(ValueError):
        graph.baseScope().opBuilder("NoSuchOp", "x").build()
    assert _names(graph) == []


def test_buildRejectsAWrongNumberOfInputs(graph: Graph, tf: Ops) -> None:
    x = tf.constant(1.0)
    with pytest.raises(ValueError):
        graph.baseScope().opBuilder("Sub", "s").addInput(x).build()


def test_buildRejectsAnUnknownAttribute(graph: Graph) -> None:
    b = graph.baseScope().opBuilder("Placeholder", "x").setAttr("dtype", TFloat32)
    with pytest.raises(ValueError):
        b.setAttr("no_such_attr", 1).build()


def test_buildRejectsAMissingRequiredAttribute(graph: Graph) -> None:
    with pytest.raises(ValueError):
        graph.baseScope().opBuilder("Placeholder", "x").build()


def test_buildRejectsInputsOfDifferentDataTypes(graph: Graph, tf: Ops) -> None:
    b = graph.baseScope().opBuilder("Sub", "s").addInput(tf.constant(1.0))
    with pytest.raises(TypeError):
        b.addInput(tf.constant(1)).build()


def test_buildRejectsAnInputFromAnotherGraph(graph: Graph) -> None:
    other = Ops.create(Graph()).constant(1.0)
    with pytest.raises(ValueError):
        graph.baseScope().opBuilder("Identity", "id").addInput(other).build()
    assert _names(graph) == []


def test_addInputRejectsANonOperand(graph: Graph) -> None:
    with pytest.raises(TypeError):
        graph.baseScope().opBuilder("Identity", "id").addInput(1.0).build()  # type: ignore[arg-type]


# -- atomicity of op creation -----------------------------------------------------------------


def test_failedCreateLeavesOperationsAndNamesUnchanged(graph: Graph, tf: Ops) -> None:
    x = tf.constant([1.0, 2.0])
    before = list(graph.operations())
    with pytest.raises(ValueError):
        tf.math.sub(x, [1.0, 2.0, 3.0])  # the Const for the value is added, then the Sub fails
    assert list(graph.operations()) == before
    s = tf.scope()
    assert [s.makeOpName("Const"), s.makeOpName("Sub")] == ["Const_1", "Sub"]


def test_failedCreateWithADataTypeErrorLeavesTheGraphUnchanged(graph: Graph, tf: Ops) -> None:
    x = tf.constant(1.0)
    with pytest.raises(TypeError):
        tf.math.sub(x, tf.constant(1))
    assert _names(graph) == ["Const", "Const_1"]
    assert tf.math.sub(x, x).op().name() == "Sub"


def test_failedCreateWithAnExplicitNameLeavesTheNameFree(graph: Graph, tf: Ops) -> None:
    x = tf.constant(1.0)
    with pytest.raises(ValueError):
        tf.withName("diff").math.sub([[1.0, 2.0]], [1.0, 2.0, 3.0])
    assert tf.withName("diff").math.sub(x, x).op().name() == "diff"


def test_failedCompositeCreateLeavesOperationsAndNamesUnchanged(graph: Graph, tf: Ops) -> None:
    x = tf.constant([1.0, 2.0])
    y = tf.math.square(x)
    with pytest.raises(ValueError):
        tf.gradients(y, [x], Gradients.dx([x, x]))  # one dx per y
    assert _names(graph) == ["Const", "Square"]
    assert tf.scope().makeOpName("Gradients") == "Gradients"
