"""The XLA lowerings of :mod:`tfops.spec.linalg_solve`."""
