"""Keras 3's pooling tests (``keras/src/layers/pooling/max_pooling_test.py``,
``average_pooling_test.py``, ``global_max_pooling_test.py``,
``global_average_pooling_test.py``), the 1-D and 2-D cases, ported. Not ported: the 3-D
layers, which rt.keras does not have. The reference pooling is written here."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from tests.runtime.keras.keras3.conv_pool_harness import run_layer_test

layers = rt.keras.layers


def _tuple(value, n):
    return (value,) * n if isinstance(value, int) else tuple(value)


def reference_pool(x, pool_size, strides, padding, data_format, reduce):
    """``reduce`` over each window's elements inside the input (SAME padding as TensorFlow
    places it: the odd element after), channels last inside."""
    rank = x.ndim - 2
    if data_format == "channels_first":
        x = np.moveaxis(x, 1, -1)
    window, strides = _tuple(pool_size, rank), _tuple(strides, rank)
    spatial = x.shape[1:-1]
    if padding == "valid":
        out = [(n - k) // s + 1 for n, k, s in zip(spatial, window, strides)]
        before = [0] * rank
    else:
        out = [-(-n // s) for n, s in zip(spatial, strides)]
        before = [max((o - 1) * s + k - n, 0) // 2 for o, s, k, n in zip(out, strides, window, spatial)]  # fmt: skip
    result = np.zeros((x.shape[0], *out, x.shape[-1]))
    for position in np.ndindex(*out):
        starts = [p * s - b for p, s, b in zip(position, strides, before)]
        index = tuple(slice(max(a, 0), min(a + k, n)) for a, k, n in zip(starts, window, spatial))
        inside = x[(slice(None), *index, slice(None))]
        result[(slice(None), *position)] = reduce(
            inside.reshape(x.shape[0], -1, x.shape[-1]), axis=1
        )
    return np.moveaxis(result, -1, 1) if data_format == "channels_first" else result


# --- max and average pooling: shapes and configs -----------------------------------------------

BASIC_1D = [
    (2, 1, "valid", "channels_last", (3, 5, 4), (3, 4, 4)),
    (2, 1, "same", "channels_first", (3, 5, 4), (3, 5, 4)),
    ((2,), (2,), "valid", "channels_last", (3, 5, 4), (3, 2, 4)),
]
MAX_BASIC_2D = [
    (2, 1, "valid", "channels_last", (3, 5, 5, 4), (3, 4, 4, 4)),
    (2, 1, "same", "channels_first", (3, 5, 5, 4), (3, 5, 5, 4)),
    ((2, 3), (2, 2), "valid", "channels_last", (3, 5, 5, 4), (3, 2, 2, 4)),
]
AVERAGE_BASIC_2D = [
    (2, 1, "valid", "channels_last", (3, 5, 5, 4), (3, 4, 4, 4)),
    (2, 1, "same", "channels_last", (3, 5, 5, 4), (3, 5, 5, 4)),
    (2, 1, "valid", "channels_first", (3, 5, 5, 4), (3, 5, 4, 3)),
    (2, 1, "same", "channels_first", (3, 5, 5, 4), (3, 5, 5, 4)),
    ((2, 3), (2, 2), "valid", "channels_last", (3, 5, 5, 4), (3, 2, 2, 4)),
    ((2, 3), (2, 2), "same", "channels_last", (3, 5, 5, 4), (3, 3, 3, 4)),
    ((2, 3), (3, 3), "same", "channels_first", (3, 5, 5, 4), (3, 5, 2, 2)),
]


@pytest.mark.parametrize(
    "layer_class, case",
    [(layers.MaxPooling1D, c) for c in BASIC_1D]
    + [(layers.MaxPooling2D, c) for c in MAX_BASIC_2D]
    + [(layers.AveragePooling1D, c) for c in BASIC_1D]
    + [(layers.AveragePooling2D, c) for c in AVERAGE_BASIC_2D],
)
def test_pooling_basic(layer_class, case):
    pool_size, strides, padding, data_format, input_shape, output_shape = case
    run_layer_test(
        layer_class,
        init_kwargs={
            "pool_size": pool_size,
            "strides": strides,
            "padding": padding,
            "data_format": data_format,
        },
        input_shape=input_shape,
        expected_output_shape=output_shape,
        assert_built_after_instantiation=True,
    )


# --- max and average pooling: values -------------------------------------------------------------

MAX_1D = [
    (2, 1, "valid", "channels_last"),
    (2, 1, "valid", "channels_first"),
    (2, 1, "same", "channels_last"),
    (2, 1, "same", "channels_first"),
    ((2,), (2,), "valid", "channels_last"),
    ((2,), (2,), "valid", "channels_first"),
]
MAX_2D = [
    (2, 1, "valid", "channels_last"),
    (2, 1, "valid", "channels_first"),
    ((2, 2), (2, 2), "same", "channels_last"),
    ((2, 2), (2, 2), "same", "channels_first"),
    ((2, 3), (3, 3), "same", "channels_last"),
]
AVERAGE_1D = [
    (2, 1, "valid", "channels_last"),
    (2, 1, "valid", "channels_first"),
    ((2,), (2,), "valid", "channels_last"),
    ((2,), (2,), "valid", "channels_first"),
    (2, 1, "same", "channels_last"),
    (2, 1, "same", "channels_first"),
    ((2,), (2,), "same", "channels_last"),
    ((2,), (2,), "same", "channels_first"),
]
AVERAGE_2D = [
    (2, 1, "valid", "channels_last"),
    ((2, 3), (2, 2), "valid", "channels_last"),
    (2, (2, 1), "same", "channels_last"),
    (2, (2, 1), "same", "channels_first"),
    ((2, 2), (2, 2), "same", "channels_last"),
    ((2, 2), (2, 2), "same", "channels_first"),
]


def _check_values(layer_class, inputs, case, reduce):
    pool_size, strides, padding, data_format = case
    layer = layer_class(
        pool_size=pool_size, strides=strides, padding=padding, data_format=data_format
    )
    expected = reference_pool(inputs, pool_size, strides, padding, data_format, reduce)
    np.testing.assert_allclose(layer(inputs).numpy(), expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", MAX_1D)
def test_max_pooling1d(case):
    _check_values(layers.MaxPooling1D, np.arange(24, dtype="float32").reshape((2, 3, 4)), case, np.max)  # fmt: skip


@pytest.mark.parametrize("case", MAX_2D)
def test_max_pooling2d(case):
    _check_values(layers.MaxPooling2D, np.arange(100, dtype="float32").reshape((1, 5, 5, 4)), case, np.max)  # fmt: skip


@pytest.mark.parametrize("case", AVERAGE_1D)
def test_average_pooling1d(case):
    _check_values(layers.AveragePooling1D, np.arange(24, dtype="float32").reshape((2, 3, 4)), case, np.mean)  # fmt: skip


@pytest.mark.parametrize("case", AVERAGE_2D)
def test_average_pooling2d(case):
    _check_values(layers.AveragePooling2D, np.arange(16, dtype="float32").reshape((1, 4, 4, 1)), case, np.mean)  # fmt: skip


# --- global pooling ------------------------------------------------------------------------------

GLOBAL_BASIC = [
    ("channels_last", False, (3, 5, 4), (3, 4)),
    ("channels_last", True, (3, 5, 4), (3, 1, 4)),
    ("channels_first", False, (3, 5, 4), (3, 5)),
    ("channels_last", False, (3, 5, 6, 4), (3, 4)),
    ("channels_last", True, (3, 5, 6, 4), (3, 1, 1, 4)),
    ("channels_first", False, (3, 5, 6, 4), (3, 5)),
]


@pytest.mark.parametrize("kind", ["Average", "Max"])
@pytest.mark.parametrize("case", GLOBAL_BASIC)
def test_global_pooling_basic(kind, case):
    data_format, keepdims, input_shape, output_shape = case
    layer_class = getattr(layers, f"Global{kind}Pooling{len(input_shape) - 2}D")
    run_layer_test(
        layer_class,
        init_kwargs={"data_format": data_format, "keepdims": keepdims},
        input_shape=input_shape,
        expected_output_shape=output_shape,
        assert_built_after_instantiation=True,
    )


FORMATS = [("channels_last", False), ("channels_last", True),
           ("channels_first", False), ("channels_first", True)]  # fmt: skip


def _global_reference(x, data_format, keepdims, reduce):
    rank = x.ndim - 2
    axes = (
        tuple(range(1, rank + 1)) if data_format == "channels_last" else tuple(range(2, rank + 2))
    )
    return reduce(x, axis=axes, keepdims=keepdims)


@pytest.mark.parametrize("data_format, keepdims", FORMATS)
def test_global_average_pooling1d(data_format, keepdims):
    inputs = np.arange(24, dtype="float32").reshape((2, 3, 4))
    layer = layers.GlobalAveragePooling1D(data_format=data_format, keepdims=keepdims)
    expected = _global_reference(inputs, data_format, keepdims, np.mean)
    np.testing.assert_allclose(layer(inputs).numpy(), expected, rtol=1e-6)
    # A mask of the steps: the mean of the steps it keeps.
    if data_format == "channels_last":
        mask = np.array([[1, 1, 0], [0, 1, 0]], dtype="int32")
        weights = mask[:, :, None]
    else:
        mask = np.array([[1, 1, 0, 0], [0, 1, 0, 1]], dtype="int32")
        weights = mask[:, None, :]
    steps = 1 if data_format == "channels_last" else 2
    expected = (inputs * weights).sum(axis=steps, keepdims=keepdims) / weights.sum(
        axis=steps, keepdims=keepdims
    )
    np.testing.assert_allclose(layer(inputs, mask).numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("kind, reduce", [("Average", np.mean), ("Max", np.max)])
@pytest.mark.parametrize("data_format, keepdims", FORMATS)
def test_global_pooling2d(kind, reduce, data_format, keepdims):
    inputs = np.arange(96, dtype="float32").reshape((2, 3, 4, 4))
    layer = getattr(layers, f"Global{kind}Pooling2D")(data_format=data_format, keepdims=keepdims)
    expected = _global_reference(inputs, data_format, keepdims, reduce)
    np.testing.assert_allclose(layer(inputs).numpy(), expected, rtol=1e-6)


@pytest.mark.parametrize("data_format, keepdims", FORMATS)
def test_global_max_pooling1d(data_format, keepdims):
    inputs = np.arange(24, dtype="float32").reshape((2, 3, 4))
    layer = layers.GlobalMaxPooling1D(data_format=data_format, keepdims=keepdims)
    expected = _global_reference(inputs, data_format, keepdims, np.max)
    np.testing.assert_allclose(layer(inputs).numpy(), expected, rtol=1e-6)
