"""The memory a plan's large-input runs may reuse: ``_Buffers`` kept between runs, and
``_release``, with which a run puts a dying value into its pool of free buffers.

Which buffers a run may write into is decided when the request is compiled: the plan knows
every value that is the fresh result of a fused group and that nothing else can see (no reader
that may return a view of it, not fetched). Only those go to the run's pool of free buffers
where they die, or are written over by the group that reads them last.
"""

from __future__ import annotations

import threading
from typing import Any

from tfops.backend.numpy.base import Array, _owned


class _Buffers:
    """The buffers a plan's large-input runs left free, kept for its next run: a run takes them
    all (another run at the same time gets none) and gives back what it freed. Reusing memory
    that is already mapped saves the page faults of new memory, a cost of the order of writing
    it once. Only buffers nothing else can see are ever kept (the plan's ``releasable``), and
    at most as many as one run frees (``limit``, set with the run function): a buffer no group
    took is not kept forever."""

    __slots__ = ("_lock", "_free", "limit")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free: list[Array] = []
        self.limit = 0

    def take(self) -> list[Array]:
        with self._lock:
            free, self._free = self._free, []
        return free

    def give(self, pool: list[Array]) -> None:
        if len(pool) > self.limit:  # the latest ones: those this run freed
            pool = pool[len(pool) - self.limit :] if self.limit else []
        with self._lock:
            self._free = pool


def _release(pool: list[Array], value: Any) -> None:
    """Puts a dying value that nothing else can see (the plan knows) into the run's pool."""
    if _owned(value):
        pool.append(value)
