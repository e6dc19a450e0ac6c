"""Ported from Keras 3's keras/src/initializers/{constant,random}_initializers_test.py (public
API only: no SeedGenerator, compute_fans or MultiHeadAttention)."""

import numpy as np

import runtime as rt
from runtime.keras import initializers
from tests.runtime.keras.keras3 import layer_testing as testing
from tests.runtime.keras.keras3.layer_testing import as_numpy


class TestConstantInitializers(testing.TestCase):
    def test_zeros_initializer(self):
        shape = (3, 3)
        initializer = initializers.Zeros()
        values = initializer(shape=shape)
        self.assertEqual(values.shape, shape)
        self.assertAllClose(as_numpy(values), np.zeros(shape=shape))
        self.run_class_serialization_test(initializer)

    def test_ones_initializer(self):
        shape = (3, 3)
        initializer = initializers.Ones()
        values = initializer(shape=shape)
        self.assertEqual(values.shape, shape)
        self.assertAllClose(as_numpy(values), np.ones(shape=shape))
        self.run_class_serialization_test(initializer)

    def test_constant_initializer(self):
        shape = (3, 3)
        constant_value = 6.0
        initializer = initializers.Constant(value=constant_value)
        values = initializer(shape=shape)
        self.assertEqual(values.shape, shape)
        self.assertAllClose(as_numpy(values), np.full(shape=shape, fill_value=constant_value))
        self.run_class_serialization_test(initializer)

    def test_constant_initializer_array_value(self):
        shape = (3, 3)
        constant_value = np.random.random((3, 3))
        initializer = initializers.Constant(value=constant_value)
        values = initializer(shape=shape)
        self.assertEqual(values.shape, shape)
        self.assertAllClose(
            as_numpy(values), np.full(shape=shape, fill_value=constant_value), rtol=1e-6
        )
        self.run_class_serialization_test(initializer)

    def test_identity_initializer(self):
        shape = (3, 3)
        gain = 2
        initializer = initializers.Identity(gain=gain)
        values = initializer(shape=shape)
        self.assertEqual(values.shape, shape)
        self.assertAllClose(as_numpy(values), np.eye(*shape) * gain)
        self.run_class_serialization_test(initializer)
        initializer = initializers.get("IdentityInitializer")
        self.assertIsInstance(initializer, initializers.Identity)


class TestRandomInitializers(testing.TestCase):
    def test_random_normal(self):
        rt.random.set_seed(1337)
        shape = (25, 20)
        mean = 0.0
        stddev = 1.0
        seed = 1234
        initializer = initializers.RandomNormal(mean=mean, stddev=stddev, seed=seed)
        values = initializer(shape=shape)
        self.assertEqual(initializer.mean, mean)
        self.assertEqual(initializer.stddev, stddev)
        self.assertEqual(initializer.seed, seed)
        self.assertEqual(values.shape, shape)
        self.assertAllClose(np.std(as_numpy(values)), stddev, atol=1e-1)
        self.run_class_serialization_test(initializer)

        # A fixed seed yields the same results each call.
        initializer = initializers.RandomNormal(mean=mean, stddev=stddev, seed=1337)
        values = initializer(shape=shape)
        next_values = initializer(shape=shape)
        self.assertAllClose(values, next_values)

        # An unseeded initializer gets different results after cloning.
        initializer = initializers.RandomNormal(mean=mean, stddev=stddev, seed=None)
        values = initializer(shape=shape)
        cloned_initializer = initializers.RandomNormal.from_config(initializer.get_config())
        new_values = cloned_initializer(shape=shape)
        self.assertNotAllClose(values, new_values)

        # A seeded initializer gets the same results after cloning.
        initializer = initializers.RandomNormal(mean=mean, stddev=stddev, seed=1337)
        values = initializer(shape=shape)
        cloned_initializer = initializers.RandomNormal.from_config(initializer.get_config())
        new_values = cloned_initializer(shape=shape)
        self.assertAllClose(values, new_values)

    def test_random_uniform(self):
        shape = (5, 5)
        minval = -1.0
        maxval = 1.0
        seed = 1234
        initializer = initializers.RandomUniform(minval=minval, maxval=maxval, seed=seed)
        values = initializer(shape=shape)
        self.assertEqual(initializer.minval, minval)
        self.assertEqual(initializer.maxval, maxval)
        self.assertEqual(initializer.seed, seed)
        self.assertEqual(values.shape, shape)
        values = as_numpy(values)
        self.assertGreaterEqual(np.min(values), minval)
        self.assertLess(np.max(values), maxval)
        self.run_class_serialization_test(initializer)

    def test_variance_scaling(self):
        rt.random.set_seed(1337)
        shape = (25, 20)
        scale = 2.0
        seed = 1234
        initializer = initializers.VarianceScaling(scale=scale, seed=seed, mode="fan_in")
        values = initializer(shape=shape)
        self.assertEqual(initializer.scale, scale)
        self.assertEqual(initializer.seed, seed)
        self.assertEqual(values.shape, shape)
        self.assertAllClose(np.std(as_numpy(values)), np.sqrt(scale / 25), atol=1e-1)
        self.run_class_serialization_test(initializer)

        initializer = initializers.VarianceScaling(scale=scale, seed=seed, mode="fan_out")
        values = initializer(shape=shape)
        self.assertEqual(initializer.scale, scale)
        self.assertEqual(initializer.seed, seed)
        self.assertEqual(values.shape, shape)
        self.assertAllClose(np.std(as_numpy(values)), np.sqrt(scale / 20), atol=1e-1)
        self.run_class_serialization_test(initializer)

    def test_orthogonal(self):
        shape = (5, 5)
        gain = 2.0
        seed = 1234
        initializer = initializers.Orthogonal(gain=gain, seed=seed)
        values = initializer(shape=shape)
        self.assertEqual(initializer.seed, seed)
        self.assertEqual(initializer.gain, gain)
        self.assertEqual(values.shape, shape)
        array = as_numpy(values)
        # The columns have gain * unit norm ...
        for column in array.T:
            self.assertAlmostEqual(np.linalg.norm(column), gain * 1.0, places=5)
        # ... and are orthogonal to each other.
        for i in range(array.shape[-1]):
            for j in range(i + 1, array.shape[-1]):
                self.assertAlmostEqual(np.dot(array[..., i], array[..., j]), 0.0, places=5)
        self.run_class_serialization_test(initializer)
        initializer = initializers.get("OrthogonalInitializer")
        self.assertIsInstance(initializer, initializers.Orthogonal)

    def test_get_method(self):
        obj = initializers.get("glorot_normal")
        self.assertTrue(obj, initializers.GlorotNormal)
        obj = initializers.get(None)
        self.assertEqual(obj, None)
        with self.assertRaises(ValueError):
            initializers.get("typo")

    def test_get_method_with_tensor(self):
        shape = (5, 5)
        tensor = rt.random.uniform(shape=shape)
        initializer = initializers.get(tensor)
        values = initializer(shape=shape)
        self.assertAllClose(values, tensor)

        tensor = np.random.uniform(size=shape).astype("float32")
        initializer = initializers.get(tensor)
        values = initializer(shape=shape)
        self.assertAllClose(values, tensor)

        with self.assertRaisesRegex(ValueError, r"Expected `shape` to be"):
            initializer(shape=(10, 10))

    def test_variance_scaling_invalid_scale(self):
        with self.assertRaisesRegex(ValueError, "Argument `scale` must be positive float."):
            initializers.VarianceScaling(scale=-1.0, seed=1234, mode="fan_in")

    def test_variance_scaling_invalid_mode(self):
        with self.assertRaisesRegex(ValueError, "Invalid `mode` argument:"):
            initializers.VarianceScaling(scale=2.0, seed=1234, mode="invalid_mode")

    def test_variance_scaling_invalid_distribution(self):
        with self.assertRaisesRegex(ValueError, "Invalid `distribution` argument:"):
            initializers.VarianceScaling(
                scale=2.0, seed=1234, mode="fan_in", distribution="invalid_dist"
            )


# Beyond Keras's tests: the distributions of the truncated-normal presets, by Keras's formulas.
def test_truncated_normal_presets_have_keras_variance_and_bounds():
    for cls, variance in [
        (initializers.GlorotNormal, 2 / (300 + 200)),
        (initializers.HeNormal, 2 / 300),
        (initializers.LecunNormal, 1 / 300),
    ]:
        values = as_numpy(cls(seed=7)((300, 200)))
        np.testing.assert_allclose(values.std(), np.sqrt(variance), rtol=0.05)
        assert np.abs(values).max() <= 2 * np.sqrt(variance) / 0.87962566103423978 + 1e-6
    values = as_numpy(initializers.TruncatedNormal(mean=1.0, stddev=0.5, seed=3)((400, 100)))
    assert values.min() >= 0.0 and values.max() <= 2.0
    np.testing.assert_allclose(values.mean(), 1.0, atol=0.01)


def test_serialize_is_keras_3_form_and_deserializes():
    config = initializers.serialize(initializers.GlorotUniform())
    assert config == {
        "module": "keras.initializers",
        "class_name": "GlorotUniform",
        "config": {"seed": None, "input_axes": None, "output_axes": None},
        "registered_name": None,
    }
    assert isinstance(initializers.deserialize(config), initializers.GlorotUniform)
    for name, cls in [
        ("he_normal", initializers.HeNormal),
        ("uniform", initializers.RandomUniform),
    ]:
        assert type(initializers.get(name)) is cls


def test_constant_array_in_a_dense_layer():
    kernel = np.arange(6.0).reshape(2, 3)
    layer = rt.keras.layers.Dense(3, kernel_initializer=initializers.Constant(kernel))
    np.testing.assert_allclose(layer(np.ones((1, 2))).numpy(), [[3.0, 5.0, 7.0]])
