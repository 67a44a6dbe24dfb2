"""Reading GraphDefs as TensorFlow writes them, without TensorFlow: its attributes that tfops'
ops lack (hints, defaults), its annotations, tensors in every encoding TensorFlow uses, and the
malformed GraphDefs that are refused (the graph left unchanged)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from tensorboard.compat.proto import graph_pb2, tensor_pb2, types_pb2

from tfops import Graph, Session
from tfops.errors import DataTypeError, IllegalArgumentError

F32 = types_pb2.DT_FLOAT


def const(graphDef: Any, name: str, tensor: Any) -> Any:
    node = graphDef.node.add(name=name, op="Const")
    node.attr["dtype"].type = tensor.dtype
    node.attr["value"].tensor.CopyFrom(tensor)
    return node


def floats(values: list[float], shape: list[int]) -> Any:
    t = tensor_pb2.TensorProto(dtype=F32, float_val=values)
    for d in shape:
        t.tensor_shape.dim.add(size=d)
    return t


def read(graphDef: Any, fetch: str) -> Any:
    with Graph() as g:
        g.importGraphDef(graphDef.SerializeToString())
        with Session(g) as s:
            return s.runner().fetch(fetch).run()[0]


def refused(graphDef: Any, match: str, error: type[Exception] = IllegalArgumentError) -> None:
    with Graph() as g:
        with pytest.raises(error, match=match):
            g.importGraphDef(graphDef.SerializeToString())
        assert g.size() == 0


def matMul(**attrs: Any) -> Any:
    graphDef = graph_pb2.GraphDef()
    const(graphDef, "a", floats([1.0, 2.0, 3.0, 4.0], [2, 2]))
    node = graphDef.node.add(name="m", op="MatMul", input=["a", "a"])
    node.attr["T"].type = F32
    for name, value in attrs.items():
        node.attr[name].b = value
    return graphDef


# -- TensorFlow's attributes and annotations -----------------------------------------------------
def test_matMulsGradientHintsAreIgnored() -> None:
    got = read(matMul(grad_a=True, grad_b=True, transpose_a=False), "m")
    np.testing.assert_array_equal(got, [[7.0, 10.0], [15.0, 22.0]])


def test_annotationsStartingWithAnUnderscoreAreIgnored() -> None:
    graphDef = matMul()
    graphDef.node[1].attr["_output_shapes"].list.shape.add()
    graphDef.node[1].attr["_class"].list.s.append(b"loc:@a")
    np.testing.assert_array_equal(read(graphDef, "m"), [[7.0, 10.0], [15.0, 22.0]])


def test_equalIsReadOnlyWithTensorFlowsDefaultShapeCheck() -> None:
    graphDef = graph_pb2.GraphDef()
    const(graphDef, "a", floats([1.0, 2.0], [2]))
    node = graphDef.node.add(name="e", op="Equal", input=["a", "a"])
    node.attr["T"].type = F32
    node.attr["incompatible_shape_error"].b = True
    np.testing.assert_array_equal(read(graphDef, "e"), [True, True])
    node.attr["incompatible_shape_error"].b = False
    refused(graphDef, "incompatible_shape_error.*is False; tfops implements Equal only as")


def test_aSharedVariableIsRefused() -> None:
    graphDef = graph_pb2.GraphDef()
    node = graphDef.node.add(name="v", op="VariableV2")
    node.attr["dtype"].type = F32
    node.attr["shape"].shape.dim.add(size=2)
    node.attr["shared_name"].s = b"shared"
    refused(graphDef, "'shared_name' of node 'v'.*'shared'")


def test_assertsTypeListMustStateItsDataTypes() -> None:
    graphDef = graph_pb2.GraphDef()
    const(graphDef, "c", tensor_pb2.TensorProto(dtype=types_pb2.DT_BOOL, bool_val=[True]))
    const(graphDef, "d", floats([1.0], [1]))
    node = graphDef.node.add(name="check", op="Assert", input=["c", "d"])
    node.attr["T"].list.type.append(F32)
    with Graph() as g:
        g.importGraphDef(graphDef.SerializeToString())
        assert g.operation("check") is not None
    node.attr["T"].list.type[0] = types_pb2.DT_INT32
    refused(graphDef, r"lists the data types \[int32\].*\[float32\]", DataTypeError)


def test_anAttributeOfTheWrongKindIsRefused() -> None:
    graphDef = matMul()
    graphDef.node[1].attr["T"].i = 1
    refused(graphDef, "attribute 'T' of node 'm' \\(MatMul\\) holds an int, but .* a type")


def test_aListCountThatDisagreesWithTheInputsIsRefused() -> None:
    graphDef = graph_pb2.GraphDef()
    const(graphDef, "a", floats([1.0], [1]))
    node = graphDef.node.add(name="sum", op="AddN", input=["a", "a"])
    node.attr["T"].type = F32
    node.attr["N"].i = 2
    np.testing.assert_array_equal(read(graphDef, "sum"), [2.0])
    node.attr["N"].i = 3
    refused(graphDef, "'N' of node 'sum' \\(AddN\\) is 3, but the node has 2")


# -- tensors --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("tensor", "expected"),
    [
        (floats([1.5], [2, 3]), np.full((2, 3), 1.5, np.float32)),  # one value fills the shape
        (floats([1.0, 2.0], [3]), np.array([1.0, 2.0, 2.0], np.float32)),  # the last repeats
        (floats([], [2]), np.zeros(2, np.float32)),
        (
            tensor_pb2.TensorProto(
                dtype=types_pb2.DT_HALF,
                half_val=[0x3C00, 0xC000],
                tensor_shape={"dim": [{"size": 2}]},
            ),
            np.array([1.0, -2.0], np.float16),
        ),
        (
            tensor_pb2.TensorProto(dtype=types_pb2.DT_INT64, int64_val=[2**40], tensor_shape={}),
            np.int64(2**40),
        ),
        (
            tensor_pb2.TensorProto(
                dtype=types_pb2.DT_UINT8, int_val=[255, 7], tensor_shape={"dim": [{"size": 2}]}
            ),
            np.array([255, 7], np.uint8),
        ),
        (
            tensor_pb2.TensorProto(
                dtype=types_pb2.DT_DOUBLE,
                tensor_content=np.array([0.25, -1.0], "<f8").tobytes(),
                tensor_shape={"dim": [{"size": 2}]},
            ),
            np.array([0.25, -1.0]),
        ),
    ],
    ids=["splat", "lastRepeats", "empty", "half", "int64", "uint8", "content"],
)
def test_tensorsInEveryEncodingTensorFlowWrites(tensor: Any, expected: Any) -> None:
    graphDef = graph_pb2.GraphDef()
    const(graphDef, "c", tensor)
    got = read(graphDef, "c")
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_tensorContentOfTheWrongSizeIsRefused() -> None:
    graphDef = graph_pb2.GraphDef()
    tensor = floats([], [3])
    tensor.tensor_content = b"\x00" * 8
    const(graphDef, "c", tensor)
    refused(
        graphDef, "tensor_content holds 8 bytes, but a float32 tensor of shape \\[3\\] needs 12"
    )


def test_moreValuesThanTheShapeHoldsAreRefused() -> None:
    graphDef = graph_pb2.GraphDef()
    const(graphDef, "c", floats([1.0, 2.0, 3.0], [2]))
    refused(graphDef, "3 values for a tensor of shape \\[2\\]")


# -- malformed GraphDefs --------------------------------------------------------------------------
def test_nodesInAnyOrderAreRead() -> None:
    graphDef = matMul()
    reordered = graph_pb2.GraphDef()
    reordered.node.extend([graphDef.node[1], graphDef.node[0]])
    np.testing.assert_array_equal(read(reordered, "m"), [[7.0, 10.0], [15.0, 22.0]])


def test_aCycleIsRefused() -> None:
    graphDef = graph_pb2.GraphDef()
    for name, other in (("x", "y"), ("y", "x")):
        node = graphDef.node.add(name=name, op="Identity", input=[other])
        node.attr["T"].type = F32
    refused(graphDef, r"nodes \['x', 'y'\] read each other in a cycle")


def test_anOutputThatDoesNotExistIsRefused() -> None:
    graphDef = matMul()
    graphDef.node[1].input[1] = "a:1"
    refused(graphDef, "node 'm' \\(MatMul\\) reads output 1 of 'a' \\(Const\\), which has 1")


def test_anInvalidNodeNameIsRefused() -> None:
    graphDef = matMul()
    graphDef.node[1].name = "bad name"
    refused(graphDef, "invalid op name 'bad name'")


def test_bytesAndPrefixOfTheWrongKindAreRefused(graph: Graph) -> None:
    with pytest.raises(DataTypeError, match="as bytes, got str"):
        graph.importGraphDef("not bytes")  # type: ignore[arg-type]
    with pytest.raises(IllegalArgumentError, match="invalid import prefix 'a b'"):
        graph.importGraphDef(matMul().SerializeToString(), "a b")
    assert graph.size() == 0
