"""The XLA lowering of :mod:`tfops.spec.shapes_n`: ShapeN, known when the request is
compiled."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfops.backend.xla.registry import LoweringSite, registerLowering


@registerLowering("ShapeN")
def _shapeN(site: LoweringSite, *inputs: Any) -> tuple[Any, ...]:
    dtype = site.attr("out_type").DTYPE
    return tuple(np.array(x.shape, dtype) for x in inputs)
