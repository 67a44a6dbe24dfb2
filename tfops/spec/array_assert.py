"""Run-time checks (``tfops.op.core``): Assert."""
