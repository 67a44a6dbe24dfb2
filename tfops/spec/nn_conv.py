"""Convolution ops (``tfops.op.nn``): Conv2D, its backprops, DepthwiseConv2dNative."""
