"""Ported from Keras 3's keras/src/regularizers/regularizers_test.py (public API only: the internal
``validate_float_arg`` checks are left out)."""

import numpy as np

import runtime as rt
from runtime.keras import regularizers
from tests.runtime.keras.keras3 import layer_testing as testing
from tests.runtime.keras.keras3.layer_testing import as_numpy


class TestRegularizers(testing.TestCase):
    def test_config(self):
        reg = regularizers.L1(0.1)
        self.run_class_serialization_test(reg)

        reg = regularizers.L2(0.1)
        self.run_class_serialization_test(reg)

        reg = regularizers.L1L2(l1=0.1, l2=0.2)
        self.run_class_serialization_test(reg)

        reg = regularizers.OrthogonalRegularizer(factor=0.1, mode="rows")
        self.run_class_serialization_test(reg)

    def test_l1(self):
        value = np.random.random((4, 4)).astype(np.float32)
        x = rt.Variable(value)
        y = regularizers.L1(0.1)(x)
        self.assertAllClose(y, 0.1 * np.sum(np.abs(value)))

    def test_l2(self):
        value = np.random.random((4, 4)).astype(np.float32)
        x = rt.Variable(value)
        y = regularizers.L2(0.1)(x)
        self.assertAllClose(y, 0.1 * np.sum(np.square(value)))

    def test_l1_l2(self):
        value = np.random.random((4, 4)).astype(np.float32)
        x = rt.Variable(value)
        y = regularizers.L1L2(l1=0.1, l2=0.2)(x)
        self.assertAllClose(y, 0.1 * np.sum(np.abs(value)) + 0.2 * np.sum(np.square(value)))

    def test_orthogonal_regularizer(self):
        value = np.random.random((4, 4)).astype(np.float32)
        x = rt.Variable(value)
        y = regularizers.OrthogonalRegularizer(factor=0.1, mode="rows")(x)

        l2_norm = np.linalg.norm(value, axis=1, keepdims=True)
        inputs = value / l2_norm
        self.assertAllClose(
            y,
            0.1
            * 0.5
            * np.sum(np.abs(np.dot(inputs, np.transpose(inputs)) * (1.0 - np.eye(4))))
            / (4.0 * (4.0 - 1.0) / 2.0),
        )

    def test_get_method(self):
        obj = regularizers.get("l1l2")
        self.assertIsInstance(obj, regularizers.L1L2)

        obj = regularizers.get("l1")
        self.assertIsInstance(obj, regularizers.L1)

        obj = regularizers.get("l2")
        self.assertIsInstance(obj, regularizers.L2)

        obj = regularizers.get("orthogonal_regularizer")
        self.assertIsInstance(obj, regularizers.OrthogonalRegularizer)

        obj = regularizers.get(None)
        self.assertEqual(obj, None)

        with self.assertRaises(ValueError):
            regularizers.get("typo")

    def test_l1l2_get_config(self):
        l1 = 0.01
        l2 = 0.02
        reg = regularizers.L1L2(l1=l1, l2=l2)
        config = reg.get_config()

        self.assertAllClose(config["l1"], l1)
        self.assertAllClose(config["l2"], l2)

        reg_from_config = regularizers.L1L2.from_config(config)
        config_from_config = reg_from_config.get_config()

        self.assertDictEqual(config, config_from_config)
        self.assertAllClose(reg_from_config.l1, l1)
        self.assertAllClose(reg_from_config.l2, l2)

    def test_orthogonal_regularizer_mode_validation(self):
        with self.assertRaises(ValueError) as context:
            regularizers.OrthogonalRegularizer(factor=0.01, mode="invalid_mode")

        expected_message = (
            'Invalid value for argument `mode`. Expected one of {"rows", '
            '"columns"}. Received: mode=invalid_mode'
        )
        self.assertEqual(str(context.exception), expected_message)

    def test_orthogonal_regularizer_input_rank_validation(self):
        with self.assertRaises(ValueError) as context:
            value = np.random.random((4, 4, 4)).astype(np.float32)
            x = rt.Variable(value)
            regularizers.OrthogonalRegularizer(factor=0.1)(x)

        expected_message = (
            f"Inputs to OrthogonalRegularizer must have rank 2. Received: inputs.shape={(4, 4, 4)}"
        )
        self.assertEqual(str(context.exception), expected_message)

    def test_orthogonal_regularizer_get_config(self):
        factor = 0.01
        mode = "columns"
        regularizer = regularizers.OrthogonalRegularizer(factor=factor, mode=mode)
        config = regularizer.get_config()

        self.assertAlmostEqual(config["factor"], factor, 7)
        self.assertEqual(config["mode"], mode)

        reg_from_config = regularizers.OrthogonalRegularizer.from_config(config)
        config_from_config = reg_from_config.get_config()

        self.assertAlmostEqual(config_from_config["factor"], factor, 7)
        self.assertEqual(config_from_config["mode"], mode)

    def test_l1_with_zero_weights(self):
        value = np.zeros((4, 4), dtype=np.float32)
        x = rt.Variable(value)
        y = regularizers.L1(0.1)(x)
        self.assertAllClose(y, 0.0)

    def test_l1_with_negative_weights(self):
        pos_value = np.ones((4, 4), dtype=np.float32)
        neg_value = -np.ones((4, 4), dtype=np.float32)
        x_pos = rt.Variable(pos_value)
        x_neg = rt.Variable(neg_value)
        y_pos = regularizers.L1(0.1)(x_pos)
        y_neg = regularizers.L1(0.1)(x_neg)
        self.assertAllClose(y_pos, y_neg)

    def test_l1_zero_coefficient(self):
        value = np.random.random((4, 4)).astype(np.float32)
        x = rt.Variable(value)
        y = regularizers.L1(0.0)(x)
        self.assertAllClose(y, 0.0)

    def test_l2_with_zero_weights(self):
        value = np.zeros((4, 4), dtype=np.float32)
        x = rt.Variable(value)
        y = regularizers.L2(0.1)(x)
        self.assertAllClose(y, 0.0)

    def test_l2_zero_coefficient(self):
        value = np.random.random((4, 4)).astype(np.float32)
        x = rt.Variable(value)
        y = regularizers.L2(0.0)(x)
        self.assertAllClose(y, 0.0)

    def test_l2_is_larger_than_l1_for_large_weights(self):
        value = np.ones((4, 4), dtype=np.float32) * 10.0
        x = rt.Variable(value)
        l1_val = float(as_numpy(regularizers.L1(1.0)(x)))
        l2_val = float(as_numpy(regularizers.L2(1.0)(x)))
        self.assertGreater(l2_val, l1_val)

    def test_l2_is_smaller_than_l1_for_small_weights(self):
        value = np.ones((4, 4), dtype=np.float32) * 0.1
        x = rt.Variable(value)
        l1_val = float(as_numpy(regularizers.L1(1.0)(x)))
        l2_val = float(as_numpy(regularizers.L2(1.0)(x)))
        self.assertLess(l2_val, l1_val)

    def test_l1l2_zero_coefficients(self):
        value = np.random.random((4, 4)).astype(np.float32)
        x = rt.Variable(value)
        y = regularizers.L1L2(l1=0.0, l2=0.0)(x)
        self.assertAllClose(y, 0.0)

    def test_l1l2_only_l1(self):
        value = np.random.random((4, 4)).astype(np.float32)
        x = rt.Variable(value)
        y_l1l2 = regularizers.L1L2(l1=0.1, l2=0.0)(x)
        y_l1 = regularizers.L1(0.1)(x)
        self.assertAllClose(y_l1l2, y_l1)

    def test_l1l2_only_l2(self):
        value = np.random.random((4, 4)).astype(np.float32)
        x = rt.Variable(value)
        y_l1l2 = regularizers.L1L2(l1=0.0, l2=0.1)(x)
        y_l2 = regularizers.L2(0.1)(x)
        self.assertAllClose(y_l1l2, y_l2)

    def test_l1l2_with_zero_weights(self):
        value = np.zeros((4, 4), dtype=np.float32)
        x = rt.Variable(value)
        y = regularizers.L1L2(l1=0.1, l2=0.2)(x)
        self.assertAllClose(y, 0.0)
