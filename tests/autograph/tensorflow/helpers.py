"""What TensorFlow's test case gives its tests (assertAllEqual, assertAllClose), for the ports."""

import numpy as np

import runtime as rt


def to_numpy(value):
    """A value as TensorFlow's ``self.evaluate`` gives it: tensors and variables as numpy,
    lists, tuples and dicts element by element."""
    if isinstance(value, dict):
        return {k: to_numpy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_numpy(v) for v in value]
    if isinstance(value, (rt.Tensor, rt.Variable)):
        return value.numpy()
    return value


def assert_all_equal(actual, expected):
    """TensorFlow's ``assertAllEqual``: the same shape and the same values."""
    np.testing.assert_array_equal(np.asarray(to_numpy(actual)), np.asarray(to_numpy(expected)))


def assert_all_close(actual, expected):
    """TensorFlow's ``assertAllClose`` (its default tolerances)."""
    np.testing.assert_allclose(
        np.asarray(to_numpy(actual), dtype=np.float64),
        np.asarray(to_numpy(expected), dtype=np.float64),
        rtol=1e-6,
        atol=1e-6,
    )
