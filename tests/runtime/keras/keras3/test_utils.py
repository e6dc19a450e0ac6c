"""Keras 3's ``to_categorical``/``normalize`` tests (keras/src/utils/numerical_utils_test.py),
``keras.config``'s documented examples and ``set_random_seed``, ported to ``rt.keras``."""

from __future__ import annotations

import random

import numpy as np
import pytest

import runtime as rt

utils = rt.keras.utils
NUM_CLASSES = 5


@pytest.mark.parametrize(
    ("shape", "expected_shape"),
    [
        ((1,), (1, NUM_CLASSES)),
        ((3,), (3, NUM_CLASSES)),
        ((4, 3), (4, 3, NUM_CLASSES)),
        ((5, 4, 3), (5, 4, 3, NUM_CLASSES)),
        ((3, 1), (3, NUM_CLASSES)),
        ((3, 2, 1), (3, 2, NUM_CLASSES)),
    ],
)
def test_to_categorical(shape, expected_shape):
    label = np.random.randint(0, NUM_CLASSES, shape)
    one_hot = utils.to_categorical(label, NUM_CLASSES)
    assert one_hot.shape == expected_shape
    assert np.all(one_hot.sum(axis=-1) == 1)
    assert np.all(np.argmax(one_hot, -1).reshape(label.shape) == label)


def test_to_categorical_without_num_classes():
    assert utils.to_categorical([0, 2, 5]).shape == (3, 5 + 1)


def test_to_categorical_with_backend_tensor():
    label = rt.convert_to_tensor(np.array([0, 2, 1, 3, 4]))
    one_hot = utils.to_categorical(label, NUM_CLASSES)
    assert rt.keras.ops.is_tensor(one_hot)
    np.testing.assert_allclose(one_hot.numpy(), np.eye(5)[[0, 2, 1, 3, 4]])


def test_to_categorical_docstring_example():
    a = utils.to_categorical([0, 1, 2, 3], num_classes=4)
    np.testing.assert_array_equal(a, np.eye(4))


@pytest.mark.parametrize("order", [1, 2, 3])
def test_normalize(order):
    xb = rt.keras.random.uniform((3, 3), seed=1337)
    xnp = xb.numpy()
    norm = np.atleast_1d(np.linalg.norm(xnp, order, axis=-1))
    norm[norm == 0] = 1
    expected = xnp / np.expand_dims(norm, axis=-1)
    out = utils.normalize(xnp, axis=-1, order=order)
    assert isinstance(out, np.ndarray)
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-6)
    out = utils.normalize(xb, axis=-1, order=order)
    assert rt.keras.ops.is_tensor(out)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6, atol=1e-6)


def test_normalize_numpy_axis_zero():
    x = np.array([[3.0, 0.0, 12.0], [4.0, 5.0, 0.0]])
    out = utils.normalize(x, axis=0)
    assert isinstance(out, np.ndarray) and out.shape == x.shape
    np.testing.assert_allclose(out, [[0.6, 0.0, 1.0], [0.8, 1.0, 0.0]])


def test_set_random_seed_seeds_python_numpy_and_rt():
    def draws():
        return (
            random.random(),
            np.random.rand(),
            float(rt.random.uniform([]).numpy()),
            float(rt.keras.random.normal(()).numpy()),
        )

    utils.set_random_seed(42)
    first = draws()
    utils.set_random_seed(42)
    assert draws() == first
    with pytest.raises(ValueError, match="Expected `seed` argument to be an integer"):
        utils.set_random_seed(1.5)


def test_config_examples():
    config = rt.keras.config
    assert config.floatx() == "float32"
    assert config.epsilon() == 1e-07
    assert config.image_data_format() == "channels_last"
    try:
        config.set_epsilon(1e-5)
        assert config.epsilon() == 1e-05
        config.set_image_data_format("channels_first")
        assert config.image_data_format() == "channels_first"
        config.set_floatx("float64")
        assert rt.keras.losses.MeanSquaredError()([1.0], [2.0]).dtype == rt.float64
    finally:
        config.set_epsilon(1e-7)
        config.set_image_data_format("channels_last")
        config.set_floatx("float32")
    with pytest.raises(ValueError, match="Unknown `floatx` value: float8"):
        config.set_floatx("float8")
    with pytest.raises(ValueError, match="The `data_format` argument must be one of"):
        config.set_image_data_format("channels_middle")
    assert config.backend() == "numpy"
