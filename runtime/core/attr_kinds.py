"""What an op's attribute may hold: the kinds that rows of the op table declare.

Each row names its attributes and their kinds (``attrs={"axis": AXES,
"keepdims": BOOL}``). A graph refuses an op whose attribute names are not the
ones its row declares, and the saved-model loader checks every value against
its kind before it builds anything: a kind says exactly what a kernel may be
given. Kinds for the project's own classes (a sub-graph, a variable, a random
state, an index spec) are declared beside those classes.

>>> AXES.accepts((0, -1)), AXES.accepts(None), AXES.accepts([0]), AXES.accepts((True,))
(True, True, False, False)
>>> one_of("BYTE", "UTF8_CHAR").description
"one of 'BYTE', 'UTF8_CHAR'"
"""

from __future__ import annotations

import numpy as np

from runtime.core import dtypes
from runtime.core.tensor_shape import TensorShape

_INT64 = 1 << 63


class AttrKind:
    """A kind of attribute value: ``accepts(value)`` says whether ``value`` is one.

    ``description`` completes "must be ...", in errors.
    """

    __slots__ = ("description", "accepts")

    def __init__(self, description, accepts):
        self.description = description
        self.accepts = accepts

    def __repr__(self):
        return f"AttrKind({self.description!r})"


def is_int(value) -> bool:
    """A Python int (not a bool) that fits in 64 bits, as every integer attribute must."""
    return type(value) is int and -_INT64 <= value < _INT64


def _is_axes(value) -> bool:
    return value is None or (type(value) is tuple and all(is_int(a) for a in value))


def _is_dims(value) -> bool:
    return type(value) is tuple and all(d is None or (is_int(d) and d >= 0) for d in value)


def is_tensor_value(value) -> bool:
    """What a Const holds: a numpy array or scalar of numbers or bools, or an array of bytes."""
    if isinstance(value, np.generic):
        return value.dtype != object
    if type(value) is not np.ndarray:
        return False
    if value.dtype != object:
        return value.dtype.kind in "biuf"
    return all(type(item) is bytes for item in value.flat)


def one_of(*choices) -> AttrKind:
    """The kind of an attribute that takes one of a few fixed values."""
    return AttrKind(
        "one of " + ", ".join(repr(c) for c in choices),
        lambda value: type(value) is type(choices[0]) and value in choices,
    )


INT = AttrKind("an int", is_int)
BOOL = AttrKind("a bool", lambda value: type(value) is bool)
FLOAT = AttrKind("a float", lambda value: type(value) is float)
NUMBER = AttrKind("an int or a float", lambda value: is_int(value) or type(value) is float)
STR = AttrKind("a str", lambda value: type(value) is str)
BYTES = AttrKind("bytes", lambda value: type(value) is bytes)
OPTIONAL_INT = AttrKind("None or an int", lambda value: value is None or is_int(value))
AXES = AttrKind("None or a tuple of ints", _is_axes)
DIMS = AttrKind(
    "None or a tuple of dimensions (ints >= 0 or None)", lambda v: v is None or _is_dims(v)
)
DTYPE = AttrKind("a dtype", lambda value: isinstance(value, dtypes.DType))
SHAPE = AttrKind("a TensorShape", lambda value: isinstance(value, TensorShape))
TENSOR_VALUE = AttrKind("a numpy array or scalar (numbers, bools or bytes)", is_tensor_value)
