"""The numpy kernels of :mod:`tfops.spec.linalg_matrix`."""
