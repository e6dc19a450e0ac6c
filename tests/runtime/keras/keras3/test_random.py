"""Keras 3's random tests (keras/src/random/random_test.py, the public API), ported to
``rt.keras.random``: shapes, bounds, dtypes and Keras' seeding rules."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt

random = rt.keras.random
ops = rt.keras.ops
NO_DTYPE = pytest.mark.xfail(strict=True, reason="rt has no uint16 or uint32 dtype")


@pytest.mark.parametrize(
    ("shape", "mean", "stddev"), [((5,), 0, 1), ((2, 3), 0, 1), ((2, 3, 4), 0, 1), ((2, 3), 10, 3)]
)
def test_normal(shape, mean, stddev):
    res = random.normal(shape, mean=mean, stddev=stddev, seed=10)
    assert tuple(res.shape) == shape


def test_normal_moments():
    res = random.normal((20000,), mean=10, stddev=3, seed=10).numpy()
    assert abs(res.mean() - 10) < 0.1 and abs(res.std() - 3) < 0.1


@pytest.mark.parametrize(
    ("shape", "minval", "maxval"),
    [((5,), 0, 1), ((2, 3, 4), 0, 2), ((2, 3), -1, 1), ((2, 3), 1, 3)],
)
def test_uniform(shape, minval, maxval):
    res = random.uniform(shape, minval=minval, maxval=maxval, seed=10)
    assert tuple(res.shape) == shape
    assert ops.max(res).numpy() <= maxval and ops.min(res).numpy() >= minval


@pytest.mark.parametrize(
    ("shape", "low", "high", "dtype"),
    [
        pytest.param((5,), 0, 10, "uint16", marks=NO_DTYPE),
        pytest.param((2, 3), 0, 10, "uint32", marks=NO_DTYPE),
        ((2, 3, 4), 0, 2, "int8"),
        ((2, 3), -1, 1, "int16"),
        ((2, 3), 1, 3, "int32"),
    ],
)
def test_randint(shape, low, high, dtype):
    res = random.randint(shape, minval=low, maxval=high, seed=10, dtype=dtype)
    assert tuple(res.shape) == shape
    assert low <= ops.min(res).numpy() and ops.max(res).numpy() < high
    assert res.dtype.name == dtype


@pytest.mark.parametrize(
    ("shape", "mean", "stddev"), [((5,), 0, 1), ((2, 3), 10, 3), ([2, 3], 10, 3)]
)
def test_truncated_normal(shape, mean, stddev):
    res = random.truncated_normal(shape, mean=mean, stddev=stddev, seed=10)
    assert tuple(res.shape) == tuple(shape)
    assert ops.max(res).numpy() <= mean + 2 * stddev and ops.min(res).numpy() >= mean - 2 * stddev


def test_truncated_normal_stays_within_two_deviations_and_is_centred():
    res = random.truncated_normal((20000,), seed=3).numpy()
    assert np.abs(res).max() <= 2.0
    assert abs(res.mean()) < 0.05
    assert abs(res.std() - 0.8796) < 0.02  # a standard normal truncated at 2: std 0.8796


def test_dropout():
    x = ops.ones((10, 10))
    np.testing.assert_allclose(random.dropout(x, rate=0, seed=0).numpy(), x.numpy())
    x_res = random.dropout(x, rate=0.5, seed=0)
    assert ops.max(x_res).numpy() > ops.max(x).numpy()
    np.testing.assert_allclose(ops.max(x_res).numpy(), 2.0)
    assert int(ops.sum(ops.cast(x_res == 0, "int32")).numpy()) > 2
    np.testing.assert_allclose(random.dropout(x, rate=1.0, seed=0).numpy(), np.zeros((10, 10)))


def test_dropout_noise_shape():
    inputs = ops.ones((2, 3, 5, 7))
    x = random.dropout(inputs, rate=0.3, noise_shape=[None, 3, 5, None], seed=0)
    assert tuple(x.shape) == (2, 3, 5, 7)
    # One draw per (example, channel) along a noise axis of size 1.
    shared = random.dropout(inputs, rate=0.5, noise_shape=[2, 3, 5, 1], seed=1).numpy()
    assert (shared == shared[..., :1]).all()


def test_shuffle():
    x = np.arange(100).reshape(10, 10)
    for axis, other in ((0, 1), (1, 0), (-1, 0)):
        y = random.shuffle(x, axis=axis, seed=0).numpy()
        assert not np.all(x == y)
        np.testing.assert_allclose(np.sum(x, axis=axis), np.sum(y, axis=axis))
        assert not np.allclose(np.sum(x, axis=other), np.sum(y, axis=other))


def test_categorical():
    for num_samples, batch_size in ((1, 1), (5, 2), (15, 8)):
        logits = np.eye(batch_size) * 1e5 + 1e6
        res = random.categorical(logits, num_samples, seed=10)
        assert tuple(res.shape) == (batch_size, num_samples)
        expected = np.tile(np.arange(batch_size)[:, None], (1, num_samples))
        np.testing.assert_array_equal(res.numpy(), expected)


def test_categorical_errors():
    for logits in (np.ones((5,)), np.ones((5, 5, 5))):
        with pytest.raises(ValueError):
            random.categorical(logits, 5)


def test_randint_dtype_validation():
    with pytest.raises(ValueError, match="`keras.random.randint` requires an integer `dtype`."):
        random.randint((3, 4), minval=0, maxval=10, dtype="float64")


def test_uniform_dtype_validation():
    with pytest.raises(
        ValueError, match="`keras.random.uniform` requires a floating point `dtype`."
    ):
        random.uniform((3, 4), minval=0, maxval=10, dtype="int64")


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_float_dtypes(dtype):
    for draw in (
        random.normal((2, 3), dtype=dtype),
        random.uniform((2, 3), dtype=dtype),
        random.truncated_normal((2, 3), dtype=dtype),
        random.dropout(ops.ones((3, 5), dtype=dtype), rate=0.8, seed=0),
    ):
        assert draw.dtype.name == dtype


def test_seeding_rules():
    # An int seed repeats its numbers; a SeedGenerator moves on, and repeats its sequence.
    np.testing.assert_array_equal(
        random.normal((4,), seed=5).numpy(), random.normal((4,), seed=5).numpy()
    )
    gen, twin = random.SeedGenerator(5), random.SeedGenerator(5)
    first, second = random.normal((4,), seed=gen).numpy(), random.normal((4,), seed=gen).numpy()
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(random.normal((4,), seed=twin).numpy(), first)


def test_inside_a_staged_function():
    gen = random.SeedGenerator(0)
    draw = ag.function(lambda: random.dropout(ops.ones((50,)), rate=0.5, seed=gen))
    a, b = draw().numpy(), draw().numpy()
    assert set(np.unique(a)) <= {0.0, 2.0} and not np.array_equal(a, b)
