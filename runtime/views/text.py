"""Graphs as text, one op a line: ``name: dtype[shape] = Type(inputs, attrs)``.

Sub-graphs of cond and while ops are printed indented under their op, and a
control input is written ``^op``; so is the order a function graph runs its
stateful ops in (``runtime.views.ordering``).
"""

from __future__ import annotations

import re

import numpy as np

from runtime.core.formatting import format_value
from runtime.core.graph import CONST, register_view
from runtime.views.ordering import order_inputs

# Attributes the line already shows some other way.
_HIDDEN_ATTRS = {
    "dtype",
    "shape",
    "state",
    "template",
    "stream",
    "num_loop_vars",
    "has_maximum_iterations",
}
# Attributes shown only when set: a loop's ``stacked`` once it is differentiated.
_HIDDEN_WHEN_NONE = {"stacked"}


def tensor_ref(t) -> str:
    return t.op.name if t.value_index == 0 else f"{t.op.name}:{t.value_index}"


def type_text(t) -> str:
    dims = t.shape.as_tuple()
    if dims is None:
        return f"{t.dtype.name}[*]"
    return f"{t.dtype.name}[{','.join('?' if d is None else str(d) for d in dims)}]"


def _attr_text(key, value, one_line=False):
    if key == "variable":
        return f"variable={value.name!r}"
    if isinstance(value, np.ndarray | np.generic):
        if np.size(value) > 6:
            return f"{key}=<{'x'.join(map(str, np.shape(value)))} {value.dtype}>"
        return f"{key}={_one_line(value) if one_line else format_value(value)}"
    return f"{key}={value!r}"


def _one_line(value) -> str:
    """A value as ``tf.print`` writes it, on one line: rows side by side, and the newlines
    and quotes inside strings escaped."""
    if value.dtype.kind in "SO":
        value = np.vectorize(_escaped, otypes=[object])(value)
    return re.sub(r"\n+ *", " ", format_value(value))


def _escaped(text):
    text = text.decode("utf-8", "backslashreplace") if isinstance(text, bytes) else str(text)
    for plain, escape in (
        ("\\", "\\\\"),
        ('"', '\\"'),
        ("\n", "\\n"),
        ("\r", "\\r"),
        ("\t", "\\t"),
    ):
        text = text.replace(plain, escape)
    return text.encode()


def op_text(op, ordered_after=()) -> str:
    """One op as one line; ``ordered_after``: ops it runs after, shown as control inputs
    (``order_inputs`` gives none that a control input already orders)."""
    controls = [*op.control_inputs, *ordered_after]
    args = [tensor_ref(t) for t in op.inputs] + [f"^{c.name}" for c in controls]
    args += [
        _attr_text(k, v, one_line=True)
        for k, v in op.attrs.items()
        if k not in _HIDDEN_ATTRS
        and not hasattr(v, "_ops")
        and not (v is None and k in _HIDDEN_WHEN_NONE)
    ]
    if op.opdef is CONST:
        args = [_attr_text("value", op.attrs["value"], one_line=True)]
    if not op.outputs:
        lhs = op.name
    elif len(op.outputs) == 1:
        lhs = f"{op.name}: {type_text(op.outputs[0])}"
    else:
        lhs = ", ".join(f"{tensor_ref(t)}: {type_text(t)}" for t in op.outputs)
    return f"{lhs} = {op.type}({', '.join(args)})"


def graph_to_text(graph, indent=0) -> str:
    pad = "  " * indent
    lines = []
    shown_as_params = {id(t.op) for t in getattr(graph, "inputs", ())}
    order = order_inputs(graph)
    for op in graph._ops:
        if id(op) in shown_as_params:
            continue
        subgraphs = op.subgraphs()
        lines.append(pad + op_text(op, order.get(op, ())) + (" {" if subgraphs else ""))
        for sub in subgraphs:
            params = ", ".join(f"{tensor_ref(t)}: {type_text(t)}" for t in sub.inputs)
            lines.append(f"{pad}  {sub.graph_name}({params}):")
            body = graph_to_text(sub, indent + 2)
            if body:
                lines.append(body)
            outs = ", ".join(tensor_ref(t) for t in sub.outputs)
            lines.append(f"{pad}    return ({outs})")
        if subgraphs:
            lines.append(pad + "}")
    return "\n".join(lines)


register_view("text", graph_to_text)
