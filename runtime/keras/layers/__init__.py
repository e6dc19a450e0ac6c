"""``rt.keras.layers``: ``Layer`` and the core layers."""

from runtime.keras.layers.base import Layer
from runtime.keras.layers.core import Activation, Dense, Dropout, Flatten
from runtime.keras.layers.normalization import (
    BatchNormalization,
    GroupNormalization,
    LayerNormalization,
    UnitNormalization,
)

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
]
