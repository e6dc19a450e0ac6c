"""``rt.keras.layers``: ``Layer`` and the core layers."""

from runtime.keras.layers.base import Layer
from runtime.keras.layers.core import Activation, Dense, Dropout, Flatten

__all__ = ["Activation", "Dense", "Dropout", "Flatten", "Layer"]

# Convolution and pooling (issue 27).
from runtime.keras.layers.convolutional import Conv1D, Conv2D  # noqa: E402
from runtime.keras.layers.pooling import (  # noqa: E402
    AveragePooling1D,
    AveragePooling2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    MaxPooling1D,
    MaxPooling2D,
)

__all__ += [
    "AveragePooling1D",
    "AveragePooling2D",
    "Conv1D",
    "Conv2D",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "MaxPooling1D",
    "MaxPooling2D",
]
