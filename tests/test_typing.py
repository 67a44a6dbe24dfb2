"""Static typing of the public API: the typed programs in tests/typing, type completeness, and
``Any`` only where the API says so.

The programs in tests/typing are checked, never run: ``builders.py`` holds ``assert_type``
expectations for the main builders, ``errors.py`` lines that must stay type errors (each marked
for mypy and for pyright, whose unused-ignore reports make the check fail when a line stops
being an error): two data types where an op needs one (in ``create``, the facade and the
operators), a family-typed parameter given an exact type, a variable or gradient of the wrong
type. mypy runs with the project's ``[tool.mypy]`` settings, pyright with ``[tool.pyright]``
(strict). The README's code and docs/concepts/typing.md's are checked the same way, and so
are the examples (tfops/examples): both checkers, strict, no ``typing.cast``, and an ignore only
on the few lines that call a library without types.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tokenize
import typing
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import ModuleType

import numpy.typing
import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[1]
PROGRAMS = ROOT / "tests" / "typing"
EXAMPLES = ROOT / "tfops" / "examples"


def _pyright() -> str:
    pyright = shutil.which("pyright")
    if pyright is None:
        pytest.fail("pyright is not installed: install the test extra (pip install -e '.[test]')")
    return pyright


def _run(command: list[str], env: Mapping[str, str] | None = None) -> tuple[int, str]:
    result = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env
    )
    return result.returncode, result.stdout + result.stderr


def test_typedProgramsPassMypyStrict() -> None:
    # the library's own errors are test_static_checks.py's business: report only the programs'
    code, output = _run([
        sys.executable, "-m", "mypy", "--strict", "--warn-unused-ignores", "--no-error-summary",
        "--follow-imports=silent", str(PROGRAMS),
    ])
    assert code == 0, f"mypy on tests/typing:\n{output}"


def test_typedProgramsAndExamplesPassPyrightStrict() -> None:
    """pyproject.toml's [tool.pyright]: tests/typing and the examples, strict."""
    code, output = _run([_pyright(), "--project", str(ROOT / "pyproject.toml")])
    assert code == 0, f"pyright on tests/typing and tfops/examples:\n{output}"


def test_theCheckersCoverEveryExample() -> None:
    """pyright (strict) and mypy (--strict, test_static_checks.py) both check tfops/examples."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]
    assert config["pyright"]["typeCheckingMode"] == "strict"
    assert config["pyright"]["enableTypeIgnoreComments"] is False  # mypy's ignores hide nothing
    assert "tfops/examples" in config["pyright"]["include"]
    assert config["pyright"].get("exclude", []) == []
    assert config["mypy"]["strict"] is True and "tfops" in config["mypy"]["files"]
    assert "exclude" not in config["mypy"]
    names = {p.stem for p in EXAMPLES.glob("*.py")}
    assert {"stable_softmax", "em_gmm", "rbm_cd", "adversarial", "lenet", "mlp"} <= names


def _typingCasts(tree: ast.AST) -> list[int]:
    """Lines that import or call ``typing.cast`` (TF's ``tf.dtypes.cast`` op is not one)."""
    modules = {"typing", "typing_extensions"}
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in modules:
            lines += [node.lineno for alias in node.names if alias.name == "cast"]
        elif isinstance(node, ast.Attribute) and node.attr == "cast" and isinstance(
                node.value, ast.Name) and node.value.id in modules:
            lines.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id == "cast"):
            lines.append(node.lineno)
    return lines


def test_theExamplesTypeCheckWithoutCast() -> None:
    found = {p.name: _typingCasts(ast.parse(p.read_text())) for p in EXAMPLES.glob("*.py")}
    assert {name: lines for name, lines in found.items() if lines} == {}, "typing.cast in"
    assert _typingCasts(ast.parse("from typing import cast\nx = cast(int, 1)")) == [1, 2]


# Where the examples call a library that gives pyright no types (scikit-learn ships none;
# pyplot.figure's **kwargs have none), one line says so to pyright, naming the rule; no other
# ignore is allowed. (file, rule) of each:
EXAMPLE_PYRIGHT_IGNORES = [
    ("digits.py", "reportMissingTypeStubs"),  # from sklearn.datasets import load_digits
    ("digits.py", "reportUnknownVariableType"),  # load_digits(return_X_y=True)
    ("rbm_cd.py", "reportUnknownMemberType"),  # plt.figure(figsize=..., dpi=...)
]


def test_theExamplesIgnoreOnlyTheirUntypedLibraryCalls() -> None:
    pyright, mypy = [], []
    for path in sorted(EXAMPLES.glob("*.py")):
        text = path.read_text()
        assert not re.search(r"#\s*pyright:\s*(basic|standard|strict\b|report\w+\s*=)", text), (
            f"{path.name}: a file-level pyright setting")
        for n, line in _ignoreComments(path):
            pyright += [(path.name, rule) for rule in re.findall(
                r"# pyright: ignore\[(\w+)\]", line)]
            mypy += [(path.name, code) for code in re.findall(r"# type: ignore\[([a-z-]+)\]", line)]
            assert not re.search(r"ignore(?!\[)", line.split("#", 1)[1]), (
                f"{path.name}:{n}: an ignore without a rule or code")
    assert pyright == EXAMPLE_PYRIGHT_IGNORES
    # mypy: the optional libraries without types (mypy has no stubs of tqdm's either)
    assert {code for _, code in mypy} <= {"import-untyped"}


def _codeBlocks(tmp: Path) -> list[Path]:
    """The Python blocks of the README and of the typing page, one file each."""
    files = []
    for page in (ROOT / "README.md", ROOT / "docs" / "concepts" / "typing.md"):
        blocks = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
        assert blocks, f"{page.name} has no Python block"
        for n, block in enumerate(blocks, 1):
            files.append(tmp / f"{page.stem.lower()}_{n}.py")
            files[-1].write_text(block)
    return files


def test_readmeAndTypingPageCodePassMypyStrict(tmp_path: Path) -> None:
    """The README's code and this page's type-check as written: no cast, every ignore needed."""
    files = _codeBlocks(tmp_path)
    code, output = _run([
        sys.executable, "-m", "mypy", "--strict", "--warn-unused-ignores", "--no-error-summary",
        "--follow-imports=silent", *map(str, files),
    ], {**os.environ, "MYPYPATH": str(ROOT)})
    assert code == 0, f"mypy on the README's and docs/concepts/typing.md's code:\n{output}"


def test_readmeAndTypingPageCodePassPyrightStrict(tmp_path: Path) -> None:
    _codeBlocks(tmp_path)
    config = {"typeCheckingMode": "strict", "pythonVersion": "3.10", "extraPaths": [str(ROOT)],
              "reportUnnecessaryTypeIgnoreComment": "error"}
    (tmp_path / "pyrightconfig.json").write_text(json.dumps(config))
    code, output = _run([_pyright(), "--project", str(tmp_path / "pyrightconfig.json")])
    assert code == 0, f"pyright on the README's and docs/concepts/typing.md's code:\n{output}"


def _ignoreComments(path: Path) -> list[tuple[int, str]]:
    """(line number, line) of each line with a comment that silences a checker."""
    with open(path) as source:
        return sorted({
            (t.start[0], t.line.rstrip("\n"))
            for t in tokenize.generate_tokens(source.readline)
            if t.type == tokenize.COMMENT and "ignore" in t.string
        })


def test_everyExpectedErrorIsNamedForBothCheckers() -> None:
    """A line that must be an error names the error for mypy and for pyright."""
    expected = _ignoreComments(PROGRAMS / "errors.py")
    assert len(expected) >= 40
    marks = re.compile(r"# type: ignore\[[a-z-]+\]  # pyright: ignore\[\w+(, \w+)*\]$")
    for n, line in expected:
        assert marks.search(line), (
            f"errors.py:{n} must end with '# type: ignore[<code>]  # pyright: ignore[<rule>]'"
        )
    assert _ignoreComments(PROGRAMS / "builders.py") == [], "builders.py needs no ignores"


@pytest.mark.parametrize("package", ["tfops", "scope"])
def test_publicApiIsTypeComplete(package: str) -> None:
    """pyright finds no unknown or ambiguous type in what the package exports."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code, output = _run([_pyright(), "--verifytypes", package, "--ignoreexternal"], env)
    assert code == 0 and "error:" not in output, f"pyright --verifytypes {package}:\n{output}"


# -- explicit Any ---------------------------------------------------------------------------
# The builder API says what every value is. The exceptions are numpy's spellings: "an array of
# any shape and dtype", np.ndarray[Any, Any] (a fed or fetched tensor's dtype is a run-time fact)
# and numpy's aliases such as DTypeLike. The op registry (tfops.op: kernels, attribute maps) is
# dynamic by nature and not listed.
PUBLIC_MODULES = (
    "scope",
    "tfops",
    "tfops.types",
    "tfops.shape",
    "tfops.output",
    "tfops.graph",
    "tfops.builder",
    "tfops.session",
    "tfops.errors",
    "tfops.testing",
    "tfops.ops",
    "tfops.op.core",
    "tfops.op.math",
    "tfops.op.dtypes",
    "tfops.op.linalg",
    "tfops.op.nn",
    "tfops.op.random",
    "tfops.op.train",
)


_ALLOWED_ANY = re.compile(
    r"(?:np|numpy)\.ndarray\[(?:typing\.)?Any, (?:typing\.)?Any\]|NDArray\[(?:typing\.)?Any\]"
)
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")


def _resolve(name: str, names: Mapping[str, object]) -> object:
    first, *rest = name.split(".")
    obj = names.get(first)
    for attr in rest:
        obj = getattr(obj, attr, None)
    return obj


def _anyIn(annotation: str, names: Mapping[str, object], seen: set[str]) -> bool:
    """Whether ``annotation`` (the text of one) holds ``Any`` outside ``np.ndarray[Any, Any]``,
    following the type aliases it names (``TensorValue``, ``Array``)."""
    for name in _NAME.findall(_ALLOWED_ANY.sub("", annotation)):
        alias = _resolve(name, names)
        if name == "typing.Any" or name == "Any" and alias in (None, typing.Any):
            return True  # (the op class named Any is not typing's)
        if name in seen or any(alias is a for a in vars(numpy.typing).values()):
            continue  # numpy's own aliases (DTypeLike) spell "anything numpy accepts"
        seen.add(name)
        if isinstance(alias, str) or typing.get_origin(alias) is not None:
            module = sys.modules.get(getattr(alias, "__module__", ""), None)
            if _anyIn(str(alias), vars(module) if module else names, seen):
                return True
    return False


def _functions(owner: str, obj: object) -> Iterator[tuple[str, Callable[..., object]]]:
    if inspect.isfunction(obj):
        yield owner, obj
        get = getattr(typing, "get_overloads", None)  # Python 3.11+
        for i, variant in enumerate(get(obj) if get else []):
            if isinstance(variant, (staticmethod, classmethod)):
                variant = variant.__func__
            yield f"{owner} (overload {i + 1})", variant
    elif inspect.isclass(obj):
        for name, member in vars(obj).items():
            if name.startswith("_") and name != "__init__":
                continue
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            if inspect.isfunction(member) or inspect.isclass(member):
                yield from _functions(f"{owner}.{name}", member)


def _publicSignatures() -> Iterator[tuple[str, str, str, Mapping[str, object]]]:
    """(where, parameter, annotation, names to evaluate it in) for every public annotation."""
    for moduleName in PUBLIC_MODULES:
        module = importlib.import_module(moduleName)
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if isinstance(obj, ModuleType):
                continue
            if inspect.isclass(obj):
                for cls in (obj, *(v for v in vars(obj).values() if inspect.isclass(v))):
                    for field, annotation in getattr(cls, "__annotations__", {}).items():
                        if not field.startswith("_"):
                            yield f"{cls.__qualname__}.{field}", field, str(annotation), vars(
                                sys.modules[cls.__module__])
            for where, fn in _functions(f"{moduleName}.{attr}", obj):
                for param, annotation in fn.__annotations__.items():
                    yield where, param, str(annotation), fn.__globals__


def test_publicSignaturesUseAnyOnlyForNumpyArrays() -> None:
    checked, offending = 0, []
    for where, param, annotation, names in _publicSignatures():
        checked += 1
        if _anyIn(annotation, names, set()):
            offending.append(f"{where}: {param}: {annotation}")
    assert checked > 1000
    assert not offending, "Any in public signatures:\n" + "\n".join(offending)


def test_divisionOfTwoDataTypesIsRefusedAtRunTimeAsByTheCheckers() -> None:
    """``i32 / i64`` is a type error (tests/typing/errors.py) and, as in TF Python, an error
    when the operator runs: integers are not cast to float64 before the data types match."""
    from tfops import Graph, Ops
    from tfops.errors import DataTypeError
    from tfops.types import TFloat64, TInt64

    g = Graph()
    tf = Ops.create(g)
    i32, i64 = tf.constant([1, 2]), tf.constant([1, 2], TInt64)
    with pytest.raises(DataTypeError, match=r"same data type, got int32 != int64"):
        i32 / i64  # type: ignore[operator]  # the checkers refuse it too
    with pytest.raises(DataTypeError, match=r"got float32 != float64"):
        tf.constant(1.0) / tf.constant(2.0, TFloat64)  # type: ignore[operator]
    assert g.operation("Cast") is None, "nothing is left in the graph"
