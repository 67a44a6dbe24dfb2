"""``Graph.toDot``: Graphviz DOT text that follows DOT's grammar, with every op, edge, scope and
the StopGradient and gradient ops marked.

Neither Graphviz nor a DOT library is installed here, so the text is checked by a small parser of
the DOT language's grammar (https://graphviz.org/doc/info/lang.html), written below, that rejects
anything outside it and gives back the nodes, edges and clusters it read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import pytest

from tfops import Graph, Ops
from tfops.errors import IllegalStateError
from tfops.examples.stable_softmax import stableSoftmax
from tfops.types import TFloat64, TInt32


# -- a parser of the DOT language -------------------------------------------------------------
@dataclass
class Cluster:
    name: str
    parent: str | None
    attrs: dict[str, str] = field(default_factory=dict)
    nodes: list[str] = field(default_factory=list)


@dataclass
class Dot:
    nodes: dict[str, dict[str, str]] = field(default_factory=dict)
    edges: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    clusters: dict[str, Cluster] = field(default_factory=dict)
    defaults: dict[str, dict[str, str]] = field(default_factory=dict)

    def clusterOf(self, node: str) -> str | None:
        return next((c.name for c in self.clusters.values() if node in c.nodes), None)


_TOKEN = re.compile(
    r"""
    \s+ | //[^\n]* | /\*.*?\*/                       # space and comments
  | (?P<quoted>"(?:[^"\\]|\\.)*")
  | (?P<id>[A-Za-z_\x80-\uffff][A-Za-z_0-9\x80-\uffff]*)
  | (?P<number>-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?))
  | (?P<punct>->|--|[{}\[\];,=:])
""",
    re.X | re.S,
)
_KEYWORDS = {"strict", "graph", "digraph", "node", "edge", "subgraph"}


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        assert m is not None, f"not DOT at offset {pos}: {text[pos : pos + 40]!r}"
        pos = m.end()
        kind = m.lastgroup
        if kind is None:
            continue
        value = m.group(kind)
        if kind == "quoted":
            out.append(("ID", re.sub(r'\\(["\\])', r"\1", value[1:-1])))
        elif kind == "id" and value.lower() in _KEYWORDS:
            out.append((value.lower(), value))
        elif kind in ("id", "number"):
            out.append(("ID", value))
        else:
            out.append((value, value))
    return out


class _Parser:
    """Recursive descent over DOT's grammar: graph, stmt_list, stmt, attr_list, subgraph."""

    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.pos = 0
        self.dot = Dot()
        self.directed = False
        self.anonymous = 0

    def peek(self, ahead: int = 0) -> str:
        at = self.pos + ahead
        return self.tokens[at][0] if at < len(self.tokens) else "EOF"

    def take(self, kind: str) -> str:
        assert self.peek() == kind, f"expected {kind!r}, got {self.tokens[self.pos : self.pos + 3]}"
        value = self.tokens[self.pos][1]
        self.pos += 1
        return value

    def graph(self) -> Dot:
        if self.peek() == "strict":
            self.take("strict")
        self.directed = self.peek() == "digraph"
        self.take("digraph" if self.directed else "graph")
        if self.peek() == "ID":
            self.take("ID")
        self.take("{")
        self.stmtList(None)
        self.take("}")
        assert self.peek() == "EOF", "text after the graph's closing brace"
        return self.dot

    def stmtList(self, cluster: Cluster | None) -> None:
        while self.peek() != "}":
            self.stmt(cluster)
            if self.peek() == ";":
                self.take(";")

    def attrList(self) -> dict[str, str]:
        attrs: dict[str, str] = {}
        while self.peek() == "[":
            self.take("[")
            while self.peek() != "]":
                key = self.take("ID")
                self.take("=")
                attrs[key] = self.take("ID")
                if self.peek() in (";", ","):
                    self.pos += 1
            self.take("]")
        return attrs

    def stmt(self, cluster: Cluster | None) -> None:
        kind = self.peek()
        if kind in ("graph", "node", "edge"):
            self.pos += 1
            self.dot.defaults.setdefault(kind, {}).update(self.attrList())
            return
        if kind == "ID" and self.peek(1) == "=":
            key = self.take("ID")
            self.take("=")
            value = self.take("ID")
            if cluster is not None:
                cluster.attrs[key] = value
            return
        ends = [self.endpoint(cluster)]
        edgeOp = "->" if self.directed else "--"
        while self.peek() in ("->", "--"):
            assert self.take(self.peek()) == edgeOp, "edge operator of the other graph kind"
            ends.append(self.endpoint(cluster))
        attrs = self.attrList()
        if len(ends) == 1:
            if ends[0] is not None:
                self.dot.nodes.setdefault(ends[0], {}).update(attrs)
            return
        for a, b in zip(ends, ends[1:], strict=False):
            assert a is not None and b is not None, "edges to subgraphs are not used here"
            self.dot.edges.append((a, b, attrs))

    def endpoint(self, cluster: Cluster | None) -> str | None:
        """A node id (declared in ``cluster`` if new), or a subgraph (``None``)."""
        if self.peek() in ("subgraph", "{"):
            self.subgraph(cluster)
            return None
        name = self.take("ID")
        if self.peek() == ":":
            self.take(":")
            self.take("ID")
        if name not in self.dot.nodes:
            self.dot.nodes[name] = {}
            if cluster is not None:
                cluster.nodes.append(name)
        return name

    def subgraph(self, parent: Cluster | None) -> None:
        name = None
        if self.peek() == "subgraph":
            self.take("subgraph")
            if self.peek() == "ID":
                name = self.take("ID")
        if name is None:
            self.anonymous += 1
            name = f"anonymous{self.anonymous}"
        assert name not in self.dot.clusters, f"subgraph {name!r} declared twice"
        cluster = Cluster(name, parent.name if parent else None)
        self.dot.clusters[name] = cluster
        self.take("{")
        self.stmtList(cluster)
        self.take("}")


def parse(text: str) -> Dot:
    return _Parser(text).graph()


def test_parserRejectsWhatIsNotDot() -> None:
    for bad in [
        'digraph { "a" -> }',
        'digraph { "a" [label=] }',
        'digraph { "a" -- "b" }',
        'digraph { "unterminated }',
        "digraph { a }}",
    ]:
        with pytest.raises(AssertionError):
            parse(bad)
    edges = parse('digraph g { a -> b [label="x \\" y"]; }').edges
    assert edges == [("a", "b", {"label": 'x " y'})]


# -- toDot ----------------------------------------------------------------------------------------
def softmaxGraph() -> tuple[Graph, Ops]:
    g = Graph()
    tf = Ops.create(g)
    x = tf.withName("x").placeholder(TFloat64)
    p = stableSoftmax(tf.withSubScope("stable"), x)
    g.addGradients(None, [p.asOutput()], [x.asOutput()])
    tf.gradients(p, [x])
    return g, tf


def test_everyOpIsANodeAndEveryInputAnEdge() -> None:
    g, _ = softmaxGraph()
    dot = parse(g.toDot())

    names = [op.name() for op in g.operations()]
    assert sorted(dot.nodes) == sorted(names)
    expected = sorted((i.op().name(), op.name()) for op in g.operations() for i in op.inputs())
    assert sorted((a, b) for a, b, _ in dot.edges) == expected


def test_labelsShowTypeNameDataTypeAndShape(graph: Graph, tf: Ops) -> None:
    tf.withName("w").constant(np.zeros((2, 3)))
    args = tf.withName("args").broadcastGradientArgs(
        tf.withName("s0").constant(np.array([2, 1], np.int32)),
        tf.withName("s1").constant(np.array([1, 3], np.int32)),
    )
    tf.withName("first").identity(args.r1())
    dot = parse(graph.toDot())

    assert dot.nodes["w"]["label"] == "Const\\nw\\nfloat64 [2, 3]"
    assert dot.nodes["args"]["label"] == (
        "BroadcastGradientArgs\\nargs\\n0: int32 [?]\\n1: int32 [?]"
    )
    # an edge from an op with several outputs says which output it carries
    assert ("args", "first", {"label": "1"}) in dot.edges
    assert ("s0", "args", {}) in dot.edges


def test_scopesAreNestedClusters(graph: Graph, tf: Ops) -> None:
    outer = tf.withSubScope("outer")
    e = outer.withSubScope("inner").math.exp(outer.constant(1.0))
    dot = parse(graph.toDot())

    assert dot.clusterOf(e.op().name()) == "cluster_outer/inner"
    assert dot.clusters["cluster_outer/inner"].parent == "cluster_outer"
    assert dot.clusters["cluster_outer/inner"].attrs["label"] == "inner"
    assert dot.clusterOf("outer/Const") == "cluster_outer"


def test_stopGradientStandsOut() -> None:
    g, _ = softmaxGraph()
    dot = parse(g.toDot())

    stop = dot.nodes["stable/StopGradient"]
    assert stop["shape"] == "octagon" and stop["fillcolor"] == "#d62728"
    others = [n for n, attrs in dot.nodes.items() if attrs.get("shape") == "octagon"]
    assert others == ["stable/StopGradient"]


def test_gradientOpsAreGroupedInTheirOwnCluster() -> None:
    g, _ = softmaxGraph()
    dot = parse(g.toDot())

    # Graph.addGradients puts them under "gradients", the Gradients op under "Gradients"
    for scope in ("gradients", "Gradients"):
        cluster = dot.clusters[f"cluster_{scope}"]
        assert cluster.parent is None and cluster.attrs["fillcolor"] == "#fff2e0"
        inside = {
            n for c in dot.clusters.values() if c.name.startswith(cluster.name) for n in c.nodes
        }
        assert inside == {op.name() for op in g.operations() if op.name().startswith(scope + "/")}
    assert "fillcolor" not in dot.clusters["cluster_stable"].attrs


def test_withoutGradientsOnlyTheForwardGraphIsDrawn() -> None:
    g, _ = softmaxGraph()
    dot = parse(g.toDot(gradients=False))

    forward = [
        op.name() for op in g.operations() if not op.name().startswith(("gradients/", "Gradients/"))
    ]
    assert sorted(dot.nodes) == sorted(forward)
    assert all(a in forward and b in forward for a, b, _ in dot.edges)
    assert set(dot.clusters) == {"cluster_stable"}


def test_controlEdgesAreDashed(graph: Graph, tf: Ops) -> None:
    first = tf.withName("first").noOp()
    tf.withControlDependencies([first]).withName("after").constant(1)
    dot = parse(graph.toDot())

    [(a, b, attrs)] = dot.edges
    assert (a, b, attrs["style"]) == ("first", "after", "dashed")


def test_namesAreQuoted(graph: Graph, tf: Ops) -> None:
    tf.withSubScope("a.b-c").withName("x.1-y").placeholder(TInt32)
    dot = parse(graph.toDot())
    assert list(dot.nodes) == ["a.b-c/x.1-y"]
    assert dot.nodes["a.b-c/x.1-y"]["shape"] == "ellipse"  # graph inputs are ellipses


def test_emptyGraphIsValidDot(graph: Graph) -> None:
    dot = parse(graph.toDot())
    assert dot.nodes == {} and dot.edges == [] and dot.clusters == {}


def test_closedGraphRaises() -> None:
    g = Graph()
    g.close()
    with pytest.raises(IllegalStateError, match="closed"):
        g.toDot()


def test_labelsInAScopeShowTheNameWithinItAndTooltipsTheFullName() -> None:
    g, _ = softmaxGraph()
    dot = parse(g.toDot())

    # the cluster says the scope; a name equal to the type is not repeated
    assert dot.nodes["stable/Max"]["label"] == "Max\\nfloat64 <unknown>"
    assert dot.nodes["stable/Const_1"]["label"] == "Const\\nConst_1\\nint32 []"
    tooltip = dot.nodes["stable/StopGradient"]["tooltip"]
    assert tooltip.startswith("StopGradient stable/StopGradient (created at stable_softmax.py:")
    assert "/" not in tooltip.split("created at ")[1]  # no directory of this machine
    assert all("tooltip" in attrs for attrs in dot.nodes.values())


def test_constantsAreDrawnSmall(graph: Graph, tf: Ops) -> None:
    tf.withName("c").constant(1.0)
    tf.withName("x").placeholder(TFloat64)
    dot = parse(graph.toDot())

    assert dot.nodes["c"]["fontsize"] == "8" and dot.nodes["c"]["fillcolor"] == "#ffffff"
    assert "fontsize" not in dot.nodes["x"]


def test_forwardValuesIntoTheGradientsAreLightAndDoNotPullTheLayout() -> None:
    g, _ = softmaxGraph()
    dot = parse(g.toDot())

    def isGradient(name: str) -> bool:
        return name.startswith(("gradients/", "Gradients/"))

    crossing = [(a, b, attrs) for a, b, attrs in dot.edges if isGradient(b) and not isGradient(a)]
    assert crossing and all(attrs["constraint"] == "false" for _, _, attrs in crossing)
    inside = [attrs for a, b, attrs in dot.edges if isGradient(a) == isGradient(b)]
    assert inside and all("constraint" not in attrs for attrs in inside)
    assert dot.defaults["graph"]["newrank"] == "true"
