"""Layers' configs as Keras 3 writes them: ``get_config``/``from_config``, build configs."""

import numpy as np
import pytest

import runtime as rt

layers = rt.keras.layers


class Scale(layers.Layer):
    def __init__(self, factor=2.0, axes=(1,), **kwargs):
        super().__init__(**kwargs)
        self.factor, self.axes = factor, axes

    def call(self, x):
        return x * self.factor


def test_a_custom_layer_without_get_config_gets_its_plain_arguments():
    config = Scale(3.0, name="s", trainable=False).get_config()
    assert config["factor"] == 3.0 and config["axes"] == (1,)
    assert (config["name"], config["trainable"]) == ("s", False)
    assert config["dtype"] == {"module": "keras", "class_name": "DTypePolicy",
                               "config": {"name": "float32"}, "registered_name": None}  # fmt: skip
    copy = Scale.from_config(config)
    assert (copy.factor, copy.name, copy.trainable) == (3.0, "s", False)


def test_a_custom_layer_given_an_object_must_write_its_own_get_config():
    with pytest.raises(NotImplementedError, match="must override\n`get_config\\(\\)`"):
        Scale(np.ones(2)).get_config()


def test_from_config_reads_keras_dtype_policies_and_drops_unset_options_keras_has():
    config = layers.Dense(2, name="d").get_config()
    config["dtype"] = {"module": "keras", "class_name": "DTypePolicy",
                       "config": {"name": "float64"}, "registered_name": None}  # fmt: skip
    config["lora_rank"] = None  # an option of a newer Keras, unset
    dense = layers.Dense.from_config(config)
    assert dense(np.ones((1, 3))).dtype == rt.float64
    config["lora_rank"] = 4  # set: refused, not ignored
    with pytest.raises(TypeError, match="lora_rank"):
        layers.Dense.from_config(config)


def test_dense_config_has_keras_keys_and_rebuilds_the_same_layer():
    dense = layers.Dense(3, activation="relu", use_bias=False, kernel_initializer="ones")
    config = dense.get_config()
    assert sorted(config) == sorted(
        [
            "name",
            "trainable",
            "dtype",
            "units",
            "activation",
            "use_bias",
            "kernel_initializer",
            "bias_initializer",
            "kernel_regularizer",
            "bias_regularizer",
            "kernel_constraint",
            "bias_constraint",
            "quantization_config",
        ]  # fmt: skip
    )
    assert config["activation"] == "relu"
    assert config["kernel_initializer"]["class_name"] == "Ones"
    copy = layers.Dense.from_config(config)
    x = np.array([[1.0, -2.0]], np.float32)
    np.testing.assert_array_equal(copy(x).numpy(), np.maximum(x @ np.ones((2, 3)), 0))


def test_build_config_is_the_input_shape_and_builds_the_weights():
    dense = layers.Dense(2)
    dense(np.ones((4, 3), np.float32))
    assert dense.get_build_config() == {"input_shape": [4, 3]}
    copy = layers.Dense.from_config(dense.get_config())
    copy.build_from_config(dense.get_build_config())
    assert [v.shape.as_list() for v in copy.weights] == [[3, 2], [2]]
    dropout = layers.Dropout(0.5)
    dropout(np.ones((1, 2), np.float32))
    assert dropout.get_build_config() is None  # built when made, in Keras: none written


def test_flatten_channels_first_moves_the_channels_last_before_flattening():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    flat = layers.Flatten(data_format="channels_first")
    np.testing.assert_array_equal(flat(x).numpy(), x.transpose(0, 2, 1).reshape(2, -1))
    assert flat.get_config()["data_format"] == "channels_first"
    np.testing.assert_array_equal(layers.Flatten()(x).numpy(), x.reshape(2, -1))
    with pytest.raises(ValueError, match="data_format"):
        layers.Flatten(data_format="channels_middle")
