"""TensorBoard event files: the graph, scalars and histograms of a training run.

:class:`SummaryWriter` writes with TensorBoard's own event file writer and protocol buffers
(``tensorboard.summary.writer.event_file_writer`` and ``tensorboard.compat.proto``), so
TensorBoard reads the files as it reads TensorFlow's: ``tensorboard --logdir <logdir>``. The
``tensorboard`` package is an optional dependency (``pip install 'tfops-java[summary]'``);
tfops imports without it, and a ``SummaryWriter`` made without it raises
:class:`~tfops.errors.MissingDependencyError` saying what to install.

Scalars are ``simple_value`` summaries and histograms ``HistogramProto`` summaries, as
TensorFlow 1's ``tf.summary.scalar`` and ``tf.summary.histogram`` write them: a histogram has
TensorFlow's default bucket limits (``±1e-12 * 1.1**k`` up to ``1e20``, zero, and ``±DBL_MAX``
at the ends; :func:`histogramProto`), with runs of empty buckets merged into one.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import time
from types import ModuleType, TracebackType
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from tfops.errors import IllegalArgumentError, IllegalStateError, MissingDependencyError

if TYPE_CHECKING:
    from tfops.graph import Graph

__all__ = ["SummaryWriter", "defaultBucketLimits", "histogramProto"]

Array: TypeAlias = "np.ndarray[Any, Any]"
_DBL_MAX = sys.float_info.max


def _defaultLimits() -> tuple[float, ...]:
    """TensorFlow's default histogram bucket limits (``Histogram::InitDefaultBuckets``)."""
    positive: list[float] = []
    v = 1.0e-12
    while v < 1.0e20:
        positive.append(v)
        v *= 1.1
    positive.append(_DBL_MAX)
    return (*(-x for x in reversed(positive)), 0.0, *positive)


_LIMITS = _defaultLimits()
_LIMITS_ARRAY = np.array(_LIMITS)


def defaultBucketLimits() -> tuple[float, ...]:
    """The right edges of TensorFlow's default histogram buckets, in increasing order.

    A value ``v`` falls in the first bucket whose limit is greater than ``v``.

    Example:
        >>> limits = defaultBucketLimits()
        >>> len(limits), limits[0] == -limits[-1], 0.0 in limits
        (1551, True, True)
    """
    return _LIMITS


def _tensorboard(module: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise MissingDependencyError(
            f"tfops.summary writes TensorBoard event files with TensorBoard's own writer, and "
            f"tensorboard is not installed ({e}): pip install 'tfops-java[summary]' (or pip "
            "install tensorboard)"
        ) from e


def histogramProto(values: object) -> Any:
    """The ``HistogramProto`` TensorFlow's ``tf.summary.histogram`` writes for ``values``.

    ``min``, ``max``, ``num``, ``sum`` and ``sum_squares`` of the values (as float64, summed in
    order, as TensorFlow does), and the counts of TensorFlow's default buckets
    (:func:`defaultBucketLimits`), each run of empty buckets merged into one.

    Raises:
        IllegalArgumentError: a value is nan or infinite (TensorFlow refuses them too), or the
            values are not real numbers.
        MissingDependencyError: tensorboard is not installed.

    Example:
        >>> h = histogramProto([0.5, 1.5, 1.5])
        >>> h.num, h.min, h.max, h.sum
        (3.0, 0.5, 1.5, 3.5)
        >>> [(round(limit, 3), count) for limit, count in zip(h.bucket_limit, h.bucket)]
        [(0.471, 0.0), (0.518, 1.0), (1.477, 0.0), (1.625, 2.0), (1.7976931348623157e+308, 0.0)]
    """
    proto = _tensorboard("tensorboard.compat.proto.histogram_pb2").HistogramProto
    flat = _realArray(values, "histogram values").astype(np.float64).ravel()
    if not np.all(np.isfinite(flat)):
        bad = "nan" if np.any(np.isnan(flat)) else "an infinite value"
        raise IllegalArgumentError(
            f"a histogram of values with {bad} in them: TensorBoard's histograms take finite "
            "numbers only; check the values (or log them with np.nan_to_num)"
        )
    # the bucket of v is the first whose limit is above v (TensorFlow's upper_bound); the
    # largest finite double goes in the last bucket
    index = np.minimum(np.searchsorted(_LIMITS_ARRAY, flat, side="right"), len(_LIMITS) - 1)
    counts = np.bincount(index, minlength=len(_LIMITS)).astype(np.float64)
    limits: list[float] = []
    buckets: list[float] = []
    i = 0
    while i < len(_LIMITS):
        end, count = _LIMITS[i], float(counts[i])
        i += 1
        if count <= 0.0:
            while i < len(_LIMITS) and counts[i] <= 0.0:
                end, count = _LIMITS[i], float(counts[i])
                i += 1
        limits.append(end)
        buckets.append(count)
    running = np.cumsum(flat)  # left to right, as TensorFlow adds them (no pairwise sums)
    squares = np.cumsum(flat * flat)
    return proto(
        min=float(flat.min()) if flat.size else _DBL_MAX,
        max=float(flat.max()) if flat.size else -_DBL_MAX,
        num=float(flat.size),
        sum=float(running[-1]) if flat.size else 0.0,
        sum_squares=float(squares[-1]) if flat.size else 0.0,
        bucket_limit=limits,
        bucket=buckets,
    )


def _realArray(values: object, what: str) -> Array:
    try:
        array = np.asarray(values)
    except TypeError as e:
        raise IllegalArgumentError(f"the {what} must be numbers (a numpy array): {e}") from e
    if array.dtype == np.bool_ or not (
        np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.floating)
    ):
        raise IllegalArgumentError(
            f"the {what} must be real numbers, got {array.dtype} ({values!r:.60})"
        )
    return array


def _checkTag(tag: object) -> str:
    if not isinstance(tag, str) or not tag:
        raise IllegalArgumentError(
            f"a summary tag must be a non-empty str such as 'loss' or 'train/loss', got {tag!r}"
        )
    return tag


def _checkStep(step: object) -> int:
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)):
        raise IllegalArgumentError(
            f"a summary step must be an int (the training step), got {step!r}"
        )
    return int(step)


class SummaryWriter:
    """Writes TensorBoard event files into ``logdir``: the graph, scalars and histograms.

    One event file (``events.out.tfevents.<time>.<host>.<pid>.<n>``) per writer, written in the
    background and flushed every ``flushSecs`` seconds, on :meth:`flush` and on :meth:`close`.
    A writer is a context manager that closes it on exit. Read the files with
    ``tensorboard --logdir <logdir>``.

    Args:
        logdir: the directory for the event file (created if missing).
        maxQueue: how many events may wait before a write blocks.
        flushSecs: how often, in seconds, the waiting events are written to disk.
        filenameSuffix: appended to the event file's name.

    Raises:
        MissingDependencyError: tensorboard is not installed
            (``pip install 'tfops-java[summary]'``).

    Example:
        >>> import tempfile
        >>> logdir = tempfile.mkdtemp()
        >>> with SummaryWriter(logdir) as writer:
        ...     for step in range(3):
        ...         writer.scalar("loss", 1.0 / (step + 1), step)
        ...     writer.histogram("weights", np.linspace(-1.0, 1.0, 11), 2)
        >>> from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
        >>> events = EventAccumulator(logdir); _ = events.Reload()
        >>> [(e.step, round(e.value, 3)) for e in events.Scalars("loss")]
        [(0, 1.0), (1, 0.5), (2, 0.333)]
        >>> events.Histograms("weights")[0].histogram_value.num
        11.0
    """

    def __init__(
        self,
        logdir: str | os.PathLike[str],
        *,
        maxQueue: int = 10,
        flushSecs: float = 120.0,
        filenameSuffix: str = "",
    ) -> None:
        if not isinstance(logdir, (str, os.PathLike)) or not os.fspath(logdir):
            raise IllegalArgumentError(
                f"SummaryWriter(logdir): the log directory must be a non-empty path, got {logdir!r}"
            )
        writerModule = _tensorboard("tensorboard.summary.writer.event_file_writer")
        self._event = _tensorboard("tensorboard.compat.proto.event_pb2").Event
        self._summary = _tensorboard("tensorboard.compat.proto.summary_pb2").Summary
        self._logdir = os.fspath(logdir)
        self._writer = writerModule.EventFileWriter(
            self._logdir,
            max_queue_size=maxQueue,
            flush_secs=flushSecs,
            filename_suffix=filenameSuffix,
        )
        self._lock = threading.Lock()
        self._closed = False

    def logdir(self) -> str:
        """The directory the event file is in."""
        return self._logdir

    def addGraph(self, graph: Graph) -> None:
        """Writes ``graph`` (its ``toGraphDef()``) for TensorBoard's Graphs dashboard."""
        graphDef = graph.toGraphDef()
        self._add(self._event(wall_time=time.time(), graph_def=graphDef))

    def scalar(self, tag: str, value: object, step: int) -> None:
        """Writes the scalar ``value`` (a number, or a numpy array of one element) under
        ``tag`` at ``step``; TensorBoard keeps it as a 32-bit float."""
        array = _realArray(value, f"value of scalar '{tag}'")
        if array.size != 1:
            raise IllegalArgumentError(
                f"scalar '{tag}': the value must be one number, got an array of shape "
                f"{list(array.shape)}; reduce it first (e.g. np.mean) or log a histogram"
            )
        summary = self._summary(
            value=[self._summary.Value(tag=_checkTag(tag), simple_value=float(array.item()))]
        )
        self._add(self._event(wall_time=time.time(), step=_checkStep(step), summary=summary))

    def histogram(self, tag: str, values: object, step: int) -> None:
        """Writes the histogram of ``values`` (any shape) under ``tag`` at ``step``, with
        TensorFlow's default buckets (see :func:`histogramProto`)."""
        value = self._summary.Value(tag=_checkTag(tag), histo=histogramProto(values))
        summary = self._summary(value=[value])
        self._add(self._event(wall_time=time.time(), step=_checkStep(step), summary=summary))

    def flush(self) -> None:
        """Writes the waiting events to disk."""
        with self._lock:
            self._checkOpen()
            self._writer.flush()

    def close(self) -> None:
        """Flushes and closes the event file; using the writer afterwards raises
        ``IllegalStateError``. Closing twice is harmless."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._writer.close()

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(
        self,
        excType: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SummaryWriter({self._logdir!r}{', closed' if self._closed else ''})"

    def _checkOpen(self) -> None:
        if self._closed:
            raise IllegalStateError(
                f"the SummaryWriter of {self._logdir} is closed; make a new one to write more"
            )

    def _add(self, event: Any) -> None:
        with self._lock:
            self._checkOpen()
            self._writer.add_event(event)
