"""Splitting and reversing (``tfops.op.core``): Split, SplitV, ReverseV2, ClipByValue, Where,
ListDiff.
"""
