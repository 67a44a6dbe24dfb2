"""Produces the op classes, the ``Ops`` facade and the op reference from the op specs.

Run ``python -m tfops.op._generate`` after changing a spec in ``tfops/spec`` or a composite in
``tfops/composite``; the test suite fails while the checked-in files differ from what this
produces. The output is ordinary,
explicitly typed Python, so IDEs and type checkers see every signature and docstring: op
classes generic in an invariant data type parameter, ``create`` generic in its own type variable
(``tfops/op/_typevars.py``), ``Constant`` and ``Ops.variable`` overloaded on the value, and
``create`` overloaded on an option that sets the output type (``ArgMax.outputType``). The docs
site's reference pages (``docs/reference/<group>.md``, ``ops.md``, ``api.md``) come from here too.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tfops.composite import registeredEndpoints
from tfops.op._gen_classes import _Op, renderGroup
from tfops.op._gen_facade import HANDWRITTEN_FACADE, renderFacade
from tfops.op._gen_reference import _API_PAGE, renderReference, renderReferenceGroup
from tfops.op._gen_text import formatSources
from tfops.spec import builtinOps

__all__ = ["GROUPS", "HANDWRITTEN_FACADE", "ROOT", "main", "render"]

ROOT = Path(__file__).resolve().parents[2]
GROUPS = ("core", "math", "bitwise", "dtypes", "linalg", "nn", "random", "train")


def render() -> dict[Path, str]:
    """Returns every produced file's path and text."""
    byGroup: dict[str, list[_Op]] = {g: [] for g in GROUPS}
    for d in builtinOps():
        if d.group not in byGroup:
            raise ValueError(f"op {d.type} has unknown group {d.group!r}")
        byGroup[d.group].append(_Op(d))
    byGroup = {g: ops for g, ops in byGroup.items() if ops}
    sources = {ROOT / "tfops" / "op" / f"{g}.py": renderGroup(g, ops)
               for g, ops in byGroup.items()}
    endpoints = registeredEndpoints()
    sources[ROOT / "tfops" / "ops.py"] = renderFacade(byGroup, endpoints)
    files = formatSources(sources, ROOT)
    files[ROOT / "docs" / "reference" / "ops.md"] = renderReference(byGroup, endpoints)
    for g in dict.fromkeys([*byGroup, *(e.group for e in endpoints)]):
        files[ROOT / "docs" / "reference" / f"{g}.md"] = renderReferenceGroup(
            g, byGroup.get(g, []), [e for e in endpoints if e.group == g])
    files[ROOT / "docs" / "reference" / "api.md"] = _API_PAGE
    return files


def main() -> int:
    for path, text in render().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
