"""Keras 3's Bidirectional tests (keras/src/layers/rnn/bidirectional_test.py) on ``rt.keras``,
with their hand-checked values (the cuDNN and fused-kernel cases are Keras's backends' own)."""

from __future__ import annotations

import numpy as np
import pytest

import runtime as rt
from tests.runtime.keras.keras3.run_layer import run_layer_test

layers = rt.keras.layers
Constant = rt.keras.initializers.Constant
SEQUENCE_234 = np.arange(24).reshape((2, 3, 4)).astype("float32")
SEQUENCE_243 = np.arange(24).reshape((2, 4, 3)).astype("float32")


def _constant(cls, units, kernel=0.01, recurrent=0.02, bias=0.03, **kwargs):
    return cls(
        units,
        kernel_initializer=Constant(kernel),
        recurrent_initializer=Constant(recurrent),
        bias_initializer=Constant(bias),
        **kwargs,
    )


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.float32), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize(
    "init_kwargs, expected_shape",
    [
        ({}, (3, 8)),
        ({"backward_layer": "simple_rnn_backwards", "merge_mode": "sum"}, (3, 4)),
    ],
)
def test_basics(init_kwargs, expected_shape):
    def make(**kwargs):
        if kwargs.get("backward_layer") == "simple_rnn_backwards":
            kwargs["backward_layer"] = layers.SimpleRNN(4, go_backwards=True)
        return layers.Bidirectional(layers.SimpleRNN(4), **kwargs)

    make.from_config = layers.Bidirectional.from_config
    run_layer_test(
        make,
        init_kwargs=init_kwargs,
        input_shape=(3, 2, 4),
        expected_output_shape=expected_shape,
        expected_num_trainable_weights=6,
        expected_num_non_trainable_weights=0,
    )


def test_correctness():
    forward_layer = _constant(layers.SimpleRNN, 2)
    _close(
        layers.Bidirectional(layer=forward_layer)(SEQUENCE_234),
        [[0.39687276, 0.39687276, 0.10004295, 0.10004295],
         [0.7237238, 0.7237238, 0.53391594, 0.53391594]],
    )  # fmt: skip
    _close(
        layers.Bidirectional(layer=forward_layer, merge_mode="ave")(SEQUENCE_234),
        [[0.24845785, 0.24845785], [0.6288199, 0.6288199]],
    )
    output1, output2 = layers.Bidirectional(layer=forward_layer, merge_mode=None)(SEQUENCE_234)
    _close(output1, [[0.39687276, 0.39687276], [0.7237238, 0.7237238]])
    _close(output2, [[0.10004295, 0.10004295], [0.53391594, 0.53391594]])
    backward_layer = _constant(layers.SimpleRNN, 2, kernel=0.03, bias=0.01, go_backwards=True)
    layer = layers.Bidirectional(
        layer=forward_layer, backward_layer=backward_layer, merge_mode="mul"
    )
    _close(layer(SEQUENCE_234), [[0.08374989, 0.08374989], [0.6740834, 0.6740834]])
    forward_layer = _constant(layers.GRU, 2, return_sequences=True)
    _close(
        layers.Bidirectional(layer=forward_layer, merge_mode="sum")(SEQUENCE_234),
        [[[0.20937867] * 2, [0.34462988] * 2, [0.40290534] * 2],
         [[0.59829646] * 2, [0.6734641] * 2, [0.6479671] * 2]],
    )  # fmt: skip


def test_statefulness():
    layer = layers.Bidirectional(layer=_constant(layers.LSTM, 2, stateful=True))
    want = [[0.26234663, 0.26234663, 0.16959146, 0.16959146],
            [0.6137073, 0.6137073, 0.5381646, 0.5381646]]  # fmt: skip
    layer(SEQUENCE_243)
    _close(layer(SEQUENCE_243), want)
    layer.reset_state()
    layer(SEQUENCE_243)
    _close(layer(SEQUENCE_243), want)


def test_pass_initial_state():
    initial_state = [np.arange(4).reshape((2, 2)).astype("float32") * k for k in (1, 2, 3, 4)]
    layer = layers.Bidirectional(layer=_constant(layers.LSTM, 2))
    _close(
        layer(SEQUENCE_243, initial_state=initial_state),
        [[0.20794602, 0.4577124, 0.14046375, 0.48191673],
         [0.6682636, 0.6711909, 0.60943645, 0.60950446]],
    )  # fmt: skip


def test_masking():
    layer = layers.Bidirectional(layer=_constant(layers.GRU, 2))
    mask = np.array([[True, True, False, True], [True, False, False, True]])
    _close(
        layer(SEQUENCE_243, mask=mask),
        [[0.19393763, 0.19393763, 0.11669192, 0.11669192],
         [0.30818558, 0.30818558, 0.28380975, 0.28380975]],
    )  # fmt: skip


def test_return_state():
    layer = layers.Bidirectional(layer=_constant(layers.LSTM, 2, return_state=True))
    output, h1, c1, h2, c2 = layer(SEQUENCE_243)
    _close(
        output,
        [[0.1990008, 0.1990008, 0.12659755, 0.12659755],
         [0.52335435, 0.52335435, 0.44717982, 0.44717982]],
    )  # fmt: skip
    _close(h1, [[0.1990008, 0.1990008], [0.52335435, 0.52335435]])
    _close(c1, [[0.35567185, 0.35567185], [1.0492687, 1.0492687]])
    _close(h2, [[0.12659755, 0.12659755], [0.44717982, 0.44717982]])
    _close(c2, [[0.2501858, 0.2501858], [0.941473, 0.941473]])


def test_output_shape():
    x = np.array([[[101, 202], [303, 404]]])
    for merge_mode in ["ave", "concat", "mul", "sum", None]:
        layer = layers.Bidirectional(layers.LSTM(2, return_state=True), merge_mode=merge_mode)
        output = layer(x)
        for out, shape in zip(output, layer.compute_output_shape(x.shape)):
            assert out.shape == shape
    for merge_mode in ["concat", "ave", "mul", "sum"]:
        layer = layers.Bidirectional(layers.LSTM(2, return_state=False), merge_mode=merge_mode)
        assert layer(x).shape == layer.compute_output_shape(x.shape)
    layer = layers.Bidirectional(layers.LSTM(2, return_state=False), merge_mode=None)
    output = layer(x)
    for out, shape in zip(output, layer.compute_output_shape(x.shape)):
        assert out.shape == shape


def test_invalid_merge_mode_and_layers_are_refused():
    with pytest.raises(ValueError, match="Invalid merge mode"):
        layers.Bidirectional(layers.LSTM(2), merge_mode="max")
    with pytest.raises(ValueError, match="different `go_backwards` value"):
        layers.Bidirectional(layers.LSTM(2), backward_layer=layers.LSTM(2))
    with pytest.raises(ValueError, match='the same value for attribute "return_sequences"'):
        layers.Bidirectional(
            layers.LSTM(2),
            backward_layer=layers.LSTM(2, go_backwards=True, return_sequences=True),
        )


def test_keeps_use_cudnn():
    for rnn_class in [layers.GRU, layers.LSTM]:
        for use_cudnn in [True, False, "auto"]:
            bidi = layers.Bidirectional(rnn_class(1, use_cudnn=use_cudnn))
            assert bidi.forward_layer.use_cudnn == use_cudnn
            assert bidi.backward_layer.use_cudnn == use_cudnn
    bidi = layers.Bidirectional(layers.SimpleRNN(1))
    assert not hasattr(bidi.forward_layer, "use_cudnn")
    assert not hasattr(bidi.backward_layer, "use_cudnn")
