"""Every op tfops defines is complete: a spec, a kernel on every backend, a gradient state."""

from __future__ import annotations

import pytest

from tfops.backend import backendNames, resolveBackend
from tfops.op import lookupGradient
from tfops.opdef import OpDef
from tfops.spec import builtinOps

OPS = builtinOps()


@pytest.mark.parametrize("backend", backendNames())
@pytest.mark.parametrize("opdef", OPS, ids=lambda d: d.type)
def test_everyOpHasAKernelOnEveryBackend(opdef: OpDef, backend: str) -> None:
    assert resolveBackend(backend).hasKernel(opdef.type)


@pytest.mark.parametrize("opdef", OPS, ids=lambda d: d.type)
def test_everyOpHasAGradientRuleOrIsMarkedNotDifferentiable(opdef: OpDef) -> None:
    registered, _ = lookupGradient(opdef.type)
    assert registered, f"{opdef.type}: register a gradient rule or mark it notDifferentiable"
