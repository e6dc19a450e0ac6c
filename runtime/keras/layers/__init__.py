"""``rt.keras.layers``: ``Layer`` and the core layers."""

from runtime.keras.layers.activation_layers import ELU, LeakyReLU, PReLU, ReLU, Softmax
from runtime.keras.layers.base import Layer
from runtime.keras.layers.core import Activation, Dense, Dropout, Flatten
from runtime.keras.layers.embedding import Embedding
from runtime.keras.layers.lambda_layer import Identity, Lambda
from runtime.keras.layers.reshaping import Permute, RepeatVector, Reshape

__all__ = [
    "Activation",
    "Dense",
    "Dropout",
    "Flatten",
    "Layer",
    "ELU",
    "Embedding",
    "Identity",
    "Lambda",
    "LeakyReLU",
    "PReLU",
    "Permute",
    "ReLU",
    "RepeatVector",
    "Reshape",
    "Softmax",
]
