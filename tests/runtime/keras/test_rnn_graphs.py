"""What a recurrent layer puts in a graph: one while_loop over the steps unless it is asked to
unroll (a graph unrolled over 100 steps holds 100 cells: seconds to build, minutes for XLA to
compile), and gates cut by one split, whose gradient is one concat."""

from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
import runtime as rt

layers = rt.keras.layers
RECURRENT = [layers.SimpleRNN, layers.LSTM, layers.GRU]


def _graph_ops(layer, steps):
    function = ag.function(lambda x: layer(x))
    concrete = function.get_concrete_function(rt.TensorSpec([2, steps, 3], rt.float32))
    return [op.type for op in concrete.graph.get_operations()]


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _numpy_lstm(x, kernel, recurrent, bias):
    """Keras's LSTM, gates i, f, c, o: the last output."""
    h = c = np.zeros((x.shape[0], recurrent.shape[0]))
    for t in range(x.shape[1]):
        i, f, g, o = np.split(x[:, t] @ kernel + h @ recurrent + bias, 4, axis=1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
    return h


@pytest.mark.parametrize("cls", RECURRENT)
def test_a_graph_holds_one_cell_whatever_the_number_of_steps(cls):
    layer = cls(4)
    assert len(_graph_ops(layer, 5)) == len(_graph_ops(layer, 60))


@pytest.mark.parametrize("cls", RECURRENT)
def test_unroll_true_unrolls_a_static_number_of_steps(cls):
    layer = cls(4, unroll=True)
    assert len(_graph_ops(layer, 10)) > len(_graph_ops(layer, 5))


@pytest.mark.parametrize("unroll", [False, True])
def test_the_loop_and_the_unrolled_graph_compute_keras_lstm(unroll):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 6, 3)).astype(np.float32)
    layer = layers.LSTM(4, unroll=unroll)
    layer.build((None, 6, 3))
    kernel, recurrent, bias = (w.numpy().astype(np.float64) for w in layer.weights)
    expected = _numpy_lstm(x.astype(np.float64), kernel, recurrent, bias)
    np.testing.assert_allclose(layer(x).numpy(), expected, rtol=1e-5, atol=1e-6)
    graph = ag.function(lambda t: layer(t))
    np.testing.assert_allclose(graph(x).numpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("cls", [layers.LSTM, layers.GRU])
@pytest.mark.parametrize("reset_after", [True, False])
def test_gates_are_cut_by_split_not_by_strided_slices(cls, reset_after):
    kwargs = {"reset_after": reset_after} if cls is layers.GRU else {}
    ops = _graph_ops(cls(4, unroll=True, **kwargs), 2)
    assert "SplitV" in ops
    assert ops.count("StridedSlice") == 2  # the steps' inputs, sequences[:, t], only
