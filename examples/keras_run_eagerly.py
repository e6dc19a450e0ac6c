"""Seed 001, "Using run_eagerly=True" and "Using run_functions_eagerly": a layer with a Python
side effect shows when Keras' training step runs as Python and when as a graph.

    python examples/keras_run_eagerly.py

Compiled without run_eagerly, fit traces its step (twice: the first trace makes the
weights and the optimizer's state) and then runs the graph: the side effect is gone.
With run_eagerly=True every batch runs the Python code (two batches of 60 examples).
"""

from datetime import datetime

import autograph as ag
import runtime as rt


# An identity layer with an eager side effect
class EagerLayer(rt.keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        # Do some kind of initialization here

    def call(self, inputs):
        print("\nCurrently running eagerly", str(datetime.now()))
        return inputs


# A new model that classifies images, with the custom layer
class SequentialModel(rt.keras.Model):
    def __init__(self):
        super().__init__()
        self.flatten = rt.keras.layers.Flatten(input_shape=(28, 28))
        self.dense_1 = rt.keras.layers.Dense(128, activation="relu")
        self.dropout = rt.keras.layers.Dropout(0.2)
        self.dense_2 = rt.keras.layers.Dense(10)
        self.eager = EagerLayer()

    def call(self, x):
        x = self.flatten(x)
        x = self.dense_1(x)
        x = self.dropout(x)
        x = self.dense_2(x)
        return self.eager(x)


model = SequentialModel()

# Meaningless images and labels
input_data = rt.random.uniform([60, 28, 28])
labels = rt.random.uniform([60])

loss_fn = rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

# compile traces nothing: it sets the loss, the optimizer and the other training settings
model.compile(run_eagerly=False, loss=loss_fn)
model.fit(input_data, labels, epochs=3)

print("Running eagerly")
model.compile(run_eagerly=True, loss=loss_fn)
model.fit(input_data, labels, epochs=1)

# Every function eagerly, everywhere
ag.run_functions_eagerly(True)
print("Run all functions eagerly.")

polymorphic_function = ag.function(model)

print("Tracing")
print(polymorphic_function.get_concrete_function(input_data))

print("\nCalling twice eagerly")
result = polymorphic_function(input_data)
result = polymorphic_function(input_data)

ag.experimental_run_functions_eagerly(False)
