# ruff: noqa: E402
"""The catalogue of misuse: each wrong use of tfops, the error it raises, and its message.

``CASES`` is one table. Each case performs one misuse on a fresh graph and states the exception
API.md prescribes and the text its message must contain. Every message names the op concerned;
a run-time error (an ``OpError``) also names the file:line in this module where that op was
created, and holds the op in ``.op``. A failed construction leaves the graph exactly as it was:
the same operations and the same names still free.

docs/misuse.md is rendered from the table; after changing it, regenerate the page with
``python tests/test_misuse_catalogue.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: import tfops from this checkout
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import numpy as np
import pytest

from scope import HasOp
from tfops import Graph, Operation, Ops, Session
from tfops import Shape as TShape
from tfops.errors import (
    DataTypeError,
    FailedPreconditionError,
    IllegalArgumentError,
    IllegalStateError,
    IndexOutOfBoundsError,
    InvalidArgumentError,
    NoGradientError,
    OpError,
    ResourceExhaustedError,
)
from tfops.op import InputDef, OpDef, OutputDef, lookupOp, registerOp
from tfops.op.core import Gradients, Max, Placeholder, Sum, Variable
from tfops.types import TFloat32, TFloat64, TInt32, TUint8

ROOT: Final = Path(__file__).resolve().parents[1]
DOC: Final = ROOT / "docs" / "misuse.md"
REGENERATE: Final = "python tests/test_misuse_catalogue.py"

NO_GRADIENT_OP: Final = "TfopsMisuseCatalogueNoGradient"
"""An op type registered here without a gradient (a user's op whose author forgot one)."""

if lookupOp(NO_GRADIENT_OP) is None:
    registerOp(
        OpDef(
            type=NO_GRADIENT_OP,
            group="test",
            summary="Returns x (a test op without a gradient).",
            description="",
            inputs=(InputDef("x", "the input", dtype=TFloat32),),
            outputs=(OutputDef("y", "the output", dtype=TFloat32),),
            infer=lambda ctx: [ctx.shapes[0]],
        )
    )

H = TypeVar("H", bound=HasOp)

CONSTRUCTION: Final = "construction"
REQUEST: Final = "request"
RUN: Final = "run"
WHEN = {
    CONSTRUCTION: "building the graph",
    REQUEST: "asking a session",
    RUN: "running",
}


# -- the world a case acts on -----------------------------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """What a failed construction must leave unchanged: the operations (names, in order) and the
    graph's name registry (every name taken, and the next suffix of each)."""

    operations: list[str]
    names: dict[str, dict[str, int]]

    @staticmethod
    def of(graph: Graph) -> Snapshot:
        # private reads: a closed graph refuses operations(), and the registry has no public
        # view of its counters (``_ids``: prefix -> {name taken -> next suffix}; a prefix with
        # no entry takes no name, so it is left out)
        taken = graph.nameRegistry()._ids
        return Snapshot(
            [op.name() for op in graph._opList],
            {prefix: dict(ids) for prefix, ids in taken.items() if ids},
        )


class World:
    """A fresh graph and its ``Ops`` for one case; records the op an error must name and where
    it was created, and the graph just before and after the misuse."""

    def __init__(self) -> None:
        self.graph = Graph()
        self.tf = Ops.create(self.graph)
        self.culprit: Operation | None = None
        self.site: str | None = None
        self.before: Snapshot | None = None
        self.after: Snapshot | None = None

    def blame(self, op: H) -> H:
        """Marks ``op`` (created on the calling line) as the op a run-time error must name."""
        frame = inspect.currentframe()
        assert frame is not None and frame.f_back is not None
        self.site = f"{frame.f_back.f_code.co_filename}:{frame.f_back.f_lineno}"
        self.culprit = op.op()
        return op

    def misuse(self, action: Callable[[], object]) -> None:
        """Performs the misuse itself, recording the graph before and after it."""
        self.before = Snapshot.of(self.graph)
        try:
            action()
        finally:
            self.after = Snapshot.of(self.graph)


@dataclass(frozen=True)
class Case:
    """One misuse: what it is, how to perform it, what it raises and what the message says."""

    name: str
    when: str
    perform: Callable[[World], None]
    error: type[BaseException]
    texts: tuple[str, ...]

    def id(self) -> str:
        return self.name.replace(" ", "-")


def _foreign(name: str = "foreign") -> Any:
    """A constant named ``name`` in another graph."""
    return Ops.create(Graph()).withName(name).constant(1.0)


# -- construction -----------------------------------------------------------------------------


def _incompatibleShapesInABinaryOp(w: World) -> None:
    w.misuse(lambda: w.tf.withName("add").math.add([1.0, 2.0], [1.0, 2.0, 3.0]))


def _incompatibleShapesInAMatMul(w: World) -> None:
    a, b = w.tf.constant(np.ones((2, 3)), TFloat64), w.tf.constant(np.ones((2, 3)), TFloat64)
    w.misuse(lambda: w.tf.withName("mm").linalg.matMul(a, b))


def _matMulOfAVector(w: World) -> None:
    a, b = w.tf.constant([1.0]), w.tf.constant([[1.0]])
    w.misuse(lambda: w.tf.withName("mm").linalg.matMul(a, b))


def _dataTypesThatDisagree(w: World) -> None:
    a, b = w.tf.constant(1.0), w.tf.constant(1)
    w.misuse(lambda: w.tf.withName("sub").math.sub(a, b))


def _dataTypeTheOpDoesNotAccept(w: World) -> None:
    i = w.tf.constant(1)
    w.misuse(lambda: w.tf.withName("exp").math.exp(i))  # type: ignore[type-var]


def _operandFromAnotherGraph(w: World) -> None:
    other = _foreign()
    w.misuse(lambda: w.tf.withName("neg").math.neg(other))


def _inputThatIsNotAnOperand(w: World) -> None:
    w.misuse(lambda: w.tf.withName("neg").math.neg("hello"))


def _raggedConstant(w: World) -> None:
    w.misuse(lambda: w.tf.withName("c").constant([[1.0], [1.0, 2.0]]))


def _constantOutOfRangeForItsType(w: World) -> None:
    w.misuse(lambda: w.tf.withName("c").constant(2**40, TInt32))


def _invalidExplicitName(w: World) -> None:
    w.misuse(lambda: w.graph.opBuilder("NoOp", "a$"))


def _duplicateExplicitName(w: World) -> None:
    w.tf.withName("c").constant(1.0)
    w.misuse(lambda: w.graph.opBuilder("NoOp", "c").build())


def _invalidSubScopeName(w: World) -> None:
    w.misuse(lambda: w.tf.withSubScope("-x"))


def _unknownOpType(w: World) -> None:
    w.misuse(lambda: w.graph.opBuilder("NoSuchOp", "n").build())


def _unknownAttribute(w: World) -> None:
    builder = w.graph.opBuilder("Const", "c").setAttr("valu", np.array(1.0))
    w.misuse(builder.build)


def _unknownOption(w: World) -> None:
    x = w.tf.constant([1.0])
    w.misuse(lambda: w.tf.withName("m").max(x, 0, Placeholder.shape(TShape.of(1))))  # type: ignore[arg-type]


def _wrongAttributeType(w: World) -> None:
    x = w.tf.constant([1.0])
    w.misuse(lambda: w.tf.withName("m").max(x, 0, Max.keepDims("yes")))  # type: ignore[arg-type]


def _stringForAShapeAttribute(w: World) -> None:
    w.misuse(lambda: w.tf.withName("p").placeholder(TFloat32, Placeholder.shape("abc")))  # type: ignore[arg-type]


def _fractionalDimensionInAShapeAttribute(w: World) -> None:
    w.misuse(lambda: w.tf.withName("p").placeholder(TFloat32, Placeholder.shape([2.5])))  # type: ignore[arg-type]


def _negativeDimensionInAShape(w: World) -> None:
    w.misuse(lambda: TShape.of(-2))


def _closedGraph(w: World) -> None:
    w.graph.close()
    w.misuse(lambda: w.tf.withName("c").constant(1.0))


def _reductionAxisOutOfRange(w: World) -> None:
    x = w.tf.constant([[1.0]])
    w.misuse(lambda: w.tf.withName("sum").sum(x, 2))


def _reshapeToAnIncompatibleSize(w: World) -> None:
    x = w.tf.constant([1.0, 2.0, 3.0])
    w.misuse(lambda: w.tf.withName("r").reshape(x, [2, 2]))


def _assignmentOfTheWrongShape(w: World) -> None:
    v = w.tf.withName("v").variable(w.tf.constant([1.0]))
    value = w.tf.constant([1.0, 2.0])
    w.misuse(lambda: w.tf.withName("a").assign(v, value))


def _assignAddToANonVariable(w: World) -> None:
    c = w.tf.constant([1.0])
    w.misuse(lambda: w.tf.withName("a").assignAdd(c, c))


def _variableOfUnknownShape(w: World) -> None:
    init = w.tf.withName("init").placeholder(TFloat32)
    w.misuse(lambda: w.tf.withName("v").variable(init))


def _gradientThroughAnOpWithoutOne(w: World) -> None:
    x = w.tf.placeholder(TFloat32)
    y = w.tf.scope().opBuilder(NO_GRADIENT_OP, "noGrad").addInput(w.tf.math.square(x)).build()
    w.misuse(lambda: w.tf.gradients(y.output(0), [x]))


def _dxOfTheWrongLength(w: World) -> None:
    x = w.tf.placeholder(TFloat32)
    y = w.tf.withName("y").math.square(x)
    dx = Gradients.dx([w.tf.constant(1.0), w.tf.constant(1.0)])
    w.misuse(lambda: w.tf.gradients(y, [x], dx))


def _dxOfTheWrongShape(w: World) -> None:
    x = w.tf.placeholder(TFloat32, Placeholder.shape(TShape.of(2)))
    y = w.tf.withName("y").math.square(x)
    dx = Gradients.dx([w.tf.constant([1.0, 2.0, 3.0])])
    w.misuse(lambda: w.tf.gradients(y, [x], dx))


def _dxOfTheWrongDataType(w: World) -> None:
    x = w.tf.placeholder(TFloat32)
    y = w.tf.withName("y").math.square(x)
    dx = Gradients.dx([w.tf.constant(np.float64(1.0))])
    w.misuse(lambda: w.tf.gradients(y, [x], dx))


def _gradientPrefixAlreadyUsed(w: World) -> None:
    x = w.tf.placeholder(TFloat32).asOutput()
    y = w.tf.math.square(x).asOutput()
    w.graph.addGradients("g", [y], [x])
    w.misuse(lambda: w.graph.addGradients("g", [y], [x]))


def _controlDependencyCycle(w: World) -> None:
    # An op can only depend on ops that already exist, so the only way to make an op depend on
    # itself is to build it again, under its own name, with itself as a control input.
    n = w.tf.withName("n").noOp()
    w.misuse(lambda: w.graph.opBuilder("NoOp", "n").addControlInput(n).build())


def _controlDependencyOnAnotherGraph(w: World) -> None:
    other = _foreign()
    w.misuse(lambda: w.tf.withControlDependencies([other]).withName("c").constant(1.0))


def _controlDependencyThatIsNotAnOp(w: World) -> None:
    w.misuse(lambda: w.tf.withControlDependencies(["hello"]).withName("c").constant(1.0))  # type: ignore[list-item]


def _userOpClassGivenAForeignOperand(w: World) -> None:
    # what a user's op class does in its create(): scope.opBuilder(...).addInput(x).build()
    other = _foreign()
    w.misuse(lambda: w.tf.scope().opBuilder(NO_GRADIENT_OP, "mine").addInput(other).build())


class _Impostor:
    """An operand whose ``asOutput()`` returns something that is not an ``Output``."""

    def asOutput(self) -> object:
        return 5


def _operandWhoseAsOutputIsNotAnOutput(w: World) -> None:
    w.misuse(lambda: w.tf.withName("neg").math.neg(_Impostor()))  # type: ignore[arg-type]


def _arrayOfAnUnsupportedDtype(w: World) -> None:
    w.misuse(lambda: w.tf.withName("add").math.add(np.array([1, 2], np.int8), 1))


def _optionOfAnotherOpClass(w: World) -> None:
    x = w.tf.constant([1.0])
    w.misuse(lambda: w.tf.withName("m").max(x, 0, Sum.keepDims(True)))  # type: ignore[arg-type]


def _noneAsADataType(w: World) -> None:
    w.misuse(lambda: w.tf.withName("p").placeholder(None))  # type: ignore[arg-type]


def _intAttributeBeyondInt64(w: World) -> None:
    x = w.tf.constant([[1.0]])
    w.misuse(lambda: w.tf.withName("u").unstack(x, 2**64))


def _dimensionBeyondInt64(w: World) -> None:
    w.misuse(lambda: w.tf.withName("p").placeholder(TFloat32, shape=[2**64]))  # type: ignore[arg-type]


def _builderConstOfAnotherDataType(w: World) -> None:
    builder = w.graph.opBuilder("Const", "c").setAttr("value", np.array([1.5]))
    w.misuse(lambda: builder.setAttr("dtype", TInt32).build())


def _opsOfSomethingThatIsNotAGraph(w: World) -> None:
    w.misuse(lambda: Ops.create(None))  # type: ignore[arg-type]


def _controlDependenciesThatAreNotAList(w: World) -> None:
    w.misuse(lambda: w.tf.withControlDependencies(None))  # type: ignore[arg-type]


# -- requests to a session --------------------------------------------------------------------


def _fetchOfAMissingName(w: World) -> None:
    w.tf.withName("c").constant(1.0)
    session = Session(w.graph)
    w.misuse(lambda: session.runner().fetch("missing"))


def _fetchOfAMissingOutput(w: World) -> None:
    w.tf.withName("op").constant(1.0)
    session = Session(w.graph)
    w.misuse(lambda: session.runner().fetch("op:7"))


def _fetchFromAnotherGraph(w: World) -> None:
    other = _foreign()
    session = Session(w.graph)
    w.misuse(lambda: session.runner().fetch(other))


def _closedSession(w: World) -> None:
    c = w.tf.withName("c").constant(1.0)
    session = Session(w.graph)
    session.close()
    w.misuse(lambda: session.runner().fetch(c).run())


def _targetThatIsNotAnOp(w: World) -> None:
    session = Session(w.graph)
    w.misuse(lambda: session.run(None))  # type: ignore[arg-type]


def _negativeMemoryLimit(w: World) -> None:
    w.misuse(lambda: Session(w.graph, memoryLimit=-1))


def _unknownSessionOption(w: World) -> None:
    w.misuse(lambda: Session(w.graph, checkNumeric=True))  # type: ignore[call-arg]


def _sessionOfSomethingThatIsNotAGraph(w: World) -> None:
    w.misuse(lambda: Session(None))  # type: ignore[arg-type]


def _pythonIntFedOutOfRange(w: World) -> None:
    x = w.tf.withName("x").placeholder(TInt32)
    w.misuse(lambda: Session(w.graph).runner().feed(x, 2**40))


def _pythonFloatFedToAnIntegerPlaceholder(w: World) -> None:
    x = w.tf.withName("x").placeholder(TInt32)
    w.misuse(lambda: Session(w.graph).runner().feed(x, 1.5))


def _fetchOfAnOperandWhoseAsOutputIsNotAnOutput(w: World) -> None:
    session = Session(w.graph)
    w.misuse(lambda: session.runner().fetch(_Impostor()))  # type: ignore[arg-type]


def _fetchOfAMalformedOutputName(w: World) -> None:
    w.tf.withName("x").placeholder(TFloat32)
    session = Session(w.graph)
    w.misuse(lambda: session.runner().fetch("x:²"))


def _resultOfNone(w: World) -> None:
    result = Session(w.graph).runner().fetch(w.tf.withName("c").constant(1.0)).run()
    w.misuse(lambda: result.get(None))  # type: ignore[arg-type]


def _resultOfAPositionOutOfRange(w: World) -> None:
    result = Session(w.graph).runner().fetch(w.tf.withName("c").constant(1.0)).run()
    w.misuse(lambda: result.get(5))


def _resultOfAMalformedName(w: World) -> None:
    result = Session(w.graph).runner().fetch(w.tf.withName("c").constant(1.0)).run()
    w.misuse(lambda: result.get("c:x"))


# -- running ----------------------------------------------------------------------------------


def _unfedPlaceholder(w: World) -> None:
    x = w.blame(w.tf.withName("x").placeholder(TFloat32))
    y = w.tf.math.square(x)
    w.misuse(lambda: Session(w.graph).runner().fetch(y).run())


def _feedOfTheWrongShape(w: World) -> None:
    x = w.blame(w.tf.withName("x").placeholder(TFloat32, Placeholder.shape(TShape.of(2))))
    w.misuse(lambda: Session(w.graph).runner().feed(x, np.zeros(3, np.float32)).fetch(x).run())


def _feedOfTheWrongDataType(w: World) -> None:
    x = w.blame(w.tf.withName("x").placeholder(TInt32))
    w.misuse(lambda: Session(w.graph).runner().feed(x, np.array([1.5, 2.0])).fetch(x).run())


def _feedOfAValueThatIsNotArrayLike(w: World) -> None:
    x = w.blame(w.tf.withName("x").placeholder(TFloat32))
    w.misuse(lambda: Session(w.graph).runner().feed(x, object()).fetch(x).run())


def _variableReadBeforeInitialization(w: World) -> None:
    # a variable without an initializer (tf.variable(init)'s is run by the session itself)
    v = w.blame(Variable.create(w.tf.withName("v").scope(), TShape.of(1), TFloat32))
    w.misuse(lambda: Session(w.graph).runner().fetch(v).run())


def _assignmentOfAFedValueOfTheWrongShape(w: World) -> None:
    v = w.tf.withName("v").variable(w.tf.constant([1.0]))
    value = w.tf.placeholder(TFloat32)
    a = w.blame(w.tf.withName("a").assign(v, value))
    session = Session(w.graph)
    session.initialize()
    w.misuse(lambda: session.runner().feed(value, np.ones(2, np.float32)).addTarget(a).run())


def _integerDivisionByZero(w: World) -> None:
    d = w.blame(w.tf.withName("d").math.div(w.tf.constant([1, 2]), w.tf.constant([1, 0])))
    w.misuse(lambda: Session(w.graph).runner().fetch(d).run())


def _reshapeToAFedIncompatibleShape(w: World) -> None:
    shape = w.tf.placeholder(TInt32)
    r = w.blame(w.tf.withName("r").reshape(w.tf.constant([1.0, 2.0, 3.0]), shape))
    feed = np.array([2, 2], np.int32)
    w.misuse(lambda: Session(w.graph).runner().feed(shape, feed).fetch(r).run())


def _fedReductionAxisOutOfRange(w: World) -> None:
    axis = w.tf.placeholder(TInt32)
    s = w.blame(w.tf.withName("sum").sum(w.tf.constant([1.0, 2.0]), axis))
    w.misuse(lambda: Session(w.graph).runner().feed(axis, np.int32(3)).fetch(s).run())


def _gatherIndexOutOfRange(w: World) -> None:
    params, indices = w.tf.constant([1.0, 2.0]), w.tf.placeholder(TInt32)
    g = w.blame(w.tf.withName("gather").gather(params, indices, 0))
    feed = np.array([5], np.int32)
    w.misuse(lambda: Session(w.graph).runner().feed(indices, feed).fetch(g).run())


def _checkNumericsOptionHit(w: World) -> None:
    x = w.tf.placeholder(TFloat64)
    log = w.blame(w.tf.withName("log").math.log(x))
    y = w.tf.math.exp(log)
    session = Session(w.graph, checkNumerics=True)
    w.misuse(lambda: session.runner().feed(x, np.array([1.0, -1.0])).fetch(y).run())


def _checkNumericsOpHit(w: World) -> None:
    x = w.tf.placeholder(TFloat64)
    check = w.blame(w.tf.withName("check").checkNumerics(w.tf.math.log(x), "log of x"))
    w.misuse(lambda: Session(w.graph).runner().feed(x, np.array([-1.0])).fetch(check).run())


def _hugeStaticAllocation(w: World) -> None:
    fill = w.blame(w.tf.withName("fill").fill([1000, 1000], w.tf.constant(1.0)))
    session = Session(w.graph, memoryLimit=1000)
    w.misuse(lambda: session.runner().fetch(fill).run())


def _hugeFedAllocation(w: World) -> None:
    dims = w.tf.placeholder(TInt32)
    fill = w.blame(w.tf.withName("fill").fill(dims, w.tf.constant(1.0)))
    session = Session(w.graph, memoryLimit=1000)
    feed = np.array([1000, 1000], np.int32)
    w.misuse(lambda: session.runner().feed(dims, feed).fetch(fill).run())


def _castPastTheMemoryLimit(w: World) -> None:
    x = w.tf.placeholder(TUint8)
    cast = w.blame(w.tf.withName("cast").dtypes.cast(x, TFloat64))
    session = Session(w.graph, memoryLimit=1000)
    feed = np.ones(600, np.uint8)  # 600 bytes fed, 4,800 made
    w.misuse(lambda: session.runner().feed(x, feed).fetch(cast).run())


def _broadcastPastTheMemoryLimit(w: World) -> None:
    a, b = w.tf.placeholder(TFloat32), w.tf.placeholder(TFloat32)
    add = w.blame(w.tf.withName("add").math.add(a, b))
    session = Session(w.graph, memoryLimit=1000)
    col, row = np.ones((20, 1), np.float32), np.ones((1, 20), np.float32)
    w.misuse(lambda: session.runner().feed(a, col).feed(b, row).fetch(add).run())


# -- the catalogue ----------------------------------------------------------------------------

C, Q, R = CONSTRUCTION, REQUEST, RUN

CASES: Final = [
    Case("incompatible shapes in a binary op", C, _incompatibleShapesInABinaryOp,
         IllegalArgumentError, ("Add 'add'", "incompatible shapes")),
    Case("incompatible shapes in a MatMul", C, _incompatibleShapesInAMatMul,
         IllegalArgumentError, ("MatMul 'mm'", "inner dimensions")),
    Case("MatMul of a vector", C, _matMulOfAVector,
         IllegalArgumentError, ("MatMul 'mm'", "rank 2")),
    Case("data types that disagree", C, _dataTypesThatDisagree,
         DataTypeError, ("Sub 'sub'", "int32", "float32")),
    Case("data type the op does not accept", C, _dataTypeTheOpDoesNotAccept,
         DataTypeError, ("Exp 'exp'", "int32")),
    Case("operand from another graph", C, _operandFromAnotherGraph,
         IllegalArgumentError, ("Neg 'neg'", "'foreign:0'", "another graph")),
    Case("input that is not an operand", C, _inputThatIsNotAnOperand,
         DataTypeError, ("Neg", "'hello'")),
    Case("ragged constant", C, _raggedConstant,
         IllegalArgumentError, ("Const", "rectangular")),
    Case("constant out of range for its type", C, _constantOutOfRangeForItsType,
         DataTypeError, ("Const", "out of range for int32")),
    Case("invalid explicit name", C, _invalidExplicitName,
         IllegalArgumentError, ("'a$'", "NoOp")),
    Case("duplicate explicit name", C, _duplicateExplicitName,
         IllegalArgumentError, ("NoOp 'c'", "already exists")),
    Case("invalid sub-scope name", C, _invalidSubScopeName,
         IllegalArgumentError, ("'-x'",)),
    Case("unknown op type", C, _unknownOpType,
         IllegalArgumentError, ("'NoSuchOp'", "'n'")),
    Case("unknown attribute", C, _unknownAttribute,
         IllegalArgumentError, ("Const 'c'", "'valu'")),
    Case("unknown option", C, _unknownOption,
         DataTypeError, ("Max", "'shape'")),
    Case("wrong attribute type", C, _wrongAttributeType,
         DataTypeError, ("Max 'm'", "'keep_dims'")),
    Case("string for a shape attribute", C, _stringForAShapeAttribute,
         DataTypeError, ("Placeholder 'p'", "'shape'")),
    Case("fractional dimension in a shape attribute", C, _fractionalDimensionInAShapeAttribute,
         DataTypeError, ("Placeholder 'p'", "2.5")),
    Case("negative dimension in a Shape", C, _negativeDimensionInAShape,
         IllegalArgumentError, ("-2",)),
    Case("closed graph", C, _closedGraph,
         IllegalStateError, ("graph is closed",)),
    Case("reduction axis out of range", C, _reductionAxisOutOfRange,
         IllegalArgumentError, ("Sum 'sum'", "axis 2")),
    Case("Reshape to an incompatible size", C, _reshapeToAnIncompatibleSize,
         IllegalArgumentError, ("Reshape 'r'", "[2, 2]")),
    Case("assignment of the wrong shape", C, _assignmentOfTheWrongShape,
         IllegalArgumentError, ("Assign 'a'", "[2]")),
    Case("AssignAdd to a non-variable", C, _assignAddToANonVariable,
         DataTypeError, ("AssignAdd 'a'", "variable")),
    Case("variable of unknown shape", C, _variableOfUnknownShape,
         IllegalArgumentError, ("'init:0'", "fully known shape")),
    Case("gradient through an op without one", C, _gradientThroughAnOpWithoutOne,
         NoGradientError, ("'noGrad'", NO_GRADIENT_OP)),
    Case("dx of the wrong length", C, _dxOfTheWrongLength,
         IllegalArgumentError, ("dx", "'y:0'")),
    Case("dx of the wrong shape", C, _dxOfTheWrongShape,
         IllegalArgumentError, ("dx[0]", "'y:0'")),
    Case("dx of the wrong data type", C, _dxOfTheWrongDataType,
         DataTypeError, ("dx[0]", "'y:0'", "float64")),
    Case("gradient prefix already used", C, _gradientPrefixAlreadyUsed,
         IllegalArgumentError, ("'g'", "already used")),
    Case("control dependency cycle", C, _controlDependencyCycle,
         IllegalArgumentError, ("NoOp 'n'", "already exists")),
    Case("control dependency on another graph", C, _controlDependencyOnAnotherGraph,
         IllegalArgumentError, ("'foreign'", "another graph")),
    Case("control dependency that is not an op", C, _controlDependencyThatIsNotAnOp,
         DataTypeError, ("'hello'",)),
    Case("user op class given a foreign operand", C, _userOpClassGivenAForeignOperand,
         IllegalArgumentError, (f"{NO_GRADIENT_OP} 'mine'", "'foreign:0'")),
    Case("operand whose asOutput() is not an Output", C, _operandWhoseAsOutputIsNotAnOutput,
         DataTypeError, ("Neg input 'x'", "asOutput() returned 5")),
    Case("array of a dtype tfops does not support", C, _arrayOfAnUnsupportedDtype,
         DataTypeError, ("Add input 'x'", "int8")),
    Case("option of another op class", C, _optionOfAnotherOpClass,
         DataTypeError, ("Max", "option of Sum", "Max.Options")),
    Case("None as a data type", C, _noneAsADataType,
         DataTypeError, ("Placeholder 'p'", "'dtype'", "None")),
    Case("int attribute beyond int64", C, _intAttributeBeyondInt64,
         IllegalArgumentError, ("Unpack 'u'", "'num'", "out of range for int64")),
    Case("dimension beyond int64", C, _dimensionBeyondInt64,
         IllegalArgumentError, ("Placeholder 'p'", "'shape'", str(2**64))),
    Case("builder Const whose value is not of its dtype", C, _builderConstOfAnotherDataType,
         DataTypeError, ("Const 'c'", "float64", "int32")),
    Case("Ops of something that is not a graph", C, _opsOfSomethingThatIsNotAGraph,
         DataTypeError, ("Ops.create", "None", "Graph")),
    Case("control dependencies that are not a list", C, _controlDependenciesThatAreNotAList,
         DataTypeError, ("None", "list")),
    Case("fetch of a missing name", Q, _fetchOfAMissingName,
         IllegalArgumentError, ("'missing'",)),
    Case("fetch of a missing output", Q, _fetchOfAMissingOutput,
         IllegalArgumentError, ("'op'", "output 7")),
    Case("fetch from another graph", Q, _fetchFromAnotherGraph,
         IllegalArgumentError, ("'foreign'", "another graph")),
    Case("closed session", Q, _closedSession,
         IllegalStateError, ("session is closed",)),
    Case("target that is not an op", Q, _targetThatIsNotAnOp,
         IllegalArgumentError, ("None",)),
    Case("negative memory limit", Q, _negativeMemoryLimit,
         IllegalArgumentError, ("memoryLimit", "-1")),
    Case("unknown Session option", Q, _unknownSessionOption,
         TypeError, ("'checkNumeric'",)),
    Case("Session of something that is not a graph", Q, _sessionOfSomethingThatIsNotAGraph,
         DataTypeError, ("Session", "None", "Graph")),
    Case("Python int fed out of its type's range", Q, _pythonIntFedOutOfRange,
         DataTypeError, ("Placeholder 'x'", "'x:0'", "out of range for int32")),
    Case("Python float fed to an integer placeholder", Q, _pythonFloatFedToAnIntegerPlaceholder,
         DataTypeError, ("Placeholder 'x'", "1.5", "int32")),
    Case("fetch of an operand whose asOutput() is not an Output", Q,
         _fetchOfAnOperandWhoseAsOutputIsNotAnOutput,
         DataTypeError, ("asOutput() returned 5",)),
    Case("fetch of a malformed output name", Q, _fetchOfAMalformedOutputName,
         IllegalArgumentError, ("'x:²'", "decimal digits")),
    Case("result of None", Q, _resultOfNone,
         DataTypeError, ("None", "position")),
    Case("result of a position out of range", Q, _resultOfAPositionOutOfRange,
         IndexOutOfBoundsError, ("position 5", "1 value")),
    Case("result of a malformed name", Q, _resultOfAMalformedName,
         IllegalArgumentError, ("'c:x'", "decimal digits")),
    Case("unfed placeholder", R, _unfedPlaceholder,
         InvalidArgumentError, ("op 'x'", "must be fed")),
    Case("feed of the wrong shape", R, _feedOfTheWrongShape,
         InvalidArgumentError, ("op 'x'", "shape [3]")),
    Case("feed of the wrong data type", R, _feedOfTheWrongDataType,
         InvalidArgumentError, ("op 'x'", "float64", "int32")),
    Case("feed of a value that is not array-like", R, _feedOfAValueThatIsNotArrayLike,
         InvalidArgumentError, ("op 'x'", "fed to 'x:0'")),
    Case("variable read before initialization", R, _variableReadBeforeInitialization,
         FailedPreconditionError, ("op 'v'", "initialize")),
    Case("assignment of a fed value of the wrong shape", R,
         _assignmentOfAFedValueOfTheWrongShape,
         InvalidArgumentError, ("op 'a'", "variable 'v'")),
    Case("integer division by zero", R, _integerDivisionByZero,
         InvalidArgumentError, ("op 'd'", "division by zero")),
    Case("Reshape to a fed incompatible shape", R, _reshapeToAFedIncompatibleShape,
         InvalidArgumentError, ("op 'r'", "[2, 2]")),
    Case("fed reduction axis out of range", R, _fedReductionAxisOutOfRange,
         InvalidArgumentError, ("op 'sum'", "axis 3")),
    Case("Gather index out of range", R, _gatherIndexOutOfRange,
         InvalidArgumentError, ("op 'gather'", "indices", "5")),
    Case("checkNumerics option hit", R, _checkNumericsOptionHit,
         InvalidArgumentError, ("op 'log'", "nan")),
    Case("CheckNumerics op hit", R, _checkNumericsOpHit,
         InvalidArgumentError, ("op 'check'", "log of x")),
    Case("huge allocation of a static shape", R, _hugeStaticAllocation,
         ResourceExhaustedError, ("op 'fill'", "memory limit")),
    Case("huge allocation of a fed shape", R, _hugeFedAllocation,
         ResourceExhaustedError, ("op 'fill'", "memory limit")),
    Case("cast of a feed to a type past the memory limit", R, _castPastTheMemoryLimit,
         ResourceExhaustedError, ("op 'cast'", "memory limit")),
    Case("broadcast of small feeds past the memory limit", R, _broadcastPastTheMemoryLimit,
         ResourceExhaustedError, ("op 'add'", "memory limit")),
]


# -- the specification ------------------------------------------------------------------------


@pytest.mark.parametrize("case", CASES, ids=Case.id)
def test_misuseRaisesTheDocumentedErrorNamingTheOp(case: Case) -> None:
    w = World()
    with pytest.raises(case.error) as raised:
        case.perform(w)
    message = str(raised.value)
    for text in case.texts:
        assert text in message
    if case.when == RUN:
        assert isinstance(raised.value, OpError)
        assert raised.value.op == w.culprit
        assert w.site is not None and w.site in message


@pytest.mark.parametrize("case", [c for c in CASES if c.when == CONSTRUCTION], ids=Case.id)
def test_failedConstructionLeavesTheGraphAsItWas(case: Case) -> None:
    # whatever the misuse raises (the test above checks what), nothing of it stays behind
    w = World()
    try:
        case.perform(w)
    except Exception:
        pass
    assert w.before is not None and w.after is not None
    assert w.after.operations == w.before.operations
    assert w.after.names == w.before.names


def test_controlDependenciesCanOnlyPointBackwards() -> None:
    # Why no cycle can be built: an Operation never changes once built (it has no method that
    # adds an input), and a builder can only be given ops that already exist.
    assert not any(name.startswith(("add", "set")) for name in dir(Operation))


# -- docs/misuse.md ---------------------------------------------------------------------------

_INTRO = f"""# Misuse, and what tfops says about it

Every wrong use of tfops that we know of raises an error at once, of the type the API contract
prescribes, with a message that names the op concerned. Errors found while the graph is built
(`ValueError`, `TypeError`, `LookupError` or `RuntimeError`, each also a
`tfops.errors.TfopsError`) leave the graph exactly as it was: the same operations, and the same
names still free. Errors found while running are `tfops.errors.OpError`s: `.op` holds the
operation, and the message ends with the op's name, type and the file:line of the user's code
that created it.

This page is generated from the catalogue in `tests/test_misuse_catalogue.py`, where each row is
a test; regenerate it with `{REGENERATE}`.
"""

_CYCLES = """## Why there is no control-dependency cycle

An operation can only be given inputs and control inputs that already exist, and it never
changes once built (`Operation` has no method that adds an input). So every edge points from an
older op to a newer one, and the creation order is a topological order of the graph: a cycle
cannot be expressed. The closest attempt, building an op again under its own name with itself
as a control input, fails as a duplicate name (the row "control dependency cycle" above).

## What a run gives back is yours

A fetched value never shares memory with anything else: not with an array you fed (fetching
the placeholder, or `identity` of it, gives a copy, as TensorFlow does), not with a constant's
value, not with a variable's. Writing into it changes nothing in the graph or the session.
Likewise a constant owns a frozen copy of the array it was built from, so writing into your
array afterwards does not change the graph. (`tests/test_executor_reliability.py` and
`tests/test_reliability.py` hold the checks, on both backends.)

## The memory limit

`Session(graph, memoryLimit=...)` bounds every tensor a run makes, in bytes. A tensor whose size
is known when the request is compiled is checked then; one whose size depends on what is fed
(a `fill` of fed dimensions, a broadcast of fed operands, a cast of a feed to a wider type) is
checked before it is allocated where its size comes from input values, and as it is made
otherwise (such a result is at most eight times an input already in memory). Either way the
run raises `ResourceExhaustedError` naming the op (the last four rows of the catalogue).
"""


def _exceptionCell(error: type[BaseException]) -> str:
    builtins = [
        b.__name__ for b in error.__mro__[1:]
        if b.__module__ == "builtins" and b not in (Exception, BaseException, object)
    ]
    if issubclass(error, OpError) and error is not OpError:
        builtins = ["OpError"]
    if not builtins or builtins[0] == error.__name__:
        return f"`{error.__name__}`"
    article = "an" if builtins[0][0] in "AEIOU" else "a"
    return f"`{error.__name__}` ({article} `{builtins[0]}`)"


def renderMisuseDoc() -> str:
    """docs/misuse.md, rendered from ``CASES``."""
    rows = [
        "| Misuse | When | Raises | The message contains |",
        "| --- | --- | --- | --- |",
    ]
    for case in CASES:
        texts = ", ".join(f"`{t}`" for t in case.texts)
        rows.append(
            f"| {case.name} | {WHEN[case.when]} | {_exceptionCell(case.error)} | {texts} |"
        )
    return "\n".join([_INTRO, "## The catalogue", "", *rows, "", _CYCLES])


def test_docsMisuseMdIsRenderedFromTheCatalogue() -> None:
    assert DOC.exists(), f"docs/misuse.md is missing: run `{REGENERATE}`"
    assert DOC.read_text(encoding="utf-8") == renderMisuseDoc(), (
        f"docs/misuse.md is out of date with the catalogue: run `{REGENERATE}`"
    )


if __name__ == "__main__":
    DOC.write_text(renderMisuseDoc(), encoding="utf-8")
    print(f"wrote {DOC.relative_to(ROOT)} ({len(CASES)} cases)")
