"""The numpy kernel of :mod:`tfops.spec.linalg_einsum` (Einsum), and the plan both backends
follow: numpy's (or JAX's) einsum for the distinct output labels, then, where a label repeats
in the output, the values placed on that diagonal."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from attrs import frozen

from tfops.backend.numpy.kernels.indexing import check
from tfops.backend.numpy.registry import (
    Array,
    Kernel,
    KernelSite,
    checkAllocation,
    registerKernel,
)
from tfops.spec.linalg_einsum import ELLIPSIS, Equation, parseEquation, resolve


@frozen
class Plan:
    """How to compute an einsum: ``equation`` for numpy's or JAX's einsum, and, when an output
    label repeats, where each output element comes from (``gather``) and whether it is on the
    diagonal (``onDiagonal``; zeros elsewhere)."""

    equation: str
    dims: tuple[int, ...]
    gather: tuple[Array, ...] | None
    onDiagonal: Array | None


def plan(eq: Equation, shapes: Sequence[Sequence[int]]) -> Plan:
    """The plan of ``eq`` on inputs of ``shapes``; raises ``InvalidArgumentError`` when they do
    not fit it."""
    try:
        dims = resolve(eq, shapes)
    except ValueError as e:
        check(False, str(e))
        raise  # unreachable: check raised
    hasEllipsis = any("." in t for t in eq.inputs)
    output = eq.output if hasEllipsis else eq.output.replace(".", "")
    unique = "".join(dict.fromkeys(output))
    equation = ",".join(t.replace(".", ELLIPSIS) for t in eq.inputs) + "->" + unique.replace(
        ".", ELLIPSIS)
    if len(unique) == len(output):
        return Plan(equation, dims, None, None)
    # one pseudo-label per axis: the ellipsis's axes are distinct labels
    axes: list[str] = []
    for label in output:
        axes.extend([f".{i}" for i in range(len(dims) - len(output) + 1)] if label == "."
                    else [label])
    first = {label: axes.index(label) for label in axes}
    index = np.indices(dims, sparse=False) if dims else np.zeros((0,), np.intp)
    gather = tuple(index[first[label]] for label in dict.fromkeys(axes))
    onDiagonal = np.ones(dims, np.bool_)
    for p, label in enumerate(axes):
        onDiagonal &= index[p] == index[first[label]]
    return Plan(equation, dims, gather, onDiagonal)


@registerKernel("Einsum", fresh=True)
def _einsum(site: KernelSite) -> Kernel:
    eq = parseEquation(str(site.attr("equation")))
    limit = site.memoryLimit

    def run(*inputs: Array) -> Array:
        p = plan(eq, [x.shape for x in inputs])
        dtype = inputs[0].dtype
        checkAllocation(p.dims, dtype, limit)
        # float16 is summed in float32 and rounded once
        work = [x.astype(np.float32) for x in inputs] if dtype == np.float16 else inputs
        z = np.asarray(np.einsum(p.equation, *work, optimize=True))
        if p.gather is not None and p.onDiagonal is not None:
            z = np.where(p.onDiagonal, z[p.gather], np.zeros((), z.dtype))
        # a transpose or a diagonal of one input is a view of it: the result is a copy
        shared = any(np.may_share_memory(z, x) for x in inputs)
        result: Array = np.array(z, dtype=dtype) if shared else np.asarray(z, dtype=dtype)
        return result

    return run
