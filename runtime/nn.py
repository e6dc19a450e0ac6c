"""Neural-network activations: ``rt.nn.relu``, ``rt.nn.softmax``."""

from runtime.ops.math_ops import relu, sigmoid, softmax, tanh

__all__ = ["relu", "sigmoid", "softmax", "tanh"]
