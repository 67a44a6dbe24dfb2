"""Special functions (``tfops.op.math``): Erf, Erfc, Lgamma, Digamma, Xlogy, Xdivy, IsInf."""
