"""Keras 3's recurrent tests on states and masks: ``stateful``, ``initial_state``,
``return_state``, ``mask`` (keras/src/layers/rnn/{simple_rnn,lstm,gru}_test.py, with their
hand-checked values), and rnn_test.py's ``RNN`` over user-written cells."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt

layers = rt.keras.layers
Constant = rt.keras.initializers.Constant
SEQUENCE_234 = np.arange(24).reshape((2, 3, 4)).astype("float32")
SEQUENCE_243 = np.arange(24).reshape((2, 4, 3)).astype("float32")


def _constant_layer(cls, units, **kwargs):
    return cls(
        units,
        kernel_initializer=Constant(0.01),
        recurrent_initializer=Constant(0.02),
        bias_initializer=Constant(0.03),
        **kwargs,
    )


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want, np.float32), atol=1e-5, rtol=1e-5)


def _rows(values, units):
    return np.repeat(np.array(values, np.float32)[:, None], units, axis=1)


# --- test_statefulness ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "cls, expected",
    [
        (layers.SimpleRNN, [0.40559256, 0.7361247]),
        (layers.LSTM, [0.3124785, 0.6863672]),
        (layers.GRU, [0.29542392, 0.5885018]),
    ],
)
def test_statefulness(cls, expected):
    layer = _constant_layer(cls, 4, stateful=True)
    layer(SEQUENCE_234)
    _close(layer(SEQUENCE_234), _rows(expected, 4))
    layer.reset_state()
    layer(SEQUENCE_234)
    _close(layer(SEQUENCE_234), _rows(expected, 4))


def test_stateful_with_symbolic_batch_size():
    layer = layers.GRU(5, stateful=True)
    x = np.ones((2, 10, 10), dtype=np.float32)
    layer(x, training=True)
    f = ag.function(
        lambda x: layer(x, training=True),
        input_signature=[rt.TensorSpec([None, 10, 10], rt.float32)],
    )
    assert f(x).shape == (2, 5)


# --- test_pass_initial_state, test_pass_return_state ----------------------------------------


def test_simple_rnn_pass_initial_state():
    initial_state = np.arange(8).reshape((2, 4)).astype("float32")
    layer = _constant_layer(layers.SimpleRNN, 4)
    _close(layer(SEQUENCE_243, initial_state=initial_state), _rows([0.33621645, 0.6262637], 4))
    layer = _constant_layer(layers.SimpleRNN, 4, go_backwards=True)
    _close(layer(SEQUENCE_243, initial_state=initial_state), _rows([0.07344437, 0.43043602], 4))


def test_lstm_pass_initial_state():
    initial_state = [np.arange(4).reshape((2, 2)).astype("float32")] * 2
    layer = _constant_layer(layers.LSTM, 2)
    _close(
        layer(SEQUENCE_243, initial_state=initial_state),
        [[0.20574439, 0.3558822], [0.64930826, 0.66276]],
    )
    layer = _constant_layer(layers.LSTM, 2, go_backwards=True)
    _close(
        layer(SEQUENCE_243, initial_state=initial_state),
        [[0.13281618, 0.2790356], [0.5839337, 0.5992567]],
    )


GRU_FORWARD = [[0.23774096, 0.33508456], [0.83659905, 1.0227708]]
GRU_BACKWARD = [[0.13486053, 0.23261218], [0.78257304, 0.9691353]]


def test_gru_pass_initial_state_and_return_state():
    initial_state = np.arange(4).reshape((2, 2)).astype("float32")
    _close(_constant_layer(layers.GRU, 2)(SEQUENCE_243, initial_state=initial_state), GRU_FORWARD)
    backwards = _constant_layer(layers.GRU, 2, go_backwards=True)
    _close(backwards(SEQUENCE_243, initial_state=initial_state), GRU_BACKWARD)
    for go_backwards, want in ((False, GRU_FORWARD), (True, GRU_BACKWARD)):
        layer = _constant_layer(layers.GRU, 2, return_state=True, go_backwards=go_backwards)
        output, state = layer(SEQUENCE_243, initial_state=initial_state)
        _close(output, want)
        _close(state, output.numpy())


def test_gru_legacy_implementation_argument():
    config = _constant_layer(layers.GRU, 3).get_config()
    config["implementation"] = 0
    layer = layers.GRU.from_config(config)
    sequence = np.arange(72).reshape((3, 6, 4)).astype("float32")
    _close(layer(sequence), _rows([0.5217289, 0.6371659, 0.39384964], 3))


# --- test_masking -----------------------------------------------------------------------------

MASK_A = np.array([[True, True, False, True], [True, False, False, True]])
MASK_B = np.array([[True, True, True, False], [True, True, False, False]])


def test_simple_rnn_masking():
    _close(
        _constant_layer(layers.SimpleRNN, 4, unroll=True)(SEQUENCE_243, mask=MASK_A),
        _rows([0.32951632, 0.61799484], 4),
    )
    first = [0.0599281, 0.15122814, 0.15122814, 0.32394567]
    second = [0.3969304, 0.3969304, 0.3969304, 0.608085]
    output = _constant_layer(layers.SimpleRNN, 2, return_sequences=True)(SEQUENCE_243, mask=MASK_A)
    _close(output[0], _rows(first, 2))
    _close(output[1], _rows(second, 2))
    zeroed = _constant_layer(layers.SimpleRNN, 2, return_sequences=True, zero_output_for_mask=True)
    output = zeroed(SEQUENCE_243, mask=MASK_A)
    _close(output[0], _rows([first[0], first[1], 0.0, first[3]], 2))
    _close(output[1], _rows([second[0], 0.0, 0.0, second[3]], 2))
    backwards = _constant_layer(layers.SimpleRNN, 4, go_backwards=True)
    _close(backwards(SEQUENCE_243, mask=MASK_A), _rows([0.07376196, 0.43645123], 4))


def test_lstm_masking():
    _close(
        _constant_layer(layers.LSTM, 2, unroll=True)(SEQUENCE_243, mask=MASK_B),
        _rows([0.11755939, 0.28556206], 2),
    )
    first = [0.01588910, 0.05552048, 0.11755939, 0.11755939]
    second = [0.14185596, 0.28556206, 0.28556206, 0.28556206]
    output = _constant_layer(layers.LSTM, 2, return_sequences=True)(SEQUENCE_243, mask=MASK_B)
    _close(output[0], _rows(first, 2))
    _close(output[1], _rows(second, 2))
    zeroed = _constant_layer(layers.LSTM, 2, return_sequences=True, zero_output_for_mask=True)
    output = zeroed(SEQUENCE_243, mask=MASK_B)
    _close(output[0], _rows([*first[:3], 0.0], 2))
    _close(output[1], _rows([*second[:2], 0.0, 0.0], 2))
    backwards_mask = np.array([[False, True, True, True], [False, False, True, True]])
    backwards = _constant_layer(layers.LSTM, 2, go_backwards=True)
    _close(backwards(SEQUENCE_243, mask=backwards_mask), _rows([0.15341201, 0.3844719], 2))


def test_gru_masking():
    _close(
        _constant_layer(layers.GRU, 2, unroll=True)(SEQUENCE_243, mask=MASK_A),
        _rows([0.19393763, 0.30818558], 2),
    )
    first = [0.03606692, 0.09497581, 0.09497581, 0.19393763]
    second = [0.16051409, 0.16051409, 0.16051409, 0.30818558]
    output = _constant_layer(layers.GRU, 2, return_sequences=True)(SEQUENCE_243, mask=MASK_A)
    _close(output[0], _rows(first, 2))
    _close(output[1], _rows(second, 2))
    zeroed = _constant_layer(layers.GRU, 2, return_sequences=True, zero_output_for_mask=True)
    output = zeroed(SEQUENCE_243, mask=MASK_A)
    _close(output[0], _rows([first[0], first[1], 0.0, first[3]], 2))
    _close(output[1], _rows([second[0], 0.0, 0.0, second[3]], 2))
    backwards = _constant_layer(layers.GRU, 2, go_backwards=True)
    _close(backwards(SEQUENCE_243, mask=MASK_A), _rows([0.11669192, 0.28380975], 2))


# --- rnn_test.py: RNN over cells written by the user -----------------------------------------


class OneStateRNNCell(layers.Layer):
    def __init__(self, units, state_size=None, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = state_size if state_size else units

    def build(self, input_shape):
        self.kernel = self.add_weight(
            shape=(input_shape[-1], self.units), initializer="ones", name="kernel"
        )
        self.recurrent_kernel = self.add_weight(
            shape=(self.units, self.units), initializer="ones", name="recurrent_kernel"
        )

    def call(self, inputs, states):
        output = rt.matmul(inputs, self.kernel) + rt.matmul(states[0], self.recurrent_kernel)
        return output, [output]


class TwoStatesRNNCell(layers.Layer):
    def __init__(self, units, state_size=None, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = state_size if state_size else [units, units]
        self.output_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(
            shape=(input_shape[-1], self.units), initializer="ones", name="kernel"
        )
        self.recurrent_kernel_1 = self.add_weight(
            shape=(self.units, self.units), initializer="ones", name="recurrent_kernel_1"
        )
        self.recurrent_kernel_2 = self.add_weight(
            shape=(self.units, self.units), initializer="ones", name="recurrent_kernel_2"
        )

    def call(self, inputs, states):
        prev_1 = prev_2 = states[0]  # as Keras's test cell has it
        h = rt.matmul(inputs, self.kernel)
        output_1 = h + rt.matmul(prev_1, self.recurrent_kernel_1)
        output_2 = h + rt.matmul(prev_2, self.recurrent_kernel_2)
        return output_1 + output_2, [output_1, output_2]


@pytest.mark.parametrize("cell", [OneStateRNNCell, TwoStatesRNNCell])
def test_rnn_basics(cell):
    states = 1 if cell is OneStateRNNCell else 2
    for return_sequences, shape in ((False, (3, 8)), (True, (3, 2, 8))):
        layer = layers.RNN(cell(8), return_sequences=return_sequences)
        output = layer(np.ones((3, 2, 4), "float32"))
        assert output.shape == shape
        assert len(layer.trainable_weights) == 1 + states
        assert len(layer.non_trainable_weights) == 0


@pytest.mark.parametrize("sequence_shape", [(3, 4, 5), (None, None, 3)])
@pytest.mark.parametrize("cell", [OneStateRNNCell, TwoStatesRNNCell])
def test_compute_output_shape(sequence_shape, cell):
    batch, time = sequence_shape[:2]
    states = 1 if cell is OneStateRNNCell else 2
    assert layers.RNN(cell(8)).compute_output_shape(sequence_shape) == (batch, 8)
    layer = layers.RNN(cell(8), return_sequences=True)
    assert layer.compute_output_shape(sequence_shape) == (batch, time, 8)
    shapes = layers.RNN(cell(8), return_state=True).compute_output_shape(sequence_shape)
    assert [tuple(s) for s in shapes] == [(batch, 8)] * (1 + states)
    layer = layers.RNN(cell(8), return_sequences=True, return_state=True)
    shapes = layer.compute_output_shape(sequence_shape)
    assert [tuple(s) for s in shapes] == [(batch, time, 8)] + [(batch, 8)] * states


def test_forward_pass_single_state():
    sequence = np.ones((1, 2, 3))
    _close(layers.RNN(OneStateRNNCell(2))(sequence), [[9.0, 9.0]])
    layer = layers.RNN(OneStateRNNCell(2), return_sequences=True)
    _close(layer(sequence), [[[3.0, 3.0], [9.0, 9.0]]])
    output, state = layers.RNN(OneStateRNNCell(2), return_state=True)(sequence)
    _close(output, [[9.0, 9.0]])
    _close(state, [[9.0, 9.0]])
    layer = layers.RNN(OneStateRNNCell(2), return_sequences=True, return_state=True)
    output, state = layer(sequence)
    _close(output, [[[3.0, 3.0], [9.0, 9.0]]])
    _close(state, [[9.0, 9.0]])


def test_forward_pass_two_states():
    sequence = np.ones((1, 2, 3))
    _close(layers.RNN(TwoStatesRNNCell(2))(sequence), [[18.0, 18.0]])
    layer = layers.RNN(TwoStatesRNNCell(2), return_sequences=True)
    _close(layer(sequence), [[[6.0, 6.0], [18.0, 18.0]]])
    output, state_1, state_2 = layers.RNN(TwoStatesRNNCell(2), return_state=True)(sequence)
    _close(output, [[18.0, 18.0]])
    _close(state_1, [[9.0, 9.0]])
    _close(state_2, [[9.0, 9.0]])


def test_passing_initial_state():
    sequence = np.ones((2, 3, 2))
    state = np.ones((2, 2))
    _close(layers.RNN(OneStateRNNCell(2))(sequence, initial_state=state), [[22.0, 22.0]] * 2)
    output, state_1, state_2 = layers.RNN(TwoStatesRNNCell(2), return_state=True)(
        sequence, initial_state=[state, state]
    )
    _close(output, [[44.0, 44.0]] * 2)
    _close(state_1, [[22.0, 22.0]] * 2)
    _close(state_2, [[22.0, 22.0]] * 2)


def test_statefulness_with_user_cells():
    sequence = np.ones((1, 2, 3))
    layer = layers.RNN(OneStateRNNCell(2), stateful=True)
    layer(sequence)
    _close(layer(sequence), [[45.0, 45.0]])
    layer = layers.RNN(TwoStatesRNNCell(2), stateful=True, return_state=True)
    layer(sequence)
    output, state_1, state_2 = layer(sequence)
    _close(output, [[90.0, 90.0]])
    _close(state_1, [[45.0, 45.0]])
    _close(state_2, [[45.0, 45.0]])


def test_go_backwards_with_a_user_cell():
    layer = layers.RNN(OneStateRNNCell(2), go_backwards=True)
    layer(SEQUENCE_234)
    _close(layer(SEQUENCE_234), [[202.0, 202.0], [538.0, 538.0]])
    layer = layers.RNN(OneStateRNNCell(2), stateful=True, return_state=True)
    layer(SEQUENCE_234)
    output, state = layer(SEQUENCE_234)
    _close(output, [[954.0, 954.0], [3978.0, 3978.0]])
    _close(state, [[954.0, 954.0], [3978.0, 3978.0]])


def test_stateful_batch_size_mismatch_raises():
    layer = layers.RNN(TwoStatesRNNCell(2), stateful=True)
    layer(np.ones((4, 5, 3), "float32"))
    with pytest.raises(ValueError, match="batch size"):
        layer(np.ones((1, 5, 3), "float32"))


def test_masking_with_a_user_cell():
    mask = np.array([[True, True, True, False], [True, True, False, False]])
    for unroll in (False, True):
        layer = layers.RNN(OneStateRNNCell(2), unroll=unroll)
        _close(layer(SEQUENCE_243, mask=mask), [[57.0, 57.0], [126.0, 126.0]])
        layer = layers.RNN(OneStateRNNCell(2), return_sequences=True, unroll=unroll)
        _close(
            layer(SEQUENCE_243, mask=mask),
            [
                [[3.0, 3.0], [18.0, 18.0], [57.0, 57.0], [57.0, 57.0]],
                [[39.0, 39.0], [126.0, 126.0], [126.0, 126.0], [126.0, 126.0]],
            ],
        )


def test_serialization_with_user_cells():
    # As in Keras, a user's cell is found by the name it is registered under (here a scope).
    layer = layers.RNN(OneStateRNNCell(2))
    config = layer.get_config()
    assert config["cell"]["registered_name"] == "OneStateRNNCell"
    with rt.keras.saving.custom_object_scope({"OneStateRNNCell": OneStateRNNCell}):
        rebuilt = layers.RNN.from_config(config)
    assert isinstance(rebuilt.cell, OneStateRNNCell) and rebuilt.cell.units == 2
    assert rebuilt.get_config() == {**config, "name": rebuilt.name}
    with pytest.raises(TypeError, match="Could not locate class 'OneStateRNNCell'"):
        layers.RNN.from_config(config)  # unregistered: Keras' error


# --- stacked_rnn_cells_test.py: RNN over a list of cells ---------------------------------------


@pytest.mark.parametrize(
    "make, weights",
    [
        (OneStateRNNCell, 6),
        (TwoStatesRNNCell, 9),
        (lambda units: layers.SimpleRNNCell(units, dropout=0.1, recurrent_dropout=0.1), 9),
        (lambda units: layers.GRUCell(units, dropout=0.1, recurrent_dropout=0.1), 9),
        (lambda units: layers.LSTMCell(units, dropout=0.1, recurrent_dropout=0.1), 9),
    ],
)
@pytest.mark.parametrize("return_sequences", [False, True])
def test_stacked_basics(make, weights, return_sequences):
    layer = layers.RNN([make(3), make(4), make(5)], return_sequences=return_sequences)
    x = np.random.default_rng(13).normal(size=(2, 3, 4)).astype("float32")
    output = layer(x, training=True)
    assert output.shape == ((2, 3, 5) if return_sequences else (2, 5))
    assert len(layer.trainable_weights) == weights
    assert len(layer.non_trainable_weights) == 0
    staged = ag.function(lambda x: layer(x, training=True))
    assert staged(rt.constant(x)).shape == output.shape


def test_stacked_correctness_single_state():
    sequences = [[[18.0, 18.0], [156.0, 156.0], [786.0, 786.0]],
                 [[162.0, 162.0], [1020.0, 1020.0], [4386.0, 4386.0]]]  # fmt: skip
    last = [[786.0, 786.0], [4386.0, 4386.0]]
    first_state = [[158.0, 158.0, 158.0], [782.0, 782.0, 782.0]]
    _close(layers.RNN([OneStateRNNCell(3), OneStateRNNCell(2)])(SEQUENCE_234), last)
    layer = layers.RNN([OneStateRNNCell(3), OneStateRNNCell(2)], return_sequences=True)
    _close(layer(SEQUENCE_234), sequences)
    layer = layers.RNN([OneStateRNNCell(3), OneStateRNNCell(2)], return_state=True)
    output, state_1, state_2 = layer(SEQUENCE_234)
    _close(output, last)
    _close(state_1, first_state)
    _close(state_2, last)
    layer = layers.RNN(
        [OneStateRNNCell(3), OneStateRNNCell(2)], return_sequences=True, return_state=True
    )
    output, state_1, state_2 = layer(SEQUENCE_234)
    _close(output, sequences)
    _close(state_1, first_state)
    _close(state_2, last)


def test_stacked_correctness_two_states():
    last = [[3144.0, 3144.0], [17544.0, 17544.0]]
    _close(layers.RNN([TwoStatesRNNCell(3), TwoStatesRNNCell(2)])(SEQUENCE_234), last)
    layer = layers.RNN([TwoStatesRNNCell(3), TwoStatesRNNCell(2)], return_sequences=True)
    _close(
        layer(SEQUENCE_234),
        [[[72.0, 72.0], [624.0, 624.0], [3144.0, 3144.0]],
         [[648.0, 648.0], [4080.0, 4080.0], [17544.0, 17544.0]]],
    )  # fmt: skip
    layer = layers.RNN([TwoStatesRNNCell(3), TwoStatesRNNCell(2)], return_state=True)
    output, state_1, state_2 = layer(SEQUENCE_234)
    _close(output, last)
    for state in state_1:
        _close(state, [[158.0, 158.0, 158.0], [782.0, 782.0, 782.0]])
    for state in state_2:
        _close(state, [[1572.0, 1572.0], [8772.0, 8772.0]])


def test_stacked_statefulness():
    layer = layers.RNN([OneStateRNNCell(3), OneStateRNNCell(2)], stateful=True)
    layer(SEQUENCE_234)
    _close(layer(SEQUENCE_234), [[34092.0, 34092.0], [173196.0, 173196.0]])
    layer = layers.RNN([TwoStatesRNNCell(3), TwoStatesRNNCell(2)], stateful=True)
    layer(SEQUENCE_234)
    _close(layer(SEQUENCE_234), [[136368.0, 136368.0], [692784.0, 692784.0]])


def test_return_state_stacked_lstm_cell():
    layer = layers.RNN([layers.LSTMCell(10), layers.LSTMCell(10)], return_state=True)
    out = layer(np.zeros((2, 3, 5)))
    assert len(out) == 3
    assert out[0].shape == (2, 10)
    assert [s.shape for s in out[1]] == [(2, 10), (2, 10)]
    assert [s.shape for s in out[2]] == [(2, 10), (2, 10)]
    shape = layer.compute_output_shape((2, 3, 5))
    assert len(shape) == 3 and shape[0] == (2, 10)
    assert [tuple(s) for s in shape[1]] == [(2, 10), (2, 10)]
    assert [tuple(s) for s in shape[2]] == [(2, 10), (2, 10)]


def test_stacked_lstm_cell_mask():
    mask = np.array([[True, True, True], [True, True, False]])
    cells = [
        layers.LSTMCell(units=1, kernel_initializer="ones", recurrent_initializer="ones")
        for _ in range(2)
    ]
    output = layers.RNN(cells)(np.ones((2, 3, 4)), mask=mask)
    np.testing.assert_allclose(output.numpy(), [[0.7793], [0.5998]], atol=1e-4)


def test_stacked_cells_config_round_trip():
    layer = layers.RNN([layers.LSTMCell(3), layers.GRUCell(2)], return_sequences=True)
    rebuilt = layers.RNN.from_config(layer.get_config())
    assert [type(c).__name__ for c in rebuilt.cell.cells] == ["LSTMCell", "GRUCell"]
    assert [c.units for c in rebuilt.cell.cells] == [3, 2]
