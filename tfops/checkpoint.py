"""Checkpoints: every variable's value in one safetensors file (``Session.save``/``restore``).

A checkpoint at ``prefix`` is the file ``prefix + ".safetensors"`` (TensorFlow writes
``prefix.index`` and ``prefix.data-00000-of-00001``; one file says the same here). It is in the
safetensors format (https://huggingface.co/docs/safetensors): a JSON header of names, dtypes,
shapes and offsets, then the raw little-endian bytes; nothing in it is executed when it is read,
unlike a pickle. The keys are the variables' op names, as TensorFlow Java's saver keys them
(``Variable``, ``dense/kernel``, an optimizer's slots such as ``Adam/m``...).

Writing is atomic: the bytes go to a temporary file in the checkpoint's directory, which is
flushed to disk and then renamed over the checkpoint, so a process killed while saving leaves
the previous checkpoint whole (and at worst a stray ``.<name>.*.tmp`` file beside it).

Restoring checks the checkpoint against the graph's variables (names, data types, shapes)
before it changes anything: every mismatch is named in one error and no variable is changed.
The session runs the values into the variables through a placeholder and an ``Assign`` per
variable, built once in the graph under a ``save`` name scope (as TensorFlow's saver builds
``save/Assign``...).
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeAlias, cast

import numpy as np
import safetensors
import safetensors.numpy

from tfops.errors import IllegalArgumentError, TfopsError
from tfops.graph import Graph
from tfops.op.core import Variable
from tfops.operation import Operation
from tfops.ops import Ops
from tfops.output import Output
from tfops.types import TType, dataTypeOf

__all__ = [
    "SUFFIX",
    "CheckpointNotFoundError",
    "checkpointPath",
    "restoreRequest",
    "variablesOf",
    "writeCheckpoint",
]

Array: TypeAlias = "np.ndarray[Any, Any]"

SUFFIX = ".safetensors"
"""What a checkpoint's prefix is followed by in its file name."""

_FORMAT = {"format": "tfops-checkpoint", "version": "1"}

# the mode a new file gets (mkstemp's files are private, 0600); read once, when nothing else runs
_UMASK = os.umask(0)
os.umask(_UMASK)

_after_partial_write: Callable[[str], None] | None = None
"""A test seam: called with the temporary file's path when half of it is written (the crash
test kills the process there)."""


class CheckpointNotFoundError(TfopsError, FileNotFoundError):
    """``Session.restore(prefix)`` found no checkpoint file at ``prefix + ".safetensors"``."""


def checkpointPath(prefix: str | os.PathLike[str]) -> str:
    """The file of the checkpoint at ``prefix``: ``prefix + ".safetensors"``.

    Example:
        >>> checkpointPath("runs/model")
        'runs/model.safetensors'
    """
    if not isinstance(prefix, (str, os.PathLike)) or not os.fspath(prefix):
        raise IllegalArgumentError(
            f"a checkpoint prefix must be a non-empty path (str or os.PathLike), got "
            f"{prefix!r}: for example session.save('runs/model'), which writes "
            "runs/model.safetensors"
        )
    return os.fspath(prefix) + SUFFIX


def variablesOf(graph: Graph) -> list[Operation]:
    """The graph's variables (``VariableV2`` ops), in the order they were created."""
    return [op for op in graph.operations() if op.type() == Variable.OP_NAME]


def writeCheckpoint(prefix: str | os.PathLike[str], values: Mapping[str, Array]) -> str:
    """Writes ``values`` (variable name to value) atomically as the checkpoint at ``prefix``;
    returns the file's path."""
    path = checkpointPath(prefix)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise CheckpointNotFoundError(
            f"Session.save('{os.fspath(prefix)}'): the directory {directory} does not exist; "
            "create it first (os.makedirs) or save under an existing one"
        )
    tensors = {name: np.asarray(value, order="C") for name, value in values.items()}
    data = safetensors.numpy.save(tensors, metadata=dict(_FORMAT))
    fd, temporary = tempfile.mkstemp(
        dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp"
    )
    try:
        with os.fdopen(fd, "wb") as f:
            half = len(data) // 2
            f.write(data[:half])
            if _after_partial_write is not None:
                f.flush()
                _after_partial_write(temporary)
            f.write(data[half:])
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temporary, 0o666 & ~_UMASK)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    _syncDirectory(directory)
    return path


def _syncDirectory(directory: str) -> None:
    """Makes the rename itself durable (where the system lets a directory be opened)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _read(prefix: str | os.PathLike[str]) -> dict[str, Array]:
    path = checkpointPath(prefix)
    if not os.path.isfile(path):
        raise CheckpointNotFoundError(
            f"Session.restore('{os.fspath(prefix)}'): there is no checkpoint file {path}; "
            "save one first with session.save(prefix), or check the prefix (without the "
            f"'{SUFFIX}' suffix)"
        )
    try:
        tensors = safetensors.numpy.load_file(path)
    except (safetensors.SafetensorError, OSError, ValueError, TypeError) as e:
        raise IllegalArgumentError(
            f"Session.restore('{os.fspath(prefix)}'): {path} is not a readable safetensors "
            f"checkpoint (truncated or corrupt?): {e}"
        ) from e
    return tensors


def _describe(dtype: str, shape: Sequence[int] | str) -> str:
    return f"{dtype} {list(shape) if not isinstance(shape, str) else shape}"


def _mismatches(graph: Graph, stored: Mapping[str, Array]) -> list[str]:
    """One line per difference between the checkpoint and the graph's variables."""
    problems: list[str] = []
    variables = {op.name(): op for op in variablesOf(graph)}
    for name, op in variables.items():
        out = op.output(0)
        declared = _describe(out.dataType().NAME, str(out.shape()))
        where = f"(created at {op.creationSite()})"
        if name not in stored:
            problems.append(f"variable '{name}' ({declared}) {where} is not in the checkpoint")
            continue
        value = stored[name]
        try:
            dtype: str = dataTypeOf(value.dtype).NAME
        except TypeError:
            dtype = str(value.dtype)
        if dtype != out.dataType().NAME or not out.shape().isCompatibleWithArray(value.shape):
            problems.append(
                f"variable '{name}' is {declared} {where}, the checkpoint holds "
                f"{_describe(dtype, value.shape)}"
            )
    for name in stored:
        if name not in variables:
            value = stored[name]
            problems.append(
                f"the checkpoint holds '{name}' ({_describe(str(value.dtype), value.shape)}), "
                "which is no variable of the graph"
            )
    return problems


_restore_lock = threading.Lock()


def _restore_opsOf(
    graph: Graph, variables: Sequence[Operation]
) -> list[tuple[Output[TType], Operation]]:
    """The placeholder and the ``Assign`` that restore each variable, built once per graph."""
    with _restore_lock:
        # kept on the graph (freed with it): a table keyed by the graph, whose values hold the
        # graph's ops, would keep the graph alive for ever, even weakly keyed
        built = cast(
            "dict[Operation, tuple[Output[TType], Operation]]",
            graph._memo.setdefault(__name__, {}),
        )
        missing = [op for op in variables if op not in built]
        if missing:
            tf = Ops.create(graph).withSubScope("save")
            for op in missing:
                ref: Output[TType] = op.output(0)
                shape = ref.shape()
                value = tf.placeholder(ref.dataType(), shape=shape)
                assign = tf.assign(
                    ref, value, validateShape=not (shape.isUnknown() or shape.hasUnknownDimension())
                )
                built[op] = (value.asOutput(), assign.op())
        return [built[op] for op in variables]


def restoreRequest(
    graph: Graph, prefix: str | os.PathLike[str]
) -> tuple[tuple[Output[TType], ...], tuple[Operation, ...], list[Array]]:
    """Reads and checks the checkpoint at ``prefix`` against ``graph``'s variables; returns
    what a session runs to restore them: the placeholders to feed, the assigns to run, and the
    values, in one order.

    Raises:
        CheckpointNotFoundError: no file at ``prefix + ".safetensors"``.
        IllegalArgumentError: the file is not a safetensors file, or its names, data types or
            shapes differ from the graph's variables (each difference named).
    """
    stored = _read(prefix)
    problems = _mismatches(graph, stored)
    if problems:
        listed = "\n  - ".join(problems)
        raise IllegalArgumentError(
            f"Session.restore('{os.fspath(prefix)}'): the checkpoint does not match the "
            f"graph's variables, so nothing was restored:\n  - {listed}\nRestore into the "
            "graph that was saved (the same variables, names, data types and shapes)"
        )
    variables = variablesOf(graph)
    pairs = _restore_opsOf(graph, variables)
    feeds = tuple(value for value, _ in pairs)
    targets = tuple(assign for _, assign in pairs)
    values = [
        np.asarray(stored[op.name()], dtype=op.output(0).dataType().DTYPE, order="C")
        for op in variables
    ]
    return feeds, targets, values
