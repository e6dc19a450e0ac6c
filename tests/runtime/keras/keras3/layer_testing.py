"""What Keras 3's ``testing.TestCase`` gives its tests (assertions, ``run_layer_test``),
written for ``rt.keras`` so that ported tests read as Keras's do."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

import autograph as ag
import runtime as rt


def as_numpy(value):
    """A tensor, a variable, a list of them or a number as numpy."""
    if isinstance(value, (list, tuple)):
        return [as_numpy(v) for v in value]
    if hasattr(value, "numpy"):
        return value.numpy()
    return np.asarray(value)


def _parameters(function):
    return inspect.signature(function).parameters


class _Raises:
    """``with self.assertRaises(E) as context:``, then ``context.exception``, as unittest's."""

    def __init__(self, exception):
        self.expected, self.exception = exception, None

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        if kind is None:
            raise AssertionError(f"{self.expected.__name__} not raised")
        if not issubclass(kind, self.expected):
            return False
        self.exception = value
        return True


class TestCase:
    """Keras' assertions over ``rt`` tensors (pytest collects subclasses named ``Test*``)."""

    def assertAllClose(self, actual, desired, atol=1e-6, rtol=1e-6, msg=None):
        actual, desired = as_numpy(actual), as_numpy(desired)
        np.testing.assert_allclose(actual, desired, atol=atol, rtol=rtol, err_msg=msg or "")

    def assertNotAllClose(self, actual, desired, atol=1e-6, rtol=1e-6):
        with pytest.raises(AssertionError):
            self.assertAllClose(actual, desired, atol=atol, rtol=rtol)

    def assertAllEqual(self, actual, desired):
        np.testing.assert_array_equal(as_numpy(actual), as_numpy(desired))

    def assertEqual(self, a, b, msg=None):
        assert a == b, msg or f"{a!r} != {b!r}"

    def assertNotEqual(self, a, b):
        assert a != b

    def assertTrue(self, value, msg=None):
        assert value, msg

    def assertFalse(self, value, msg=None):
        assert not value, msg

    def assertIs(self, a, b):
        assert a is b

    def assertIsNone(self, value):
        assert value is None

    def assertIsNotNone(self, value):
        assert value is not None

    def assertIsInstance(self, value, cls):
        assert isinstance(value, cls), f"{value!r} is not a {cls}"

    def assertIn(self, item, container):
        assert item in container

    def assertLen(self, container, n):
        assert len(container) == n, f"len {len(container)} != {n}"

    def assertGreater(self, a, b):
        assert a > b

    def assertLess(self, a, b):
        assert a < b

    def assertGreaterEqual(self, a, b):
        assert a >= b

    def assertAlmostEqual(self, a, b, places=7):
        assert round(abs(float(a) - float(b)), places) == 0, f"{a} != {b}"

    def run_class_serialization_test(self, instance, custom_objects=None):
        """The config is JSON, and rebuilds an equal object whose config is the same."""
        config = instance.get_config()
        json.dumps(config)
        rebuilt = type(instance).from_config(config)
        assert rebuilt.get_config() == config
        assert set(vars(rebuilt)) == set(vars(instance))
        return rebuilt

    def assertRaises(self, exception, *args):
        if args:
            with pytest.raises(exception):
                args[0](*args[1:])
            return None
        return _Raises(exception)

    def assertDictEqual(self, a, b):
        assert a == b

    def assertRaisesRegex(self, exception, pattern, *args):
        if args:
            with pytest.raises(exception, match=pattern):
                args[0](*args[1:])
            return None
        return pytest.raises(exception, match=pattern)

    def assertDType(self, x, dtype):
        assert rt.as_dtype(x.dtype).name == rt.as_dtype(dtype).name

    def run_layer_test(
        self,
        layer_cls,
        init_kwargs,
        input_shape=None,
        input_dtype="float32",
        input_data=None,
        call_kwargs=None,
        expected_output_shape=None,
        expected_output_dtype=None,
        expected_output=None,
        expected_num_trainable_weights=None,
        expected_num_non_trainable_weights=None,
        expected_num_non_trainable_variables=None,
        expected_num_seed_generators=None,
        expected_num_losses=None,
        supports_masking=None,
        custom_objects=None,
        run_training_check=True,
        run_mixed_precision_check=True,
        assert_built_after_instantiation=False,
        **unused,
    ):
        """Keras' layer checks: the config rebuilds the layer, the layer computes the expected
        output eagerly and inside ``ag.function`` alike, has the expected weights and losses,
        and gradients reach its trainable weights."""
        layer = layer_cls(**init_kwargs)
        if supports_masking is not None:
            assert layer.supports_masking == supports_masking, "Unexpected supports_masking value"
        config = layer.get_config()
        options = {}
        if custom_objects is not None and "custom_objects" in _parameters(layer_cls.from_config):
            options["custom_objects"] = custom_objects
        rebuilt = layer_cls.from_config(config, **options)
        assert rebuilt.get_config() == config
        if input_data is None:
            rng = np.random.default_rng(0)
            input_data = rng.normal(size=input_shape).astype(input_dtype or "float32")
        call_kwargs = call_kwargs or {}
        output = layer(input_data, **call_kwargs)
        if expected_output_shape is not None:
            assert tuple(output.shape.as_list()) == tuple(expected_output_shape)
        if expected_output_dtype is not None:
            self.assertDType(output, expected_output_dtype)
        if expected_output is not None:
            self.assertAllClose(output, expected_output, atol=1e-5, rtol=1e-5)
        if expected_num_trainable_weights is not None:
            assert len(layer.trainable_weights) == expected_num_trainable_weights
        if expected_num_non_trainable_weights is not None:
            assert len(layer.non_trainable_weights) == expected_num_non_trainable_weights
        if expected_num_losses is not None:
            assert len(layer.losses) == expected_num_losses
        staged = ag.function(lambda x: layer(x, **call_kwargs))(input_data)
        if not call_kwargs.get("training"):
            self.assertAllClose(staged, output, atol=1e-5, rtol=1e-5)
        if run_training_check and layer.trainable_weights and output.dtype.is_floating:
            with rt.GradientTape() as tape:
                loss = rt.reduce_sum(layer(input_data, **call_kwargs))
            grads = tape.gradient(loss, layer.trainable_weights)
            assert all(g is not None for g in grads)
        return layer
