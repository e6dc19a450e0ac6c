"""``rt.keras.layers``: ``Layer`` and the core layers."""

from runtime.keras.layers.base import Layer
from runtime.keras.layers.bidirectional import Bidirectional
from runtime.keras.layers.core import Activation, Dense, Dropout, Flatten
from runtime.keras.layers.normalization import (
    BatchNormalization,
    GroupNormalization,
    LayerNormalization,
    UnitNormalization,
)
from runtime.keras.layers.rnn import GRU, LSTM, RNN, SimpleRNN
from runtime.keras.layers.rnn_cells import GRUCell, LSTMCell, SimpleRNNCell, StackedRNNCells

__all__ = [
    "Activation",
    "Dense",
    "Dropout",
    "Flatten",
    "Layer",
    "BatchNormalization",
    "GroupNormalization",
    "LayerNormalization",
    "UnitNormalization",
    "Bidirectional",
    "GRU",
    "GRUCell",
    "LSTM",
    "LSTMCell",
    "RNN",
    "SimpleRNN",
    "SimpleRNNCell",
    "StackedRNNCells",
]
