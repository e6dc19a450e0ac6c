"""Conv and pooling layers in every way a layer runs: eagerly, in ``fit`` staged and with
``run_eagerly=True`` (the same losses), channels first as channels last transposed, and
Keras's errors for a wrong input."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.extras import import_extra

layers = rt.keras.layers


def _model(seed):
    rt.keras.backend.clear_session()
    rt.random.set_seed(seed)
    return rt.keras.Sequential(
        [
            layers.Conv2D(4, 3, activation="relu"),
            layers.MaxPooling2D(),
            layers.AveragePooling2D(1),
            layers.Flatten(),
            layers.Dense(3),
        ]
    )


def test_fit_staged_and_eagerly_give_the_same_losses():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(16, 8, 8, 2)).astype("float32")
    y = rng.integers(0, 3, 16)
    losses = []
    for run_eagerly in (False, True):
        model = _model(1)
        model.build((None, 8, 8, 2))
        model.set_weights([np.full(w.shape, 0.05 * (i + 1), "float32") for i, w in enumerate(model.get_weights())])  # fmt: skip
        model.compile(
            optimizer=rt.keras.optimizers.SGD(0.1),
            loss=rt.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
            run_eagerly=run_eagerly,
        )
        losses.append(model.fit(x, y, batch_size=8, epochs=3, verbose=0).history["loss"])
    np.testing.assert_allclose(losses[0], losses[1], rtol=1e-5)
    assert losses[0][-1] < losses[0][0]


def test_channels_first_is_channels_last_transposed():
    x = np.random.default_rng(1).normal(size=(2, 3, 6, 5)).astype("float32")  # NCHW
    last = layers.Conv2D(4, (3, 2), strides=(2, 1), padding="same", kernel_initializer="he_uniform")  # fmt: skip
    expected = last(x.transpose(0, 2, 3, 1)).numpy().transpose(0, 3, 1, 2)
    first = layers.Conv2D(4, (3, 2), strides=(2, 1), padding="same", data_format="channels_first")
    first.build(x.shape)
    first.set_weights(last.get_weights())
    np.testing.assert_allclose(first(x).numpy(), expected, rtol=1e-5, atol=1e-6)
    pooled = layers.MaxPooling2D(2, data_format="channels_first")(x).numpy()
    np.testing.assert_array_equal(pooled, layers.MaxPooling2D(2)(x.transpose(0, 2, 3, 1)).numpy().transpose(0, 3, 1, 2))  # fmt: skip


def test_channels_first_activation_acts_on_the_channels_first_output():
    # Keras applies the activation to the output in its data format: a softmax's last axis
    # is then the width, not the channels.
    x = np.random.default_rng(0).normal(size=(1, 2, 3, 4)).astype("float32")  # NCHW
    conv = layers.Conv2D(2, 1, data_format="channels_first", activation="softmax", use_bias=False)
    conv.build(x.shape)
    (kernel,) = conv.get_weights()
    linear = np.einsum("nchw,cf->nfhw", x, kernel[0, 0])
    expected = np.exp(linear) / np.exp(linear).sum(-1, keepdims=True)
    np.testing.assert_allclose(conv(x).numpy(), expected, rtol=1e-5, atol=1e-6)


def test_weights_are_named_and_ordered_as_in_keras():
    rt.keras.backend.clear_session()
    conv = layers.Conv1D(2, 3)
    conv.build((None, 7, 5))
    assert [(v.name, v.shape.as_list()) for v in conv.weights] == [
        ("conv1d/kernel:0", [3, 5, 2]),
        ("conv1d/bias:0", [2]),
    ]


def test_an_input_of_the_wrong_rank_is_refused_in_keras_words():
    with pytest.raises(ValueError, match='Input 0 of layer "max_pooling2d.*expected ndim=4, found ndim=3'):  # fmt: skip
        layers.MaxPooling2D()(np.ones((1, 4, 4), "float32"))
    with pytest.raises(ValueError, match="expected min_ndim=4, found ndim=3"):
        layers.Conv2D(2, 2)(np.ones((1, 4, 4), "float32"))
    with pytest.raises(ValueError, match="The `padding` argument must be a list/tuple or one of"):
        layers.Conv2D(2, 2, padding="causal")
    with pytest.raises(ValueError, match="The `data_format` argument must be one of"):
        layers.GlobalMaxPooling2D(data_format="NHWC")


def test_unknown_spatial_dims_stay_unknown():
    assert layers.Conv2D(3, 3).compute_output_shape((None, None, 10, 2)).as_list() == [None, None, 8, 3]  # fmt: skip
    assert layers.AveragePooling1D(2).compute_output_shape((4, None, 2)).as_list() == [4, None, 2]


def _conv_net():
    rt.keras.backend.clear_session()
    rt.random.set_seed(2)
    return rt.keras.Sequential(
        [
            layers.Conv2D(4, 3, padding="same", activation="relu"),
            layers.AveragePooling2D(2),
            layers.MaxPooling2D(padding="same"),
            layers.GlobalAveragePooling2D(),
        ]
    )


def test_a_conv_net_and_its_gradients_compile_with_xla():
    import_extra("jax")
    model = _conv_net()
    x = np.random.default_rng(4).normal(size=(2, 9, 9, 3)).astype("float32")
    model(x)

    def step(x):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(model(x) ** 2)
        return (loss, *tape.gradient(loss, model.trainable_weights))

    default = ag.function(step)(x)
    xla = ag.function(step, jit_compile=True)(x)
    for a, b in zip(xla, default):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=2e-5, atol=1e-6)


def test_a_conv_net_exports_to_onnx(tmp_path):
    import_extra("onnx")
    from tests.runtime.export.onnx_harness import run_model, session

    model = _conv_net()
    x = np.random.default_rng(5).normal(size=(2, 9, 9, 3)).astype("float32")
    spec = rt.TensorSpec((None, 9, 9, 3), rt.float32)
    concrete = ag.function(lambda v: model(v)).get_concrete_function(spec)
    rt.onnx.export(concrete, tmp_path / "conv.onnx")
    (got,) = run_model(session(tmp_path / "conv.onnx"), [x], [spec])
    np.testing.assert_allclose(got, model(x).numpy(), rtol=1e-5, atol=1e-6)
