"""The first five minutes' mistakes: each message says what went wrong, where in the user's code
(this file's line), and how to fix it, naming the tfops method to use."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import tfops
from tfops import Graph, Ops, Session, Shape
from tfops.errors import DataTypeError, IllegalArgumentError, InvalidArgumentError, TfopsError
from tfops.op.core import Gradients, Max
from tfops.op.math import Sub
from tfops.types import TFloat32, TFloat64, TInt32


def _line(offset: int) -> str:
    """``file:line`` of the caller's line ``offset`` lines below this call."""
    frame = sys._getframe(1)
    return f"{frame.f_code.co_filename}:{frame.f_lineno + offset}"


@pytest.fixture
def tf() -> Ops:
    return Ops.create(Graph())


def _graph(tf: Ops) -> Graph:
    env = tf.scope().env()
    assert isinstance(env, Graph)
    return env


# -- a None gradient ------------------------------------------------------------------------


def test_fetchingANoneGradientSaysWhyAndNamesUnconnectedGradients(tf: Ops) -> None:
    x = tf.placeholder(TFloat32)
    y = tf.stopGradient(tf.math.square(x))
    dx = tf.gradients(y, [x]).dy(0)
    with Session(_graph(tf)) as s:
        where = _line(2)
        with pytest.raises(IllegalArgumentError) as e:
            s.runner().feed(x, np.float32(1)).fetch(dx).run()  # type: ignore[arg-type]
    message = str(e.value)
    assert where in message
    assert "gradient is None" in message and "does not reach y" in message
    assert "StopGradient" in message
    assert 'Gradients.unconnectedGradients("zero")' in message


def test_aNoneGradientAsAnInputNamesUnconnectedGradients(tf: Ops) -> None:
    x = tf.placeholder(TFloat32)
    dx = tf.gradients(tf.stopGradient(x), [x]).dy(0)
    where = _line(2)
    with pytest.raises(DataTypeError) as e:
        tf.math.mul(dx, 2.0)  # type: ignore[arg-type, type-var]
    message = str(e.value)
    assert where in message
    assert 'Gradients.unconnectedGradients("zero")' in message


def test_unconnectedGradientsZeroIsTheFixTheMessageNames(tf: Ops) -> None:
    x = tf.placeholder(TFloat32)
    grads = tf.gradients(tf.stopGradient(x), [x], Gradients.unconnectedGradients("zero"))
    with Session(_graph(tf)) as s:
        dx = grads.dy(0)
        assert dx is not None
        value = s.runner().feed(x, np.float32(3)).fetch(dx).run()[0]
    assert value == 0.0


# -- names from TF Python, JAX and PyTorch on the facade ------------------------------------


@pytest.mark.parametrize(
    ("group", "name", "fix"),
    [
        ("", "reduce_sum", "use tf.sum"),
        ("math", "reduce_mean", "use tf.math.mean"),
        ("", "reduce_max", "use tf.max"),
        ("", "matmul", "use tf.linalg.matMul"),
        ("linalg", "matmul", "use tf.linalg.matMul"),
        ("", "cast", "use tf.dtypes.cast"),
        ("", "Variable", "use tf.variable"),
        ("random", "normal", "use tf.random.randomStandardNormal"),
        ("", "gather_nd", "use tf.gatherNd"),  # snake_case of a tfops method
        ("math", "is_nan", "use tf.math.isNan"),
        ("", "exp", "use tf.math.exp"),  # a method of another group
        ("", "cat", "use tf.concat"),  # PyTorch
        ("", "dot", "use tf.linalg.matMul"),  # JAX
        ("nn", "relu_layer", "tf.nn.relu(tf.nn.biasAdd(tf.linalg.matMul(x, weights), biases))"),
    ],
)
def test_aNameFromElsewhereNamesTheTfopsMethod(tf: Ops, group: str, name: str, fix: str) -> None:
    owner: object = getattr(tf, group) if group else tf
    where = _line(2)
    with pytest.raises(AttributeError) as e:
        getattr(owner, name)
    message = str(e.value)
    assert f"tf.{group + '.' if group else ''}{name} does not exist" in message
    assert where in message
    assert fix in message


def test_aMisspelledNameListsTheClosestMethodsOfItsGroup(tf: Ops) -> None:
    where = _line(2)
    with pytest.raises(AttributeError) as e:
        tf.math.sqaure  # type: ignore[attr-defined]  # noqa: B018
    assert where in str(e.value)
    assert "did you mean tf.math.square" in str(e.value)


def test_aMissingNameStaysAnAttributeErrorForGetattrAndHasattr(tf: Ops) -> None:
    assert not hasattr(tf, "reduce_sum")
    assert getattr(tf.math, "reduce_mean", None) is None
    with pytest.raises(AttributeError):
        tf.__deepcopy__  # type: ignore[attr-defined]  # noqa: B018


# -- keyword options, chained options -------------------------------------------------------


@pytest.mark.parametrize("keyword", ["keepdims", "keep_dims"])
def test_aKeywordOptionNamesTheOptionFactory(tf: Ops, keyword: str) -> None:
    x = tf.constant([[1.0, 2.0]])
    where = _line(2)
    with pytest.raises(TypeError) as e:
        tf.max(x, 0, **{keyword: True})
    message = str(e.value)
    assert isinstance(e.value, TfopsError)
    assert where in message
    assert "Max.keepDims(True)" in message and "keepDims=True" in message


def test_aKeywordWithNoOptionNamesTheParameters(tf: Ops) -> None:
    x = tf.constant([[1.0, 2.0]])
    where = _line(2)
    with pytest.raises(TypeError) as e:
        tf.nn.softmax(x, axis=-1)  # type: ignore[call-arg]
    message = str(e.value)
    assert where in message
    assert "tf.nn.softmax has no parameter or option 'axis'" in message
    assert "its parameters: logits" in message


def test_theRightKeywordStillWorks(tf: Ops) -> None:
    x = tf.constant([[1.0, 2.0]])
    assert tf.max(x, 1, keepDims=True).output().shape() == Shape.of(1, 1)
    assert tf.max(x, 1, Max.keepDims(True)).output().shape() == Shape.of(1, 1)


def test_anOptionChainedOnABuiltOpSaysToPassItToCreate(tf: Ops) -> None:
    x = tf.constant([[1.0, 2.0]])
    m = tf.max(x, 0)
    where = _line(2)
    with pytest.raises(TypeError) as e:
        m.keepDims(True)
    message = str(e.value)
    assert where in message
    assert "pass Max.keepDims(True) after the inputs" in message
    assert Max.keepDims(True) == Max.Options(keepDims=True)  # the class's factory is unchanged


def test_anOptionUsedAsAnOperandSaysItIsAnOption(tf: Ops) -> None:
    where = _line(2)
    with pytest.raises(DataTypeError) as e:
        tf.math.exp(Max.keepDims(True))  # type: ignore[arg-type]
    assert where in str(e.value)
    assert "is an option of Max, not an operand" in str(e.value)


# -- data types -----------------------------------------------------------------------------


def test_anOperatorOnMixedDtypesNamesCast(tf: Ops) -> None:
    x = tf.placeholder(TFloat32)
    y = tf.placeholder(TFloat64)
    where = _line(2)
    with pytest.raises(TypeError) as e:
        x + y  # type: ignore[operator]  # noqa: B018
    message = str(e.value)
    assert where in message
    assert "float64" in message and "float32" in message
    assert "tf.dtypes.cast(y, TFloat32)" in message


def test_anOpOnMixedDtypesNamesCast(tf: Ops) -> None:
    x = tf.placeholder(TFloat32)
    where = _line(2)
    with pytest.raises(TypeError) as e:
        Sub.create(tf.scope(), x, np.zeros(3))
    message = str(e.value)
    assert where in message
    assert "tf.dtypes.cast(y, TFloat32)" in message and "np.asarray(v, np.float32)" in message


def test_aFeedThatWouldLoseItsFractionNamesBothDtypesAndTheConversion(tf: Ops) -> None:
    x = tf.placeholder(TInt32)
    with Session(_graph(tf)) as s:
        where = _line(2)
        with pytest.raises(InvalidArgumentError) as e:
            s.runner().feed(x, np.array([1.5])).fetch(x).run()
    message = str(e.value)
    assert where in message
    assert "dtype float64" in message and "data type int32" in message
    assert "np.asarray(value, np.int32)" in message and "tf.dtypes.cast" in message


def test_aFloat64FeedToAFloat32PlaceholderIsConvertedAsTfPythonDoes(tf: Ops) -> None:
    x = tf.placeholder(TFloat32)
    with Session(_graph(tf)) as s:
        value = s.runner().feed(x, np.zeros(3)).fetch(x).run()[0]
    assert value.dtype == np.float32


def test_aNumpyDtypeWhereADataTypeIsExpectedNamesTheDataType(tf: Ops) -> None:
    where = _line(2)
    with pytest.raises(TypeError) as e:
        tf.placeholder(np.float32)  # type: ignore[type-var]
    assert where in str(e.value)
    assert "give TFloat32 (from tfops.types)" in str(e.value)


# -- session: names and results -------------------------------------------------------------


def test_aWrongFetchNameListsTheCloseNames(tf: Ops) -> None:
    tf.withName("logits").placeholder(TFloat32)
    tf.withName("labels").placeholder(TFloat32)
    with Session(_graph(tf)) as s:
        where = _line(2)
        with pytest.raises(IllegalArgumentError) as e:
            s.runner().fetch("logit").run()
    message = str(e.value)
    assert "no operation named 'logit'" in message
    assert where in message
    assert "did you mean 'logits'" in message


def test_aWrongTargetNameListsTheCloseNames(tf: Ops) -> None:
    tf.withName("train").noOp()
    with Session(_graph(tf)) as s, pytest.raises(IllegalArgumentError) as e:
        s.runner().addTarget("trian")
    assert "did you mean 'train'" in str(e.value)


def test_indexingAResultByOperandNamesGet(tf: Ops) -> None:
    x = tf.constant(1.0)
    with Session(_graph(tf)) as s:
        result = s.runner().fetch(x).run()
    where = _line(2)
    with pytest.raises(TypeError) as e:
        result[x]  # type: ignore[call-overload]  # noqa: B018
    assert where in str(e.value)
    assert "result.get(operand)" in str(e.value)
    assert result.get(x) == np.float32(1.0)


# -- exports and the variable facade --------------------------------------------------------


def test_importStarOfTheCoreOpsKeepsTfopsShape() -> None:
    names: dict[str, object] = {}
    exec("from tfops import Shape\nfrom tfops.op.core import *", names)
    assert names["Shape"] is tfops.Shape
    from tfops.op.core import Shape as ShapeOp  # the op, by name

    assert ShapeOp.OP_NAME == "Shape"


def test_variableOfAShapeAndDataTypeAsTfJava(tf: Ops) -> None:
    v = tf.variable(Shape.of(2, 3), TFloat32)
    assert v.asOutput().dataType() is TFloat32
    assert v.asOutput().shape() == Shape.of(2, 3)
    with Session(_graph(tf)) as s:
        s.run(tf.assign(v, np.ones((2, 3), np.float32)))
        assert s.runner().fetch(v).run()[0].sum() == 6.0


def test_variableOfAShapeWithoutDataTypeSaysToGiveOne(tf: Ops) -> None:
    with pytest.raises(TypeError) as e:
        tf.variable(Shape.of(3))  # type: ignore[call-overload]
    assert "tf.variable(Shape.of(3), TFloat32)" in str(e.value)


def test_variableOfAValueAndDataTypeSaysToCast(tf: Ops) -> None:
    with pytest.raises(TypeError) as e:
        tf.variable(np.zeros(3), TFloat32)  # type: ignore[call-overload]
    assert "tf.dtypes.cast(init, TFloat32)" in str(e.value)


def test_aShapeWhereOptionsGoNamesTheShapeOption(tf: Ops) -> None:
    where = _line(2)
    with pytest.raises(TypeError) as e:
        tf.placeholder(TFloat32, Shape.of(-1, 3))  # type: ignore[arg-type]
    assert where in str(e.value)
    assert "give it as the option Placeholder.shape(Shape.of(-1, 3))" in str(e.value)


def test_aReductionWithoutAxesSaysHowToReduceEveryAxis(tf: Ops) -> None:
    x = tf.constant([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    where = _line(2)
    with pytest.raises(TypeError) as e:
        tf.sum(x)  # type: ignore[call-arg]
    message = str(e.value)
    assert where in message
    assert "tf.sum() missing 1 required positional argument: 'axis'" in message
    assert "tf.sum(x, tf.range(0, tf.rank(x), 1))" in message
    with Session(_graph(tf)) as s:
        total = s.runner().fetch(tf.sum(x, tf.range(0, tf.rank(x), 1))).run()[0]
    assert total == 6.0


def test_aNoneDimensionSaysUnknownIsMinusOne(tf: Ops) -> None:
    where = _line(2)
    with pytest.raises(TypeError) as e:
        tf.placeholder(TFloat32, shape=[None, 3])  # type: ignore[arg-type]
    assert where in str(e.value)
    assert "an unknown dimension is -1, as in Shape.of(-1, 3)" in str(e.value)


def test_aNumpyDtypeForAConstantNamesTheDataType(tf: Ops) -> None:
    where = _line(2)
    with pytest.raises(TypeError) as e:
        tf.constant([1, 2], np.float32)  # type: ignore[type-var]
    assert where in str(e.value)
    assert "give TFloat32 (from tfops.types)" in str(e.value)
