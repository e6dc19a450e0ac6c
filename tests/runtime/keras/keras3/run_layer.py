"""What Keras 3's ``run_layer_test`` checks, on our public API: the output shape, the counts
of weights, the config round trip, and the same output eagerly and inside ``ag.function``."""

from __future__ import annotations

import numpy as np

import autograph as ag
import runtime as rt


def run_layer_test(
    layer_cls,
    init_kwargs,
    input_shape,
    expected_output_shape,
    expected_num_trainable_weights=None,
    expected_num_non_trainable_weights=None,
    call_kwargs=None,
    input_data=None,
    expected_num_losses=0,
):
    call_kwargs = call_kwargs or {}
    rt.keras.backend.clear_session()
    if input_data is None:
        input_data = np.random.default_rng(0).normal(size=input_shape).astype("float32")
    layer = layer_cls(**init_kwargs)
    outputs = layer(input_data, **call_kwargs)
    _check_shapes(outputs, expected_output_shape)
    if expected_num_trainable_weights is not None:
        assert len(layer.trainable_weights) == expected_num_trainable_weights
    if expected_num_non_trainable_weights is not None:
        assert len(layer.non_trainable_weights) == expected_num_non_trainable_weights
    assert len(getattr(layer, "losses", [])) == expected_num_losses
    config = layer_cls(**init_kwargs).get_config()  # as Keras: a new layer's (no build config)
    rebuilt = layer_cls.from_config(config)
    assert rebuilt.get_config() == {**config, "name": rebuilt.name}
    staged = ag.function(lambda x: layer(x, **call_kwargs))(rt.constant(input_data))
    _check_shapes(staged, expected_output_shape)
    return layer


def _check_shapes(outputs, expected):
    if isinstance(expected, list):
        assert [tuple(o.shape.as_list()) for o in outputs] == [tuple(e) for e in expected]
    else:
        assert tuple(outputs.shape.as_list()) == tuple(expected)
