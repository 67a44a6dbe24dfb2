"""Running a fused group slice by slice: its ``_Layout`` for inputs of given shapes (the
generated slice program, the slices, the scratch buffers each thread computes a slice in), and
``_parallel``, which shares the slices among threads.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from tfops.backend.numpy.base import Array


class _Layout:
    """How a group runs on inputs of some shapes: the result's shape, the slice program, the
    slices, and the free sets of scratch buffers for them (one taken by each thread running
    slices: at most as many as threads ever ran this group at once)."""

    __slots__ = (
        "shape",
        "run",
        "dtypes",
        "step",
        "rows",
        "slices",
        "parallel",
        "direct",
        "scratch",
    )

    def __init__(
        self,
        shape: tuple[int, ...],
        run: Callable[..., Any],
        dtypes: list[np.dtype[Any]],
        step: int,
        parallel: bool,
        direct: bool,
    ) -> None:
        self.shape = shape
        self.run = run
        self.dtypes = dtypes
        self.step = step
        self.rows = shape[0]
        self.slices = -(-shape[0] // step)
        self.parallel = parallel
        self.direct = direct  # one pass whose last kernel returns the result (not a ufunc)
        self.scratch: list[list[Array]] = []

    def buffers(self) -> list[Array]:
        """A free set of scratch buffers, or a new one."""
        try:
            return self.scratch.pop()
        except IndexError:
            rest = self.shape[1:]
            return [np.empty((self.step, *rest), d) for d in self.dtypes]

    def work(self, out: Array, args: tuple[Any, ...], lo: int, hi: int) -> None:
        """Computes slices ``lo`` to ``hi`` of the result into ``out``."""
        buffers = self.buffers()
        try:
            run, step, rows = self.run, self.step, self.rows
            for s in range(lo * step, hi * step, step):
                e = s + step
                if e <= rows:
                    run(out, s, e, buffers, *args)
                else:
                    run(out, s, rows, [b[: rows - s] for b in buffers], *args)
        finally:
            self.scratch.append(buffers)


def _quietly(work: Callable[[int, int], None], lo: int, hi: int) -> None:
    with np.errstate(all="ignore"):  # numpy's errors are the kernels' to report
        work(lo, hi)


def _parallel(
    pool: Callable[[], ThreadPoolExecutor],
    threads: int,
    work: Callable[[int, int], None],
    n: int,
) -> None:
    """Runs ``work(lo, hi)`` over ``[0, n)`` split among ``threads`` threads (this one too)."""
    k = min(threads, n)
    if k <= 1:
        work(0, n)
        return
    bounds = [n * i // k for i in range(k + 1)]
    executor = pool()
    futures: list[Future[None]] = [
        executor.submit(_quietly, work, bounds[i], bounds[i + 1]) for i in range(1, k)
    ]
    error: BaseException | None = None
    try:
        work(bounds[0], bounds[1])
    except BaseException as e:
        error = e
    for f in futures:  # every slice is finished before the buffers are used or reused
        try:
            f.result()
        except BaseException as e:
            error = error or e
    if error is not None:
        raise error
