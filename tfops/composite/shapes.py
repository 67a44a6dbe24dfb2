"""Shape helpers (``tf.shape``): TF Java's ``Shapes``."""
