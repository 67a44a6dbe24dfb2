"""The op tables run on every backend: the ``backend`` fixture is parametrized here, and the
shared checks (``opchecks.run``, ``opchecks.assertGradient``) follow it."""

from __future__ import annotations

import opchecks
import pytest

from tfops.backend import backendNames


@pytest.fixture(params=backendNames())
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture(autouse=True)
def _checksRunOnTheBackend(backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(opchecks, "BACKEND", backend)
