"""Renders the ``Ops`` facade (``tfops/ops.py``) from the op definitions."""

from __future__ import annotations

import ast

from tfops.composite import Endpoint
from tfops.op._gen_classes import IMPORTS, _Op
from tfops.op._gen_composite import endpointImports, endpointMethod
from tfops.op._gen_constant import (
    _CREATE_TYPES,
    _OVERLAP,
    _OVERLAPPING,
    _VALUE_TYPES,
    ANY_CONSTANT,
    _overloads,
)
from tfops.op._gen_handwritten import CALLABLE_GROUP, STRIDED_SLICE_FACADE
from tfops.op._gen_text import HEADER, _all, _def, _params, _wrap

# Facade methods written by hand (below) instead of from the op's create: Java's
# ``Ops.variable(init)`` creates a variable from its initial value.
HANDWRITTEN_FACADE = frozenset({"variable"})


def _variableFacade() -> str:
    """Java's ``Ops.variable(init)``: typed by overloads on the initial value, as constants."""
    deco = "    @overload\n"
    out = [
        deco
        + _def(
            "variable", "self, init: _shape.Shape, dtype: type[T]", "Variable[T]", "    ", stub=True
        ),
        deco + _def("variable", "self, init: Operand[T]", "Variable[T]", "    ", stub=True),
    ]
    for annotation, dtype in _VALUE_TYPES:
        ignore = _OVERLAP if annotation.split(" | ")[0] in _OVERLAPPING else ""
        out.append(
            deco
            + _def(
                "variable",
                f"self, init: {annotation}",
                f"Variable[{dtype}]",
                "    ",
                stub=True,
                comment=ignore,
            )
        )
    return (
        "\n"
        + "\n".join(out)
        + '''
    def variable(
        self, init: Operand[T] | TensorValue | _shape.Shape, dtype: type[T] | None = None
    ) -> Variable[T]:
        """Creates a variable initialized to ``init`` (Java's ``Ops.variable(init)``), or of a
        shape and data type, without an initializer (Java's ``Ops.variable(shape, dtype)``).

        The variable and its initializer are built in the init scope: a session runs the
        initializer before its next run (``Session(graph, autoInit=False)``: at
        ``session.initialize()``). The variable has the data type a constant of ``init`` has.
        A variable made from a shape and data type has no value until an ``assign`` runs.

        Args:
            init: the initial value, whose shape and data type are the variable's; or, with
                ``dtype``, the variable's ``Shape``.
            dtype: the data type of a variable given by its shape.

        Returns:
            a new instance of Variable.
        """
        if isinstance(init, _shape.Shape):
            if dtype is None:
                raise DataTypeError(
                    f"tf.variable({init!r}): a variable declared by its shape needs a data "
                    f"type too: tf.variable({init!r}, TFloat32); for a variable initialized to "
                    "the shape's dimensions, give tf.constant(shape)"
                )
            return Variable.create(self._scope, init, dtype)
        if dtype is not None:
            raise DataTypeError(
                f"tf.variable(init, dtype): {init!r} is not a Shape; a variable takes its "
                "data type from its initial value (tf.variable(init)), or is declared by shape "
                "and data type (tf.variable(Shape.of(2, 3), TFloat32)); to change init's data "
                "type, cast it: tf.variable(tf.dtypes.cast(init, TFloat32))"
            )
        return variableWithInit(self._scope, init)
'''
    )


_EXTRA_FACADE = '''
    def init(self) -> NoOp:
        """Returns an op that runs every initializer registered so far (``tf.init()``).

        A session initializes by itself; running this op runs the initializers again.

        Returns:
            a new instance of NoOp.
        """
        return initOp(self._scope)

    @overload
    def gradients(
        self,
        y: Operand[T2] | Sequence[Operand[T2]],
        x: Sequence[Operand[T]],
        *options: Gradients.Options,
    ) -> Gradients[T]: ...

    @overload
    def gradients(
        self,
        y: AnyOperand | Sequence[AnyOperand],
        x: Sequence[AnyOperand],
        *options: Gradients.Options,
    ) -> Gradients[TType]: ...

    def gradients(
        self,
        y: Operand[T2] | Sequence[Operand[T2]] | AnyOperand | Sequence[AnyOperand],
        x: Sequence[Operand[T]] | Sequence[AnyOperand],
        *options: Gradients.Options,
    ) -> Gradients[T] | Gradients[TType]:
        """Adds operations to compute the partial derivatives of sum of ``y`` w.r.t. ``x``.

        ``dy(i)`` has ``x[i]``'s data type (a ``Gradients[T]`` for ``x`` of one type ``T``,
        a ``Gradients[TType]`` for several); it is ``None`` for an ``x`` that no ``y`` depends
        on (unless the option ``Gradients.unconnectedGradients("zero")`` is given), which
        its type leaves out (``dy()`` lists them typed with ``None``).

        Args:
            y: output(s) of the function to derive.
            x: inputs of the function to derive.
            options: ``Gradients.dx(...)``, ``Gradients.unconnectedGradients(...)``.

        Returns:
            a new instance of Gradients.
        """
        ys = cast("AnyOperand | Sequence[AnyOperand]", y)  # (one overload for both cases)
        return Gradients.create(self._scope, ys, cast("Sequence[AnyOperand]", x), *options)
'''


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


_OPS_CLASS = """

class _DefaultEnvironment:
    \"\"\"What ``Ops.create()`` builds into when given nothing: the default eager session (a
    ``None`` given by mistake is still an error).\"\"\"

    def __repr__(self) -> str:
        return "EagerSession.getDefault()"


_DEFAULT_ENVIRONMENT = cast("ExecutionEnvironment", _DefaultEnvironment())


@final
class Ops:
    \"\"\"An API for building operations as Operation classes, as TensorFlow Java's ``Ops``.

    ``tf = Ops.create(graph)``; core ops are methods (``tf.constant``, ``tf.stopGradient``), the
    others are in groups (``tf.math.exp``). Each ``with...`` method returns a new ``Ops`` whose
    scope is changed accordingly.

    Args:
        scope: the scope new operations are added with.

    Example:
        >>> g = Graph(); tf = Ops.create(g)
        >>> x = tf.withName("x").constant([1.0, 2.0])
        >>> y = tf.withSubScope("layer").math.exp(x)
        >>> x.op().name(), y.op().name()
        ('x', 'layer/Exp')
    \"\"\"

    __slots__ = ("_scope"{SLOTS})

    # what Ops.create() builds into: the default EagerSession (installed by tfops.eager)
    _defaultEnvironment: ClassVar[list[Callable[[], ExecutionEnvironment]]] = []

    def __init__(self, scope: Scope) -> None:
        self._scope = scope
{NONES}{GROUP_FIELDS}
    @staticmethod
    def create(env: ExecutionEnvironment = _DEFAULT_ENVIRONMENT) -> Ops:
        \"\"\"Creates an API for building operations in ``env``: a ``Graph``, or an
        ``EagerSession`` whose ops run when created; with no ``env``, the default eager session
        (``EagerSession.getDefault()``), as TF Java's ``Ops.create()``.

        Args:
            env: the execution environment new operations are added to.

        Returns:
            a new ``Ops`` whose scope is the root scope of ``env``.

        Raises:
            TypeError: ``env`` is not an execution environment (a ``Graph`` or an
                ``EagerSession``).
        \"\"\"
        if env is _DEFAULT_ENVIRONMENT and Ops._defaultEnvironment:
            env = Ops._defaultEnvironment[0]()
        if not isinstance(env, ExecutionEnvironment):
            raise DataTypeError(
                f"Ops.create(env): {env!r} is not an execution environment; give the Graph to "
                "build in: Ops.create(graph), or nothing for the default eager session: "
                "Ops.create()"
            )
        return Ops(Scope(env))

    def scope(self) -> Scope:
        \"\"\"Returns the current scope.\"\"\"
        return self._scope
{GETATTR}
    def withSubScope(self, childScopeName: str) -> Ops:
        \"\"\"Returns an API that builds operations under a new sub-scope.

        Args:
            childScopeName: the name of the sub-scope (made unique, as op names are).

        Returns:
            a new ``Ops`` that adds operations under ``childScopeName/``.
        \"\"\"
        return Ops(self._scope.withSubScope(childScopeName))

    def withName(self, opName: str) -> Ops:
        \"\"\"Returns an API that names the next operation ``opName``.

        Args:
            opName: the name of the next operation.

        Returns:
            a new ``Ops`` whose next operation is named ``opName``.
        \"\"\"
        return Ops(self._scope.withName(opName))

    def withControlDependencies(self, controls: Iterable[HasOp | Operation]) -> Ops:
        \"\"\"Returns an API whose operations run after ``controls``.

        Args:
            controls: operations (or op classes) that must run first.

        Returns:
            a new ``Ops`` whose operations have ``controls`` as control inputs.
        \"\"\"
        return Ops(self._scope.withControlDependencies(controls))

    def withDevice(self, deviceSpec: str) -> Ops:
        \"\"\"Returns an API that places operations on ``deviceSpec``.

        Args:
            deviceSpec: the device, as TensorFlow spells it (``"/cpu:0"``).

        Returns:
            a new ``Ops`` whose operations are placed on ``deviceSpec``.
        \"\"\"
        return Ops(self._scope.withDevice(deviceSpec))

    def withInitScope(self) -> Ops:
        \"\"\"Returns an API whose operations are the graph's initializers.

        A session runs initializers once, before its first run after they were added (TF
        Java's ``Ops.withInitScope()``); the returned API has no control dependencies.

        Returns:
            a new ``Ops`` building initializers.
        \"\"\"
        return Ops(self._scope.withInitScope())
"""
