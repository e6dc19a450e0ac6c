"""Activations by name: ``"relu"``, ``"sigmoid"``, ``"tanh"``, ``"softmax"``, ``"linear"``.

>>> import runtime as rt
>>> rt.keras.activations.get("relu")(rt.constant([-1.0, 2.0])).numpy()
array([0., 2.], dtype=float32)
"""

from __future__ import annotations

from runtime.ops import math_ops, nn_ops


def relu(x):
    """``max(x, 0)``."""
    return nn_ops.relu(x)


def sigmoid(x):
    """``1 / (1 + exp(-x))``."""
    return math_ops.sigmoid(x)


def tanh(x):
    """The hyperbolic tangent."""
    return math_ops.tanh(x)


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x))`` along ``axis``."""
    return nn_ops.softmax(x, axis=axis)


def linear(x):
    """``x`` unchanged (the activation of a layer given none)."""
    return x


_BY_NAME = {"relu": relu, "sigmoid": sigmoid, "tanh": tanh, "softmax": softmax, "linear": linear}


def get(identifier):
    """The activation named ``identifier``, a callable as it is, ``linear`` for None."""
    if identifier is None:
        return linear
    if callable(identifier):
        return identifier
    if isinstance(identifier, str) and identifier in _BY_NAME:
        return _BY_NAME[identifier]
    raise ValueError(
        f"Unknown activation function: {identifier!r}. Use one of {sorted(_BY_NAME)} or a callable."
    )


def name_of(activation):
    """The name Keras shows for an activation function."""
    return getattr(activation, "__name__", type(activation).__name__)
