"""Renders ``Constant``'s hand-written factories (``create``, ``scalarOf``, ``vectorOf``,
``arrayOf``, ``tensorOf``), typed by overloads on the value, and the value tables the facade's
``tf.constant`` and ``tf.variable`` share."""

from __future__ import annotations

from collections.abc import Sequence

from tfops.op._gen_text import _def

# A numpy array keeps its dtype, as numpy's stubs know it (``np.zeros(3)`` is float64), through
# a type variable bounded by each numpy type (``tfops/op/_typevars.py``), so that mypy reads a
# numpy call written in the argument from the call. float64 comes first: pyright gives an
# array whose dtype the stubs do not know (``np.array([1, 2])``) the first overload that
# matches, mypy gives it ``Any``.
_ARRAY_DTYPES: tuple[tuple[str, str], ...] = (
    ("NDArray[NpFloat64]", "TFloat64"),
    ("NDArray[NpFloat32]", "TFloat32"),
    ("NDArray[NpFloat16]", "TFloat16"),
    ("NDArray[NpInt64]", "TInt64"),
    ("NDArray[NpInt32]", "TInt32"),
    ("NDArray[NpUint8]", "TUint8"),
    ("NDArray[NpBool]", "TBool"),
)


# What the implementation of an overloaded ``Constant`` factory returns: the data type classes
# are invariant, so no one ``Constant[X]`` holds each overload's result.
ANY_CONSTANT = " | ".join(
    f"Constant[{t}]"
    for t in ("TBool", "TFloat16", "TFloat32", "TFloat64", "TInt32", "TInt64", "TUint8", "TType")
)


# What a value without an explicit data type becomes, in the order a type checker tries them,
# as ``Constant.create`` and the conversion of inputs decide at run time: numpy scalars keep
# their type (before ``float``: ``np.float64`` is a ``float``), Python bools are ``TBool``, ints
# ``TInt32`` (an int too large for int32 is ``TInt64`` at run time: give the dtype to say so),
# floats ``TFloat32``. Numpy arrays and deeper nesting are some ``TType``.
_VALUE_TYPES: tuple[tuple[str, str], ...] = (
    ("bool | np.bool_ | Sequence[bool] | Sequence[Sequence[bool]]", "TBool"),
    ("np.float16", "TFloat16"),
    ("np.float32", "TFloat32"),
    ("np.float64", "TFloat64"),
    ("np.int32", "TInt32"),
    ("np.int64", "TInt64"),
    ("np.uint8", "TUint8"),
    *_ARRAY_DTYPES,
    ("int | Sequence[int] | Sequence[Sequence[int]]", "TInt32"),
    ("float | Sequence[float] | Sequence[Sequence[float]]", "TFloat32"),
    ("TensorValue", "TType"),
)


# ``Constant.create`` and ``tf.constant`` also take a static shape, as TF Java's
# ``tf.constant(Shape)``: its dimensions as a ``TInt64`` vector.
_CREATE_TYPES: tuple[tuple[str, str], ...] = (("_shape.Shape", "TInt64"), *_VALUE_TYPES)


_SCALAR_TYPES = (("bool", "TBool"), ("int", "TInt32"), ("float", "TFloat32"))


# TF Java's ``Constant.arrayOf`` overloads (one per Java element type), as the data types the
# elements give: numpy scalars keep theirs (``np.int64`` for Java's ``long``), Python bools are
# ``TBool``, ints ``TInt32``, floats ``TFloat32``.
_ARRAY_TYPES = (
    ("bool | np.bool_", "TBool"),
    ("np.float16", "TFloat16"),
    ("np.float32", "TFloat32"),
    ("np.float64", "TFloat64"),
    ("np.int32", "TInt32"),
    ("np.int64", "TInt64"),
    ("np.uint8", "TUint8"),
    ("int", "TInt32"),
    ("float", "TFloat32"),
    ("float | int | bool | np.generic", "TType"),  # elements of several kinds
)


_VECTOR_TYPES = (
    ("Sequence[bool]", "TBool"),
    ("Sequence[int]", "TInt32"),
    ("Sequence[float]", "TFloat32"),
)


# To a type checker a bool is an int, an np.float64 a float, and numpy's stubs make an
# np.float16 an np.float32 and that an np.float64 (an np.int32 an np.int64): mypy reads an
# overload that returns another type for such a narrower value as overlapping the broader one.
# The first matching overload is the one that applies, which is the run-time rule. Which pairs
# mypy flags depends on numpy's stubs: ``unused-ignore`` keeps the comment quiet where another
# numpy version does not flag one.
_OVERLAPPING = frozenset(
    {"bool", "np.float16", "np.float32", "np.float64", "np.int32", *(a for a, _ in _ARRAY_DTYPES)}
)


_VECTOR_OVERLAPPING = frozenset({"Sequence[bool]"})


_OVERLAP = "  # type: ignore[overload-overlap, unused-ignore]"


def _overloads(
    name: str,
    first: str,
    valueParam: str,
    anyValue: str,
    values: Sequence[tuple[str, str]],
    static: bool = False,
) -> str:
    """``@overload`` stubs of a ``Constant`` factory: with a ``dtype``, then one per value type.

    Args:
        name: the function's name.
        first: its first parameter (``scope: Scope`` or ``self``).
        valueParam: the name of the value parameter.
        anyValue: the annotation of any value, with an explicit ``dtype``.
        values: the value annotations and the data types they become, as ``_VALUE_TYPES``.
        static: whether the stubs are static methods.
    """
    deco = "    @overload\n" + ("    @staticmethod\n" if static else "")
    explicit = f"{first}, {valueParam}: {anyValue}, dtype: type[T]"
    out = [deco + _def(name, explicit, "Constant[T]", "    ", stub=True)]
    last = values[-1][0]
    for annotation, dtype in values:
        params = f"{first}, {valueParam}: {annotation}, dtype: None = None"
        overlaps = annotation.split(" | ")[0] in _OVERLAPPING or annotation in _VECTOR_OVERLAPPING
        ignore = _OVERLAP if overlaps and annotation != last else ""
        out.append(
            deco + _def(name, params, f"Constant[{dtype}]", "    ", stub=True, comment=ignore)
        )
    return "\n".join(out)


def _arrayOfOverloads() -> str:
    """The ``@overload`` stubs of ``Constant.arrayOf``, one per element type."""
    out = []
    for annotation, dtype in _ARRAY_TYPES:
        overlaps = annotation.split(" | ")[0] in _OVERLAPPING
        out.append(
            "    @overload\n    @staticmethod\n"
            + _def(
                "arrayOf",
                f"scope: Scope, *data: {annotation}",
                f"Constant[{dtype}]",
                "    ",
                stub=True,
                comment=_OVERLAP if overlaps else "",
            )
        )
    return "\n".join(out)


def _constantMethods() -> str:
    """The hand-written methods of ``Constant``, typed by overloads on the value."""
    return _methods().replace("ANY_CONSTANT", ANY_CONSTANT)


def _methods() -> str:
    return "".join(
        [
            _overloads(
                "create",
                "scope: Scope",
                "value",
                "TensorValue | _shape.Shape",
                _CREATE_TYPES,
                True,
            ),
            '''
    @staticmethod
    def create(
        scope: Scope, value: TensorValue | _shape.Shape, dtype: type[T] | None = None
    ) -> Constant[T] | ANY_CONSTANT:
        """Factory method to create a class wrapping a new Const operation.

        Without ``dtype``, a Python ``bool`` is ``TBool``, an ``int`` ``TInt32`` (``TInt64``
        when it does not fit), a ``float`` ``TFloat32``; numpy arrays and scalars keep their
        dtype; a static ``Shape`` is the ``TInt64`` vector of its dimensions (-1 for an
        unknown one, as TF Java's ``tf.constant(Shape)``). Type checkers see the same rules,
        and ``Constant[TType]`` for numpy arrays: give ``dtype`` to have the precise type.

        Args:
            scope: current scope.
            value: the value of the constant: a number, a bool, a (nested) sequence of them,
                a numpy array, or a ``Shape``.
            dtype: the data type of the constant; by default inferred from ``value``.

        Returns:
            a new instance of Constant.

        Raises:
            ValueError: ``value`` is a ``Shape`` of unknown rank.
        """
        if isinstance(value, _shape.Shape):
            dims = value.asArray()
            if dims is None:
                raise ValueError("Constant: a shape of unknown rank has no dimensions to hold")
            value = np.array(dims, np.int64)
        return Constant(build(scope, "Const", (), {"value": value, "dtype": dtype}))

''',
            _overloads(
                "scalarOf", "scope: Scope", "value", "float | int | bool", _SCALAR_TYPES, True
            ),
            '''
    @staticmethod
    def scalarOf(
        scope: Scope, value: float | int | bool, dtype: type[T] | None = None
    ) -> Constant[T] | ANY_CONSTANT:
        """Creates a constant containing a single element (Java's ``Constant.scalarOf``).

        Args:
            scope: current scope.
            value: the value of the constant.
            dtype: the data type of the constant; by default inferred from ``value``.

        Returns:
            a new instance of Constant.
        """
        return Constant(build(scope, "Const", (), {"value": value, "dtype": dtype}))

''',
            _overloads(
                "vectorOf",
                "scope: Scope",
                "values",
                "Sequence[float | int | bool]",
                _VECTOR_TYPES,
                True,
            ),
            '''
    @staticmethod
    def vectorOf(
        scope: Scope, values: Sequence[float | int | bool], dtype: type[T] | None = None
    ) -> Constant[T] | ANY_CONSTANT:
        """Creates a rank-1 constant (Java's ``Constant.vectorOf``).

        Args:
            scope: current scope.
            values: the elements of the constant.
            dtype: the data type of the constant; by default inferred from ``values``.

        Returns:
            a new instance of Constant.
        """
        return Constant(build(scope, "Const", (), {"value": list(values), "dtype": dtype}))

''',
            _arrayOfOverloads(),
            '''
    @staticmethod
    def arrayOf(scope: Scope, *data: float | int | bool | np.generic) -> ANY_CONSTANT:
        """Creates a rank-1 constant of the elements given (Java's ``Constant.arrayOf``).

        The data type is the elements': Python bools ``TBool``, ints ``TInt32``, floats
        ``TFloat32``, numpy scalars their own (``np.int64(3)`` for Java's ``long``).

        Args:
            scope: current scope.
            data: the elements, at least one.

        Returns:
            a new instance of Constant.

        Raises:
            ValueError: no element is given (the data type would be unknown).
        """
        if not data:
            raise ValueError(
                "Constant.arrayOf: give at least one element (or use vectorOf with a dtype)"
            )
        value = np.array(data) if isinstance(data[0], np.generic) else list(data)
        return Constant(build(scope, "Const", (), {"value": value, "dtype": None}))

''',
            _overloads("tensorOf", "scope: Scope", "values", "TensorValue", _VALUE_TYPES, True),
            '''
    @staticmethod
    def tensorOf(
        scope: Scope, values: TensorValue, dtype: type[T] | None = None
    ) -> Constant[T] | ANY_CONSTANT:
        """Creates a constant of any rank (Java's ``Constant.tensorOf``).

        Args:
            scope: current scope.
            values: the value of the constant: a (nested) sequence or a numpy array.
            dtype: the data type of the constant; by default inferred from ``values``.

        Returns:
            a new instance of Constant.
        """
        return Constant(build(scope, "Const", (), {"value": values, "dtype": dtype}))
''',
        ]
    )
