"""The package as installed: its version, license and declared minimum versions."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import tomllib

import tfops

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".")[:2])


def test_versionIsTheDistributions() -> None:
    assert tfops.__version__ == PROJECT["version"]
    assert PROJECT["name"] == "tfops-java"  # "tfops" on the package index is another project


def test_licenseIsApache2AsTensorFlow() -> None:
    assert PROJECT["license"] == "Apache-2.0"
    assert "Apache License" in (ROOT / "LICENSE").read_text()
    assert "Version 2.0" in (ROOT / "LICENSE").read_text()


def test_thisRunMeetsTheDeclaredMinimums() -> None:
    """CI installs the newest numpy and runs Python 3.11: the declared minimums are not older
    than what is tested (an older numpy or Python is not claimed to work)."""
    python = PROJECT["requires-python"].removeprefix(">=")
    assert sys.version_info[:2] >= _version(python)
    numpy = next(d for d in PROJECT["dependencies"] if d.startswith("numpy"))
    assert _version(np.__version__) >= _version(numpy.removeprefix("numpy>="))
