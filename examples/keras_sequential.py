"""Seed 003: Keras models and layers are Modules; a Sequential model's summary, its
variables, and freezing its first layer.

    python examples/keras_sequential.py
"""

from pprint import pprint

import runtime as rt
from runtime.keras import layers, models

print(issubclass(rt.keras.Model, rt.Module))
print(issubclass(rt.keras.layers.Layer, rt.Module))
print(issubclass(rt.keras.Model, rt.keras.layers.Layer))

rt.keras.backend.clear_session()

model = models.Sequential()
model.add(layers.Dense(4, input_shape=(10,)))
model.add(layers.Dense(2))
model.add(layers.Dense(1))
model.summary()

pprint(model.variables)
print(list(model.variables[0].numpy())[0].tolist())

# Freeze the variables of layer 0: they are no longer trained.
model.layers[0].trainable = False
pprint(model.trainable_variables)
print(model.layers[0].trainable)

print(model.submodules)
print(model.layers)
print(model.name)
print(model.name_scope())
