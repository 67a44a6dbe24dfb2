"""The numpy kernels of :mod:`tfops.spec.random_more`."""
