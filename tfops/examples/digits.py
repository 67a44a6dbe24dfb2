"""scikit-learn's bundled digits, the data set of the examples: 1797 images of 8x8 pixels valued
0 to 16 (no download), split once into the same 3/4 to train on and 1/4 to test with."""

from __future__ import annotations

from typing import Any

import numpy as np
from attrs import frozen
from numpy.typing import NDArray

__all__ = ["Digits", "loadDigits"]

Array = np.ndarray[Any, Any]


@frozen
class Digits:
    """A train/test split of the digits: images and labels of each part."""

    xTrain: Array
    yTrain: Array
    xTest: Array
    yTest: Array


def loadDigits(
    trainSize: int | None = None,
    testSize: int | None = None,
    *,
    pixels: type[np.generic] = np.float64,
    labels: type[np.generic] = np.int64,
    flat: bool = True,
) -> Digits:
    """The digits shuffled once with seed 0, 3/4 to train and 1/4 to test; ``trainSize`` and
    ``testSize`` keep only the first images of each part (for quick runs).

    Images are of dtype ``pixels``: a float type scales them to [0, 1], an integer type keeps
    the values 0 to 16. ``flat`` gives them as rows of 64 pixels, else as ``[n, 8, 8]``.
    """
    data, target = _sklearnDigits()
    x = data if flat else np.reshape(data, (-1, 8, 8))  # as sklearn's digits.images
    if np.issubdtype(pixels, np.floating):
        x = x.astype(pixels) / pixels(16.0)
    else:
        x = x.astype(pixels)
    y = target.astype(labels)
    order = np.random.RandomState(0).permutation(len(y))
    split = len(y) * 3 // 4
    train, test = order[:split][:trainSize], order[split:][:testSize]
    return Digits(x[train], y[train], x[test], y[test])


def _sklearnDigits() -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """scikit-learn's digits: the pixels as 1797 rows of 64, and the labels. The examples' one
    call into scikit-learn, which ships no type information: the two ignores below say so to
    pyright (the module has no stubs; the values ``load_digits`` returns have no known type),
    and the arrays leave this function typed."""
    from sklearn.datasets import load_digits  # type: ignore[import-untyped]  # pyright: ignore[reportMissingTypeStubs]

    pixels, labels = load_digits(return_X_y=True)  # pyright: ignore[reportUnknownVariableType]
    return np.asarray(pixels, np.float64), np.asarray(labels, np.int64)
