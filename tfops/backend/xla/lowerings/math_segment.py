"""The XLA lowerings of :mod:`tfops.spec.math_segment`."""
