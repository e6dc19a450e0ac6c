"""Neural networks: ``rt.nn.relu``, ``rt.nn.softmax``, ``rt.nn.sparse_softmax_cross_entropy_with_logits``."""

from runtime.ops.math_ops import sigmoid, tanh
from runtime.ops.nn_ops import relu, softmax, sparse_softmax_cross_entropy_with_logits

__all__ = ["relu", "sigmoid", "softmax", "sparse_softmax_cross_entropy_with_logits", "tanh"]
