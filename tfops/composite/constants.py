"""Constant helpers: TF Java's ``tf.array``, ``Constant.arrayOf``, ``tf.constant(Shape)``."""
