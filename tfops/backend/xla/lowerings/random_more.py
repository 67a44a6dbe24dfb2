"""The XLA lowerings of :mod:`tfops.spec.random_more`."""
