"""TensorFlow Java's training framework (``org.tensorflow.framework``) over tfops graphs.

``tfops.framework.optimizers``: gradient optimizers whose ``minimize(loss)`` builds the
training step.
``tfops.framework.losses``: losses and their reductions.
``tfops.framework.activations``: activation functions.
"""
