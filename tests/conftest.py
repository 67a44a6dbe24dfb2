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


# The XLA halves of the longest repetitive checks are slow tests (pytest -m slow), so that the
# default suite stays under 10 minutes on 2 cores: each compiles a small XLA program per case,
# and their numpy halves, the XLA kernel tables and every op's XLA sample run by default.
_SLOW_ON_XLA = frozenset({
    "test_gradientMatchesFiniteDifferences",
    "test_higherOrderGradientsMatchFiniteDifferences",
    "test_gradientsMatchFiniteDifferences",
    "test_otherSeedsGiveOtherValues",
    "test_shapeKnownAtRunTime",
    "test_seededOpGivesTheSameSequenceInEverySession",
    "test_everyOpRunsAsInAGraphOrIsRefused",
    "test_aLossEqualsKerasForEachReduction",
    "test_fiveStepsEqualTensorFlows",
    "test_fiveStepsEqualTensorFlowsTF1Optimizer",
    "test_threeStepsEqualTensorFlowsKernel",
    "test_matches_keras",
    "test_valuesAreTensorFlows",
})


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        name = getattr(item, "originalname", "")
        if callspec is None or name not in _SLOW_ON_XLA:
            continue
        if any(isinstance(v, str) and v == "xla" for v in callspec.params.values()):
            item.add_marker(pytest.mark.slow)
