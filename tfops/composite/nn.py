"""Neural network composites (``tf.nn``): dropout."""
