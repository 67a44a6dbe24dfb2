"""The numpy kernels of :mod:`tfops.spec.nn_topk`."""
