"""Renders the op classes of one group (``tfops/op/<group>.py``) from the op definitions."""

from __future__ import annotations

import textwrap

from tfops.op._gen_constant import _constantMethods
from tfops.op._gen_text import HEADER, _all, _def, _item, _params, _wrap
from tfops.opdef import AttrDef, InputDef, OpDef
from tfops.types import ALL_TYPES, TFloating, TIntegral, TNumber, TType

# Every name a generated module may use; ruff drops the unused ones (``formatSources``).
IMPORTS = (
    "from __future__ import annotations\n\n"
    "from collections.abc import Iterable, Iterator, Sequence\n"
    "from typing import Final, Generic, cast, final, overload\n\n"
    "import numpy as np\n"
    "from numpy.typing import NDArray\n"
    "from attrs import frozen\n\n"
    "from scope import ExecutionEnvironment, HasOp, Scope\n"
    "from tfops import shape as _shape\n"
    "from tfops._operators import Operators\n"
    "from tfops.op._build import build\n"
    "from tfops.op._typevars import TF, TI, TN, T, TF2, TI2, TI3, TN2, T2, TF_co, TI_co, TN_co, "
    "T_co, NpBool, NpFloat16, NpFloat32, NpFloat64, NpInt32, NpInt64, NpUint8\n"
    "from tfops.operation import Operation\n"
    "from tfops.output import Operand, Output, PrimitiveOp\n"
    f"from tfops.types import {', '.join(t.__name__ for t in ALL_TYPES)}, "
    "TFloating, TIntegral, TNumber, TType, TensorValue\n"
)

# The type variable for a set of allowed types: the narrowest family that holds them all.
_FAMILIES = ((TFloating, "TF"), (TIntegral, "TI"), (TNumber, "TN"), (TType, "T"))


_KIND_TYPES = {
    "bool": "bool",
    "int": "int",
    "float": "float",
    "shape": "_shape.Shape",
    "type": "type[TType]",
    "string": "str",
    "list(int)": "Sequence[int]",
    "tensor": "TensorValue",
}


# TF Java's second names of an op (one spec, several names): ``tf.reduceSum`` beside
# ``tf.sum``, each a facade method of its own that builds the op, and the class name
# (``ReduceSum``) bound to the op's class. Keyed by op type: (facade name, class name) pairs.
ALIASES: dict[str, tuple[tuple[str, str], ...]] = {
    "Sum": (("reduceSum", "ReduceSum"),),
    "Max": (("reduceMax", "ReduceMax"),),
    "Min": (("reduceMin", "ReduceMin"),),
    "Prod": (("reduceProd", "ReduceProd"),),
    "All": (("reduceAll", "ReduceAll"),),
    "Any": (("reduceAny", "ReduceAny"),),
}


# Hand-written classes that live beside the generated ones, with their facade methods.
_EXTRA_IMPORTS = {"core": "Gradients"}


def _family(allowed: tuple[type[TType], ...]) -> tuple[str, str]:
    """The type variable and bound class for an attribute's allowed types.

    A type checker then rejects what is outside the family (a ``TBool`` given to ``Exp``); the
    exact set (``Cumsum`` takes no ``TUint8``...) is checked when the op is created.
    """
    if len(allowed) == 1:
        return ("", allowed[0].__name__)
    for family, typeVar in _FAMILIES:
        if allowed and all(issubclass(t, family) for t in allowed):
            return (typeVar, family.__name__)
    return ("T", "TType")


class _Op:
    """What the templates need to know about one definition."""

    def __init__(self, d: OpDef) -> None:
        self.d = d
        self.cls = d.className or d.type
        self.facade = d.facadeName or (self.cls[0].lower() + self.cls[1:])
        self.aliases = ALIASES.get(d.type, ())
        main = next((o.typeAttr for o in d.outputs if o.typeAttr), None)
        self.mainAttr = main
        mainDef = d.attrDef(main) if main else None
        self.typeVar, self.bound = _family(mainDef.allowed) if mainDef else ("", "")
        # the class's own parameter (invariant) is distinct from create's type variable
        self.classVar = f"{self.typeVar}_co" if self.typeVar else ""
        self.inputVars = self._inputVars()
        self.options = [a for a in d.attrs if a.option]
        self.params = [a for a in d.attrs if a.param]
        self.ret = f"{self.cls}[{self.typeVar}]" if self.typeVar else self.cls
        # An output type that no input or parameter determines is set by an option (ArgMax's
        # outputType) or defaults: create is overloaded on the option, whose Options class is
        # generic. With other options beside it, create returns the family.
        self.typeOption: AttrDef | None = None
        determined = any(i.typeAttr == main for i in d.inputs) or any(
            a.name == main for a in self.params
        )
        if mainDef is not None and self.typeVar and not determined and d.type != "Const":
            if mainDef.option and len(self.options) == 1 and isinstance(mainDef.default, type):
                self.typeOption = mainDef
            else:
                self.ret = f"{self.cls}[{self.bound}]"

    def _inputVars(self) -> dict[str, str]:
        """A type variable of ``create`` for each type attribute of the inputs other than the
        main one: the inputs it types must have one data type (``Less(x, y)``, the two ``Tidx``
        of ``Slice``), which a family bound (``Operand[TIntegral]``) would not say."""
        used = {self.typeVar} if self.typeVar else set()
        found: dict[str, str] = {}
        for i in self.d.inputs:
            attr = i.typeAttr
            if i.dtype is not None or attr is None or attr in found:
                continue
            if attr == self.mainAttr and self.typeVar:
                continue
            spec = self.d.attrDef(attr)
            family = _family(spec.allowed)[0] if spec else ""
            if not family:
                continue
            name = next(n for n in (family, f"{family}2", f"{family}3") if n not in used)
            used.add(name)
            found[attr] = name
        return found

    def outputType(self, typeAttr: str | None, dtype: type[TType] | None) -> str:
        """The data type of an output inside the class (the class's parameter)."""
        if dtype is not None:
            return dtype.__name__
        if typeAttr == self.mainAttr and self.typeVar:
            return self.classVar
        spec = self.d.attrDef(typeAttr) if typeAttr else None
        return _family(spec.allowed)[1] if spec else "TType"

    def inputAnnotation(self, i: InputDef) -> str:
        if i.dtype is not None:
            inner = i.dtype.__name__
        elif i.typeAttr == self.mainAttr and self.typeVar:
            inner = self.typeVar
        elif i.typeAttr in self.inputVars:
            inner = self.inputVars[i.typeAttr]
        else:
            spec = self.d.attrDef(i.typeAttr) if i.typeAttr else None
            inner = _family(spec.allowed)[1] if spec else "TType"
        one = f"Operand[{inner}] | TensorValue"
        return f"Sequence[{one}]" if i.isList else one

    def paramAnnotation(self, a: AttrDef) -> str:
        if a.kind == "type" and a.name == self.mainAttr and self.typeVar:
            return f"type[{self.typeVar}]"
        if a.kind == "type":
            return f"type[{_family(a.allowed)[1]}]"
        return _KIND_TYPES[a.kind]

    def optionAnnotation(self, a: AttrDef, typeVar: str) -> str:
        """The type of option ``a``'s value; ``typeVar`` for the option that sets the type."""
        if a is self.typeOption:
            return f"type[{typeVar}]"
        return self.paramAnnotation(a)

    def keywords(self, typeVar: str) -> list[tuple[str, str]]:
        """The keyword-only options of ``create`` and the facade method: (name, annotation)."""
        return [(a.option or a.name, self.optionAnnotation(a, typeVar)) for a in self.options]

    def optionsType(self, typeVar: str) -> str | None:
        """The annotation of ``*options`` (``Options[typeVar]`` when it carries the type)."""
        if not self.options:
            return None
        return f"{self.cls}.Options[{typeVar}]" if self.typeOption else f"{self.cls}.Options"

    def signature(self) -> list[tuple[str, str, str]]:
        """(name, annotation, doc) of the create parameters after ``scope``."""
        sig = [(i.name, self.inputAnnotation(i), i.doc) for i in self.d.inputs]
        sig += [(a.param or a.name, self.paramAnnotation(a), a.doc) for a in self.params]
        return sig

    def classDoc(self) -> str:
        d = self.d
        body = [_wrap(d.summary, "    "), "", _wrap(d.description, "    ")]
        if d.example:
            body += ["", "    Example:", textwrap.indent(d.example, "        ")]
        return '    """' + "\n".join(body).lstrip() + '\n    """\n'

    def argsDoc(self, indent: str, withScope: bool) -> str:
        lines = [f"{indent}Args:"]
        if withScope:
            lines.append(f"{indent}    scope: current scope.")
        for name, _, doc in self.signature():
            lines.append(_item(f"{name}: {doc}.", indent + "    "))
        if self.options:
            names = ", ".join(f"``{self.cls}.{a.option}(...)``" for a in self.options)
            lines.append(
                _item(f"options: carries optional attribute values ({names}).", indent + "    ")
            )
        for a in self.options:
            lines.append(_item(f"{a.option}: {a.doc} (the same as the option).", indent + "    "))
        return "\n".join(lines)

    def createOverloads(
        self, first: str, indent: str, static: bool, facade: str | None = None
    ) -> str:
        """For an op typed by an option: ``create`` without it, then with it given either as
        an ``Options`` object or as a keyword (``facade``: the facade method's name)."""
        assert self.typeOption is not None and isinstance(self.typeOption.default, type)
        deco = f"{indent}@overload\n" + (f"{indent}@staticmethod\n" if static else "")
        name = "create" if static else (facade or self.facade)
        sig = self.signature()
        default = f"{self.cls}[{self.typeOption.default.__name__}]"
        keyword = self.typeOption.option or self.typeOption.name
        return (
            deco
            + _def(name, _params(sig, None, first), default, indent, stub=True)
            + "\n"
            + deco
            + _def(
                name,
                _params(sig, self.optionsType(self.typeVar), first),
                self.ret,
                indent,
                stub=True,
            )
            + "\n"
            + deco
            + _def(
                name,
                _params(sig, None, first) + f", *, {keyword}: type[{self.typeVar}]",
                self.ret,
                indent,
                stub=True,
            )
            + "\n"
        )


def renderClass(op: _Op) -> str:
    d = op.d
    base = f"PrimitiveOp, Generic[{op.classVar}]" if op.classVar else "PrimitiveOp"
    if len(d.outputs) == 1 and not d.outputs[0].countAttr:  # one tensor: x + y, x[1:]...
        t = op.outputType(d.outputs[0].typeAttr, d.outputs[0].dtype)
        base = f"PrimitiveOp, Operators[{t}]" + (f", Generic[{op.classVar}]" if op.classVar else "")
    out = [f"@final\nclass {op.cls}({base}):\n", op.classDoc(), "\n"]
    out.append(f'    OP_NAME: Final = "{d.type}"\n\n')
    slots = ", ".join(f'"_{o.name}"' for o in d.outputs)
    out.append(f"    __slots__ = ({slots}{',' if len(d.outputs) == 1 else ''})\n\n")
    if op.options:
        # not the class's parameter: a nested class cannot take its enclosing class's
        generic = f"(Generic[{op.typeVar}])" if op.typeOption else ""
        out.append(f"    @frozen\n    class Options{generic}:\n")
        out.append(f'        """Optional attributes for :class:`{op.cls}`."""\n\n')
        for a in op.options:
            out.append(f"        {a.option}: {op.optionAnnotation(a, op.typeVar)} | None = None\n")
        out.append("\n")
    out.append("    def __init__(self, operation: Operation) -> None:\n")
    # PrimitiveOp.__init__'s one assignment, and the outputs the op made (``output(i)`` without
    # its range check): made once per op built, so without the calls
    out.append("        self._operation = operation\n")
    for i, o in enumerate(d.outputs):
        t = op.outputType(o.typeAttr, o.dtype)
        if o.countAttr:  # a list output is the op's only output
            out.append(
                f'        self._{o.name} = [cast("Output[{t}]", o) for o in operation.outputs()]\n'
            )
        elif len(d.outputs) == 1:  # held by the op (an eager op's, weakly: output(0) makes it)
            out.append("        out = operation._out\n")
            out.append(
                f'        self._{o.name} = cast("Output[{t}]", '
                "out if out is not None else operation.output(0))\n"
            )
        else:
            out.append(f'        self._{o.name} = cast("Output[{t}]", operation._outs[{i}])\n')
    out.append("\n")
    if d.type == "Const":
        out.append(_constantMethods())
    else:
        ret, optionsType = op.ret, op.optionsType(op.typeVar)
        if op.typeOption:
            out.append(op.createOverloads("scope: Scope", "    ", static=True))
            ret = f"{op.cls}[{op.typeVar}]"
        params = _params(op.signature(), optionsType, "scope: Scope", op.keywords(op.typeVar))
        out.append("    @staticmethod\n")
        out.append(_def("create", params, ret, "    "))
        out.append(
            '        """'
            + _wrap(
                f"Factory method to create a class wrapping a new {d.type} operation.", "        "
            ).lstrip()
            + "\n\n"
            f"{op.argsDoc('        ', True)}\n\n"
            f"        Returns:\n            a new instance of {op.cls}.\n"
            '        """\n'
        )
        inputs = "".join(f"{i.name}, " for i in d.inputs)
        attrs = ", ".join(
            [f'"{a.name}": {a.param}' for a in op.params]
            + [f'"{a.name}": {a.option}' for a in op.options]
        )
        inputTuple = inputs.rstrip(", ") + ("," if len(d.inputs) == 1 else "")
        call = f'scope, "{d.type}", ({inputTuple}), {{{attrs}}}'
        call += ", options" if op.options else ""
        out.append(f"        operation = build({call})\n")
        out.append(f"        return {op.cls}(operation)\n")
    for a in op.options:
        t = op.optionAnnotation(a, op.typeVar)
        out.append(
            f"\n    @staticmethod\n"
            f"    def {a.option}({a.option}: {t}) -> {op.optionsType(op.typeVar)}:\n"
            f'        """Sets the ``{a.option}`` option.\n\n'
            f"        Args:\n{_item(f'{a.option}: {a.doc}.', '            ')}\n\n"
            f"        Returns:\n            this Options instance.\n"
            '        """\n'
            f"        return {op.cls}.Options({a.option}={a.option})\n"
        )
    for o in d.outputs:
        t = op.outputType(o.typeAttr, o.dtype)
        kind = f"list[Output[{t}]]" if o.countAttr else f"Output[{t}]"
        out.append(
            f"\n    def {o.name}(self) -> {kind}:\n"
            f"{_wrap(f'''{chr(34) * 3}Returns {o.doc}.{chr(34) * 3}''', '        ')}\n"
            f"        return {'list(' if o.countAttr else ''}self._{o.name}"
            f"{')' if o.countAttr else ''}\n"
        )
        if o.countAttr:
            out.append(
                f"\n    def __iter__(self) -> Iterator[Output[{t}]]:\n"
                f'        """Iterates over {o.doc}."""\n'
                f"        return iter(self._{o.name})\n"
            )
    if len(d.outputs) == 1 and not d.outputs[0].countAttr:
        o = d.outputs[0]
        t = op.outputType(o.typeAttr, o.dtype)
        out.append(
            f"\n    def asOutput(self) -> Output[{t}]:\n"
            '        """Returns the symbolic handle of the tensor."""\n'
            f"        return self._{o.name}\n"
        )
    return "".join(out)


_SHADOWING = frozenset({"Shape", "Graph", "Operation", "Output", "Operand", "Session", "Ops"})
"""Names of ``tfops``'s own classes: an op class so named stays out of its module's
``__all__``, so that ``from tfops.op.core import *`` after ``from tfops import Shape`` does not
replace ``tfops.Shape`` by the ``Shape`` op."""


def renderGroup(group: str, ops: list[_Op]) -> str:
    """The text of ``tfops/op/<group>.py``, before :func:`formatSources`."""
    aliases = [(alias, op.cls) for op in ops for _, alias in op.aliases]
    names = [op.cls for op in ops] + [alias for alias, _ in aliases]
    names += ["Gradients"] if group in _EXTRA_IMPORTS else []
    hidden = [n for n in names if n in _SHADOWING]
    names = [n for n in names if n not in _SHADOWING]
    doc = (
        f'"""The {group} ops.\n\n'
        + _wrap(", ".join(op.cls for op in ops) + ".", "")
        + "\n\nEach class wraps one operation type; ``create`` adds a new operation to a "
        "scope's graph.\nThe examples assume ``import numpy as np``, ``from tfops import Graph, "
        "Ops, Session,\nShape`` and ``from tfops.types import *``.\n"
        + (
            f"\n{', '.join(f'``{n}``' for n in hidden)} (the op) "
            f"{'is' if len(hidden) == 1 else 'are'} left out of ``__all__``, so that "
            "``from tfops.op."
            f"{group} import *`` keeps\n``tfops.{hidden[0]}``: import "
            f"{'it' if len(hidden) == 1 else 'them'} by name, or use the facade "
            f"(``tf.{hidden[0][:1].lower() + hidden[0][1:]}(x)``).\n"
            if hidden
            else ""
        )
        + '"""\n\n'
    )
    body = "\n\n".join(renderClass(op) for op in ops)
    extra = "from tfops.op._gradients_op import Gradients\n" if group in _EXTRA_IMPORTS else ""
    if aliases:
        body += (
            "\n\n# TF Java's second names of these classes (the same op type, one class)\n"
            + "".join(f"{alias} = {cls}\n" for alias, cls in aliases)
        )
    withOptions = [op.cls for op in ops if op.options]
    if withOptions:
        # an option called on an op already built (tf.max(x, 0).keepDims(True), as Java
        # builders chain) is an error saying to pass it to create; type checkers see the
        # static methods as written
        extra += "from typing import TYPE_CHECKING\nfrom tfops._hints import optionsOnClassOnly\n"
        body += f"\n\nif not TYPE_CHECKING:\n    optionsOnClassOnly({', '.join(withOptions)})\n"
    return HEADER + doc + IMPORTS + extra + "\n" + _all(names) + "\n\n" + body
