"""XLA lowerings of the ops that interleave rows by index (``tfops.spec.indexing_stitch``):
DynamicStitch and ParallelDynamicStitch.

The result's number of rows is the largest index plus one, so the indices must be known when
the request is compiled, as Where's input and SegmentSum's ids are: they are the op's first
half of inputs, declared static (constants, values computed from constants and shapes, as
TensorFlow's gradients of reductions compute them, or fed values, each distinct one compiled
once). The data stay traced: the merge is one gather with indices fixed when the request is
compiled.
"""

from __future__ import annotations

import math
from typing import Any

import jax.numpy as jnp
import numpy as np

from tfops.backend.xla.lowerings.indexing import check, staticValue
from tfops.backend.xla.registry import LoweringSite, registerLowering
from tfops.errors import ResourceExhaustedError
from tfops.spec.indexing_stitch import stitchRows, stitchSize


def _stitch(site: LoweringSite, *inputs: Any) -> Any:
    n = len(inputs) // 2
    indices = [staticValue(site, i, inputs[i], f"indices[{i}]") for i in range(n)]
    data = inputs[n:]
    try:
        size, inner = stitchSize(indices, [tuple(d.shape) for d in data])
    except ValueError as e:
        check(False, str(e))
        raise
    dtype = site.dtype()
    # the result, and the row plan (one index per merged row) made now in numpy
    for what, dims, itemsize in (
        ("the result", [size, *inner], dtype.itemsize),
        ("the row plan", [size], np.dtype(np.intp).itemsize),
    ):
        needed = math.prod(dims) * itemsize
        if needed > site.memoryLimit:
            raise ResourceExhaustedError(
                None,
                f"{what} of shape {dims} needs {needed:,} bytes, more than the session's "
                f"memory limit of {site.memoryLimit:,} bytes",
            )
    rows = stitchRows(indices, size)
    flat = jnp.concatenate(
        [
            jnp.reshape(jnp.asarray(d, dtype), (i.size, *inner))
            for i, d in zip(indices, data, strict=True)
        ]
        + [jnp.zeros((1, *inner), dtype)]
    )
    return flat[rows]



def _indices(count: int) -> range:
    """The positions of the indices: the first half of the inputs (N indices, N data)."""
    return range(count // 2)


registerLowering("DynamicStitch", _stitch, static=_indices)
registerLowering("ParallelDynamicStitch", _stitch, static=_indices)
