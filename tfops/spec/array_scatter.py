"""Scatter and gather by index tuples (``tfops.op.core``): GatherNd, ScatterNd,
TensorScatterUpdate/Add.
"""
