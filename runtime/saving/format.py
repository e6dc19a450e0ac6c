"""The saved format: file names, limits, the error, and the JSON forms of shapes and structures."""

from __future__ import annotations

import math

from runtime.core import dtypes
from runtime.core.graph import Operation
from runtime.core.tensor_shape import TensorShape

FORMAT = "autograph-saved-model"
VERSION = 1
DESCRIPTION_FILE = "saved_model.json"
ARRAYS_FILE = "arrays.npz"
MAX_ELEMENTS = 1 << 28  # a constant or variable claiming more than this is damage, not data


class SavedModelError(ValueError):
    """A saved directory that cannot be written, or that is damaged, truncated or foreign."""


def shape_json(shape):
    return None if shape.rank is None else shape.as_list()


def encode_structure(value, indices):
    if value is None or isinstance(value, Operation):
        return None
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


def shape_text(shape):
    if shape is None:
        return "unknown"
    return (
        "("
        + ", ".join("None" if d is None else str(d) for d in shape)
        + ("," if len(shape) == 1 else "")
        + ")"
    )


def expect(condition, message):
    if not condition:
        raise SavedModelError(f"saved model is damaged: {message}")


def expect_list(value):
    expect(isinstance(value, list), f"expected a list, found {type(value).__name__}")
    return value


def expect_dict(value):
    expect(isinstance(value, dict), f"expected an object, found {type(value).__name__}")
    return value


def read_dtype(name):
    expect(isinstance(name, str), "a dtype is damaged")
    try:
        return dtypes.as_dtype(name)
    except TypeError:
        raise SavedModelError(f"saved model is damaged: unknown dtype {name!r}") from None


def read_shape(dims):
    if dims is None:
        return TensorShape(None)
    expect(
        isinstance(dims, list)
        and all(
            d is None or (isinstance(d, int) and not isinstance(d, bool) and d >= 0) for d in dims
        ),
        "a shape is damaged",
    )
    known = [d for d in dims if d is not None]
    expect(math.prod(known) <= MAX_ELEMENTS if known else True, "a shape is implausibly large")
    return TensorShape(dims)


def decode_structure(data, n_outputs):
    seen = []

    def decode(node):
        if node is None:
            return None
        expect(isinstance(node, dict) and len(node) == 1, "the output structure is damaged")
        ((tag, content),) = node.items()
        if tag == "output":
            expect(isinstance(content, int) and 0 <= content < n_outputs, "bad output index")
            seen.append(content)
            return content
        if tag in ("tuple", "list"):
            items = [decode(v) for v in expect_list(content)]
            return tuple(items) if tag == "tuple" else items
        if tag == "dict":
            return {str(k): decode(v) for k, v in expect_list(content)}
        raise SavedModelError(f"saved model is damaged: unknown structure kind {tag!r}")

    structure = decode(data)
    expect(
        sorted(seen) == list(range(n_outputs)), "the output structure does not cover the outputs"
    )
    return structure
