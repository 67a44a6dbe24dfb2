"""GraphDefs of typical TensorFlow 2.21 programs import into tfops and give TensorFlow's values.

The fixtures (``tests/fixtures/tf/make_tf2_models.py``): a Keras 3 MLP and a Keras 3 CNN traced
in inference and frozen, the CNN's loss and gradients by ``tf.GradientTape`` frozen the same way
(a convolution's gradient reads shapes with ShapeN), and ``tf.compat.v1`` graph code with max
and average pooling, a softmax cross-entropy and its first and second gradients by
``tf.compat.v1.gradients``. Each runs on every backend with TensorFlow's outputs (float32: a
few units in the last place), and tfops' own gradients of the imported graphs give
TensorFlow's. The same program on inputs of any batch size makes TensorFlow compute gradient
shapes with DynamicStitch (an op of two list inputs sharing the count ``N``): it imports and
gives TensorFlow's values too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

from tfops import Graph, Ops, Session
from tfops.backend import backendNames
from tfops.op.core import Gradients
from tfops.opdef import registeredOps
from tfops.output import Output
from tfops.types import TFloat32

FIXTURES = Path(__file__).parent / "fixtures" / "tf"
VALUES = np.load(FIXTURES / "tf2_models.npz")
MODELS = ["keras_mlp", "keras_cnn", "keras_cnn_gradients", "pool", "pool_any_batch"]
OP_TYPES: dict[str, list[str]] = json.loads(str(VALUES["ops"]))


def names(model: str, kind: str) -> list[str]:
    """The model's input or output tensor names, as tfops names outputs (``op`` for ``op:0``)."""
    return [n.removesuffix(":0") for n in json.loads(str(VALUES[f"{model}/{kind}"]))]


def imported(model: str) -> Graph:
    graph = Graph()
    graph.importGraphDef((FIXTURES / f"tf2_{model}.pb").read_bytes())
    return graph


def output(graph: Graph, name: str) -> Output[TFloat32]:
    """The float32 output 0 of the imported op ``name``."""
    op = graph.operation(name)
    assert op is not None and op.output(0).dataType() is TFloat32
    return cast("Output[TFloat32]", op.output(0))


def feeds(model: str) -> dict[str, Any]:
    return {name: VALUES[f"{model}/in{i}"] for i, name in enumerate(names(model, "inputs"))}


def expected(model: str) -> list[Any]:
    return [VALUES[f"{model}/out{i}"] for i in range(len(names(model, "outputs")))]


def run(graph: Graph, backend: str, fetches: list[Any], given: dict[str, Any]) -> list[Any]:
    with Session(graph, backend=backend) as session:
        runner = session.runner()
        for name, value in given.items():
            runner.feed(name, value)
        for fetch in fetches:
            runner.fetch(fetch)
        return [np.asarray(v) for v in runner.run()]


def assertTensorFlows(got: list[Any], want: list[Any], labels: list[str]) -> None:
    for value, theirs, label in zip(got, want, labels, strict=True):
        assert value.dtype == theirs.dtype and value.shape == theirs.shape, label
        # float32 sums in another order: a few units in the last place of the largest value
        # (the maxima, the losses' and the second gradients' values come out exact)
        ulp = float(np.finfo(np.float32).eps) * (float(np.abs(theirs).max()) if theirs.size else 0)
        np.testing.assert_allclose(value, theirs, rtol=1e-6, atol=4 * ulp, err_msg=label)


def test_tfopsHasEveryOpTypeTheFixturesUse() -> None:
    """Every op type these TensorFlow 2.21 programs write, DynamicStitch included (gradients
    of means over inputs of any batch size)."""
    known = {spec.type for spec in registeredOps()}
    missing = {model: sorted(set(types) - known) for model, types in OP_TYPES.items()}
    assert missing == {
        "keras_mlp": [],
        "keras_cnn": [],
        "keras_cnn_gradients": [],
        "pool": [],
        "pool_any_batch": [],
    }
    assert "DynamicStitch" in OP_TYPES["pool_any_batch"]
    assert {
        "MaxPool",
        "MaxPoolGrad",
        "MaxPoolGradGrad",
        "AvgPoolGrad",
        "SoftmaxCrossEntropyWithLogits",
    } <= set(OP_TYPES["pool"])
    assert {"MaxPool", "AvgPool", "Conv2D", "Rsqrt", "AddV2"} <= set(OP_TYPES["keras_cnn"])


@pytest.mark.parametrize("backend", backendNames())
@pytest.mark.parametrize("model", MODELS)
def test_aTensorFlow2GraphDefImportsAndGivesTensorFlowsValues(model: str, backend: str) -> None:
    graph = imported(model)
    assert sorted({op.type() for op in graph.operations()}) == OP_TYPES[model]
    outputs = names(model, "outputs")
    assertTensorFlows(run(graph, backend, outputs, feeds(model)), expected(model), outputs)


@pytest.mark.parametrize("backend", backendNames())
def test_tfopsGradientsOfTheImportedPoolingGraphAreTensorFlows(backend: str) -> None:
    """tfops differentiates the imported forward graph (its MaxPool, AvgPool, means and loss)
    to TensorFlow's gradient, through TensorFlow's own ops (MaxPoolGrad, MaxPoolGradGrad)."""
    graph = imported("pool")
    tf = Ops.create(graph)
    x, loss, same, probe = (output(graph, n) for n in ("x", "loss", "max_same", "probe"))
    (dx,) = tf.gradients(loss, [x]).dy()
    # the gradient of MaxPoolGrad's output for its grad input (MaxPoolGradGrad), and the
    # gradient of that for x (MaxPoolGrad for MaxPoolGradGrad's grad, zeros elsewhere)
    (back,) = tf.withSubScope("back").gradients(same, [x], Gradients.dx([probe])).dy()
    assert back is not None and back.op().type() == "MaxPoolGrad"
    everything = [0, 1, 2, 3]
    (dgrad,) = tf.withSubScope("dgrad").gradients(tf.sum(back * x, everything), [probe]).dy()
    assert dgrad is not None and dgrad.op().type() == "MaxPoolGradGrad"
    (dx2,) = tf.withSubScope("dx2").gradients(tf.sum(dgrad * dgrad, everything), [x]).dy()
    want = dict(zip(names("pool", "outputs"), expected("pool"), strict=True))
    got = run(graph, backend, [dx, dgrad, dx2], feeds("pool"))
    assertTensorFlows(got, [want["dx"], want["dgrad"], want["dx2"]], ["dx", "dgrad", "dx2"])


def test_aGraphDefWithDynamicStitchImportsWithItsTwoListInputs() -> None:
    graph = imported("pool_any_batch")
    stitch = graph.operation("gradients/Mean_grad/DynamicStitch")
    assert stitch is not None and stitch.type() == "DynamicStitch"
    assert stitch.attr("N") == 2 and stitch.numInputs() == 4
    assert [i.dataType().NAME for i in stitch.inputs()] == ["int32"] * 4
