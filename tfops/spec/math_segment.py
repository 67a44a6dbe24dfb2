"""Segment reductions and cumulative products (``tfops.op.math``)."""
