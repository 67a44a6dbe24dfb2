"""Draws the naive and the stable softmax with their gradients, for the docs.

``python docs/pictures/make_pictures.py`` builds each softmax of the seed example
(``tfops.examples.stable_softmax``) on a placeholder ``x`` of shape [3], adds its gradient with
``tf.gradients``, writes the graph's DOT text (``Graph.toDot``) next to this script and renders
it to SVG with Graphviz's ``dot -Tsvg`` (Debian: ``apt-get install graphviz``). The SVGs are
committed; run this again after a change to ``tfops/dot.py`` or to the gradient rules.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tfops import Graph, Ops, Shape
from tfops.examples.stable_softmax import naiveSoftmax, stableSoftmax
from tfops.types import TFloat64

HERE = Path(__file__).resolve().parent
SOFTMAXES = {"naive": naiveSoftmax, "stable": stableSoftmax}


def softmaxDot(name: str) -> str:
    """The DOT text of ``name``'s softmax of ``x`` (ops under the ``name`` scope) and of its
    gradient with respect to ``x`` (under ``Gradients``)."""
    graph = Graph()
    tf = Ops.create(graph)
    x = tf.withName("x").placeholder(TFloat64, shape=Shape.of(3))
    y = SOFTMAXES[name](tf.withSubScope(name), x)
    tf.gradients(y, [x])
    return graph.toDot()


def main() -> None:
    dot = shutil.which("dot")
    if dot is None:
        sys.exit(
            "Graphviz's dot is not installed: apt-get install graphviz (or brew install "
            "graphviz), then run this again"
        )
    for name in SOFTMAXES:
        source = HERE / f"{name}_softmax.dot"
        source.write_text(softmaxDot(name))
        svg = HERE / f"{name}_softmax.svg"
        subprocess.run([dot, "-Tsvg", str(source), "-o", str(svg)], check=True)
        print(f"wrote {source.relative_to(HERE.parent.parent)} and {svg.name}")


if __name__ == "__main__":
    main()
