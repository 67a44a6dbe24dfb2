"""The hand-written text of the ``Ops`` facade (``tfops/ops.py``): the ``Ops`` class itself
(``create``, ``scope`` and the ``with...`` methods, as TF Java's), ``tf.variable`` with its
overloads on the initial value, ``tf.init`` and ``tf.gradients``. ``renderFacade``
(``_gen_facade``) puts the generated op methods around it.
"""

from __future__ import annotations

from tfops.op._gen_constant import _OVERLAP, _OVERLAPPING, _VALUE_TYPES
from tfops.op._gen_text import _def


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
