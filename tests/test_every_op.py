"""What every built-in op shares, checked once per op: its generated class and the ``Ops``
facade method that builds it (its inputs and output accessors), its names (default, ``withName``,
sub-scope), the rejection of an operand of another graph and of a closed graph, and its docs.

Each op is created with small valid inputs (each sample also runs in a session): an op whose
inputs are single tensors that take float32 (or bool) and that needs no parameter gets float32
(or bool) vectors by default; ``SAMPLES`` has a row for every other op, and a test checks that
every op has a sample. A new unary or binary elementwise op needs no row here. The per-op
modules in ``tests/op`` do not repeat these checks.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import assertRejected

from tfops import Graph, Ops, Session, Shape
from tfops.errors import IllegalStateError
from tfops.op.core import Variable
from tfops.opdef import OpDef
from tfops.spec import builtinOps
from tfops.types import TBool, TFloat32, TInt32

OPS = builtinOps()


def floatVariable(tf: Any) -> Variable[TFloat32]:
    """A float32 variable of shape [2] and no initializer (writing it needs no value)."""
    return Variable.create(tf.scope(), Shape.of(2), TFloat32)


def initialized(tf: Any) -> Any:
    """A float32 variable of shape [2], initialized to [1, 2] by ``session.initialize()``."""
    return tf.variable(tf.constant([1.0, 2.0]))


def c(tf: Any, value: Any) -> Any:
    """An operand (a ``Const``) of ``value``: the samples pass operands, not Python values, so
    that every input can come from another graph."""
    return tf.constant(value)


F = [1.0, 2.0]  # a float32 vector
M = [[1.0, 2.0], [3.0, 4.0]]  # a float32 matrix
B = [True, False]  # a bool vector

# ops the default sample does not serve: parameters, lists, references, or inputs that need
# particular values to be valid (axes, indices, shapes, matrices)
SAMPLES: dict[str, Callable[[Any], Any]] = {
    # core
    "Fill": lambda tf: tf.fill(c(tf, [2]), c(tf, 1.0)),
    "Range": lambda tf: tf.range(c(tf, 0), c(tf, 3), c(tf, 1)),
    "OneHot": lambda tf: tf.oneHot(c(tf, [0, 2]), c(tf, 3), c(tf, 1.0), c(tf, 0.0)),
    "SelectV2": lambda tf: tf.select(c(tf, B), c(tf, F), c(tf, [3.0, 4.0])),
    "CheckNumerics": lambda tf: tf.checkNumerics(c(tf, F), "bad value"),
    "Const": lambda tf: tf.constant(F),
    "Placeholder": lambda tf: tf.placeholder(TFloat32),
    "Max": lambda tf: tf.max(c(tf, F), c(tf, 0)),
    "Min": lambda tf: tf.min(c(tf, F), c(tf, 0)),
    "Sum": lambda tf: tf.sum(c(tf, F), c(tf, 0)),
    "Prod": lambda tf: tf.prod(c(tf, F), c(tf, 0)),
    "All": lambda tf: tf.all(c(tf, B), c(tf, 0)),
    "Any": lambda tf: tf.any(c(tf, B), c(tf, 0)),
    "Rank": lambda tf: tf.rank(c(tf, M)),
    "Size": lambda tf: tf.size(c(tf, M)),
    "Squeeze": lambda tf: tf.squeeze(c(tf, [[1.0]])),
    "Tile": lambda tf: tf.tile(c(tf, F), c(tf, [2])),
    "GatherV2": lambda tf: tf.gather(c(tf, F), c(tf, [1]), c(tf, 0)),
    "ConcatV2": lambda tf: tf.concat([c(tf, F), c(tf, [3.0])], c(tf, 0)),
    "Pack": lambda tf: tf.stack([c(tf, F), c(tf, [3.0, 4.0])]),
    "Unpack": lambda tf: tf.unstack(c(tf, M), 2),
    "ShapeN": lambda tf: tf.shapeN([c(tf, F), c(tf, M)]),
    "DynamicStitch": lambda tf: tf.dynamicStitch([c(tf, [2, 0]), c(tf, [1])],
                                                 [c(tf, F), c(tf, [3.0])]),
    "ParallelDynamicStitch": lambda tf: tf.parallelDynamicStitch([c(tf, [2, 0]), c(tf, [1])],
                                                                 [c(tf, F), c(tf, [3.0])]),
    "Pad": lambda tf: tf.pad(c(tf, F), c(tf, [[1, 1]])),
    "Slice": lambda tf: tf.slice(c(tf, F), c(tf, [1]), c(tf, [1])),
    "StridedSlice": lambda tf: tf.stridedSlice(c(tf, F), c(tf, [0]), c(tf, [1]), c(tf, [1])),
    "StridedSliceGrad": lambda tf: tf.stridedSliceGrad(
        c(tf, [2]), c(tf, [0]), c(tf, [1]), c(tf, [1]), c(tf, [5.0])),
    "Shape": lambda tf: tf.shape(c(tf, M)),
    "Reshape": lambda tf: tf.reshape(c(tf, F), c(tf, [2, 1])),
    "ExpandDims": lambda tf: tf.expandDims(c(tf, F), c(tf, 0)),
    "BroadcastTo": lambda tf: tf.broadcastTo(c(tf, F), c(tf, [3, 2])),
    "BroadcastGradientArgs": lambda tf: tf.broadcastGradientArgs(c(tf, [2, 1]), c(tf, [3])),
    "VariableV2": lambda tf: tf.variable(c(tf, F)),
    "Assign": lambda tf: tf.assign(floatVariable(tf), c(tf, F)),
    "AssignAdd": lambda tf: tf.assignAdd(initialized(tf), c(tf, F)),
    "AssignSub": lambda tf: tf.assignSub(initialized(tf), c(tf, F)),
    "NoOp": lambda tf: tf.noOp(),
    # dtypes
    "Cast": lambda tf: tf.dtypes.cast(c(tf, F), TInt32),
    # linalg
    "Transpose": lambda tf: tf.linalg.transpose(c(tf, M), c(tf, [1, 0])),
    "MatMul": lambda tf: tf.linalg.matMul(c(tf, M), c(tf, M)),
    "BatchMatMulV2": lambda tf: tf.linalg.batchMatMul(c(tf, [M]), c(tf, [M])),
    # math
    "InvertPermutation": lambda tf: tf.math.invertPermutation(c(tf, [1, 0])),
    "UnsortedSegmentSum": lambda tf: tf.math.unsortedSegmentSum(
        c(tf, F), c(tf, [0, 0]), c(tf, 1)),
    "AddN": lambda tf: tf.math.addN([c(tf, F), c(tf, F)]),
    "Mean": lambda tf: tf.math.mean(c(tf, F), c(tf, 0)),
    "ArgMax": lambda tf: tf.math.argMax(c(tf, F), c(tf, 0)),
    "ArgMin": lambda tf: tf.math.argMin(c(tf, F), c(tf, 0)),
    "Cumsum": lambda tf: tf.math.cumsum(c(tf, F), c(tf, 0)),
    # nn
    "BiasAdd": lambda tf: tf.nn.biasAdd(c(tf, M), c(tf, F)),
    "BiasAddGrad": lambda tf: tf.nn.biasAddGrad(c(tf, M)),
    "Softmax": lambda tf: tf.nn.softmax(c(tf, M)),
    "LogSoftmax": lambda tf: tf.nn.logSoftmax(c(tf, M)),
    "SoftmaxCrossEntropyWithLogits": lambda tf: tf.nn.softmaxCrossEntropyWithLogits(
        c(tf, M), c(tf, [[0.0, 1.0], [1.0, 0.0]])),
    "SparseSoftmaxCrossEntropyWithLogits": lambda tf: tf.nn.sparseSoftmaxCrossEntropyWithLogits(
        c(tf, M), c(tf, [1, 0])),
    # random
    "RandomUniform": lambda tf: tf.random.randomUniform(c(tf, [2]), TFloat32),
    "RandomStandardNormal": lambda tf: tf.random.randomStandardNormal(c(tf, [2]), TFloat32),
    "TruncatedNormal": lambda tf: tf.random.truncatedNormal(c(tf, [2]), TFloat32),
    "RandomUniformInt": lambda tf: tf.random.randomUniformInt(c(tf, [2]), c(tf, 0), c(tf, 5)),
    # train
    "ApplyGradientDescent": lambda tf: tf.train.applyGradientDescent(
        initialized(tf), c(tf, 0.1), c(tf, F)),
    "ApplyMomentum": lambda tf: tf.train.applyMomentum(
        initialized(tf), initialized(tf), c(tf, 0.1), c(tf, F), c(tf, 0.9)),
    "ApplyAdam": lambda tf: tf.train.applyAdam(
        initialized(tf), initialized(tf), initialized(tf), c(tf, 0.9), c(tf, 0.999), c(tf, 0.1),
        c(tf, 0.9), c(tf, 0.999), c(tf, 1e-8), c(tf, F)),
    "ApplyAdagrad": lambda tf: tf.train.applyAdagrad(
        initialized(tf), initialized(tf), c(tf, 0.1), c(tf, F)),
    "ApplyRMSProp": lambda tf: tf.train.applyRMSProp(
        initialized(tf), initialized(tf), initialized(tf), c(tf, 0.1), c(tf, 0.9), c(tf, 0.0),
        c(tf, 1e-10), c(tf, F)),
    "ApplyCenteredRMSProp": lambda tf: tf.train.applyCenteredRMSProp(  # mg = 0: ms - mg^2 > 0
        initialized(tf), tf.variable(c(tf, [0.0, 0.0])), initialized(tf), initialized(tf),
        c(tf, 0.1),
        c(tf, 0.9), c(tf, 0.0), c(tf, 1e-10), c(tf, F)),
    "ApplyAdagradDA": lambda tf: tf.train.applyAdagradDA(
        initialized(tf), initialized(tf), initialized(tf), c(tf, F), c(tf, 0.1), c(tf, 0.01),
        c(tf, 0.01), c(tf, np.int64(1))),
    "ApplyAdadelta": lambda tf: tf.train.applyAdadelta(
        initialized(tf), initialized(tf), initialized(tf), c(tf, 1.0), c(tf, 0.95), c(tf, 1e-7),
        c(tf, F)),
    "ApplyAdaMax": lambda tf: tf.train.applyAdaMax(
        initialized(tf), initialized(tf), initialized(tf), c(tf, 0.9), c(tf, 0.1), c(tf, 0.9),
        c(tf, 0.999), c(tf, 1e-7), c(tf, F)),
    "ApplyFtrl": lambda tf: tf.train.applyFtrl(
        initialized(tf), initialized(tf), initialized(tf), c(tf, F), c(tf, 0.1), c(tf, 0.01),
        c(tf, 0.01), c(tf, -0.5)),
    "ApplyFtrlV2": lambda tf: tf.train.applyFtrlV2(
        initialized(tf), initialized(tf), initialized(tf), c(tf, F), c(tf, 0.1), c(tf, 0.01),
        c(tf, 0.01), c(tf, 0.01), c(tf, -0.5)),
    "ApplyProximalGradientDescent": lambda tf: tf.train.applyProximalGradientDescent(
        initialized(tf), c(tf, 0.1), c(tf, 0.01), c(tf, 0.01), c(tf, F)),
    "ApplyProximalAdagrad": lambda tf: tf.train.applyProximalAdagrad(
        initialized(tf), initialized(tf), c(tf, 0.1), c(tf, 0.01), c(tf, 0.01), c(tf, F)),
    "ApplyPowerSign": lambda tf: tf.train.applyPowerSign(
        initialized(tf), initialized(tf), c(tf, 0.1), c(tf, 0.69), c(tf, 0.9), c(tf, 0.9),
        c(tf, F)),
    "ApplyAddSign": lambda tf: tf.train.applyAddSign(
        initialized(tf), initialized(tf), c(tf, 0.1), c(tf, 1.0), c(tf, 0.9), c(tf, 0.9),
        c(tf, F)),
    # nn: convolution, pooling, normalization, activations, top-k
    # nnrest: batch and local response normalization ([2, 1, 1, 2] images, NHWC)
    "FusedBatchNormV3": lambda tf: tf.nn.fusedBatchNorm(
        c(tf, [[[[1.0, 2.0]]], [[[3.0, 5.0]]]]), c(tf, F), c(tf, F), c(tf, F), c(tf, F)),
    "FusedBatchNormGradV3": lambda tf: tf.nn.fusedBatchNormGrad(
        c(tf, [[[[1.0, 2.0]]], [[[3.0, 5.0]]]]), c(tf, [[[[1.0, 2.0]]], [[[3.0, 5.0]]]]),
        c(tf, F), c(tf, F), c(tf, F), c(tf, F)),
    "LRN": lambda tf: tf.nn.localResponseNormalization(c(tf, [[[[1.0, 2.0]]]])),
    "LRNGrad": lambda tf: tf.nn.localResponseNormalizationGrad(
        c(tf, [[[[1.0, 2.0]]]]), c(tf, [[[[1.0, 2.0]]]]), c(tf, [[[[0.5, 0.6]]]])),
    # topk:
    "TopKV2": lambda tf: tf.nn.topK(c(tf, F), c(tf, 1)),
    "InTopKV2": lambda tf: tf.nn.inTopK(c(tf, M), c(tf, [1, 0]), c(tf, 1)),
    # conv: NHWC images (1x3x3x1), 2x2x1x1 filters, their 1x2x2x1 outputs
    "Conv2D": lambda tf: tf.nn.conv2d(
        c(tf, np.ones((1, 3, 3, 1), np.float32)), c(tf, np.ones((2, 2, 1, 1), np.float32)),
        [1, 1, 1, 1], "VALID"),
    "Conv2DBackpropInput": lambda tf: tf.nn.conv2dBackpropInput(
        c(tf, [1, 3, 3, 1]), c(tf, np.ones((2, 2, 1, 1), np.float32)),
        c(tf, np.ones((1, 2, 2, 1), np.float32)), [1, 1, 1, 1], "VALID"),
    "Conv2DBackpropFilter": lambda tf: tf.nn.conv2dBackpropFilter(
        c(tf, np.ones((1, 3, 3, 1), np.float32)), c(tf, [2, 2, 1, 1]),
        c(tf, np.ones((1, 2, 2, 1), np.float32)), [1, 1, 1, 1], "VALID"),
    "MaxPoolV2": lambda tf: tf.nn.maxPool(
        c(tf, np.ones((1, 2, 2, 1), np.float32)), c(tf, [1, 2, 2, 1]), c(tf, [1, 2, 2, 1]),
        "VALID"),
    "MaxPoolGradV2": lambda tf: tf.nn.maxPoolGrad(
        c(tf, np.ones((1, 2, 2, 1), np.float32)), c(tf, np.ones((1, 1, 1, 1), np.float32)),
        c(tf, np.ones((1, 1, 1, 1), np.float32)), c(tf, [1, 2, 2, 1]), c(tf, [1, 2, 2, 1]),
        "VALID"),
    "MaxPoolGradGradV2": lambda tf: tf.nn.maxPoolGradGrad(
        c(tf, np.ones((1, 2, 2, 1), np.float32)), c(tf, np.ones((1, 1, 1, 1), np.float32)),
        c(tf, np.ones((1, 2, 2, 1), np.float32)), c(tf, [1, 2, 2, 1]), c(tf, [1, 2, 2, 1]),
        "VALID"),
    "MaxPool": lambda tf: tf.nn.maxPoolV1(
        c(tf, np.ones((1, 2, 2, 1), np.float32)), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    "MaxPoolGrad": lambda tf: tf.nn.maxPoolGradV1(
        c(tf, np.ones((1, 2, 2, 1), np.float32)), c(tf, np.ones((1, 1, 1, 1), np.float32)),
        c(tf, np.ones((1, 1, 1, 1), np.float32)), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    "MaxPoolGradGrad": lambda tf: tf.nn.maxPoolGradGradV1(
        c(tf, np.ones((1, 2, 2, 1), np.float32)), c(tf, np.ones((1, 1, 1, 1), np.float32)),
        c(tf, np.ones((1, 2, 2, 1), np.float32)), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    "AvgPool": lambda tf: tf.nn.avgPool(
        c(tf, np.ones((1, 2, 2, 1), np.float32)), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    "AvgPoolGrad": lambda tf: tf.nn.avgPoolGrad(
        c(tf, [1, 2, 2, 1]), c(tf, np.ones((1, 1, 1, 1), np.float32)), [1, 2, 2, 1],
        [1, 2, 2, 1], "VALID"),
    "DepthwiseConv2dNative": lambda tf: tf.nn.depthwiseConv2dNative(
        c(tf, np.ones((1, 3, 3, 1), np.float32)), c(tf, np.ones((2, 2, 1, 1), np.float32)),
        [1, 1, 1, 1], "VALID"),
    "DepthwiseConv2dNativeBackpropInput": lambda tf: tf.nn.depthwiseConv2dNativeBackpropInput(
        c(tf, [1, 3, 3, 1]), c(tf, np.ones((2, 2, 1, 1), np.float32)),
        c(tf, np.ones((1, 2, 2, 1), np.float32)), [1, 1, 1, 1], "VALID"),
    "DepthwiseConv2dNativeBackpropFilter": lambda tf: tf.nn.depthwiseConv2dNativeBackpropFilter(
        c(tf, np.ones((1, 3, 3, 1), np.float32)), c(tf, [2, 2, 1, 1]),
        c(tf, np.ones((1, 2, 2, 1), np.float32)), [1, 1, 1, 1], "VALID"),
    #
    # arrays: split, scatter, segments, matrices, random, assert
    # arrays: split, reverse, scatter, set difference, assert (helper "arrays")
    "Split": lambda tf: tf.split(c(tf, 0), c(tf, F), 2),
    "SplitV": lambda tf: tf.splitV(c(tf, F), c(tf, [1, -1]), c(tf, 0), 2),
    "ReverseV2": lambda tf: tf.reverse(c(tf, M), c(tf, [1])),
    "GatherNd": lambda tf: tf.gatherNd(c(tf, M), c(tf, [[1, 0]])),
    "ScatterNd": lambda tf: tf.scatterNd(c(tf, [[1]]), c(tf, [5.0]), c(tf, [3])),
    "TensorScatterUpdate": lambda tf: tf.tensorScatterNdUpdate(
        c(tf, F), c(tf, [[0]]), c(tf, [5.0])),
    "TensorScatterAdd": lambda tf: tf.tensorScatterNdAdd(c(tf, F), c(tf, [[0]]), c(tf, [5.0])),
    "Assert": lambda tf: tf.assertThat(c(tf, True), [c(tf, F), c(tf, [1, 2])]),
    # segments:
    "SegmentSum": lambda tf: tf.math.segmentSum(c(tf, F), c(tf, [0, 0])),
    "SegmentMean": lambda tf: tf.math.segmentMean(c(tf, F), c(tf, [0, 1])),
    "SegmentMax": lambda tf: tf.math.segmentMax(c(tf, F), c(tf, [0, 0])),
    "SegmentMin": lambda tf: tf.math.segmentMin(c(tf, F), c(tf, [0, 2])),
    "SegmentProd": lambda tf: tf.math.segmentProd(c(tf, F), c(tf, [1, 1])),
    "UnsortedSegmentMax": lambda tf: tf.math.unsortedSegmentMax(
        c(tf, F), c(tf, [1, 0]), c(tf, 2)),
    "UnsortedSegmentMin": lambda tf: tf.math.unsortedSegmentMin(
        c(tf, F), c(tf, [0, -1]), c(tf, 1)),
    "UnsortedSegmentProd": lambda tf: tf.math.unsortedSegmentProd(
        c(tf, F), c(tf, [0, 0]), c(tf, 1)),
    "Cumprod": lambda tf: tf.math.cumprod(c(tf, F), c(tf, 0)),
    "MatrixDiagV3": lambda tf: tf.linalg.matrixDiagV3(
        c(tf, F), c(tf, 0), c(tf, -1), c(tf, -1), c(tf, 0.0)),
    "MatrixDiagPartV3": lambda tf: tf.linalg.matrixDiagPartV3(c(tf, M), c(tf, 0), c(tf, 0.0)),
    "MatrixSetDiagV3": lambda tf: tf.linalg.matrixSetDiag(c(tf, M), c(tf, F), c(tf, 0)),
    "MatrixBandPart": lambda tf: tf.linalg.bandPart(c(tf, M), c(tf, 0), c(tf, -1)),
    "Einsum": lambda tf: tf.linalg.einsum([c(tf, M), c(tf, F)], "ij,j->i"),
    "Multinomial": lambda tf: tf.random.multinomial(c(tf, M), c(tf, 3), TInt32),
    "StatelessRandomUniform": lambda tf: tf.random.statelessRandomUniform(
        c(tf, [2]), c(tf, [1, 2])),
    "StatelessRandomNormal": lambda tf: tf.random.statelessRandomNormal(
        c(tf, [2]), c(tf, [1, 2])),
    "StatelessTruncatedNormal": lambda tf: tf.random.statelessTruncatedNormal(
        c(tf, [2]), c(tf, [1, 2])),
    #
    # math: trigonometric, rounding, special, integer, bitwise, solvers, norms
    "Asin": lambda tf: tf.math.asin(c(tf, [0.5, -0.25])),
    "Acos": lambda tf: tf.math.acos(c(tf, [0.5, -0.25])),
    "Atanh": lambda tf: tf.math.atanh(c(tf, [0.5, -0.25])),
    "BitwiseAnd": lambda tf: tf.bitwise.bitwiseAnd(c(tf, [6, 3]), c(tf, [3, 5])),
    "BitwiseOr": lambda tf: tf.bitwise.bitwiseOr(c(tf, [6, 3]), c(tf, [3, 5])),
    "BitwiseXor": lambda tf: tf.bitwise.bitwiseXor(c(tf, [6, 3]), c(tf, [3, 5])),
    "Zeta": lambda tf: tf.math.zeta(c(tf, [2.0, 3.0]), c(tf, F)),
    "EuclideanNorm": lambda tf: tf.linalg.euclideanNorm(c(tf, F), c(tf, 0)),
    # linalg: inverses, solvers, factorizations
    "MatrixInverse": lambda tf: tf.linalg.inv(c(tf, M)),
    "MatrixDeterminant": lambda tf: tf.linalg.det(c(tf, M)),
    "MatrixSolve": lambda tf: tf.linalg.solve(c(tf, M), c(tf, M)),
    "MatrixTriangularSolve": lambda tf: tf.linalg.triangularSolve(c(tf, M), c(tf, M)),
    "Cholesky": lambda tf: tf.linalg.cholesky(c(tf, [[4.0, 2.0], [2.0, 5.0]])),
    "Qr": lambda tf: tf.linalg.qr(c(tf, M)),
    #
    # fidelity and conveniences
    #
}


def lowerCamel(name: str) -> str:
    return name[0].lower() + name[1:]


def className(spec: OpDef) -> str:
    return spec.className or spec.type


def facadeName(spec: OpDef) -> str:
    return spec.facadeName or lowerCamel(className(spec))


def defaultName(spec: OpDef) -> str:
    return spec.defaultName or spec.type


def opClass(spec: OpDef) -> Any:
    return getattr(importlib.import_module(f"tfops.op.{spec.group}"), className(spec))


def facadeMethod(tf: Ops, spec: OpDef) -> Callable[..., Any]:
    """``tf.<name>`` for a core op, ``tf.<group>.<name>`` for the others."""
    return getattr(tf if spec.group == "core" else getattr(tf, spec.group), facadeName(spec))


class Split:
    """Stands in for ``tf`` in a sample: the op under test comes from the facade ``op`` (after
    ``beforeOp()``), every other call (its inputs) from the facade ``inputs``."""

    def __init__(
        self, spec: OpDef, inputs: Ops, op: Ops, beforeOp: Callable[[], None] = lambda: None
    ) -> None:
        self.spec, self.inputs, self.op, self.beforeOp = spec, inputs, op, beforeOp
        self.calls = 0
        self.args: tuple[Any, ...] = ()

    def __getattr__(self, name: str) -> Any:
        if self.spec.group != "core" and name == self.spec.group:
            return Group(self, getattr(self.inputs, name))
        if self.spec.group == "core" and name == facadeName(self.spec):
            return self.createOp
        return getattr(self.inputs, name)

    def createOp(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        self.args = args
        self.beforeOp()
        return facadeMethod(self.op, self.spec)(*args, **kwargs)


class Group:
    """A group of a :class:`Split` (``tf.math``...): its op's method, the inputs' others."""

    def __init__(self, split: Split, inputs: Any) -> None:
        self.split, self.inputs = split, inputs

    def __getattr__(self, name: str) -> Any:
        if name == facadeName(self.split.spec):
            return self.split.createOp
        return getattr(self.inputs, name)


def defaultSample(spec: OpDef) -> Callable[[Any], Any] | None:
    """For an op whose inputs are single tensors taking float32 (else bool) and that needs no
    parameter: its facade method on a float32 (bool) vector per input; else ``None``."""
    if any(a.param for a in spec.attrs):
        return None
    values = []
    for i in spec.inputs:
        allowed = (i.dtype,) if i.dtype is not None else (
            spec.attrDef(i.typeAttr).allowed if i.typeAttr and spec.attrDef(i.typeAttr) else ()
        )
        if i.isList or i.isRef or not allowed:
            return None
        values.append(F if TFloat32 in allowed else B if TBool in allowed else None)
    if None in values or not values:
        return None
    return lambda tf: facadeMethod(tf, spec)(*(c(tf, v) for v in values))


def sampleOf(spec: OpDef) -> Callable[[Any], Any]:
    found = SAMPLES.get(spec.type) or defaultSample(spec)
    assert found is not None, f"{spec.type} needs a row in SAMPLES"
    return found


def sample(
    spec: OpDef, inputs: Ops, op: Ops | None = None, beforeOp: Callable[[], None] = lambda: None
) -> tuple[Any, tuple[Any, ...]]:
    """The sample op of ``spec`` and the arguments of its facade method: its inputs from
    ``inputs``, the op itself from ``op``'s facade method (default: ``inputs``), called once."""
    split = Split(spec, inputs, inputs if op is None else op, beforeOp)
    created = sampleOf(spec)(split)
    assert split.calls == 1, f"the sample of {spec.type} calls tf.{facadeName(spec)} {split.calls}x"
    return created, split.args


def create(
    spec: OpDef, inputs: Ops, op: Ops | None = None, beforeOp: Callable[[], None] = lambda: None
) -> Any:
    """The sample op of ``spec`` (see :func:`sample`)."""
    return sample(spec, inputs, op, beforeOp)[0]


every = pytest.mark.parametrize("spec", OPS, ids=lambda spec: spec.type)


def test_everyBuiltinOpHasASample() -> None:
    assert set(SAMPLES) <= {spec.type for spec in OPS}
    for spec in OPS:
        assert spec.type in SAMPLES or defaultSample(spec) is not None, spec.type


# -- class and facade -----------------------------------------------------------------------
@every
def test_facadeMethodBuildsTheGeneratedClass(spec: OpDef, tf: Ops) -> None:
    cls = opClass(spec)
    assert cls.OP_NAME == spec.type
    op = create(spec, tf)
    assert type(op) is cls
    assert op.op().type() == spec.type


@every
def test_inputsAreTheOperandsGivenInOrder(spec: OpDef, tf: Ops) -> None:
    op, args = sample(spec, tf)
    flat = [a for arg in args for a in (arg if isinstance(arg, list) else [arg])]
    operands = [a.asOutput() for a in flat if hasattr(a, "asOutput")] if spec.inputs else []
    assert list(op.op().inputs()) == operands
    assert op.op().numInputs() == len(operands)


@every
def test_accessorsReturnTheOutputsInOrder(spec: OpDef, tf: Ops) -> None:
    op = create(spec, tf)
    outputs = list(op.op().outputs())
    if len(spec.outputs) == 1 and spec.outputs[0].countAttr:
        assert getattr(op, spec.outputs[0].name)() == outputs == list(op)
        return
    assert [getattr(op, o.name)() for o in spec.outputs] == outputs
    assert [o.name() for o in outputs] == [f"{op.op().name()}:{i}" for i in range(len(outputs))]
    if len(outputs) == 1:
        assert op.asOutput() == outputs[0]
    else:
        assert not hasattr(op, "asOutput")


@every
@pytest.mark.parametrize("backend", ["numpy", "xla"])
def test_sampleRunsInASession(spec: OpDef, tf: Ops, graph: Graph, backend: str) -> None:
    op = create(spec, tf)
    with Session(graph, backend=backend) as session:
        session.initialize()
        runner = session.runner()
        if spec.type == "Placeholder":
            runner.feed(op, np.array(F, np.float32))
        for output in op.op().outputs():
            runner.fetch(output)
        if not op.op().outputs():
            runner.addTarget(op)
        for value in runner.run():
            assert np.all(np.isfinite(np.asarray(value, np.float64)))


# -- names ----------------------------------------------------------------------------------
@every
def test_defaultNameIsTheOpsDefaultNameThenNumbered(spec: OpDef, tf: Ops) -> None:
    name = defaultName(spec)
    names = [create(spec, tf).op().name() for _ in range(3)]
    assert names == [name, f"{name}_1", f"{name}_2"]


@every
def test_withNameNamesTheOp(spec: OpDef, tf: Ops) -> None:
    assert create(spec, tf, tf.withName("x")).op().name() == "x"
    assert create(spec, tf, tf.withName("x")).op().name() == "x_1"


@every
def test_subScopePrefixesTheName(spec: OpDef, tf: Ops) -> None:
    assert create(spec, tf, tf.withSubScope("layer")).op().name() == f"layer/{defaultName(spec)}"


# -- rejected constructions -----------------------------------------------------------------
@pytest.mark.parametrize("spec", [s for s in OPS if s.inputs], ids=lambda spec: spec.type)
def test_rejectsAnOperandFromAnotherGraph(spec: OpDef, tf: Ops, graph: Graph) -> None:
    with Graph() as other:
        assertRejected(
            graph, lambda: create(spec, Ops.create(other), tf), ValueError,
            f"{spec.type} '{defaultName(spec)}' (created at {__file__}:", "another graph",
        )
    assert create(spec, tf).op().name() == defaultName(spec)  # the failure used no name


@every
def test_closedGraphRaisesIllegalStateError(spec: OpDef, tf: Ops, graph: Graph) -> None:
    with pytest.raises(IllegalStateError, match="closed"):
        create(spec, tf, beforeOp=graph.close)


# -- docs -----------------------------------------------------------------------------------
@every
def test_docstringIsTheSummaryThenAnExample(spec: OpDef) -> None:
    doc = opClass(spec).__doc__
    assert doc.splitlines()[0] == spec.summary
    assert "\n    Example:\n        >>> " in doc  # run by the generated modules' doctests


@every
def test_everyAccessorHasADocstring(spec: OpDef) -> None:
    cls = opClass(spec)
    for output in spec.outputs:
        assert getattr(cls, output.name).__doc__, f"{cls.__name__}.{output.name}"
    for name, member in vars(cls).items():
        if not name.startswith("_") and callable(member):
            assert member.__doc__, f"{cls.__name__}.{name}"
