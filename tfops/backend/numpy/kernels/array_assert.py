"""The numpy kernels of :mod:`tfops.spec.array_assert`."""
