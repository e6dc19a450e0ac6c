"""``model.summary()``: the table of layers, output shapes and parameter counts.

The table is the one the seeds show: Keras' layout (65 characters, columns at
45% and 85%), rows separated by underscores, then the totals. (Keras also
draws a row of ``=`` under the header and above the totals; the seeds' text
has none, and neither has ours.)
"""

from __future__ import annotations

from runtime.keras.layers.base import count_params

LINE_LENGTH = 65
POSITIONS = (0.45, 0.85, 1.0)
# A functional model with a layer of several inputs, or branches: a "Connected to" column
# naming each input tensor as ``layer[node][tensor]``, one per line, as Keras printed it.
CONNECTED_LINE_LENGTH = 98
CONNECTED_POSITIONS = (0.33, 0.55, 0.67, 1.0)


def summary_lines(model, line_length=None, positions=None):
    """The lines of ``model``'s summary."""
    if not model.built:
        raise ValueError(
            "This model has not yet been built. Build the model first by calling `build()` or "
            "by calling the model on a batch of data."
        )
    connections = model._summary_connections() if hasattr(model, "_summary_connections") else None
    header = ["Layer (type)", "Output Shape", "Param #"]
    if connections is None:
        line_length = line_length or LINE_LENGTH
        positions = positions or POSITIONS
    else:  # a functional model whose graph is not a chain: Keras' wider table
        line_length = line_length or CONNECTED_LINE_LENGTH
        positions = positions or CONNECTED_POSITIONS
        header.append("Connected to")
    if positions[-1] <= 1:
        positions = [int(line_length * p) for p in positions]
    lines = [f'Model: "{model.name}"', "_" * line_length]
    lines.append(_row(header, positions))
    rows = []
    for i, (layer, shape) in enumerate(zip(model.layers, model._summary_output_shapes())):
        fields = [f"{layer.name} ({type(layer).__name__})", shape, _params(layer)]
        if connections is None:
            rows.append(_row(fields, positions))
            continue
        inbound = connections[i] or [""]
        more = [_row(["", "", "", tensor], positions) for tensor in inbound[1:]]
        rows.append("\n".join([_row([*fields, inbound[0]], positions), *more]))
    lines += ("\n" + "_" * line_length + "\n").join(rows).split("\n") if rows else []
    trainable = count_params(model.trainable_weights)
    non_trainable = count_params(model.non_trainable_weights)
    lines += [
        f"Total params: {trainable + non_trainable:,}",
        f"Trainable params: {trainable:,}",
        f"Non-trainable params: {non_trainable:,}",
        "_" * line_length,
    ]
    return lines


def _params(layer):
    return layer.count_params() if layer.built else 0


def _row(fields, positions):
    """Each field cut or padded to end at its column, as Keras prints a row."""
    line = ""
    for i, (field, end) in enumerate(zip(fields, positions)):
        if i > 0:
            line = line[:-1] + " "
        line = (line + str(field))[:end]
        line += " " * (end - len(line))
    return line
