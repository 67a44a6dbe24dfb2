"""A TensorFlow 1 program on a batch of any size imports into tfops and gives TensorFlow's
values: ``reduce_mean`` and ``reduce_sum`` over a placeholder of shape ``[None, 3]`` and their
``tf.compat.v1.gradients``, which TensorFlow computes with DynamicStitch, an op of two list
inputs sharing the count ``N`` (``tests/fixtures/tf/make_dynamic_stitch.py``). tfops writes
such ops back as TensorFlow reads them, and refuses NodeDefs whose lists do not fit ``N``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Session
from tfops.backend import backendNames
from tfops.errors import IllegalArgumentError

FIXTURES = Path(__file__).parent / "fixtures" / "tf"
VALUES = np.load(FIXTURES / "dynamic_stitch.npz")
GRAPH_DEF = (FIXTURES / "tf1_reduce_any_batch.pb").read_bytes()
INPUTS = [n.removesuffix(":0") for n in json.loads(str(VALUES["graph/inputs"]))]
OUTPUTS = [n.removesuffix(":0") for n in json.loads(str(VALUES["graph/outputs"]))]


def imported() -> Graph:
    graph = Graph()
    graph.importGraphDef(GRAPH_DEF)
    return graph


def run(graph: Graph, backend: str) -> list[Any]:
    with Session(graph, backend=backend) as session:
        runner = session.runner()
        for i, name in enumerate(INPUTS):
            runner.feed(name, VALUES[f"graph/in{i}"])
        for name in OUTPUTS:
            runner.fetch(name)
        return [np.asarray(v) for v in runner.run()]


def test_theProgramUsesDynamicStitchForItsGradients() -> None:
    ops = json.loads(str(VALUES["graph/ops"]))
    assert "DynamicStitch" in ops and {"Mean", "Sum", "FloorMod", "Range"} <= set(ops)
    stitches = [op for op in imported().operations() if op.type() == "DynamicStitch"]
    # reductions over some axes of a tensor of unknown shape; over every axis TensorFlow
    # needs no reduced shape
    assert [op.name() for op in stitches] == [
        "gradients/mean_rows_grad/DynamicStitch",
        "gradients_1/sum_columns_grad/DynamicStitch",
        "gradients_4/mean_fed_axis_grad/DynamicStitch",
    ]
    assert all(op.attr("N") == 2 and op.numInputs() == 4 for op in stitches)


@pytest.mark.parametrize("backend", backendNames())
def test_forwardValuesAndGradientsAreTensorFlows(backend: str) -> None:
    got = run(imported(), backend)
    for value, name, k in zip(got, OUTPUTS, range(len(OUTPUTS)), strict=True):
        theirs = VALUES[f"graph/out{k}"]
        assert value.dtype == theirs.dtype and value.shape == theirs.shape, name
        np.testing.assert_allclose(value, theirs, rtol=1e-6, atol=1e-6, err_msg=name)


def test_theGraphWrittenBackRunsInTensorFlowWithTheSameValues() -> None:
    tensorflow = pytest.importorskip("tensorflow")
    written = imported().toGraphDef()
    graphDef = tensorflow.compat.v1.GraphDef()
    graphDef.ParseFromString(written)
    stitch = next(n for n in graphDef.node if n.op == "DynamicStitch")
    assert len(stitch.input) == 4 and stitch.attr["N"].i == 2
    with tensorflow.Graph().as_default() as graph:
        tensorflow.compat.v1.import_graph_def(graphDef, name="")
        feeds = {f"{name}:0": VALUES[f"graph/in{i}"] for i, name in enumerate(INPUTS)}
        with tensorflow.compat.v1.Session(graph=graph) as session:
            got = session.run([f"{name}:0" for name in OUTPUTS], feeds)
    for k, value in enumerate(got):
        np.testing.assert_allclose(value, VALUES[f"graph/out{k}"], rtol=1e-6, atol=1e-6)


def edited(change: Any) -> bytes:
    """The fixture with ``change(node)`` applied to its first DynamicStitch node."""
    tensorflow = pytest.importorskip("tensorflow")
    graphDef = tensorflow.compat.v1.GraphDef()
    graphDef.ParseFromString(GRAPH_DEF)
    change(next(n for n in graphDef.node if n.op == "DynamicStitch"))
    return bytes(graphDef.SerializeToString())


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (
            lambda node: node.attr["N"].__setattr__("i", 3),
            "DynamicStitch takes 0 single input(s) and 2 lists of N = 3 tensor(s) each (indices, "
            "data), got 4 data input(s)",
        ),
        (
            lambda node: node.input.pop(),
            "DynamicStitch takes 0 single input(s) and 2 lists of N = 2 tensor(s) each (indices, "
            "data), got 3 data input(s)",
        ),
        (
            lambda node: node.attr.pop("N"),
            "DynamicStitch has 2 list inputs (indices, data) whose length is the attribute N, "
            "which the node lacks",
        ),
    ],
    ids=["wrongN", "missingInput", "noN"],
)
def test_aStitchNodeWhoseListsDoNotFitNIsRefusedAndTheGraphIsUnchanged(
    change: Any, fragment: str
) -> None:
    data = edited(change)
    graph = Graph()
    with pytest.raises(IllegalArgumentError) as info:
        graph.importGraphDef(data)
    assert fragment in str(info.value)
    assert graph.size() == 0
