"""``rt.keras.layers``: ``Layer`` and Keras 3's layers."""

from runtime.keras.layers.activation_layers import ELU, LeakyReLU, PReLU, ReLU, Softmax
from runtime.keras.layers.base import Layer
from runtime.keras.layers.convolutional import Conv1D, Conv2D
from runtime.keras.layers.core import Activation, Dense, Dropout, Flatten
from runtime.keras.layers.embedding import Embedding
from runtime.keras.layers.lambda_layer import Identity, Lambda
from runtime.keras.layers.pooling import (
    AveragePooling1D,
    AveragePooling2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    MaxPooling1D,
    MaxPooling2D,
)
from runtime.keras.layers.reshaping import Permute, RepeatVector, Reshape

__all__ = sorted(name for name in dir() if name[0].isupper())
