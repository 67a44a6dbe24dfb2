"""Renders the facade methods and reference entries of the composite endpoints
(:mod:`tfops.composite`) from their hand-written static methods.

A facade method repeats the method's parameters after the scope, its overloads and its
docstring, as written in the source, and calls the method with the facade's
scope; the names its annotations use are imported from where the method's module has them.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import re
import sys
import textwrap
from collections.abc import Callable, Iterable
from typing import Any

from attrs import evolve, frozen

from tfops.composite import Endpoint, registeredEndpoints
from tfops.op._gen_text import _def, _splitParams

__all__ = ["endpointImports", "endpointMethod", "endpointSignatures", "endpointSummary"]


@frozen
class _Variant:
    """One signature of an endpoint method (an overload or the implementation), as written."""

    params: list[str]  # after the scope
    args: list[str]  # how the facade passes them on
    returns: str
    overload: bool
    annotations: list[str]  # every annotation, the return's included
    comment: str = ""  # a type checker's pragma on the overload, as written


def _variants(e: Endpoint) -> list[_Variant]:
    """The method's overloads, then its implementation, read from the owner class's source
    (``typing.get_overloads`` is Python 3.11 or newer)."""
    where = f"{e.owner.__name__}.{e.method}"
    source = textwrap.dedent(inspect.getsource(e.owner))
    lines = source.splitlines()
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef))
    defs = [n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name == e.method]
    out = []
    for d in defs:
        overload = any(ast.unparse(x) in ("overload", "typing.overload") for x in d.decorator_list)
        variant = _variant(where, d, overload)
        if overload:  # an overlap pragma stays with the stub
            text = "\n".join(lines[d.lineno - 1 : d.end_lineno])
            pragma = re.search(r"# type: ignore\[[^\]]*\]", text)
            if pragma:
                variant = evolve(variant, comment="  " + pragma.group(0))
        out.append(variant)
    if not out or out[-1].overload or any(not v.overload for v in out[:-1]):
        raise TypeError(f"{where}: expected overloads (if any) followed by one implementation")
    return out


def _variant(where: str, d: ast.FunctionDef, overload: bool) -> _Variant:
    a = d.args
    if a.posonlyargs or a.kwarg:
        raise TypeError(f"{where}: positional-only parameters and **kwargs are not supported")
    if not a.args or a.args[0].arg != "scope":
        raise TypeError(f"{where}: the first parameter must be 'scope'")
    if d.returns is None:
        raise TypeError(f"{where} needs a return annotation")

    def text(arg: ast.arg, default: ast.expr | None) -> str:
        out = arg.arg if arg.annotation is None else f"{arg.arg}: {ast.unparse(arg.annotation)}"
        return out if default is None else f"{out} = {ast.unparse(default)}"

    defaults: list[ast.expr | None] = [None] * (len(a.args) - len(a.defaults)) + [*a.defaults]
    params = [text(x, dv) for x, dv in zip(a.args, defaults, strict=True)][1:]
    args = [x.arg for x in a.args[1:]]
    if a.vararg is not None:
        params.append("*" + text(a.vararg, None))
        args.append(f"*{a.vararg.arg}")
    elif a.kwonlyargs:
        params.append("*")
    params += [text(x, dv) for x, dv in zip(a.kwonlyargs, a.kw_defaults, strict=True)]
    args += [f"{x.arg}={x.arg}" for x in a.kwonlyargs]
    every = [*a.args[1:], *([a.vararg] if a.vararg else []), *a.kwonlyargs]
    annotations = [ast.unparse(x.annotation) for x in every if x.annotation is not None]
    returns = ast.unparse(d.returns)
    return _Variant(params, args, returns, overload, [*annotations, returns])


def _docstring(fn: Callable[..., Any]) -> str:
    """The method's docstring without the ``scope`` argument, indented for a method body."""
    lines = (inspect.getdoc(fn) or "").splitlines()
    keep = []
    skipping = False
    for line in lines:
        if line.strip().startswith("scope:"):
            skipping = True
            continue
        if skipping and line.startswith("        "):
            continue
        skipping = False
        keep.append(line)
    body = "\n".join(("        " + line).rstrip() for line in keep).lstrip()
    return f'        """{body}\n        """\n'


def endpointMethod(e: Endpoint) -> str:
    """The facade method's text: its overloads, then the method that calls the endpoint."""
    out = []
    for v in _variants(e):
        params = ", ".join(["self", *v.params])
        if v.overload:
            out.append("    @overload\n" + _def(e.name, params, v.returns, "    ", stub=True,
                                                 comment=v.comment))
        else:
            call = ", ".join(["self._scope", *v.args])
            out.append(
                f"    def {e.name}({params}) -> {v.returns}:\n"
                + _docstring(e.function())
                + f"        return {e.owner.__name__}.{e.method}({call})\n"
            )
    return "\n".join(out)


def _names(annotation: str) -> set[str]:
    tree = ast.parse(annotation, mode="eval")
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def endpointImports(endpoints: Iterable[Endpoint], known: set[str]) -> str:
    """The imports the endpoints' facade methods need beyond the ``known`` names: each owner
    class, and each name an annotation uses, from the module that defines it."""
    wanted: dict[str, set[str]] = {}
    for e in endpoints:
        wanted.setdefault(e.owner.__module__, set()).add(e.owner.__name__)
        module = sys.modules[e.owner.__module__]
        for v in _variants(e):
            for name in set().union(*(_names(a) for a in v.annotations)) - known:
                if name == e.owner.__name__ or hasattr(builtins, name):
                    continue
                obj = vars(module).get(name)
                origin = getattr(obj, "__module__", None)
                if obj is None or origin is None or vars(sys.modules[origin]).get(name) is not obj:
                    raise TypeError(
                        f"{e.owner.__name__}.{e.method}: cannot tell where '{name}' (used in "
                        f"an annotation) is defined; import it by name in {module.__name__}"
                    )
                wanted.setdefault(origin, set()).add(name)
    return "".join(
        f"from {m} import {', '.join(sorted(names))}\n" for m, names in sorted(wanted.items())
    )


def endpointSignatures(e: Endpoint) -> list[str]:
    """The static method's and the facade's signatures, as a reader wants to see them."""
    call = f"tf.{e.name}" if e.group == "core" else f"tf.{e.group}.{e.name}"
    lines = []
    for callee, first in ((f"{e.owner.__name__}.{e.method}", ["scope: Scope"]), (call, [])):
        variants = _variants(e)
        for v in variants[-1:] if len(variants) == 1 else variants[:-1]:
            params = ", ".join(first + v.params)
            one = f"{callee}({params}) -> {v.returns}"
            if len(one) > 88:
                one = (
                    f"{callee}(\n"
                    + "".join(f"    {p.strip()},\n" for p in _splitParams(params))
                    + f") -> {v.returns}"
                )
            lines.append(one)
    return lines


def endpointSummary(e: Endpoint) -> str:
    """The first line of the owner class's docstring, or of the method's where the class has
    several endpoints (``Shapes``) or is an op class (``Constant.arrayOf``)."""
    shared = sum(other.owner is e.owner for other in registeredEndpoints()) > 1
    if shared or hasattr(e.owner, "OP_NAME"):
        doc = inspect.getdoc(e.function()) or ""
    else:
        doc = inspect.getdoc(e.owner) or ""
    return doc.split("\n", 1)[0]
