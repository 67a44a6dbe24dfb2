"""The documentation site builds with ``mkdocs build --strict``, and its guides are true: their
code runs and prints what the comments say."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
# the pages whose Python blocks are whole programs (the other pages show fragments)
GUIDES = [DOCS / "index.md", DOCS / "coming_from.md", *sorted((DOCS / "concepts").glob("*.md"))]


def test_siteBuildsStrict(tmp_path: Path) -> None:
    """Every page in the nav exists, every link and anchor resolves, every docstring renders."""
    missing = [m for m in ("mkdocs", "material", "mkdocstrings_handlers.python")
               if importlib.util.find_spec(m.split(".")[0]) is None]
    if missing:
        pytest.fail(f"{', '.join(missing)} not installed: install the docs extra "
                    "(pip install -e '.[docs]')")
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, f"mkdocs build --strict failed:\n{result.stderr}"
    assert (tmp_path / "reference" / "math" / "index.html").exists()
    assert (tmp_path / "reference" / "api" / "index.html").exists()


def test_gettingStartedHasTheReadmeCommands() -> None:
    readme = (ROOT / "README.md").read_text()
    index = (DOCS / "index.md").read_text()
    for marker in ("demo-command", "test-command"):
        found = re.search(rf"<!-- {marker} -->\n```bash\n(.+?)\n```", readme)
        assert found, f"README.md has no command after <!-- {marker} -->"
        assert f"```bash\n{found.group(1)}\n```" in index, (
            f"docs/index.md must show the README's {marker}: {found.group(1)}"
        )


def _blocks(page: Path) -> list[str]:
    return re.findall(r"```python\n(.*?)```", page.read_text(), re.S)


@pytest.mark.parametrize("page", GUIDES, ids=lambda p: p.relative_to(DOCS).as_posix())
def test_guideCodeRunsAndPrintsWhatItSays(page: Path) -> None:
    """Each Python block runs (a page's blocks share one namespace), and each ``print`` in it
    carries a trailing comment that says what it prints."""
    blocks = _blocks(page)
    assert blocks, f"{page.name} has no Python block"
    printed: list[str] = []

    def record(*values: object, **_: object) -> None:
        printed.append(" ".join(str(v) for v in values))

    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}", "print": record}
    for n, block in enumerate(blocks, 1):
        expected = [m.group(1) for m in re.finditer(r"^\s*print\(.*\)\s+# (.*)$", block, re.M)]
        start = len(printed)
        exec(compile(block, f"{page.relative_to(ROOT)} block {n}", "exec"), namespace)
        outputs = printed[start:]
        assert len(outputs) == len(expected), (
            f"{page.name} block {n}: every print must say what it prints in a trailing comment"
        )
        for said, got in zip(expected, outputs, strict=True):
            assert " ".join(said.split()) == " ".join(got.split()), (
                f"{page.name} block {n}: the comment says {said!r}, the code prints {got!r}"
            )


def _documented(doc: str | None) -> set[str]:
    """The parameter names of a Google-style docstring's ``Args:`` section."""
    section = re.search(r"^(\s*)Args:\n((?:\1    .*\n|\s*\n)+)", doc or "", re.M)
    if section is None:
        return set()
    indent = section.group(1) + "    "
    return set(re.findall(rf"^{indent}\*{{0,2}}(\w+)(?: \(.*?\))?:", section.group(2), re.M))


def _parameters(fn: object) -> set[str]:
    import inspect

    assert callable(fn)
    return {p for p in inspect.signature(fn).parameters if p not in ("self", "cls")}


@pytest.mark.parametrize("group", ["core", "math", "dtypes", "linalg", "nn", "random", "train"])
def test_everyOpClassIsExportedAndDocumentsItsParameters(group: str) -> None:
    """What IDEs show on completion: each ``create`` and option factory documents every
    parameter, and ``__all__`` lists every op class of the module."""
    import inspect

    module = importlib.import_module(f"tfops.op.{group}")
    classes = {n for n, c in vars(module).items()
               if inspect.isclass(c) and c.__module__ == module.__name__}
    # an op class named as one of tfops' own classes (the Shape op) stays out, so that
    # ``from tfops.op.core import *`` does not shadow ``tfops.Shape``
    from tfops.op._gen_classes import _SHADOWING

    assert classes - _SHADOWING <= set(module.__all__)
    assert not _SHADOWING & set(module.__all__)
    for name in classes:
        cls = getattr(module, name)
        for member in ("create", *(n for n, v in vars(cls).items()
                                   if isinstance(v, staticmethod) and n != "create")):
            fn = getattr(cls, member)
            missing = _parameters(fn) - _documented(fn.__doc__)
            assert not missing, f"{name}.{member} does not document {sorted(missing)}"


def test_everyFacadeMethodDocumentsItsParameters() -> None:
    import inspect

    facade = importlib.import_module("tfops.ops")
    for groupName in facade.__all__:
        group = getattr(facade, groupName)
        for name, method in vars(group).items():
            if name.startswith("_") or not inspect.isfunction(method):
                continue
            missing = _parameters(method) - _documented(method.__doc__)
            assert not missing, f"{groupName}.{name} does not document {sorted(missing)}"
