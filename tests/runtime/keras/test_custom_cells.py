"""Recurrent layers over cells of the user's own class: ``Bidirectional`` copies them in-process
(their class is not one a config's name can find)."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

layers = rt.keras.layers


class RunningSum(layers.Layer):
    """h_t = h_{t-1} + x_t @ kernel."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight("kernel", (input_shape[-1], self.units))

    def call(self, inputs, states):
        h = states[0] + rt.matmul(inputs, self.kernel)
        return h, [h]

    def get_config(self):
        return {**super().get_config(), "units": self.units}


X = np.random.default_rng(0).normal(size=(2, 4, 3)).astype(np.float32)


@pytest.mark.parametrize("cell", [lambda: RunningSum(2), lambda: [RunningSum(3), RunningSum(2)]])
def test_bidirectional_copies_a_cell_of_the_users_class(cell):
    both = layers.Bidirectional(layers.RNN(cell(), return_sequences=True))
    got = both(X).numpy()

    def run(direction, x):
        cells = getattr(direction.cell, "cells", [direction.cell])
        for inner in cells:  # each cell sums its inputs' projections over time
            x = np.cumsum(x @ inner.kernel.numpy(), axis=1)
        return x

    forward = run(both.forward_layer, X)
    backward = run(both.backward_layer, X[:, ::-1])[:, ::-1]
    np.testing.assert_allclose(got, np.concatenate([forward, backward], -1), rtol=1e-5, atol=1e-5)
    assert type(both.backward_layer.cell) is type(both.forward_layer.cell)
    assert both.forward_layer.cell is not both.backward_layer.cell
