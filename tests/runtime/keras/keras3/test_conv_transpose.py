"""Keras 3's ``keras/src/layers/convolutional/conv_transpose_test.py``, the 2-D cases, ported
(``layers.Conv2DTranspose`` -> ``rt.keras.layers.Conv2DTranspose``). Not ported: the 1-D and
3-D cases (no Conv1DTranspose, Conv3DTranspose here). The reference transposed convolution is
written here (each input pixel times the kernel, added into the output), not Keras's; the
channels_first case Keras skips on TensorFlow's CPU runs here (the input is transposed)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import runtime as rt
from tests.extras import import_extra
from tests.runtime.keras.keras3.conv_pool_harness import run_layer_test

layers = rt.keras.layers


def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


def transposed_size(n, kernel, stride, padding, output_padding):
    """Keras's documented output length (backend_utils.compute_conv_transpose_output_shape)."""
    if padding == "valid":
        extra = max(kernel, stride) - kernel if output_padding is None else output_padding
        return (n - 1) * stride + kernel + extra
    if output_padding is None:
        return n * stride
    return (n - 1) * stride + kernel % 2 + output_padding


def reference_conv_transpose(x, kernel, bias, strides, padding, output_padding):
    """Channels last, dilation 1, in float64: every input pixel spreads ``kernel @ pixel``
    over a window of the output, stride apart; "same" then crops what TensorFlow's SAME
    convolution of the output would have padded before it."""
    strides = _pair(strides)
    extras = (None, None) if output_padding is None else _pair(output_padding)
    window = kernel.shape[:2]
    out = [
        transposed_size(n, k, s, padding, e)
        for n, k, s, e in zip(x.shape[1:3], window, strides, extras)
    ]
    before = [0, 0]
    if padding == "same":
        before = [
            max((n - 1) * s + k - o, 0) // 2
            for n, k, s, o in zip(x.shape[1:3], window, strides, out)
        ]
    full = np.zeros((x.shape[0], out[0] + window[0] + before[0], out[1] + window[1] + before[1], kernel.shape[2]))  # fmt: skip
    for i, j in np.ndindex(*x.shape[1:3]):
        top, left = i * strides[0], j * strides[1]
        spread = np.einsum("hwoc,bc->bhwo", kernel, x[:, i, j])
        full[:, top : top + window[0], left : left + window[1]] += spread
    cropped = full[:, before[0] : before[0] + out[0], before[1] : before[1] + out[1]]
    return cropped + bias


# --- ConvTransposeBasicTest --------------------------------------------------------------------

CONV2D_TRANSPOSE_BASIC = [
    (5, 2, 2, "valid", None, "channels_last", 1, (2, 8, 8, 4), (2, 16, 16, 5)),
    (6, 2, 3, "same", 2, "channels_last", (1, 1), (2, 8, 8, 4), (2, 23, 23, 6)),
    (6, (2, 3), (2, 1), "valid", None, "channels_first", (1, 1), (2, 4, 8, 8), (2, 6, 16, 10)),
    (2, (7, 7), (16, 16), "valid", None, "channels_last", (1, 1), (1, 14, 14, 2), (1, 224, 224, 2)),
]  # fmt: skip


@pytest.mark.parametrize("case", CONV2D_TRANSPOSE_BASIC)
def test_conv2d_transpose_basic(case):
    filters, kernel_size, strides, padding, output_padding, data_format, dilation, shape, out = case
    run_layer_test(
        layers.Conv2DTranspose,
        init_kwargs={
            "filters": filters,
            "kernel_size": kernel_size,
            "strides": strides,
            "padding": padding,
            "output_padding": output_padding,
            "data_format": data_format,
            "dilation_rate": dilation,
        },
        input_shape=shape,
        expected_output_shape=out,
        expected_num_trainable_weights=2,
        expected_num_non_trainable_weights=0,
    )


def test_output_padding_serialization():
    layer = layers.Conv2DTranspose(2, 3, strides=2, output_padding=1)
    config = layer.get_config()
    assert "output_padding" in config
    revived = layers.Conv2DTranspose.from_config(config)
    assert layer.output_padding == revived.output_padding
    assert layer.compute_output_shape((1, 5, 5, 3)) == revived.compute_output_shape((1, 5, 5, 3))


def test_bad_init_args():
    with pytest.raises(
        ValueError,
        match="Invalid value for argument `filters`. Expected a strictly positive value. "
        "Received filters=0.",
    ):
        layers.Conv2DTranspose(filters=0, kernel_size=1)
    with pytest.raises(
        ValueError,
        match=r"The `kernel_size` argument must be a tuple of \d+ integers. Received "
        r"kernel_size=\(1, 0\), including values \{0\} that do not satisfy `value > 0`",
    ):
        layers.Conv2DTranspose(filters=2, kernel_size=(1, 0))
    with pytest.raises(
        ValueError,
        match=r"The `strides` argument must be a tuple of \d+ integers. Received "
        r"strides=\(1, 0\), including values \{0\} that do not satisfy `value > 0`",
    ):
        layers.Conv2DTranspose(filters=2, kernel_size=(2, 2), strides=(1, 0))
    for kwargs in (
        {"filters": 2, "kernel_size": 3, "strides": 2, "output_padding": 3},
        {"filters": 2, "kernel_size": 3, "strides": (2, 3), "output_padding": (1, 3)},
        {"filters": 16, "kernel_size": 3, "strides": [1, 1], "output_padding": 1},
    ):
        with pytest.raises(ValueError, match="`output_padding` must be strictly less than `strides`"):  # fmt: skip
            layers.Conv2DTranspose(**kwargs)
    with pytest.raises(
        ValueError,
        match=r"`strides > 1` not supported in conjunction with `dilation_rate > 1`. "
        r"Received: strides=\(2, 2\) and dilation_rate=\(2, 1\)",
    ):
        layers.Conv2DTranspose(filters=2, kernel_size=(2, 2), strides=2, dilation_rate=(2, 1))


# --- ConvTransposeCorrectnessTest --------------------------------------------------------------

CONV2D_TRANSPOSE_CORRECTNESS = [
    (5, 2, 2, "valid", None),
    (6, 7, 16, "same", 2),
    (6, (2, 3), (2, 1), "valid", None),
    (2, (7, 7), (16, 16), "valid", None),
]


@pytest.mark.parametrize("case", CONV2D_TRANSPOSE_CORRECTNESS)
def test_conv2d_transpose(case):
    filters, kernel_size, strides, padding, output_padding = case
    layer = layers.Conv2DTranspose(
        filters=filters,
        kernel_size=kernel_size,
        strides=strides,
        padding=padding,
        output_padding=output_padding,
        data_format="channels_last",
        dilation_rate=1,
    )
    rng = np.random.default_rng(0)
    inputs = rng.normal(size=[2, 14, 14, 4])
    layer.build(input_shape=inputs.shape)
    kernel_weights = rng.normal(size=layer.kernel.shape)
    bias_weights = rng.normal(size=(filters,))
    # float32 here: rt.Variable.assign refuses a float64 array where Keras's variables cast it
    layer.kernel.assign(kernel_weights.astype("float32"))
    layer.bias.assign(bias_weights.astype("float32"))

    outputs = layer(inputs)
    expected = reference_conv_transpose(
        inputs, kernel_weights, bias_weights, strides, padding, output_padding
    )
    np.testing.assert_allclose(outputs.numpy(), expected, atol=1e-4, rtol=1e-5)


SHAPE_CASES = [
    (kernel_size, strides, padding, output_padding)
    for kernel_size, strides, padding, output_padding in itertools.product(
        range(1, 5), range(1, 5), ["same", "valid"], [None, *range(1, 5)]
    )
    if output_padding is None or output_padding < strides  # Keras skips the others
]


@pytest.mark.parametrize("kernel_size, strides, padding, output_padding", SHAPE_CASES)
def test_shape_inference_static_unknown_shape(kernel_size, strides, padding, output_padding):
    x = layers.Input(shape=(None, None, 3))
    x = layers.Conv2DTranspose(
        filters=2,
        kernel_size=kernel_size,
        strides=strides,
        padding=padding,
        output_padding=output_padding,
        dilation_rate=1,
    )(x)
    assert tuple(x.shape) == (None, None, None, 2)


# --- beyond Keras's file: what a .keras file and a GAN need of the layer -----------------------


def test_config_has_keras_3s_keys_and_a_keras_file_round_trips(tmp_path):
    import_extra("h5py")
    layer = layers.Conv2DTranspose(3, 4, strides=2, padding="same", activation="relu")
    assert list(layer.get_config()) == [
        "name", "trainable", "dtype", "filters", "kernel_size", "strides", "padding",
        "output_padding", "data_format", "dilation_rate", "activation", "use_bias",
        "kernel_initializer", "bias_initializer", "kernel_regularizer", "bias_regularizer",
        "activity_regularizer", "kernel_constraint", "bias_constraint",
    ]  # fmt: skip
    model = rt.keras.Sequential([rt.keras.Input((3, 3, 2)), layer])
    x = np.random.default_rng(1).normal(size=(2, 3, 3, 2)).astype("float32")
    model.save(tmp_path / "m.keras")
    loaded = rt.keras.models.load_model(tmp_path / "m.keras")

    np.testing.assert_allclose(loaded.predict(x, verbose=0), model.predict(x, verbose=0), rtol=1e-6)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_learns_an_upsampling(run_eagerly):
    """Nearest-neighbour upsampling is a Conv2DTranspose with a kernel of ones and stride 2:
    fit finds it, staged or eagerly."""
    x = np.random.default_rng(2).normal(size=(32, 3, 3, 1)).astype("float32")
    y = x.repeat(2, axis=1).repeat(2, axis=2)
    rt.keras.utils.set_random_seed(0)
    model = rt.keras.Sequential([rt.keras.Input((3, 3, 1)), layers.Conv2DTranspose(1, 2, 2)])
    model.compile(optimizer=rt.keras.optimizers.Adam(0.05), loss="mse", run_eagerly=run_eagerly)
    model.fit(x, y, batch_size=8, epochs=60, verbose=0)
    np.testing.assert_allclose(model.layers[0].kernel.numpy().ravel(), np.ones(4), atol=0.05)
