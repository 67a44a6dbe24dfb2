"""More activations (``tfops.op.nn``): LeakyRelu, Selu, Softsign, Softplus, with their gradient
ops.
"""
