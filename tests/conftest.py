"""Fixtures shared by the test modules: a fresh graph, its Ops facade and a runner helper."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np
import pytest

from tfops import Graph, Ops, Session
from tfops.output import Operand
from tfops.types import TType

Run = Callable[..., Any]

BACKEND = os.environ.get("TFOPS_TEST_BACKEND", "numpy")
"""The backend the ``session`` fixture runs on (``TFOPS_TEST_BACKEND``)."""


@pytest.fixture
def backend() -> str:
    return BACKEND


@pytest.fixture
def graph() -> Iterator[Graph]:
    with Graph() as g:
        yield g


@pytest.fixture
def tf(graph: Graph) -> Ops:
    return Ops.create(graph)


@pytest.fixture
def session(graph: Graph, backend: str) -> Iterator[Session]:
    with Session(graph, backend=backend) as s:
        yield s


@pytest.fixture
def run(session: Session) -> Run:
    """``run(a, b, feeds={x: value})``: the fetched values, one array per fetch (or a single
    array for a single fetch)."""

    def run(*fetches: Operand[TType], feeds: Mapping[Operand[TType], Any] | None = None) -> Any:
        runner = session.runner()
        for k, v in (feeds or {}).items():
            runner.feed(k, v)
        for f in fetches:
            runner.fetch(f)
        values = [np.asarray(v) for v in runner.run()]
        return values[0] if len(values) == 1 else values

    return run
