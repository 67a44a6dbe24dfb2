"""What :func:`tfops.explainGradient` returns, and how it reads: the ``GradientReport``, its
paths and blockers and the reasons they block, each with a ``__str__`` that explains it in words.

Public as ``tfops.explain.GradientReport`` (and the other names of ``tfops.explain``).
"""

from __future__ import annotations

import enum

from attrs import frozen

from tfops.operation import Operation
from tfops.output import Output
from tfops.types import TType

__all__ = ["BlockReason", "Blocker", "GradientPath", "GradientReport", "GradientStatus"]


_SHOWN_OPS = 12
"""A listed path with more ops than this shows its first and last few only."""


class BlockReason(enum.Enum):
    """Why no gradient passes an op on a path."""

    STOP_GRADIENT = "StopGradient: its input is a constant to the gradient"
    """A ``StopGradient``: its input is treated as a constant, on purpose."""
    NOT_DIFFERENTIABLE = "marked not differentiable"
    """An op type registered with ``notDifferentiable`` (``Shape``, ``ArgMax``, ``Equal``...)."""
    NO_GRADIENT = "no gradient registered: tf.gradients raises LookupError"
    """An op type with no gradient rule at all: ``tf.gradients`` raises ``LookupError``."""
    INTEGER_CAST = "cast to a non-floating type"
    """A ``Cast`` from floating point to an integer or bool type."""
    NON_FLOATING = "a non-floating output"
    """The tensor on the path is an integer or bool tensor: gradients flow only through floats."""
    RULE_GIVES_NONE = "its gradient rule gives no gradient for this input"
    """The op's gradient rule returns ``None`` for the input the path comes through."""


class GradientStatus(enum.Enum):
    """What ``tf.gradients(y, [x])`` gives."""

    FLOWS = "a gradient flows"
    NONE = "no gradient (None)"
    ERROR = "tf.gradients raises LookupError"


@frozen
class Blocker:
    """An op that stops the gradient on a path.

    Attributes:
        op: the blocking operation.
        reason: why it blocks.
        tensor: where the gradient stops: for ``INTEGER_CAST`` and ``NON_FLOATING`` the
            non-floating tensor on the path, for ``RULE_GIVES_NONE`` the op's input the path
            comes through, otherwise the op's output (``y`` when the op is ``y``'s).
    """

    op: Operation
    reason: BlockReason
    tensor: Output[TType]

    def creationSite(self) -> str:
        """``file:line`` of the user code that created the blocking op."""
        return self.op.creationSite()

    def __str__(self) -> str:
        detail = self.reason.value
        if self.reason in (BlockReason.INTEGER_CAST, BlockReason.NON_FLOATING):
            detail += f": '{self.tensor.name()}' is {self.tensor.dataType().NAME}"
        elif self.reason is BlockReason.RULE_GIVES_NONE:
            detail += f" '{self.tensor.name()}'"
        return f"{self.op.type()} '{self.op.name()}' ({detail}), created at {self.creationSite()}"


@frozen
class GradientPath:
    """One path of data edges from ``x`` to ``y``.

    Attributes:
        tensors: the tensors along the path, ``x`` first and ``y`` last; each one after ``x`` is
            an output of the op that consumed the one before.
        blockers: the ops on the path that stop the gradient, from ``x`` towards ``y`` (empty:
            the path is open).
    """

    tensors: tuple[Output[TType], ...]
    blockers: tuple[Blocker, ...]

    def ops(self) -> tuple[Operation, ...]:
        """The ops the path goes through, from the first consumer of ``x`` to ``y``'s op."""
        return tuple(t.op() for t in self.tensors[1:])

    def isBlocked(self) -> bool:
        """Whether some op on the path stops the gradient."""
        return bool(self.blockers)

    def __str__(self) -> str:
        steps = [f"{op.type()} '{op.name()}'" for op in self.ops()]
        if len(steps) > _SHOWN_OPS:
            half = _SHOWN_OPS // 2
            steps = [*steps[:half], f"... {len(steps) - 2 * half} more ops ...", *steps[-half:]]
        return " -> ".join([f"'{self.tensors[0].name()}'", *steps])


@frozen
class GradientReport:
    """Why ``x`` gets (or does not get) a gradient from ``y``; ``str(report)`` explains it in
    words.

    Attributes:
        y: the differentiated tensor.
        x: the tensor the gradient is taken with respect to.
        status: what ``tf.gradients(y, [x])`` gives (the generator's own verdict).
        paths: the first ``maxPaths`` paths from ``x`` to ``y`` (all of them when
            ``numPaths <= maxPaths``).
        numPaths: how many paths there are from ``x`` to ``y`` (exact, however many).
        numOpenPaths: how many of them no op blocks (0 whenever ``status`` is ``NONE``).
        blockers: every op that blocks at least one path (listed or not), in graph order.
        error: the generator's error message when ``status`` is ``ERROR``, else ``None``.
        controlOnly: ``y`` depends on ``x``'s op through control dependencies only, which carry
            no gradient.
    """

    y: Output[TType]
    x: Output[TType]
    status: GradientStatus
    paths: tuple[GradientPath, ...]
    numPaths: int
    numOpenPaths: int
    blockers: tuple[Blocker, ...]
    error: str | None
    controlOnly: bool

    @property
    def flows(self) -> bool:
        """Whether ``tf.gradients(y, [x])`` gives a gradient (not ``None``, no error)."""
        return self.status is GradientStatus.FLOWS

    def blockedPaths(self) -> tuple[GradientPath, ...]:
        """The listed paths that some op blocks."""
        return tuple(p for p in self.paths if p.isBlocked())

    def openPaths(self) -> tuple[GradientPath, ...]:
        """The listed paths no op blocks."""
        return tuple(p for p in self.paths if not p.isBlocked())

    def __str__(self) -> str:
        lines = [
            f"gradient of '{self.y.name()}' ({self.y.dataType().NAME}) with respect to "
            f"'{self.x.name()}' ({self.x.dataType().NAME}): {self.status.value}"
        ]
        if self.numPaths == 0:
            how = (
                "only through control dependencies, which carry no gradient"
                if self.controlOnly
                else "not at all: no path of data edges leads from x to y"
            )
            lines.append(f"'{self.y.name()}' depends on '{self.x.name()}' {how}")
            return "\n".join(lines)
        lines.append(
            f"{self.numPaths} path(s) from x to y: {self.numOpenPaths} open, "
            f"{self.numPaths - self.numOpenPaths} blocked"
        )
        if self.error is not None:
            lines.append(f"error: {self.error}")
        if self.blockers:
            lines.append("blocked by:")
            lines.extend(f"  {b}" for b in self.blockers)
        lines.append("paths:")
        for n, path in enumerate(self.paths, 1):
            lines.append(f"  {n}. {path}")
            names = ", ".join(f"{b.op.type()} '{b.op.name()}'" for b in path.blockers)
            verdict = f"blocked by {names}" if path.blockers else "open"
            lines.append(f"     {verdict}")
        if len(self.paths) < self.numPaths:
            lines.append(f"  ... and {self.numPaths - len(self.paths)} more path(s) not listed")
        return "\n".join(lines)
