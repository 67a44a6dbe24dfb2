"""The library stays clean under ``mypy --strict``, ``ruff`` and its import layers (configured
in pyproject.toml)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_mypyStrictIsClean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary"],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruffIsClean() -> None:
    ruff = shutil.which("ruff")
    if ruff is None:
        pytest.fail("ruff is not installed: install the test extra (pip install -e '.[test]')")
    result = subprocess.run(
        [ruff, "check", "."], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_importLayersHold() -> None:
    """The layers stated in pyproject.toml ([tool.importlinter]) hold."""
    lintImports = shutil.which("lint-imports")
    if lintImports is None:
        pytest.fail("import-linter is not installed: install the test extra")
    result = subprocess.run(
        [lintImports, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _localImports() -> list[tuple[str, int, bool]]:
    """(file, line, whether a comment says why) of every import inside a function."""
    found = []
    for path in sorted([*(ROOT / "tfops").rglob("*.py"), *(ROOT / "scope").rglob("*.py")]):
        if "examples" in path.parts:
            continue  # scripts, whose optional plotting libraries load only when asked for
        lines = path.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for inner in ast.walk(node):
                    if isinstance(inner, (ast.Import, ast.ImportFrom)):
                        above = lines[inner.lineno - 2].strip()
                        found.append((str(path.relative_to(ROOT)), inner.lineno,
                                      above.startswith("#")))
    return found


def test_atMostFiveFunctionLocalImportsEachCommented() -> None:
    """Modules import at the top; the few upward calls say why they are made."""
    found = _localImports()
    assert len(found) <= 5, found
    assert all(commented for _, _, commented in found), found
