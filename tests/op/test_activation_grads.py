"""ReluGrad's, Relu6Grad's and EluGrad's own behaviour: the gradient ops of Relu, Relu6 and Elu.
Each takes the incoming gradients and a second input of the same shape (Relu's and Relu6's
features, Elu's outputs) and passes the gradients where the activation's slope is 1: ReluGrad
where features > 0, Relu6Grad where 0 < features < 6, EluGrad everywhere but scaled by
outputs + 1 where the outputs are negative. ``OPS`` rows: each op with its data types, numpy
reference, random second input and a second input away from the kinks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest
from opchecks import FLOATS, NUMBERS, assertGradient, assertRejected, placeholder

from tfops import Graph, Ops, Shape
from tfops.errors import InvalidArgumentError
from tfops.types import TBool, TFloat16, TFloat32, TFloat64, TInt32, TInt64, TType, TUint8

HERE = f"created at {__file__}:"


def arange(shape: tuple[int, ...], step: float, start: float, period: int) -> Any:
    return ((np.arange(int(np.prod(shape))) % period) * step + start).reshape(shape)


class Spec(NamedTuple):
    name: str
    op: Callable[[Ops, Any, Any], Any]
    dtypes: tuple[type[TType], ...]
    reference: Callable[[Any, Any], Any]
    random: Callable[[Any, tuple[int, ...]], Any]  # a random second input
    awayFromKinks: Callable[[tuple[int, ...]], Any]  # each at least 0.2 away from a kink


RELU = Spec("ReluGrad", lambda tf, g, f: tf.nn.reluGrad(g, f), NUMBERS,
            lambda g, f: np.where(f > 0, g, 0.0), lambda rng, s: rng.normal(size=s),
            lambda s: arange(s, 0.8, -2.0, 6))
RELU6 = Spec("Relu6Grad", lambda tf, g, f: tf.nn.relu6Grad(g, f), NUMBERS,
             lambda g, f: np.where((f > 0) & (f < 6), g, 0.0),
             lambda rng, s: rng.normal(size=s) * 6, lambda s: arange(s, 1.7, -1.0, 6))
ELU = Spec("EluGrad", lambda tf, g, y: tf.nn.eluGrad(g, y), FLOATS,
           lambda g, y: np.where(y < 0, g * (y + 1), g),
           lambda rng, s: np.expm1(rng.normal(size=s)),
           lambda s: arange(s, 0.45, -0.8, 5))  # possible Elu outputs, in (-1, inf)
OPS = [RELU, RELU6, ELU]
each = pytest.mark.parametrize("spec", OPS, ids=lambda spec: spec.name)


@pytest.mark.parametrize(
    ("g", "f", "expected"),
    [
        (Shape.of(2, 3), Shape.of(2, 3), Shape.of(2, 3)),
        (Shape.of(-1, 3), Shape.of(2, -1), Shape.of(2, 3)),
        (Shape.unknown(), Shape.of(-1, 4), Shape.of(-1, 4)),
        (Shape.of(5), Shape.unknown(), Shape.of(5)),
        (Shape.unknown(), Shape.unknown(), Shape.unknown()),
        (Shape.scalar(), Shape.scalar(), Shape.scalar()),
    ],
    ids=str,
)
@each
def test_outputShapeIsTheSharedShape(
    tf: Ops, spec: Spec, g: Shape, f: Shape, expected: Shape
) -> None:
    b = spec.op(tf, placeholder(tf, TFloat64, g), placeholder(tf, TFloat64, f))
    assert b.asOutput().shape() == expected


SIGNED = (TInt32, TInt64)
INF = np.inf


@pytest.mark.parametrize(
    ("spec", "dtypes", "g", "f", "expected"),
    [
        (RELU, FLOATS + SIGNED, [[1, 2, 3], [4, 5, 6]], [[-2, 0, 1], [3, -1, 7]],
         [[0, 0, 3], [4, 0, 6]]),
        (RELU, (TUint8,), [7, 8, 9], [0, 1, 255], [0, 8, 9]),
        # TensorFlow's kernels multiply by the mask: an infinite gradient where it is closed is
        # nan (checked with TensorFlow 2.21's raw ReluGrad and Relu6Grad)
        (RELU, (TFloat64,), [INF, INF], [-1, 1], [np.nan, INF]),
        (RELU6, FLOATS + SIGNED, [[1, 2, 3], [4, 5, 6]], [[-2, 0, 1], [5, 6, 7]],
         [[0, 0, 3], [4, 0, 0]]),
        (RELU6, (TUint8,), [7, 8, 9, 10], [0, 1, 6, 255], [0, 8, 0, 0]),
        (RELU6, (TFloat64,), [INF, INF, INF], [-1, 1, 7], [np.nan, INF, np.nan]),
        (ELU, FLOATS, [[2, 4, 8], [1, 3, 5]], [[-0.5, -0.75, 0], [2, -1, 0.25]],
         [[1, 1, 8], [1, 0, 5]]),
    ],
    ids=lambda v: getattr(v, "name", None),
)
def test_kernelPassesTheGradientsWhereTheSlopeIsOne(
    tf: Ops, run: Any, spec: Spec, dtypes: tuple[type[TType], ...], g: Any, f: Any,
    expected: Any,
) -> None:
    for dtype in dtypes:
        b = spec.op(tf, *(tf.constant(np.array(v, dtype.DTYPE)) for v in (g, f)))
        assert b.asOutput().dataType() is dtype
        np.testing.assert_array_equal(run(b), np.array(expected, dtype.DTYPE), strict=True)


@each
def test_kernelMatchesNumpyOnFloat64(tf: Ops, run: Any, spec: Spec) -> None:
    rng = np.random.default_rng(1)
    g, f = rng.normal(size=(3, 4)), spec.random(rng, (3, 4))
    np.testing.assert_array_equal(run(spec.op(tf, tf.constant(g), tf.constant(f))),
                                  spec.reference(g, f), strict=True)


@pytest.mark.parametrize("dtype", [TFloat16, TFloat32], ids=lambda t: t.NAME)
@pytest.mark.parametrize("shape", [(0, 3), (2, 0)], ids=str)
@each
def test_kernelOfEmptyTensors(
    tf: Ops, run: Any, spec: Spec, shape: tuple[int, ...], dtype: type[TType]
) -> None:
    x = tf.constant(np.zeros(shape, dtype.DTYPE))
    np.testing.assert_array_equal(run(spec.op(tf, x, x)), np.zeros(shape, dtype.DTYPE),
                                  strict=True)


@pytest.mark.parametrize(("shape", "declared"),
                         [((), None), ((5,), None), ((2, 3), None), ((2, 3), Shape.unknown())],
                         ids=str)
@each
def test_gradientMatchesFiniteDifferences(
    tf: Ops, spec: Spec, shape: tuple[int, ...], declared: Shape | None
) -> None:
    g = np.linspace(-2.0, 3.0, int(np.prod(shape))).reshape(shape)
    assertGradient(tf, lambda g, f: spec.op(tf, g, f), [g, spec.awayFromKinks(shape)],
                   None if declared is None else [declared, declared])


@pytest.mark.parametrize(
    ("spec", "g", "f", "input", "expected"),
    [
        (RELU, [1.0, 2.0], [-1.0, 1.0], 0, [0.0, 1.0]),  # masked by ReluGrad itself
        (RELU, [1.0, 2.0], [-1.0, 1.0], 1, [0.0, 0.0]),
        (RELU6, [1.0, 2.0, 3.0], [-1.0, 1.0, 8.0], 0, [0.0, 1.0, 0.0]),  # by Relu6Grad
        (RELU6, [1.0, 2.0], [-1.0, 1.0], 1, [0.0, 0.0]),
        (ELU, [2.0, 3.0], [-0.5, 0.5], 1, [2.0, 0.0]),  # the gradients where negative
    ],
    ids=lambda v: getattr(v, "name", None),
)
def test_gradientOfEachInput(
    tf: Ops, run: Any, spec: Spec, g: Any, f: Any, input: int, expected: Any
) -> None:
    inputs = [tf.constant(np.array(g)), tf.constant(np.array(f))]
    d = tf.gradients(spec.op(tf, *inputs), [inputs[input]]).dy(0)
    assert d is not None
    assert run(d).tolist() == expected
    if input == 0:
        assert d.op().type() == spec.name


@pytest.mark.parametrize(
    ("spec", "g", "f", "error", "fragment"),
    [
        (RELU, TBool, TBool, TypeError, "data type bool is not allowed"),
        (RELU6, TBool, TBool, TypeError, "data type bool is not allowed"),
        (ELU, TInt32, TInt32, TypeError, "data type int32 is not allowed"),
        (ELU, [1, 2], [1, 2], TypeError, "data type int32 is not allowed"),
        (RELU, TFloat32, TFloat64, TypeError, "input 'features' has data type float64"),
        (RELU6, TFloat32, TFloat64, TypeError, "input 'features' has data type float64"),
        (ELU, TFloat32, TFloat64, TypeError, "input 'outputs' has data type float64"),
        (RELU, (2, 3), (3, 2), ValueError, "must have the same shape, got [2, 3] and [3, 2]"),
        (RELU6, (2, 3), (3, 2), ValueError, "inputs must have the same shape"),
        (ELU, (2,), (3,), ValueError, "inputs must have the same shape, got [2] and [3]"),
        (RELU, (2,), [1.0, 2.0, 3.0], ValueError, "inputs must have the same shape"),
        (RELU6, (2,), [1.0, 2.0, 3.0], ValueError, "inputs must have the same shape"),
        (ELU, (2,), [1.0, 2.0, 3.0], ValueError, "inputs must have the same shape"),
    ],
    ids=lambda v: getattr(v, "name", None),
)
def test_badInputsAreRejected(
    graph: Graph, tf: Ops, spec: Spec, g: Any, f: Any, error: type[Exception], fragment: str
) -> None:
    """A data type is a placeholder of it, a tuple a float64 placeholder of that shape."""
    g, f = (tf.placeholder(v) if isinstance(v, type) else
            placeholder(tf, TFloat64, v) if isinstance(v, tuple) else v for v in (g, f))
    assertRejected(graph, lambda: spec.op(tf, g, f), error, f"{spec.name} '{spec.name}' ({HERE}",
                   fragment)


@each
def test_differentFedShapesRaiseInvalidArgumentError(tf: Ops, run: Any, spec: Spec) -> None:
    g, f = tf.placeholder(TFloat64), tf.placeholder(TFloat64)
    b = spec.op(tf, g, f)
    with pytest.raises(InvalidArgumentError) as info:
        run(b, feeds={g: np.ones(3), f: np.ones(2)})
    assert info.value.op == b.op()
    assert "inputs must have the same shape, got [3] and [2]" in str(info.value)
    assert f"of type {spec.name}, {HERE}" in str(info.value)
