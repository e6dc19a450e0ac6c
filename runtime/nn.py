"""Neural-network activations: ``rt.nn.relu``, ``rt.nn.softmax``."""

from runtime.ops.math_ops import sigmoid, tanh
from runtime.ops.nn_ops import relu, softmax

__all__ = ["relu", "sigmoid", "softmax", "tanh"]
