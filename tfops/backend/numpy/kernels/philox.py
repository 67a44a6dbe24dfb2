"""TensorFlow's Philox 4x32-10 stream and its conversions to floats, as its stateless random
kernels use them on the CPU, written once for an array module (numpy here; the XLA lowerings
give JAX's).

A seed ``(s0, s1)`` (two 64-bit integers) becomes a key and a 128-bit counter by one Philox
call; output group ``g`` (4 float32 or float16 values, 2 float64 values) is the Philox block of
counter ``+ g``. Uniform floats take random mantissa bits; normal values come from the
Box-Muller transform of two uniform numbers. A truncated normal group ``g`` reads, one word at
a time, the stretch of the stream that starts ``g * 256`` blocks on (128 for float64), and keeps
the values below 2 in magnitude.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

MASK = 0xFFFFFFFF
_MULTIPLIERS = (0xD2511F53, 0xCD9E8D57)
_WEYL = (0x9E3779B9, 0xBB67AE85)
_SEED_KEY = (0x3EC8F720, 0x02461E29)
RESERVED_WORDS = 256  # TensorFlow's words reserved per truncated normal output value
TWO_PI = 2.0 * math.pi

Bitcast = Callable[[Any, Any], Any]
Transcendental = Callable[[str, Any, Any], Any]


class Philox:
    """Philox 4x32-10 and TensorFlow's samplers over the array module ``xp``: ``bitcast(x,
    dtype)`` reinterprets bits, ``precise(name, x, dtype)`` computes ``log``, ``sin`` or
    ``cos`` of ``x`` and rounds it to ``dtype``."""

    def __init__(self, xp: Any, bitcast: Bitcast, precise: Transcendental) -> None:
        self.xp = xp
        self.bitcast = bitcast
        self.precise = precise

    # -- the stream --------------------------------------------------------------------------
    def rounds(self, counter: tuple[Any, ...], key: tuple[Any, Any]) -> tuple[Any, ...]:
        """Ten Philox rounds of ``counter`` (four arrays of 32-bit words held in uint64)."""
        xp = self.xp
        mask = xp.uint64(MASK)
        c0, c1, c2, c3 = counter
        k0, k1 = key
        for _ in range(10):
            p0 = xp.uint64(_MULTIPLIERS[0]) * c0
            p1 = xp.uint64(_MULTIPLIERS[1]) * c2
            c0, c1, c2, c3 = ((p1 >> xp.uint64(32)) ^ c1 ^ k0, p1 & mask,
                              (p0 >> xp.uint64(32)) ^ c3 ^ k1, p0 & mask)
            k0 = (k0 + xp.uint64(_WEYL[0])) & mask
            k1 = (k1 + xp.uint64(_WEYL[1])) & mask
        return c0, c1, c2, c3

    def seedKeyCounter(self, seed: Any) -> tuple[tuple[Any, Any], tuple[Any, ...]]:
        """TensorFlow's key and counter for ``seed`` (two int64 values)."""
        xp = self.xp
        bits = self.bitcast(seed, xp.uint64)
        mask, shift = xp.uint64(MASK), xp.uint64(32)
        counter = (bits[0] & mask, bits[0] >> shift, bits[1] & mask, bits[1] >> shift)
        mixed = self.rounds(counter, (xp.uint64(_SEED_KEY[0]), xp.uint64(_SEED_KEY[1])))
        return (mixed[0], mixed[1]), (xp.uint64(0), xp.uint64(0), mixed[2], mixed[3])

    def blocks(self, stream: tuple[Any, Any], offsets: Any) -> Any:
        """The Philox blocks at ``counter + offsets`` (uint64 offsets): ``[..., 4]`` words."""
        xp = self.xp
        key, counter = stream
        mask, shift = xp.uint64(MASK), xp.uint64(32)
        low = counter[0] + (offsets & mask)
        middle = counter[1] + (offsets >> shift) + (low >> shift)
        high = counter[2] + (middle >> shift)
        top = counter[3] + (high >> shift)
        words = self.rounds((low & mask, middle & mask, high & mask, top & mask), key)
        return xp.stack(words, axis=-1)

    # -- the conversions ---------------------------------------------------------------------
    def float32(self, x: Any) -> Any:
        xp = self.xp
        bits = ((x & xp.uint64(0x7FFFFF)) | xp.uint64(0x3F800000)).astype(xp.uint32)
        return self.bitcast(bits, xp.float32) - xp.float32(1.0)

    def float16(self, x: Any) -> Any:
        xp = self.xp
        bits = ((x & xp.uint64(0x3FF)) | xp.uint64(15 << 10)).astype(xp.uint16)
        return self.bitcast(bits, xp.float16) - xp.float16(1.0)

    def float64(self, x0: Any, x1: Any) -> Any:
        xp = self.xp
        mantissa = ((x0 & xp.uint64(0xFFFFF)) << xp.uint64(32)) | x1
        return self.bitcast(mantissa | xp.uint64(1023 << 52), xp.float64) - xp.float64(1.0)

    def boxMuller32(self, x0: Any, x1: Any) -> tuple[Any, Any]:
        xp, f32 = self.xp, self.xp.float32
        u1 = xp.maximum(self.float32(x0), f32(1.0e-7))
        v1 = (TWO_PI * self.float32(x1).astype(xp.float64)).astype(f32)
        u2 = xp.sqrt(f32(-2.0) * self.precise("log", u1, f32))
        return self.precise("sin", v1, f32) * u2, self.precise("cos", v1, f32) * u2

    def boxMuller64(self, x0: Any, x1: Any, x2: Any, x3: Any) -> tuple[Any, Any]:
        xp, f64 = self.xp, self.xp.float64
        u1 = xp.maximum(self.float64(x0, x1), f64(1.0e-7))
        v1 = TWO_PI * self.float64(x2, x3)
        u2 = xp.sqrt(f64(-2.0) * self.precise("log", u1, f64))
        return self.precise("sin", v1, f64) * u2, self.precise("cos", v1, f64) * u2

    def perBlock(self, dtype: Any) -> int:
        """Values per Philox block: 2 for float64, else 4."""
        return 2 if np.dtype(dtype) == np.float64 else 4

    def normals(self, words: Any, dtype: Any) -> Any:
        """The Box-Muller values of blocks ``words`` (``[..., 4]``): ``[..., 4]`` float32 for
        float32 and float16 (not yet rounded to float16), ``[..., 2]`` float64."""
        xp = self.xp
        if np.dtype(dtype) == np.float64:
            return xp.stack(self.boxMuller64(*(words[..., i] for i in range(4))), axis=-1)
        a = self.boxMuller32(words[..., 0], words[..., 1])
        b = self.boxMuller32(words[..., 2], words[..., 3])
        return xp.stack([a[0], a[1], b[0], b[1]], axis=-1)

    # -- the samplers ------------------------------------------------------------------------
    def _groups(self, stream: tuple[Any, Any], size: int, dtype: Any) -> Any:
        count = -(-size // self.perBlock(dtype))
        return self.blocks(stream, self.xp.arange(count, dtype=self.xp.uint64))

    def uniform(self, stream: tuple[Any, Any], size: int, dtype: Any) -> Any:
        xp, words = self.xp, self._groups(stream, size, dtype)
        if np.dtype(dtype) == np.float64:
            values = xp.stack([self.float64(words[:, 0], words[:, 1]),
                               self.float64(words[:, 2], words[:, 3])], axis=-1)
        elif np.dtype(dtype) == np.float16:
            values = self.float16(words)
        else:
            values = self.float32(words)
        return values.reshape(-1)[:size]

    def normal(self, stream: tuple[Any, Any], size: int, dtype: Any) -> Any:
        values = self.normals(self._groups(stream, size, dtype), dtype)
        return values.reshape(-1)[:size].astype(dtype)

    def truncatedNormal(self, stream: tuple[Any, Any], size: int, dtype: Any) -> Any:
        """Group by group as TensorFlow, the groups still short of values drawing one more
        block each round."""
        xp = np
        per = self.perBlock(dtype)
        groups = -(-size // per)
        skip = per * RESERVED_WORDS // 4
        work = np.float64 if np.dtype(dtype) == np.float64 else np.float32
        values = xp.zeros((groups, per), work)
        found = xp.zeros(groups, np.int64)
        pending = xp.arange(groups, dtype=np.uint64)
        step = 0
        while pending.size:
            words = self.blocks(stream, pending * np.uint64(skip) + np.uint64(step))
            drawn = self.normals(words, dtype)
            kept = np.abs(drawn) < 2.0
            rows = pending.astype(np.int64)
            slot = found[rows][:, None] + np.cumsum(kept, axis=1) - 1
            write = kept & (slot < per)
            values[np.broadcast_to(rows[:, None], slot.shape)[write], slot[write]] = drawn[write]
            found[rows] += kept.sum(axis=1)
            pending = pending[found[rows] < per]
            step += 1
        return values.reshape(-1)[:size].astype(dtype)


def _bitcast(x: Any, dtype: Any) -> Any:
    return np.asarray(x).view(dtype)


def _precise(name: str, x: Any, dtype: Any) -> Any:
    """Correctly rounded (nearly always) ``log``, ``sin``, ``cos``: computed in extended
    precision, rounded once."""
    function = {"log": np.log, "sin": np.sin, "cos": np.cos}[name]
    return function(np.asarray(x).astype(np.longdouble)).astype(dtype)


NUMPY = Philox(np, _bitcast, _precise)
"""The stream over numpy."""

