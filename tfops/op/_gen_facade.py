"""Renders the ``Ops`` facade (``tfops/ops.py``) from the op definitions: one method per op
(and per alias) in its group's class, the composite endpoints beside them, and the imports;
the hand-written parts of the facade are in ``_gen_facade_ops``.
"""

from __future__ import annotations

import ast

from tfops.composite import Endpoint
from tfops.op._gen_classes import IMPORTS, _Op
from tfops.op._gen_composite import endpointImports, endpointMethod
from tfops.op._gen_constant import _CREATE_TYPES, ANY_CONSTANT, _overloads
from tfops.op._gen_facade_ops import _EXTRA_FACADE, _OPS_CLASS, _variableFacade
from tfops.op._gen_handwritten import CALLABLE_GROUP, STRIDED_SLICE_FACADE
from tfops.op._gen_text import HEADER, _all, _def, _params, _wrap

# Facade methods written by hand (in _gen_facade_ops) instead of from the op's create: Java's
# ``Ops.variable(init)`` creates a variable from its initial value.
HANDWRITTEN_FACADE = frozenset({"variable"})


def _getattrMethod(group: str) -> str:
    """A ``__getattr__`` that names the tfops method for a TF Python, JAX or PyTorch name
    (``tf.reduce_sum`` -> ``tf.sum``); hidden from type checkers, for which an unknown name
    stays an error."""
    return (
        "\n    if not TYPE_CHECKING:\n\n"
        "        def __getattr__(self, name: str) -> object:\n"
        f"            raise missingMethod(self, {group!r}, name)\n"
    )


def _callable(byGroup: dict[str, list[_Op]], group: str) -> list[_Op]:
    """The core op whose facade name is the group's (``Shape``, for ``tf.shape``): TF Java
    has both a method ``tf.shape(x)`` and a group ``tf.shape.<helper>``; here the group is
    callable."""
    return [op for op in byGroup.get("core", []) if op.facade == group]


def _facadeNames(op: _Op) -> list[str]:
    """The op's facade method and its aliases (:data:`~tfops.op._gen_classes.ALIASES`)."""
    return [op.facade, *(name for name, _ in op.aliases)]


def _facadeMethod(op: _Op, name: str | None = None) -> str:
    """The facade method ``name`` (by default the op's own) that creates ``op``."""
    name = name or op.facade
    if name != op.facade and op.d.type == "Const":
        raise ValueError("tf.constant has no other name")
    sig = op.signature()
    args = ", ".join(
        [n for n, _, _ in sig]
        + (["*options"] if op.options else [])
        + [f"{n}={n}" for n, _ in op.keywords(op.typeVar)]
    )
    if op.d.type == "Const":
        text = (
            _overloads("constant", "self", "value", "TensorValue | _shape.Shape", _CREATE_TYPES)
            + "\n"
            + _def(
                op.facade,
                "self, value: TensorValue | _shape.Shape, dtype: type[T] | None = None",
                f"Constant[T] | {ANY_CONSTANT}",
                "    ",
            )
        )
        args = "value, dtype"
        argsDoc = (
            "        Args:\n            value: the value of the constant (a ``Shape``: its "
            "dimensions, ``TInt64``).\n"
            "            dtype: the data type; by default inferred from ``value``."
        )
    elif op.typeOption:
        text = op.createOverloads("self", "    ", static=False, facade=name) + _def(
            name,
            _params(sig, op.optionsType(op.typeVar), "self", op.keywords(op.typeVar)),
            f"{op.cls}[{op.typeVar}]",
            "    ",
        )
        argsDoc = op.argsDoc("        ", False)
    else:
        params = _params(sig, op.optionsType(op.typeVar), "self", op.keywords(op.typeVar))
        text = _def(name, params, op.ret, "    ")
        argsDoc = op.argsDoc("        ", False)
    summary = _wrap(op.d.summary, "        ").lstrip()
    if name == "__call__":
        summary += (
            f"\n\n        ``tf.{op.facade}(...)`` creates the op; ``tf.{op.facade}.<helper>`` are "
            "the helpers of its group."
        )
    elif name != op.facade:
        cls = next(c for a, c in op.aliases if a == name)
        summary += (
            f"\n\n        The same as ``{op.facade}``: TF Java keeps both names (``{name}``, class "
            f"``{cls}``)."
        )
    body = f"        return {op.cls}.create(self._scope{', ' if args else ''}{args})\n"
    if op.typeOption:  # the keyword becomes an option, so that the call matches an overload
        keyword = op.typeOption.option
        args = ", ".join([n for n, _, _ in sig] + ["*options"])
        body = (
            f"        if {keyword} is not None:\n"
            f"            options = (*options, {op.cls}.{keyword}({keyword}))\n"
            f"        return {op.cls}.create(self._scope, {args})\n"
        )
    return (
        text
        + f'        """{summary}\n\n'
        + f"{argsDoc}\n\n"
        + f"        Returns:\n            a new instance of {op.cls}.\n"
        + '        """\n'
        + body
    )


def _importedNames(text: str) -> set[str]:
    return {
        a.asname or a.name
        for node in ast.parse(text).body
        if isinstance(node, ast.ImportFrom | ast.Import)
        for a in node.names
    }


def _checkUnique(byGroup: dict[str, list[_Op]], endpoints: list[Endpoint]) -> None:
    seen: dict[tuple[str, str], str] = {}
    names = [(g, op.facade, op.d.type) for g, ops in byGroup.items() for op in ops]
    names += [(g, a, op.d.type) for g, ops in byGroup.items() for op in ops for a, _ in op.aliases]
    names += [(e.group, e.name, f"{e.owner.__name__}.{e.method}") for e in endpoints]
    for group, name, what in names:
        if (group, name) in seen:
            raise ValueError(
                f"facade method tf.{group}.{name} of {what} is already {seen[group, name]}'s"
            )
        seen[group, name] = what


def renderFacade(byGroup: dict[str, list[_Op]], endpoints: list[Endpoint]) -> str:
    """The text of ``tfops/ops.py``, before :func:`formatSources`: the generated ops' methods,
    then the composite ``endpoints``' of each group."""
    _checkUnique(byGroup, endpoints)
    groups = [g for g in byGroup if g != "core"]
    groups += [
        g for g in dict.fromkeys(e.group for e in endpoints) if g != "core" and g not in groups
    ]
    out = []
    for g in groups:
        out.append(
            f"\n\n@final\nclass {g.capitalize()}Ops:\n"
            f'    """The ``{g}`` ops of :class:`Ops` (``tf.{g}.<op>``).\n\n'
            "    Args:\n        scope: the scope new operations are added with.\n"
            '    """\n\n'
            '    __slots__ = ("_scope",)\n\n'
            "    def __init__(self, scope: Scope) -> None:\n        self._scope = scope\n"
            + _getattrMethod(g)
        )
        for op in _callable(byGroup, g):  # tf.shape(x) beside tf.shape.flatten(x)
            out.append("\n" + _facadeMethod(op, "__call__"))
        for op in byGroup.get(g, []):
            out.extend("\n" + _facadeMethod(op, name) for name in _facadeNames(op))
        out.extend("\n" + endpointMethod(e) for e in endpoints if e.group == g)
    if any(_callable(byGroup, g) for g in groups):
        out.append(CALLABLE_GROUP)
    out.append(
        _OPS_CLASS.replace("{GETATTR}", _getattrMethod(""))
        .replace("{SLOTS}", "".join(f', "_{g}"' for g in groups))
        .replace(
            "{NONES}",
            "".join(f"        self._{g}: {g.capitalize()}Ops | None = None\n" for g in groups),
        )
        .replace(
            "{GROUP_FIELDS}",
            "".join(
                (
                    f"\n    # tf.{g}(x) creates the op, tf.{g}.<helper> are its group's\n"
                    f"    {g}: _CallableGroup[{g.capitalize()}Ops] = "
                    f"_CallableGroup({g.capitalize()}Ops)\n"
                )
                if _callable(byGroup, g)
                else (
                    f"\n    @property\n    def {g}(self) -> {g.capitalize()}Ops:\n"
                    f'        """The ``{g}`` ops (``tf.{g}.<op>``)."""\n'
                    f"        group = self._{g}\n"
                    f"        if group is None:\n"
                    f"            group = self._{g} = {g.capitalize()}Ops(self._scope)\n"
                    f"        return group\n"
                )
                for g in groups
            ),
        )
    )
    for op in byGroup.get("core", []):
        if op.d.type == "StridedSlice":
            out.append(STRIDED_SLICE_FACADE.replace("{SUMMARY}", op.d.summary))
        elif op.facade not in HANDWRITTEN_FACADE and op.facade not in groups:
            out.extend("\n" + _facadeMethod(op, name) for name in _facadeNames(op))
    out.extend("\n" + endpointMethod(e) for e in endpoints if e.group == "core")
    out.append(_variableFacade())
    out.append(_EXTRA_FACADE)
    body = "".join(out)
    imports = "".join(
        f"from tfops.op.{g} import {', '.join(sorted(op.cls for op in ops))}\n"
        for g, ops in byGroup.items()
    )
    imports = (
        IMPORTS
        + "from tfops.errors import DataTypeError\n"
        + "from tfops._hints import missingMethod, teachKeywords\n"
        + "from typing import TYPE_CHECKING\n"
        + "from tfops.op._gradients_op import Gradients\n"
        + "from tfops.output import AnyOperand\n"
        + "from tfops.op._variables import initOp, variableWithInit\n"
        + "from typing import ClassVar, Generic, TypeVar, cast\n"
        + "from tfops.composite.indices import Index, StridedSliceHelper\n"
        + "from collections.abc import Callable\n"
        + imports
    )
    imports += endpointImports(endpoints, _importedNames(imports))
    # a keyword the method does not take (keepdims=True): an error naming the option; hidden
    # from type checkers, which reject such a call by themselves
    body += (
        "\n\nif not TYPE_CHECKING:\n"
        f"    teachKeywords(Ops, {', '.join(f'{g.capitalize()}Ops' for g in groups)})\n"
    )
    return (
        HEADER
        + '"""The ``Ops`` facade: one method per op, grouped as TensorFlow Java\'s ``Ops``."""\n\n'
        + imports
        + "\n"
        + _all(["Ops", *(f"{g.capitalize()}Ops" for g in groups)])
        + body
    )
