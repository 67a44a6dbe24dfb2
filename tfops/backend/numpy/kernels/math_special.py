"""The numpy kernels of :mod:`tfops.spec.math_special`."""
