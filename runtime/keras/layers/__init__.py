"""``rt.keras.layers``: ``Layer`` and the core layers."""

from runtime.keras.layers import tensor_operation as _tensor_operation  # noqa: F401 (x + y)
from runtime.keras.layers.base import Layer
from runtime.keras.layers.core import Activation, Dense, Dropout, Flatten
from runtime.keras.layers.input_layer import Input, InputLayer
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

__all__ = ["Activation", "Dense", "Dropout", "Flatten", "Layer"]
__all__ += ["Input", "InputLayer"]
__all__ += ["Add", "Average", "Concatenate", "Dot", "Maximum", "Minimum", "Multiply", "Subtract"]
__all__ += ["add", "average", "concatenate", "dot", "maximum", "minimum", "multiply", "subtract"]
