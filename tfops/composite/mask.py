"""Masking composites (``tf``): booleanMask, booleanMaskUpdate."""
