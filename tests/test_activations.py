"""Specification of ``tfops.framework.activations``: every activation equals Keras 3's.

What we compare against: ``keras.activations.*`` (Keras 3 on TensorFlow 2.21) with the same
options, run by ``tests/fixtures/tf/make_losses.py``, which wrote ``activations.npz``: a 4 x 5
input holding values at every threshold of the cases (0, 0.5, 2.5, 3, 6...) in float32 and
float64, and Keras' activation of it per case. HardSigmoid is TF Java's (and Keras 2's)
``clip(0.2 x + 0.5, 0, 1)``, which Keras 3 no longer has: it is compared with that formula.
Keras' GELU is ``tf.nn.gelu``, which rounds its constants (1/sqrt(2), 0.044715) to float32 also
in float64 (an error up to 4.7e-9 on these inputs); ours are float64's: in float64 it is
compared with the exact formula at 1e-12 and with Keras within that rounding.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.special
from opchecks import assertGradientsClose, assertRejected

from tfops import Graph, Ops, Session, Shape
from tfops.framework.activations import (
    ELU,
    GELU,
    SELU,
    Activation,
    Exponential,
    HardSigmoid,
    Linear,
    ReLU,
    Sigmoid,
    Softmax,
    Softplus,
    Softsign,
    Swish,
    Tanh,
)
from tfops.op.core import Placeholder
from tfops.types import TFloat64, TInt32, dataTypeOf

FIXTURE = np.load(Path(__file__).parent / "fixtures" / "tf" / "activations.npz")
BACKENDS = ["numpy", "xla"]
TOLERANCE = {"float32": 1e-6, "float64": 1e-12}

# case -> the tfops activation with the options of make_losses.py's case
CASES: dict[str, Callable[[], Activation]] = {
    "ReLU": ReLU,
    "ReLU-alpha": lambda: ReLU(alpha=0.1),
    "ReLU-max6": lambda: ReLU(maxValue=6.0),
    "ReLU-max": lambda: ReLU(maxValue=2.5),
    "ReLU-threshold": lambda: ReLU(threshold=0.5),
    "ReLU-all": lambda: ReLU(alpha=0.2, maxValue=3.0, threshold=-1.0),
    "ReLU-alpha-max": lambda: ReLU(alpha=0.3, maxValue=6.0),
    "ELU": ELU,
    "ELU-alpha": lambda: ELU(alpha=0.5),
    "GELU": GELU,
    "GELU-approximate": lambda: GELU(approximate=True),
    "Sigmoid": Sigmoid,
    "Softmax": Softmax,
    "Softmax-axis0": lambda: Softmax(axis=0),
    "Softplus": Softplus,
    "Softsign": Softsign,
    "Swish": Swish,
    "Tanh": Tanh,
    "SELU": SELU,
    "Linear": Linear,
    "Exponential": Exponential,
}


def test_everyCaseOfTheFixtureIsTested() -> None:
    assert {k.split("/")[0] for k in FIXTURE.files} - {"x"} == set(CASES)


def evaluate(backend: str, dtype: str, make: Callable[[], Activation]) -> Any:
    x = FIXTURE[f"x/{dtype}"]
    with Graph() as g:
        tf = Ops.create(g)
        p = tf.placeholder(dataTypeOf(np.dtype(dtype)), Placeholder.shape(Shape.of(*x.shape)))
        y = make().call(tf, p)
        assert y.shape() == Shape.of(*x.shape)
        with Session(g, backend=backend) as s:
            return np.asarray(s.runner().feed(p, x).fetch(y).run()[0])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", list(CASES))
def test_anActivationEqualsKeras(case: str, dtype: str, backend: str) -> None:
    got = evaluate(backend, dtype, CASES[case])
    expected = FIXTURE[f"{case}/{dtype}"]
    assert got.dtype == np.dtype(dtype)
    if case.startswith("GELU") and dtype == "float64":
        # TensorFlow's gelu casts its constants from float32 also in float64: Keras is within
        # their rounding (5e-9), the exact formula within float64's
        np.testing.assert_allclose(got, expected, rtol=0, atol=5e-9)
        expected = exactGelu(FIXTURE["x/float64"], case == "GELU-approximate")
    np.testing.assert_allclose(got, expected, rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype])


def exactGelu(x: Any, approximate: bool) -> Any:
    if approximate:
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1 + scipy.special.erf(x / np.sqrt(2)))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_hardSigmoidIsClipOfAFifthXPlusAHalf(dtype: str, backend: str) -> None:
    x = FIXTURE[f"x/{dtype}"]
    expected = np.clip(x * np.asarray(0.2, dtype) + np.asarray(0.5, dtype), 0, 1)
    got = evaluate(backend, dtype, HardSigmoid)
    np.testing.assert_allclose(got, expected, rtol=TOLERANCE[dtype], atol=TOLERANCE[dtype])


def test_softmaxAlongAMiddleAxisOfRank3(tf: Ops, run: Any) -> None:
    x = np.random.RandomState(5).normal(size=(2, 3, 4))
    got = run(Softmax(axis=1).call(tf, tf.constant(x)))
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(got, e / e.sum(1, keepdims=True), rtol=1e-12)


def test_linearReturnsItsInput(tf: Ops) -> None:
    x = tf.constant(np.ones(3))
    assert Linear().call(tf, x) == x.asOutput()


def test_anArrayInputBecomesAConstant(tf: Ops, run: Any) -> None:
    np.testing.assert_allclose(run(Tanh().call(tf, np.array([0.0, 1.0]))), np.tanh([0.0, 1.0]))


@pytest.mark.parametrize(
    "case",
    [
        "ReLU-all",
        "ELU-alpha",
        "GELU",
        "GELU-approximate",
        "Softmax-axis0",
        "Swish",
        "SELU",
        "Softsign",
        "Softplus",
    ],
)
def test_theGradientOfAnActivationMatchesFiniteDifferences(tf: Ops, case: str) -> None:
    x = FIXTURE["x/float64"] + 0.01  # off the kinks (0, thresholds, bounds)
    p = tf.placeholder(TFloat64, Placeholder.shape(Shape.of(*x.shape)))
    assertGradientsClose(CASES[case]().call(tf, p), [p], {p: x}, tolerance=1e-6)


def test_optionsReadBack() -> None:
    relu = ReLU(alpha=0.1, maxValue=float("nan"), threshold=0.5)
    assert (relu.getAlpha(), relu.getMaxValue(), relu.getThreshold()) == (0.1, None, 0.5)
    assert ReLU(maxValue=6).getMaxValue() == 6.0
    assert ELU(0.5).getAlpha() == 0.5
    assert GELU(True).isApproximate()
    assert Softmax(0).getAxis() == 0


# -- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize("case", list(CASES))
def test_integerInputRaisesTypeError(tf: Ops, graph: Graph, case: str) -> None:
    x = tf.constant(np.array([1, 2], np.int32))
    assert x.asOutput().dataType() is TInt32
    name = case.split("-")[0]
    assertRejected(
        graph,
        lambda: CASES[case]().call(tf, x),
        TypeError,
        name,
        "int32",
        "floating point",
        "tf.dtypes.cast",
        "test_activations.py",
    )


@pytest.mark.parametrize(
    ("make", "what"),
    [
        (lambda: ReLU(alpha="0.1"), "alpha"),
        (lambda: ReLU(maxValue=True), "maxValue"),
        (lambda: ReLU(threshold=None), "threshold"),
        (lambda: ELU(alpha=None), "alpha"),
        (lambda: GELU(approximate=1), "approximate"),
        (lambda: Softmax(axis=1.0), "axis"),
    ],
)
def test_anOptionOfTheWrongTypeRaisesTypeError(make: Callable[[], Activation], what: str) -> None:
    with pytest.raises(TypeError, match=what):
        make()


def test_otherBadCallsRaiseClearErrors(tf: Ops, graph: Graph) -> None:
    x = tf.constant(np.ones((2, 3)))
    assertRejected(
        graph, lambda: Softmax(axis=2).call(tf, x), ValueError, "Softmax", "axis 2", "rank 2"
    )
    other = Ops.create(Graph()).constant(np.ones(2))
    assertRejected(graph, lambda: Sigmoid().call(tf, other), ValueError, "another graph")
    assertRejected(graph, lambda: Tanh().call(graph, x), TypeError, "Ops.create(graph)")
