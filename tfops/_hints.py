"""Errors that teach: a name or keyword from TF Python, JAX or PyTorch, and the tfops one to use.

The facade's ``__getattr__`` (generated in ``tfops/ops.py``) and its keyword check call these
only on the error path, so they cost nothing when the code is right.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import re
from collections.abc import Callable, Mapping
from types import FunctionType

from tfops.errors import DataTypeError
from tfops.operation import userSite

__all__ = [
    "RENAMES",
    "missingMethod",
    "optionsOnClassOnly",
    "teachKeywords",
    "unknownKeywords",
]

RENAMES: Mapping[str, str] = {
    # TF Python (tf.*, tf.math.*, tf.nn.*, tf.random.*) -> tfops
    "reduce_sum": "tf.sum",
    "reduce_mean": "tf.math.mean",
    "reduce_max": "tf.max",
    "reduce_min": "tf.min",
    "reduce_prod": "tf.prod",
    "reduce_all": "tf.all",
    "reduce_any": "tf.any",
    "reduceMean": "tf.math.mean",
    "matmul": "tf.linalg.matMul",
    "matrix_transpose": "tf.linalg.transpose",
    "cast": "tf.dtypes.cast",
    "Variable": "tf.variable",
    "get_variable": "tf.variable",
    "convert_to_tensor": "tf.constant",
    "divide": "tf.math.div",
    "truediv": "tf.math.div",
    "multiply": "tf.math.mul",
    "subtract": "tf.math.sub",
    "negative": "tf.math.neg",
    "add_n": "tf.math.addN",
    "floordiv": "tf.math.floorDiv",
    "floormod": "tf.math.floorMod",
    "random_normal": "tf.random.randomStandardNormal",
    "normal": "tf.random.randomStandardNormal",
    "random_uniform": "tf.random.randomUniform",
    "uniform": "tf.random.randomUniform",
    "categorical": "tf.random.multinomial",
    "shuffle": "tf.random.randomShuffle",
    "global_variables_initializer": "tf.init",
    "initialize_all_variables": "tf.init",
    "variables_initializer": "tf.init",
    "no_op": "tf.noOp",
    "norm": "tf.linalg.euclideanNorm",
    "softmax_cross_entropy_with_logits_v2": "tf.nn.softmaxCrossEntropyWithLogits",
    "max_pool2d": "tf.nn.maxPool",
    "avg_pool2d": "tf.nn.avgPool",
    "GradientTape": "tf.gradients",
    # JAX / numpy
    "dot": "tf.linalg.matMul",
    "grad": "tf.gradients",
    "vjp": "tf.gradients",
    "asarray": "tf.constant",
    "array": "tf.constant",
    "concatenate": "tf.concat",
    "arange": "tf.range",
    "clip": "tf.clipByValue",
    "mean": "tf.math.mean",
    "argmax": "tf.math.argMax",
    "argmin": "tf.math.argMin",
    "astype": "tf.dtypes.cast",
    # PyTorch
    "mm": "tf.linalg.matMul",
    "bmm": "tf.linalg.batchMatMul",
    "tensor": "tf.constant",
    "cat": "tf.concat",
    "clamp": "tf.clipByValue",
    "unsqueeze": "tf.expandDims",
    "view": "tf.reshape",
    "permute": "tf.linalg.transpose",
    "detach": "tf.stopGradient",
    "flip": "tf.reverse",
    "expand": "tf.broadcastTo",
    "unbind": "tf.unstack",
    "randn": "tf.random.randomStandardNormal",
    "rand": "tf.random.randomUniform",
    "to": "tf.dtypes.cast",
    "backward": "tf.gradients",
}
"""Names people know that tfops spells otherwise (a snake_case name whose camelCase form is a
tfops method, such as ``gather_nd``, needs no entry)."""

_COMPOSED: Mapping[str, str] = {
    "relu_layer": "tf.nn.relu(tf.nn.biasAdd(tf.linalg.matMul(x, weights), biases))",
    "sigmoid_cross_entropy_with_logits": (
        "relu(x) - x * z + log1p(exp(-abs(x))) from tf.nn.relu, tf.math.mul, tf.math.exp, "
        "tf.math.abs and tf.math.log1p"
    ),
    "reduce_logsumexp": "tf.math.log(tf.sum(tf.math.exp(x), axis))",
    "numpy": "Session(graph).runner().fetch(x).run()[0]",
    "eval": "Session(graph).runner().fetch(x).run()[0]",
}
"""Names with no one tfops method, and how to write them."""


def _camel(name: str) -> str:
    """``gather_nd`` as ``gatherNd``; ``conv2d`` stays."""
    head, *rest = name.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest)


def _groups() -> dict[str, type]:
    """Each facade group's class by its prefix: ``""`` for ``Ops``, ``"math"`` for ``MathOps``."""
    # the facade imports this module, so it is imported here, on the error path only
    from tfops import ops

    found: dict[str, type] = {"": ops.Ops}
    for name in ops.__all__:
        if name.endswith("Ops") and name != "Ops":
            found[name[: -len("Ops")].lower()] = getattr(ops, name)
    return found


def _methods(cls: type) -> list[str]:
    return [n for n in dir(cls) if not n.startswith("_")]


def _path(group: str, name: str) -> str:
    return f"tf.{group}.{name}" if group else f"tf.{name}"


def missingMethod(obj: object, group: str, name: str) -> AttributeError:
    """The ``AttributeError`` for ``tf.<group>.<name>``, which does not exist: the tfops method
    that does what the name does in TF Python, JAX or PyTorch, or the closest names."""
    where = _path(group, name)
    site = userSite()
    if name.startswith("__") and name.endswith("__"):  # Python's own protocol look-ups
        return AttributeError(f"{type(obj).__name__!r} object has no attribute {name!r}")
    groups = _groups()
    target = RENAMES.get(name)
    if target is None:
        camel = _camel(name)
        candidates = tuple(dict.fromkeys((camel, camel[:1].lower() + camel[1:], name)))
        # the same name in another group, or its camelCase (tf.gather_nd -> tf.gatherNd)
        for g, cls in ([(group, groups[group])] if group in groups else []) + list(
            groups.items()
        ):
            for candidate in candidates:
                if candidate in _methods(cls) and (g, candidate) != (group, name):
                    target = _path(g, candidate)
                    break
            if target is not None:
                break
    if target is not None:
        return AttributeError(
            f"{where} does not exist (at {site}): tfops names its ops as TensorFlow Java "
            f"does; use {target}"
        )
    composed = _COMPOSED.get(name)
    if composed is not None:
        return AttributeError(
            f"{where} does not exist (at {site}): tfops has no single op for it; write "
            f"{composed}"
        )
    own = _methods(type(obj))
    close = difflib.get_close_matches(_camel(name), own, n=4, cutoff=0.6)
    close += [
        c for c in difflib.get_close_matches(name, own, n=4, cutoff=0.6) if c not in close
    ]
    hint = (
        f"; did you mean {', '.join(_path(group, c) for c in close)}?"
        if close
        else "; see docs/coming_from.md for the names TF Python, JAX and PyTorch users know"
    )
    return AttributeError(f"{where} does not exist (at {site}){hint}")


_KEYWORD_RE = re.compile(r"_([a-z0-9])")


def unknownKeywords(
    method: str,
    keywords: Mapping[str, object],
    params: tuple[str, ...],
    options: tuple[str, ...],
    owner: str,
) -> DataTypeError:
    """The ``TypeError`` for keyword arguments ``tf.<method>`` does not take: the tfops option
    that does it (``keepdims=True`` is ``Max.keepDims(True)``), or the parameter it has."""
    site = userSite()
    parts = []
    for key, value in keywords.items():
        camel = _KEYWORD_RE.sub(lambda m: m.group(1).upper(), key)
        option = _match(key, camel, options)
        param = _match(key, camel, params)
        if option is not None:
            parts.append(
                f"'{key}' is the option {owner}.{option}: pass {owner}.{option}({value!r}) "
                f"after the inputs (or the keyword {option}={value!r})"
            )
        elif param is not None:
            parts.append(f"'{key}' is the parameter '{param}': pass {param}={value!r}")
        else:
            parts.append(f"{method} has no parameter or option '{key}'")
    accepted = ", ".join(params) or "none"
    optional = ", ".join(f"{owner}.{o}(...)" for o in options) or "none"
    return DataTypeError(
        f"{method}() got keyword arguments it does not take (at {site}): {'; '.join(parts)} "
        f"(its parameters: {accepted}; its options: {optional})"
    )


def _match(key: str, camel: str, names: tuple[str, ...]) -> str | None:
    """The name among ``names`` that ``key`` (snake_case or a near miss) stands for."""
    for name in names:
        if name.lower() in (key.lower(), camel.lower(), key.replace("_", "").lower()):
            return name
    close = difflib.get_close_matches(camel, names, n=1, cutoff=0.75)
    return close[0] if close else None


def teachKeywords(*classes: type) -> None:
    """Makes each public method of the facade ``classes`` answer a keyword it does not take
    (``tf.max(x, 0, keepdims=True)``) with :func:`unknownKeywords`' error instead of Python's
    bare one. Signatures, docs and types stay the methods' own (``__wrapped__``)."""
    for cls in classes:
        prefix = "tf." if cls.__name__ == "Ops" else f"tf.{cls.__name__[: -len('Ops')].lower()}."
        for name, fn in list(vars(cls).items()):
            if isinstance(fn, FunctionType) and (not name.startswith("_") or name == "__call__"):
                method = prefix.rstrip(".") if name == "__call__" else prefix + name
                setattr(cls, name, _teaching(fn, method))


def _teaching(fn: Callable[..., object], method: str) -> Callable[..., object]:
    parameters = list(inspect.signature(fn).parameters.values())[1:]  # after self
    params = tuple(
        p.name for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    )
    options = tuple(p.name for p in parameters if p.kind is p.KEYWORD_ONLY)
    annotation = str(fn.__annotations__.get("options", fn.__annotations__.get("return", "")))
    owner = annotation.split("[")[0].split(".")[0].split(" ")[0]
    accepted = frozenset(params + options)
    refuse, missing = unknownKeywords, _badCall

    def method_(*args: object, **kwargs: object) -> object:
        try:
            return fn(*args, **kwargs)
        except TypeError as e:
            # only Python's own refusal of the call (raised before ``fn`` ran a line)
            if e.__traceback__ is None or e.__traceback__.tb_next is not None:
                raise
            unknown = {k: v for k, v in kwargs.items() if k not in accepted}
            if unknown:
                raise refuse(method, unknown, params, options, owner) from None
            raise missing(method, str(e), params) from None

    # the method's own globals, so that its annotations resolve where it was written
    code = method_.__code__
    assert isinstance(fn, FunctionType) and method_.__closure__ is not None
    wrapper = FunctionType(code, fn.__globals__, fn.__name__, None, method_.__closure__)
    return functools.update_wrapper(wrapper, fn)


def optionsOnClassOnly(*classes: type) -> None:
    """Makes the option factories of op ``classes`` (``Max.keepDims``) refuse to be called on
    an op already built: ``tf.max(x, 0).keepDims(True)`` would return an ``Options`` and leave
    the op unchanged; it raises an error naming the call to write instead."""
    for cls in classes:
        for name, member in list(vars(cls).items()):
            if (
                isinstance(member, staticmethod)
                and name != "create"
                and ".Options" in str(member.__func__.__annotations__.get("return", ""))
            ):
                setattr(cls, name, _OptionFactory(member.__func__, cls.__name__, name))


class _OptionFactory(staticmethod):  # type: ignore[type-arg]
    """A static option factory that an op instance does not have."""

    def __init__(self, fn: Callable[..., object], owner: str, name: str) -> None:
        super().__init__(fn)
        self._owner = owner
        self._name = name

    def __get__(self, obj: object, cls: type | None = None) -> Callable[..., object]:
        if obj is None:
            return self.__func__
        owner, name = self._owner, self._name

        def chained(*args: object, **kwargs: object) -> object:
            value = ", ".join([*map(repr, args), *(f"{k}={v!r}" for k, v in kwargs.items())])
            raise DataTypeError(
                f"{name}({value}) was called on the {owner} op {obj!r} (at {userSite()}): "
                f"options are given when the op is created, not chained on it afterwards: "
                f"pass {owner}.{name}({value}) after the inputs, as in "
                f"tf.<op>(inputs..., {owner}.{name}({value})) (or the keyword {name}={value})"
            )

        return chained


def _badCall(method: str, error: str, params: tuple[str, ...]) -> DataTypeError:
    """Python's refusal of a call to a facade method (a missing or extra argument), with the
    method's parameters and the user's line; a reduction without axes says how to reduce all."""
    reason = error.split("() ", 1)[-1]
    hint = ""
    if "'axis'" in reason and "missing" in reason:
        hint = (
            "; tfops reductions take their axes as TF Java's do (TF Python reduces every axis "
            f"when none is given): {method}(x, [0, 1]) for a matrix, or "
            f"{method}(x, tf.range(0, tf.rank(x), 1)) for any rank"
        )
    return DataTypeError(
        f"{method}() {reason} (at {userSite()}); its parameters: {', '.join(params) or 'none'}"
        f"{hint}"
    )
