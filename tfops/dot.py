"""Graphviz DOT text of a graph (:meth:`Graph.toDot <tfops.Graph.toDot>`).

Each op is a node labelled with its type, its name within its scope (when that is not just the
type) and the data type and static shape of each output (its tooltip, shown on hover in an SVG, has
the full name and where the op was created); name scopes (``stable/...``) become nested clusters;
data edges are solid (labelled with the output index when the producer has several outputs),
control edges dashed. ``StopGradient`` is drawn as a red octagon, so the places where gradients
stop stand out, and ops the gradient generator added (under its ``gradients``, ``gradients_1``...
or ``Gradients`` name scopes) are in an orange cluster of their own, or left out with
``gradients=False``; the edges that carry forward values into that cluster are drawn light and do
not pull the layout, so the forward graph reads top to bottom on its own.

This module reads the graph only; it sits with the graph layer and imports nothing above it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from tfops.operation import Operation

if TYPE_CHECKING:
    from tfops.graph import Graph

__all__ = ["toDot", "isGradientScope"]

_GRADIENT_SCOPE = re.compile(r"[Gg]radients(_\d+)?")
"""The name scopes the gradient generator puts its ops under: ``gradients``, ``gradients_1``...
(``Graph.addGradients``) and ``Gradients``, ``Gradients_1``... (the ``Gradients`` op)."""

_FONT = '"Helvetica"'
_NODE = 'shape=box, style="rounded,filled", fillcolor="#f4f6fb", color="#5b6b8c", fontsize=10'
_STOP = (
    'shape=octagon, style="filled,bold", fillcolor="#d62728", color="#7f0000", '
    'fontcolor="#ffffff", penwidth=2'
)
_SOURCE = 'shape=ellipse, style="filled", fillcolor="#e3f1e3", color="#4d7f4d"'
_SOURCES = frozenset({"Placeholder", "PlaceholderWithDefault", "VariableV2", "Variable"})
_CONST = 'fillcolor="#ffffff", color="#9aa3b5", fontcolor="#4a5468", fontsize=8'
_INTO_GRADIENTS = 'color="#c9cfdb", arrowsize=0.6, constraint=false'
_SCOPE = 'style="rounded", color="#9aa3b5", fontcolor="#5b6b8c"'
_GRADIENTS = 'style="rounded,filled", fillcolor="#fff2e0", color="#e08a1e", fontcolor="#a35400"'


def isGradientScope(component: str) -> bool:
    """Whether a name-scope component is one the gradient generator puts its ops under."""
    return _GRADIENT_SCOPE.fullmatch(component) is not None


def _isGradientOp(op: Operation) -> bool:
    return any(isGradientScope(c) for c in op.name().split("/")[:-1])


def _quote(text: str) -> str:
    """A DOT double-quoted string: backslashes and quotes escaped, lines joined by ``\\n``."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\n", "\\n") + '"'


def _label(op: Operation) -> str:
    name = op.name().rsplit("/", 1)[-1]
    lines = [op.type()] if name == op.type() else [op.type(), name]
    outs = op.outputs()
    for out in outs:
        typed = f"{out.dataType().NAME} {out.shape()}"
        lines.append(f"{out.index()}: {typed}" if len(outs) > 1 else typed)
    return "\n".join(lines)


def _tooltip(op: Operation) -> str:
    """The full name and where the op was created (the file's name only: a picture made on one
    machine shows no directories of it)."""
    site = op.creationSite()
    file, _, line = site.rpartition(":")
    where = f"{os.path.basename(file)}:{line}" if file else site
    return f"{op.type()} {op.name()}" + (f" (created at {where})" if where else "")


def _node(op: Operation) -> str:
    style = _STOP if op.type() == "StopGradient" else (_SOURCE if op.type() in _SOURCES else "")
    attrs = f"label={_quote(_label(op))}" + (f", {style}" if style else "")
    return f"{_quote(op.name())} [{attrs}];"


def _details(ops: Iterable[Operation]) -> list[str]:
    """Second statements for the nodes: each op's tooltip, and constants drawn small (kept out
    of the declarations so that those stay one short line per op)."""
    lines = ["  // details: full names and creation sites (tooltips in SVG), constants drawn small"]
    for op in ops:
        extra = f", {_CONST}" if op.type() == "Const" else ""
        lines.append(f"  {_quote(op.name())} [tooltip={_quote(_tooltip(op))}{extra}];")
    return lines


class _Cluster:
    """A name scope: its ops and its sub-scopes, in the order they first appear."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.ops: list[Operation] = []
        self.children: dict[str, _Cluster] = {}

    def add(self, op: Operation) -> None:
        cluster = self
        for component in op.name().split("/")[:-1]:
            path = f"{cluster.path}/{component}" if cluster.path else component
            cluster = cluster.children.setdefault(component, _Cluster(path))
        cluster.ops.append(op)

    def lines(self, indent: str) -> list[str]:
        out = [indent + _node(op) for op in self.ops]
        for name, child in self.children.items():
            style = _GRADIENTS if isGradientScope(name) else _SCOPE
            inner = indent + "  "
            out.append(f"{indent}subgraph {_quote('cluster_' + child.path)} {{")
            out.append(f"{inner}label={_quote(name)}; {style.replace(', ', '; ')};")
            out.extend(child.lines(inner))
            out.append(f"{indent}}}")
        return out


def _edges(ops: Iterable[Operation], shown: set[Operation]) -> list[str]:
    lines: list[str] = []
    for op in ops:
        for i in op.inputs():
            if i.op() not in shown:
                continue
            attrs = [f"label={_quote(str(i.index()))}"] if i.op().numOutputs() > 1 else []
            if _isGradientOp(op) and not _isGradientOp(i.op()):
                attrs.append(_INTO_GRADIENTS)
            listed = f" [{', '.join(attrs)}]" if attrs else ""
            lines.append(f"  {_quote(i.op().name())} -> {_quote(op.name())}{listed};")
        for c in op.controlInputs():
            if c in shown:
                lines.append(
                    f"  {_quote(c.name())} -> {_quote(op.name())} "
                    '[style=dashed, arrowhead=odot, color="#7a7a7a"];'
                )
    return lines


def toDot(graph: Graph, *, gradients: bool = True) -> str:
    """The Graphviz DOT text of ``graph``; see :meth:`tfops.Graph.toDot`."""
    ops = [op for op in graph.operations() if gradients or not _isGradientOp(op)]
    root = _Cluster("")
    for op in ops:
        root.add(op)
    lines = [
        "digraph tfops {",
        f"  graph [rankdir=TB, newrank=true, fontname={_FONT}, fontsize=11];",
        f"  node [fontname={_FONT}, {_NODE}];",
        f'  edge [fontname={_FONT}, fontsize=9, color="#5b6b8c"];',
        *root.lines("  "),
        *_edges(ops, set(ops)),
        *(_details(ops) if ops else []),
        "}",
    ]
    return "\n".join(lines) + "\n"
