"""Printing and assertions: stateful ops that act every time they execute."""

from __future__ import annotations

import pprint
import sys

import numpy as np

from runtime import errors
from runtime.core import attr_kinds as kinds
from runtime.core import dtypes
from runtime.core.formatting import format_value
from runtime.core.op_def import EFFECT_ONLY, OpDef
from runtime.core.tensor import Tensor
from runtime.ops.constant_ops import convert_to_tensor
from runtime.ops.registry import BOOL, bind_op, check_dtype


def _print_kernel(*values, template, sep, end, stream, summarize):
    write_text(stream, print_text(values, template, sep, end, summarize))


def print_text(values, template, sep, end, summarize):
    """What a PrintV2 op with these attributes writes for these values (numpy)."""
    parts = []
    for kind, item in template:
        if kind == "text":
            parts.append(item)
        elif kind == "tensor":
            parts.append(_tensor_text(values[item], summarize, alone=len(template) == 1))
        else:  # "format": pretty-printed Python structure with tensors in slots
            parts.append(_fill_slots(*item, values, summarize))
    return sep.join(parts) + end


def _fill_slots(text, slots, values, summarize):
    """``text`` with each slot's token (there once) replaced by its tensor's text, in one pass:
    a value's text is never searched for tokens."""
    pieces, start = [], 0
    for token, index in sorted(slots, key=lambda slot: text.index(slot[0])):
        at = text.index(token, start)
        pieces += [text[start:at], format_value(values[index], summarize)]
        start = at + len(token)
    return "".join(pieces) + text[start:]


def _slot_token(index):
    """The text that stands for tensor ``index`` in a pretty-printed structure until it runs."""
    return f"\x00slot{index}\x00"


def write_text(stream, text):
    """Writes a print's text to its stream (None: ``sys.stdout`` as it is now) and flushes it."""
    out = stream if stream is not None else sys.stdout
    out.write(text)
    flush = getattr(out, "flush", None)
    if flush is not None:
        flush()


def _tensor_text(value, summarize, alone):
    if alone and isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0:
        return value[()].decode("utf-8", "backslashreplace")  # a lone string: no quotes
    return format_value(value, summarize)


def _is_template(template) -> bool:
    """``print``'s plan: ("text", str), ("tensor", input index) and ("format", (text, slots))."""
    return type(template) is tuple and all(
        type(item) is tuple and len(item) == 2 and _is_template_item(*item) for item in template
    )


def _is_template_item(kind, item):
    if kind == "text":
        return type(item) is str
    if kind == "tensor":
        return kinds.is_int(item)
    return (
        kind == "format"
        and type(item) is tuple
        and len(item) == 2
        and type(item[0]) is str
        and type(item[1]) is tuple
        and all(
            type(slot) is tuple
            and len(slot) == 2
            and type(slot[0]) is str
            and kinds.is_int(slot[1])
            for slot in item[1]
        )
    )


def _print_infer(inputs, attrs):
    used = []
    for kind, item in attrs["template"]:
        if kind == "tensor":
            used.append(item)
        elif kind == "format":
            text, slots = item
            for token, index in slots:
                # A token found twice, or inside another, would print its tensor many times.
                if token != _slot_token(index) or text.count(token) != 1:
                    raise ValueError(
                        f"print: slot {token!r:.40} is not the token of tensor {index}, once "
                        "in its text"
                    )
                used.append(index)
    if sorted(used) != list(range(len(inputs))):
        raise ValueError("print: its template does not use each of its inputs once")
    return []


PRINT = OpDef(
    "PrintV2",
    _print_kernel,
    _print_infer,
    stateful=True,
    default_name="PrintV2",
    attrs={
        "template": kinds.AttrKind("a print template", _is_template),
        "sep": kinds.STR,
        "end": kinds.STR,
        "stream": kinds.AttrKind(
            "None or a stream", lambda v: v is None or callable(getattr(v, "write", None))
        ),
        "summarize": kinds.OPTIONAL_INT,
    },
    gradient=EFFECT_ONLY,
)


def print(*inputs, sep=" ", end="\n", output_stream=None, summarize=3, name=None):  # noqa: A001
    """Prints tensors (and Python values) each time it executes, like ``tf.print``.

    Eagerly it prints at once; in a graph it prints on every run. numpy arrays
    print as tensors do, as in TensorFlow today; other Python values than strings
    are pretty-printed (``pprint.pformat``), with any tensors inside them printed
    in place.

    >>> import runtime as rt
    >>> rt.print("x:", rt.constant([1, 2, 3]), rt.constant("text"))
    x: [1 2 3] "text"
    >>> rt.print(rt.constant("hello world"))
    hello world
    >>> rt.print({"b": 1, "a": rt.constant([1, 2])})
    {'a': [1 2], 'b': 1}
    >>> import numpy as np
    >>> rt.print(np.array([1, 2, 3]))
    [1 2 3]
    """
    template, tensors = [], []
    for item in inputs:
        if _prints_as_tensor(item):
            template.append(("tensor", len(tensors)))
            tensors.append(convert_to_tensor(item))
        elif isinstance(item, str):
            template.append(("text", item))
        else:
            template.append(("format", _format_structure(item, tensors)))
    attrs = {
        "template": tuple(template),
        "sep": sep,
        "end": end,
        "stream": _stream(output_stream),
        "summarize": summarize,
    }
    return bind_op(PRINT, tensors, attrs, name or "PrintV2")


def _prints_as_tensor(value):
    """Tensors, variables and numpy arrays (not numpy arrays of Python objects)."""
    if isinstance(value, np.ndarray | np.generic):
        return value.dtype != object
    return isinstance(value, Tensor) or hasattr(value, "_as_tensor")


class _Slot:
    """Stands for a tensor inside a pretty-printed structure; filled in when the op runs."""

    def __init__(self, token):
        self.token = token

    def __repr__(self):
        return self.token


def _format_structure(value, tensors):
    slots = []

    def slot(leaf):
        if _prints_as_tensor(leaf):
            token = _slot_token(len(tensors))
            slots.append((token, len(tensors)))
            tensors.append(convert_to_tensor(leaf))
            return _Slot(token)
        return leaf

    structure = _map_leaves(value, slot)
    return pprint.pformat(structure), tuple(slots)


def _map_leaves(value, fn):
    if isinstance(value, list):
        return [_map_leaves(v, fn) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(_map_leaves(v, fn) for v in value)
    if isinstance(value, dict):
        return {k: _map_leaves(v, fn) for k, v in value.items()}
    return fn(value)


def _stream(output_stream):
    if output_stream in (None, sys.stdout, "stdout"):
        return None  # resolved when printing, so a redirected sys.stdout is honoured
    if output_stream in ("stderr",):
        return sys.stderr
    return output_stream


def _assert_kernel(condition, *data, summarize):
    if not np.all(condition):
        parts = " ".join(f"[{_assert_text(d, summarize)}]" for d in data)
        raise errors.InvalidArgumentError(f"assertion failed: {parts}")


def _assert_text(value, summarize):
    if isinstance(value, np.ndarray) and value.dtype == object and value.ndim == 0:
        # As TensorFlow summarizes a string: C escapes (y[\'a\'], \n), so one line says it.
        return value[()].decode("utf-8", "backslashreplace").translate(_C_ESCAPES)
    text = format_value(value, summarize)
    return text[1:-1] if np.ndim(value) == 1 else text


_C_ESCAPES = str.maketrans(
    {"\\": "\\\\", "'": "\\'", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
)


def _assert_infer(inputs, attrs):
    check_dtype("Assert", inputs[0], BOOL, "condition")
    return []


ASSERT = OpDef(
    "Assert",
    _assert_kernel,
    _assert_infer,
    stateful=True,
    attrs={"summarize": kinds.OPTIONAL_INT},
    gradient=EFFECT_ONLY,
)


def Assert(condition, data, summarize=3, name=None):  # noqa: N802
    """Raises InvalidArgumentError listing ``data`` when ``condition`` is false at run time.

    >>> import runtime as rt
    >>> rt.Assert(rt.constant(False), ["x is", rt.constant([1, 2])])
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: assertion failed: [x is] [1 2]
    """
    condition = convert_to_tensor(condition)
    data = [convert_to_tensor(d) for d in data]
    return bind_op(ASSERT, [condition, *data], {"summarize": summarize}, name or "Assert")


def assert_equal(x, y, message="", summarize=3, name=None):
    """Raises InvalidArgumentError when ``x == y`` does not hold everywhere, at run time.

    >>> import runtime as rt
    >>> rt.debugging.assert_equal(rt.constant([1, 2]), rt.constant([1, 3]), message="mismatch")
    Traceback (most recent call last):
    ...
    runtime.errors.InvalidArgumentError: assertion failed: [mismatch] [Condition x == y did not hold element-wise:] [x = ] [1 2] [y = ] [1 3]
    """
    from runtime.ops import math_ops, reduction_ops

    x = convert_to_tensor(x)
    y = convert_to_tensor(y, dtype=x.dtype)
    condition = reduction_ops.reduce_all(math_ops.equal(x, y))
    x_label = f"x ({x.name}) = " if _symbolic(x) else "x = "
    y_label = f"y ({y.name}) = " if _symbolic(y) else "y = "
    data = ([message] if message else []) + [
        "Condition x == y did not hold element-wise:",
        x_label,
        x,
        y_label,
        y,
    ]
    return Assert(
        condition,
        [d if isinstance(d, Tensor) else convert_to_tensor(d, dtypes.string) for d in data],
        summarize,
        name or "assert_equal",
    )


def _symbolic(t):
    return not hasattr(t, "_value")
