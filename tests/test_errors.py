"""Errors: the hierarchy of tfops.errors, and one test per error case that API.md documents."""

from __future__ import annotations

import inspect
from collections.abc import Iterator

import numpy as np
import pytest

from tfops import Graph, Ops, Session, errors, opdef
from tfops import Shape as TShape
from tfops.errors import (
    DataTypeError,
    FailedPreconditionError,
    IllegalArgumentError,
    IllegalStateError,
    IndexOutOfBoundsError,
    InternalError,
    InvalidArgumentError,
    NoGradientError,
    OpError,
    ResourceExhaustedError,
    TfopsError,
)
from tfops.op import InputDef, OpDef, OutputDef, registerOp
from tfops.op.core import Gradients, Placeholder
from tfops.types import TFloat32


def _here(offset: int = 0) -> str:
    """``file:line`` of the line that calls this, or of the line ``offset`` lines below."""
    frame = inspect.currentframe()
    assert frame is not None and frame.f_back is not None
    return f"{frame.f_back.f_code.co_filename}:{frame.f_back.f_lineno + offset}"


def _names(graph: Graph) -> list[str]:
    return [op.name() for op in graph.operations()]


# -- the hierarchy ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", errors.__all__)
def test_everyErrorDerivesFromTfopsError(name: str) -> None:
    cls = getattr(errors, name)
    assert issubclass(cls, TfopsError) and issubclass(cls, Exception)


@pytest.mark.parametrize(
    ("cls", "builtin"),
    [
        (IllegalArgumentError, ValueError),
        (DataTypeError, TypeError),
        (NoGradientError, LookupError),
        (IllegalStateError, RuntimeError),
        (IndexOutOfBoundsError, IndexError),
    ],
    ids=lambda c: c.__name__,
)
def test_constructionErrorAlsoDerivesFromItsBuiltin(
    cls: type[TfopsError], builtin: type[Exception]
) -> None:
    assert issubclass(cls, builtin)


@pytest.mark.parametrize(
    "cls",
    [InvalidArgumentError, FailedPreconditionError, ResourceExhaustedError, InternalError],
    ids=lambda c: c.__name__,
)
def test_runTimeErrorsAreOpErrors(cls: type[OpError]) -> None:
    assert issubclass(cls, OpError)


def test_opErrorHoldsItsOperation(tf: Ops) -> None:
    op = tf.constant(1.0).op()
    error = InvalidArgumentError(op, "bad")
    assert error.op == op


# -- construction: ValueError -----------------------------------------------------------------


def test_badNameRaisesValueError(tf: Ops) -> None:
    with pytest.raises(IllegalArgumentError) as info:
        tf.withName("a$")
    assert isinstance(info.value, ValueError) and isinstance(info.value, TfopsError)


def test_badSubScopeNameRaisesValueError(tf: Ops) -> None:
    with pytest.raises(IllegalArgumentError):
        tf.withSubScope("a/b")


def test_incompatibleShapesRaiseValueError(tf: Ops) -> None:
    with pytest.raises(IllegalArgumentError):
        tf.math.add(tf.constant([1.0, 2.0]), tf.constant([1.0, 2.0, 3.0]))


def test_incompatibleShapesErrorNamesTheOpAndWhereItIsCreated(tf: Ops) -> None:
    with pytest.raises(IllegalArgumentError) as info:
        site = _here(1)
        tf.withName("bad").math.add([1.0, 2.0], [1.0, 2.0, 3.0])
    assert "'bad'" in str(info.value) and site in str(info.value)


def test_dxListOfTheWrongLengthRaisesValueError(tf: Ops) -> None:
    x = tf.placeholder(TFloat32)
    y = tf.math.square(x)
    with pytest.raises(IllegalArgumentError):
        tf.gradients(y, [x], Gradients.dx([tf.constant(1.0), tf.constant(1.0)]))


def test_dxListOfTheWrongLengthInAddGradientsRaisesValueError(graph: Graph, tf: Ops) -> None:
    x = tf.placeholder(TFloat32).asOutput()
    y = tf.math.square(x).asOutput()
    with pytest.raises(IllegalArgumentError):
        graph.addGradients(None, [y], [x], dx=[])


def test_operandFromAnotherGraphRaisesValueError(tf: Ops) -> None:
    other = Ops.create(Graph()).constant(1.0)
    with pytest.raises(IllegalArgumentError):
        tf.math.neg(other)


def test_gradientOfAnOperandFromAnotherGraphRaisesValueError(tf: Ops) -> None:
    other = Ops.create(Graph()).constant(1.0)
    y = tf.math.square(tf.constant(1.0))
    with pytest.raises(IllegalArgumentError):
        tf.gradients(y, [other])


def test_usedGradientPrefixRaisesValueError(graph: Graph, tf: Ops) -> None:
    x = tf.placeholder(TFloat32).asOutput()
    y = tf.math.square(x).asOutput()
    graph.addGradients("g", [y], [x])
    with pytest.raises(IllegalArgumentError):
        graph.addGradients("g", [y], [x])


# -- construction: TypeError ------------------------------------------------------------------


def test_inputsOfDifferentDataTypesRaiseTypeError(tf: Ops) -> None:
    with pytest.raises(DataTypeError) as info:
        tf.math.sub(tf.constant(1.0), tf.constant(1))
    assert isinstance(info.value, TypeError) and isinstance(info.value, TfopsError)


def test_dataTypeAnOpDoesNotAcceptRaisesTypeError(tf: Ops) -> None:
    with pytest.raises(DataTypeError):
        tf.math.exp(tf.constant(1))  # Exp takes floating types only


def test_nonDataTypeRaisesTypeError(tf: Ops) -> None:
    with pytest.raises(DataTypeError):
        tf.placeholder(float)  # type: ignore[type-var]


def test_nonOperandInputRaisesTypeError(tf: Ops) -> None:
    with pytest.raises(DataTypeError):
        tf.math.neg("x")


# -- construction: LookupError ----------------------------------------------------------------

_NO_GRADIENT_OP = "TfopsTestErrorsNoGradient"


@pytest.fixture
def noGradientOp() -> Iterator[str]:
    """An op type with no gradient registered, removed from the registry afterwards."""
    registerOp(
        OpDef(
            type=_NO_GRADIENT_OP,
            group="test",
            summary="Returns x (test op without a gradient).",
            description="",
            inputs=(InputDef("x", "the input", dtype=TFloat32),),
            outputs=(OutputDef("y", "the output", dtype=TFloat32),),
            infer=lambda ctx: [ctx.shapes[0]],
        )
    )
    try:
        yield _NO_GRADIENT_OP
    finally:
        opdef._OPS.pop(_NO_GRADIENT_OP, None)


def test_opWithoutAGradientRaisesLookupError(graph: Graph, tf: Ops, noGradientOp: str) -> None:
    x = tf.placeholder(TFloat32)
    y = tf.scope().opBuilder(noGradientOp, "noGrad").addInput(tf.math.square(x)).build()
    with pytest.raises(NoGradientError) as info:
        tf.gradients(y.output(0), [x])
    assert isinstance(info.value, LookupError) and "noGrad" in str(info.value)


def test_failedGradientsLeaveTheGraphUnchanged(graph: Graph, tf: Ops, noGradientOp: str) -> None:
    x = tf.placeholder(TFloat32)
    y = tf.scope().opBuilder(noGradientOp, "noGrad").addInput(tf.math.square(x)).build()
    before = _names(graph)
    with pytest.raises(NoGradientError):
        tf.gradients(y.output(0), [x])
    assert _names(graph) == before
    assert tf.scope().makeOpName("Gradients") == "Gradients"


# -- run time: OpError ------------------------------------------------------------------------


def test_unfedPlaceholderRaisesInvalidArgumentError(tf: Ops, session: Session) -> None:
    x, site = tf.withName("x").placeholder(TFloat32), _here()
    with pytest.raises(InvalidArgumentError) as info:
        session.runner().fetch(x).run()
    assert info.value.op == x.op()
    assert isinstance(info.value, OpError) and isinstance(info.value, TfopsError)
    assert "'x'" in str(info.value) and site in str(info.value)


def test_feedOfTheWrongShapeRaisesInvalidArgumentError(tf: Ops, session: Session) -> None:
    x, site = tf.withName("x").placeholder(TFloat32, Placeholder.shape(TShape.of(2))), _here()
    with pytest.raises(InvalidArgumentError) as info:
        session.runner().feed(x, np.zeros(3, np.float32)).fetch(x).run()
    assert info.value.op == x.op()
    assert "'x" in str(info.value) and site in str(info.value)


def test_kernelFailureRaisesInvalidArgumentError(tf: Ops, session: Session) -> None:
    d, site = tf.withName("d").math.div(tf.constant(1), tf.constant(0)), _here()
    with pytest.raises(InvalidArgumentError) as info:
        session.runner().fetch(d).run()
    assert info.value.op == d.op()
    assert "'d'" in str(info.value) and site in str(info.value)


# -- closed graph or session: RuntimeError ----------------------------------------------------


def test_closedGraphRaisesIllegalStateError() -> None:
    g = Graph()
    tf = Ops.create(g)
    g.close()
    with pytest.raises(IllegalStateError) as info:
        tf.constant(1.0)
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, TfopsError)


def test_closedSessionRaisesIllegalStateError(graph: Graph) -> None:
    s = Session(graph)
    s.close()
    with pytest.raises(IllegalStateError) as info:
        s.runner()
    assert isinstance(info.value, RuntimeError)
