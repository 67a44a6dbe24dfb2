"""Pooling ops (``tfops.op.nn``): MaxPool, AvgPool and their gradient ops."""
