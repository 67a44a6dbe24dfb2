"""The XLA lowerings of :mod:`tfops.spec.nn_activation`."""
