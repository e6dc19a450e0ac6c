"""``rt.keras.config``: Keras' global settings.

``floatx`` (the default float type, ``"float32"``), ``epsilon`` (the fuzz factor
of losses and optimizers, ``1e-7``) and ``image_data_format``
(``"channels_last"``), each with its setter; ``backend()`` names the array
library under ``rt.keras``: ``"numpy"``, since every eager tensor holds a numpy
array (it is not TensorFlow, JAX or torch: code that asks in order to import one
of those should take its portable path). A loss made after ``set_floatx``
computes in the new type.

>>> import runtime as rt
>>> rt.keras.config.floatx(), rt.keras.config.epsilon(), rt.keras.config.backend()
('float32', 1e-07, 'numpy')
>>> rt.keras.config.set_epsilon(1e-5); rt.keras.config.epsilon()
1e-05
>>> rt.keras.config.set_epsilon(1e-7)
"""

from __future__ import annotations

from runtime.keras.backend import (
    epsilon,
    floatx,
    image_data_format,
    set_epsilon,
    set_floatx,
    set_image_data_format,
)


def backend():
    """The array library ``rt.keras`` computes with: ``"numpy"``."""
    return "numpy"


__all__ = [
    "backend",
    "epsilon",
    "floatx",
    "image_data_format",
    "set_epsilon",
    "set_floatx",
    "set_image_data_format",
]
