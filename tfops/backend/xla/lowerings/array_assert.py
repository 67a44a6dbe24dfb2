"""The XLA lowerings of :mod:`tfops.spec.array_assert`: Assert, a run-time check whose message
(the numpy kernel's) is written from the data's values only when the condition is false."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfops.backend.numpy.kernels.array_assert import assertionMessage
from tfops.backend.xla.lowerings.indexing import check
from tfops.backend.xla.registry import LoweringSite, registerLowering


@registerLowering("Assert")
def _assert(site: LoweringSite, condition: Any, *data: Any) -> tuple[()]:
    check(np.ndim(condition) == 0, f"condition must be a scalar, got a tensor of shape "
          f"{list(np.shape(condition))}")
    limit = int(site.attr("summarize"))

    def message(*values: Any) -> str:
        return assertionMessage(tuple(np.asarray(v) for v in values), limit)

    site.check(condition, message, *data)
    return ()
