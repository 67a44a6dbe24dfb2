"""Normalization ops (``tfops.op.nn``): LRN, FusedBatchNormV3 and their gradient ops."""
