"""A user defines an op outside the package (spec, gradient rule, numpy kernel) and an op class
for it, and uses it like a built-in one: through a scope, in a session, in gradients."""

from __future__ import annotations

from typing import Final, Generic, TypeVar, cast, final

import numpy as np
import pytest

from scope import Scope
from tfops import Graph, Operation, Ops, Output, PrimitiveOp, Session
from tfops.backend.numpy import Kernel, KernelSite, registerKernel
from tfops.backend.xla import registerLowering
from tfops.errors import UnimplementedError
from tfops.op import (
    FLOATS,
    AttrDef,
    GradOp,
    Grads,
    InputDef,
    OpDef,
    OutputDef,
    registerGradient,
    registerOp,
    sameShape,
)
from tfops.output import Operand
from tfops.testing import assertGradientsClose
from tfops.types import TFloat64, TFloating

T = TypeVar("T", bound=TFloating)

registerOp(
    OpDef(
        type="UserCube",
        group="math",
        summary="Computes the cube of x element-wise.",
        description="Defined in a test, outside the tfops package.",
        inputs=(InputDef("x", "the input", typeAttr="T"),),
        outputs=(OutputDef("y", "x cubed", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=FLOATS),),
        infer=sameShape,
        elementwise=True,
    )
)


@registerGradient("UserCube")
def _cubeGrad(tf: Ops, op: GradOp, g: Output[TFloating]) -> Grads:
    return [tf.math.mul(g, tf.math.mul(3.0, tf.math.square(op.x())))]


@registerKernel("UserCube", fresh=True)
def _cubeKernel(site: KernelSite) -> Kernel:
    return lambda x: x * x * x


registerLowering("UserCube", lambda site, x: x * x * x)


# An op with a spec and a gradient but no kernel: the backend says so when a request compiles.
registerOp(
    OpDef(
        type="UserNoKernel",
        group="math",
        summary="An op no backend can run.",
        description="Defined in a test, without a kernel.",
        inputs=(InputDef("x", "the input", typeAttr="T"),),
        outputs=(OutputDef("y", "the output", typeAttr="T"),),
        attrs=(AttrDef("T", "type", allowed=FLOATS),),
        infer=sameShape,
    )
)


@final
class UserCube(PrimitiveOp, Generic[T]):
    """Computes the cube of x element-wise (a user's op class, shaped like generated ones)."""

    OP_NAME: Final = "UserCube"

    def __init__(self, operation: Operation) -> None:
        super().__init__(operation)
        self._y = cast("Output[T]", operation.output(0))

    @staticmethod
    def create(scope: Scope, x: Operand[T]) -> UserCube[T]:
        """Adds a UserCube op to the scope's graph."""
        return UserCube(scope.opBuilder(UserCube.OP_NAME, "UserCube").addInput(x).build())

    def y(self) -> Output[T]:
        """Returns x cubed."""
        return self._y

    def asOutput(self) -> Output[T]:
        """Returns the symbolic handle of the tensor."""
        return self._y


def test_userOpIsNamedAndTypedLikeABuiltInOne(tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    cube = UserCube.create(tf.withSubScope("mine").scope(), x)
    assert cube.op().name() == "mine/UserCube"
    assert cube.op().type() == "UserCube"
    assert cube.asOutput().dataType() is TFloat64


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_userOpRunsItsKernelInASession(graph: Graph, tf: Ops, backend: str) -> None:
    x = tf.placeholder(TFloat64)
    y = tf.math.add(UserCube.create(tf.scope(), x), 1.0)
    with Session(graph, backend=backend) as s:
        value = s.runner().feed(x, np.array([1.0, 2.0, -3.0])).fetch(y).run()[0]
    assert value.tolist() == [2.0, 9.0, -26.0]


def test_userOpGradientIsUsedByTheGenerator(tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    y = UserCube.create(tf.scope(), tf.math.exp(x))
    assertGradientsClose(y, [x], {x: np.array([0.1, -0.4, 0.7])})


def test_userOpGradientIsDifferentiableAgain(graph: Graph, tf: Ops) -> None:
    x = tf.placeholder(TFloat64)
    first = tf.gradients(UserCube.create(tf.scope(), x), [x]).dy(0)
    assert first is not None
    second = tf.gradients(first, [x]).dy(0)
    assert second is not None
    with Session(graph) as s:
        assert float(s.runner().feed(x, 2.0).fetch(second).run()[0]) == 12.0


def test_userOpRejectsADtypeOutsideItsDefinition(tf: Ops) -> None:
    with pytest.raises(TypeError, match="UserCube"):
        UserCube.create(tf.scope(), tf.constant([1, 2]))  # type: ignore[type-var]


@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_anOpWithoutAKernelFailsWhenTheRequestIsCompiled(
    graph: Graph, tf: Ops, backend: str
) -> None:
    x = tf.placeholder(TFloat64)
    op = tf.scope().opBuilder("UserNoKernel", "UserNoKernel").addInput(x).build()
    with Session(graph, backend=backend) as s, pytest.raises(UnimplementedError) as info:
        s.runner().feed(x, np.ones(2)).fetch(op.output(0)).run()
    message = str(info.value)
    assert "UserNoKernel" in message and f"{backend} backend" in message
    assert info.value.op == op
