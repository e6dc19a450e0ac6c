"""A layer built by hand (``layer.build(shape)``) is built: its first call keeps its weights.

Keras 3 wraps every layer's ``build`` so that it marks the layer built, whether the layer is
ours or the user's, and whether or not its ``build`` says so itself.
"""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt

keras = rt.keras
X = np.float32([[1.0, -2.0], [0.5, 3.0]])
W = np.float32([[1.0, 2.0], [3.0, 4.0]])
B = np.float32([10.0, 20.0])


@pytest.fixture(autouse=True)
def fresh_names():
    keras.backend.clear_session()


def test_a_dense_layer_built_by_hand_keeps_the_weights_set_on_it():
    dense = keras.layers.Dense(2)
    dense.build((1, 2))
    dense.set_weights([W, B])
    np.testing.assert_allclose(dense(X).numpy(), X @ W + B)
    assert [v.name for v in dense.weights] == ["dense/kernel:0", "dense/bias:0"]


BUILT_IN = [
    lambda: keras.layers.Dense(3),
    lambda: keras.layers.Dense(3, use_bias=False),
    lambda: keras.layers.Flatten(),
    lambda: keras.layers.Dropout(0.5),
    lambda: keras.layers.Activation("relu"),
    lambda: keras.layers.Layer(),
]


@pytest.mark.parametrize("make", BUILT_IN, ids=["dense", "dense_no_bias", "flatten", "dropout",
                                                "activation", "layer"])  # fmt: skip
def test_every_layer_built_by_hand_is_built_and_not_built_again(make):
    layer = make()
    layer.build((None, 2))
    assert layer.built
    before = [v.numpy().copy() for v in layer.weights]
    variables = list(layer.weights)
    layer(X)
    assert [id(v) for v in layer.weights] == [id(v) for v in variables]
    for old, variable in zip(before, layer.weights):
        np.testing.assert_array_equal(variable.numpy(), old)


class CountingScale(keras.layers.Layer):
    """A user's layer whose build neither calls super().build nor says self.built = True."""

    builds = 0

    def build(self, input_shape):
        type(self).builds += 1
        self.w = self.add_weight(name="w", shape=(input_shape[-1],), initializer="ones")

    def call(self, inputs):
        return inputs * self.w


def test_a_users_build_that_does_not_say_built_still_marks_the_layer_built():
    CountingScale.builds = 0
    layer = CountingScale()
    assert not layer.built
    layer.build((None, 2))
    assert layer.built and CountingScale.builds == 1
    layer.w.assign([2.0, 3.0])
    np.testing.assert_allclose(layer(X).numpy(), X * [2.0, 3.0])
    assert CountingScale.builds == 1 and len(layer.weights) == 1


class SubclassOfTheUsersLayer(CountingScale):
    def build(self, input_shape):
        super().build(input_shape)
        self.b = self.add_weight(name="b", shape=(), initializer="zeros")


def test_a_subclass_of_a_users_layer_is_built_once():
    CountingScale.builds = 0
    layer = SubclassOfTheUsersLayer()
    layer.build((None, 2))
    layer(X)
    assert layer.built and len(layer.weights) == 2
    assert SubclassOfTheUsersLayer.builds == 1


def test_a_failing_build_leaves_the_layer_unbuilt():
    layer = keras.layers.Dense(2)
    with pytest.raises(ValueError, match="should be defined"):
        layer.build((None, None))
    assert not layer.built


def test_a_users_model_built_by_hand_keeps_its_weights():
    class Linear(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(2)

        def call(self, x):
            return self.dense(x)

    model = Linear()
    model.build((None, 2))
    model.set_weights([W, B])
    np.testing.assert_allclose(model(X).numpy(), X @ W + B)
    assert len(model.weights) == 2
