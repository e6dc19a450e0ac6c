"""``rt.keras.layers``: ``Layer`` and Keras 3's layers."""

from runtime.keras.layers import tensor_operation as _tensor_operation  # noqa: F401 (x + y)
from runtime.keras.layers.activation_layers import ELU, LeakyReLU, PReLU, ReLU, Softmax
from runtime.keras.layers.base import Layer
from runtime.keras.layers.bidirectional import Bidirectional
from runtime.keras.layers.conv_transpose import Conv2DTranspose
from runtime.keras.layers.convolutional import Conv1D, Conv2D
from runtime.keras.layers.core import Activation, Dense, Dropout, Flatten
from runtime.keras.layers.embedding import Embedding
from runtime.keras.layers.input_layer import Input, InputLayer
from runtime.keras.layers.lambda_layer import Identity, Lambda
from runtime.keras.layers.masking import Masking
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
from runtime.keras.layers.normalization import (
    BatchNormalization,
    GroupNormalization,
    LayerNormalization,
    UnitNormalization,
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
from runtime.keras.layers.rnn import GRU, LSTM, RNN, SimpleRNN
from runtime.keras.layers.rnn_cells import GRUCell, LSTMCell, SimpleRNNCell, StackedRNNCells

__all__ = [
    # core
    "Activation", "Dense", "Dropout", "Embedding", "Flatten", "Identity", "Input", "InputLayer",
    "Lambda", "Layer", "Masking",
    # activations
    "ELU", "LeakyReLU", "PReLU", "ReLU", "Softmax",
    # convolution and pooling
    "AveragePooling1D", "AveragePooling2D", "Conv1D", "Conv2D", "GlobalAveragePooling1D",
    "GlobalAveragePooling2D", "GlobalMaxPooling1D", "GlobalMaxPooling2D", "MaxPooling1D",
    "MaxPooling2D",
    # merging
    "Add", "Average", "Concatenate", "Dot", "Maximum", "Minimum", "Multiply", "Subtract",
    "add", "average", "concatenate", "dot", "maximum", "minimum", "multiply", "subtract",
    # normalization
    "BatchNormalization", "GroupNormalization", "LayerNormalization", "UnitNormalization",
    # reshaping
    "Permute", "RepeatVector", "Reshape",
    # recurrent
    "GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "SimpleRNN", "SimpleRNNCell", "StackedRNNCells",
    "Bidirectional",
    # transposed convolution
    "Conv2DTranspose",
]  # fmt: skip
