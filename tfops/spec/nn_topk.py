"""Top-k ops (``tfops.op.nn``): TopKV2, InTopKV2."""
