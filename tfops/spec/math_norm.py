"""Norm reductions (``tfops.op.math``): EuclideanNorm."""
