"""The produced op classes, facade and op reference match the op definitions."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import pytest

from tfops import Ops
from tfops.op import OpDef
from tfops.op._generate import HANDWRITTEN_FACADE, render
from tfops.spec import builtinOps


def _summary(doc: str | None) -> str:
    assert doc is not None
    return " ".join(doc.strip().split("\n\n")[0].split())


@pytest.mark.parametrize("path,text", sorted(render().items()), ids=lambda v: str(v)[-30:])
def test_producedFileIsUpToDate(path: Path, text: str) -> None:
    assert path.read_text() == text, (
        f"{path} is stale: run `python -m tfops.op._generate` and commit the result"
    )


@pytest.mark.parametrize("opdef", builtinOps(), ids=lambda d: d.type)
def test_opClassIsFinalWithOpNameAndSummary(opdef: OpDef) -> None:
    cls = getattr(importlib.import_module(f"tfops.op.{opdef.group}"), opdef.className or opdef.type)
    assert cls.OP_NAME == opdef.type
    assert getattr(cls, "__final__", False) is True
    assert _summary(cls.__doc__) == " ".join(opdef.summary.split())


_GENERATED_FACADE = [d for d in builtinOps() if d.facadeName not in HANDWRITTEN_FACADE]


@pytest.mark.parametrize("opdef", _GENERATED_FACADE, ids=lambda d: d.type)
def test_facadeMethodHasTheParametersAndSummaryOfCreate(opdef: OpDef) -> None:
    cls = getattr(importlib.import_module(f"tfops.op.{opdef.group}"), opdef.className or opdef.type)
    if opdef.group == "core":
        facade: type = Ops
    else:
        facade = getattr(importlib.import_module("tfops.ops"), f"{opdef.group.capitalize()}Ops")
    method = getattr(facade, opdef.facadeName or (cls.__name__[0].lower() + cls.__name__[1:]))
    createParams = list(inspect.signature(cls.create).parameters)[1:]
    facadeParams = list(inspect.signature(method).parameters)[1:]
    assert createParams == facadeParams
    assert _summary(method.__doc__) == " ".join(opdef.summary.split())
