"""Ported from Keras 3's keras/src/layers/activations/*_test.py: the same programs and
expected values, on ``rt.keras.layers``."""

import numpy as np

import runtime as rt
from runtime.keras import layers
from tests.runtime.keras.keras3 import layer_testing as testing


class TestActivation(testing.TestCase):
    def test_activation_basics(self):
        self.run_layer_test(
            layers.Activation,
            init_kwargs={
                "activation": "relu",
            },
            input_shape=(2, 3),
            expected_output_shape=(2, 3),
            expected_num_trainable_weights=0,
            expected_num_non_trainable_weights=0,
            expected_num_seed_generators=0,
            expected_num_losses=0,
            supports_masking=True,
            assert_built_after_instantiation=True,
        )
        self.run_layer_test(
            layers.Activation,
            init_kwargs={
                "activation": rt.keras.activations.gelu,
            },
            input_shape=(2, 2),
            expected_output_shape=(2, 2),
            expected_num_trainable_weights=0,
            expected_num_non_trainable_weights=0,
            expected_num_seed_generators=0,
            expected_num_losses=0,
            supports_masking=True,
            assert_built_after_instantiation=True,
        )


class TestELU(testing.TestCase):
    def test_config(self):
        elu_layer = layers.ELU()
        self.run_class_serialization_test(elu_layer)

    def test_elu(self):
        self.run_layer_test(
            layers.ELU,
            init_kwargs={},
            input_shape=(2, 3, 4),
            supports_masking=True,
            assert_built_after_instantiation=True,
        )

    def test_correctness(self):
        def np_elu(x, alpha=1.0):
            return (x > 0) * x + (x <= 0) * alpha * (np.exp(x) - 1)

        x = np.random.random((2, 2, 5))
        elu_layer = layers.ELU()
        self.assertAllClose(elu_layer(x), np_elu(x))

        elu_layer = layers.ELU(alpha=0.7)
        self.assertAllClose(elu_layer(x), np_elu(x, alpha=0.7))


class TestLeakyReLU(testing.TestCase):
    def test_leaky_relu(self):
        self.run_layer_test(
            layers.LeakyReLU,
            init_kwargs={
                "negative_slope": 1,
            },
            input_shape=(2, 3, 4),
            supports_masking=True,
            assert_built_after_instantiation=True,
        )

    def test_leaky_relu_correctness(self):
        leaky_relu_layer = layers.LeakyReLU(negative_slope=0.5)
        input = np.array([-10, -5, 0.0, 5, 10])
        expected_output = np.array([-5.0, -2.5, 0.0, 5.0, 10.0])
        result = leaky_relu_layer(input)
        self.assertAllClose(result, expected_output)

    def test_invalid_usage(self):
        with self.assertRaisesRegex(
            ValueError,
            "The negative_slope value of a Leaky ReLU layer cannot be None",
        ):
            self.run_layer_test(
                layers.LeakyReLU,
                init_kwargs={"negative_slope": None},
                input_shape=(2, 3, 4),
                supports_masking=True,
            )


class TestPReLU(testing.TestCase):
    def test_prelu(self):
        self.run_layer_test(
            layers.PReLU,
            init_kwargs={
                "alpha_initializer": "zeros",
                "alpha_regularizer": "L1",
                "alpha_constraint": "MaxNorm",
                "shared_axes": 1,
            },
            input_shape=(2, 3, 4),
            supports_masking=True,
        )

    def test_prelu_correctness(self):
        def np_prelu(x, alpha):
            return (x > 0) * x + (x <= 0) * alpha * x

        inputs = np.random.randn(2, 10, 5, 3)
        prelu_layer = layers.PReLU(
            alpha_initializer="glorot_uniform",
            alpha_regularizer="l1",
            alpha_constraint="non_neg",
            shared_axes=(1, 2),
        )
        prelu_layer.build(inputs.shape)

        weights = np.random.random((1, 1, 3))
        prelu_layer.alpha.assign(weights)
        ref_out = np_prelu(inputs, weights)
        self.assertAllClose(prelu_layer(inputs), ref_out)


class TestReLU(testing.TestCase):
    def test_relu(self):
        self.run_layer_test(
            layers.ReLU,
            init_kwargs={
                "max_value": 10,
                "negative_slope": 1,
                "threshold": 0.5,
            },
            input_shape=(2, 3, 4),
            supports_masking=True,
            assert_built_after_instantiation=True,
        )

    def test_normal_relu_correctness(self):
        relu_layer = layers.ReLU(max_value=10, negative_slope=0.0, threshold=0)
        input = np.array([-10, -5, 0.0, 5, 10])
        expected_output = np.array([0.0, 0.0, 0.0, 5.0, 10.0])
        result = relu_layer(input)
        self.assertAllClose(result, expected_output)

    def test_leaky_relu_correctness(self):
        relu_layer = layers.ReLU(max_value=10, negative_slope=0.5, threshold=0)
        input = np.array([-10, -5, 0.0, 5, 10])
        expected_output = np.array([-5.0, -2.5, 0.0, 5.0, 10.0])
        result = relu_layer(input)
        self.assertAllClose(result, expected_output)

    def test_threshold_relu_correctness(self):
        relu_layer = layers.ReLU(max_value=8, negative_slope=0.0, threshold=5)
        input = np.array([6.0, 7.0, 0.0, 5, 10])
        expected_output = np.array([6.0, 7.0, 0.0, 0.0, 8.0])
        result = relu_layer(input)
        self.assertAllClose(result, expected_output)

    def test_invalid_usage(self):
        with self.assertRaisesRegex(
            ValueError,
            "max_value of a ReLU layer cannot be a negative value",
        ):
            self.run_layer_test(
                layers.ReLU,
                init_kwargs={
                    "max_value": -10,
                    "negative_slope": 1,
                    "threshold": 0.5,
                },
                input_shape=(2, 3, 4),
                supports_masking=True,
            )

        with self.assertRaisesRegex(
            ValueError,
            "negative_slope of a ReLU layer cannot be None or a negative value",
        ):
            self.run_layer_test(
                layers.ReLU,
                init_kwargs={
                    "max_value": 10,
                    "negative_slope": -10,
                    "threshold": 0.5,
                },
                input_shape=(2, 3, 4),
                supports_masking=True,
            )

        with self.assertRaisesRegex(
            ValueError,
            "threshold of a ReLU layer cannot be None or a negative value",
        ):
            self.run_layer_test(
                layers.ReLU,
                init_kwargs={
                    "max_value": 10,
                    "negative_slope": 1,
                    "threshold": -10,
                },
                input_shape=(2, 3, 4),
                supports_masking=True,
            )

    def test_get_config(self):
        # Test that get_config returns correct values
        relu_layer = layers.ReLU(max_value=5.0, negative_slope=0.2, threshold=1.0)
        config = relu_layer.get_config()
        self.assertEqual(config["max_value"], 5.0)
        self.assertEqual(config["negative_slope"], 0.2)
        self.assertEqual(config["threshold"], 1.0)

    def test_get_config_default_params(self):
        # Test get_config with default parameters
        relu_layer = layers.ReLU()
        config = relu_layer.get_config()
        self.assertIsNone(config["max_value"])
        self.assertEqual(config["negative_slope"], 0.0)
        self.assertEqual(config["threshold"], 0.0)

    def test_from_config(self):
        # Test that a layer can be recreated from its config
        relu_layer = layers.ReLU(max_value=5.0, negative_slope=0.2, threshold=1.0)
        config = relu_layer.get_config()
        restored_layer = layers.ReLU.from_config(config)
        self.assertEqual(restored_layer.max_value, relu_layer.max_value)
        self.assertEqual(restored_layer.negative_slope, relu_layer.negative_slope)
        self.assertEqual(restored_layer.threshold, relu_layer.threshold)

    def test_compute_output_shape(self):
        # Test that output shape equals input shape for various shapes
        relu_layer = layers.ReLU()
        self.assertEqual(relu_layer.compute_output_shape((2, 3)), (2, 3))
        self.assertEqual(relu_layer.compute_output_shape((4, 5, 6)), (4, 5, 6))
        self.assertEqual(relu_layer.compute_output_shape((1,)), (1,))

    def test_default_relu_no_args(self):
        # Test standard ReLU with all default parameters
        relu_layer = layers.ReLU()
        input = np.array([-3.0, -1.0, 0.0, 1.0, 3.0])
        expected_output = np.array([0.0, 0.0, 0.0, 1.0, 3.0])
        result = relu_layer(input)
        self.assertAllClose(result, expected_output)

    def test_relu_none_max_value_is_unlimited(self):
        # Test that max_value=None means no upper cap on activation
        relu_layer = layers.ReLU(max_value=None)
        input = np.array([0.0, 100.0, 1000.0, 99999.0])
        result = relu_layer(input)
        self.assertAllClose(result, input)

    def test_relu_all_zeros_input(self):
        # Edge case: all-zeros input should produce all-zeros output
        relu_layer = layers.ReLU()
        input = np.zeros((3, 4))
        result = relu_layer(input)
        self.assertAllClose(result, np.zeros((3, 4)))

    def test_relu_multidimensional_input(self):
        # Test ReLU on 2D and 3D inputs
        relu_layer = layers.ReLU()
        input_2d = np.array([[-1.0, 2.0], [3.0, -4.0]])
        expected_2d = np.array([[0.0, 2.0], [3.0, 0.0]])
        self.assertAllClose(relu_layer(input_2d), expected_2d)

        input_3d = np.ones((2, 3, 4)) * -1.0
        expected_3d = np.zeros((2, 3, 4))
        self.assertAllClose(relu_layer(input_3d), expected_3d)

    def test_negative_slope_none_raises(self):
        # negative_slope=None should raise a ValueError with clear message
        with self.assertRaisesRegex(
            ValueError,
            "negative_slope of a ReLU layer cannot be None or a negative value",
        ):
            layers.ReLU(negative_slope=None)

    def test_threshold_none_raises(self):
        # threshold=None should raise a ValueError with clear message
        with self.assertRaisesRegex(
            ValueError,
            "threshold of a ReLU layer cannot be None or a negative value",
        ):
            layers.ReLU(threshold=None)


class TestSoftmax(testing.TestCase):
    def test_softmax(self):
        self.run_layer_test(
            layers.Softmax,
            init_kwargs={},
            input_shape=(2, 3, 4),
            supports_masking=True,
            assert_built_after_instantiation=True,
        )

    def test_softmax_correctness(self):
        softmax_layer = layers.Softmax()
        input = np.array([[1.0, 2.0, 1.0], [1.0, 2.0, 1.0]])
        expected_output = np.array(
            [
                [0.21194157, 0.5761169, 0.21194157],
                [0.21194157, 0.5761169, 0.21194157],
            ]
        )
        result = softmax_layer(input)
        self.assertAllClose(result, expected_output)

    def test_softmax_correctness_with_mask(self):
        softmax_layer = layers.Softmax(axis=(1, 0))
        input = np.array([[1.0, 2.0, 1.0], [1.0, 2.0, 1.0]])
        mask = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
        expected_output = np.array([[0.21194154, 0.0, 0.21194154], [0.0, 0.57611686, 0.0]])
        result = softmax_layer(input, mask=mask)
        self.assertAllClose(result, expected_output)

    def test_softmax_correctness_with_axis(self):
        softmax_layer = layers.Softmax(axis=(1))
        input = np.array([[1.0, 2.0, 1.0], [1.0, 2.0, 1.0]])
        expected_output = np.array(
            [
                [0.21194157, 0.5761169, 0.21194157],
                [0.21194157, 0.5761169, 0.21194157],
            ]
        )
        result = softmax_layer(input)
        self.assertAllClose(result, expected_output)

    def test_softmax_masked_values_are_zero_including_fully_masked(self):
        """
        Tests softmax with mask on default axis (-1).
        Ensures output is 0 where mask is False.
        Includes a row where all elements are masked.
        """
        softmax_layer = layers.Softmax()  # Default axis = -1

        input = np.array(
            [
                [1.0, 2.0, 5.0, 1.0],
                [1.0, 1.0, 1.0, 1.0],
                [3.0, 1.0, 2.0, 4.0],
            ],
            dtype=np.float32,
        )
        mask = np.array(
            [
                [True, True, False, False],  # Partially masked
                [False, False, False, False],  # Fully masked
                [True, True, True, True],  # Not masked
            ],
            dtype=bool,
        )

        expected_output = np.array(
            [
                [0.268941, 0.731059, 0.0, 0.0],  # last two masked
                [0.0, 0.0, 0.0, 0.0],  # Fully masked row should be all zeros
                [0.236883, 0.032059, 0.087144, 0.643914],
            ]
        )

        result = softmax_layer(input, mask=mask)

        self.assertAllClose(result, expected_output)

    def test_softmax_mask_broadcastable(self):
        softmax_layer = layers.Softmax()
        # mask (1, 3) broadcastable to inputs (2, 3) — should work
        inputs = np.array([[1.0, 2.0, 1.0], [3.0, 4.0, 5.0]])
        mask = np.array([[1.0, 0.0, 1.0]])
        result = softmax_layer(inputs, mask=mask)
        # Masked position (column 1) should be 0
        self.assertAllClose(result[:, 1], [0.0, 0.0])

    def test_softmax_mask_broadcastable_fewer_dims(self):
        softmax_layer = layers.Softmax(axis=-1)
        # mask (3,) broadcastable to inputs (2, 3) — should work
        inputs = np.array([[1.0, 2.0, 1.0], [3.0, 4.0, 5.0]])
        mask = np.array([1.0, 0.0, 1.0])
        result = softmax_layer(inputs, mask=mask)
        self.assertAllClose(result[:, 1], [0.0, 0.0])

    def test_softmax_mask_shape_mismatch(self):
        softmax_layer = layers.Softmax()
        # mask (2, 3) with inputs (1, 3) — mask is larger, not allowed
        inputs = np.array([[1.0, 2.0, 1.0]])
        mask = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
        with self.assertRaisesRegex(ValueError, "broadcastable"):
            softmax_layer(inputs, mask=mask)

    def test_softmax_mask_too_many_dims(self):
        softmax_layer = layers.Softmax()
        # mask has more dimensions than inputs — not allowed
        inputs = np.array([[1.0, 2.0, 1.0]])
        mask = np.array([[[1.0, 0.0, 1.0]]])
        with self.assertRaisesRegex(ValueError, "must not have more dimensions"):
            softmax_layer(inputs, mask=mask)
