"""Ported from Keras 3's keras/src/layers/reshaping/{reshape,permute,repeat_vector,flatten}_test.py
and keras/src/layers/regularization/dropout_test.py: the same programs and expected values, on
``rt.keras.layers``. Left out: sparse inputs and ``KerasTensor``/``compute_output_spec`` (not in
this API)."""

import numpy as np

import runtime as rt
from runtime.keras import layers
from tests.runtime.keras.keras3 import layer_testing as testing
from tests.runtime.keras.keras3.layer_testing import as_numpy


class TestReshape(testing.TestCase):
    def test_reshape(self, sparse=False):

        self.run_layer_test(
            layers.Reshape,
            init_kwargs={"target_shape": (8, 1)},
            input_shape=(3, 2, 4),
            input_sparse=sparse,
            expected_output_shape=(3, 8, 1),
            expected_output_sparse=sparse,
            run_training_check=not sparse,
        )

        self.run_layer_test(
            layers.Reshape,
            init_kwargs={"target_shape": (8,)},
            input_shape=(3, 2, 4),
            input_sparse=sparse,
            expected_output_shape=(3, 8),
            expected_output_sparse=sparse,
            run_training_check=not sparse,
        )

        self.run_layer_test(
            layers.Reshape,
            init_kwargs={"target_shape": (2, 4)},
            input_shape=(3, 8),
            input_sparse=sparse,
            expected_output_shape=(3, 2, 4),
            expected_output_sparse=sparse,
            run_training_check=not sparse,
        )
        self.run_layer_test(
            layers.Reshape,
            init_kwargs={"target_shape": (-1, 1)},
            input_shape=(3, 2, 4),
            input_sparse=sparse,
            expected_output_shape=(3, 8, 1),
            expected_output_sparse=sparse,
            run_training_check=not sparse,
        )

        self.run_layer_test(
            layers.Reshape,
            init_kwargs={"target_shape": (1, -1)},
            input_shape=(3, 2, 4),
            input_sparse=sparse,
            expected_output_shape=(3, 1, 8),
            expected_output_sparse=sparse,
            run_training_check=not sparse,
        )

        self.run_layer_test(
            layers.Reshape,
            init_kwargs={"target_shape": (-1,)},
            input_shape=(3, 2, 4),
            input_sparse=sparse,
            expected_output_shape=(3, 8),
            expected_output_sparse=sparse,
            run_training_check=not sparse,
        )

        self.run_layer_test(
            layers.Reshape,
            init_kwargs={"target_shape": (2, -1)},
            input_shape=(3, 2, 4),
            input_sparse=sparse,
            expected_output_shape=(3, 2, 4),
            expected_output_sparse=sparse,
            run_training_check=not sparse,
        )

    def test_reshape_with_dynamic_batch_size(self):
        input_layer = layers.Input(shape=(2, 4))
        reshaped = layers.Reshape((8,))(input_layer)
        self.assertEqual(reshaped.shape, (None, 8))

    def test_reshape_rejects_invalid_target_shape(self):
        # Negative values other than -1 are invalid.
        with self.assertRaisesRegex(
            ValueError, "non-negative integer.*-1.*target_shape=\\(-2, 5\\)"
        ):
            layers.Reshape(target_shape=(-2, 5))

        # Existing constraint: at most one -1.
        with self.assertRaisesRegex(
            ValueError,
            "at most one unknown dimension.*target_shape=\\(-1, -1, 5\\)",
        ):
            layers.Reshape(target_shape=(-1, -1, 5))

    def test_reshape_layer_with_varying_input_size_and_minus_one(self):
        layer = layers.Reshape((-1, 8))
        res = layer(rt.ones((1, 6, 4), dtype="float32"))
        self.assertEqual(res.shape, (1, 3, 8))
        res = layer(rt.ones((1, 10, 4), dtype="float32"))
        self.assertEqual(res.shape, (1, 5, 8))

    def test_reshape_sets_static_shape(self):
        input_layer = layers.Input(batch_shape=(2, None))
        reshaped = layers.Reshape((3, 5))(input_layer)
        # Also make sure the batch dim is not lost after reshape.
        self.assertEqual(reshaped.shape, (2, 3, 5))

    def test_reshape_model_fit_with_varying_input_size_and_minus_one(self):
        def generator():
            yield (
                rt.ones((1, 12, 2), dtype="float32"),
                rt.zeros((1, 3, 8), dtype="float32"),
            )
            yield (
                rt.ones((1, 20, 2), dtype="float32"),
                rt.zeros((1, 5, 8), dtype="float32"),
            )

        layer = layers.Reshape((-1, 8))
        model = rt.keras.Sequential([layer])
        model.compile(loss="mean_squared_error")
        model.fit(generator(), steps_per_epoch=2, epochs=1)

        # Also test inference with varying shapes to ensure -1 works dynamically
        # Input: (batch, seq_len, 2), Output: (batch, seq_len*2/8, 8)
        for seq_len, expected_first_dim in [(12, 3), (20, 5), (24, 6)]:
            x_test = rt.random.normal((1, seq_len, 2))
            output = model(x_test)
            # Verify output shape is correct
            self.assertEqual(output.shape[1], expected_first_dim)
            self.assertEqual(output.shape[2], 8)


class TestPermute(testing.TestCase):
    def test_permute(self, sparse=False):

        inputs = np.random.random((10, 3, 5, 5)).astype("float32")
        # Make the ndarray relatively sparse
        inputs = np.multiply(inputs, inputs >= 0.8)
        expected_output = rt.convert_to_tensor(np.transpose(inputs, axes=(0, 3, 1, 2)))
        self.run_layer_test(
            layers.Permute,
            init_kwargs={"dims": (3, 1, 2)},
            input_data=inputs,
            input_sparse=sparse,
            expected_output=expected_output,
            expected_output_sparse=sparse,
            run_training_check=not sparse,
        )

    def test_permute_with_dynamic_batch_size(self):
        input_layer = layers.Input(batch_shape=(None, 3, 5))
        permuted = layers.Permute((2, 1))(input_layer)
        self.assertEqual(permuted.shape, (None, 5, 3))

    def test_permute_errors_on_invalid_starting_dims_index(self):
        with self.assertRaisesRegex(ValueError, r"Invalid permutation .*dims.*"):
            self.run_layer_test(
                layers.Permute,
                init_kwargs={"dims": (0, 1, 2)},
                input_shape=(3, 2, 4),
            )

    def test_permute_errors_on_invalid_set_of_dims_indices(self):
        with self.assertRaisesRegex(ValueError, r"Invalid permutation .*dims.*"):
            self.run_layer_test(
                layers.Permute,
                init_kwargs={"dims": (1, 4, 2)},
                input_shape=(3, 2, 4),
            )


class TestRepeatVector(testing.TestCase):
    def test_repeat_vector(self):
        inputs = np.random.random((2, 5)).astype("float32")
        expected_output = rt.convert_to_tensor(np.repeat(np.reshape(inputs, (2, 1, 5)), 3, axis=1))
        self.run_layer_test(
            layers.RepeatVector,
            init_kwargs={"n": 3},
            input_data=inputs,
            expected_output=expected_output,
        )

    def test_repeat_vector_with_dynamic_batch_size(self):
        input_layer = layers.Input(batch_shape=(None, 5))
        repeated = layers.RepeatVector(n=3)(input_layer)
        self.assertEqual(repeated.shape, (None, 3, 5))

    def test_repeat_vector_with_dynamic_dimension(self):
        input_layer = layers.Input(batch_shape=(2, None))
        repeated = layers.RepeatVector(n=3)(input_layer)
        self.assertEqual(repeated.shape, (2, 3, None))

    def test_repeat_vector_with_invalid_n(self):
        with self.assertRaisesRegex(TypeError, "Expected an integer value for `n`"):
            layers.RepeatVector(n="3")

        with self.assertRaisesRegex(TypeError, "Expected an integer value for `n`"):
            layers.RepeatVector(n=3.5)

        with self.assertRaisesRegex(TypeError, "Expected an integer value for `n`"):
            layers.RepeatVector(n=[3])

    def test_repeat_vector_with_non_positive_n(self):
        for n in (0, -3):
            with self.assertRaisesRegex(ValueError, "should be a positive integer"):
                layers.RepeatVector(n=n)


class TestFlatten(testing.TestCase):
    def test_flatten(self, sparse=False):

        inputs = np.random.random((10, 3, 5, 5)).astype("float32")
        # Make the ndarray relatively sparse
        inputs = np.multiply(inputs, inputs >= 0.8)
        expected_output_channels_last = rt.convert_to_tensor(np.reshape(inputs, (-1, 5 * 5 * 3)))
        expected_output_channels_first = rt.convert_to_tensor(
            np.reshape(np.transpose(inputs, (0, 2, 3, 1)), (-1, 5 * 5 * 3))
        )
        # Test default data_format and channels_last
        self.run_layer_test(
            layers.Flatten,
            init_kwargs={},
            input_data=inputs,
            input_sparse=True,
            expected_output=(
                expected_output_channels_last
                if "channels_last" == "channels_last"
                else expected_output_channels_first
            ),
            expected_output_sparse=sparse,
            run_training_check=not sparse,
        )
        self.run_layer_test(
            layers.Flatten,
            init_kwargs={"data_format": "channels_last"},
            input_data=inputs,
            input_sparse=True,
            expected_output=expected_output_channels_last,
            expected_output_sparse=sparse,
            run_training_check=not sparse,
        )

        # Test channels_first
        self.run_layer_test(
            layers.Flatten,
            init_kwargs={"data_format": "channels_first"},
            input_data=inputs,
            input_sparse=True,
            expected_output=expected_output_channels_first,
            expected_output_sparse=sparse,
            run_training_check=not sparse,
        )

    def test_flatten_with_scalar_channels(self):
        inputs = np.random.random((10,)).astype("float32")
        expected_output = rt.convert_to_tensor(np.expand_dims(inputs, -1))

        # Test default data_format and channels_last
        self.run_layer_test(
            layers.Flatten,
            init_kwargs={},
            input_data=inputs,
            expected_output=expected_output,
        )
        self.run_layer_test(
            layers.Flatten,
            init_kwargs={"data_format": "channels_last"},
            input_data=inputs,
            expected_output=expected_output,
        )

        # Test channels_first
        self.run_layer_test(
            layers.Flatten,
            init_kwargs={"data_format": "channels_first"},
            input_data=inputs,
            expected_output=expected_output,
        )

    def test_flatten_symbolic_with_dynamic_batch_size(self):
        input_layer = layers.Input(batch_shape=(None, 2, 3))
        flattened = layers.Flatten()(input_layer)
        self.assertEqual(flattened.shape, (None, 2 * 3))

    def test_flatten_symbolic_with_dynamic_dimension(self):
        input_layer = layers.Input(batch_shape=(5, 2, None))
        flattened = layers.Flatten()(input_layer)
        self.assertEqual(flattened.shape, (5, None))

    def test_flatten_with_dynamic_batch_size_and_dynamic_dimenstions(self):
        def generator():
            yield (np.ones((3, 5, 7), dtype="float32"),)
            yield (np.ones((2, 7, 5), dtype="float32"),)

        model = rt.keras.Sequential([layers.Flatten()])
        model.predict(generator())


class TestDropout(testing.TestCase):
    def test_dropout_basics(self):
        self.run_layer_test(
            layers.Dropout,
            init_kwargs={
                "rate": 0.2,
            },
            input_shape=(2, 3),
            call_kwargs={"training": True},
            expected_output_shape=(2, 3),
            expected_num_trainable_weights=0,
            expected_num_non_trainable_weights=0,
            expected_num_seed_generators=1,
            expected_num_losses=0,
            supports_masking=True,
            assert_built_after_instantiation=True,
        )

    def test_dropout_rescaling(self):
        inputs = np.ones((20, 500))
        layer = layers.Dropout(0.5, seed=1337)
        outputs = layer(inputs, training=True)
        outputs = as_numpy(outputs)
        self.assertAllClose(np.mean(outputs), 1.0, atol=0.02)
        self.assertAllClose(np.max(outputs), 2.0)

    def test_dropout_partial_noise_shape_dynamic(self):
        inputs = np.ones((20, 5, 10))
        layer = layers.Dropout(0.5, noise_shape=(None, 1, None))
        outputs = layer(inputs, training=True)
        self.assertAllClose(outputs[:, 0, :], outputs[:, 1, :])

    def test_dropout_partial_noise_shape_static(self):
        inputs = np.ones((20, 5, 10))
        layer = layers.Dropout(0.5, noise_shape=(20, 1, 10))
        outputs = layer(inputs, training=True)
        self.assertAllClose(outputs[:, 0, :], outputs[:, 1, :])

    def test_dropout_negative_rate(self):
        with self.assertRaisesRegex(
            ValueError,
            "Invalid value received for argument `rate`. Expected a float value between 0 and 1.",
        ):
            _ = layers.Dropout(rate=-0.5)

    def test_dropout_rate_greater_than_one(self):
        with self.assertRaisesRegex(
            ValueError,
            "Invalid value received for argument `rate`. Expected a float value between 0 and 1.",
        ):
            _ = layers.Dropout(rate=1.5)

    def test_validate_noise_shape_none(self):
        layer = layers.Dropout(0.5, noise_shape=None)
        self.assertIsNone(layer.noise_shape)

    def test_validate_noise_shape_integer_tuple(self):
        layer = layers.Dropout(0.5, noise_shape=(20, 1, 10))
        self.assertEqual(layer.noise_shape, (20, 1, 10))

    def test_validate_noise_shape_none_values(self):
        layer = layers.Dropout(0.5, noise_shape=(None, 1, None))
        self.assertEqual(layer.noise_shape, (None, 1, None))

    def test_validate_noise_shape_cast_to_a_tuple(self):
        layer = layers.Dropout(0.5, noise_shape=[20, 1, 10])
        self.assertEqual(layer.noise_shape, (20, 1, 10))
        self.assertIsInstance(layer.noise_shape, tuple)

    def test_validate_noise_shape_non_iterable(self):
        with self.assertRaisesRegex(
            ValueError,
            "Invalid value received for argument `noise_shape`. "
            "Expected a tuple or list of integers.",
        ):
            layers.Dropout(0.5, noise_shape="Invalid")

    def test_validate_noise_shape_invalid_type(self):
        with self.assertRaisesRegex(
            ValueError,
            "Invalid value received for argument `noise_shape`. "
            "Expected all elements to be integers or None.",
        ):
            layers.Dropout(0.5, noise_shape=(20, 1.5, 10))

    def test_validate_noise_shape_negative_value(self):
        with self.assertRaisesRegex(
            ValueError,
            "Invalid value received for argument `noise_shape`. "
            "Expected all dimensions to be positive integers or None.",
        ):
            layers.Dropout(0.5, noise_shape=(20, -1, 10))

    def test_validate_noise_shape_zero_value(self):
        with self.assertRaisesRegex(
            ValueError,
            "Invalid value received for argument `noise_shape`. "
            "Expected all dimensions to be positive integers or None.",
        ):
            layers.Dropout(0.5, noise_shape=(20, 0, 10))
