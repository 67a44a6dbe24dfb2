"""Gradient optimizers (TensorFlow Java's ``org.tensorflow.framework.optimizers``).

``Optimizer(graph, learningRate, ...).minimize(loss)`` adds one training step to the graph: a
``NoOp`` that updates every variable ``loss`` depends on with TensorFlow's ``train.apply*``
ops, so that each step equals TensorFlow 1's optimizer of the same name (AdaMax: TensorFlow
Java's, over ``ApplyAdaMax``; Nadam: Keras 2's, which TensorFlow 1 lacks).
"""

from tfops.framework.optimizers._adadelta import AdaDelta
from tfops.framework.optimizers._adagrad import AdaGrad
from tfops.framework.optimizers._adagrad_da import AdaGradDA
from tfops.framework.optimizers._adam import Adam
from tfops.framework.optimizers._adamax import AdaMax
from tfops.framework.optimizers._base import GradAndVar, Optimizer
from tfops.framework.optimizers._ftrl import Ftrl
from tfops.framework.optimizers._gradient_descent import GradientDescent
from tfops.framework.optimizers._momentum import Momentum
from tfops.framework.optimizers._nadam import Nadam
from tfops.framework.optimizers._rmsprop import RMSProp

__all__ = ["AdaDelta", "AdaGrad", "AdaGradDA", "AdaMax", "Adam", "Ftrl", "GradAndVar",
           "GradientDescent", "Momentum", "Nadam", "Optimizer", "RMSProp"]
