"""The math helper's ops against TensorFlow 2.21 (``tests/fixtures/tf/math.npz``, written by
``make_math.py``): values at edge inputs (signed zeros, infinities, nan, poles, ties, overflow)
in every data type, and float64 gradients, on both backends."""

from __future__ import annotations

import functools
import pathlib
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
import pytest
from opchecks import placeholder

from tfops import Ops
from tfops.types import (
    TBool,
    TFloat16,
    TFloat32,
    TFloat64,
    TInt32,
    TInt64,
    TType,
    TUint8,
)

Array = np.ndarray[Any, Any]
Run = Callable[..., Any]  # the conftest fixture: fetches in the test's session

FIXTURE = np.load(pathlib.Path(__file__).parents[1] / "fixtures" / "tf" / "math.npz")
TYPES: dict[str, type[TType]] = {t.DTYPE.name: t for t in (TFloat16, TFloat32, TFloat64, TInt32,
                                                              TInt64, TUint8, TBool)}
RTOL = {"float16": 1e-3, "float32": 1e-6, "float64": 1e-13}
"""Relative (and absolute) tolerance against TensorFlow's results, by data type: a few units in
the last place (TensorFlow's Eigen functions and numpy's or XLA's are different
approximations); integers and bools are exact."""

CALLS: dict[str, str] = {
    "Sin": "math.sin", "Cos": "math.cos", "Tan": "math.tan", "Asin": "math.asin",
    "Acos": "math.acos", "Atan": "math.atan", "Sinh": "math.sinh", "Cosh": "math.cosh",
    "Asinh": "math.asinh", "Acosh": "math.acosh", "Atanh": "math.atanh", "Atan2": "math.atan2",
    "Floor": "math.floor", "Ceil": "math.ceil", "Round": "math.round", "Rint": "math.rint",
    "Mod": "math.mod", "TruncateMod": "math.truncateMod", "TruncateDiv": "math.truncateDiv",
    "BitwiseAnd": "bitwise.bitwiseAnd", "BitwiseOr": "bitwise.bitwiseOr",
    "BitwiseXor": "bitwise.bitwiseXor",
    "IsInf": "math.isInf", "Erf": "math.erf", "Erfc": "math.erfc", "Lgamma": "math.lgamma",
    "Digamma": "math.digamma", "Polygamma": "math.polygamma", "Zeta": "math.zeta",
    "Xlogy": "math.xlogy", "Xdivy": "math.xdivy",
}
"""The ops compared, by facade method."""

NEAR = {"Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh",
        "Atan2", "Erf", "Erfc", "Lgamma", "Digamma", "Polygamma", "Zeta", "Xlogy", "Xdivy"}
"""Ops whose float results may differ from TensorFlow's by a few units in the last place where
they are not zero, infinite or nan (at those they agree exactly, signed zeros included); the
other ops' results are exactly TensorFlow's."""


DIFFERENCES: dict[tuple[str, str], tuple[Callable[[Array], Array], Callable[[Array], Array]]] = {
    # TensorFlow 2.21's float64 erf is NaN where x^2 overflows (|x| >= 1.34e154, infinities
    # included); tfops gives erf's limits -1 and 1 there.
    ("Erf", "float64"): (lambda x: np.abs(x) >= 1.34e154, np.sign),
}
"""Where tfops knowingly differs from TensorFlow (as its op docs say): (op, dtype) -> (where,
tfops' value there); TensorFlow's value must be NaN at those points."""


def facade(tf: Ops, name: str) -> Callable[..., Any]:
    return functools.reduce(getattr, CALLS[name].split("."), tf)  # type: ignore[no-any-return]


def keys(what: str) -> list[Any]:
    """``(op, dtype)`` for each result of an op compared (``what``: ``z`` or ``dx``/``dx0``)."""
    found = sorted({tuple(k.split("/")[:2]) for k in FIXTURE.files
                    if k.endswith(f"/{what}") and k.split("/")[0] in CALLS})
    return [pytest.param(op, dtype, id=f"{op}-{dtype}") for op, dtype in found]


def onGpu(backend: str) -> bool:
    """Whether ``backend`` runs on a GPU here (the XLA backend, where JAX's default is one)."""
    return backend == "xla" and jax.default_backend() == "gpu"


def assertClose(
    got: Array, expected: Array, dtype: str, name: str, nanSigns: bool = True
) -> None:
    """``got`` is TensorFlow's CPU result ``expected``; with ``nanSigns``, the sign bits of its
    nans too (a CPU's default nan is negative, a GPU's positive: compare them off a GPU only)."""
    assert got.dtype == expected.dtype and got.shape == expected.shape
    if dtype not in RTOL or name not in NEAR:
        np.testing.assert_array_equal(got, expected)
        if dtype in RTOL:  # the signs of zeros (and of nans)
            compared = np.ones(expected.shape, bool) if nanSigns else ~np.isnan(expected)
            np.testing.assert_array_equal(
                np.signbit(got[compared]), np.signbit(expected[compared])
            )
        return
    tol = RTOL[dtype]
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol, equal_nan=True)
    special = ~np.isfinite(expected)  # infinities and nan exactly, zeros with their signs
    np.testing.assert_array_equal(got[special], expected[special])
    zeros = (got == 0) & (expected == 0)
    np.testing.assert_array_equal(np.signbit(got[zeros]), np.signbit(expected[zeros]))


def inputsOf(op: str, dtype: str, prefix: str = "") -> list[Array]:
    if f"{op}/{dtype}/{prefix}x" in FIXTURE.files:
        return [FIXTURE[f"{op}/{dtype}/{prefix}x"]]
    return [FIXTURE[f"{op}/{dtype}/{prefix}x0"], FIXTURE[f"{op}/{dtype}/{prefix}x1"]]


@pytest.mark.parametrize(("op", "dtype"), keys("z"))
def test_valuesAreTensorFlows(tf: Ops, run: Run, backend: str, op: str, dtype: str) -> None:
    values = inputsOf(op, dtype)
    xs = [placeholder(tf, TYPES[dtype], v.shape) for v in values]
    z = facade(tf, op)(*xs)
    got = run(z, feeds=dict(zip(xs, values, strict=True)))
    expected = FIXTURE[f"{op}/{dtype}/z"]
    if (op, dtype) in DIFFERENCES:
        where, ours = DIFFERENCES[op, dtype]
        differs = where(values[0])
        assert differs.any() and np.isnan(expected[differs]).all()
        expected = np.where(differs, ours(values[0]), expected).astype(expected.dtype)
    assertClose(got, expected, dtype, op, nanSigns=not onGpu(backend))


@pytest.mark.parametrize(("op", "dtype"), keys("gradx") + keys("gradx0"))
def test_gradientsAreTensorFlows(tf: Ops, run: Run, op: str, dtype: str) -> None:
    values = inputsOf(op, dtype, "grad")
    xs = [placeholder(tf, TFloat64, v.shape) for v in values]
    grads = tf.gradients(facade(tf, op)(*xs), xs)
    names = ["dx"] if len(xs) == 1 else ["dx0", "dx1"]
    for i, name in enumerate(names):
        key = f"{op}/{dtype}/{name}"
        if key not in FIXTURE.files:  # TensorFlow has no gradient for this input
            assert grads.dy(i) is None
            continue
        dy = grads.dy(i)
        assert dy is not None
        got = run(dy, feeds=dict(zip(xs, values, strict=True)))
        np.testing.assert_allclose(got, FIXTURE[key], rtol=1e-12, atol=1e-12)
