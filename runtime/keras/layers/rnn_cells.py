"""Recurrent cells: one time step of ``SimpleRNN``, ``LSTM`` and ``GRU``, with Keras 3's weights
(``kernel``, ``recurrent_kernel``, ``bias``), gate order (LSTM ``i, f, c, o``; GRU ``z, r, h``)
and defaults, so weights written by Keras give the same outputs here.

A cell is called as ``cell(inputs, states, training=None)`` -> ``(output, new_states)``;
``states`` is a list of ``(batch, size)`` tensors, one per entry of ``cell.state_size``.

>>> import numpy as np, runtime as rt
>>> rt.keras.backend.clear_session()
>>> cell = rt.keras.layers.SimpleRNNCell(2, kernel_initializer="ones",
...                                      recurrent_initializer="zeros")
>>> out, [state] = cell(rt.constant([[0.5, 0.25]]), [rt.zeros((1, 2))])
>>> out.numpy()                                   # tanh(0.5 + 0.25)
array([[0.635149, 0.635149]], dtype=float32)
"""

from __future__ import annotations

import numbers

from runtime.core import dtypes
from runtime.core.tensor import Tensor
from runtime.keras import activations, constraints, initializers, regularizers
from runtime.keras.layers.base import Layer
from runtime.keras.saving.serialization import deserialize_keras_object, serialize_keras_object
from runtime.ops.array_ops import concat, split, unstack
from runtime.ops.broadcast_ops import zeros
from runtime.ops.constant_ops import cast
from runtime.ops.math_ops import matmul
from runtime.ops.random_ops import uniform


class _ForgetBiasOnes(initializers.Initializer):
    """An LSTM bias: the bias initializer for each gate, ones for the forget gate
    (``unit_forget_bias``, Jozefowicz et al., 2015)."""

    def __init__(self, units, initializer):
        self.units, self.initializer = units, initializer

    def draw(self, shape, dtype):
        units = self.units
        return concat(
            [
                self.initializer((units,), dtype),
                initializers.get("ones")((units,), dtype),
                self.initializer((2 * units,), dtype),
            ],
            0,
        )


class _Cell(Layer):
    """What the three cells share: their arguments, weights, dropout masks and config."""

    _gates = 1  # how many blocks of ``units`` the kernels hold
    _config_order = ()  # the keys of the cell's own config, in Keras's order

    def __init__(
        self,
        units,
        activation="tanh",
        use_bias=True,
        kernel_initializer="glorot_uniform",
        recurrent_initializer="orthogonal",
        bias_initializer="zeros",
        kernel_regularizer=None,
        recurrent_regularizer=None,
        bias_regularizer=None,
        kernel_constraint=None,
        recurrent_constraint=None,
        bias_constraint=None,
        dropout=0.0,
        recurrent_dropout=0.0,
        seed=None,
        **kwargs,
    ):
        kwargs.pop("implementation", None)  # Keras's choice of kernel fusion: the same result
        super().__init__(**kwargs)
        if not isinstance(units, numbers.Integral) or isinstance(units, bool) or units <= 0:
            raise ValueError(
                "Received an invalid value for argument `units`, expected a positive integer, "
                f"got {units}."
            )
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.recurrent_initializer = initializers.get(recurrent_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer, self.recurrent_regularizer = (
            kernel_regularizer,
            recurrent_regularizer,
        )
        self.bias_regularizer = bias_regularizer
        self.kernel_constraint, self.recurrent_constraint = kernel_constraint, recurrent_constraint
        self.bias_constraint = bias_constraint
        self.dropout = min(1.0, max(0.0, dropout))
        self.recurrent_dropout = min(1.0, max(0.0, recurrent_dropout))
        self.seed = seed
        self.dropout_mask = self.recurrent_dropout_mask = None

    @property
    def state_size(self):
        return self.units

    @property
    def output_size(self):
        return self.units

    def build(self, input_shape):
        width = self._gates * self.units
        self.kernel = self.add_weight(
            "kernel",
            (input_shape[-1], width),
            initializer=self.kernel_initializer,
            regularizer=self.kernel_regularizer,
            constraint=self.kernel_constraint,
        )
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel",
            (self.units, width),
            initializer=self.recurrent_initializer,
            regularizer=self.recurrent_regularizer,
            constraint=self.recurrent_constraint,
        )
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias",
                self._bias_shape(),
                initializer=self._bias_init(),
                regularizer=self.bias_regularizer,
                constraint=self.bias_constraint,
            )

    def _bias_shape(self):
        return (self._gates * self.units,)

    def _bias_init(self):
        return self.bias_initializer

    # --- dropout: one mask per sequence, drawn before the time loop --------------------------

    def set_dropout_masks(self, batch, input_width, training):
        """Draws the input and recurrent dropout masks for the coming sequence (the same at
        every step, as in Keras), or clears them outside training."""
        self.dropout_mask = self.recurrent_dropout_mask = None
        if training is None or training is False:
            return
        if 0 < self.dropout < 1:
            self.dropout_mask = self._mask([batch, input_width], self.dropout, 0, training)
        if 0 < self.recurrent_dropout < 1:
            shape = [batch, self.units]
            self.recurrent_dropout_mask = self._mask(shape, self.recurrent_dropout, 1, training)

    def _mask(self, shape, rate, which, training):
        seed = None if self.seed is None else self.seed + which
        keep = uniform(shape, dtype=dtypes.float64, seed=seed) >= rate
        mask = cast(keep, self._dtype) * (1.0 / (1.0 - rate))
        if isinstance(training, Tensor):  # known when the graph runs: ones outside training
            on = cast(training, self._dtype)
            mask = mask * on + (1.0 - on)
        return mask

    def _dropped(self, inputs, h):
        if self.dropout_mask is not None:
            inputs = inputs * self.dropout_mask
        if self.recurrent_dropout_mask is not None:
            h = h * self.recurrent_dropout_mask
        return inputs, h

    def get_initial_state(self, batch_size=None):
        sizes = self.state_size if isinstance(self.state_size, list) else [self.state_size]
        return [zeros([batch_size, size], self._dtype) for size in sizes]

    def get_config(self):
        values = {
            "units": self.units,
            "activation": activations.serialize(self.activation),
            "recurrent_activation": activations.serialize(
                getattr(self, "recurrent_activation", activations.linear)
            ),
            "use_bias": self.use_bias,
            "unit_forget_bias": getattr(self, "unit_forget_bias", None),
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "recurrent_initializer": initializers.serialize(self.recurrent_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "recurrent_regularizer": regularizers.serialize(self.recurrent_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "recurrent_constraint": constraints.serialize(self.recurrent_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrent_dropout,
            "reset_after": getattr(self, "reset_after", None),
            "seed": self.seed,
        }
        return {**super().get_config(), **{k: values[k] for k in self._config_order}}


_COMMON_KEYS = (
    "units", "activation", "use_bias", "kernel_initializer", "recurrent_initializer",
    "bias_initializer", "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
    "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
    "recurrent_dropout", "seed",
)  # fmt: skip


class SimpleRNNCell(_Cell):
    """``h = activation(x @ kernel + h_prev @ recurrent_kernel + bias)``; the output is ``h``."""

    _config_order = _COMMON_KEYS

    def call(self, inputs, states, training=None):
        h_prev = states[0] if isinstance(states, (list, tuple)) else states
        inputs, h_dropped = self._dropped(inputs, h_prev)
        h = matmul(inputs, self.kernel)
        if self.bias is not None:
            h = h + self.bias
        output = self.activation(h + matmul(h_dropped, self.recurrent_kernel))
        return output, [output] if isinstance(states, (list, tuple)) else output


class LSTMCell(_Cell):
    """One LSTM step, gates ``i, f, c, o`` side by side in the kernels::

        i, f, g, o = split(x @ kernel + h @ recurrent_kernel + bias)
        c = sigmoid(f) * c_prev + sigmoid(i) * tanh(g);  h = sigmoid(o) * tanh(c)

    (``activation`` for tanh, ``recurrent_activation`` for sigmoid). States ``[h, c]``.
    """

    _gates = 4
    _config_order = (
        "units", "activation", "recurrent_activation", "use_bias", "unit_forget_bias",
        *_COMMON_KEYS[3:],
    )  # fmt: skip

    def __init__(self, units, recurrent_activation="sigmoid", unit_forget_bias=True, **kwargs):
        super().__init__(units, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.unit_forget_bias = unit_forget_bias

    @property
    def state_size(self):
        return [self.units, self.units]

    def _bias_init(self):
        if self.unit_forget_bias:
            return _ForgetBiasOnes(self.units, self.bias_initializer)
        return self.bias_initializer

    def call(self, inputs, states, training=None):
        h_prev, c_prev = states
        inputs, h_dropped = self._dropped(inputs, h_prev)
        z = matmul(inputs, self.kernel) + matmul(h_dropped, self.recurrent_kernel)
        if self.bias is not None:
            z = z + self.bias
        # One split rather than four slices: its gradient is one concat (4x faster under XLA).
        zi, zf, zc, zo = split(z, [self.units] * 4, axis=1)
        i, f, o = (self.recurrent_activation(gate) for gate in (zi, zf, zo))
        c = f * c_prev + i * self.activation(zc)
        h = o * self.activation(c)
        return h, [h, c]


class GRUCell(_Cell):
    """One GRU step, gates ``z, r, h`` side by side in the kernels. With ``reset_after=True``
    (Keras 3's default, cuDNN's form) the reset gate multiplies the recurrent part after its
    matmul, and the bias is ``(2, 3 * units)``: input bias, recurrent bias::

        z = sigmoid(xz + hz);  r = sigmoid(xr + hr);  n = tanh(xn + r * hn)
        h = z * h_prev + (1 - z) * n
    """

    _gates = 3
    _config_order = (
        "units", "activation", "recurrent_activation", *_COMMON_KEYS[2:-1], "reset_after", "seed",
    )  # fmt: skip

    def __init__(self, units, recurrent_activation="sigmoid", reset_after=True, **kwargs):
        super().__init__(units, **kwargs)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.reset_after = reset_after

    def _bias_shape(self):
        width = 3 * self.units
        return (2, width) if self.reset_after else (width,)

    def call(self, inputs, states, training=None):
        h_prev = states[0] if isinstance(states, (list, tuple)) else states
        inputs, h_dropped = self._dropped(inputs, h_prev)
        u = self.units
        x = matmul(inputs, self.kernel)
        input_bias = recurrent_bias = None
        if self.bias is not None:
            input_bias, recurrent_bias = (
                unstack(self.bias, 2) if self.reset_after else (self.bias, None)
            )
            x = x + input_bias
        xz, xr, xh = split(x, [u] * 3, axis=1)  # split, not slices: see LSTMCell.call
        if self.reset_after:
            rec = matmul(h_dropped, self.recurrent_kernel)
            if recurrent_bias is not None:
                rec = rec + recurrent_bias
            hz, hr, hh = split(rec, [u] * 3, axis=1)
            z = self.recurrent_activation(xz + hz)
            r = self.recurrent_activation(xr + hr)
            candidate = self.activation(xh + r * hh)
        else:
            kernel_zr, kernel_h = split(self.recurrent_kernel, [2 * u, u], axis=1)
            hz, hr = split(matmul(h_dropped, kernel_zr), [u, u], axis=1)
            z = self.recurrent_activation(xz + hz)
            r = self.recurrent_activation(xr + hr)
            candidate = self.activation(xh + matmul(r * h_dropped, kernel_h))
        h = z * h_prev + (1 - z) * candidate
        return h, [h] if isinstance(states, (list, tuple)) else h


class StackedRNNCells(Layer):
    """Cells run one after the other at each step, each taking the output of the one before:
    ``RNN([cell_1, cell_2])`` makes one. Its states are the cells' states, one entry per cell.
    """

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        for cell in cells:
            if not hasattr(cell, "call"):
                raise ValueError(
                    "All cells must have a `call` method. "
                    f"Received cell without a `call` method: {cell}"
                )
            if not hasattr(cell, "state_size"):
                raise ValueError(
                    "All cells must have a `state_size` attribute. "
                    f"Received cell without a `state_size`: {cell}"
                )
        self.cells = list(cells)

    @property
    def state_size(self):
        return [cell.state_size for cell in self.cells]

    @property
    def output_size(self):
        return _output_size(self.cells[-1])

    def build(self, input_shape):
        batch = input_shape[0]
        for cell in self.cells:
            if not cell.built:
                cell.build(input_shape)
                cell.built = True
            input_shape = (batch, _output_size(cell))

    def set_dropout_masks(self, batch, input_width, training):
        """Each cell's masks, for the inputs it gets: the previous cell's outputs."""
        for cell in self.cells:
            if hasattr(cell, "set_dropout_masks"):
                cell.set_dropout_masks(batch, input_width, training)
            input_width = _output_size(cell)

    def call(self, inputs, states, training=None):
        new_states = []
        for cell, cell_states in zip(self.cells, states):
            nested = isinstance(cell_states, (list, tuple))
            inputs, cell_states = cell(inputs, list(cell_states) if nested else [cell_states])
            cell_states = _as_list(cell_states)
            new_states.append(cell_states if nested else cell_states[0])
        return inputs, new_states

    def get_config(self):
        return {
            **super().get_config(),
            "cells": [serialize_keras_object(cell) for cell in self.cells],
        }

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["cells"] = [deserialize_keras_object(entry) for entry in config["cells"]]
        return super().from_config(config)


def _as_list(value):
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _output_size(cell):
    size = getattr(cell, "output_size", None)
    if size is not None:
        return size
    state_size = cell.state_size
    return state_size[0] if isinstance(state_size, (list, tuple)) else state_size
