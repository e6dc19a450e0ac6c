"""``rt.keras``: Keras-style layers and models that train with ``compile`` and ``fit``.

>>> import numpy as np, runtime as rt
>>> rt.keras.backend.clear_session()
>>> model = rt.keras.Sequential([
...     rt.keras.layers.Dense(4, input_shape=(10,)),
...     rt.keras.layers.Dense(2),
...     rt.keras.layers.Dense(1),
... ])
>>> model.summary()
Model: "sequential"
_________________________________________________________________
Layer (type)                 Output Shape              Param #
dense (Dense)                (None, 4)                 44
_________________________________________________________________
dense_1 (Dense)              (None, 2)                 10
_________________________________________________________________
dense_2 (Dense)              (None, 1)                 3
Total params: 57
Trainable params: 57
Non-trainable params: 0
_________________________________________________________________
>>> model.layers[0].trainable = False
>>> [v.name for v in model.trainable_variables]
['dense_1/kernel:0', 'dense_1/bias:0', 'dense_2/kernel:0', 'dense_2/bias:0']
"""

from runtime.keras import (
    activations,
    backend,
    callbacks,
    config,
    constraints,
    initializers,
    layers,
    losses,
    metrics,
    models,
    ops,
    optimizers,
    random,
    regularizers,
    saving,
    utils,
)
from runtime.keras.keras_tensor import KerasTensor
from runtime.keras.layers.input_layer import Input
from runtime.keras.models import Model, Sequential

__all__ = [
    "Input",
    "KerasTensor",
    "Model",
    "Sequential",
    "activations",
    "backend",
    "callbacks",
    "initializers",
    "layers",
    "losses",
    "metrics",
    "models",
    "optimizers",
    "config",
    "constraints",
    "ops",
    "random",
    "regularizers",
    "saving",
    "utils",
]
