"""Specification of behaviours where tfops follows TensorFlow 2.21 in its corners: NaN in
ArgMax/ArgMin, means of no integers, Prod's gradient at inf and NaN, float16 sums accumulated in
float32, the options GatherV2 ``batch_dims`` and BiasAdd ``NCHW``, construction rules, and
static shapes computed from shape-valued subgraphs. The expected values were produced with
TensorFlow 2.21 (CPU); every kernel test runs on both backends."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from opchecks import FLOATS, NUMBERS, assertMatches

from tfops import Ops
from tfops.types import TInt64, TType

Array = np.ndarray[Any, Any]
Run = Callable[..., Any]
NAN, INF = np.nan, np.inf


def typeIds(dtype: type[TType]) -> str:
    return str(dtype.NAME)


# -- ArgMax, ArgMin: NaN is skipped ----------------------------------------------------------
# TensorFlow's reduction starts from index 0 holding the lowest finite value (the highest for
# ArgMin) and moves only to a strictly larger (smaller) value: NaN never wins, nor does -inf
# (inf) or the lowest (highest) finite value over the start.
@pytest.mark.parametrize("dtype", FLOATS, ids=typeIds)
@pytest.mark.parametrize(
    ("value", "dimension", "argMax", "argMin"),
    [
        pytest.param([[1, NAN, 3], [NAN, 2, 0]], 1, [2, 1], [0, 2], id="rows"),
        pytest.param([[1, NAN, 3], [NAN, 2, 0]], 0, [0, 1, 0], [0, 1, 1], id="columns"),
        pytest.param([[NAN, NAN, NAN], [NAN, 1, NAN]], 1, [0, 1], [0, 1], id="all nan"),
        pytest.param([[1, NAN, NAN], [INF, NAN, -INF]], 1, [0, 0], [0, 2], id="infinities"),
        pytest.param([[NAN, 5, NAN, 5], [3, NAN, 3, NAN]], 1, [1, 0], [1, 0], id="ties"),
        pytest.param([[-INF, NAN, -INF], [INF, INF, NAN]], 1, [0, 0], [0, 0], id="inf ties"),
        pytest.param([NAN, -INF, -INF], 0, 0, 1, id="-inf never beats the start"),
        pytest.param([NAN, INF, INF], 0, 1, 0, id="inf never beats the start of ArgMin"),
        pytest.param([2, -INF, NAN, -INF], 0, 0, 1, id="mixed"),
        pytest.param([NAN, NAN, -INF], 0, 0, 2, id="nan then -inf"),
        pytest.param("lowest", 0, 0, 1, id="the lowest finite value"),
        pytest.param("highest", 0, 1, 0, id="the highest finite value"),
    ],
)
def test_argMaxAndArgMinSkipNan(
    tf: Ops, run: Run, dtype: type[TType], value: Any, dimension: int, argMax: Any, argMin: Any
) -> None:
    if isinstance(value, str):
        info = np.finfo(dtype.DTYPE)
        value = [NAN, info.min if value == "lowest" else info.max]
    x = tf.constant(np.asarray(value, dtype.DTYPE))
    got = run(tf.math.argMax(x, dimension), tf.math.argMin(x, dimension))
    assertMatches(got[0], np.asarray(argMax), TInt64)
    assertMatches(got[1], np.asarray(argMin), TInt64)


def test_argMaxSkipsNanAlongLongRows(tf: Ops, run: Run) -> None:
    """As numpy's argmax/argmin with NaN replaced by -inf/inf, on rows of every length."""
    rng = np.random.default_rng(3)
    value = rng.standard_normal((3, 50, 7)).astype(np.float32)
    value[rng.random(value.shape) < 0.5] = NAN
    x = tf.constant(value)
    got = run(tf.math.argMax(x, 1), tf.math.argMin(x, 1))
    missing = np.isnan(value)
    assertMatches(got[0], np.argmax(np.where(missing, -INF, value), 1), TInt64)
    assertMatches(got[1], np.argmin(np.where(missing, INF, value), 1), TInt64)


# -- Mean of no elements ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", NUMBERS, ids=typeIds)
@pytest.mark.parametrize(
    ("axis", "keep", "shape"),
    [(1, False, (2, 3)), ([0, 1], False, (3,)), ([0, 1, 2], False, ()), (1, True, (2, 1, 3))],
    ids=str,
)
def test_meanOfNoElementsIsNanOrZero(
    tf: Ops, run: Run, dtype: type[TType], axis: Any, keep: bool, shape: tuple[int, ...]
) -> None:
    """As TensorFlow: NaN (0 / 0) for floats, 0 for integers (no division error)."""
    m = tf.math.mean(tf.constant(np.zeros((2, 0, 3), dtype.DTYPE)), axis, keepDims=keep)
    expected = np.full(shape, NAN if dtype in FLOATS else 0, dtype.DTYPE)
    assertMatches(run(m), expected, dtype)
