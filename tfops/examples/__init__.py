"""Runnable examples: ``python -m tfops.examples.<name> [--backend {numpy,xla}]``.

Every example takes the backend its sessions run on as a parameter, ``backend`` (its ``Config``'s
field where it has one), of the type ``Session(graph, backend=...)`` takes: a backend's name or a
:class:`~tfops.backend.Backend` object; on the command line, ``--backend`` (default ``numpy``).
"""

from __future__ import annotations

import argparse

from tfops.backend import backendNames


def addBackendOption(parser: argparse.ArgumentParser) -> None:
    """Adds ``--backend {numpy,xla}`` (default ``numpy``) to an example's command line."""
    parser.add_argument("--backend", choices=backendNames(), default="numpy",
                        help="the backend every session runs on (default: numpy; xla needs "
                             "the extra tfops[xla])")
