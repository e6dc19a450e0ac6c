"""The saved format: file names, limits, the error, checksums, and JSON forms of shapes and
structures.

A saved model is a directory holding ``saved_model.json`` (the description:
every function's graph, the variables, and the name, size and SHA-256 of the
arrays file) and one arrays file, ``arrays-<generation>.npz``. The description
carries a SHA-256 of its own content, so damage anywhere is found.

>>> shape_text(TensorShape([None, 3])), shape_text(TensorShape([5])), shape_text(TensorShape(None))
('(None, 3)', '(5,)', 'unknown')
"""

from __future__ import annotations

import hashlib
import json
import math
import re

from runtime.core import dtypes
from runtime.core.graph import Operation
from runtime.core.tensor_shape import TensorShape
from runtime.saving.named_tuples import describe as describe_named_tuple
from runtime.saving.named_tuples import is_named_tuple, rebuild

FORMAT = "autograph-saved-model"
VERSION = 2  # 2: the object tree, and every concrete function of each function
DESCRIPTION_FILE = "saved_model.json"
# The arrays file of one save: a fresh generation name each time, so a save never
# overwrites the file the committed description names.
ARRAYS_FILE = re.compile(r"arrays-([0-9a-f]{16})\.npz")

MAX_DESCRIPTION_BYTES = 64 << 20
# Parsed, each JSON value is a Python object of 30 to 70 bytes: 64 MiB of "[]," took 1.4 GiB.
# A save writes about one value per 12 bytes, so this allows descriptions of about 50 MiB.
MAX_DESCRIPTION_VALUES = 1 << 22
MAX_ARRAYS_BYTES = 4 << 30
MAX_ELEMENTS = 1 << 28  # a constant or variable claiming more than this is damage, not data
MAX_NAME_LENGTH = 1000
MAX_GRAPH_DEPTH = 64
# Calls of functions whose graphs call functions, and so on: checking a call builds backward
# functions, one more order of derivatives for each level.
MAX_CALL_NESTING = 3


class SavedModelError(ValueError):
    """A saved directory that cannot be written, or that is damaged, truncated or foreign."""


class ArraysFileError(SavedModelError):
    """A SavedModelError about the arrays file: its size, its SHA-256 or a member."""


class Damage(Exception):
    """A problem found in one file; the reader turns it into a SavedModelError naming the file."""


def expect(condition, message):
    if not condition:
        raise Damage(message)


def expect_list(value, what):
    expect(type(value) is list, f"{what} must be a list, found {_json_type(value)}")
    return value


def expect_object(value, what, keys=None):
    """``value`` is a JSON object; with ``keys``, exactly those keys."""
    expect(type(value) is dict, f"{what} must be an object, found {_json_type(value)}")
    if keys is not None and value.keys() != set(keys):
        missing, extra = set(keys) - value.keys(), value.keys() - set(keys)
        expect(not missing, f"{what} lacks {', '.join(sorted(map(repr, missing)))}")
        expect(not extra, f"{what} has unknown fields {', '.join(sorted(map(repr, extra)))}")
    return value


def expect_str(value, what):
    expect(type(value) is str, f"{what} must be a string, found {_json_type(value)}")
    expect(0 < len(value) <= MAX_NAME_LENGTH, f"{what} must have 1 to {MAX_NAME_LENGTH} characters")
    return value


def json_values_bound(text):
    """At most how many values and keys the JSON ``text`` (bytes) holds, counted without parsing.

    Each value or key but the first follows a ``,``, a ``:``, a ``[`` or a ``{`` (those
    inside strings count too, so it over-counts).

    >>> json_values_bound(b'{"a": [1, 2], "b": {}}')
    8
    """
    return 1 + sum(text.count(mark) for mark in (b",", b":", b"[", b"{"))


def _json_type(value):
    return {dict: "an object", list: "a list", str: "a string", type(None): "null"}.get(
        type(value), type(value).__name__
    )


def is_saveable_name(name) -> bool:
    """A name the format stores as text (functions, variables): printable, of a sane length."""
    return type(name) is str and 0 < len(name) <= MAX_NAME_LENGTH and name.isprintable()


def checksum(description) -> str:
    """The SHA-256 of ``description``'s content, whatever the JSON's spacing."""
    canonical = json.dumps(description, separators=(",", ":"), ensure_ascii=True, allow_nan=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def describe(description) -> str:
    """The text of ``saved_model.json`` for ``description``: a save writes exactly this."""
    return json.dumps(description, indent=1, ensure_ascii=True, allow_nan=True)


def shape_json(shape):
    return None if shape.rank is None else shape.as_list()


def read_dtype(name, what="a dtype"):
    expect(type(name) is str, f"{what} must be a dtype name")
    try:
        return dtypes.as_dtype(name)
    except TypeError:
        raise Damage(f"{what}: unknown dtype {name!r}") from None


def read_shape(dims, what="a shape"):
    if dims is None:
        return TensorShape(None)
    expect(
        type(dims) is list
        and len(dims) <= 64
        and all(d is None or (type(d) is int and 0 <= d <= MAX_ELEMENTS) for d in dims),
        f"{what} must be null or a list of sizes (ints >= 0 or null), found {dims!r:.80}",
    )
    known = [d for d in dims if d is not None]
    expect(math.prod(known) <= MAX_ELEMENTS, f"{what} has more than {MAX_ELEMENTS} elements")
    return TensorShape(dims)


def shape_text(shape):
    """A shape as TensorFlow prints it, ``(None, 3)``; ``unknown`` when its rank is."""
    return "unknown" if shape.rank is None else str(shape)


def encode_structure(value, indices):
    if value is None or isinstance(value, Operation):
        return None
    if is_named_tuple(value):
        name, fields = describe_named_tuple(value)
        items = [[f, encode_structure(v, indices)] for f, v in zip(fields, value)]
        return {"namedtuple": [name, items]}
    if isinstance(value, (list, tuple)):
        return {
            "tuple" if isinstance(value, tuple) else "list": [
                encode_structure(v, indices) for v in value
            ]
        }
    if isinstance(value, dict):
        return {
            "dict": [[str(k), encode_structure(value[k], indices)] for k in sorted(value, key=repr)]
        }
    return {"output": next(indices)}


def decode_named_tuple(content, decode, what):
    """A named tuple from ``[class name, [[field, node]]]``, its items decoded by ``decode``."""
    name, entries = content
    entries = expect_list(entries, what)
    expect(
        all(type(e) is list and len(e) == 2 and type(e[0]) is str for e in entries),
        f"{what}: a named tuple's field is damaged",
    )
    try:
        return rebuild(name, [f for f, _ in entries], [decode(v) for _, v in entries])
    except ValueError as e:
        raise Damage(f"{what}: {e}") from None


def decode_structure(data, n_outputs, what):
    seen = []

    def decode(node, depth):
        if node is None:
            return None
        expect(depth < MAX_GRAPH_DEPTH, f"{what} is nested too deeply")
        expect(type(node) is dict and len(node) == 1, f"{what} is damaged")
        ((tag, content),) = node.items()
        if tag == "output":
            expect(
                type(content) is int and 0 <= content < n_outputs,
                f"{what} names output {content!r:.40}, but the graph has {n_outputs}",
            )
            seen.append(content)
            return content
        if tag in ("tuple", "list"):
            items = [decode(v, depth + 1) for v in expect_list(content, what)]
            return tuple(items) if tag == "tuple" else items
        if tag == "namedtuple":
            expect(type(content) is list and len(content) == 2, f"{what} is damaged")
            return decode_named_tuple(content, lambda v: decode(v, depth + 1), what)
        expect(tag == "dict", f"{what}: unknown kind {tag!r:.40}")
        pairs = expect_list(content, what)
        expect(
            all(type(p) is list and len(p) == 2 and type(p[0]) is str for p in pairs),
            f"{what}: a dict entry is damaged",
        )
        return {key: decode(v, depth + 1) for key, v in pairs}

    structure = decode(data, 0)
    expect(sorted(seen) == list(range(n_outputs)), f"{what} does not cover each output once")
    return structure
