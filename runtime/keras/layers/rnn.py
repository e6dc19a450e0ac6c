"""Recurrent layers: ``RNN(cell)`` runs a cell over the time axis; ``SimpleRNN``, ``LSTM`` and
``GRU`` are ``RNN`` over their cell, with Keras 3's arguments; ``Bidirectional`` runs a layer
forwards and a copy backwards.

The time loop is a Python loop eagerly, and in a graph with ``unroll=True`` when the input's
time dimension is static; else (Keras's default, ``unroll=False``) one ``while_loop`` over a
TensorArray, so a graph holds one copy of the cell and a model traced with
``(None, None, features)`` inputs serves any sequence length. Gradients go through either.

>>> import numpy as np, runtime as rt
>>> rt.keras.backend.clear_session()
>>> lstm = rt.keras.layers.LSTM(3, return_sequences=True, return_state=True)
>>> outputs, h, c = lstm(np.ones((2, 5, 4), "float32"))
>>> outputs.shape, h.shape, c.shape
(TensorShape([2, 5, 3]), TensorShape([2, 3]), TensorShape([2, 3]))
>>> [v.name for v in lstm.weights]
['lstm_cell/kernel:0', 'lstm_cell/recurrent_kernel:0', 'lstm_cell/bias:0']
"""

from __future__ import annotations

from runtime.core import context, nest
from runtime.core.tensor import Tensor
from runtime.core.tensor_shape import TensorShape
from runtime.functions.control_flow import while_loop
from runtime.keras import regularizers
from runtime.keras.layers import layer_config
from runtime.keras.layers.base import Layer
from runtime.keras.layers.rnn_cells import (
    GRUCell,
    LSTMCell,
    SimpleRNNCell,
    StackedRNNCells,
)
from runtime.keras.saving.serialization import deserialize_keras_object, serialize_keras_object
from runtime.ops.array_ops import shape_of, stack, transpose
from runtime.ops.broadcast_ops import where, zeros
from runtime.ops.constant_ops import cast, convert_to_tensor
from runtime.ops.tensor_array_ops import TensorArray


def _as_state(value, dtype):
    """A given initial state as a tensor of the sequence's dtype (Keras casts float64 arrays)."""
    if not isinstance(value, Tensor):
        value = convert_to_tensor(value)
    return value if value.dtype is dtype else cast(value, dtype)


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


class RNN(Layer):
    """Runs ``cell`` over the time axis of ``(batch, time, features)`` inputs.

    Returns the last output, or every step's (``return_sequences``), followed by the final
    states (``return_state``); ``go_backwards`` runs from the last step to the first (and
    returns the outputs in that order, as Keras does). ``initial_state`` replaces the zero
    states; ``mask`` (``(batch, time)`` booleans) keeps the state and output of masked steps.
    """

    def __init__(
        self,
        cell,
        return_sequences=False,
        return_state=False,
        go_backwards=False,
        stateful=False,
        unroll=False,
        zero_output_for_mask=False,
        **kwargs,
    ):
        super().__init__(**kwargs)
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not hasattr(cell, "call") or not hasattr(cell, "state_size"):
            raise ValueError(
                "Argument `cell` should have a `call` method and a `state_size` attribute. "
                f"Received: cell={cell}"
            )
        self.cell = cell
        self.return_sequences, self.return_state = return_sequences, return_state
        self.go_backwards, self.stateful, self.unroll = go_backwards, stateful, unroll
        self.zero_output_for_mask = zero_output_for_mask

    def build(self, sequences_shape, initial_state_shape=None):
        if not self.cell.built:
            self.cell.build(tuple(sequences_shape[:1]) + tuple(sequences_shape[2:]))
            self.cell.built = True
        self.states = None
        if self.stateful:
            batch = sequences_shape[0]
            if batch is None:
                raise ValueError(
                    "When using `stateful=True` in a RNN, the batch size must be static. Found "
                    f"dynamic batch size: sequence.shape={tuple(sequences_shape)}"
                )
            self.states = [
                self.add_weight("rnn_state", (batch, size), initializer="zeros", trainable=False)
                for size in self._state_sizes()
            ]

    def _state_structure(self):
        """The cell's states as the cell takes them: a list of sizes, nested for stacked cells."""
        size = self.cell.state_size
        return list(size) if isinstance(size, (list, tuple)) else [size]

    def _state_sizes(self):
        return nest.flatten(self._state_structure())

    def reset_state(self):
        """Sets the states a ``stateful`` layer carries from one call to the next to zeros."""
        for state in self.states or []:
            state.assign(zeros(state.shape, state.dtype))

    reset_states = reset_state

    def call(self, sequences, initial_state=None, mask=None, training=None):
        if not sequences.dtype.is_floating:  # integer sequences run in the layer's dtype
            sequences = cast(sequences, self._dtype)
        batch = shape_of(sequences)[0]
        if self.stateful and initial_state is None:
            self._check_stateful_batch(sequences)
            initial_state = [state.read_value() for state in self.states]
        states = self._initial_states(initial_state, batch, sequences.dtype)
        time_major = transpose(sequences, [1, 0, *range(2, sequences.shape.rank)])
        if mask is not None:
            mask = transpose(convert_to_tensor(mask), [1, 0])
        if self.go_backwards:
            time_major = time_major[::-1]
            mask = None if mask is None else mask[::-1]
        if hasattr(self.cell, "set_dropout_masks"):
            self.cell.set_dropout_masks(batch, sequences.shape[-1], training)
        loop = self._unrolled if self._unrolls(sequences.shape[1]) else self._looped
        outputs, last, states = loop(time_major, states, mask, training)
        if hasattr(self.cell, "set_dropout_masks"):
            self.cell.set_dropout_masks(None, None, False)  # the next call draws its own
        if self.stateful:
            for variable, state in zip(self.states, states):
                variable.assign(state)
        result = outputs if self.return_sequences else last
        if not self.return_state:
            return result
        return [result, *nest.pack_sequence_as(self._state_structure(), list(states))]

    def _unrolls(self, steps):
        """A Python loop eagerly (it is what a while_loop runs there) and, in a graph, where
        ``unroll=True`` and the steps are known; else a while_loop: a graph unrolled over
        100 steps holds 100 copies of the cell, slower to build and to run."""
        return steps is not None and (self.unroll or context.executing_eagerly())

    def _check_stateful_batch(self, sequences):
        expected, got = self.states[0].shape[0], sequences.shape[0]
        if got is not None and got != expected:
            raise ValueError(
                f"The batch size of the input ({got}) does not match the batch size the "
                f"stateful layer {self.name!r} was built with ({expected})."
            )

    def _initial_states(self, initial_state, batch, dtype):
        if initial_state is not None:
            return [_as_state(s, dtype) for s in nest.flatten(_as_list(initial_state))]
        if hasattr(self.cell, "get_initial_state"):
            return nest.flatten(_as_list(self.cell.get_initial_state(batch)))
        return [zeros([batch, size], dtype) for size in self._state_sizes()]

    def _step(self, x, states, mask_t, previous_output, training):
        """One step of the cell; where ``mask_t`` is False the state and output carry over."""
        structured = nest.pack_sequence_as(self._state_structure(), list(states))
        output, new_states = self.cell(x, structured, training=training)
        new_states = nest.flatten(_as_list(new_states))
        if mask_t is not None:
            keep = cast(mask_t, output.dtype)[:, None] > 0
            held = zeros_like_output(output) if self.zero_output_for_mask else previous_output
            output = where(keep, output, held)
            new_states = [where(keep, new, old) for new, old in zip(new_states, states)]
        return output, new_states

    def _unrolled(self, time_major, states, mask, training):
        """A Python loop over the known steps."""
        outputs = []
        output = zeros([shape_of(time_major)[1], self._output_size()], time_major.dtype)
        # Indexed step by step: unstack of a one-step (1, 1, n) tensor returns it whole here.
        for t in range(time_major.shape[0]):
            mask_t = None if mask is None else mask[t]
            output, states = self._step(time_major[t], states, mask_t, output, training)
            outputs.append(output)
        return stack(outputs, axis=1), output, states

    def _looped(self, time_major, states, mask, training):
        """One while_loop over a number of steps known only when the graph runs."""
        steps = shape_of(time_major)[0]
        written = TensorArray(time_major.dtype, size=steps, element_shape=None)
        output = zeros([shape_of(time_major)[1], self._output_size()], time_major.dtype)

        def body(t, output, written, *states):
            mask_t = None if mask is None else mask[t]
            output, new = self._step(time_major[t], list(states), mask_t, output, training)
            return (t + 1, output, written.write(t, output), *new)

        t, output, written, *states = while_loop(
            lambda t, *rest: t < steps, body, (0, output, written, *states)
        )
        sequence = transpose(written.stack(), [1, 0, 2])
        return sequence, output, states

    def _output_size(self):
        size = getattr(self.cell, "output_size", None)
        return size if size is not None else self._state_sizes()[0]

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        dims = tuple(sequences_shape)
        size = self._output_size()
        output = TensorShape(dims[:2] + (size,) if self.return_sequences else (dims[0], size))
        if not self.return_state:
            return output
        shapes = nest.map_structure(lambda s: TensorShape((dims[0], s)), self._state_structure())
        return [output, *shapes]

    def get_config(self):
        return {
            **super().get_config(),
            "return_sequences": self.return_sequences,
            "return_state": self.return_state,
            "go_backwards": self.go_backwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
            "zero_output_for_mask": self.zero_output_for_mask,
            "cell": serialize_keras_object(self.cell),
        }

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["cell"] = deserialize_keras_object(config["cell"])
        return super().from_config(config)


def zeros_like_output(output):
    return output * 0


_RNN_KEYS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll")


class _CellLayer(RNN):
    """An RNN that makes its own cell of class ``_cell`` from the layer's arguments."""

    _cell = None
    _extra_keys = ()  # config keys beyond the cell's own (LSTM and GRU add activity_regularizer)

    def __init__(self, units, **kwargs):
        layer_kwargs = {
            k: kwargs.pop(k) for k in ("name", "trainable", "dtype", *_RNN_KEYS) if k in kwargs
        }
        for key in ("input_shape", "batch_input_shape", "batch_size", "zero_output_for_mask",
                    "activity_regularizer"):  # fmt: skip
            if key in kwargs:
                layer_kwargs[key] = kwargs.pop(key)
        cell = self._cell(
            units,
            dtype=layer_kwargs.get("dtype"),
            name=self._cell.__name__.replace("Cell", "").lower() + "_cell",
            **kwargs,
        )
        super().__init__(cell, **layer_kwargs)

    def get_config(self):
        config = super().get_config()
        del config["cell"]
        cell_config = self.cell.get_config()
        for key in ("name", "trainable", "dtype"):
            cell_config.pop(key)
        if "activity_regularizer" in self._extra_keys:
            cell_config["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        if "seed" not in self._extra_keys:
            cell_config.pop("seed", None)
        return {**config, **cell_config}

    @classmethod
    def from_config(cls, config):
        # Every key reaches the constructor, which hands the cell's on to the cell.
        return layer_config.from_config(cls, config, passed_on=set(config))


def _cell_property(name):
    return property(lambda self: getattr(self.cell, name), doc=f"The cell's ``{name}``.")


# The cell's arguments read on the layer, as in Keras (``lstm.units``, ``gru.reset_after``).
for _name in (
    "units", "activation", "recurrent_activation", "use_bias", "unit_forget_bias",
    "reset_after", "kernel_initializer", "recurrent_initializer", "bias_initializer",
    "kernel_regularizer", "recurrent_regularizer", "bias_regularizer", "kernel_constraint",
    "recurrent_constraint", "bias_constraint", "dropout", "recurrent_dropout", "seed",
):  # fmt: skip
    setattr(_CellLayer, _name, _cell_property(_name))


class SimpleRNN(_CellLayer):
    """A fully connected RNN: ``RNN(SimpleRNNCell(units, ...))``."""

    _cell = SimpleRNNCell
    _extra_keys = ("activity_regularizer",)


class _GatedLayer(_CellLayer):
    """LSTM and GRU: they take Keras's ``use_cudnn``, its choice of a fused GPU kernel, which
    gives the same results; it is kept (Bidirectional copies it) and has no effect here."""

    _extra_keys = ("activity_regularizer", "seed")

    def __init__(self, units, use_cudnn="auto", **kwargs):
        super().__init__(units, **kwargs)
        self.use_cudnn = use_cudnn


class LSTM(_GatedLayer):
    """Long short-term memory: ``RNN(LSTMCell(units, ...))``; states ``[h, c]``."""

    _cell = LSTMCell


class GRU(_GatedLayer):
    """Gated recurrent unit: ``RNN(GRUCell(units, ...))``, ``reset_after=True`` by default."""

    _cell = GRUCell
