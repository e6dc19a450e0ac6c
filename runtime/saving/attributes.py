"""How each kind of attribute value is written to JSON and read back: one table for both.

Every row is ``(tag, python_type, encode, decode)``: the writer stores a value
as ``{tag: encode(value, writer)}`` under the first row whose ``python_type``
accepts it; the reader looks the tag up and calls ``decode(content, reader,
depth)``, which checks the JSON it is given. Arrays go to the arrays file,
sub-graphs and variables to the writer's and reader's own tables.

>>> [row.tag for row in ATTRIBUTE_TAGS][:4]
['value', 'dtype', 'shape', 'graph']
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from runtime.core.dtypes import DType
from runtime.core.graph import FuncGraph
from runtime.core.tensor_shape import TensorShape
from runtime.functions.graph_function import GraphFunction
from runtime.ops.random_ops import RandomState
from runtime.saving.format import (
    Damage,
    SavedModelError,
    expect,
    expect_list,
    read_dtype,
    read_shape,
    shape_json,
)
from runtime.state.variables import Variable


class AttrTag(NamedTuple):
    tag: str
    python_type: Callable[[Any], bool]  # does this row store the value?
    encode: Callable  # (value, writer) -> JSON content
    decode: Callable  # (content, reader, depth) -> value


def _decode_value(content, reader, depth):
    expect(
        content is None or type(content) in (bool, int, float, str),
        f"a plain value must be null, a bool, a number or a string, found {type(content).__name__}",
    )
    return content


def _decode_random(seed, reader, depth):
    expect(seed is None or (type(seed) is int and 0 <= seed < 1 << 63), "a random seed is damaged")
    return RandomState(seed)


def _decode_bytes(content, reader, depth):
    expect(type(content) is str, "bytes must be stored as base64 text")
    try:
        return base64.b64decode(content, validate=True)
    except (binascii.Error, ValueError):
        raise Damage("bytes are not valid base64") from None


def _decode_slice(content, reader, depth):
    parts = expect_list(content, "a slice")
    expect(len(parts) == 3, "a slice must have a start, a stop and a step")
    return slice(*(reader.attr(part, depth + 1) for part in parts))


def _decode_ellipsis(content, reader, depth):
    expect(content is True, "an ellipsis is damaged")
    return Ellipsis


def _sequence(kind):
    def decode(content, reader, depth):
        return kind(
            reader.attr(item, depth + 1) for item in expect_list(content, f"a {kind.__name__}")
        )

    return decode


def _is_stream(value) -> bool:
    return callable(getattr(value, "write", None))


ATTRIBUTE_TAGS = (
    AttrTag(
        "value",
        lambda v: v is None or type(v) in (bool, int, float, str),
        lambda v, writer: v,
        _decode_value,
    ),
    AttrTag(
        "dtype",
        lambda v: isinstance(v, DType),
        lambda v, writer: v.name,
        lambda content, reader, depth: read_dtype(content),
    ),
    AttrTag(
        "shape",
        lambda v: isinstance(v, TensorShape),
        lambda v, writer: shape_json(v),
        lambda content, reader, depth: read_shape(content),
    ),
    AttrTag(
        "graph",
        lambda v: isinstance(v, FuncGraph),
        lambda v, writer: writer.graph(v),
        lambda content, reader, depth: reader.graph(content, depth + 1),
    ),
    AttrTag(
        "function",  # a called function graph (PartitionedCall): compiled from its graph alone
        lambda v: isinstance(v, GraphFunction),
        lambda v, writer: writer.graph(v.graph),
        lambda content, reader, depth: reader.function(content, depth + 1),
    ),
    AttrTag(
        "variable",
        lambda v: isinstance(v, Variable),
        lambda v, writer: writer.variable(v),
        lambda content, reader, depth: reader.variable(content),
    ),
    AttrTag(
        "random",
        lambda v: isinstance(v, RandomState),
        lambda v, writer: v.seed,
        _decode_random,
    ),
    AttrTag(
        "array",
        lambda v: type(v) is np.ndarray,
        lambda v, writer: writer.array(v),
        lambda content, reader, depth: reader.array(content),
    ),
    AttrTag(
        "scalar",  # a numpy scalar: stored as a 0-d array, read back as a scalar
        lambda v: isinstance(v, np.generic),
        lambda v, writer: writer.array(np.asarray(v)),
        lambda content, reader, depth: reader.array(content)[()],
    ),
    AttrTag(
        "bytes",
        lambda v: type(v) is bytes,
        lambda v, writer: base64.b64encode(v).decode("ascii"),
        _decode_bytes,
    ),
    AttrTag(
        "slice",
        lambda v: type(v) is slice,
        lambda v, writer: [writer.attr(v.start), writer.attr(v.stop), writer.attr(v.step)],
        _decode_slice,
    ),
    AttrTag("ellipsis", lambda v: v is Ellipsis, lambda v, writer: True, _decode_ellipsis),
    AttrTag(
        "tuple",
        lambda v: type(v) is tuple,
        lambda v, writer: [writer.attr(item) for item in v],
        _sequence(tuple),
    ),
    AttrTag(
        "list",
        lambda v: type(v) is list,
        lambda v, writer: [writer.attr(item) for item in v],
        _sequence(list),
    ),
    AttrTag(
        "stream",  # rt.print's output stream: once loaded, the functions print to standard output
        _is_stream,
        lambda v, writer: None,
        lambda content, reader, depth: None,
    ),
)
_BY_TAG = {row.tag: row for row in ATTRIBUTE_TAGS}


def encode_attr(value, writer):
    """``{tag: content}`` for ``value``; SavedModelError for a value no row stores."""
    for row in ATTRIBUTE_TAGS:
        if row.python_type(value):
            return {row.tag: row.encode(value, writer)}
    raise SavedModelError(f"Cannot save an attribute of type {type(value).__name__}")


def decode_attr(data, reader, depth):
    """The value ``encode_attr`` stored as ``data``; Damage if ``data`` is not one."""
    expect(depth < 64, "attribute values are nested too deeply")
    expect(type(data) is dict and len(data) == 1, "an attribute value must be {kind: content}")
    ((tag, content),) = data.items()
    row = _BY_TAG.get(tag)
    expect(row is not None, f"unknown kind of attribute value {tag!r:.40}")
    return row.decode(content, reader, depth)
