"""The XLA lowerings of :mod:`tfops.spec.array_scatter`."""
