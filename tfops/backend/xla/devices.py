"""TensorFlow device specifications (``/device:GPU:0``) and the JAX devices they name."""

from __future__ import annotations

from typing import Any

import jax

from tfops.backend.requests import DeviceName, describe, parseDevice

__all__ = ["DeviceName", "describe", "parseDevice", "resolveDevice"]


def _platform(kind: str) -> str:
    return {"gpu": "gpu", "cuda": "gpu", "rocm": "gpu", "cpu": "cpu", "tpu": "tpu"}.get(kind, kind)


def resolveDevice(name: DeviceName) -> Any | None:
    """The JAX device of ``name``, or ``None`` when this process has none such."""
    kind, index = name
    try:
        devices = jax.devices(_platform(kind))
    except RuntimeError:  # no backend for this platform
        return None
    if index < 0:
        return devices[0] if devices else None
    return devices[index] if index < len(devices) else None
