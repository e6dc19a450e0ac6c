"""``Bidirectional``: a recurrent layer run forwards and a copy of it run backwards, their
outputs merged, as Keras 3 defines it.

>>> import numpy as np, runtime as rt
>>> rt.keras.backend.clear_session()
>>> both = rt.keras.layers.Bidirectional(rt.keras.layers.LSTM(3))
>>> both(np.ones((2, 5, 4), "float32")).shape               # concatenated: 3 + 3
TensorShape([2, 6])
>>> both.forward_layer.name, both.backward_layer.name, both.backward_layer.go_backwards
('forward_lstm', 'backward_lstm', True)
"""

from __future__ import annotations

from runtime.core.tensor_shape import TensorShape
from runtime.keras.layers.base import Layer
from runtime.keras.layers.rnn_cells import StackedRNNCells
from runtime.keras.saving.serialization import deserialize_keras_object, serialize_keras_object
from runtime.ops.array_ops import concat

_MERGE_MODES = ("sum", "mul", "ave", "concat", None)


def _copy(layer, **changes):
    """A new layer of ``layer``'s class from its config, with ``changes``: the same
    arguments (initializers too), its own weights."""
    config = {**layer.get_config(), **changes}
    if isinstance(config.get("cell"), dict):  # copied in-process: it may be the user's class
        config["cell"] = _copy_cell(layer.cell)
    return type(layer).from_config(config)


def _copy_cell(cell):
    """A new cell of ``cell``'s own class from its config (a name in a config finds the
    built-in cells only); the cells of a ``StackedRNNCells`` each so."""
    if isinstance(cell, StackedRNNCells):
        return StackedRNNCells([_copy_cell(inner) for inner in cell.cells], name=cell.name)
    return type(cell).from_config(cell.get_config())


def _without_prefix(name, prefix):
    return name[len(prefix) :] if name.startswith(prefix) else name


class Bidirectional(Layer):
    """Runs a copy of ``layer`` forwards and another (or ``backward_layer``) backwards over the
    sequence, and merges their outputs: ``merge_mode`` ``"concat"`` (the default), ``"sum"``,
    ``"mul"``, ``"ave"``, or None for both as a list. With ``return_sequences`` the backward
    outputs are reversed first, so that step ``t`` of both directions lines up. With
    ``return_state`` the forward layer's final states follow the output, then the backward's.
    """

    def __init__(self, layer, merge_mode="concat", weights=None, backward_layer=None, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(
                "Please initialize `Bidirectional` layer with a `keras.layers.Layer` instance. "
                f"Received: {layer}"
            )
        if backward_layer is not None and not isinstance(backward_layer, Layer):
            raise ValueError(
                "`backward_layer` need to be a `keras.layers.Layer` instance. "
                f"Received: {backward_layer}"
            )
        if merge_mode not in _MERGE_MODES:
            raise ValueError(
                f"Invalid merge mode. Received: {merge_mode}. Merge mode should be one of "
                '{"sum", "mul", "ave", "concat", None}'
            )
        super().__init__(**kwargs)
        self.forward_layer = _copy(layer, name="forward_" + _without_prefix(layer.name, "forward_"))
        if backward_layer is None:
            name = "backward_" + _without_prefix(layer.name, "backward_")
            backward_layer = _copy(layer, name=name, go_backwards=True)
        self.backward_layer = backward_layer
        if hasattr(layer, "use_cudnn"):  # not in the config: Keras copies it by hand too
            self.forward_layer.use_cudnn = self.backward_layer.use_cudnn = layer.use_cudnn
        self._verify_layer_config()
        for direction in (self.forward_layer, self.backward_layer):
            direction.zero_output_for_mask = direction.return_sequences  # as Keras forces it
        self.merge_mode = merge_mode
        self._initial_weights = weights
        self.stateful = layer.stateful
        self.return_sequences, self.return_state = layer.return_sequences, layer.return_state

    def _verify_layer_config(self):
        forward, backward = self.forward_layer, self.backward_layer
        if forward.go_backwards == backward.go_backwards:
            raise ValueError(
                "Forward layer and backward layer should have different `go_backwards` value. "
                f"Received: forward_layer.go_backwards {forward.go_backwards}, "
                f"backward_layer.go_backwards={backward.go_backwards}"
            )
        for name in ("stateful", "return_sequences", "return_state"):
            forward_value, backward_value = getattr(forward, name), getattr(backward, name)
            if forward_value != backward_value:
                raise ValueError(
                    "Forward layer and backward layer are expected to have the same value for "
                    f'attribute "{name}", got "{forward_value}" for forward layer and '
                    f'"{backward_value}" for backward layer'
                )

    def build(self, sequences_shape, initial_state_shape=None):
        for direction in (self.forward_layer, self.backward_layer):
            if not direction.built:
                direction.build(sequences_shape)
        if self._initial_weights:  # Keras's `weights`: the forward half, then the backward
            half = len(self._initial_weights) // 2
            self.forward_layer.set_weights(self._initial_weights[:half])
            self.backward_layer.set_weights(self._initial_weights[half:])
            self._initial_weights = None

    def call(self, sequences, initial_state=None, mask=None, training=None):
        forward_state = backward_state = None
        if initial_state is not None:
            half = len(initial_state) // 2
            forward_state, backward_state = initial_state[:half], initial_state[half:]
        forward = self.forward_layer(
            sequences, initial_state=forward_state, mask=mask, training=training
        )
        backward = self.backward_layer(
            sequences, initial_state=backward_state, mask=mask, training=training
        )
        states = []
        if self.return_state:
            forward, *forward_states = forward
            backward, *backward_states = backward
            states = forward_states + backward_states
        if self.return_sequences:
            backward = backward[:, ::-1]  # step t of both directions side by side
        merged = self._merge(forward, backward)
        if not self.return_state:
            return merged
        return [*(merged if isinstance(merged, list) else [merged]), *states]

    def _merge(self, forward, backward):
        if self.merge_mode == "concat":
            return concat([forward, backward], -1)
        if self.merge_mode == "sum":
            return forward + backward
        if self.merge_mode == "ave":
            return (forward + backward) / 2
        if self.merge_mode == "mul":
            return forward * backward
        return [forward, backward]

    def reset_state(self):
        """Zeroes both directions' carried states (``stateful`` layers)."""
        self.forward_layer.reset_state()
        self.backward_layer.reset_state()

    reset_states = reset_state

    def compute_output_shape(self, sequences_shape, initial_state_shape=None):
        shapes = self.forward_layer.compute_output_shape(sequences_shape)
        output, states = (shapes[0], shapes[1:]) if self.return_state else (shapes, [])
        if self.merge_mode == "concat":
            dims = output.as_list()
            output = TensorShape([*dims[:-1], None if dims[-1] is None else 2 * dims[-1]])
        merged = [output, output] if self.merge_mode is None else [output]
        if self.return_state:
            return [*merged, *states, *states]
        return merged if self.merge_mode is None else output

    def get_config(self):
        return {
            **super().get_config(),
            "merge_mode": self.merge_mode,
            "layer": serialize_keras_object(self.forward_layer),
            "backward_layer": serialize_keras_object(self.backward_layer),
        }

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        for key in ("layer", "backward_layer"):
            if isinstance(config.get(key), dict):
                config[key] = deserialize_keras_object(config[key])
        return super().from_config(config)
