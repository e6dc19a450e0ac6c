"""Keras 3's recurrent-layer tests (keras/src/layers/rnn/{simple_rnn,lstm,gru,rnn}_test.py) on
``rt.keras``, with their hand-checked values; and what training an RNN needs: gradients that
match central differences, ``fit`` lowering the loss, a graph over sequences of any length."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt
from tests.runtime.gradients.grad_harness import check_gradient
from tests.runtime.keras.keras3.run_layer import run_layer_test

layers = rt.keras.layers
Constant = rt.keras.initializers.Constant


def _constant_layer(cls, units, **kwargs):
    return cls(
        units,
        kernel_initializer=Constant(0.01),
        recurrent_initializer=Constant(0.02),
        bias_initializer=Constant(0.03),
        **kwargs,
    )


def _any_length(layer, features):
    """The layer inside ag.function over (None, None, features): the while_loop path."""
    spec = rt.TensorSpec([None, None, features], rt.float32)
    return ag.function(lambda x: layer(x), input_signature=[spec])


# --- test_basics ----------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [layers.SimpleRNN, layers.LSTM, layers.GRU])
@pytest.mark.parametrize(
    "init_kwargs", [{"dropout": 0.5}, {"dropout": 0.5, "recurrent_dropout": 0.5}]
)
def test_basics(cls, init_kwargs):
    run_layer_test(
        cls,
        init_kwargs={"units": 3, **init_kwargs},
        input_shape=(3, 2, 4),
        call_kwargs={"training": True},
        expected_output_shape=(3, 3),
        expected_num_trainable_weights=3,
        expected_num_non_trainable_weights=0,
    )


@pytest.mark.parametrize("cls", [layers.SimpleRNN, layers.LSTM, layers.GRU])
def test_basics_return_sequences(cls):
    run_layer_test(
        cls,
        init_kwargs={"units": 3, "return_sequences": True},
        input_shape=(3, 2, 4),
        expected_output_shape=(3, 2, 3),
        expected_num_trainable_weights=3,
        expected_num_non_trainable_weights=0,
    )


def test_basics_with_regularizers():
    run_layer_test(
        layers.LSTM,
        init_kwargs={"units": 3, "return_sequences": True, "bias_regularizer": "l1",
                     "kernel_regularizer": "l2", "recurrent_regularizer": "l2"},
        input_shape=(3, 2, 4),
        expected_output_shape=(3, 2, 3),
        expected_num_losses=3,
    )  # fmt: skip


# --- test_correctness: Keras's hand-checked values ------------------------------------------

SIMPLE_RNN_CASES = [
    ({}, [0.405432, 0.73605347]),
    ({"unroll": True}, [0.405432, 0.73605347]),
    ({"go_backwards": True}, [0.11144729, 0.5528889]),
    ({"go_backwards": True, "unroll": True}, [0.11144729, 0.5528889]),
]
LSTM_CASES = [
    ({}, [0.6288687, 0.86899155, 0.9460773]),
    ({"go_backwards": True}, [0.35622165, 0.74789524, 0.8872726]),
    ({"unroll": True}, [0.6288687, 0.86899155, 0.9460773]),
    ({"unit_forget_bias": False}, [0.57019705, 0.8661914, 0.9459622]),
    ({"use_bias": False}, [0.54986924, 0.86226785, 0.9443936]),
    ({"implementation": 2}, [0.6288687, 0.86899155, 0.9460773]),
]
GRU_CASES = [
    ({}, [0.5217289, 0.6371659, 0.39384964]),
    ({"go_backwards": True}, [0.24406259, 0.611516, 0.3928808]),
    ({"unroll": True}, [0.5217289, 0.6371659, 0.39384964]),
    ({"reset_after": False}, [0.51447755, 0.6426879, 0.40208298]),
    ({"use_bias": False}, [0.49988455, 0.64701194, 0.4103359]),
]
CASES = (
    [(layers.SimpleRNN, 4, (2, 3, 4), *case) for case in SIMPLE_RNN_CASES]
    + [(layers.LSTM, 3, (3, 6, 4), *case) for case in LSTM_CASES]
    + [(layers.GRU, 3, (3, 6, 4), *case) for case in GRU_CASES]
)


@pytest.mark.parametrize("cls, units, shape, kwargs, expected", CASES)
def test_correctness(cls, units, shape, kwargs, expected):
    sequence = np.arange(np.prod(shape)).reshape(shape).astype("float32")
    layer = _constant_layer(cls, units, **kwargs)
    want = np.repeat(np.array(expected)[:, None], units, axis=1)
    np.testing.assert_allclose(layer(sequence).numpy(), want, atol=1e-5, rtol=1e-5)
    # The same weights staged over sequences of unknown length (a while_loop).
    np.testing.assert_allclose(
        _any_length(layer, shape[2])(sequence).numpy(), want, atol=1e-5, rtol=1e-5
    )


# --- states, sequences, initial_state, masks ------------------------------------------------


def _reference_simple_rnn(x, kernel, recurrent, bias, h):
    outputs = []
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ kernel + h @ recurrent + bias)
        outputs.append(h)
    return np.stack(outputs, axis=1), h


def test_simple_rnn_sequences_states_and_initial_state_against_numpy():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 5, 3)).astype("float32")
    h0 = rng.normal(size=(2, 4)).astype("float32")
    layer = layers.SimpleRNN(4, return_sequences=True, return_state=True)
    sequence, state = layer(x, initial_state=[h0])
    kernel, recurrent, bias = layer.get_weights()
    want_sequence, want_state = _reference_simple_rnn(x, kernel, recurrent, bias, h0)
    np.testing.assert_allclose(sequence.numpy(), want_sequence, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state.numpy(), want_state, rtol=1e-5, atol=1e-6)


def test_mask_keeps_the_state_of_masked_steps():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(2, 4, 3)).astype("float32")
    mask = np.array([[True, True, False, False], [True, True, True, True]])
    layer = layers.GRU(2, return_sequences=True)
    out = layer(x, mask=mask).numpy()
    short = layer(x[:1, :2]).numpy()  # the first example's unmasked steps alone
    np.testing.assert_allclose(out[0, 3], short[0, 1], rtol=1e-5)
    staged = ag.function(
        lambda x, m: layer(x, mask=m),
        input_signature=[
            rt.TensorSpec([None, None, 3], rt.float32),
            rt.TensorSpec([None, None], rt.bool),
        ],
    )
    np.testing.assert_allclose(staged(x, mask).numpy(), out, rtol=1e-5)


def test_lstm_return_state_gives_h_and_c():
    x = np.random.default_rng(2).normal(size=(2, 3, 4)).astype("float32")
    layer = layers.LSTM(5, return_state=True)
    output, h, c = layer(x)
    np.testing.assert_allclose(output.numpy(), h.numpy())
    assert c.shape == (2, 5)


def test_bidirectional_concat_is_forward_and_reversed_backward():
    x = np.random.default_rng(3).normal(size=(2, 4, 3)).astype("float32")
    both = layers.Bidirectional(layers.LSTM(2, return_sequences=True))
    out = both(x).numpy()
    assert out.shape == (2, 4, 4)
    # Keras copies the layer it is given: the forward and backward layers are its own
    np.testing.assert_allclose(out[..., :2], both.forward_layer(x).numpy(), rtol=1e-6)
    backward = both.backward_layer(x).numpy()
    np.testing.assert_allclose(out[..., 2:], backward[:, ::-1], rtol=1e-6)


# --- weights and configs as Keras writes them ------------------------------------------------


def test_weights_have_keras_shapes():
    for cls, gates in ((layers.SimpleRNN, 1), (layers.LSTM, 4), (layers.GRU, 3)):
        layer = cls(5)
        layer(np.zeros((1, 2, 3), "float32"))
        shapes = [tuple(w.shape) for w in layer.get_weights()]
        bias = (2, 3 * 5) if cls is layers.GRU else (gates * 5,)
        assert shapes == [(3, gates * 5), (5, gates * 5), bias]


def test_lstm_bias_starts_with_a_forget_gate_of_ones():
    layer = layers.LSTM(2)
    layer(np.zeros((1, 1, 1), "float32"))
    np.testing.assert_array_equal(layer.get_weights()[2], [0, 0, 1, 1, 0, 0, 0, 0])


def test_recurrent_kernel_is_orthogonal_by_default():
    layer = layers.SimpleRNN(4)
    layer(np.zeros((1, 1, 2), "float32"))
    recurrent = layer.get_weights()[1]
    np.testing.assert_allclose(recurrent @ recurrent.T, np.eye(4), atol=1e-5)


LSTM_KEYS = {
    "name", "trainable", "dtype", "return_sequences", "return_state", "go_backwards", "stateful",
    "unroll", "zero_output_for_mask", "units", "activation", "recurrent_activation", "use_bias",
    "kernel_initializer", "recurrent_initializer", "bias_initializer", "unit_forget_bias",
    "kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "activity_regularizer",
    "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
    "recurrent_dropout", "seed",
}  # fmt: skip


def test_configs_have_keras_keys_and_rebuild():
    assert set(layers.LSTM(2).get_config()) == LSTM_KEYS
    gru = layers.GRU(2, reset_after=False).get_config()
    assert set(gru) == LSTM_KEYS - {"unit_forget_bias"} | {"reset_after"}
    assert set(layers.SimpleRNN(2).get_config()) == LSTM_KEYS - {
        "unit_forget_bias",
        "recurrent_activation",
        "seed",
    }
    rebuilt = layers.GRU.from_config(gru)
    assert (rebuilt.units, rebuilt.reset_after) == (2, False)
    rnn = layers.RNN(layers.LSTMCell(3), return_sequences=True)
    assert layers.RNN.from_config(rnn.get_config()).cell.units == 3
    assert set(layers.LSTMCell(2).get_config()) == LSTM_KEYS - {
        "return_sequences",
        "return_state",
        "go_backwards",
        "stateful",
        "unroll",
        "zero_output_for_mask",
        "activity_regularizer",
    }


# --- training ---------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [layers.SimpleRNN, layers.LSTM, layers.GRU])
def test_gradients_match_central_differences(cls):
    rt.keras.backend.clear_session()
    layer = cls(2, return_sequences=True, dtype="float64")
    x = np.random.default_rng(4).normal(size=(2, 3, 2))

    def outputs(x):  # every step's output, through the layer's own loop
        return layer(x) ** 2

    check_gradient(outputs, [x], rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("run_eagerly", [False, True])
def test_fit_trains_an_lstm(run_eagerly):
    rt.keras.backend.clear_session()
    rt.random.set_seed(0)
    rng = np.random.default_rng(5)
    x = rng.normal(size=(64, 5, 2)).astype("float32")
    y = x.sum(axis=(1, 2))[:, None] / 4
    model = rt.keras.Sequential([layers.LSTM(8), layers.Dense(1)])
    model.compile(optimizer=rt.keras.optimizers.Adam(0.02), loss="mse", run_eagerly=run_eagerly)
    history = model.fit(x, y, batch_size=16, epochs=8, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0] / 2


def test_weight_gradients_through_the_while_loop_match_the_unrolled_loop():
    layer = layers.LSTM(3)
    x = rt.constant(np.random.default_rng(6).normal(size=(2, 4, 2)).astype("float32"))

    def gradients(x):
        with rt.GradientTape() as tape:
            loss = rt.reduce_sum(layer(x) ** 2)
        return tape.gradient(loss, layer.trainable_weights)

    staged = ag.function(gradients, input_signature=[rt.TensorSpec([None, None, 2], rt.float32)])
    for eager, looped in zip(gradients(x), staged(x)):
        np.testing.assert_allclose(looped.numpy(), eager.numpy(), rtol=1e-4, atol=1e-6)


def test_dropout_only_in_training_and_by_a_tensor_flag():
    x = np.random.default_rng(7).normal(size=(4, 5, 3)).astype("float32")
    layer = layers.LSTM(4, dropout=0.5, recurrent_dropout=0.5)
    plain = layers.LSTM(4)
    plain(x)
    layer(x)
    plain.set_weights(layer.get_weights())
    np.testing.assert_allclose(layer(x, training=False).numpy(), plain(x).numpy(), rtol=1e-6)
    assert not np.allclose(layer(x, training=True).numpy(), plain(x).numpy())
    flagged = ag.function(lambda x, training: layer(x, training=training))
    np.testing.assert_allclose(flagged(x, rt.constant(False)).numpy(), plain(x).numpy(), rtol=1e-5)
    assert not np.allclose(flagged(x, rt.constant(True)).numpy(), plain(x).numpy())


# --- gate order against numpy, with weights that tell the gates apart -------------------------


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _numpy_lstm(x, kernel, recurrent, bias):
    """Keras's LSTM, gates i, f, c, o side by side."""
    units = recurrent.shape[0]
    h = c = np.zeros((x.shape[0], units))
    for t in range(x.shape[1]):
        z = x[:, t] @ kernel + h @ recurrent + bias
        i, f, g, o = (z[:, k * units : (k + 1) * units] for k in range(4))
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
    return h


def _numpy_gru(x, kernel, recurrent, bias, reset_after):
    """Keras's GRU, gates z, r, h side by side; reset_after: bias rows (input, recurrent)."""
    units = recurrent.shape[0]
    h = np.zeros((x.shape[0], units))
    input_bias, recurrent_bias = (bias[0], bias[1]) if reset_after else (bias, 0)
    for t in range(x.shape[1]):
        xz, xr, xh = np.split(x[:, t] @ kernel + input_bias, 3, axis=1)
        if reset_after:
            rz, rr, rh = np.split(h @ recurrent + recurrent_bias, 3, axis=1)
            z, r = _sigmoid(xz + rz), _sigmoid(xr + rr)
            candidate = np.tanh(xh + r * rh)
        else:
            z = _sigmoid(xz + h @ recurrent[:, :units])
            r = _sigmoid(xr + h @ recurrent[:, units : 2 * units])
            candidate = np.tanh(xh + (r * h) @ recurrent[:, 2 * units :])
        h = z * h + (1 - z) * candidate
    return h


@pytest.mark.parametrize(
    "make, reference",
    [
        (lambda: layers.LSTM(3), _numpy_lstm),
        (lambda: layers.GRU(3), lambda *w: _numpy_gru(*w, reset_after=True)),
        (lambda: layers.GRU(3, reset_after=False), lambda *w: _numpy_gru(*w, reset_after=False)),
    ],
)
def test_set_weights_in_keras_layout_give_keras_outputs(make, reference):
    rng = np.random.default_rng(8)
    x = rng.normal(size=(2, 4, 2)).astype("float32")
    layer = make()
    layer(x)
    weights = [rng.normal(scale=0.5, size=w.shape).astype("float32") for w in layer.get_weights()]
    layer.set_weights(weights)
    want = reference(x.astype(np.float64), *[w.astype(np.float64) for w in weights])
    np.testing.assert_allclose(layer(x).numpy(), want, rtol=1e-5, atol=1e-6)


def test_bidirectional_config_round_trip_and_return_state():
    layer = layers.Bidirectional(layers.GRU(2, return_state=True), merge_mode="sum")
    config = layer.get_config()
    assert set(config) == {"name", "trainable", "dtype", "merge_mode", "layer", "backward_layer"}
    rebuilt = layers.Bidirectional.from_config(config)
    assert rebuilt.merge_mode == "sum" and rebuilt.backward_layer.go_backwards
    x = np.random.default_rng(9).normal(size=(2, 3, 2)).astype("float32")
    merged, forward_h, backward_h = layer(x)
    np.testing.assert_allclose(merged.numpy(), (forward_h + backward_h).numpy(), rtol=1e-6)


def test_a_saved_model_with_lstm_and_batch_normalization_predicts_the_same(tmp_path):
    rt.keras.backend.clear_session()
    model = rt.keras.Sequential(
        [layers.LSTM(4, input_shape=(5, 3)), layers.BatchNormalization(), layers.Dense(1)]
    )
    model.compile(optimizer="adam", loss="mse")
    x = np.random.default_rng(11).normal(size=(8, 5, 3)).astype("float32")
    model.fit(x, np.ones((8, 1), "float32"), verbose=0)
    model.save(str(tmp_path / "model"))
    loaded = rt.saved_model.load(str(tmp_path / "model"))
    np.testing.assert_allclose(
        loaded(rt.constant(x)).numpy(), model.predict(x, verbose=0), rtol=1e-5, atol=1e-6
    )


@pytest.mark.parametrize("cls", [layers.SimpleRNN, layers.LSTM, layers.GRU])
def test_weight_gradients_match_central_differences(cls):
    rt.keras.backend.clear_session()
    layer = cls(2, dtype="float64")
    x = rt.constant(np.random.default_rng(12).normal(size=(2, 3, 2)))

    def loss():
        return rt.reduce_sum(layer(x) ** 2)

    with rt.GradientTape() as tape:
        value = loss()
    grads = tape.gradient(value, layer.trainable_weights)
    eps = 1e-6
    for weight, grad in zip(layer.trainable_weights, grads):
        base = weight.numpy()
        numeric = np.zeros_like(base)
        for index in np.ndindex(base.shape):
            for sign in (1, -1):
                moved = base.copy()
                moved[index] += sign * eps
                weight.assign(moved)
                numeric[index] += sign * float(loss().numpy()) / (2 * eps)
        weight.assign(base)
        np.testing.assert_allclose(grad.numpy(), numeric, rtol=1e-5, atol=1e-8)
