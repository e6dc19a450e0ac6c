"""What Keras's ``run_layer_test`` checks of a layer, for the convolution and pooling tests:
its config rebuilds it, it computes the shape it says, the same eagerly and traced, with the
weights and gradients it should have, and it trains in ``fit``."""

from __future__ import annotations

import numpy as np

import autograph as ag
import runtime as rt


def run_layer_test(
    layer_class,
    init_kwargs,
    input_shape,
    expected_output_shape,
    expected_num_trainable_weights=0,
    expected_num_non_trainable_weights=0,
    assert_built_after_instantiation=False,
):
    layer = layer_class(**init_kwargs)
    if assert_built_after_instantiation:
        assert layer.built
    config = layer.get_config()
    assert layer_class.from_config(config).get_config() == config

    x = np.random.default_rng(0).normal(size=input_shape).astype("float32")
    with rt.GradientTape() as tape:
        out = layer(x)
        loss = rt.reduce_sum(out * out)
    assert tuple(out.shape) == tuple(expected_output_shape)
    assert tuple(layer.compute_output_shape(input_shape)) == tuple(expected_output_shape)
    assert len(layer.trainable_weights) == expected_num_trainable_weights
    assert len(layer.non_trainable_weights) == expected_num_non_trainable_weights
    for grad in tape.gradient(loss, layer.trainable_weights):
        assert grad is not None and np.all(np.isfinite(grad.numpy()))

    traced = ag.function(lambda v: layer(v))(x)
    np.testing.assert_allclose(traced.numpy(), out.numpy(), rtol=1e-5, atol=1e-5)

    if expected_num_trainable_weights:
        model = rt.keras.Sequential([layer_class(**init_kwargs)])
        model.compile(optimizer="sgd", loss="mse")
        y = np.zeros(expected_output_shape, "float32")
        history = model.fit(x, y, batch_size=len(x), epochs=2, verbose=0)
        assert np.all(np.isfinite(history.history["loss"]))
