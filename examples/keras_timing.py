"""Seed 001, "Seeing the speed up": a Keras model called eagerly and as an ag.function.

    python examples/keras_timing.py [CALLS]

The seed times 10000 calls of each; 1000 (the default here) keep this to a few seconds.
"""

import sys
import timeit

import autograph as ag
import runtime as rt


# A model that classifies images
class SequentialModel(rt.keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.flatten = rt.keras.layers.Flatten(input_shape=(28, 28))
        self.dense_1 = rt.keras.layers.Dense(128, activation="relu")
        self.dropout = rt.keras.layers.Dropout(0.2)
        self.dense_2 = rt.keras.layers.Dense(10)

    def call(self, x):
        x = self.flatten(x)
        x = self.dense_1(x)
        x = self.dropout(x)
        x = self.dense_2(x)
        return x


calls = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
input_data = rt.random.uniform([60, 28, 28])

eager_model = SequentialModel()
graph_model = ag.function(eager_model)

print("Eager time:", timeit.timeit(lambda: eager_model(input_data), number=calls))
print("Graph time:", timeit.timeit(lambda: graph_model(input_data), number=calls))
