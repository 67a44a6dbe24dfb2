"""Trigonometric and hyperbolic functions and their inverses (``tfops.op.math``)."""
