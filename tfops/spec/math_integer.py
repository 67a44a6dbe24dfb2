"""Integer division and bitwise ops (``tfops.op.math``, ``tfops.op.bitwise``): Mod, TruncateDiv,
TruncateMod, BitwiseAnd/Or/Xor.
"""
