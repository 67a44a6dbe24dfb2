"""Rounding (``tfops.op.math``): Floor, Ceil, Round, Rint."""
