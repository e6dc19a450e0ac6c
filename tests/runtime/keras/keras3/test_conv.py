"""Keras 3's ``keras/src/layers/convolutional/conv_test.py``, the 1-D and 2-D cases, ported
(``layers.Conv1D`` -> ``rt.keras.layers.Conv1D``...). Not ported: the 3-D cases (no Conv3D)
and LoRA (``enable_lora``, ``lora_rank``), which rt.keras does not have. The reference
convolution is written here (a loop over output positions), not Keras's."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.runtime.keras.keras3.conv_pool_harness import run_layer_test

layers = rt.keras.layers


def _tuple(value, n):
    return (value,) * n if isinstance(value, int) else tuple(value)


def reference_conv(x, kernel, bias, strides, padding, data_format, dilation_rate, groups):
    """A grouped N-D convolution by its definition, channels last inside, in float64."""
    rank = kernel.ndim - 2
    if data_format == "channels_first":
        x = np.moveaxis(x, 1, -1)
    strides, dilation = _tuple(strides, rank), _tuple(dilation_rate, rank)
    window = kernel.shape[:rank]
    reach = [(k - 1) * d + 1 for k, d in zip(window, dilation)]
    spatial = x.shape[1:-1]
    if padding == "valid":
        out = [(n - r) // s + 1 for n, r, s in zip(spatial, reach, strides)]
        before = [0] * rank
    else:
        out = [-(-n // s) for n, s in zip(spatial, strides)]
        total = [max((o - 1) * s + r - n, 0) for o, s, r, n in zip(out, strides, reach, spatial)]
        before = total if padding == "causal" else [t // 2 for t in total]
    per_group_in, filters = kernel.shape[-2], kernel.shape[-1]
    per_group_out = filters // groups
    result = np.zeros((x.shape[0], *out, filters))
    for position in np.ndindex(*out):
        for offset in np.ndindex(*window):
            at = [
                p * s + o * d - b
                for p, s, o, d, b in zip(position, strides, offset, dilation, before)
            ]
            if not all(0 <= a < n for a, n in zip(at, spatial)):
                continue
            pixel = x[(slice(None), *at)]  # (batch, channels)
            for g in range(groups):
                inputs = pixel[:, g * per_group_in : (g + 1) * per_group_in]
                part = slice(g * per_group_out, (g + 1) * per_group_out)
                result[(slice(None), *position, part)] += (
                    inputs @ kernel[(*offset, slice(None), part)]
                )
    result += bias
    return np.moveaxis(result, -1, 1) if data_format == "channels_first" else result


# --- ConvBasicTest -----------------------------------------------------------------------------

CONV1D_BASIC = [
    (5, 2, 1, "valid", "channels_last", 1, 1, (3, 5, 4), (3, 4, 5)),
    (6, 2, 1, "same", "channels_last", (2,), 2, (3, 4, 4), (3, 4, 6)),
    (6, 2, 1, "causal", "channels_last", (2,), 2, (3, 4, 4), (3, 4, 6)),
    (6, 2, (2,), "valid", "channels_last", 1, 2, (3, 5, 4), (3, 2, 6)),
]
CONV2D_BASIC = [
    (5, 2, 1, "valid", "channels_last", 1, 1, (3, 5, 5, 4), (3, 4, 4, 5)),
    (6, 2, 1, "same", "channels_last", (2, 2), 2, (3, 4, 4, 4), (3, 4, 4, 6)),
    (6, (2, 2), (2, 1), "valid", "channels_last", (1, 1), 2, (3, 5, 5, 4), (3, 2, 4, 6)),
]


@pytest.mark.parametrize(
    "layer_class, case",
    [(layers.Conv1D, c) for c in CONV1D_BASIC] + [(layers.Conv2D, c) for c in CONV2D_BASIC],
)
def test_conv_basic(layer_class, case):
    filters, kernel_size, strides, padding, data_format, dilation_rate, groups, shape, out = case
    run_layer_test(
        layer_class,
        init_kwargs={
            "filters": filters,
            "kernel_size": kernel_size,
            "strides": strides,
            "padding": padding,
            "data_format": data_format,
            "dilation_rate": dilation_rate,
            "groups": groups,
        },
        input_shape=shape,
        expected_output_shape=out,
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=0,
    )


def test_bad_init_args():
    with pytest.raises(
        ValueError,
        match="Invalid value for argument `filters`. Expected a strictly positive value. "
        "Received filters=0.",
    ):
        layers.Conv1D(filters=0, kernel_size=1)
    with pytest.raises(
        ValueError,
        match=r"The `kernel_size` argument must be a tuple of \d+ integers. Received "
        r"kernel_size=\(1, 0\), including values \{0\} that do not satisfy `value > 0`",
    ):
        layers.Conv2D(filters=2, kernel_size=(1, 0))
    with pytest.raises(
        ValueError,
        match=r"The `strides` argument must be a tuple of \d+ integers. Received "
        r"strides=\(1, 0\), including values \{0\} that do not satisfy `value > 0`",
    ):
        layers.Conv2D(filters=2, kernel_size=(2, 2), strides=(1, 0))
    with pytest.raises(
        ValueError,
        match=r"`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
        r"Received: strides=\(2, 2\) and dilation_rate=\(2, 1\)",
    ):
        layers.Conv2D(filters=2, kernel_size=(2, 2), strides=2, dilation_rate=(2, 1))
    with pytest.raises(
        ValueError, match="The number of groups must be a positive integer. Received: groups=0."
    ):
        layers.Conv2D(filters=5, kernel_size=(2, 2), groups=0)
    with pytest.raises(
        ValueError,
        match="The number of filters must be evenly divisible by the number of groups. "
        "Received: groups=2, filters=5.",
    ):
        layers.Conv2D(filters=5, kernel_size=(2, 2), groups=2)


@pytest.mark.parametrize(
    "layer_class, input_shape, kernel_size, dilation_rate",
    [(layers.Conv1D, (10, 3), 2, 10), (layers.Conv2D, (10, 10, 3), (2, 2), (10, 10))],
)
def test_conv_symbolic_invalid_configuration(layer_class, input_shape, kernel_size, dilation_rate):
    # Keras calls the layer on ``layers.Input(shape=input_shape)``: here, on a traced input.
    layer = layer_class(filters=1, kernel_size=kernel_size, dilation_rate=dilation_rate)
    spec = rt.TensorSpec((None, *input_shape), rt.float32)
    with pytest.raises(ValueError):
        ag.function(lambda x: layer(x)).get_concrete_function(spec)


# --- ConvCorrectnessTest -------------------------------------------------------------------------

CONV1D_CORRECTNESS = [
    (5, 2, 1, "valid", "channels_last", 1, 1),
    (6, 2, 1, "same", "channels_last", (2,), 2),
    (6, 2, 1, "causal", "channels_last", (2,), 2),
    (6, (2,), (2,), "valid", "channels_last", 1, 2),
    (6, (2,), (2,), "valid", "channels_first", 1, 2),
]
CONV2D_CORRECTNESS = [
    (5, 2, 1, "valid", "channels_last", 1, 1),
    (4, 3, 2, "same", "channels_last", 1, 1),
    (6, 2, 1, "same", "channels_last", (2, 2), 2),
    (6, 2, 1, "same", "channels_last", (2, 3), 2),
    (6, (4, 3), (2, 1), "valid", "channels_last", (1, 1), 2),
    (6, (4, 3), (2, 1), "valid", "channels_first", (1, 1), 2),
]


def _check_correctness(layer_class, input_shape, case):
    filters, kernel_size, strides, padding, data_format, dilation_rate, groups = case
    layer = layer_class(
        filters=filters,
        kernel_size=kernel_size,
        strides=strides,
        padding=padding,
        data_format=data_format,
        dilation_rate=dilation_rate,
        groups=groups,
    )
    rng = np.random.default_rng(3)
    inputs = rng.normal(size=input_shape)
    layer.build(input_shape=inputs.shape)
    kernel_weights = rng.normal(size=layer.kernel.shape)
    bias_weights = rng.normal(size=(filters,))
    # Keras's variables cast what they are assigned; rt.Variable asks for float32 values.
    layer.kernel.assign(kernel_weights.astype("float32"))
    layer.bias.assign(bias_weights.astype("float32"))
    outputs = layer(inputs)
    expected = reference_conv(
        inputs, kernel_weights.astype("float32"), bias_weights.astype("float32"),
        strides, padding, data_format, dilation_rate, groups,
    )  # fmt: skip
    np.testing.assert_allclose(outputs.numpy(), expected, rtol=5e-4, atol=1e-5)


@pytest.mark.parametrize("case", CONV1D_CORRECTNESS)
def test_conv1d(case):
    _check_correctness(layers.Conv1D, (2, 8, 4), case)


@pytest.mark.parametrize("case", CONV2D_CORRECTNESS)
def test_conv2d(case):
    _check_correctness(layers.Conv2D, (2, 8, 8, 4), case)


def test_conv_constraints():
    layer = layers.Conv2D(filters=4, kernel_size=3, kernel_constraint="non_neg")
    layer.build((None, 5, 5, 3))
    assert isinstance(layer.kernel.constraint, rt.keras.constraints.NonNeg)
    layer = layers.Conv2D(filters=4, kernel_size=3, bias_constraint="non_neg")
    layer.build((None, 5, 5, 3))
    assert isinstance(layer.bias.constraint, rt.keras.constraints.NonNeg)


def test_conv_raises_exception_on_zero_dims():
    x = np.random.rand(3, 4, 4, 4)
    layer = layers.Conv2D(6, [5, 5], 1, "valid")
    # Keras lets the exception's type vary by backend; TensorFlow's Keras raises this one.
    with pytest.raises(ValueError, match="Computed output size would be zero or negative"):
        layer(x)
