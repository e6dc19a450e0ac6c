"""``rt.keras.layers``: ``Layer`` and Keras 3's layers."""

from runtime.keras.layers import tensor_operation as _tensor_operation  # noqa: F401 (x + y)
from runtime.keras.layers.activation_layers import ELU, LeakyReLU, PReLU, ReLU, Softmax
from runtime.keras.layers.base import Layer
from runtime.keras.layers.convolutional import Conv1D, Conv2D
from runtime.keras.layers.core import Activation, Dense, Dropout, Flatten
from runtime.keras.layers.embedding import Embedding
from runtime.keras.layers.input_layer import Input, InputLayer
from runtime.keras.layers.lambda_layer import Identity, Lambda
from runtime.keras.layers.merging import (
    Add,
    Average,
    Concatenate,
    Dot,
    Maximum,
    Minimum,
    Multiply,
    Subtract,
    add,
    average,
    concatenate,
    dot,
    maximum,
    minimum,
    multiply,
    subtract,
)
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

__all__ = sorted(name for name in dir() if not name.startswith("_") and name not in {
    "activation_layers", "base", "convolutional", "core", "embedding", "input_layer",
    "lambda_layer", "merging", "pooling", "reshaping", "tensor_operation",
})  # fmt: skip
