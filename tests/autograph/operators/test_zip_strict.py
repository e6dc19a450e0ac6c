"""zip(..., strict=True) in converted code: Python's zip for Python values; for tensors the
lengths must be known while tracing and equal, with Python's ValueError when they are not."""

import numpy as np
import pytest

import autograph as ag
import runtime as rt


def test_python_values_zip_as_python_does():
    @ag.function
    def pairs(x):
        return list(zip([x, x], [1, 2], strict=True))

    assert [(int(a), b) for a, b in pairs(rt.constant(3))] == [(3, 1), (3, 2)]

    @ag.function
    def uneven():
        return list(zip([1, 2], [1], strict=True))

    with pytest.raises(ValueError, match="zip\\(\\) argument 2 is shorter than argument 1"):
        uneven()


def test_tensors_of_equal_length_loop_together():
    @ag.function
    def dot(a, b):
        total = 0.0
        for x, y in zip(a, b, strict=True):
            total += x * y
        return total

    a, b = np.array([1.0, 2.0, 3.0], np.float32), np.array([4.0, 5.0, 6.0], np.float32)
    np.testing.assert_allclose(dot(rt.constant(a), rt.constant(b)).numpy(), a @ b)


def test_tensors_of_other_lengths_are_refused():
    @ag.function
    def pairs(a, b):
        for x, y in zip(a, b, strict=True):
            rt.print(x, y)

    with pytest.raises(ValueError, match="zip\\(\\) argument 2 is longer than argument 1"):
        pairs(rt.constant([1, 2]), rt.constant([1, 2, 3]))
    with pytest.raises(TypeError, match="first dimension is unknown"):
        pairs.get_concrete_function(rt.TensorSpec([None], rt.int32), rt.TensorSpec([2], rt.int32))
